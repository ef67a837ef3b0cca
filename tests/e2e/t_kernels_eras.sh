#!/usr/bin/env bash
# End to end on the old eras: the real mainline trees of
# ../shared/linux-eras.tar.xz (v2.6.32, v2.6.36, v2.6.38-rc8, all vulnerable
# as shipped) imported as eras/* into the shared e2e repository, then
# `kbackport run` on each: the fix's era variant applied, the as-is and
# backport lanes built with today's gcc through the build compatibility
# rules (data/kernel/compat/rules), booted under QEMU, and attacked by the
# guest's capability suite. KUnit does not exist in these kernels: its
# suite is not-applicable and the verdict rests on the guest suite. Each
# branch must be verified: the attack loads the probe module (crc7 in these
# test kernels) as-is, and no longer once the backport is in. The branches
# are named as in the built-in branches.yaml, so that the kernels make demo
# builds and these share ccache's objects (the same paths relative to the
# work directory). Skipped (counted) when the tarball is not there.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-eras
hermetic
TARBALL=${KB_SHARED:-$TOP_DIR/../shared}/linux-eras.tar.xz
if [ ! -f "$TARBALL" ]; then
	skip "no linux-eras.tar.xz at $TARBALL (set KB_SHARED to the shared folder)"
	finish
	exit
fi
mkdir -p "$E2E"
[ -d "$REPO" ] || git init -q --bare "$REPO"

T_NAME=import
run_kb 0 import --repo "$REPO" --trees "$TARBALL" --json &&
	test_expect_success 'the three trees, each on its branch' '
		test "$(printf "%s" "$OUT" | jq -r '\''[.trees[] | "\(.branch) \(.name)"] | join("|")'\'')" = \
			"eras/2.6.32 linux-2.6.32|eras/2.6.36 linux-2.6.36|eras/2.6.38-rc8 linux-2.6.38-rc8"
	'

cat > "$TMP/branches.yaml" <<YAML
repo: $REPO
branches:
  - {name: "v2.6.32", ref: eras/2.6.32}
  - {name: "v2.6.36", ref: eras/2.6.36}
  - {name: "v2.6.38-rc8", ref: eras/2.6.38-rc8}
YAML
state=$(user_state "$REPO")
kbrun() {
	"$KBACKPORT" run --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" \
		--workdir "$WORK" --reports "$TMP/reports" "$@" > "$TMP/run.out" 2> "$TMP/run.err"
}
R=$TMP/reports/latest/results.json
q() { jq -r "$1" "$R"; }

T_NAME=run
kbrun
rc=$?
test_expect_success 'run exits 0' '
	test "$rc" = 0
'
[ $rc -eq 0 ] || tail -40 "$TMP/run.err"
test_expect_success 'every era verified' '
	test "$(q '\''[.branches[] | "\(.name) \(.verdict)"] | join("|")'\'')" = "v2.6.32 verified|v2.6.36 verified|v2.6.38-rc8 verified"
'
test_expect_success 'each era'\''s own variant' '
	test "$(q '\''[.branches[] | "\(.apply.status) \(.apply.variant)"] | join("|")'\'')" = "applied 2.6.32|applied 2.6.33|applied upstream"
'
for b in v2.6.32 v2.6.36 v2.6.38-rc8; do
	T_NAME=$b
	lanes=$(jq -r --arg b "$b" '.branches[] | select(.name == $b) | [.lanes[] | "\(.kind) \(.build) \(.verdict)"] | join("|")' "$R")
	test_expect_success 'as-is built cold and vulnerable, backport built and fixed' '
		test "$lanes" = "as-is pass vulnerable|backport pass fixed"
	'
	caps() { jq -r --arg b "$b" --arg l "$1" \
		".branches[] | select(.name == \$b) | .lanes[] | select(.kind == \$l) | .suites.kbackport_caps | $2" "$R"; }
	test_expect_success 'as-is: the attack loads the probe module, and only that case fails' '
		test "$(caps as-is '\''[.cases[] | select(.status == "fail") | .name] | join(" ")'\'')" = net_admin_ifflags_module_not_loaded
	'
	test_expect_success 'as-is: the probe module is crc7 (no xfs in the test kernels)' '
		test "$(grep "# probe module:" "$TMP/reports/latest/$b/as-is/kbackport_caps.ktap")" = \
			"    # probe module: crc7 (the first of xfs, crc7 this kernel has)"
	'
	test_expect_success 'as-is: full capabilities load it (module loading works in this guest)' '
		test "$(caps as-is '\''.cases[] | select(.name == "all_caps_ifflags_module_loads_it") | .status'\'')" = pass
	'
	test_expect_success 'backport: no case fails' '
		test -z "$(caps backport '\''[.cases[] | select(.status == "fail") | .name] | join(" ")'\'')"
	'
	test_expect_success 'backport: sit still loads through netdev-sit0' '
		test "$(caps backport '\''.cases[] | select(.name == "net_admin_ifflags_sit0_loads_sit") | .status'\'')" = pass
	'
	test_expect_success 'KUnit: not-applicable on a kernel without it, said in each lane'\''s reason' '
		test "$(jq -r --arg b "$b" '\''[.branches[] | select(.name == $b) | .lanes[]
			| "\(.suites.kbackport_dev_load) \(if any(.reason[]; startswith("kbackport_dev_load: not-applicable")) then "yes" else "no" end)"] | join("|")'\'' "$R")" = "null yes|null yes"
	'
	log=$TMP/reports/latest/$b/as-is/build.log
	# the backport lane starts from a copy of the as-is build: make
	# recompiles what the fix's files reach (2.6.32's variant changes
	# netdevice.h), not the whole kernel (compat rule kbuild-cmd-pound)
	cc=$(grep -E '^  CC ' "$TMP/reports/latest/$b/backport/build.log")
	n=$(printf '%s\n' "$cc" | grep -c .)
	all=$(grep -cE '^  CC ' "$log")
	test_expect_success "backport: fewer than half of the as-is build's objects recompiled ($n of $all)" '
		[ "$n" -ge 1 ] && [ $((n * 2)) -lt "$all" ]
	'
	test_expect_success 'backport: net/core/dev.o recompiled' '
		[[ $cc == *"net/core/dev.o"* ]]
	'
	test_expect_success 'the build log lists the compatibility rules applied' '
		[[ $(cat "$log") == *"compat rule '\''module-reloc-plt32'\''"* ]]
	'
	test_expect_success 'the rules changed no branch: the backport ref has the era'\''s tree plus the fix'\''s files only' '
		test -z "$(git -C "$REPO" diff --name-only "eras/${b#v}" "refs/heads/backport/CVE-2011-1019/$b" -- include/linux/compiler-gcc12.h arch/x86/kernel/module.c kernel/timeconst.pl)"
	'
done
T_NAME=
test_expect_success 'userns case skipped with its reason where the kernel lacks it' '
	[[ $(cat "$TMP/reports/latest/v2.6.32/as-is/kbackport_caps.ktap") == *"SKIP"* ]]
'
test_expect_success 'the repository'\''s refs (but ours), HEAD and index untouched' '
	printf "%s\n" "$state" > "$TMP/state.want" &&
	printf "%s\n" "$(user_state "$REPO")" > "$TMP/state.got" &&
	test_cmp "$TMP/state.want" "$TMP/state.got"
'

T_NAME=again
kbrun
rc=$?
test_expect_success 'exits 0 again' '
	test "$rc" = 0
'
test_expect_success 'builds cached, boots read again' '
	test "$(q '\''[.branches[].lanes[] | "\(.build) \(.test_reused)"] | join("|")'\'')" = \
		"cached true|cached true|cached true|cached true|cached true|cached true"
'
finish
