#!/usr/bin/env bash
# Progress lines while a long step runs, with no terminal (stderr is a
# file here, as in a CI log). The build is the FAKE kernel-like tree of
# tests/fixtures/fake-kernel, with six objects; the boot a fake
# qemu-system-x86_64 first on PATH (the lane's verdict is then an error: no
# KTAP). KBACKPORT_PROGRESS_INTERVAL=1 makes a line every second. A step
# lasts until it has been said: in the runs that should say progress, each
# fake (the compiler, qemu, apt-get) waits until kbackport's stderr has the
# progress line of its step (tests/wait-for-line.sh), never a guessed
# delay; the runs with --quiet, which say none, do not wait.
# Checked: lines name the branch, lane and step, their object counts never
# go down, the expected count comes from the branch's last build from
# scratch, --quiet removes them, and what the command prints at the end is
# the same either way. `import` too: a fake apt-get that waits before it
# leaves a .deb, and a tarball whose (fake) decompressor writes a file at
# a time. No timing is asserted beyond "at least one
# line".
source "$(dirname "$0")/../lib.sh"
T_SUITE=progress
hermetic

# ---- the fake kernel, with six objects ----
cd "$TMP"
fake_kernel linux
for f in init/calibrate net/core/sock net/core/skbuff init/version; do
	printf 'int %s;\n' "${f##*/}" > "linux/$f.c"
done
git -C linux add -A -f && git -C linux commit -q -m "6.1, six objects" && git -C linux branch -f linux-6.1.y
# waiting STEP CMD...: CMD with the fakes waiting for their step's progress
# line: each compile for a build's, the fake program (qemu, apt-get) for
# STEP's (boot, download)
WAIT=$TOP_DIR/tests/wait-for-line.sh
waiting() {
	local step=$1
	shift
	KB_FAKE_WAIT_CC="$WAIT $TMP/err '^progress: .*: build '" KB_FAKE_WAIT="^progress: .*: $step " "$@"
}
mkdir -p fixes
cp -r "$TOP_DIR/backports/CVE-2011-1019" fixes/
# its KUnit suite a small one the fake kernel's compiler builds (the overlay
# compiles it in `run`)
rm -rf fixes/CVE-2011-1019/tests/kunit && mkdir fixes/CVE-2011-1019/tests/kunit
printf 'obj-y += kb_suite.o\n' > fixes/CVE-2011-1019/tests/kunit/Kbuild
printf 'int kb_suite(void) { return 6; }\n' > fixes/CVE-2011-1019/tests/kunit/kb_suite.c
printf 'CONFIG_64BIT=y\n' > fragment.config
cat > branches.yaml <<'EOF'
repo: linux
branches:
  - name: 6.1.y
    ref: linux-6.1.y
    config: fragment.config
EOF
mkdir fakebin
printf '#!/bin/sh\n[ -z "$KB_FAKE_WAIT" ] || exec "%s" "%s" "$KB_FAKE_WAIT"\n' "$WAIT" "$TMP/err" \
	> fakebin/qemu-system-x86_64
chmod +x fakebin/qemu-system-x86_64
export KBACKPORT_PROGRESS_INTERVAL=1
KB_TEXT=(build --fix fixes/CVE-2011-1019 --fragment fragment.config --no-overlay --jobs 1)
KB_ARGS=("${KB_TEXT[@]}" --json)
# what a build prints on stdout, less its wall time
final() { printf '%s' "$OUT" | jq -c 'del(.builds[].seconds)'; }
progress() { printf '%s\n' "$ERR" | grep '^progress: ' || true; }
# the object counts of the progress lines, in order
counts() { progress | sed -n 's|.*, \([0-9]*\)/[0-9?]* objects$|\1|p'; }

# ---- the first build: the expected count is not known ----
T_NAME=cold
waiting build run_kb 0 "${KB_ARGS[@]}"
first=$(final)
test_expect_success 'built' '
	test "$(printf "%s" "$OUT" | jq -r '\''.builds[0] | "\(.status | tojson) \(.rebuilt)"'\'')" = '\''"pass" 6'\''
'
test_expect_success 'at least one progress line' '
	test -n "$(progress)"
'
test_expect_success 'every line names branch, lane and step; the total is unknown' '
	test_eq "" "$(progress | grep -v -E '\''^progress: 6\.1\.y as-is: build [0-9]+s, [0-6]/\? objects$'\'')"
'
test_expect_success 'the counts never go down' '
	test_eq "$(counts | sort -n)" "$(counts)"
'
test_expect_success 'the count is kept beside the build directory' '
	test "$(cat work/obj/6.1.y.objects)" = 6
'
test_expect_success 'nothing else on stderr' '
	test_eq "" "$(printf "%s\n" "$ERR" | grep -v "^progress: ")"
'

# ---- from scratch again: out of the last count ----
T_NAME=again
rm -rf work/builds
waiting build run_kb 0 "${KB_ARGS[@]}"
test_expect_success 'at least one progress line' '
	test -n "$(progress)"
'
test_expect_success "out of the last build's 6" '
	test_eq "" "$(progress | grep -v -E '\''^progress: 6\.1\.y as-is: build [0-9]+s, [0-6]/6 objects$'\'')"
'
test_expect_success 'the counts never go down' '
	test_eq "$(counts | sort -n)" "$(counts)"
'
test_expect_success 'the final output is the same' '
	test_eq "$first" "$(final)"
'

# ---- a lane cached: no step runs, no line ----
T_NAME=cached
run_kb 0 "${KB_ARGS[@]}"
test_expect_success 'no progress line' '
	test_eq "" "$(progress)"
'

# ---- --quiet ----
T_NAME=quiet
rm -rf work/builds
run_kb 0 "${KB_ARGS[@]}" --quiet
test_expect_success 'no progress line' '
	test_eq "" "$ERR"
'
test_expect_success 'the final output is the same' '
	test_eq "$first" "$(final)"
'
rm -rf work/builds
run_kb 0 "${KB_TEXT[@]}" --quiet
test_expect_success 'the text table too' '
	[[ $OUT == *"6.1.y   as-is     pass"* ]]
'
test_expect_success 'and no progress line' '
	test_eq "" "$ERR"
'

# ---- a boot ----
T_NAME=test
rm -rf work/builds
run_kb 0 "${KB_ARGS[@]}" --quiet
PATH=$TMP/fakebin:$PATH waiting boot run_kb 1 test --fix fixes/CVE-2011-1019 --no-overlay
first=$OUT
test_expect_success 'at least one progress line' '
	test -n "$(progress)"
'
test_expect_success 'every line names branch, lane and step, no count' '
	test_eq "" "$(progress | grep -v -E '\''^progress: 6\.1\.y as-is: boot [0-9]+s$'\'')"
'
test_expect_success 'the boot ran: no KTAP from the fake' '
	[[ $OUT == *"6.1.y   as-is     error"* ]]
'
PATH=$TMP/fakebin:$PATH run_kb 1 test --fix fixes/CVE-2011-1019 --no-overlay --quiet
test_expect_success '--quiet: no progress line' '
	test_eq "" "$(progress)"
'
test_expect_success 'the final output is the same' '
	test_eq "$(printf "%s\n" "$first" | cut -c1-30)" "$(printf "%s\n" "$OUT" | cut -c1-30)"
'

# ---- the whole run: build and boot ----
T_NAME=run
rm -rf work
PATH=$TMP/fakebin:$PATH waiting boot run_kb 1 run --fix fixes/CVE-2011-1019
steps() { printf '%s\n' "$ERR" | grep -v '^progress: ' | sed 's/^\[ *[0-9.]*s\] //; s/([0-9.]* s/(S s/; s/[0-9]\{8\}T[0-9]\{6\}Z-[0-9a-f]*/ID/g'; }
first=$(steps)
test_expect_success "a build's progress" '
	[[ $(progress) == *"progress: 6.1.y as-is: build "* ]]
'
test_expect_success "a boot's progress" '
	[[ $(progress) == *"progress: 6.1.y as-is: boot "* ]]
'
test_expect_success 'the step lines' '
	printf "%s\n" "run ID: CVE-2011-1019 on 1 branch, report in $TMP/reports/ID
6.1.y: apply: not-affected
6.1.y as-is: build: pass (S s)
6.1.y as-is: test: error (S s)
6.1.y: error" > want &&
	printf "%s\n" "$first" > got &&
	test_cmp want got
'
rm -rf work
PATH=$TMP/fakebin:$PATH run_kb 1 run --fix fixes/CVE-2011-1019 --quiet
test_expect_success '--quiet: no progress line' '
	test_eq "" "$(progress)"
'
test_expect_success 'the step lines are the same' '
	test_eq "$first" "$(steps)"
'

# ---- import: apt-get download, then the tarball ----
# A fake apt-get first on PATH that waits, then leaves a real .deb (made
# here with dpkg-deb) holding a small source tarball; dpkg-deb -x is real.
T_NAME=import-download
mkdir -p deb/DEBIAN deb/usr/src src/linux-source-9.9/net/core fakeapt
printf 'VERSION = 9\n' > src/linux-source-9.9/Makefile
printf 'int dev_load;\n' > src/linux-source-9.9/net/core/dev.c
tar -C src -cJf deb/usr/src/linux-source-9.9.tar.xz linux-source-9.9
printf 'Package: linux-source-9.9\nVersion: 9.9.1-fake\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: a fake\n' \
	> deb/DEBIAN/control
dpkg-deb -b -Zgzip deb fake.deb > /dev/null
printf '#!/bin/sh\n[ -z "$KB_FAKE_WAIT" ] || "%s" "%s" "$KB_FAKE_WAIT"\ncp "%s/fake.deb" linux-source-9.9_9.9.1-fake_all.deb\n' \
	"$WAIT" "$TMP/err" "$TMP" \
	> fakeapt/apt-get
chmod +x fakeapt/apt-get
IMPORT=(import --repo repo.git --downloads dl --package linux-source-9.9=9.9.1-fake)
PATH=$TMP/fakeapt:$PATH waiting download run_kb 0 "${IMPORT[@]}"
test_expect_success 'imported' '
	[[ $OUT == *"stable/9.9.y   linux-source-9.9 9.9.1-fake   imported"* ]]
'
test_expect_success 'at least one progress line' '
	test -n "$(progress)"
'
test_expect_success 'every line names the package and the step' '
	test_eq "" "$(progress | grep -v -E '\''^progress: linux-source-9\.9=9\.9\.1-fake: (download|unpack) [0-9]+s$'\'')"
'
test_expect_success "the download's" '
	[[ $(progress) == *"progress: linux-source-9.9=9.9.1-fake: download "* ]]
'
test_expect_success 'nothing else on stderr' '
	test_eq "" "$(printf "%s\n" "$ERR" | grep -v "^progress: ")"
'
rm -rf repo.git dl
PATH=$TMP/fakeapt:$PATH run_kb 0 "${IMPORT[@]}" --quiet
test_expect_success '--quiet: no progress line' '
	test_eq "" "$ERR"
'
test_expect_success 'imported all the same' '
	[[ $OUT == *"linux-source-9.9 9.9.1-fake   imported"* ]]
'

# A tarball read slowly: a regular file (--trees refuses a FIFO) that
# libarchive hands to lrzip, a program it runs (it has no lrzip of its
# own); the fake lrzip first on PATH writes a file every 0.6 s, each
# 64 KiB, libarchive's read size for a program's output. This one fake
# keeps its delay: kbackport counts the files as libarchive hands them
# over and cannot say a line while libarchive waits for the next, so
# there is no line to wait for; the delay is the slow decompressor the
# test is about, and no check depends on how long it is.
T_NAME=import-tarball
mkdir -p fakelrzip
cat > fakelrzip/lrzip <<'EOF'
#!/bin/sh
cat >/dev/null
exec python3 -c '
import io, sys, tarfile, time
out = sys.stdout.buffer
with tarfile.open(fileobj=out, mode="w|", bufsize=512, format=tarfile.USTAR_FORMAT) as tar:
    for i in range(6):
        data = (b"int f%d;\n" % i).ljust(65536, b" ")
        info = tarfile.TarInfo("linux-9.9/f%d.c" % i)
        info.size, info.mtime, info.mode = len(data), 0, 0o644
        tar.addfile(info, io.BytesIO(data))
        out.flush()
        time.sleep(0.6)
'
EOF
chmod +x fakelrzip/lrzip
printf 'LRZI\000\006' > slow.tar && head -c 100 /dev/zero >> slow.tar	# lrzip 0.6's magic
PATH=$TMP/fakelrzip:$PATH run_kb 0 import --repo repo.git --trees slow.tar --json
test_expect_success 'imported: 6 files' '
	test "$(printf "%s" "$OUT" | jq -r '\''.trees[0] | "\(.branch) \(.files)"'\'')" = "eras/9.9 6"
'
test_expect_success 'at least one progress line' '
	test -n "$(progress)"
'
test_expect_success 'every line names the tarball and counts files' '
	test_eq "" "$(progress | grep -v -E '\''^progress: slow\.tar: import [0-9]+s, [0-6] files$'\'')"
'
files() { progress | sed -n 's|.*, \([0-9]*\) files$|\1|p'; }
test_expect_success 'the counts never go down' '
	test_eq "$(files | sort -n)" "$(files)"
'
test_expect_success 'nothing else on stderr' '
	test_eq "" "$(printf "%s\n" "$ERR" | grep -v "^progress: ")"
'
KBACKPORT_PROGRESS_INTERVAL=0 run_kb 2 import --trees slow.tar
test_expect_success 'import checks the interval' '
	[[ $ERR == *"KBACKPORT_PROGRESS_INTERVAL '\''0'\''"* ]]
'
run_kb 0 import --help
test_expect_success "--quiet is in import's help" '
	[[ $OUT == *"-q, --quiet"* ]]
'

# ---- test: the download of a distribution kernel ----
# A fake apt-cache that knows the package, and the fake apt-get above
# swapped for one that waits, then fails: the lane is an error, after
# progress lines named by the branch alone (there is no lane yet).
T_NAME=kernel-download
mkdir -p fakekernel
printf '#!/bin/sh\nprintf "Package: linux-image-fake\\nVersion: 1.0-1\\nArchitecture: amd64\\n"\n' \
	> fakekernel/apt-cache
printf '#!/bin/sh\n[ -z "$KB_FAKE_WAIT" ] || "%s" "%s" "$KB_FAKE_WAIT"\necho "E: no such archive here" >&2\nexit 100\n' \
	"$WAIT" "$TMP/err" > fakekernel/apt-get
chmod +x fakekernel/apt-cache fakekernel/apt-get
printf 'repo: linux\nbranches:\n  - name: bookworm\n    kernel: linux-image-fake\n' > distro.yaml
PATH=$TMP/fakekernel:$PATH waiting download run_kb 1 test --config distro.yaml --fix fixes/CVE-2011-1019 --workdir dwork
test_expect_success 'at least one progress line' '
	test -n "$(progress)"
'
test_expect_success 'every line names the branch and the step' '
	test_eq "" "$(progress | grep -v -E '\''^progress: bookworm: download [0-9]+s$'\'')"
'
test_expect_success "apt-get's message" '
	[[ $OUT == *"E: no such archive here"* ]]
'
PATH=$TMP/fakekernel:$PATH run_kb 1 test --config distro.yaml --fix fixes/CVE-2011-1019 --workdir dwork --quiet
test_expect_success '--quiet: no progress line' '
	test_eq "" "$(progress)"
'

# ---- the interval ----
T_NAME=interval
KBACKPORT_PROGRESS_INTERVAL=soon run_kb 2 "${KB_ARGS[@]}"
test_expect_success 'not a number of seconds: refused' '
	test_eq "error: KBACKPORT_PROGRESS_INTERVAL '\''soon'\'': expected whole seconds, 1 to 86400" "$ERR"
'
KBACKPORT_PROGRESS_INTERVAL=0 run_kb 2 test
test_expect_success 'test checks it too' '
	[[ $ERR == *"KBACKPORT_PROGRESS_INTERVAL '\''0'\''"* ]]
'
KBACKPORT_PROGRESS_INTERVAL=0 run_kb 2 run
test_expect_success 'and run' '
	[[ $ERR == *"KBACKPORT_PROGRESS_INTERVAL '\''0'\''"* ]]
'
KBACKPORT_PROGRESS_INTERVAL=0 run_kb 0 run --quiet --help
test_expect_success "--quiet is in run's help" '
	[[ $OUT == *"-q, --quiet"* ]]
'
for cmd in build test; do
	run_kb 0 "$cmd" --help
	test_expect_success "--quiet is in $cmd's help" '
		[[ $OUT == *"-q, --quiet"* ]]
	'
done

finish
