#!/usr/bin/env bash
# Interrupting `kbackport apply` (SIGTERM, SIGINT) at many points of a run
# over 300 branches: whatever was written must be whole. Every backport ref
# that exists points at a complete, correct commit (the tree and parent of
# an uninterrupted run), no lock file is left (a stale "<ref>.lock" would
# make the next run refuse), git fsck finds nothing wrong, the user's
# branches, HEAD, index and working tree are untouched, and the next run
# completes every branch. The kills come at fixed delays after the start;
# runs where the kill came too early or too late still check the same.
# What the interrupted command says is checked too: "interrupted after D of
# 300 branches; the N refs written are complete; run it again to continue",
# N the refs that exist, D the branches finished (N or N - 1: the branch
# at work may have its ref already). The same for `apply --queue` and
# `run`, which then keeps no results.json.
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
test_expect_success 'the reference run made every ref' '
	test "$(git -C reference.git for-each-ref refs/heads/backport | wc -l)" = $N
'

# check_said SIG RC REFS: the interrupted command's words on stderr (apply.err)
said_mid=0
check_said() {
	local sig=$1 rc=$2 n=$3 what=${4:-} done refs said_re
	[ "$rc" = $((128 + $(kill -l "$sig"))) ] || return 0
	if [ ! -s apply.err ] && [ "$n" = 0 ]; then
		test_expect_success 'killed before it began: nothing said, nothing written' '
			test ! -s apply.err && test "$n" = 0
		'
		return
	fi
	said_re="^interrupted after ([0-9]+) of $N branches; (no ref was written|the ([0-9]+) refs? written (is|are) complete); ${what}run it again to continue\$"
	if [[ $(cat apply.err) =~ $said_re ]]; then
		done=${BASH_REMATCH[1]} refs=${BASH_REMATCH[3]:-0}
		test_expect_success 'says the refs written: as many as exist' '
			test "$refs" = "$n"
		'
		test_expect_success "says $done of $N branches done, with $n refs" '
			test "$done" = "$n" || test "$done" = $((n - 1))
		'
		[ "$done" -gt 0 ] && [ "$done" -lt $N ] && said_mid=$((said_mid + 1))
	else
		test_expect_success 'what it said on stderr' '
			cat apply.err &&
			[[ $(cat apply.err) =~ $said_re ]]
		'
	fi
}

# sleep_or_wait DELAY PID REFS: sleep DELAY seconds, or with DELAY "refs"
# wait until two refs under REFS exist (so that on a slow or busy machine,
# under ASan or valgrind, one kill surely comes in the middle), then SIGINT
sleep_or_wait() {
	local i=0
	if [ "$1" = refs ]; then
		while [ $i -lt 3000 ] && kill -0 "$2" 2>/dev/null &&
			[ "$(git -C $repo for-each-ref "$3" | wc -l)" -lt 2 ]; do
			sleep 0.02
			i=$((i + 1))
		done
	else
		sleep "$1"
	fi
	kill -INT "$2" 2>/dev/null
}

# check_whole: every backport ref is a whole, correct commit; nothing is locked
check_whole() {
	local bad=0 ref tree parent
	while read -r ref tree parent; do
		[ "$tree" = "$want_tree" ] && [ "$parent" = "$base" ] || { bad=$((bad + 1)); echo "#   $ref: $tree $parent"; }
		[ "$(git -C $repo log -1 --format=%B "$ref")" = "$want_msg" ] || { bad=$((bad + 1)); echo "#   $ref: message"; }
	done < <(git -C $repo for-each-ref --format='%(refname) %(tree) %(parent)' refs/heads/backport)
	test_expect_success 'every ref written is a whole backport commit' '
		test "$bad" = 0
	'
	test_expect_success 'no lock file left' '
		printf "%s" "$(find $repo/.git -name "*.lock")" >got &&
		test_cmp /dev/null got
	'
	test_expect_success 'git fsck finds nothing wrong' '
		printf "%s" "$(git -C $repo fsck --no-dangling 2>&1)" >got &&
		test_cmp /dev/null got
	'
	test_expect_success 'the user'\''s branches, HEAD, index and tree are untouched' '
		test_eq "$before" "$(user_state $repo)"
	'
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
		# ($rc in a block is test_expect_success's own: the exit status
		# is written into the blocks below)
		case $rc in
		0) test_expect_success 'a run that ended first made every ref' 'test "$n" = $N' ;;
		$((128 + $(kill -l $sig))))
			test_expect_success "killed by SIG$sig with $n of $N refs made" \
				'test '$rc' = $((128 + $(kill -l $sig)))' ;;
		*)
			test_expect_success "exit $rc" '
				cat apply.err &&
				{ test '$rc' = 0 || test '$rc' = $((128 + $(kill -l $sig))); }
			' ;;
		esac
		check_said $sig $rc $n
		check_whole
	done
done
T_NAME=
# at least one kill must have landed in the middle, or nothing was tested
mid=0
for n in "${made[@]}"; do [ "$n" -gt 0 ] && [ "$n" -lt $N ] && mid=$((mid + 1)); done
claim="no kill came in the middle of the run"
[ $mid -gt 0 ] && claim="$mid of ${#made[@]} kills came in the middle of the run"
test_expect_success "$claim (refs made: ${made[*]})" 'test $mid -gt 0'

claim="no interrupted run said how far it got in the middle"
[ $said_mid -gt 0 ] && claim="$said_mid interrupted runs said how far they got in the middle"
test_expect_success "$claim" 'test $said_mid -gt 0'

T_NAME="the next run"
run_kb 0 apply --json
test_expect_success 'every branch applied or already made' '
	test "$(printf "%s" "$OUT" | jq -r '\''[.[0].results[].status] | unique | join(",")'\'')" = applied
'
test_expect_success 'every ref' '
	test "$(git -C $repo for-each-ref refs/heads/backport | wc -l)" = $N
'
check_whole

# --queue: a queue ref per branch, the same words
printf '%s\n' "$TOP_DIR/backports/CVE-2011-1019" > q.series
said_mid=0
for delay in 0.1 0.2 0.3 refs; do
	when=${delay}s && [ "$delay" != refs ] || when="two refs"
	T_NAME="apply --queue, SIGINT after $when"
	git -C $repo for-each-ref --format='delete %(refname)' refs/heads/backport |
		git -C $repo update-ref --stdin
	"$KBACKPORT" apply --queue q.series > apply.out 2> apply.err &
	pid=$!
	sleep_or_wait "$delay" $pid refs/heads/backport/queue/q
	wait $pid
	rc=$?
	n=$(git -C $repo for-each-ref refs/heads/backport/queue/q | wc -l)
	claim="exit $rc"
	[ $rc = 0 ] || [ $rc = 130 ] && claim="exit $rc with $n of $N refs made"
	test_expect_success "$claim" 'test '$rc' = 0 || test '$rc' = 130'
	check_said INT $rc $n
	test_expect_success 'no lock file left' '
		printf "%s" "$(find $repo/.git -name "*.lock")" >got &&
		test_cmp /dev/null got
	'
done
T_NAME="apply --queue"
claim="no interrupted queue said how far it got in the middle"
[ $said_mid -gt 0 ] && claim="an interrupted queue said how far it got in the middle"
test_expect_success "$claim" 'test $said_mid -gt 0'
run_kb 0 apply --queue q.series --json
test_expect_success 'the next run: every branch'\''s queue ref' '
	test "$(git -C $repo for-each-ref refs/heads/backport/queue/q | wc -l)" = $N
'

# run: the branches are not built (build: false), each applied and judged
sed 's/^\(    ref: .*\)$/\1\n    build: false/' branches.yaml > run.yaml
said_mid=0
for delay in 0.2 0.4 0.8 refs; do
	when=${delay}s && [ "$delay" != refs ] || when="two refs"
	T_NAME="run, SIGINT after $when"
	git -C $repo for-each-ref --format='delete %(refname)' refs/heads/backport |
		git -C $repo update-ref --stdin
	rm -rf reports
	"$KBACKPORT" run --config run.yaml > apply.out 2> apply.err &
	pid=$!
	sleep_or_wait "$delay" $pid refs/heads/backport
	wait $pid
	rc=$?
	n=$(git -C $repo for-each-ref refs/heads/backport | wc -l)
	claim="exit $rc"
	[ $rc = 0 ] || [ $rc = 130 ] && claim="exit $rc with $n of $N refs made"
	test_expect_success "$claim" 'test '$rc' = 0 || test '$rc' = 130'
	# its step lines ("[   0.1s] b001: ...") go to stderr too: the last line only
	tail -1 apply.err > said
	[ "$(head -c 1 said)" = "[" ] && : > said
	mv said apply.err
	check_said INT $rc $n "finished builds and boots are kept; "
	[ $rc = 130 ] && test_expect_success 'no results.json: the run is not complete' '
		printf "%s" "$(find reports -name results.json 2>/dev/null)" >got &&
		test_cmp /dev/null got
	'
	test_expect_success 'no lock file left' '
		printf "%s" "$(find $repo/.git -name "*.lock")" >got &&
		test_cmp /dev/null got
	'
done
T_NAME="run"
claim="no interrupted run said how far it got in the middle"
[ $said_mid -gt 0 ] && claim="an interrupted run said how far it got in the middle"
test_expect_success "$claim" 'test $said_mid -gt 0'
# nohup: a hangup kbackport was told to ignore does not stop it (SIGHUP
# ignored before it starts, sent once two refs exist); the run ends whole
T_NAME="nohup apply, SIGHUP after two refs"
git -C $repo for-each-ref --format='delete %(refname)' refs/heads/backport |
	git -C $repo update-ref --stdin
(trap '' HUP; exec "$KBACKPORT" apply > apply.out 2> apply.err) &
pid=$!
i=0
while [ $i -lt 3000 ] && kill -0 $pid 2>/dev/null &&
	[ "$(git -C $repo for-each-ref refs/heads/backport | wc -l)" -lt 2 ]; do
	sleep 0.02
	i=$((i + 1))
done
kill -HUP $pid 2>/dev/null
wait $pid
rc=$?
test_expect_success 'not stopped: exit 0, every ref, nothing said' '
	test '$rc' = 0 &&
	test "$(git -C $repo for-each-ref refs/heads/backport | wc -l)" = $N &&
	test_cmp /dev/null apply.err
'
T_NAME=
finish
