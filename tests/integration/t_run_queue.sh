#!/usr/bin/env bash
# kbackport run --queue on the era fixtures (every branch `build: false`:
# lanes are skipped, no kernel is built): the queue's tip as the backport
# lane, every fix's status per branch in results.json and above the lane
# verdicts in summary.md and summary.html, FAILED mails of skipped fixes, a
# second run that reuses the queue, and bad input.
source "$(dirname "$0")/../lib.sh"
T_SUITE=run-queue
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cp "$FIXTURES/eras/branches.yaml" "$TMP/branches.yaml"
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"
before_linux=$(user_state repos/linux)

# Two upstream commits on 2.6.37 as format-patch files: the first touches
# net/ipv4/tcp_cong.c, the second a file 4.19 does not have.
git clone -q -b linux-2.6.37.y repos/linux up
(
	cd up
	sed -i 's|^ \* congestion control\.$| * congestion control; modules tcp_<name> load on demand.|' net/ipv4/tcp_cong.c
	git commit -qam "tcp: say that modules load on demand" -m "Fixes CVE-2011-4001."
	sed -i 's|DPRINTK("invalid minor number\\n");|DPRINTK("invalid minor number %u\\n", minor);|' \
		drivers/staging/comedi/comedi_fops.c
	git commit -qam "staging: comedi: print the minor"
	git format-patch -q -o ../patches origin/linux-2.6.37.y
)
run_kb 0 fix new -o fixes patches/*.patch
cat > stable.series <<'EOF'
# the repository's fix, then two made with fix new
backports/CVE-2011-1019
fixes/CVE-2011-4001
fixes/staging-comedi-print-the-minor      # no drivers/ in 4.19
EOF
FIXES="CVE-2011-1019 CVE-2011-4001 staging-comedi-print-the-minor"

T_NAME="run --queue"
run_kb 1 run --queue stable.series
test_expect_success 'says where the report is' '
	printf "%s\n" "$OUT" &&
	[[ $OUT == *"report: $TMP/reports/"* ]]
'
run1=$(readlink reports/latest)
R=reports/latest/results.json
b() { jq -r --arg b "$1" ".branches[] | select(.name == \$b) | $2" $R; }
test_expect_success 'the run is about the queue' '
	test "$(jq -r '\''"\(.fix) \(.queue.name) \([.queue.fixes[].id] | join(" "))"'\'' $R)" = "queue/stable stable $FIXES"
'
test_expect_success "every fix's status per branch, in series order" '
	printf "%s\n" "2.6.31.y: not-affected applied applied
2.6.32.y: applied applied applied
2.6.35.y: applied applied applied
2.6.37.y: applied applied applied
4.19.y: applied applied conflict
vendor-fixed: already-applied applied applied
vendor-reworked: conflict applied applied" >want &&
	printf "%s\n" "$(jq -r '\''.branches[] | "\(.name): \([.queue.results[].status] | join(" "))"'\'' $R)" >got &&
	test_cmp want got
'
test_expect_success 'the fixes named per branch' '
	test "$(b 4.19.y '\''[.queue.results[].fix] | join(" ")'\'')" = "$FIXES"
'
test_expect_success 'why 4.19.y skipped the third' '
	test_eq "'\''drivers/staging/comedi/comedi_fops.c'\'': no file '\''drivers/staging/comedi/comedi_fops.c'\'' in the tree" "$(b 4.19.y '\''.queue.results[2].notes | join("\n")'\'')"
'
test_expect_success 'applied counts' '
	test "$(jq -r '\''[.branches[].queue.applied] | join(" ")'\'' $R)" = "2 3 3 3 2 2 2"
'
test_expect_success 'branch verdicts: a skipped fix needs a person, lanes are skipped (build: false)' '
	test_eq "2.6.31.y skipped|2.6.32.y skipped|2.6.35.y skipped|2.6.37.y skipped|4.19.y conflict|vendor-fixed skipped|vendor-reworked conflict" "$(jq -r '\''[.branches[] | "\(.name) \(.verdict)"] | join("|")'\'' $R)"
'
test_expect_success 'no single apply result' '
	test "$(jq -c "[.branches[].apply] | unique | .[0]" $R)" = null
'
test_expect_success "lanes: as-is, then the queue's tip as the backport lane" '
	test_eq "as-is linux-4.19.y skipped skipped|backport refs/heads/backport/queue/stable/4.19.y skipped skipped" "$(b 4.19.y '\''[.lanes[] | "\(.kind) \(.ref) \(.build) \(.verdict)"] | join("|")'\'')"
'
tip=$(git -C repos/linux rev-parse refs/heads/backport/queue/stable/4.19.y)
test_expect_success "the backport lane's commit is the queue's tip" '
	test "$(b 4.19.y '\''"\(.queue.commit) \(.lanes[1].commit)"'\'')" = "$tip $tip"
'
test_expect_success "the queue's commits: one per applied fix, on the branch" '
	test "$(git -C repos/linux rev-parse "$tip~2")" = "$(git -C repos/linux rev-parse linux-4.19.y)"
'
K=reports/latest/kcidb.json
kc() { jq -r --arg id "$1" ".checkouts[] | select(.id | endswith(\$id)) | $2" $K; }
test_expect_success "kcidb: the queue's tip is a checkout on the branch's commit, valid" '
	test "$(kc :4.19.y:backport '\''"\(.git_commit_hash) \(.valid) \(.comment)"'\'')" = \
		"$(git -C repos/linux rev-parse linux-4.19.y) true queue/stable, backport lane of 4.19.y"
'
test_expect_success "the applied fixes' patch hashes are known" '
	test "$(b 4.19.y '\''.queue.results[] | select(.status == "applied") | .patch_hash'\'' | grep -cE "^[0-9a-f]{64}$")" = 2
'
test_expect_success "kcidb: its patchset is the applied fixes' patches, in order" '
	test "$(kc :4.19.y:backport .patchset_hash)" = \
		"$(b 4.19.y '\''.queue.results[] | select(.status == "applied") | .patch_hash'\'' | sha256sum | cut -d" " -f1)"
'
test_expect_success "kcidb: misc names the queue, its ref and every fix's status" '
	test_eq "stable refs/heads/backport/queue/stable/4.19.y CVE-2011-1019:applied CVE-2011-4001:applied staging-comedi-print-the-minor:conflict" "$(kc :4.19.y:backport '\''"\(.misc.queue) \(.misc.queue_ref) \([.misc.fixes[] | "\(.fix):\(.status)"] | join(" "))"'\'')"
'
python3 - "$TESTS_DIR/fixtures/reports/kcidb-v4.0.schema.json" $K > schema.out 2>&1 <<'PY'
import json, sys, jsonschema
schema, doc = (json.load(open(p)) for p in sys.argv[1:])
for e in jsonschema.Draft7Validator(schema).iter_errors(doc):
    print("/".join(map(str, e.absolute_path)), e.message)
PY
test_expect_success "kcidb: the queue's run is valid KCIDB v4.0" '
	cat schema.out &&
	test "$(cat schema.out)" = ""
'
test_expect_success 'no fix ref of its own' '
	test "$(git -C repos/linux for-each-ref refs/heads/backport/CVE-2011-1019)" = ""
'
test_expect_success 'the FAILED mails of skipped fixes' '
	test "$(jq -r '\''[.branches[].queue.results[] | .mail // empty] | join(" ")'\'' $R)" = \
		"4.19.y/FAILED-staging-comedi-print-the-minor.txt vendor-reworked/FAILED-CVE-2011-1019.txt"
'
mail=reports/latest/4.19.y/FAILED-staging-comedi-print-the-minor.txt
test_expect_success "...to the fix's author" '
	cat $mail &&
	[[ $(cat $mail) == *"To: Fixture Author <author@example.org>"* ]]
'
test_expect_success '...on top of the queue' '
	cat $mail &&
	[[ $(cat $mail) == *"on top of the fixes before it in the queue '\''stable'\''"* ]]
'
test_expect_success "no FAILED-<branch>.txt: that is a one-fix run's" '
	test "$([ -e reports/latest/FAILED-4.19.y.txt ] && echo yes || echo no)" = no
'
test_expect_success "no backport.patch: a queue's tip is not one patch" '
	test "$([ -e reports/latest/4.19.y/backport/backport.patch ] && echo yes || echo no)" = no
'
md=$(cat reports/latest/summary.md)
test_expect_success 'summary.md: the fix x branch statuses' '
	printf "%s\n" "$md" &&
	[[ $md == *'\''## The queue `stable`: each fix on each branch

| # | fix | `2.6.31.y` | `2.6.32.y` | `2.6.35.y` | `2.6.37.y` | `4.19.y` | `vendor-fixed` | `vendor-reworked` |
|---|---|---|---|---|---|---|---|---|
| 1 | `CVE-2011-1019` | not-affected | applied (2.6.32) | applied (2.6.33) | applied (upstream) | applied (3.9) | already-applied (2.6.32) | conflict |
| 2 | `CVE-2011-4001` | applied (patch) | applied (patch) | applied (patch) | applied (patch) | applied (patch) | applied (patch) | applied (patch) |
| 3 | `staging-comedi-print-the-minor` | applied (patch) | applied (patch) | applied (patch) | applied (patch) | conflict | applied (patch) | applied (patch) |'\''* ]]
'
test_expect_success 'summary.md: why a fix was skipped, with its mail' '
	printf "%s\n" "$md" &&
	[[ $md == *"- \`4.19.y\` \`staging-comedi-print-the-minor\`: conflict, skipped: variant '\''patch'\'' does not apply: '\''drivers/staging/comedi/comedi\\_fops.c'\'': no file '\''drivers/staging/comedi/comedi\\_fops.c'\'' in the tree ([FAILED mail](4.19.y/FAILED-staging-comedi-print-the-minor.txt))"* ]]
'
test_expect_success 'summary.md: a fix already in' '
	printf "%s\n" "$md" &&
	[[ $md == *"- \`vendor-fixed\` \`CVE-2011-1019\`: already-applied, in the branch already: the changes of variant '\''2.6.32'\'' are already in '\''vendor-2.6.32-fixed'\''"* ]]
'
test_expect_success 'summary.md: the statuses above the lane verdicts' '
	test "$(grep -o "^## \(The queue\|Lanes\)" reports/latest/summary.md | cut -c4- | cut -d" " -f1,2 | tr "\n" " " | sed "s/ $//")" = \
		"The queue Lanes"
'
test_expect_success "summary.md: the lanes' matrix" '
	printf "%s\n" "$md" &&
	[[ $md == *'\''| `4.19.y` | **conflict** | - | as-is | skipped | skipped |  |'\''* ]]
'
html=$(cat reports/latest/summary.html)
test_expect_success 'summary.html: the statuses' '
	printf "%s\n" "$html" &&
	[[ $html == *'\''<td><code>staging-comedi-print-the-minor</code></td>'\''* ]]
'
test_expect_success 'summary.html: ...a conflict cell' '
	printf "%s\n" "$html" &&
	[[ $html == *'\''<td><span class="st st-conflict">conflict</span></td>'\''* ]]
'
test_expect_success "summary.html: the queue before the lanes' matrix" '
	test "$(grep -o '\''table id="[a-z]*"'\'' reports/latest/summary.html | cut -d\" -f2 | tr "\n" " " | sed "s/ $//")" = \
		"queue matrix"
'
junit=reports/latest/4.19.y/backport/junit.xml
test_expect_success "junit.xml of the queue's lane: a testcase per fix, the skipped one failed" '
	test "$(grep -o '\''classname="4.19.y.backport.queue" name="[^"]*"'\'' $junit | cut -d\" -f4 | paste -sd" ")|$(grep -c '\''<failure message="conflict: '\'' $junit)" = \
		"CVE-2011-1019 CVE-2011-4001 staging-comedi-print-the-minor|1"
'
"$KBACKPORT" report reports/latest > report.out 2>&1
report_rc=$?
test_expect_success 'kbackport report rebuilds the same summaries' '
	test "$report_rc $(cmp -s reports/latest/summary.md "reports/$run1/summary.md" && echo same)" = "1 same"
'
test_expect_success "its text: every fix's status per branch, then the verdicts" '
	printf "%s\n" "queue stable:
#   FIX                             2.6.31.y         2.6.32.y         2.6.35.y         2.6.37.y         4.19.y           vendor-fixed     vendor-reworked
1   CVE-2011-1019                   not-affected     applied          applied          applied          applied          already-applied  conflict
2   CVE-2011-4001                   applied          applied          applied          applied          applied          applied          applied
3   staging-comedi-print-the-minor  applied          applied          applied          applied          conflict         applied          applied

2.6.31.y         skipped" >want &&
	printf "%s\n" "$(sed -n 3,9p report.out)" >got &&
	test_cmp want got
'
test_expect_success 'progress: a line per fix and branch' '
	printf "%s\n" "$ERR" &&
	[[ $ERR == *"4.19.y: apply 3 staging-comedi-print-the-minor: conflict: variant '\''patch'\'' does not apply"* ]]
'
test_expect_success "progress: the queue's tip" '
	printf "%s\n" "$ERR" &&
	[[ $ERR == *"4.19.y: queue refs/heads/backport/queue/stable/4.19.y at ${tip:0:12}: 2 of 3 fixes applied"* ]]
'
test_expect_success "the user's repository untouched" '
	test_eq "$before_linux" "$(user_state repos/linux)"
'

T_NAME="again"
# at another committer date (lib.sh pins one): the queue is found all the same
sleep 1
refs=$(git -C repos/linux for-each-ref refs/heads/backport/queue)
GIT_COMMITTER_DATE="1800000000 +0200" run_kb 0 run --queue stable.series --branch 2.6.32.y --branch 2.6.31.y
run2=$(readlink reports/latest)
test_expect_success 'a new run directory; the old one kept' '
	test "$([ "$run1" != "$run2" ] && echo yes) $([ -f "reports/$run1/results.json" ] && echo yes)" = "yes yes"
'
test_expect_success "nothing to do twice: the queue's commits reused, no ref written" '
	test "$(b 2.6.32.y '\''"\(.queue.commit) \(.queue.created)"'\'')" = \
		"$(jq -r '\''.branches[] | select(.name == "2.6.32.y") | .queue.commit'\'' "reports/$run1/results.json") false"
'
test_expect_success "...every fix's commit the first run's, none created" '
	test_eq "$(jq -c '\''.branches[] | select(.name == "2.6.32.y") | [.queue.results[] | .commit, .base, .created]'\'' "reports/$run1/results.json" | sed "s/true/false/g")" "$(b 2.6.32.y '\''[.queue.results[] | .commit, .base, .created]'\'' | jq -c .)"
'
test_expect_success "...the backport lane is the first run's commit (its build, keyed by the tree, is the first run's)" '
	test "$(b 2.6.32.y '\''.lanes[1] | "\(.ref) \(.commit)"'\'')" = \
		"$(jq -r '\''.branches[] | select(.name == "2.6.32.y") | .lanes[1] | "\(.ref) \(.commit)"'\'' "reports/$run1/results.json")"
'
test_expect_success '...the queue refs unchanged' '
	test_eq "$refs" "$(git -C repos/linux for-each-ref refs/heads/backport/queue)"
'
test_expect_success '...the same statuses' '
	test "$(jq -r '\''[.branches[] | "\(.name): \([.queue.results[].status] | join(" "))"] | join("|")'\'' $R)" = \
		"2.6.31.y: not-affected applied applied|2.6.32.y: applied applied applied"
'
test_expect_success 'exit 0: skipped needs nobody' '
	test "$(jq -r '\''[.branches[].verdict] | join(" ")'\'' $R)" = "skipped skipped"
'
run_kb 0 apply --queue stable.series --branch 2.6.32.y --json
test_expect_success "one JSON form: apply --queue --json's branch is results.json's queue" '
	test_eq "$(b 2.6.32.y .queue | jq -S .)" "$(echo "$OUT" | jq -S ".branches[0]")"
'

T_NAME="not affected"
printf 'backports/CVE-2011-1019\n' > one.series
run_kb 0 run --queue one.series --branch 2.6.31.y
test_expect_success 'a queue none of whose fixes touch the branch: not-affected, no commit, no backport lane' '
	test "$(b 2.6.31.y '\''"\(.verdict) \(.queue.results[0].status) \(.queue.commit) \([.lanes[].kind] | join(" "))"'\'')" = \
		"not-affected not-affected null as-is"
'
test_expect_success '...no queue ref' '
	test "$(git -C repos/linux for-each-ref refs/heads/backport/queue/one)" = ""
'
test_expect_success '...said so' '
	printf "%s\n" "$ERR" &&
	[[ $ERR == *"2.6.31.y: queue: none of 1 fixes applied, no backport lane"* ]]
'

T_NAME="nothing applies"
run_kb 1 run --queue one.series --branch vendor-reworked
test_expect_success 'a queue none of whose fixes applies: conflict, no backport lane' '
	test "$(b vendor-reworked '\''"\(.verdict) \(.queue.commit) \([.lanes[].kind] | join(" "))"'\'')" = "conflict null as-is"
'
test_expect_success "kcidb: a backport checkout that is not valid, on the branch's commit, no patch applied, with the fix's status" '
	test_eq "false  $(git -C "$(b vendor-reworked .repo)" rev-parse "$(b vendor-reworked .ref)") CVE-2011-1019:conflict" "$(jq -r '\''.checkouts[] | select(.id | endswith(":vendor-reworked:backport")) | "\(.valid) \(.patchset_hash) \(.git_commit_hash) \([.misc.fixes[] | "\(.fix):\(.status)"] | join(" "))"'\'' reports/latest/kcidb.json)"
'

T_NAME="--name"
run_kb 0 run --queue one.series --name cve-only --branch 2.6.32.y
test_expect_success 'the queue named by --name: its ref, in results.json' '
	test "$(b 2.6.32.y '\''"\(.queue.ref) \(.queue.commit)"'\'')" = \
		"refs/heads/backport/queue/cve-only/2.6.32.y $(git -C repos/linux rev-parse -q --verify refs/heads/backport/queue/cve-only/2.6.32.y)"
'
test_expect_success "...and no ref under the file's name" '
	test "$(git -C repos/linux for-each-ref refs/heads/backport/queue/one)" = ""
'

T_NAME="skip-if-missing"
mkdir -p missing && cat > missing/branches.yaml <<'YAML'
repo: ../repos/linux
branches:
  - {name: 2.6.32.y, ref: linux-2.6.32.y, build: false}
  - {name: later, ref: eras/later, build: false, skip-if-missing: "import it first"}
YAML
run_kb 0 run --config missing/branches.yaml --queue one.series --reports missing/reports
R=missing/reports/latest/results.json
test_expect_success 'a missing branch: skipped with its reason, no queue' '
	test_eq "later skipped null ref '\''eras/later'\'' is not in '\''$TMP/missing/../repos/linux'\'': import it first" "$(b later '\''"\(.name) \(.verdict) \(.queue) \(.note)"'\'')"
'
test_expect_success 'summary.md: its fixes skipped, saying why' '
	cat missing/reports/latest/summary.md &&
	[[ $(cat missing/reports/latest/summary.md) == *"- \`later\` \`CVE-2011-1019\`: skipped: ref '\''eras/later'\'' is not in '\''$TMP/missing/../repos/linux'\'': import it first"* ]]
'
R=reports/latest/results.json

T_NAME="bad input"
runs=$(ls reports | sort)
run_kb 2 run --queue stable.series --fix backports/CVE-2011-1019 &&
	test_expect_success '--fix with --queue' '
		test "$ERR" = "error: --queue names the fixes: no --fix with it"
	'
run_kb 2 run --name x &&
	test_expect_success '--name without --queue' '
		test "$ERR" = "error: --name goes with --queue"
	'
run_kb 2 run --queue stable.series --name 'a..b' &&
	test_expect_success 'a --name that cannot be in a ref' '
		test "$(echo "$ERR" | head -1)" = "error: '\''refs/heads/backport/queue/a..b/2.6.31.y'\'' is not a valid ref name"
	'
run_kb 2 run --queue nosuch.series &&
	test_expect_success 'a missing series file' '
		test "$ERR" = "error: cannot open '\''nosuch.series'\'': No such file or directory"
	'
printf 'fixes/CVE-2011-4001\nfixes/no-such-fix\n' > missing.series
run_kb 2 run --queue missing.series &&
	test_expect_success 'a series naming a missing fix' '
		test "$ERR" = "error: missing.series:2: no fix directory or patch '\''fixes/no-such-fix'\''"
	'
test_expect_success 'no run directory for bad input' '
	test_eq "$runs" "$(ls reports | sort)"
'
test_expect_success 'no queue ref for bad input' '
	test "$(git -C repos/linux for-each-ref refs/heads/backport/queue/missing)" = ""
'

finish
