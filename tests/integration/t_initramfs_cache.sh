#!/usr/bin/env bash
# The initramfs cache (work/initramfs/<sha256 of the inputs>.cpio), with no
# kernel boot: the FAKE kernel-like tree of tests/fixtures/fake-kernel is
# built, and `test` boots it with a fake qemu-system-x86_64 first
# on PATH that prints nothing (the lane's verdict is then an error: no
# KTAP), which is enough to make the initramfs. Checked: equal inputs give
# the same cached file (reused, not written again, the lane's initrd.cpio a
# hard link to it), a changed modules.* file of the build gives another,
# and the directory is pruned to its 64 most recently used entries.
source "$(dirname "$0")/../lib.sh"
T_SUITE=initramfs_cache
hermetic

cd "$TMP"
fake_kernel linux
mkdir -p fixes
cp -r "$TOP_DIR/backports/CVE-2011-1019" fixes/
printf 'CONFIG_64BIT=y\n' > fragment.config
cat > branches.yaml <<'EOF'
repo: linux
branches:
  - name: 6.1.y
    ref: linux-6.1.y
    config: fragment.config
EOF
mkdir fakebin
printf '#!/bin/sh\nexit 0\n' > fakebin/qemu-system-x86_64
chmod +x fakebin/qemu-system-x86_64
FIX=(--fix fixes/CVE-2011-1019 --no-overlay)
run_kb 0 build "${FIX[@]}" --fragment fragment.config --quiet
testkb() { PATH=$TMP/fakebin:$PATH run_kb 1 test "${FIX[@]}" --json --quiet; }
reused() { printf '%s' "$OUT" | jq -r '.branches[0].lanes[0].initramfs_reused'; }
entries() { ls work/initramfs; }
lane_initrd=work/test/CVE-2011-1019/6.1.y/as-is/initrd.cpio

# ---- the first boot writes it ----
T_NAME=first
testkb
test_expect_success 'not reused' 'test "$(reused)" = false'
test_expect_success 'one entry, named by its key' '
	entries | grep -qxE "[0-9a-f]{64}\.cpio" && test "$(entries | wc -l)" = 1
'
first=$(entries)
test_expect_success "the lane's initrd.cpio is the cached file (a hard link)" '
	test "$(stat -c %i "$lane_initrd")" = "$(stat -c %i "work/initramfs/$first")"
'
test_expect_success 'no temporary left' '
	! ls -a work/initramfs "$(dirname "$lane_initrd")" | grep "\.tmp\."
'

# ---- equal inputs: the same file ----
T_NAME=again
inode=$(stat -c %i "work/initramfs/$first")
testkb
test_expect_success 'reused' 'test "$(reused)" = true'
test_expect_success 'still one entry, the same' 'test "$(entries)" = "$first"'
test_expect_success 'not written again' 'test "$(stat -c %i "work/initramfs/$first")" = "$inode"'

# ---- a module index of the build changed: another key ----
T_NAME=changed
modules=$(dirname "$(find work/builds -name modules.dep | head -n 1)")
test_expect_success 'the build installed its modules' 'test -d "$modules"'
printf 'alias netdev-sit0 sit\n' > "$modules/modules.alias"
testkb
test_expect_success 'not reused' 'test "$(reused)" = false'
test_expect_success 'two entries' 'test "$(entries | wc -l)" = 2'
second=$(entries | grep -vx "$first")
test_expect_success 'the lane boots the new one' '
	test "$(stat -c %i "$lane_initrd")" = "$(stat -c %i "work/initramfs/$second")"
'
rm "$modules/modules.alias"
testkb
test_expect_success 'back as it was: the first is reused' 'test "$(reused)" = true'
test_expect_success 'the lane boots the first again' 'test "$(stat -c %i "$lane_initrd")" = "$inode"'

# ---- bounded: the 64 most recently used stay ----
T_NAME=prune
for i in $(seq 1 70); do
	f=work/initramfs/$(printf '%064x' "$i").cpio
	: > "$f"
	touch -d "@$((1000000000 + i))" "$f"	# long unused, the last the most recent
done
printf 'alias netdev-sit1 sit\n' > "$modules/modules.alias"	# inputs not seen before
testkb
test_expect_success 'a new entry was written' 'test "$(reused)" = false'
test_expect_success '64 entries' 'test "$(entries | wc -l)" = 64'
third=$(entries | grep -v -E '^0{50}' | grep -vx -e "$first" -e "$second")
test_expect_success 'the new one, the two used today and the 61 most recent old ones stay' '
	printf "%064x.cpio\n" $(seq 10 70) > want &&
	entries | grep -E "^0{50}" > got &&
	test_cmp want got
'
test_expect_success "the new one is the lane's" '
	test "$(stat -c %i "$lane_initrd")" = "$(stat -c %i "work/initramfs/$third")"
'

finish
