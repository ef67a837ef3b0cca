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
assert_eq "test exits 0" 0 $?
assert_eq "booted the vmlinux through PVH" "pvh-vmlinux null" \
	"$(q pvh '.lanes[0] | "\(.boot_image) \(.boot_note)"')"
assert_contains "says so" "debian as-is: fixed (booted as PVH vmlinux)" "$(cat "$TMP/pvh.err")"

image=$(jq -r '.branches[0].lanes[0].commit' "$TMP/pvh.json")
image=$(find "$WORK/downloads" -path "*_${image}/boot/vmlinuz-*" | head -1)
sum=$(sha256sum "$image" | cut -d' ' -f1)
vmlinux=$WORK/pvh/$sum.vmlinux
assert_eq "cached by the bzImage's sha256, no temporary left" "$sum.vmlinux" \
	"$(ls "$WORK/pvh" | grep -e "^$sum" -e '\.tmp')"
# the xz payload as scripts/extract-vmlinux finds it, decompressed by xz-utils
off=$(grep -abo "$(printf '\3757zXZ')" "$image" | head -1 | cut -d: -f1)
tail -c +$((off + 1)) "$image" | xz -dc --single-stream > "$TMP/vmlinux.xz-utils" 2>/dev/null
assert_eq "the same bytes as xz-utils decompresses" "same" \
	"$(cmp -s "$vmlinux" "$TMP/vmlinux.xz-utils" && echo same)"
assert_eq "an x86-64 ELF" "ELF64 Advanced Micro Devices X86-64" \
	"$(readelf -h "$vmlinux" | awk -F': *' '/Class:/ {c = $2} /Machine:/ {m = $2} END {print c, m}')"
assert_contains "with the PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY, 0x12)" \
	"Xen                  0x00000008	Unknown note type: (0x00000012)" "$(readelf -n "$vmlinux")"
assert_eq "QEMU booted the extracted image (-kernel)" "kernel $vmlinux" \
	"$(cut -d' ' -f1-2 "$WORK/test/CVE-2011-1019/debian/as-is/boot.stamp" | head -1)"

KBACKPORT_DISTRO_BOOT=bzimage kbtest bzimage
assert_eq "bzImage: test exits 0" 0 $?
assert_eq "KBACKPORT_DISTRO_BOOT=bzimage boots the bzImage" "bzimage KBACKPORT_DISTRO_BOOT=bzimage" \
	"$(q bzimage '.lanes[0] | "\(.boot_image) \(.boot_note)"')"
assert_contains "says so" "debian as-is: fixed (booted as bzImage)" "$(cat "$TMP/bzimage.err")"
assert_eq "the same verdict and suites either way" "$(outcome bzimage)" "$(outcome pvh)"
assert_eq "verdict fixed, 6/6 capability cases" "fixed fixed exited 6 0" \
	"$(q pvh '"\(.verdict) \(.lanes[0].verdict) \(.lanes[0].boot) \(.lanes[0].suites.kbackport_caps.pass) \(.lanes[0].suites.kbackport_caps.fail)"')"

# the second PVH test extracts nothing: the cached file is booted as it is;
# its use is recorded in its access time, which the cache's pruning orders by
touch -a -d '2020-01-01' "$vmlinux"
before=$(stat -c '%i %Y' "$vmlinux")
kbtest again
assert_eq "again: fixed through PVH" "fixed pvh-vmlinux" "$(q again '"\(.verdict) \(.lanes[0].boot_image)"')"
assert_eq "the cached vmlinux reused, not rewritten" "$before" "$(stat -c '%i %Y' "$vmlinux")"
assert_eq "its use recorded (access time)" 1 "$(( $(stat -c %X "$vmlinux") > $(date -d 2021-01-01 +%s) ))"

# kbackport run: the same in its progress and in results.json
"$KBACKPORT" run --config "$TMP/branches.yaml" --fix "$TOP_DIR/backports/CVE-2011-1019" \
	--workdir "$WORK" --reports "$TMP/reports" > "$TMP/run.out" 2> "$TMP/run.err"
assert_eq "run exits 0" 0 $?
assert_contains "run: says which image" "(booted as PVH vmlinux)" "$(cat "$TMP/run.err")"
assert_eq "run: results.json" "fixed pvh-vmlinux" \
	"$(jq -r '.branches[0].lanes[0] | "\(.verdict) \(.boot_image)"' "$TMP/reports/latest/results.json")"
finish
