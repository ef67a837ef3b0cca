#!/usr/bin/env bash
# An object that cannot be read is an error, never an answer: a lost loose
# blob, a lost tree, or a partial clone (--filter=blob:none) without the
# blobs, of files the fix touches. Each must give status `error` naming the
# path and the object id, and exit 1, not `not-affected` or a conflict.
source "$(dirname "$0")/../lib.sh"
T_SUITE=lost-objects
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP" || exit 1
R=repos/linux
r() { printf '%s' "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
loose() { printf '%s/.git/objects/%s/%s' "$R" "${1:0:2}" "${1:2}"; }

cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: 2.6.32.y, ref: linux-2.6.32.y}
  - {name: 2.6.37.y, ref: linux-2.6.37.y}
YAML

T_NAME="a lost loose blob"
blob=$(git -C $R rev-parse linux-2.6.32.y:net/core/dev.c)
test_expect_success 'the blob is a loose object' '
	test -f "$(loose "$blob")"
'
mv "$(loose "$blob")" lost-blob
run_kb 1 apply --json
test_expect_success 'status error, naming the path and the object' '
	test_eq "error: cannot read '\''net/core/dev.c'\'' (blob $blob): object not found - no match for id ($blob)" "$(r 2.6.32.y '\''"\(.status): \(.detail)"'\'')"
'
test_expect_success 'no backport ref' '
	test -z "$(git -C $R for-each-ref refs/heads/backport/CVE-2011-1019/2.6.32.y)"
'
test_expect_success 'the other branch is still done' '
	test "$(r 2.6.37.y .status)" = applied
'
run_kb 1 apply --dry-run --json -b 2.6.32.y
test_expect_success 'a dry run says so too' '
	test "$(r 2.6.32.y .status)" = error
'
run_kb 1 apply -b 2.6.32.y
test_expect_success 'the matrix shows it' '
	[[ $OUT == *"CVE-2011-1019   error"* ]]
'
mv lost-blob "$(loose "$blob")"

T_NAME="a lost tree"
tree=$(git -C $R rev-parse linux-2.6.32.y:net/core)
mv "$(loose "$tree")" lost-tree
run_kb 1 apply --json -b 2.6.32.y
test_expect_success 'status error, naming the directory and the object' '
	test_eq "error: cannot read '\''net/core'\'' (tree $tree): object not found - no match for id ($tree)" "$(r 2.6.32.y '\''"\(.status): \(.detail)"'\'')"
'
mv lost-tree "$(loose "$tree")"
run_kb 0 apply --json -b 2.6.32.y
test_expect_success 'with the objects back, it applies' '
	test "$(r 2.6.32.y .status)" = applied
'

T_NAME="a partial clone without blobs"
git -C $R config uploadpack.allowFilter true
git clone -q --bare --no-local --filter=blob:none "file://$TMP/$R" partial.git 2>/dev/null
git -C partial.git for-each-ref --format='delete %(refname)' refs/heads/backport/ |
	git -C partial.git update-ref --stdin
printf 'repo: partial.git\nbranches:\n  - {name: 2.6.32.y, ref: linux-2.6.32.y}\n' > partial.yaml
# outside valgrind: libgit2 1.5's git_repository_open_ext() leaks pcre2
# match data on a repository with extensions.* set (a partial clone)
KB_VALGRIND= run_kb 1 apply --config partial.yaml --json
test_expect_success 'status error, not an answer' '
	test "$(r 2.6.32.y .status)" = error
'
test_expect_success 'no backport ref' '
	test -z "$(git -C partial.git for-each-ref refs/heads/backport/)"
'
finish
