#!/usr/bin/env bash
# Interruptions and a second kbackport at once, on the lanes
# t_kernels_build.sh built. A run is killed (SIGTERM, then ^C's SIGINT)
# while QEMU boots a lane: QEMU must stop with it, no boot stamp, no
# results.json and no reports/latest may be left for a later run to trust,
# and the next run must pick up cleanly and re-boot that lane. A build is
# killed while make compiles: make must stop with it, the cut build must not
# be taken for a complete one, and the next build completes it. A second
# kbackport started while one runs refuses, naming the first one's pid.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-interrupt
hermetic
e2e_need refs/heads/backport/CVE-2011-1019/6.1.y "no lanes in '$REPO': run t_kernels.sh and t_kernels_build.sh first"
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
		pgrep -f "$LANE/initrd.cpio" >/dev/null && return 0
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
	assert_eq "no QEMU left running" "" "$(pgrep -f "$LANE/initrd.cpio" || true)"
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

T_NAME="SIGTERM during a build"
# A lane no build has: 6.1.y with dev_ioctl.c changed (a new comment each
# time), in a shared clone so that the e2e repository keeps its refs. It
# starts from a copy of 6.1.y's build; make is killed while compiling.
git clone -q --bare --shared "$REPO" "$TMP/linux.git"
git -C "$TMP/linux.git" for-each-ref --format='delete %(refname)' refs/heads/backport |
	git -C "$TMP/linux.git" update-ref --stdin
blob=$( { git -C "$TMP/linux.git" show stable/6.1.y:net/core/dev_ioctl.c
	  echo "/* kbackport interrupt test $$ $(date +%s%N) */"; } |
	git -C "$TMP/linux.git" hash-object -w --stdin)
GIT_INDEX_FILE=$TMP/kill.index git -C "$TMP/linux.git" read-tree stable/6.1.y
GIT_INDEX_FILE=$TMP/kill.index git -C "$TMP/linux.git" update-index --cacheinfo "100644,$blob,net/core/dev_ioctl.c"
tree=$(GIT_INDEX_FILE=$TMP/kill.index git -C "$TMP/linux.git" write-tree)
git -C "$TMP/linux.git" update-ref refs/heads/kill-test \
	"$(git -C "$TMP/linux.git" commit-tree "$tree" -p stable/6.1.y -m "interrupt test")"
cat > "$TMP/kill.yaml" <<YAML
repo: $TMP/linux.git
branches:
  - {name: "6.1.y", ref: kill-test}
YAML
build_args=(build --config "$TMP/kill.yaml" --fix "$TOP_DIR/backports" --workdir "$WORK" --json)
"$KBACKPORT" "${build_args[@]}" > "$TMP/build.json" 2> "$TMP/build.err" &
BUILD_PID=$!
for i in $(seq 600); do	# until make compiles in the lane's object directory (at most 60 s)
	pgrep -f "O=$WORK/obj/" >/dev/null && break
	sleep 0.1
done
assert_eq "make runs" 0 "$(pgrep -f "O=$WORK/obj/" >/dev/null; echo $?)"
sleep 3
kill -TERM $BUILD_PID
wait $BUILD_PID
assert_eq "kbackport dies of the signal" 143 $?
sleep 1
assert_eq "no make left running" "" "$(pgrep -f "O=$WORK/obj/" || true)"
"$KBACKPORT" "${build_args[@]}" > "$TMP/build.json" 2> "$TMP/build.err"
assert_eq "the next build exits 0" 0 $?
b() { jq -r ".builds[] | select(.lane == \"as-is\") | .$1" "$TMP/build.json"; }
assert_eq "the cut build was not taken for a complete one" pass "$(b status)"
assert_eq "the built tree has the change" "$tree" "$(b tree)"
assert_eq "it is complete now: its stamp and image" "yes yes" \
	"$([ -s "$(b build_dir)/kbackport.stamp" ] && echo yes) $([ -s "$(b image)" ] && echo yes)"
rebuilt=$(b rebuilt)
assert_eq "it was built on (incremental), not from scratch: $rebuilt objects" yes \
	"$([ "$rebuilt" -gt 0 ] && [ "$rebuilt" -lt 200 ] && echo yes)"
# this lane serves no other test: its build goes (a new one every run)
case "$(b build_dir)" in "$WORK"/builds/?*) rm -rf "$(b build_dir)" ;; esac

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
