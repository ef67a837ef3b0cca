#!/usr/bin/env bash
# A backport ref checked out anywhere is never moved: in the main working
# tree, in a linked worktree (of a normal or a bare repository), or in the
# main working tree when branches.yaml names a linked worktree as the
# repository. kbackport refuses as `git branch -f` does, naming where it is
# checked out, and leaves the ref, HEAD, index and files as they were.
source "$(dirname "$0")/../lib.sh"
T_SUITE=worktrees
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP" || exit 1
F=CVE-2011-1019
r() { printf '%s' "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
status_detail() { r "$1" '"\(.status): \(.detail)"'; }	# BRANCH: "STATUS: DETAIL"

# advance REPO BRANCH: a new commit on BRANCH, so the next apply moves the ref
advance() {
	local tree commit
	tree=$(git -C "$1" rev-parse "$2^{tree}")
	commit=$(git -C "$1" commit-tree "$tree" -p "$2" -m "a stable point release")
	git -C "$1" update-ref "refs/heads/$2" "$commit"
}
# refused DESCRIPTION BRANCH WHERE REPO: apply refuses to move BRANCH's ref,
# checked out in WHERE, and nothing a user sees in REPO or WHERE changes
refused() {
	local what=$1 branch=$2 where=$3 repo=$4 ref=refs/heads/backport/$F/$2 tip before_repo before_wt
	tip=$(git -C "$repo" rev-parse "$ref")
	before_repo=$(user_state "$repo")
	before_wt=$(user_state "$where")
	run_kb 1 apply --json --branch "$branch"
	test_expect_success "$what: an error naming the worktree" '
		echo "error: '\''$ref'\'' is checked out in '\''$where'\'': switch branches there first" > want &&
		printf "%s\n" "$(status_detail "$branch")" > got &&
		test_cmp want got
	'
	test_expect_success "$what: the ref did not move" 'test "$(git -C "$repo" rev-parse "$ref")" = "$tip"'
	test_expect_success "$what: the repository as it was" '
		test_eq "$before_repo" "$(user_state "$repo")"
	'
	test_expect_success "$what: the worktree as it was" '
		test_eq "$before_wt" "$(user_state "$where")"
	'
	test_expect_success "$what: one reflog entry" '
		test "$(git -C "$repo" reflog show --format=%H "$ref" | wc -l)" = 1
	'
}

# a branch that carries the fix, for a pre-fix lane: 4.19.y's backport
printf 'repo: repos/linux\nbranches:\n  - {name: 4.19.y, ref: linux-4.19.y}\n' > first.yaml
run_kb 0 apply --config first.yaml
git -C repos/linux branch shipped "refs/heads/backport/$F/4.19.y"
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: 2.6.32.y, ref: linux-2.6.32.y}
  - {name: 2.6.35.y, ref: linux-2.6.35.y}
  - {name: shipped, ref: shipped, pre-fix: true}
  - {name: vendor, repo: repos/vendor.git, ref: vendor-2.6.32-fixed-tip}
YAML
git -C repos/vendor.git fetch -q ../linux linux-2.6.32.y:vendor-2.6.32-fixed-tip
git -C repos/vendor.git config core.logAllRefUpdates true	# reflogs in a bare one too
run_kb 0 apply
T_NAME="main working tree"
git -C repos/linux checkout -q "backport/$F/2.6.32.y"
advance repos/linux linux-2.6.32.y
refused "HEAD" 2.6.32.y "$TMP/repos/linux" repos/linux
git -C repos/linux checkout -q master

T_NAME="linked worktree"
git -C repos/linux worktree add -q "$TMP/wt-35" "backport/$F/2.6.35.y"
advance repos/linux linux-2.6.35.y
refused "a linked worktree" 2.6.35.y "$TMP/wt-35" repos/linux
T_NAME="the pre-fix lane in a linked worktree"
git -C repos/linux worktree add -q "$TMP/wt-pre" "backport/$F/shipped.pre-fix"
advance repos/linux shipped
tip=$(git -C repos/linux rev-parse "refs/heads/backport/$F/shipped.pre-fix")
run_kb 1 apply --json --branch shipped
test_expect_success 'an error naming the worktree' '
	echo "error: '\''refs/heads/backport/$F/shipped.pre-fix'\'' is checked out in '\''$TMP/wt-pre'\'': switch branches there first" > want &&
	printf "%s\n" "$(status_detail shipped)" > got &&
	test_cmp want got
'
test_expect_success 'the pre-fix ref did not move' '
	test "$(git -C repos/linux rev-parse "refs/heads/backport/$F/shipped.pre-fix")" = "$tip"
'

T_NAME="a linked worktree of a bare repository"
git -C repos/vendor.git worktree add -q "$TMP/wt-vendor" "backport/$F/vendor"
advance repos/vendor.git vendor-2.6.32-fixed-tip
refused "bare" vendor "$TMP/wt-vendor" repos/vendor.git

T_NAME="a linked worktree whose directory is gone"
git -C repos/linux worktree remove --force "$TMP/wt-35"
git -C repos/linux worktree add -q "$TMP/wt-gone" "backport/$F/2.6.35.y"
rm -rf "$TMP/wt-gone"
advance repos/linux linux-2.6.35.y
tip=$(git -C repos/linux rev-parse "refs/heads/backport/$F/2.6.35.y")
run_kb 1 apply --json --branch 2.6.35.y
test_expect_success 'still checked out there for git: refused' '
	echo "error: '\''refs/heads/backport/$F/2.6.35.y'\'' is checked out in '\''$TMP/wt-gone'\'': switch branches there first" > want &&
	printf "%s\n" "$(status_detail 2.6.35.y)" > got &&
	test_cmp want got
'
test_expect_success 'the ref did not move' '
	test "$(git -C repos/linux rev-parse "refs/heads/backport/$F/2.6.35.y")" = "$tip"
'
git -C repos/linux worktree prune

T_NAME="branches.yaml names a linked worktree"
git -C repos/linux worktree add -q --detach "$TMP/wt-repo" master
printf 'repo: %s\nbranches:\n  - {name: 2.6.32.y, ref: linux-2.6.32.y}\n' "$TMP/wt-repo" > wt.yaml
git -C repos/linux checkout -q "backport/$F/2.6.32.y"
tip=$(git -C repos/linux rev-parse "refs/heads/backport/$F/2.6.32.y")
run_kb 1 apply --config wt.yaml --json
test_expect_success "the main working tree's HEAD counts too" '
	echo "error: '\''refs/heads/backport/$F/2.6.32.y'\'' is checked out in '\''$TMP/repos/linux'\'': switch branches there first" > want &&
	printf "%s\n" "$(status_detail 2.6.32.y)" > got &&
	test_cmp want got
'
test_expect_success 'the ref did not move' '
	test "$(git -C repos/linux rev-parse "refs/heads/backport/$F/2.6.32.y")" = "$tip"
'
git -C repos/linux checkout -q master

T_NAME="checked out nowhere"
git -C repos/linux worktree remove --force "$TMP/wt-pre"
git -C repos/vendor.git worktree remove --force "$TMP/wt-vendor"
run_kb 0 apply --json
test_expect_success 'every ref moves once released' '
	test "$(printf "%s" "$OUT" | jq -r '\''[.[0].results[] | "\(.status) \(.created)"] | join("|")'\'')" = \
		"applied true|applied true|applied true|applied true"
'
test_expect_success 'git fsck is clean' '
	test_eq "" "$(git -C repos/linux fsck --no-progress 2>&1; git -C repos/vendor.git fsck --no-progress 2>&1 | grep -v "^notice: HEAD points to an unborn branch")"
'
finish
