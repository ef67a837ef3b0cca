#!/usr/bin/env bash
# End to end: the rtnetlink changelink family tested on real kernels, with
# the tests it brings as data (backports/rtnl-changelink/tests/: guest cases
# that create a tunnel as root, move it into a new user + network
# namespace, and change it from inside with CAP_NET_ADMIN over that
# namespace only). `kbackport run --queue` on Debian's 6.1.y and 6.12.y
# (pre-fix lanes: the queue's fixes reversed) and Debian's own 6.1 kernel:
# each driver's case fails on the pre-fix lane and passes on the backport
# lane, so both branches are verified; Debian's kernel is fixed; the
# same-netns cases pass everywhere. Then one fix of the family alone
# (vxlan's) on 6.1.y: its own case sees it, the others' cases judge
# nothing. The lanes share the as-is builds of t_kernels_build.sh (one
# kernel config per branch serves both families).
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-changelink-run
hermetic
e2e_need refs/heads/backport/CVE-2011-1019/6.12.y "no lanes in '$REPO': run t_kernels.sh and t_kernels_build.sh first"
ln -s "$TOP_DIR/backports" "$TMP/backports"	# the collection beside the config
FAM=$TOP_DIR/backports/rtnl-changelink
VXLAN=CVE-2026-68432
cat > "$TMP/branches.yaml" <<YAML
repo: $REPO
branches:
  - {name: "6.1.y", ref: stable/6.1.y, pre-fix: true}
  - {name: "6.12.y", ref: stable/6.12.y, pre-fix: true}
  - {name: debian, kernel: linux-image-amd64}
YAML
state=$(user_state "$REPO")
kbrun() {
	"$KBACKPORT" run --config "$TMP/branches.yaml" --workdir "$WORK" --reports "$TMP/reports" \
		"$@" > "$TMP/run.out" 2> "$TMP/run.err"
}
R=$TMP/reports/latest/results.json
q() { jq -r "$1" "$R"; }
# the failing cases of a lane, from results.json
failed() {
	q ".branches[] | select(.name == \"$1\") | .lanes[] | select(.kind == \"$2\") |
	   [.suites.kbackport_changelink.cases[] | select(.status == \"fail\") | .name] | join(\" \")"
}
REFUSED="vxlan_changelink_from_userns_refused geneve_changelink_from_userns_refused ipip_changelink_from_userns_refused sit_changelink_from_userns_refused gre_changelink_from_userns_refused ip6tnl_changelink_from_userns_refused ip6gre_changelink_from_userns_refused"

T_NAME=queue
kbrun --queue "$FAM/series"
rc=$?
test_expect_success 'run --queue exits 0' '
	test "$rc" = 0
'
[ $rc -eq 0 ] || tail -30 "$TMP/run.err"
test_expect_success 'verdicts: both branches verified, Debian'\''s kernel fixed' '
	test "$(q '\''[.branches[] | "\(.name) \(.verdict)"] | join("|")'\'')" = "6.1.y verified|6.12.y verified|debian fixed"
'
for b in 6.1.y 6.12.y; do
	T_NAME="queue $b"
	test_expect_success 'lanes: as-is fixed, pre-fix vulnerable, backport fixed' '
		test "$(q "[.branches[] | select(.name == \"$b\") | .lanes[] | \"\(.kind) \(.verdict)\"] | join(\"|\")")" = \
			"as-is fixed|pre-fix vulnerable|backport fixed"
	'
	test_expect_success 'the pre-fix lane is the queue'\''s, its fixes reversed' '
		test "$(q ".branches[] | select(.name == \"$b\") | \"\(.queue.pre_fix.ref) \(.queue.pre_fix.reversed | length)\"")" = \
			"refs/heads/backport/queue/series/$b.pre-fix 11"
	'
	test_expect_success 'pre-fix: exactly each driver'\''s change from the user namespace succeeds' '
		test "$(failed $b pre-fix)" = "$REFUSED"
	'
	for l in as-is backport; do
		test_expect_success "$l: every case passes (14)" '
			test "$(q ".branches[] | select(.name == \"$b\") | .lanes[] | select(.kind == \"$l\") | .suites.kbackport_changelink | \"\(.pass) \(.fail)\"")" = "14 0"
		'
	done
	test_expect_success 'the reason names the fix each failing case detects' '
		[[ $(q ".branches[] | select(.name == \"$b\") | .lanes[] | select(.kind == \"pre-fix\") | .reason | join(\"\n\")") == *"kbackport_changelink.vxlan_changelink_from_userns_refused failed (detects $VXLAN)"* ]]
	'
	test_expect_success 'the backport lane is the tree Debian ships' '
		test "$(git -C "$REPO" rev-parse "refs/heads/backport/queue/series/$b^{tree}")" = \
			"$(git -C "$REPO" rev-parse "stable/$b^{tree}")"
	'
done
T_NAME="queue debian"
test_expect_success 'Debian'\''s kernel: every case passes, the tunnel modules from its package' '
	test "$(q '\''.branches[] | select(.name == "debian") | .lanes[0].suites.kbackport_changelink | "\(.pass) \(.fail)"'\'')" = "14 0"
'
test_expect_success 'the pre-fix lane'\''s console shows the change from the user namespace succeeding' '
	[[ $(cat "$TMP/reports/latest/6.1.y/pre-fix/console.log") == *"# link-change kbvx0 vxlan: ok"* ]]
'
test_expect_success '...and what was expected' '
	[[ $(cat "$TMP/reports/latest/6.1.y/pre-fix/console.log") == *"# expected: errno EPERM, got 0"* ]]
'

# One fix of the family alone: vxlan's, on 6.1.y. The family's cases all
# run (one test directory): vxlan's detects it, the others' pass (their
# fixes are in), and none is judged for a fix not under test.
T_NAME="vxlan alone"
kbrun --fix "$FAM/$VXLAN" --branch 6.1.y
rc=$?
test_expect_success 'run exits 0' '
	test "$rc" = 0
'
[ $rc -eq 0 ] || tail -30 "$TMP/run.err"
test_expect_success 'verified: its pre-fix lane vulnerable, the backport fixed' '
	test "$(q '\''.branches[0] | "\(.verdict) \([.lanes[] | "\(.kind) \(.verdict)"] | join("|"))"'\'')" = \
		"verified as-is fixed|pre-fix vulnerable|backport fixed"
'
test_expect_success 'pre-fix: only vxlan'\''s case fails' '
	test "$(failed 6.1.y pre-fix)" = vxlan_changelink_from_userns_refused
'
test_expect_success 'the lanes share the queue run'\''s as-is build' '
	test "$(q ".branches[0].lanes[0].build")" = cached
'
T_NAME=
test_expect_success 'the repository'\''s refs (but ours), HEAD and index untouched' '
	printf "%s\n" "$state" > "$TMP/state.want" &&
	printf "%s\n" "$(user_state "$REPO")" > "$TMP/state.got" &&
	test_cmp "$TMP/state.want" "$TMP/state.got"
'
finish
