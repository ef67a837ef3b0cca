#!/usr/bin/env bash
# Usage errors, bad input files and per-branch errors: clear one-line
# messages, the documented exit codes, and the other branches still done.
source "$(dirname "$0")/../lib.sh"
T_SUITE=errors
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"

run_kb 2 && assert_contains "no command: usage" "usage: kbackport [-C DIR] [--color[=WHEN]] [--no-pager] <command>" "$ERR"
run_kb 0 --help && assert_contains "--help lists apply" "  apply     Apply a fix's right variant" "$OUT"
run_kb 2 frobnicate && assert_eq "unknown command" "error: 'frobnicate' is not a kbackport command" "$(head -1 <<<"$ERR")"
run_kb 2 appl && assert_eq "no prefix matching" "error: 'appl' is not a kbackport command" "$(head -1 <<<"$ERR")"
for cmd in apply audit prune; do
	run_kb 0 $cmd --help && assert_contains "$cmd --help" "usage: kbackport $cmd" "$OUT"
	run_kb 2 $cmd --no-such-option
	run_kb 2 $cmd stray-argument && assert_eq "$cmd: stray argument" "error: unexpected argument 'stray-argument'" "$ERR"
done
run_kb 2 apply --max-fuzz x && assert_eq "bad --max-fuzz" "error: --max-fuzz wants a number from 0 to 10, not 'x'" "$ERR"
# the options build, test and run share, checked by the same code
run_kb 2 apply --jobs 2 && assert_eq "apply takes no --jobs (it builds nothing)" "error: unknown option 'jobs'" "$(head -1 <<<"$ERR")"
for cmd in build run; do
	run_kb 2 $cmd --jobs 0 && assert_eq "$cmd: bad --jobs" "error: --jobs wants a number from 1 to 1024, not '0'" "$ERR"
	run_kb 2 $cmd -j 2x && assert_eq "$cmd: bad -j" "error: --jobs wants a number from 1 to 1024, not '2x'" "$ERR"
	KBACKPORT_JOBS=0 run_kb 2 $cmd && assert_eq "$cmd: bad \$KBACKPORT_JOBS" "error: KBACKPORT_JOBS wants a number from 1 to 1024, not '0'" "$ERR"
done
for cmd in test run; do
	run_kb 2 $cmd --timeout 3601 && assert_eq "$cmd: bad --timeout" "error: --timeout wants seconds from 1 to 3600, not '3601'" "$ERR"
	run_kb 2 $cmd --accel kvm && assert_eq "$cmd: bad --accel" "error: --accel is 'tcg' or 'auto', not 'kvm'" "$ERR"
done
run_kb 2 run --timeout 99999999999999999999 && assert_eq "an overflowing number" \
	"error: --timeout wants seconds from 1 to 3600, not '99999999999999999999'" "$ERR"

run_kb 2 apply --config missing.yaml && assert_contains "missing config named" "missing.yaml" "$ERR"
cat > bad.yaml <<'YAML'
repo: repos/linux
branches:
  - name: a
    ref: linux-2.6.32.y
    refs: oops
YAML
run_kb 2 apply --config bad.yaml && assert_contains "unknown key at file:line:column" "error: bad.yaml:5:5: unknown key 'refs'" "$ERR"
printf 'repo: repos/linux\nbranches:\n  - name: a\n    ref: x\n    build: maybe\n' > bad2.yaml
run_kb 2 apply --config bad2.yaml && assert_contains "wrong type at file:line:column" "error: bad2.yaml:5:12:" "$ERR"

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
run_kb 2 apply --branch nope && assert_eq "unknown --branch" "error: no branch 'nope' in 'branches.yaml'
hint: its branches: no-such-ref, no-such-repo, 2.6.32.y" "$ERR"
run_kb 1 apply --json
r() { printf '%s' "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
assert_eq "missing ref is an error" "error" "$(r no-such-ref .status)"
assert_contains "missing ref named" "branch 'no-such-ref': ref 'linux-9.9.y' not found in '$TMP/repos/linux'" "$(r no-such-ref .detail)"
assert_eq "missing repository is an error" "error" "$(r no-such-repo .status)"
assert_contains "missing repository named" "branch 'no-such-repo': cannot open repository '$TMP/nowhere'" "$(r no-such-repo .detail)"
assert_eq "the other branches are still done" "applied" "$(r 2.6.32.y .status)"

run_kb 2 apply --fix "$TMP/nowhere" && assert_contains "missing fix directory" "nowhere" "$ERR"
run_kb 2 apply --config "$TOP_DIR/branches.yaml" --branch no-such &&
	assert_eq "the default branches.yaml is valid" "error: no branch 'no-such' in '$TOP_DIR/branches.yaml'" "$(head -1 <<<"$ERR")"
# dates git would refuse: an error per branch, nothing written; every
# commit written passes git fsck
T_NAME="GIT_COMMITTER_DATE"
git -C repos/linux update-ref -d refs/heads/backport/CVE-2011-1019/2.6.32.y
refs_before=$(git -C repos/linux for-each-ref)
for d in '1700000000 +9999' '-1 +0000' '99999999999999999999 +0000' '4294967296 +0000'; do
	GIT_COMMITTER_DATE=$d run_kb 1 apply --json -b 2.6.32.y &&
		assert_contains "'$d' refused" "error: GIT_COMMITTER_DATE '$d': " "$(r 2.6.32.y '"\(.status): \(.detail)"')"
done
assert_eq "no ref written" "$refs_before" "$(git -C repos/linux for-each-ref)"
assert_eq "git fsck is clean" "" "$(git -C repos/linux fsck --strict --no-dangling 2>&1)"
GIT_COMMITTER_DATE='4294967295 -2359' run_kb 0 apply --json -b 2.6.32.y &&
	assert_eq "the last time and the widest zone git takes" "committer Stable Maintainer <stable@example.org> 4294967295 -2359" \
		"$(git -C repos/linux cat-file commit refs/heads/backport/CVE-2011-1019/2.6.32.y | grep '^committer ')"
assert_eq "git fsck is clean after it" "" "$(git -C repos/linux fsck --strict --no-dangling 2>&1)"
# output that cannot be written is an error, as git has it: into /dev/full
# or with stdout closed, exit 1 with the reason, never exit 0
T_NAME="standard output"
stdout_fails() {	# stdout_fails DESCRIPTION ARGS...: a command that exits 0 otherwise
	local what=$1 rc
	shift
	${KB_VALGRIND:-} "$KBACKPORT" "$@" >"$TMP/out" 2>"$TMP/err"
	assert_eq "$what: exit 0 otherwise" 0 "$?"
	${KB_VALGRIND:-} "$KBACKPORT" "$@" >/dev/full 2>"$TMP/err"
	rc=$?
	assert_eq "$what: into /dev/full" "1 error: cannot write to standard output: No space left on device" \
		"$rc $(tail -1 "$TMP/err")"
	${KB_VALGRIND:-} "$KBACKPORT" "$@" >&- 2>"$TMP/err"
	rc=$?
	assert_eq "$what: stdout closed" "1 error: cannot write to standard output: Bad file descriptor" \
		"$rc $(tail -1 "$TMP/err")"
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
assert_eq "stdout closed: the report's files are whole" "" \
	"$(grep -l '^report: ' run/summary.md run/kcidb.json run/b/*/junit.xml 2>/dev/null)"
finish
