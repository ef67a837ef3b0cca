#!/usr/bin/env bash
# kbackport run on the era repositories (small fixture trees, not kernels:
# every branch is `build: false`, so build and test are skipped here; the
# real pipeline on Debian's kernels is tests/e2e/t_kernels_run.sh). Checks
# the run directory: results.json's shape and verdicts, per-lane files, the
# summaries, the FAILED mail of the conflicting branch, reports/latest, the
# exit code, and a second run that keeps the first.
source "$(dirname "$0")/../lib.sh"
T_SUITE=run
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cp "$FIXTURES/eras/branches.yaml" "$TMP/branches.yaml"
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"
before_linux=$(user_state repos/linux)

T_NAME="all eras"
run_kb 1 run
test_expect_success 'says where the report is' '
	[[ $OUT == *"report: $TMP/reports/"* ]]
'
run1=$(readlink reports/latest)
test_expect_success 'reports/latest points at the run' '
	test -f "reports/$run1/results.json"
'
R=reports/latest/results.json
test_expect_success 'run id and fix' '
	test "$(jq -r '\''"\(.run) \(.fix) \(.upstream)"'\'' $R)" = "$run1 CVE-2011-1019 8909c9ad8ff03611c9c96c9a92656213e4bb495b"
'
test_expect_success 'branch verdicts' '
	test_eq "2.6.31.y not-affected|2.6.32.y skipped|2.6.35.y skipped|2.6.37.y skipped|4.19.y skipped|vendor-fixed skipped|vendor-reworked conflict" "$(jq -r '\''[.branches[] | "\(.name) \(.verdict)"] | join("|")'\'' $R)"
'
test_expect_success 'apply per branch' '
	test_eq "not-affected/null applied/2.6.32 applied/2.6.33 applied/upstream applied/3.9 already-applied/2.6.32 conflict/null" "$(jq -r '\''[.branches[].apply | "\(.status)/\(.variant)"] | join(" ")'\'' $R)"
'
test_expect_success 'lanes of 2.6.32.y: as-is and backport, builds skipped' '
	test "$(jq -r '\''[.branches[] | select(.name == "2.6.32.y") | .lanes[] | "\(.kind) \(.build) \(.verdict)"] | join("|")'\'' $R)" = \
		"as-is skipped skipped|backport skipped skipped"
'
test_expect_success 'lane apply: the backport lane applied with its variant' '
	test "$(jq -r '\''.branches[] | select(.name == "2.6.32.y") | .lanes[1].apply | "\(.status) \(.variant)"'\'' $R)" = "applied 2.6.32"
'
test_expect_success 'the backport lane'\''s commit is the backport ref' '
	test "$(jq -r '\''.branches[] | select(.name == "2.6.32.y") | .lanes[1].commit'\'' $R)" = \
		"$(git -C repos/linux rev-parse refs/heads/backport/CVE-2011-1019/2.6.32.y)"
'
test_expect_success 'the variant patch'\''s hash' '
	test "$(jq -r '\''.branches[] | select(.name == "2.6.32.y") | .apply.patch_hash'\'' $R)" = \
		"$(sha256sum "$TOP_DIR/backports/CVE-2011-1019/variants/2.6.32.patch" | cut -d" " -f1)"
'
patch=reports/latest/2.6.32.y/backport/backport.patch
test_expect_success 'backport.patch: a mail of the backport commit' '
	[[ $(cat $patch) == *"Subject: [PATCH] net: don'\''t allow CAP_NET_ADMIN to load non-netdev kernel modules"* ]]
'
test_expect_success '...with the stable line' '
	[[ $(cat $patch) == *"commit 8909c9ad8ff03611c9c96c9a92656213e4bb495b upstream."* ]]
'
test_expect_success '...that git am takes back onto the branch' '
	(
		git clone -q repos/linux "$TMP/am" && cd "$TMP/am" && git checkout -q linux-2.6.32.y &&
		git am -q "$TMP/$patch" &&
		test "$(git rev-parse HEAD^{tree})" = "$(git -C "$TMP/repos/linux" rev-parse refs/heads/backport/CVE-2011-1019/2.6.32.y^{tree})"
	)
'
test_expect_success 'apply.json per lane' '
	test "$(jq -r '\''"\(.lane.status) \(.branch.status)"'\'' reports/latest/2.6.32.y/backport/apply.json)" = "applied applied"
'
test_expect_success 'the conflict'\''s commands: git am of the upstream patch in a work tree of the bare repository' '
	test_eq "git -C $TMP/repos/vendor-CVE-2011-1019-vendor-reworked am -3 $TOP_DIR/backports/CVE-2011-1019/upstream.patch" "$(jq -r '\''.branches[] | select(.name == "vendor-reworked") | .apply.reproduce[]'\'' $R | grep " am -3 ")"
'
mail=reports/latest/FAILED-vendor-reworked.txt
test_expect_success 'FAILED mail to the author' '
	[[ $(cat $mail) == *"To: Vasiliy Kulikov <segoon@openwall.com>"* ]]
'
test_expect_success '...naming the failed hunks' '
	[[ $(cat $mail) == *"hunk 1 of '\''net/core/dev.c'\'' does not apply"* ]]
'
test_expect_success 'no FAILED mail for a branch that applied' '
	test ! -e reports/latest/FAILED-2.6.32.y.txt
'
for f in summary.md summary.html kcidb.json 2.6.32.y/backport/junit.xml; do
	test_expect_success "$f written" '
		test -s "reports/latest/$f"
	'
done
test_expect_success 'kcidb: the conflict'\''s checkout is not valid' '
	test "$(jq '\''[.checkouts[] | select(.id | test("vendor-reworked")) | .valid] | unique | .[0]'\'' reports/latest/kcidb.json)" = false
'
test_expect_success 'summary.md: the matrix' '
	[[ $(cat reports/latest/summary.md) == *"| \`vendor-reworked\` | **conflict** | conflict |"* ]]
'
"$KBACKPORT" report reports/latest > "$TMP/report.out" 2>&1
report_rc=$?
test_expect_success 'kbackport report rebuilds the same summaries' '
	test "$report_rc" = 1 &&
	cmp -s reports/latest/summary.md "reports/$run1/summary.md"
'
test_expect_success 'the user'\''s repository untouched' '
	test_eq "$before_linux" "$(user_state repos/linux)"
'

T_NAME="again"
sleep 1
run_kb 0 run --branch 2.6.32.y --branch 2.6.31.y
run2=$(readlink reports/latest)
test_expect_success 'a new run directory; the old one kept' '
	test "$run1" != "$run2" &&
	test -f "reports/$run1/results.json"
'
test_expect_success 'nothing to do twice: the backport commit reused' '
	test "$(jq -r '\''.branches[] | select(.name == "2.6.32.y") | .lanes[1].commit'\'' reports/latest/results.json)" = \
		"$(jq -r '\''.branches[] | select(.name == "2.6.32.y") | .lanes[1].commit'\'' "reports/$run1/results.json")"
'
test_expect_success 'exit 0: skipped and not-affected need nobody' '
	test "$(jq -r '\''[.branches[].verdict] | sort | join(" ")'\'' reports/latest/results.json)" = "not-affected skipped"
'

T_NAME="an earlier run's refs"
# A backport and a pre-fix ref on the branch's own commit, as an earlier run
# (of another version of the fix) may have left them: built on the branch,
# so lanes to `build` and `test`, but not what today's apply answered
# (conflict on vendor-reworked, not-affected on 2.6.31.y): no lanes of this
# run, and left alone.
for b in vendor-reworked 2.6.31.y; do
	case $b in
	vendor-reworked) r=repos/vendor.git ref=vendor-2.6.32-reworked ;;
	*) r=repos/linux ref=linux-2.6.31.y ;;
	esac
	old=$(git -C "$r" commit-tree "$(git -C "$r" rev-parse "$ref^{tree}")" -p "$ref" -m "an old backport")
	git -C "$r" update-ref "refs/heads/backport/CVE-2011-1019/$b" "$old"
	git -C "$r" update-ref "refs/heads/backport/CVE-2011-1019/$b.pre-fix" "$old"
done
run_kb 1 run --branch vendor-reworked --branch 2.6.31.y
test_expect_success 'today'\''s answers' '
	test "$(jq -r '\''[.branches[] | "\(.name) \(.apply.status)"] | join("|")'\'' reports/latest/results.json)" = \
		"2.6.31.y not-affected|vendor-reworked conflict"
'
test_expect_success 'only the as-is lanes' '
	test "$(jq -r '\''[.branches[] | "\(.name) \([.lanes[].kind] | join(","))"] | join("|")'\'' reports/latest/results.json)" = \
		"2.6.31.y as-is|vendor-reworked as-is"
'
test_expect_success 'the old refs left alone' '
	test "$(git -C repos/linux rev-parse refs/heads/backport/CVE-2011-1019/2.6.31.y refs/heads/backport/CVE-2011-1019/2.6.31.y.pre-fix | tr "\n" " " | sed "s/ $//")" = \
		"$old $old"
'
git -C repos/vendor.git update-ref -d refs/heads/backport/CVE-2011-1019/vendor-reworked
git -C repos/vendor.git update-ref -d refs/heads/backport/CVE-2011-1019/vendor-reworked.pre-fix
git -C repos/linux update-ref -d refs/heads/backport/CVE-2011-1019/2.6.31.y
git -C repos/linux update-ref -d refs/heads/backport/CVE-2011-1019/2.6.31.y.pre-fix

T_NAME="locked"
mkdir -p work && flock work/kbackport.lock sleep 30 &
locker=$!
# until the holder has the lock (not a guessed delay: a loaded machine is slow)
for _ in $(seq 1 600); do flock -n work/kbackport.lock true || break; sleep 0.05; done
run_kb 2 run --branch 2.6.32.y
test_expect_success 'a work directory in use: refused, nothing run' '
	[[ $ERR == *"error: work directory '\''$TMP/work'\'' is in use by another kbackport"* ]]
'
kill $locker 2>/dev/null; wait $locker 2>/dev/null

T_NAME="errors"
run_kb 2 run --branch nope
test_expect_success 'unknown branch' '
	[[ $ERR == *"no branch '\''nope'\''"* ]]
'
run_kb 2 run --jobs 0
run_kb 2 run extra
mkdir -p other && cp -r "$TOP_DIR/backports/CVE-2011-1019" other/CVE-2099-0001 &&
	sed -i 's/^id: .*/id: CVE-2099-0001/' other/CVE-2099-0001/fix.yaml
run_kb 2 run --fix "$TOP_DIR/backports" --fix other/CVE-2099-0001
test_expect_success 'one fix per run' '
	[[ $ERR == *"a run is about one fix"* ]]
'
run_kb 2 run --fix "$TOP_DIR/backports" --fix "$TOP_DIR/backports"
test_expect_success 'one fix twice' '
	[[ $ERR == *"fix '\''CVE-2011-1019'\'' is given twice"* ]]
'
finish
