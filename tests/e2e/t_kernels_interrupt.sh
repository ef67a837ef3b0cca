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
	qemu_rc=$?
	test_expect_success 'QEMU boots the lane' '
		test "$qemu_rc" = 0
	'
	kill -$sig $RUN_PID
	wait $RUN_PID
	rc=$?
	test_expect_success 'kbackport dies of the signal' '
		test "$rc" = "$((128 + $(kill -l $sig)))"
	'
	sleep 1
	test_expect_success 'no QEMU left running' '
		test -z "$(pgrep -f "$LANE/initrd.cpio" || true)"
	'
	test_expect_success 'no boot stamp for the cut boot' '
		test ! -e "$LANE/boot.stamp"
	'
	test_expect_success 'no reports/latest' '
		test ! -e "$TMP/reports/latest"
	'
	test_expect_success 'no results.json in the cut run' '
		test -z "$(ls "$TMP"/reports/*/results.json 2>/dev/null)"
	'
	rm -rf "$TMP/reports"
done

T_NAME="the next run"
"$KBACKPORT" run --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" \
	--workdir "$WORK" --reports "$TMP/reports" > "$TMP/run.out" 2> "$TMP/run.err"
rc=$?
test_expect_success 'exits 0' '
	test "$rc" = 0
'
R=$TMP/reports/latest/results.json
test_expect_success 'verified' '
	test "$(jq -r ".branches[0].verdict" "$R")" = verified
'
# (the backport lane may not have been booted before: the cut runs never got
# that far, so only the as-is lane is known to have a finished boot)
test_expect_success 'the cut lane (pre-fix) booted again, the as-is lane read from its log' '
	test "$(jq -r '\''[.branches[0].lanes[] | .test_reused] | "\(.[1]) \(.[0])"'\'' "$R")" = "false true"
'
test_expect_success 'its boot stamp written' '
	test -s "$LANE/boot.stamp"
'

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
test_expect_success 'make runs' '
	pgrep -f "O=$WORK/obj/" >/dev/null
'
sleep 3
kill -TERM $BUILD_PID
wait $BUILD_PID
rc=$?
test_expect_success 'kbackport dies of the signal' '
	test "$rc" = 143
'
sleep 1
test_expect_success 'no make left running' '
	test -z "$(pgrep -f "O=$WORK/obj/" || true)"
'
"$KBACKPORT" "${build_args[@]}" > "$TMP/build.json" 2> "$TMP/build.err"
rc=$?
test_expect_success 'the next build exits 0' '
	test "$rc" = 0
'
b() { jq -r ".builds[] | select(.lane == \"as-is\") | .$1" "$TMP/build.json"; }
test_expect_success 'the cut build was not taken for a complete one' '
	test "$(b status)" = pass
'
test_expect_success 'the built tree has the change' '
	test "$(b tree)" = "$tree"
'
test_expect_success 'it is complete now: its stamp and image' '
	test -s "$(b build_dir)/kbackport.stamp" && test -s "$(b image)"
'
rebuilt=$(b rebuilt)
test_expect_success "it was built on (incremental), not from scratch: $rebuilt objects" '
	[ "$rebuilt" -gt 0 ] && [ "$rebuilt" -lt 200 ]
'
# this lane serves no other test: its build goes (a new one every run)
case "$(b build_dir)" in "$WORK"/builds/?*) rm -rf "$(b build_dir)" ;; esac

T_NAME="two at once"
start_run
wait_for_qemu
"$KBACKPORT" test --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" --workdir "$WORK" \
	> "$TMP/second.out" 2> "$TMP/second.err"
rc=$?
test_expect_success 'the second refuses (exit 2)' '
	test "$rc" = 2
'
test_expect_success 'naming the first' '
	[[ $(cat "$TMP/second.err") == *"work directory '\''$WORK'\'' is in use by another kbackport (pid $RUN_PID)"* ]]
'
wait $RUN_PID
rc=$?
test_expect_success 'the first goes on and ends' '
	test "$rc" = 0
'
finish
