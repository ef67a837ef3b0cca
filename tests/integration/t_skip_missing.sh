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

T_NAME=apply
run_kb 0 apply --fix "$FIX" &&
	assert_eq "only the branch that is there is applied" \
		"2.6.32.y applied" "$(printf '%s\n' "$OUT" | awk 'NR > 1 && !NF {exit} NR > 1 {print $1, $3}')"
assert_eq "each missing one is a note with its reason" \
"note: branch 'later' skipped: ref 'eras/later' is not in '$TMP/repos/linux': import it first
note: branch 'elsewhere' skipped: no repository '$TMP/repos/not-there.git': clone it first" "$ERR"
assert_eq "no ref made for them" "refs/heads/backport/CVE-2011-1019/2.6.32.y" \
	"$(git -C repos/linux for-each-ref --format='%(refname)' refs/heads/backport | tr '\n' ' ' | sed 's/ $//')"

T_NAME=run
run_kb 0 run --fix "$FIX" &&
	assert_eq "verdicts: skipped, with the reason as the note" \
		"2.6.32.y skipped null|later skipped ref 'eras/later' is not in '$TMP/repos/linux': import it first|elsewhere skipped no repository '$TMP/repos/not-there.git': clone it first" \
		"$(jq -r '[.branches[] | "\(.name) \(.verdict) \(.note)"] | join("|")' reports/latest/results.json)"
assert_eq "no apply and no lanes for a missing branch" "null 0" \
	"$(jq -r '.branches[1] | "\(.apply) \(.lanes | length)"' reports/latest/results.json)"
assert_contains "the summary says why" "- note: ref 'eras/later' is not in '$TMP/repos/linux': import it first" \
	"$(cat reports/latest/summary.md)"
assert_contains "the progress line says why" "later: skipped: ref 'eras/later' is not in" "$ERR"

T_NAME="once it is there"
git -C repos/linux branch eras/later linux-2.6.35.y
run_kb 0 apply --fix "$FIX" --branch later &&
	assert_eq "applied as any other branch" "later applied" "$(printf '%s\n' "$OUT" | awk 'NR > 1 && !NF {exit} NR > 1 {print $1, $3}')"
assert_eq "no note" "" "$ERR"

T_NAME="bad config"
cat > kernel.yaml <<'YAML'
branches:
  - {name: debian, kernel: linux-image-amd64, skip-if-missing: "x"}
YAML
run_kb 2 apply --config kernel.yaml --fix "$FIX" &&
	assert_contains "not for a kernel package" "'skip-if-missing' does not apply to it" "$ERR"
git -C repos/linux branch -D eras/later >/dev/null
assert_eq "the user's refs, HEAD and index untouched (but ours)" "$state" \
	"$(user_state repos/linux)"
finish
