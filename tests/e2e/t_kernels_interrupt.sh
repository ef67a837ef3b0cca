#!/usr/bin/env bash
# Interruptions and a second kbackport at once, on the lanes
# t_kernels_build.sh built. A run is killed (SIGTERM, then ^C's SIGINT)
# while QEMU boots a lane: QEMU must stop with it, no boot stamp, no
# results.json and no reports/latest may be left for a later run to trust,
# and the next run must pick up cleanly and re-boot that lane. A second
# kbackport started while one runs refuses, naming the first one's pid.
source "$(dirname "$0")/../lib.sh"
T_SUITE=e2e-interrupt
hermetic
E2E=${KB_E2E_DIR:-$TOP_DIR/build/e2e}
REPO=$E2E/linux
WORK=$E2E/work
if ! git -C "$REPO" rev-parse -q --verify refs/heads/backport/CVE-2011-1019/6.1.y >/dev/null; then
	fail "no lanes in '$REPO': run t_kernels.sh and t_kernels_build.sh first"
	finish
	exit 1
fi
cat > "$TMP/branches.yaml" <<YAML
repo: $REPO
branches:
  - {name: "6.1.y", ref: stable/6.1.y, pre-fix: true}
YAML
LANE=$WORK/test/CVE-2011-1019/6.1.y/pre-fix
start_run() {	# a run in the background whose pre-fix lane must really boot
	rm -f "$LANE/boot.stamp"
	"$KBACKPORT" run --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" \
		--workdir "$WORK" --reports "$TMP/reports" > "$TMP/run.out" 2> "$TMP/run.err" &
	RUN_PID=$!
}
wait_for_qemu() {	# until QEMU boots the pre-fix lane (at most 60 s)
	local i
	for i in $(seq 600); do
		pgrep -f "$LANE/initrd.gz" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

for sig in TERM INT; do
	T_NAME="SIG$sig during a boot"
	start_run
	wait_for_qemu
	assert_eq "QEMU boots the lane" 0 $?
	kill -$sig $RUN_PID
	wait $RUN_PID
	rc=$?
	assert_eq "kbackport dies of the signal" "$((128 + $(kill -l $sig)))" "$rc"
	sleep 1
	assert_eq "no QEMU left running" "" "$(pgrep -f "$LANE/initrd.gz" || true)"
	assert_eq "no boot stamp for the cut boot" "no" "$([ -e "$LANE/boot.stamp" ] && echo yes || echo no)"
	assert_eq "no reports/latest" "no" "$([ -e "$TMP/reports/latest" ] && echo yes || echo no)"
	assert_eq "no results.json in the cut run" "" "$(ls "$TMP"/reports/*/results.json 2>/dev/null)"
	rm -rf "$TMP/reports"
done

T_NAME="the next run"
"$KBACKPORT" run --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" \
	--workdir "$WORK" --reports "$TMP/reports" > "$TMP/run.out" 2> "$TMP/run.err"
assert_eq "exits 0" 0 $?
R=$TMP/reports/latest/results.json
assert_eq "verified" "verified" "$(jq -r '.branches[0].verdict' "$R")"
# (the backport lane may not have been booted before: the cut runs never got
# that far, so only the as-is lane is known to have a finished boot)
assert_eq "the cut lane (pre-fix) booted again, the as-is lane read from its log" "false true" \
	"$(jq -r '[.branches[0].lanes[] | .test_reused] | "\(.[1]) \(.[0])"' "$R")"
assert_eq "its boot stamp written" "yes" "$([ -s "$LANE/boot.stamp" ] && echo yes)"

T_NAME="two at once"
start_run
wait_for_qemu
"$KBACKPORT" test --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" --workdir "$WORK" \
	> "$TMP/second.out" 2> "$TMP/second.err"
rc=$?
assert_eq "the second refuses (exit 2)" 2 $rc
assert_contains "naming the first" "work directory '$WORK' is in use by another kbackport (pid $RUN_PID)" \
	"$(cat "$TMP/second.err")"
wait $RUN_PID
assert_eq "the first goes on and ends" 0 $?
finish
