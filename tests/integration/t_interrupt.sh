#!/usr/bin/env bash
# Interrupting `kbackport apply` (SIGTERM, SIGINT) at many points of a run
# over 300 branches: whatever was written must be whole. Every backport ref
# that exists points at a complete, correct commit (the tree and parent of
# an uninterrupted run), no lock file is left (a stale "<ref>.lock" would
# make the next run refuse), git fsck finds nothing wrong, the user's
# branches, HEAD, index and working tree are untouched, and the next run
# completes every branch. The kills come at fixed delays after the start;
# runs where the kill came too early or too late still check the same.
source "$(dirname "$0")/../lib.sh"
T_SUITE=interrupt
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"
N=300
{
	echo "repo: repos/linux"
	echo "branches:"
	for i in $(seq -w 1 $N); do printf '  - name: b%s\n    ref: linux-2.6.35.y\n' "$i"; done
} > branches.yaml
repo=repos/linux
base=$(git -C $repo rev-parse linux-2.6.35.y)
before=$(user_state $repo)

# the reference: one uninterrupted run in a copy
cp -a $repo reference.git
sed 's|^repo: repos/linux|repo: reference.git|' branches.yaml > reference.yaml
run_kb 0 apply --config reference.yaml
want_tree=$(git -C reference.git rev-parse refs/heads/backport/CVE-2011-1019/b001^{tree})
want_msg=$(git -C reference.git log -1 --format=%B refs/heads/backport/CVE-2011-1019/b001)
assert_eq "the reference run made every ref" $N \
	"$(git -C reference.git for-each-ref refs/heads/backport | wc -l)"

# check_whole: every backport ref is a whole, correct commit; nothing is locked
check_whole() {
	local bad=0 ref tree parent
	while read -r ref tree parent; do
		[ "$tree" = "$want_tree" ] && [ "$parent" = "$base" ] || { bad=$((bad + 1)); echo "#   $ref: $tree $parent"; }
		[ "$(git -C $repo log -1 --format=%B "$ref")" = "$want_msg" ] || { bad=$((bad + 1)); echo "#   $ref: message"; }
	done < <(git -C $repo for-each-ref --format='%(refname) %(tree) %(parent)' refs/heads/backport)
	assert_eq "every ref written is a whole backport commit" 0 "$bad"
	assert_eq "no lock file left" "" "$(find $repo/.git -name '*.lock')"
	assert_eq "git fsck finds nothing wrong" "" "$(git -C $repo fsck --no-dangling 2>&1)"
	assert_eq "the user's branches, HEAD, index and tree are untouched" "$before" "$(user_state $repo)"
}

made=()
for delay in 0.01 0.03 0.06 0.1 0.15 0.2 0.3 0.45; do
	for sig in TERM INT; do
		T_NAME="SIG$sig after ${delay}s"
		git -C $repo for-each-ref --format='delete %(refname)' refs/heads/backport |
			git -C $repo update-ref --stdin
		"$KBACKPORT" apply > apply.out 2> apply.err &
		pid=$!
		sleep "$delay"
		kill -$sig $pid 2>/dev/null
		wait $pid
		rc=$?
		n=$(git -C $repo for-each-ref refs/heads/backport | wc -l)
		made+=("$n")
		case $rc in
		0) assert_eq "a run that ended first made every ref" $N "$n" ;;
		$((128 + $(kill -l $sig)))) pass "killed by SIG$sig with $n of $N refs made" ;;
		*) fail "exit $rc"; sed 's/^/#   /' apply.err | head -5 ;;
		esac
		check_whole
	done
done
T_NAME=
# at least one kill must have landed in the middle, or nothing was tested
mid=0
for n in "${made[@]}"; do [ "$n" -gt 0 ] && [ "$n" -lt $N ] && mid=$((mid + 1)); done
[ $mid -gt 0 ] && pass "$mid of ${#made[@]} kills came in the middle of the run (refs made: ${made[*]})" ||
	fail "no kill came in the middle of the run (refs made: ${made[*]})"

T_NAME="the next run"
run_kb 0 apply --json
assert_eq "every branch applied or already made" "applied" \
	"$(printf '%s' "$OUT" | jq -r '[.results[].status] | unique | join(",")')"
assert_eq "every ref" $N "$(git -C $repo for-each-ref refs/heads/backport | wc -l)"
check_whole
finish
