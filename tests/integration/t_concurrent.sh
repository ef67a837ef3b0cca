#!/usr/bin/env bash
# "Never overwritten", with two applies at once: in each round two runs
# with different committer dates (so different commits) race for the same
# backport ref. Exactly one creates it; the other finds the same backport
# there (created: false, the winner's commit); the ref's reflog has one
# entry, from nothing to that commit: no commit was ever replaced. Then the
# same with the branch moved on, both racing to move the ref from its old
# value. Then the same for a queue of two fixes (apply --queue).
source "$(dirname "$0")/../lib.sh"
T_SUITE=concurrent
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP" || exit 1
R=repos/linux
REF=refs/heads/backport/CVE-2011-1019/2.6.32.y
printf 'repo: repos/linux\nbranches:\n  - {name: 2.6.32.y, ref: linux-2.6.32.y}\n' > branches.yaml
# fewer rounds under valgrind, whose pace makes each run take seconds
ROUNDS=${CONCURRENT_ROUNDS:-$([ -n "${KB_VALGRIND:-}" ] && echo 3 || echo 20)}

# race ROUND: two applies at once, their JSON in a.json and b.json, exits in a.rc, b.rc
race() {
	local t=$((1700000000 + 10 * $1))
	(GIT_COMMITTER_DATE="$t +0000" ${KB_VALGRIND:-} "$KBACKPORT" apply --json >a.json 2>a.err; echo $? >a.rc) &
	(GIT_COMMITTER_DATE="$((t + 1)) +0100" ${KB_VALGRIND:-} "$KBACKPORT" apply --json >b.json 2>b.err; echo $? >b.rc) &
	wait
}
# check ROUND OLD: one created, both the same commit, on the ref, and the
# reflog's last entry goes from OLD to it (and nothing else was written)
check() {
	local round=$1 old=$2 created commits tip entries
	created=$(jq -s '[.[][0].results[0].created] | map(select(.)) | length' a.json b.json 2>/dev/null)
	commits=$(jq -rs '[.[][0].results[0] | "\(.status) \(.commit)"] | unique | join(",")' a.json b.json 2>/dev/null)
	tip=$(git -C $R rev-parse -q --verify $REF)
	entries=$(git -C $R reflog show --format='%H' $REF | wc -l)
	if [ "$(cat a.rc b.rc | tr '\n' ' ')" != "0 0 " ] || [ "$created" != 1 ] ||
	   [ "$commits" != "applied $tip" ] || [ "$(last_entry)" != "$old $tip" ] ||
	   [ "$entries" != "$3" ]; then
		fail "round $round: exits $(cat a.rc b.rc | tr '\n' ' ')created $created, results '$commits', ref $tip, reflog:"
		sed 's/^/#   /' "$R/.git/logs/$REF" a.err b.err
		return 1
	fi
	return 0
}
last_entry() { tail -1 "$R/.git/logs/$REF" | cut -d' ' -f1,2; }
ZERO=0000000000000000000000000000000000000000

T_NAME="a new ref"
ok=0
for i in $(seq "$ROUNDS"); do
	git -C $R update-ref -d $REF 2>/dev/null
	race "$i"
	check "$i" $ZERO 1 && ok=$((ok + 1))
done
test_expect_success "$ROUNDS rounds: one created, the other found it, one reflog entry" 'test "$ok" = "$ROUNDS"'

T_NAME="a ref moved on"
ok=0
for i in $(seq "$ROUNDS"); do
	old=$(git -C $R rev-parse $REF)
	tree=$(git -C $R rev-parse "linux-2.6.32.y^{tree}")
	git -C $R update-ref refs/heads/linux-2.6.32.y \
		"$(git -C $R commit-tree "$tree" -p linux-2.6.32.y -m "point release $i")"
	race "$((100 + i))"
	check "$i" "$old" "$((i + 1))" && ok=$((ok + 1))
done
test_expect_success "$ROUNDS rounds: moved once, by one, from the old commit" 'test "$ok" = "$ROUNDS"'

# Queues: two fixes, so each run makes a commit of its own before the
# queue's tip; both at once with different committer dates. Exactly one
# writes the ref; the other finds the same queue there (every commit the
# same change) and names the winner's commits, created: false.
git clone -q -b linux-2.6.37.y $R up
(
	cd up &&
	sed -i 's|^ \* congestion control\.$| * congestion control; modules tcp_<name> load on demand.|' net/ipv4/tcp_cong.c &&
	git commit -qam "tcp: say that modules load on demand" -m "Fixes CVE-2011-4001." &&
	git format-patch -q -o ../patches origin/linux-2.6.37.y
)
"$KBACKPORT" fix new -o fixes patches/*.patch >/dev/null
printf 'backports/CVE-2011-1019\nfixes/CVE-2011-4001\n' > q.series
QREF=refs/heads/backport/queue/q/2.6.32.y
qrace() {
	local t=$((1700000000 + 10 * $1))
	(GIT_COMMITTER_DATE="$t +0000" ${KB_VALGRIND:-} "$KBACKPORT" apply --queue q.series --json >a.json 2>a.err; echo $? >a.rc) &
	(GIT_COMMITTER_DATE="$((t + 1)) +0100" ${KB_VALGRIND:-} "$KBACKPORT" apply --queue q.series --json >b.json 2>b.err; echo $? >b.rc) &
	wait
}
# qcheck ROUND OLD ENTRIES: one created, both the same commits, the tip on
# the ref, the loser's fixes not created, the reflog's last entry OLD -> tip
qcheck() {
	local tip created same loser
	tip=$(git -C $R rev-parse -q --verify $QREF)
	created=$(jq -s '[.[].branches[0].created] | map(select(.)) | length' a.json b.json 2>/dev/null)
	same=$(jq -cs '[.[].branches[0] | [.commit, [.results[] | .status, .commit, .base]]] | unique | length' a.json b.json 2>/dev/null)
	loser=$(jq -cs '[.[].branches[0] | select(.created | not) | .results[].created] | unique' a.json b.json 2>/dev/null)
	if [ "$(cat a.rc b.rc | tr '\n' ' ')" != "0 0 " ] || [ "$created" != 1 ] || [ "$same" != 1 ] ||
	   [ "$loser" != "[false]" ] || [ "$(jq -r .branches[0].commit a.json)" != "$tip" ] ||
	   [ "$(jq -r '.branches[0].results[0].commit' a.json)" != "$(git -C $R rev-parse "$tip~1")" ] ||
	   [ "$(tail -1 "$R/.git/logs/$QREF" | cut -d' ' -f1,2)" != "$2 $tip" ] ||
	   [ "$(git -C $R reflog show --format=%H $QREF | wc -l)" != "$3" ]; then
		fail "queue round $1: exits $(cat a.rc b.rc | tr '\n' ' ')created $created, alike $same, loser $loser, ref $tip"
		sed 's/^/#   /' "$R/.git/logs/$QREF" a.err b.err
		jq -c '.branches[0] | [.created, .commit, [.results[] | .commit]]' a.json b.json | sed 's/^/#   /'
		return 1
	fi
	return 0
}

T_NAME="a new queue ref"
ok=0
for i in $(seq "$ROUNDS"); do
	git -C $R update-ref -d $QREF 2>/dev/null
	qrace "$((200 + i))"
	qcheck "$i" $ZERO 1 && ok=$((ok + 1))
done
test_expect_success "$ROUNDS rounds: one created the queue, the other found it, one reflog entry" 'test "$ok" = "$ROUNDS"'

T_NAME="a queue ref moved on"
ok=0
for i in $(seq "$ROUNDS"); do
	old=$(git -C $R rev-parse $QREF)
	tree=$(git -C $R rev-parse "linux-2.6.32.y^{tree}")
	git -C $R update-ref refs/heads/linux-2.6.32.y \
		"$(git -C $R commit-tree "$tree" -p linux-2.6.32.y -m "queue point release $i")"
	qrace "$((300 + i))"
	qcheck "$i" "$old" "$((i + 1))" && ok=$((ok + 1))
done
test_expect_success "$ROUNDS rounds: the queue moved once, by one, from the old commit" 'test "$ok" = "$ROUNDS"'

T_NAME="a queue again"
old=$(git -C $R rev-parse $QREF)
GIT_COMMITTER_DATE="1900000000 +0000" "$KBACKPORT" apply --queue q.series --json >a.json 2>a.err
test_expect_success 'later, alone, at another date: nothing written, the same commits' '
	test "$(jq -r '\''.branches[0] | "\(.created) \(.commit)"'\'' a.json) $(git -C $R rev-parse $QREF)" = "false $old $old"
'
test_expect_success 'git fsck is clean' '
	test_eq "" "$(git -C $R fsck --strict --no-dangling 2>&1)"
'
finish
