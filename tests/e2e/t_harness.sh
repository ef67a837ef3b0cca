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
assert_eq "exits 0" 0 $?
assert_eq "the branch is fixed (Debian ships the fix)" "fixed" "$(jq -r '.branches[0].verdict' "$TMP/test.json")"
assert_eq "one as-is lane, fixed, booted to the end" "as-is fixed exited" "$(lane '"\(.kind) \(.verdict) \(.boot)"')"
assert_eq "the capability suite: 6 passed" "pass 6 0 0" \
	"$(lane '.suites.kbackport_caps | "\(.status) \(.pass) \(.fail) \(.skip)"')"
assert_eq "no KUnit suite is expected from a kernel kbackport did not build" "null" \
	"$(lane '.suites.kbackport_dev_load')"
console=$(lane .console)
assert_contains "the console log is kept" "ok 1 net_admin_ifflags_module_not_loaded" "$(cat "$console")"
assert_contains "Debian's kernel is probed with xfs, the article's module" \
	"# probe module: xfs (the first of xfs, crc7 this kernel has)" "$(cat "$console")"
assert_eq "the suite's KTAP is kept alone" "yes" \
	"$(grep -q '^    ok 6 userns_net_admin_ifflags_nothing_loaded' "$(dirname "$console")/kbackport_caps.ktap" && echo yes)"
assert_contains "which package version was booted" "6.1." "$(lane .commit)"

# One stand-in /init per way a guest can go wrong.
for mode in EXIT HANG GARBLED; do
	cc -static -O2 -DMODE_$mode -o "$TMP/misbehave-$mode" "$TOP_DIR/tests/qemu/harness/misbehave.c" ||
		fail "cannot compile misbehave.c -DMODE_$mode"
done

T_NAME="panic"
kbtest --guest "$TMP/misbehave-EXIT"
assert_eq "exits 1" 1 $?
assert_eq "error, not a pass" "error" "$(lane .verdict)"
assert_contains "the panic is named" "the kernel panicked: Kernel panic - not syncing: Attempted to kill init!" "$(lane '.reason | join("\n")')"
assert_contains "the console log is named" "$(lane .console)" "$(lane '.reason | join("\n")')"

T_NAME="hang"
start=$(date +%s)
kbtest --guest "$TMP/misbehave-HANG" --timeout 20
assert_eq "exits 1" 1 $?
assert_eq "error at the timeout" "error timeout" "$(lane '"\(.verdict) \(.boot)"')"
assert_contains "says it hung" "the guest hung: no end after 20 s" "$(lane '.reason | join("\n")')"
assert_eq "QEMU was stopped at the timeout (took $(( $(date +%s) - start )) s)" "yes" \
	"$([ $(( $(date +%s) - start )) -lt 60 ] && echo yes)"
assert_eq "no QEMU left running" "" "$(pgrep -f "misbehave-HANG" || true)"

T_NAME="broken KTAP"
kbtest --guest "$TMP/misbehave-GARBLED"
assert_eq "exits 1" 1 $?
assert_eq "error, though the guest said it was done" "error exited" "$(lane '"\(.verdict) \(.boot)"')"
assert_eq "the suite is broken" "error" "$(lane .suites.kbackport_caps.status)"
assert_contains "the plan and what came" "suite 'kbackport_caps': plan 1..6 but 1 result" "$(lane '.reason | join("\n")')"

T_NAME="host"
cc -static -O2 -o "$TMP/guest" "$TOP_DIR/data/guest/guest.c"
"$TMP/guest" > "$TMP/guest.out" 2>&1
assert_eq "the guest program refuses to run here (exit 2)" 2 $?
assert_contains "and says why" "refusing to run" "$(cat "$TMP/guest.out")"
if [ -r /proc/modules ]; then
	assert_eq "no module was loaded on this host" "$modules_before" "$(modules)"
else
	echo "# no /proc/modules on this host (no loadable modules): nothing to compare"
fi
finish
