#!/usr/bin/env bash
# End to end: `kbackport test` on the lanes t_kernels_build.sh built, with
# Debian's own kernel beside them. The proof that the tests catch the bug:
# on 6.1.y and 6.12.y the pre-fix lane (the fix reverse-applied) ends
# `vulnerable`, failing exactly the cases that detect CVE-2011-1019, and the
# backport lane and the branch as shipped end `fixed`, so both branches are
# `verified`. The console KTAP is cross-checked against the kernel's own
# parser (tools/testing/kunit/kunit.py). A lane nobody built is an error.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-test
hermetic
FIX=CVE-2011-1019
e2e_need refs/heads/backport/$FIX/6.12.y "no lanes in '$REPO': run t_kernels.sh and t_kernels_build.sh first"
cat > "$TMP/branches.yaml" <<YAML
repo: $REPO
branches:
  - {name: "6.1.y", ref: stable/6.1.y, pre-fix: true}
  - {name: "6.12.y", ref: stable/6.12.y, pre-fix: true}
  - {name: debian, kernel: linux-image-amd64}
YAML
state=$(user_state "$REPO")
modules() { [ -r /proc/modules ] && cut -d' ' -f1 /proc/modules | sort; }
modules_before=$(modules)
kbtest() {
	"$KBACKPORT" test --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" \
		--workdir "$WORK" --json "$@" > "$TMP/test.json" 2> "$TMP/test.err"
}
q() { jq -r "$1" "$TMP/test.json"; }
lane() { q ".branches[] | select(.name == \"$1\") | .lanes[] | select(.kind == \"$2\") | $3"; }
failed() {	# the failing cases of a lane's suite, from its KTAP file
	"$KBACKPORT" ktap --json "$(dirname "$(lane "$1" "$2" .console)")/$3.ktap" |
		jq -r '[.suites[0].cases[] | select(.status == "fail") | .name] | join(" ")'
}

kbtest
rc=$?
test_expect_success 'test exits 0' '
	test "$rc" = 0
'
[ $rc -eq 0 ] || { tail -20 "$TMP/test.err"; q . | head -60; }

for b in 6.1.y 6.12.y; do
	T_NAME=$b
	test_expect_success 'verified' '
		test "$(q ".branches[] | select(.name == \"$b\") | .verdict")" = verified
	'
	test_expect_success 'lanes: as-is fixed, pre-fix vulnerable, backport fixed' '
		test "$(q "[.branches[] | select(.name == \"$b\") | .lanes[] | \"\(.kind) \(.verdict)\"] | join(\" \")")" = \
			"as-is fixed pre-fix vulnerable backport fixed"
	'
	for l in as-is backport; do
		test_expect_success "$l: KUnit 6/6, capabilities 6/6" '
			test "$(lane $b $l '\''"\(.suites.kbackport_dev_load.pass) \(.suites.kbackport_dev_load.fail) \(.suites.kbackport_caps.pass) \(.suites.kbackport_caps.fail)"'\'')" = "6 0 6 0"
		'
	done
	test_expect_success 'pre-fix: exactly the three capability cases of dev_load fail in KUnit' '
		test "$(failed $b pre-fix kbackport_dev_load)" = \
			"net_admin_only_requests_netdev_name sys_module_only_requests_bare_name both_request_netdev_then_bare"
	'
	test_expect_success 'pre-fix: exactly the article'\''s attack fails in the guest' '
		test "$(failed $b pre-fix kbackport_caps)" = net_admin_ifflags_module_not_loaded
	'
	test_expect_success 'pre-fix: the KUnit failure says what was requested' '
		[[ $(cat "$(dirname "$(lane $b pre-fix .console)")/kbackport_dev_load.ktap") == *"with CAP_NET_ADMIN only requested [kbtest0], expected [netdev-kbtest0]"* ]]
	'
	secs=$(lane $b backport .seconds)
	test_expect_success "backport: boot to verdict under 60 s under TCG (${secs} s)" '
		echo "$secs < 60" | bc -l | grep -q 1
	'
done
T_NAME=debian
test_expect_success 'Debian'\''s kernel: fixed, capability suite only' '
	test "$(lane debian as-is '\''"\(.verdict) \(.suites.kbackport_caps.pass) \(.suites.kbackport_caps.fail) \(.suites.kbackport_dev_load)"'\'')" = "fixed 6 0 null"
'

# The kernel's own KTAP parser agrees with kbackport's on every real log.
T_NAME=kunit.py
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -1)
if [ -n "$tarball" ]; then
	tar -xf "$tarball" -C "$TMP" --wildcards '*/tools/testing/kunit/*'
	kunit=$(ls -d "$TMP"/*/tools/testing/kunit)
	for ktap in $(dirname "$(lane 6.1.y pre-fix .console)")/*.ktap \
		    $(dirname "$(lane 6.12.y as-is .console)")/*.ktap \
		    $(dirname "$(lane debian as-is .console)")/*.ktap; do
		name=$(basename "$(dirname "$(dirname "$ktap")")")/$(basename "$(dirname "$ktap")")/$(basename "$ktap")
		(cd "$kunit" && python3 kunit.py parse --json="$TMP/kunit.json" "$ktap" >/dev/null 2>&1)
		theirs=$(jq -r '.. | objects | select(has("test_cases")) | .test_cases[] | "\(.name) \(.status)"' \
			"$TMP/kunit.json" 2>/dev/null | tr 'A-Z' 'a-z')
		ours=$("$KBACKPORT" ktap --json "$ktap" | jq -r '.suites[].cases[] | "\(.name) \(.status)"')
		test_expect_success "$name: the same cases and statuses" '
			printf "%s\n" "$theirs" > "$TMP/theirs" &&
			printf "%s\n" "$ours" > "$TMP/ours" &&
			test_cmp "$TMP/theirs" "$TMP/ours"
		'
	done
else
	fail "no /usr/src/linux-source-6.1 tarball for kunit.py (t_kernels.sh installs it)"
fi

# A lane with no build is an error, never a pass: the 6.1 lanes looked up
# in a work directory that holds no build. (Not the shared one: the e2e
# suites share their builds, and a fix without KUnit builds the very
# lanes that --no-overlay would look up there.)
T_NAME="not built"
"$KBACKPORT" test --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" --workdir "$TMP/no-builds" \
	--no-overlay --branch 6.1.y --json \
	> "$TMP/test.json" 2> "$TMP/test.err"
rc=$?
test_expect_success 'exits 1' '
	test "$rc" = 1
'
test_expect_success 'every lane error, the branch error' '
	test "$(q '\''[.branches[0].lanes[].verdict, .branches[0].verdict] | join(" ")'\'')" = "error error error error"
'
test_expect_success 'says to build' '
	[[ $(q '\''.branches[0].lanes[0].reason | join(" ")'\'') == *"not built"* ]]
'
T_NAME=
test_expect_success 'the repository'\''s refs, HEAD and index untouched' '
	printf "%s\n" "$state" > "$TMP/state.want" &&
	printf "%s\n" "$(user_state "$REPO")" > "$TMP/state.got" &&
	test_cmp "$TMP/state.want" "$TMP/state.got"
'
if [ -r /proc/modules ]; then
	test_expect_success 'no module was loaded on this host' '
		printf "%s\n" "$modules_before" > "$TMP/modules.want" &&
		printf "%s\n" "$(modules)" > "$TMP/modules.got" &&
		test_cmp "$TMP/modules.want" "$TMP/modules.got"
	'
fi
finish
