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
assert_contains "says where the report is" "report: $TMP/reports/" "$OUT"
run1=$(readlink reports/latest)
assert_eq "reports/latest points at the run" "yes" "$([ -f "reports/$run1/results.json" ] && echo yes)"
R=reports/latest/results.json
assert_eq "run id and fix" "$run1 CVE-2011-1019 8909c9ad8ff03611c9c96c9a92656213e4bb495b" \
	"$(jq -r '"\(.run) \(.fix) \(.upstream)"' $R)"
assert_eq "branch verdicts" \
	"2.6.31.y not-affected|2.6.32.y skipped|2.6.35.y skipped|2.6.37.y skipped|4.19.y skipped|vendor-fixed skipped|vendor-reworked conflict" \
	"$(jq -r '[.branches[] | "\(.name) \(.verdict)"] | join("|")' $R)"
assert_eq "apply per branch" \
	"not-affected/null applied/2.6.32 applied/2.6.33 applied/upstream applied/3.9 already-applied/2.6.32 conflict/null" \
	"$(jq -r '[.branches[].apply | "\(.status)/\(.variant)"] | join(" ")' $R)"
assert_eq "lanes of 2.6.32.y: as-is and backport, builds skipped" \
	"as-is skipped skipped|backport skipped skipped" \
	"$(jq -r '[.branches[] | select(.name == "2.6.32.y") | .lanes[] | "\(.kind) \(.build) \(.verdict)"] | join("|")' $R)"
assert_eq "lane apply: the backport lane applied with its variant" "applied 2.6.32" \
	"$(jq -r '.branches[] | select(.name == "2.6.32.y") | .lanes[1].apply | "\(.status) \(.variant)"' $R)"
assert_eq "the backport lane's commit is the backport ref" \
	"$(git -C repos/linux rev-parse refs/heads/backport/CVE-2011-1019/2.6.32.y)" \
	"$(jq -r '.branches[] | select(.name == "2.6.32.y") | .lanes[1].commit' $R)"
assert_eq "the variant patch's hash" "$(sha256sum "$TOP_DIR/backports/CVE-2011-1019/variants/2.6.32.patch" | cut -d' ' -f1)" \
	"$(jq -r '.branches[] | select(.name == "2.6.32.y") | .apply.patch_hash' $R)"
patch=reports/latest/2.6.32.y/backport/backport.patch
assert_contains "backport.patch: a mail of the backport commit" "Subject: [PATCH] net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules" "$(cat $patch)"
assert_contains "...with the stable line" "commit 8909c9ad8ff03611c9c96c9a92656213e4bb495b upstream." "$(cat $patch)"
assert_eq "...that git am takes back onto the branch" "yes" "$(
	git clone -q repos/linux "$TMP/am" && cd "$TMP/am" && git checkout -q linux-2.6.32.y &&
	git am -q "$TMP/$patch" && [ "$(git rev-parse HEAD^{tree})" = "$(git -C "$TMP/repos/linux" rev-parse refs/heads/backport/CVE-2011-1019/2.6.32.y^{tree})" ] && echo yes)"
assert_eq "apply.json per lane" "applied applied" \
	"$(jq -r '"\(.lane.status) \(.branch.status)"' reports/latest/2.6.32.y/backport/apply.json)"
assert_eq "the conflict's commands: git am of the upstream patch in a work tree of the bare repository" \
	"git -C $TMP/repos/vendor-CVE-2011-1019-vendor-reworked am -3 $TOP_DIR/backports/CVE-2011-1019/upstream.patch" \
	"$(jq -r '.branches[] | select(.name == "vendor-reworked") | .apply.reproduce[]' $R | grep ' am -3 ')"
mail=reports/latest/FAILED-vendor-reworked.txt
assert_contains "FAILED mail to the author" "To: Vasiliy Kulikov <segoon@openwall.com>" "$(cat $mail)"
assert_contains "...naming the failed hunks" "hunk 1 of 'net/core/dev.c' does not apply" "$(cat $mail)"
assert_eq "no FAILED mail for a branch that applied" "no" "$([ -e reports/latest/FAILED-2.6.32.y.txt ] && echo yes || echo no)"
for f in summary.md summary.html kcidb.json 2.6.32.y/backport/junit.xml; do
	assert_eq "$f written" "yes" "$([ -s "reports/latest/$f" ] && echo yes)"
done
assert_eq "kcidb: the conflict's checkout is not valid" "false" \
	"$(jq '[.checkouts[] | select(.id | test("vendor-reworked")) | .valid] | unique | .[0]' reports/latest/kcidb.json)"
assert_contains "summary.md: the matrix" '| `vendor-reworked` | **conflict** | conflict |' "$(cat reports/latest/summary.md)"
"$KBACKPORT" report reports/latest > "$TMP/report.out" 2>&1
assert_eq "kbackport report rebuilds the same summaries" "1 same" \
	"$? $(cmp -s reports/latest/summary.md "reports/$run1/summary.md" && echo same)"
assert_eq "the user's repository untouched" "$before_linux" "$(user_state repos/linux)"

T_NAME="again"
sleep 1
run_kb 0 run --branch 2.6.32.y --branch 2.6.31.y
run2=$(readlink reports/latest)
assert_eq "a new run directory; the old one kept" "yes yes" \
	"$([ "$run1" != "$run2" ] && echo yes) $([ -f "reports/$run1/results.json" ] && echo yes)"
assert_eq "nothing to do twice: the backport commit reused" \
	"$(jq -r '.branches[] | select(.name == "2.6.32.y") | .lanes[1].commit' "reports/$run1/results.json")" \
	"$(jq -r '.branches[] | select(.name == "2.6.32.y") | .lanes[1].commit' reports/latest/results.json)"
assert_eq "exit 0: skipped and not-affected need nobody" "not-affected skipped" \
	"$(jq -r '[.branches[].verdict] | sort | join(" ")' reports/latest/results.json)"

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
assert_eq "today's answers" "2.6.31.y not-affected|vendor-reworked conflict" \
	"$(jq -r '[.branches[] | "\(.name) \(.apply.status)"] | join("|")' reports/latest/results.json)"
assert_eq "only the as-is lanes" "2.6.31.y as-is|vendor-reworked as-is" \
	"$(jq -r '[.branches[] | "\(.name) \([.lanes[].kind] | join(","))"] | join("|")' reports/latest/results.json)"
assert_eq "the old refs left alone" "$old $old" \
	"$(git -C repos/linux rev-parse refs/heads/backport/CVE-2011-1019/2.6.31.y refs/heads/backport/CVE-2011-1019/2.6.31.y.pre-fix | tr '\n' ' ' | sed 's/ $//')"
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
assert_contains "a work directory in use: refused, nothing run" \
	"error: work directory '$TMP/work' is in use by another kbackport" "$ERR"
kill $locker 2>/dev/null; wait $locker 2>/dev/null

T_NAME="errors"
run_kb 2 run --branch nope
assert_contains "unknown branch" "no branch 'nope'" "$ERR"
run_kb 2 run --jobs 0
run_kb 2 run extra
mkdir -p other && cp -r "$TOP_DIR/backports/CVE-2011-1019" other/CVE-2099-0001 &&
	sed -i 's/^id: .*/id: CVE-2099-0001/' other/CVE-2099-0001/fix.yaml
run_kb 2 run --fix "$TOP_DIR/backports" --fix other/CVE-2099-0001
assert_contains "one fix per run" "a run is about one fix" "$ERR"
run_kb 2 run --fix "$TOP_DIR/backports" --fix "$TOP_DIR/backports"
assert_contains "one fix twice" "fix 'CVE-2011-1019' is given twice" "$ERR"
finish
