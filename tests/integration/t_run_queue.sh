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
assert_contains "says where the report is" "report: $TMP/reports/" "$OUT"
run1=$(readlink reports/latest)
R=reports/latest/results.json
b() { jq -r --arg b "$1" ".branches[] | select(.name == \$b) | $2" $R; }
assert_eq "the run is about the queue" "queue/stable stable $FIXES" \
	"$(jq -r '"\(.fix) \(.queue.name) \([.queue.fixes[].id] | join(" "))"' $R)"
assert_eq "every fix's status per branch, in series order" \
"2.6.31.y: not-affected applied applied
2.6.32.y: applied applied applied
2.6.35.y: applied applied applied
2.6.37.y: applied applied applied
4.19.y: applied applied conflict
vendor-fixed: already-applied applied applied
vendor-reworked: conflict applied applied" \
	"$(jq -r '.branches[] | "\(.name): \([.queue.results[].status] | join(" "))"' $R)"
assert_eq "the fixes named per branch" "$FIXES" "$(b 4.19.y '[.queue.results[].fix] | join(" ")')"
assert_eq "why 4.19.y skipped the third" \
	"'drivers/staging/comedi/comedi_fops.c': no file 'drivers/staging/comedi/comedi_fops.c' in the tree" \
	"$(b 4.19.y '.queue.results[2].notes | join("\n")')"
assert_eq "applied counts" "2 3 3 3 2 2 2" "$(jq -r '[.branches[].queue.applied] | join(" ")' $R)"
assert_eq "branch verdicts: a skipped fix needs a person, lanes are skipped (build: false)" \
	"2.6.31.y skipped|2.6.32.y skipped|2.6.35.y skipped|2.6.37.y skipped|4.19.y conflict|vendor-fixed skipped|vendor-reworked conflict" \
	"$(jq -r '[.branches[] | "\(.name) \(.verdict)"] | join("|")' $R)"
assert_eq "no single apply result" "null" "$(jq -c '[.branches[].apply] | unique | .[0]' $R)"
assert_eq "lanes: as-is, then the queue's tip as the backport lane" \
	"as-is linux-4.19.y skipped skipped|backport refs/heads/backport/queue/stable/4.19.y skipped skipped" \
	"$(b 4.19.y '[.lanes[] | "\(.kind) \(.ref) \(.build) \(.verdict)"] | join("|")')"
tip=$(git -C repos/linux rev-parse refs/heads/backport/queue/stable/4.19.y)
assert_eq "the backport lane's commit is the queue's tip" "$tip $tip" \
	"$(b 4.19.y '"\(.queue.commit) \(.lanes[1].commit)"')"
assert_eq "the queue's commits: one per applied fix, on the branch" \
	"$(git -C repos/linux rev-parse linux-4.19.y)" "$(git -C repos/linux rev-parse "$tip~2")"
K=reports/latest/kcidb.json
kc() { jq -r --arg id "$1" ".checkouts[] | select(.id | endswith(\$id)) | $2" $K; }
assert_eq "kcidb: the queue's tip is a checkout on the branch's commit, valid" \
	"$(git -C repos/linux rev-parse linux-4.19.y) true queue/stable, backport lane of 4.19.y" \
	"$(kc :4.19.y:backport '"\(.git_commit_hash) \(.valid) \(.comment)"')"
assert_eq "the applied fixes' patch hashes are known" 2 \
	"$(b 4.19.y '.queue.results[] | select(.status == "applied") | .patch_hash' | grep -cE '^[0-9a-f]{64}$')"
assert_eq "kcidb: its patchset is the applied fixes' patches, in order" \
	"$(b 4.19.y '.queue.results[] | select(.status == "applied") | .patch_hash' | sha256sum | cut -d' ' -f1)" \
	"$(kc :4.19.y:backport .patchset_hash)"
assert_eq "kcidb: misc names the queue, its ref and every fix's status" \
	"stable refs/heads/backport/queue/stable/4.19.y CVE-2011-1019:applied CVE-2011-4001:applied staging-comedi-print-the-minor:conflict" \
	"$(kc :4.19.y:backport '"\(.misc.queue) \(.misc.queue_ref) \([.misc.fixes[] | "\(.fix):\(.status)"] | join(" "))"')"
python3 - "$TESTS_DIR/fixtures/reports/kcidb-v4.0.schema.json" $K > schema.out 2>&1 <<'PY'
import json, sys, jsonschema
schema, doc = (json.load(open(p)) for p in sys.argv[1:])
for e in jsonschema.Draft7Validator(schema).iter_errors(doc):
    print("/".join(map(str, e.absolute_path)), e.message)
PY
assert_eq "kcidb: the queue's run is valid KCIDB v4.0" "" "$(cat schema.out)"
assert_eq "no fix ref of its own" "" "$(git -C repos/linux for-each-ref refs/heads/backport/CVE-2011-1019)"
assert_eq "the FAILED mails of skipped fixes" \
	"4.19.y/FAILED-staging-comedi-print-the-minor.txt vendor-reworked/FAILED-CVE-2011-1019.txt" \
	"$(jq -r '[.branches[].queue.results[] | .mail // empty] | join(" ")' $R)"
mail=reports/latest/4.19.y/FAILED-staging-comedi-print-the-minor.txt
assert_contains "...to the fix's author" "To: Fixture Author <author@example.org>" "$(cat $mail)"
assert_contains "...on top of the queue" "on top of the fixes before it in the queue 'stable'" "$(cat $mail)"
assert_eq "no FAILED-<branch>.txt: that is a one-fix run's" "no" \
	"$([ -e reports/latest/FAILED-4.19.y.txt ] && echo yes || echo no)"
assert_eq "no backport.patch: a queue's tip is not one patch" "no" \
	"$([ -e reports/latest/4.19.y/backport/backport.patch ] && echo yes || echo no)"
md=$(cat reports/latest/summary.md)
assert_contains "summary.md: the fix x branch statuses" \
'## The queue `stable`: each fix on each branch

| # | fix | `2.6.31.y` | `2.6.32.y` | `2.6.35.y` | `2.6.37.y` | `4.19.y` | `vendor-fixed` | `vendor-reworked` |
|---|---|---|---|---|---|---|---|---|
| 1 | `CVE-2011-1019` | not-affected | applied (2.6.32) | applied (2.6.33) | applied (upstream) | applied (3.9) | already-applied (2.6.32) | conflict |
| 2 | `CVE-2011-4001` | applied (patch) | applied (patch) | applied (patch) | applied (patch) | applied (patch) | applied (patch) | applied (patch) |
| 3 | `staging-comedi-print-the-minor` | applied (patch) | applied (patch) | applied (patch) | applied (patch) | conflict | applied (patch) | applied (patch) |' "$md"
assert_contains "summary.md: why a fix was skipped, with its mail" \
	"- \`4.19.y\` \`staging-comedi-print-the-minor\`: conflict, skipped: variant 'patch' does not apply: 'drivers/staging/comedi/comedi\\_fops.c': no file 'drivers/staging/comedi/comedi\\_fops.c' in the tree ([FAILED mail](4.19.y/FAILED-staging-comedi-print-the-minor.txt))" "$md"
assert_contains "summary.md: a fix already in" \
	"- \`vendor-fixed\` \`CVE-2011-1019\`: already-applied, in the branch already: the changes of variant '2.6.32' are already in 'vendor-2.6.32-fixed'" "$md"
assert_eq "summary.md: the statuses above the lane verdicts" "The queue Lanes" \
	"$(grep -o '^## \(The queue\|Lanes\)' reports/latest/summary.md | cut -c4- | cut -d' ' -f1,2 | tr '\n' ' ' | sed 's/ $//')"
assert_contains "summary.md: the lanes' matrix" '| `4.19.y` | **conflict** | - | as-is | skipped | skipped |  |' "$md"
html=$(cat reports/latest/summary.html)
assert_contains "summary.html: the statuses" '<td><code>staging-comedi-print-the-minor</code></td>' "$html"
assert_contains "summary.html: ...a conflict cell" '<td><span class="st st-conflict">conflict</span></td>' "$html"
assert_eq "summary.html: the queue before the lanes' matrix" "queue matrix" \
	"$(grep -o 'table id="[a-z]*"' reports/latest/summary.html | cut -d'"' -f2 | tr '\n' ' ' | sed 's/ $//')"
junit=reports/latest/4.19.y/backport/junit.xml
assert_eq "junit.xml of the queue's lane: a testcase per fix, the skipped one failed" \
	"CVE-2011-1019 CVE-2011-4001 staging-comedi-print-the-minor|1" \
	"$(grep -o 'classname="4.19.y.backport.queue" name="[^"]*"' $junit | cut -d'"' -f4 | paste -sd' ')|$(grep -c '<failure message="conflict: ' $junit)"
"$KBACKPORT" report reports/latest > report.out 2>&1
assert_eq "kbackport report rebuilds the same summaries" "1 same" \
	"$? $(cmp -s reports/latest/summary.md "reports/$run1/summary.md" && echo same)"
assert_eq "its text: every fix's status per branch, then the verdicts" \
"queue stable:
#   FIX                             2.6.31.y         2.6.32.y         2.6.35.y         2.6.37.y         4.19.y           vendor-fixed     vendor-reworked
1   CVE-2011-1019                   not-affected     applied          applied          applied          applied          already-applied  conflict
2   CVE-2011-4001                   applied          applied          applied          applied          applied          applied          applied
3   staging-comedi-print-the-minor  applied          applied          applied          applied          conflict         applied          applied

2.6.31.y         skipped" "$(sed -n '3,9p' report.out)"
assert_contains "progress: a line per fix and branch" \
	"4.19.y: apply 3 staging-comedi-print-the-minor: conflict: variant 'patch' does not apply" "$ERR"
assert_contains "progress: the queue's tip" \
	"4.19.y: queue refs/heads/backport/queue/stable/4.19.y at ${tip:0:12}: 2 of 3 fixes applied" "$ERR"
assert_eq "the user's repository untouched" "$before_linux" "$(user_state repos/linux)"

T_NAME="again"
# at another committer date (lib.sh pins one): the queue is found all the same
sleep 1
refs=$(git -C repos/linux for-each-ref refs/heads/backport/queue)
GIT_COMMITTER_DATE="1800000000 +0200" run_kb 0 run --queue stable.series --branch 2.6.32.y --branch 2.6.31.y
run2=$(readlink reports/latest)
assert_eq "a new run directory; the old one kept" "yes yes" \
	"$([ "$run1" != "$run2" ] && echo yes) $([ -f "reports/$run1/results.json" ] && echo yes)"
assert_eq "nothing to do twice: the queue's commits reused, no ref written" \
	"$(jq -r '.branches[] | select(.name == "2.6.32.y") | .queue.commit' "reports/$run1/results.json") false" \
	"$(b 2.6.32.y '"\(.queue.commit) \(.queue.created)"')"
assert_eq "...every fix's commit the first run's, none created" \
	"$(jq -c '.branches[] | select(.name == "2.6.32.y") | [.queue.results[] | .commit, .base, .created]' "reports/$run1/results.json" | sed 's/true/false/g')" \
	"$(b 2.6.32.y '[.queue.results[] | .commit, .base, .created]' | jq -c .)"
assert_eq "...the backport lane is the first run's commit (its build, keyed by the tree, is the first run's)" \
	"$(jq -r '.branches[] | select(.name == "2.6.32.y") | .lanes[1] | "\(.ref) \(.commit)"' "reports/$run1/results.json")" \
	"$(b 2.6.32.y '.lanes[1] | "\(.ref) \(.commit)"')"
assert_eq "...the queue refs unchanged" "$refs" "$(git -C repos/linux for-each-ref refs/heads/backport/queue)"
assert_eq "...the same statuses" "2.6.31.y: not-affected applied applied|2.6.32.y: applied applied applied" \
	"$(jq -r '[.branches[] | "\(.name): \([.queue.results[].status] | join(" "))"] | join("|")' $R)"
assert_eq "exit 0: skipped needs nobody" "skipped skipped" "$(jq -r '[.branches[].verdict] | join(" ")' $R)"
run_kb 0 apply --queue stable.series --branch 2.6.32.y --json
assert_eq "one JSON form: apply --queue --json's branch is results.json's queue" \
	"$(b 2.6.32.y '.queue' | jq -S .)" "$(echo "$OUT" | jq -S '.branches[0]')"

T_NAME="not affected"
printf 'backports/CVE-2011-1019\n' > one.series
run_kb 0 run --queue one.series --branch 2.6.31.y
assert_eq "a queue none of whose fixes touch the branch: not-affected, no commit, no backport lane" \
	"not-affected not-affected null as-is" \
	"$(b 2.6.31.y '"\(.verdict) \(.queue.results[0].status) \(.queue.commit) \([.lanes[].kind] | join(" "))"')"
assert_eq "...no queue ref" "" "$(git -C repos/linux for-each-ref refs/heads/backport/queue/one)"
assert_contains "...said so" "2.6.31.y: queue: none of 1 fixes applied, no backport lane" "$ERR"

T_NAME="nothing applies"
run_kb 1 run --queue one.series --branch vendor-reworked
assert_eq "a queue none of whose fixes applies: conflict, no backport lane" "conflict null as-is" \
	"$(b vendor-reworked '"\(.verdict) \(.queue.commit) \([.lanes[].kind] | join(" "))"')"
assert_eq "kcidb: a backport checkout that is not valid, on the branch's commit, no patch applied, with the fix's status" \
	"false  $(git -C "$(b vendor-reworked .repo)" rev-parse "$(b vendor-reworked .ref)") CVE-2011-1019:conflict" \
	"$(jq -r '.checkouts[] | select(.id | endswith(":vendor-reworked:backport")) | "\(.valid) \(.patchset_hash) \(.git_commit_hash) \([.misc.fixes[] | "\(.fix):\(.status)"] | join(" "))"' reports/latest/kcidb.json)"

T_NAME="--name"
run_kb 0 run --queue one.series --name cve-only --branch 2.6.32.y
assert_eq "the queue named by --name: its ref, in results.json" \
	"refs/heads/backport/queue/cve-only/2.6.32.y $(git -C repos/linux rev-parse -q --verify refs/heads/backport/queue/cve-only/2.6.32.y)" \
	"$(b 2.6.32.y '"\(.queue.ref) \(.queue.commit)"')"
assert_eq "...and no ref under the file's name" "" "$(git -C repos/linux for-each-ref refs/heads/backport/queue/one)"

T_NAME="skip-if-missing"
mkdir -p missing && cat > missing/branches.yaml <<'YAML'
repo: ../repos/linux
branches:
  - {name: 2.6.32.y, ref: linux-2.6.32.y, build: false}
  - {name: later, ref: eras/later, build: false, skip-if-missing: "import it first"}
YAML
run_kb 0 run --config missing/branches.yaml --queue one.series --reports missing/reports
R=missing/reports/latest/results.json
assert_eq "a missing branch: skipped with its reason, no queue" \
	"later skipped null ref 'eras/later' is not in '$TMP/missing/../repos/linux': import it first" \
	"$(b later '"\(.name) \(.verdict) \(.queue) \(.note)"')"
assert_contains "summary.md: its fixes skipped, saying why" \
	"- \`later\` \`CVE-2011-1019\`: skipped: ref 'eras/later' is not in '$TMP/missing/../repos/linux': import it first" \
	"$(cat missing/reports/latest/summary.md)"
R=reports/latest/results.json

T_NAME="bad input"
runs=$(ls reports | sort)
run_kb 2 run --queue stable.series --fix backports/CVE-2011-1019 &&
	assert_eq "--fix with --queue" "error: --queue names the fixes: no --fix with it" "$ERR"
run_kb 2 run --name x &&
	assert_eq "--name without --queue" "error: --name goes with --queue" "$ERR"
run_kb 2 run --queue stable.series --name 'a..b' &&
	assert_eq "a --name that cannot be in a ref" "error: 'refs/heads/backport/queue/a..b/2.6.31.y' is not a valid ref name" "$(echo "$ERR" | head -1)"
run_kb 2 run --queue nosuch.series &&
	assert_eq "a missing series file" "error: cannot open 'nosuch.series': No such file or directory" "$ERR"
printf 'fixes/CVE-2011-4001\nfixes/no-such-fix\n' > missing.series
run_kb 2 run --queue missing.series &&
	assert_eq "a series naming a missing fix" "error: missing.series:2: no fix directory or patch 'fixes/no-such-fix'" "$ERR"
assert_eq "no run directory for bad input" "$runs" "$(ls reports | sort)"
assert_eq "no queue ref for bad input" "" "$(git -C repos/linux for-each-ref refs/heads/backport/queue/missing)"

finish
