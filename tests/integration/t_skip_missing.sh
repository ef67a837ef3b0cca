#!/usr/bin/env bash
# skip-if-missing: a branch whose repository or ref is not there (the v2.6.x
# trees of the built-in branches.yaml before their tarball is imported) is
# skipped with the reason, never a failure, by every command; once the ref
# is there, the branch works as any other. On the era fixture repositories.
source "$(dirname "$0")/../lib.sh"
T_SUITE=skip-missing
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cd "$TMP" || exit 1
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: "2.6.32.y", ref: linux-2.6.32.y, build: false}
  - name: later
    ref: eras/later
    build: false
    skip-if-missing: "import it first"
  - name: elsewhere
    repo: repos/not-there.git
    ref: master
    skip-if-missing: "clone it first"
YAML
FIX=$TOP_DIR/backports/CVE-2011-1019
state=$(user_state repos/linux)

# rows: the branch and status of each row of apply's table in $OUT
rows() { printf '%s\n' "$OUT" | awk 'NR > 1 && !NF {exit} NR > 1 {print $1, $3}'; }

T_NAME=apply
run_kb 0 apply --fix "$FIX" &&
	test_expect_success 'only the branch that is there is applied' '
		test "$(rows)" = "2.6.32.y applied"
	'
test_expect_success 'each missing one is a note with its reason' '
	printf "%s\n" "note: branch '\''later'\'' skipped: ref '\''eras/later'\'' is not in '\''$TMP/repos/linux'\'': import it first" \
		"note: branch '\''elsewhere'\'' skipped: no repository '\''$TMP/repos/not-there.git'\'': clone it first" >want &&
	printf "%s\n" "$ERR" >got &&
	test_cmp want got
'
test_expect_success 'no ref made for them' '
	test "$(git -C repos/linux for-each-ref --format="%(refname)" refs/heads/backport | tr "\n" " " | sed "s/ $//")" = \
		"refs/heads/backport/CVE-2011-1019/2.6.32.y"
'

T_NAME=run
run_kb 0 run --fix "$FIX" &&
	test_expect_success 'verdicts: skipped, with the reason as the note' '
		printf "%s\n" "2.6.32.y skipped null|later skipped ref '\''eras/later'\'' is not in '\''$TMP/repos/linux'\'': import it first|elsewhere skipped no repository '\''$TMP/repos/not-there.git'\'': clone it first" >want &&
		printf "%s\n" "$(jq -r "[.branches[] | \"\(.name) \(.verdict) \(.note)\"] | join(\"|\")" reports/latest/results.json)" >got &&
		test_cmp want got
	'
test_expect_success 'no apply and no lanes for a missing branch' '
	test "$(jq -r ".branches[1] | \"\(.apply) \(.lanes | length)\"" reports/latest/results.json)" = "null 0"
'
test_expect_success 'the summary says why' '
	cat reports/latest/summary.md &&
	[[ $(cat reports/latest/summary.md) == *"- note: ref '\''eras/later'\'' is not in '\''$TMP/repos/linux'\'': import it first"* ]]
'
test_expect_success 'the progress line says why' '
	printf "%s\n" "$ERR" &&
	[[ $ERR == *"later: skipped: ref '\''eras/later'\'' is not in"* ]]
'

T_NAME="once it is there"
git -C repos/linux branch eras/later linux-2.6.35.y
run_kb 0 apply --fix "$FIX" --branch later &&
	test_expect_success 'applied as any other branch' '
		test "$(rows)" = "later applied"
	'
test_expect_success 'no note' '
	printf "%s\n" "$ERR" &&
	test "$ERR" = ""
'

T_NAME="bad config"
cat > kernel.yaml <<'YAML'
branches:
  - {name: debian, kernel: linux-image-amd64, skip-if-missing: "x"}
YAML
run_kb 2 apply --config kernel.yaml --fix "$FIX" &&
	test_expect_success 'not for a kernel package' '
		printf "%s\n" "$ERR" &&
		[[ $ERR == *"'\''skip-if-missing'\'' does not apply to it"* ]]
	'
git -C repos/linux branch -D eras/later >/dev/null
test_expect_success "the user's refs, HEAD and index untouched (but ours)" '
	test_eq "$state" "$(user_state repos/linux)"
'
finish
