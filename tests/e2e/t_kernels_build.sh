#!/usr/bin/env bash
# End to end: build every lane of Debian's 6.1.y and 6.12.y (as-is, pre-fix,
# backport) from the repository t_kernels.sh imported. In a fresh work
# directory each run: as-is is a cold build, pre-fix starts from a copy of
# it and recompiles only what the reversed fix touched, and backport has the
# as-is tree again, so it shares that build. A second run builds nothing.
# Every lane carries CVE-2011-1019's KUnit suite (its tests/kunit, an
# overlay), and the config of every fix's tests of backports/ (the
# changelink family's tunnel drivers too: one config per branch). The builds
# stay in build/e2e/work for t_kernels_test.sh.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-build
hermetic
rm -rf "$WORK/src" "$WORK/obj" "$WORK/builds" "$WORK/odb"	# cold, each run
e2e_need stable/6.12.y "the imported repository '$REPO' is missing: run t_kernels.sh first"
cat > "$TMP/branches.yaml" <<YAML
repo: $REPO
branches:
  - {name: "6.1.y", ref: stable/6.1.y, pre-fix: true}
  - {name: "6.12.y", ref: stable/6.12.y, pre-fix: true}
  - {name: "old", ref: stable/6.1.y, build: false, build-skip-reason: "2.6.x trees do not build with gcc 12"}
YAML
run_kb 0 apply --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" --branch 6.1.y --branch 6.12.y
state=$(user_state "$REPO")
build() {
	"$KBACKPORT" build --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" \
		--workdir "$WORK" --json
}
build > "$TMP/build1.json" 2> "$TMP/build1.err"
rc=$?
test_expect_success 'build exits 0' '
	test "$rc" = 0
'
[ $rc -eq 0 ] || tail -30 "$TMP/build1.err"
lane() { jq -r --arg b "$1" --arg l "$2" ".builds[] | select(.branch == \$b and .lane == \$l) | $3" "$TMP/build$4.json"; }

for b in 6.1.y 6.12.y; do
	T_NAME=$b
	test_expect_success 'as-is: built cold' '
		test "$(lane $b as-is .status 1)" = pass
	'
	test_expect_success 'as-is: every fragment option survived' '
		test "$(lane $b as-is '\''.missing_options | tostring'\'' 1)" = "[]"
	'
	test_expect_success 'as-is: a bzImage' '
		test -s "$(lane $b as-is .image 1)"
	'
	staging=$(lane $b as-is .staging_dir 1)
	test_expect_success 'as-is: sit, ipip, ip_gre and crc7 (the probe module) installed as modules, with depmod output' '
		test "$(find "$staging" -name sit.ko -o -name ipip.ko -o -name ip_gre.ko -o -name crc7.ko | wc -l) $(ls "$staging"/lib/modules/*/modules.dep >/dev/null 2>&1 && echo yes)" = "4 yes"
	'
	test_expect_success 'as-is: no xfs (the probe module of distribution kernels only)' '
		test -z "$(find "$staging" -name "xfs.ko*")"
	'
	test_expect_success 'pre-fix: built from a copy of the as-is build' '
		test "$(lane $b pre-fix '\''"\(.status) \(.shared_with)"'\'' 1)" = "pass $b as-is"
	'
	rebuilt=$(lane $b pre-fix .rebuilt 1)
	test_expect_success "pre-fix: only a handful of objects recompiled ($rebuilt)" '
		[ "$rebuilt" -ge 1 ] && [ "$rebuilt" -le 12 ]
	'
	test_expect_success 'pre-fix: dev_ioctl.c recompiled' '
		[[ $(grep -E "^  CC " "$(lane $b pre-fix .log 1)") == *"net/core/dev_ioctl.o"* ]]
	'
	test_expect_success 'backport: the as-is tree, so the as-is build' '
		test "$(lane $b backport '\''"\(.status) \(.shared_with)"'\'' 1)" = "cached $b as-is"
	'
	test_expect_success 'backport: same image as as-is' '
		test "$(lane $b backport .image 1)" = "$(lane $b as-is .image 1)"
	'
done
T_NAME=
test_expect_success 'build: false is skipped with its reason' '
	test "$(lane old as-is '\''"\(.status) \(.reason)"'\'' 1)" = "skipped 2.6.x trees do not build with gcc 12"
'

build > "$TMP/build2.json" 2>/dev/null
test_expect_success 'a second run builds nothing' '
	test "$(jq -r '\''[.builds[] | select(.branch != "old") | .status] | join(" ")'\'' "$TMP/build2.json")" = \
		"cached cached cached cached cached cached"
'
test_expect_success '...and compiles nothing' '
	test "$(jq "[.builds[].rebuilt] | add" "$TMP/build2.json")" = 0
'
test_expect_success 'the repository'\''s refs, HEAD and index untouched' '
	printf "%s\n" "$state" > "$TMP/state.want" &&
	printf "%s\n" "$(user_state "$REPO")" > "$TMP/state.got" &&
	test_cmp "$TMP/state.want" "$TMP/state.got"
'
finish
