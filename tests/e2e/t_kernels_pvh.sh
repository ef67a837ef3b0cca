#!/usr/bin/env bash
# End to end: Debian's real linux-image-amd64 booted through PVH. kbackport
# extracts the vmlinux from the bzImage's xz payload into work/pvh/<sha256
# of the bzImage>.vmlinux; the same bytes as xz-utils' own decompression of
# that payload, an ELF with the Xen PVH entry note (readelf). The boot ends
# in the same verdict and suite counts as the bzImage's
# (KBACKPORT_DISTRO_BOOT=bzimage), says which image was booted on stderr
# and in results.json, and a second test reuses the cached vmlinux.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-pvh
hermetic
cat > "$TMP/branches.yaml" <<YAML
branches:
  - {name: debian, kernel: linux-image-amd64}
YAML
kbtest() {
	"$KBACKPORT" test --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports" \
		--workdir "$WORK" --json > "$TMP/$1.json" 2> "$TMP/$1.err"
}
q() { jq -r ".branches[0] | $2" "$TMP/$1.json"; }
outcome() { q "$1" '"\(.verdict) \(.lanes[0].verdict) \(.lanes[0].boot) \(.lanes[0].suites | tojson)"'; }

kbtest pvh
rc=$?
test_expect_success 'test exits 0' '
	test "$rc" = 0
'
test_expect_success 'booted the vmlinux through PVH' '
	test "$(q pvh '\''.lanes[0] | "\(.boot_image) \(.boot_note)"'\'')" = "pvh-vmlinux null"
'
test_expect_success 'says so' '
	[[ $(cat "$TMP/pvh.err") == *"debian as-is: fixed (booted as PVH vmlinux)"* ]]
'

image=$(jq -r '.branches[0].lanes[0].commit' "$TMP/pvh.json")
image=$(find "$WORK/downloads" -path "*_${image}/boot/vmlinuz-*" | head -1)
sum=$(sha256sum "$image" | cut -d' ' -f1)
vmlinux=$WORK/pvh/$sum.vmlinux
test_expect_success 'cached by the bzImage'\''s sha256, no temporary left' '
	test "$(ls "$WORK/pvh" | grep -e "^$sum" -e "\.tmp")" = "$sum.vmlinux"
'
# the xz payload as scripts/extract-vmlinux finds it, decompressed by xz-utils
off=$(grep -abo "$(printf '\3757zXZ')" "$image" | head -1 | cut -d: -f1)
tail -c +$((off + 1)) "$image" | xz -dc --single-stream > "$TMP/vmlinux.xz-utils" 2>/dev/null
test_expect_success 'the same bytes as xz-utils decompresses' '
	cmp -s "$vmlinux" "$TMP/vmlinux.xz-utils"
'
test_expect_success 'an x86-64 ELF' '
	test "$(readelf -h "$vmlinux" | awk -F": *" "/Class:/ {c = \$2} /Machine:/ {m = \$2} END {print c, m}")" = \
		"ELF64 Advanced Micro Devices X86-64"
'
test_expect_success 'with the PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY, 0x12)' '
	[[ $(readelf -n "$vmlinux") == *"Xen                  0x00000008	Unknown note type: (0x00000012)"* ]]
'
test_expect_success 'QEMU booted the extracted image (-kernel)' '
	test "$(cut -d" " -f1-2 "$WORK/test/CVE-2011-1019/debian/as-is/boot.stamp" | head -1)" = "kernel $vmlinux"
'

KBACKPORT_DISTRO_BOOT=bzimage kbtest bzimage
rc=$?
test_expect_success 'bzImage: test exits 0' '
	test "$rc" = 0
'
test_expect_success 'KBACKPORT_DISTRO_BOOT=bzimage boots the bzImage' '
	test "$(q bzimage '\''.lanes[0] | "\(.boot_image) \(.boot_note)"'\'')" = "bzimage KBACKPORT_DISTRO_BOOT=bzimage"
'
test_expect_success 'says so' '
	[[ $(cat "$TMP/bzimage.err") == *"debian as-is: fixed (booted as bzImage)"* ]]
'
test_expect_success 'the same verdict and suites either way' '
	test "$(outcome pvh)" = "$(outcome bzimage)"
'
test_expect_success 'verdict fixed, 6/6 capability cases' '
	test "$(q pvh '\''"\(.verdict) \(.lanes[0].verdict) \(.lanes[0].boot) \(.lanes[0].suites.kbackport_caps.pass) \(.lanes[0].suites.kbackport_caps.fail)"'\'')" = \
		"fixed fixed exited 6 0"
'

# the second PVH test extracts nothing: the cached file is booted as it is;
# its use is recorded in its access time, which the cache's pruning orders by
touch -a -d '2020-01-01' "$vmlinux"
before=$(stat -c '%i %Y' "$vmlinux")
kbtest again
test_expect_success 'again: fixed through PVH' '
	test "$(q again '\''"\(.verdict) \(.lanes[0].boot_image)"'\'')" = "fixed pvh-vmlinux"
'
test_expect_success 'the cached vmlinux reused, not rewritten' '
	test "$(stat -c "%i %Y" "$vmlinux")" = "$before"
'
test_expect_success 'its use recorded (access time)' '
	test "$(( $(stat -c %X "$vmlinux") > $(date -d 2021-01-01 +%s) ))" = 1
'

# kbackport run: the same in its progress and in results.json
"$KBACKPORT" run --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports/CVE-2011-1019" \
	--workdir "$WORK" --reports "$TMP/reports" > "$TMP/run.out" 2> "$TMP/run.err"
rc=$?
test_expect_success 'run exits 0' '
	test "$rc" = 0
'
test_expect_success 'run: says which image' '
	[[ $(cat "$TMP/run.err") == *"(booted as PVH vmlinux)"* ]]
'
test_expect_success 'run: results.json' '
	test "$(jq -r '\''.branches[0].lanes[0] | "\(.verdict) \(.boot_image)"'\'' "$TMP/reports/latest/results.json")" = "fixed pvh-vmlinux"
'
finish
