#!/usr/bin/env bash
# The test harness on a kernel nobody here built: Debian's own
# linux-image-amd64, fetched from the archive and booted under QEMU (TCG)
# with the capability suite. Then the harness's handling of guests that go
# wrong, each a real boot of that kernel with a stand-in /init
# (tests/qemu/harness/misbehave.c): a panic, a hang, broken KTAP. None may
# end as anything but `error`, with the console log kept. And the guest
# program refuses to run on this host.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-harness
hermetic
mkdir -p "$WORK"	# downloads kept across runs
cat > "$TMP/branches.yaml" <<YAML
branches:
  - name: debian
    kernel: linux-image-amd64
YAML
modules() { [ -r /proc/modules ] && cut -d' ' -f1 /proc/modules | sort; }
modules_before=$(modules)
kbtest() {
	"$KBACKPORT" test --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" \
		--workdir "$WORK" --json "$@" > "$TMP/test.json" 2> "$TMP/test.err"
}
lane() { jq -r ".branches[0].lanes[0] | $1" "$TMP/test.json"; }

T_NAME="debian kernel"
kbtest
kb_rc=$?
test_expect_success 'exits 0' '
	test "$kb_rc" = 0
'
test_expect_success 'the branch is fixed (Debian ships the fix)' '
	test "$(jq -r ".branches[0].verdict" "$TMP/test.json")" = fixed
'
test_expect_success 'one as-is lane, fixed, booted to the end' '
	test "$(lane '\''"\(.kind) \(.verdict) \(.boot)"'\'')" = "as-is fixed exited"
'
test_expect_success 'the capability suite: 6 passed' '
	test "$(lane '\''.suites.kbackport_caps | "\(.status) \(.pass) \(.fail) \(.skip)"'\'')" = "pass 6 0 0"
'
test_expect_success 'no KUnit suite is expected from a kernel kbackport did not build' '
	test "$(lane .suites.kbackport_dev_load)" = null
'
console=$(lane .console)
test_expect_success 'the console log is kept' '
	[[ $(cat "$console") == *"ok 1 net_admin_ifflags_module_not_loaded"* ]]
'
test_expect_success 'Debian'\''s kernel is probed with xfs, the article'\''s module' '
	[[ $(cat "$console") == *"# probe module: xfs (the first of xfs, crc7 this kernel has)"* ]]
'
test_expect_success 'the suite'\''s KTAP is kept alone' '
	grep -q "^    ok 6 userns_net_admin_ifflags_nothing_loaded" "$(dirname "$console")/kbackport_caps.ktap"
'
test_expect_success 'which package version was booted' '
	[[ $(lane .commit) == *"6.1."* ]]
'

# One stand-in /init per way a guest can go wrong.
for mode in EXIT HANG GARBLED; do
	cc -static -O2 -DMODE_$mode -o "$TMP/misbehave-$mode" "$TOP_DIR/tests/qemu/harness/misbehave.c" ||
		fail "cannot compile misbehave.c -DMODE_$mode"
done

T_NAME="panic"
kbtest --guest "$TMP/misbehave-EXIT"
kb_rc=$?
test_expect_success 'exits 1' '
	test "$kb_rc" = 1
'
test_expect_success 'error, not a pass' '
	test "$(lane .verdict)" = error
'
test_expect_success 'the panic is named' '
	[[ $(lane '\''.reason | join("\n")'\'') == *"the kernel panicked: Kernel panic - not syncing: Attempted to kill init!"* ]]
'
test_expect_success 'the console log is named' '
	[[ $(lane '\''.reason | join("\n")'\'') == *"$(lane .console)"* ]]
'

T_NAME="hang"
start=$(date +%s)
kbtest --guest "$TMP/misbehave-HANG" --timeout 20
kb_rc=$?
test_expect_success 'exits 1' '
	test "$kb_rc" = 1
'
test_expect_success 'error at the timeout' '
	test "$(lane '\''"\(.verdict) \(.boot)"'\'')" = "error timeout"
'
test_expect_success 'says it hung' '
	[[ $(lane '\''.reason | join("\n")'\'') == *"the guest hung: no end after 20 s"* ]]
'
test_expect_success "QEMU was stopped at the timeout (took $(( $(date +%s) - start )) s)" '
	test $(( $(date +%s) - start )) -lt 60
'
test_expect_success 'no QEMU left running' '
	test -z "$(pgrep -f "misbehave-HANG" || true)"
'

T_NAME="broken KTAP"
kbtest --guest "$TMP/misbehave-GARBLED"
kb_rc=$?
test_expect_success 'exits 1' '
	test "$kb_rc" = 1
'
test_expect_success 'error, though the guest said it was done' '
	test "$(lane '\''"\(.verdict) \(.boot)"'\'')" = "error exited"
'
test_expect_success 'the suite is broken' '
	test "$(lane .suites.kbackport_caps.status)" = error
'
test_expect_success 'the plan and what came' '
	[[ $(lane '\''.reason | join("\n")'\'') == *"suite '\''kbackport_caps'\'': plan 1..6 but 1 result"* ]]
'

T_NAME="host"
cc -static -O2 -o "$TMP/guest" "$TOP_DIR/data/guest/guest.c"
"$TMP/guest" > "$TMP/guest.out" 2>&1
guest_rc=$?
test_expect_success 'the guest program refuses to run here (exit 2)' '
	test "$guest_rc" = 2
'
test_expect_success 'and says why' '
	[[ $(cat "$TMP/guest.out") == *"refusing to run"* ]]
'
if [ -r /proc/modules ]; then
	test_expect_success 'no module was loaded on this host' '
		printf "%s\n" "$modules_before" > "$TMP/modules.want" &&
		printf "%s\n" "$(modules)" > "$TMP/modules.got" &&
		test_cmp "$TMP/modules.want" "$TMP/modules.got"
	'
else
	echo "# no /proc/modules on this host (no loadable modules): nothing to compare"
fi
finish
