#!/usr/bin/env bash
# Usage errors, bad input files and per-branch errors: clear one-line
# messages, the documented exit codes, and the other branches still done.
source "$(dirname "$0")/../lib.sh"
T_SUITE=errors
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"

test_expect_success 'no command: usage' '
	run_kb 2 &&
	[[ $ERR == *"usage: kbackport [-C DIR] [--color[=WHEN]] [--no-pager] <command>"* ]]
'
test_expect_success '--help lists apply' '
	run_kb 0 --help &&
	[[ $OUT == *"  apply     Apply a fix'\''s right variant"* ]]
'
test_expect_success 'unknown command' '
	run_kb 2 frobnicate &&
	test "$(head -1 <<<"$ERR")" = "error: '\''frobnicate'\'' is not a kbackport command"
'
test_expect_success 'no prefix matching' '
	run_kb 2 appl &&
	test "$(head -1 <<<"$ERR")" = "error: '\''appl'\'' is not a kbackport command"
'
for cmd in apply audit prune; do
	test_expect_success "$cmd --help" '
		run_kb 0 $cmd --help &&
		[[ $OUT == *"usage: kbackport $cmd"* ]]
	'
	run_kb 2 $cmd --no-such-option
	test_expect_success "$cmd: stray argument" '
		run_kb 2 $cmd stray-argument &&
		test "$ERR" = "error: unexpected argument '\''stray-argument'\''"
	'
done
test_expect_success 'bad --max-fuzz' '
	run_kb 2 apply --max-fuzz x &&
	test "$ERR" = "error: --max-fuzz wants a number from 0 to 10, not '\''x'\''"
'
# the options build, test and run share, checked by the same code
test_expect_success 'apply takes no --jobs (it builds nothing)' '
	run_kb 2 apply --jobs 2 &&
	test "$(head -1 <<<"$ERR")" = "error: unknown option '\''jobs'\''"
'
for cmd in build run; do
	test_expect_success "$cmd: bad --jobs" '
		run_kb 2 $cmd --jobs 0 &&
		test "$ERR" = "error: --jobs wants a number from 1 to 1024, not '\''0'\''"
	'
	test_expect_success "$cmd: bad -j" '
		run_kb 2 $cmd -j 2x &&
		test "$ERR" = "error: --jobs wants a number from 1 to 1024, not '\''2x'\''"
	'
	test_expect_success "$cmd: bad \$KBACKPORT_JOBS" '
		KBACKPORT_JOBS=0 run_kb 2 $cmd &&
		test "$ERR" = "error: KBACKPORT_JOBS wants a number from 1 to 1024, not '\''0'\''"
	'
done
for cmd in test run; do
	test_expect_success "$cmd: bad --timeout" '
		run_kb 2 $cmd --timeout 3601 &&
		test "$ERR" = "error: --timeout wants seconds from 1 to 3600, not '\''3601'\''"
	'
	test_expect_success "$cmd: bad --accel" '
		run_kb 2 $cmd --accel kvm &&
		test "$ERR" = "error: --accel is '\''tcg'\'' or '\''auto'\'', not '\''kvm'\''"
	'
done
test_expect_success 'an overflowing number' '
	run_kb 2 run --timeout 99999999999999999999 &&
	test "$ERR" = "error: --timeout wants seconds from 1 to 3600, not '\''99999999999999999999'\''"
'

test_expect_success 'missing config named' '
	run_kb 2 apply --config missing.yaml &&
	[[ $ERR == *"missing.yaml"* ]]
'
cat > bad.yaml <<'YAML'
repo: repos/linux
branches:
  - name: a
    ref: linux-2.6.32.y
    refs: oops
YAML
test_expect_success 'unknown key at file:line:column' '
	run_kb 2 apply --config bad.yaml &&
	[[ $ERR == *"error: bad.yaml:5:5: unknown key '\''refs'\''"* ]]
'
printf 'repo: repos/linux\nbranches:\n  - name: a\n    ref: x\n    build: maybe\n' > bad2.yaml
test_expect_success 'wrong type at file:line:column' '
	run_kb 2 apply --config bad2.yaml &&
	[[ $ERR == *"error: bad2.yaml:5:12:"* ]]
'

cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - name: no-such-ref
    ref: linux-9.9.y
  - name: no-such-repo
    repo: nowhere
    ref: master
  - name: 2.6.32.y
    ref: linux-2.6.32.y
YAML
test_expect_success 'unknown --branch' '
	run_kb 2 apply --branch nope &&
	printf "%s\n" "error: no branch '\''nope'\'' in '\''branches.yaml'\''" \
		"hint: its branches: no-such-ref, no-such-repo, 2.6.32.y" > want &&
	printf "%s\n" "$ERR" > got && test_cmp want got
'
run_kb 1 apply --json
r() { printf '%s' "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
test_expect_success 'missing ref is an error' 'test "$(r no-such-ref .status)" = error'
test_expect_success 'missing ref named' '
	[[ $(r no-such-ref .detail) == *"branch '\''no-such-ref'\'': ref '\''linux-9.9.y'\'' not found in '\''$TMP/repos/linux'\''"* ]]
'
test_expect_success 'missing repository is an error' 'test "$(r no-such-repo .status)" = error'
test_expect_success 'missing repository named' '
	[[ $(r no-such-repo .detail) == *"branch '\''no-such-repo'\'': cannot open repository '\''$TMP/nowhere'\''"* ]]
'
test_expect_success 'the other branches are still done' 'test "$(r 2.6.32.y .status)" = applied'

test_expect_success 'missing fix directory' '
	run_kb 2 apply --fix "$TMP/nowhere" &&
	[[ $ERR == *"nowhere"* ]]
'
test_expect_success 'the default branches.yaml is valid' '
	run_kb 2 apply --config "$TOP_DIR/branches.yaml" --branch no-such &&
	test "$(head -1 <<<"$ERR")" = "error: no branch '\''no-such'\'' in '\''$TOP_DIR/branches.yaml'\''"
'
# dates git would refuse: an error per branch, nothing written; every
# commit written passes git fsck
T_NAME="GIT_COMMITTER_DATE"
git -C repos/linux update-ref -d refs/heads/backport/CVE-2011-1019/2.6.32.y
refs_before=$(git -C repos/linux for-each-ref)
status_detail() { r "$1" '"\(.status): \(.detail)"'; }	# BRANCH: "STATUS: DETAIL"
for d in '1700000000 +9999' '-1 +0000' '99999999999999999999 +0000' '4294967296 +0000'; do
	test_expect_success "'$d' refused" '
		GIT_COMMITTER_DATE=$d run_kb 1 apply --json -b 2.6.32.y &&
		[[ $(status_detail 2.6.32.y) == *"error: GIT_COMMITTER_DATE '\''$d'\'': "* ]]
	'
done
test_expect_success 'no ref written' '
	test_eq "$refs_before" "$(git -C repos/linux for-each-ref)"
'
test_expect_success 'git fsck is clean' '
	test_eq "" "$(git -C repos/linux fsck --strict --no-dangling 2>&1)"
'
test_expect_success 'the last time and the widest zone git takes' '
	GIT_COMMITTER_DATE="4294967295 -2359" run_kb 0 apply --json -b 2.6.32.y &&
	test "$(git -C repos/linux cat-file commit refs/heads/backport/CVE-2011-1019/2.6.32.y | grep "^committer ")" = \
		"committer Stable Maintainer <stable@example.org> 4294967295 -2359"
'
test_expect_success 'git fsck is clean after it' '
	test_eq "" "$(git -C repos/linux fsck --strict --no-dangling 2>&1)"
'
# output that cannot be written is an error, as git has it: into /dev/full
# or with stdout closed, exit 1 with the reason, never exit 0
T_NAME="standard output"
stdout_fails() {	# stdout_fails DESCRIPTION ARGS...: a command that exits 0 otherwise
	local what=$1 args
	shift
	args=("$@")
	test_expect_success "$what: exit 0 otherwise" '
		${KB_VALGRIND:-} "$KBACKPORT" "${args[@]}" >"$TMP/out" 2>"$TMP/err"
	'
	test_expect_success "$what: into /dev/full" '
		{ ${KB_VALGRIND:-} "$KBACKPORT" "${args[@]}" >/dev/full 2>"$TMP/err"; echo "$? $(tail -1 "$TMP/err")" > got; } &&
		echo "1 error: cannot write to standard output: No space left on device" > want &&
		test_cmp want got
	'
	test_expect_success "$what: stdout closed" '
		{ ${KB_VALGRIND:-} "$KBACKPORT" "${args[@]}" >&- 2>"$TMP/err"; echo "$? $(tail -1 "$TMP/err")" > got; } &&
		echo "1 error: cannot write to standard output: Bad file descriptor" > want &&
		test_cmp want got
	'
}
stdout_fails "apply" apply -b 2.6.32.y
stdout_fails "apply --json" apply --json -b 2.6.32.y
printf 'repo: repos/linux\nbranches:\n  - {name: 2.6.31.y, ref: linux-2.6.31.y}\n' > audit.yaml
stdout_fails "audit" audit --config audit.yaml
stdout_fails "ktap" ktap "$FIXTURES/ktap/pass.log"
stdout_fails "ktap --json" ktap --json "$FIXTURES/ktap/pass.log"
mkdir -p run && printf '{"schema": 1, "run": "r", "fix": "F", "branches": [{"name": "b", "verdict": "fixed"}]}\n' > run/results.json
stdout_fails "report --json" report --json run
stdout_fails "ci-matrix" ci-matrix
stdout_fails "prune" prune --branch 2.6.32.y --dry-run
stdout_fails "prune --json" prune --branch 2.6.32.y --dry-run --json
stdout_fails "--help" --help
# stdout closed: nothing meant for it lands in a file kbackport opens
${KB_VALGRIND:-} "$KBACKPORT" report run >&- 2>/dev/null
test_expect_success "stdout closed: the report's files are whole" '
	test -z "$(grep -l "^report: " run/summary.md run/kcidb.json run/b/*/junit.xml 2>/dev/null)"
'
finish
