#!/usr/bin/env bash
# kbackport import --trees: a tarball (read with libarchive, never
# unpacked) or a directory of kernel trees, one branch and one commit per
# top-level directory. First a small tarball made here (exact branches,
# files, modes, links; the same trees from a directory; a re-import adds
# nothing; a changed tree is a new commit on top), then the real
# ../shared/linux-eras.tar.xz when it is there (skipped with the reason
# when not).
source "$(dirname "$0")/../lib.sh"
T_SUITE=import-trees
hermetic
cd "$TMP" || exit 1

# two trees, a file at the top (not a tree), an executable, a symlink and
# a hard link; members of the two trees interleaved, as in linux-eras
python3 - trees.tar <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT) as tar:
    def add(name, data=b"", kind=tarfile.REGTYPE, mode=0o644, link=""):
        info = tarfile.TarInfo(name)
        info.type, info.mode, info.mtime, info.linkname, info.size = kind, mode, 0, link, len(data)
        tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    add("README.eras", b"not a tree\n")
    add("linux-1.0", kind=tarfile.DIRTYPE, mode=0o755)
    add("linux-1.0/Makefile", b"VERSION = 1\n")
    add("linux-2.0-rc1/Makefile", b"VERSION = 2\n")
    add("linux-1.0/net/core/dev.c", b"int dev_load_1;\n")
    add("linux-2.0-rc1/net/core/dev.c", b"int dev_load_2;\n")
    add("linux-2.0-rc1/scripts/mkver", b"#!/bin/sh\n", mode=0o755)
    add("linux-2.0-rc1/include/asm", kind=tarfile.SYMTYPE, link="asm-x86")
    add("linux-2.0-rc1/COPYING", kind=tarfile.LNKTYPE, link="linux-2.0-rc1/Makefile")
PY
xz -k trees.tar

T_NAME="a tarball of trees"
run_kb 0 import --repo repo.git --trees trees.tar.xz
test_expect_success 'one branch per tree' '
	printf "%s\n" "eras/1.0         linux-1.0            imported $(git -C repo.git rev-parse --short=12 eras/1.0) (2 files)
eras/2.0-rc1     linux-2.0-rc1        imported $(git -C repo.git rev-parse --short=12 eras/2.0-rc1) (5 files)" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'
test_expect_success 'the branches, and nothing else' '
	test "$(git -C repo.git for-each-ref --format="%(refname)" | tr "\n" " " | sed "s/ \$//")" = "refs/heads/eras/1.0 refs/heads/eras/2.0-rc1"
'
test_expect_success 'files, modes and links' '
	printf "%s\n" "100644 blob $(printf "VERSION = 2\n" | git hash-object --stdin)	COPYING
100644 blob $(printf "VERSION = 2\n" | git hash-object --stdin)	Makefile
120000 blob $(printf "asm-x86" | git hash-object --stdin)	include/asm
100644 blob $(printf "int dev_load_2;\n" | git hash-object --stdin)	net/core/dev.c
100755 blob $(printf "#!/bin/sh\n" | git hash-object --stdin)	scripts/mkver" > want &&
	printf "%s\n" "$(git -C repo.git ls-tree -r eras/2.0-rc1)" > got &&
	test_cmp want got
'
test_expect_success 'the other tree' '
	test "$(git -C repo.git show eras/1.0:Makefile)|$(git -C repo.git show eras/1.0:net/core/dev.c)" = "VERSION = 1|int dev_load_1;"
'
test_expect_success 'one commit, titled with the directory, no parent' '
	test "$(git -C repo.git log -1 --format="%s|%P" eras/1.0)" = "linux-1.0|"
'
test_expect_success 'git fsck --strict' '
	test_eq "" "$(git -C repo.git fsck --strict 2>&1 | grep -v "^notice: HEAD points to an unborn")"
'
first=$(git -C repo.git rev-parse eras/1.0 eras/2.0-rc1)

T_NAME="imported again"
run_kb 0 import --repo repo.git --trees trees.tar.xz --json
test_expect_success 'nothing created' '
	test_eq '\''[["eras/1.0","linux-1.0",false,2,null],["eras/2.0-rc1","linux-2.0-rc1",false,5,null]]'\'' "$(printf "%s" "$OUT" | jq -c '\''[.trees[] | [.branch, .name, .created, .files, .error]]'\'')"
'
test_expect_success 'the same tips' '
	test_eq "$first" "$(git -C repo.git rev-parse eras/1.0 eras/2.0-rc1)"
'

T_NAME="a directory of trees"
mkdir dir && tar -xf trees.tar -C dir
test_expect_success 'the same trees, under the prefix' '
	run_kb 0 import --repo dir.git --trees dir/ --prefix old/ &&
	test_eq "$(git -C repo.git rev-parse "eras/1.0^{tree}" "eras/2.0-rc1^{tree}")" "$(git -C dir.git rev-parse "old/1.0^{tree}" "old/2.0-rc1^{tree}")"
'
test_expect_success 'already imported from the tarball' '
	run_kb 0 import --repo repo.git --trees dir &&
	[[ $OUT == *"eras/1.0         linux-1.0            already imported"* ]]
'

T_NAME="members named ./linux-..."
tar -cJf dot.tar.xz -C dir .
test_expect_success 'the same branches, nothing new' '
	run_kb 0 import --repo repo.git --trees dot.tar.xz &&
	printf "%s\n" "eras/1.0         linux-1.0            already imported $(git -C repo.git rev-parse --short=12 eras/1.0)
eras/2.0-rc1     linux-2.0-rc1        already imported $(git -C repo.git rev-parse --short=12 eras/2.0-rc1)" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'

T_NAME="a tree changed"
printf 'int dev_load_1_fixed;\n' > dir/linux-1.0/net/core/dev.c
test_expect_success 'a new commit on the old tip, the other tree unchanged' '
	run_kb 0 import --repo repo.git --trees dir --json &&
	test_eq "true $(echo "$first" | head -1) false" "$(printf "%s" "$OUT" | jq -r ".trees[0].created") $(git -C repo.git rev-parse eras/1.0^) $(printf "%s" "$OUT" | jq -r ".trees[1].created")"
'

T_NAME="errors"
test_expect_success 'a missing tarball' '
	run_kb 1 import --repo repo.git --trees nothing.tar.xz &&
	test_eq "-                nothing.tar.xz       error: cannot read '\''nothing.tar.xz'\'': No such file or directory" "$OUT"
'
mkdir empty
test_expect_success 'a directory without trees' '
	run_kb 1 import --repo repo.git --trees empty &&
	test_eq "-                empty                error: '\''empty'\'' holds no tree (a directory with files)" "$OUT"
'
test_expect_success 'a prefix that makes no branch name' '
	run_kb 1 import --repo repo.git --trees trees.tar.xz --prefix "bad.." &&
	[[ $OUT == *"error: '\''bad..1.0'\'' (from '\''linux-1.0/'\'') is not a valid branch name"* ]]
'

# ---- refusals: each before any branch is written ----
# mktar TARBALL MEMBER...: a GNU tarball, MEMBER = KIND:NAME[:DATA or TARGET],
# KIND f (file), d (directory), l (symlink), h (hard link), p (FIFO),
# c (character device), b (block device)
mktar() {
	python3 - "$@" <<'PY'
import io, sys, tarfile
kinds = {"f": tarfile.REGTYPE, "d": tarfile.DIRTYPE, "l": tarfile.SYMTYPE, "h": tarfile.LNKTYPE,
         "p": tarfile.FIFOTYPE, "c": tarfile.CHRTYPE, "b": tarfile.BLKTYPE}
with tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT) as tar:
    for member in sys.argv[2:]:
        kind, name, rest = (member.split(":", 2) + [""])[:3]
        info = tarfile.TarInfo(name)
        info.type, info.mtime, info.mode = kinds[kind], 0, 0o755 if kind == "d" else 0o644
        data = rest.encode() if kind == "f" else b""
        info.linkname, info.size = rest if kind in "lh" else "", len(data)
        tar.addfile(info, io.BytesIO(data) if kind == "f" else None)
PY
}
# refs REPO: every ref and its commit (nothing when there is no repository)
refs() { git -C "$1" for-each-ref --format='%(refname) %(objectname)' 2>/dev/null; }
# refused EXIT REPO ARGS...: import --trees ARGS into REPO under a timeout
# (a read that blocks fails instead of hanging); $OUT, $ERR, and $REFS
# (the refs before) for unchanged
refused() {
	local want=$1 repo=$2 rc
	shift 2
	REFS=$(refs "$repo")
	timeout 20 ${KB_VALGRIND:-} "$KBACKPORT" import --repo "$repo" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	[ "$rc" -eq "$want" ] || { echo "exit $rc, not $want: $ERR"; return 1; }
}
unchanged() { test "$(refs "$1")" = "$REFS" || { echo "refs changed: $(refs "$1")"; return 1; }; }
# row SOURCE MESSAGE: the line of a refused source
row() { printf '%-16s %-20s error: %s' - "$1" "$2"; }
run_kb 0 import --repo ref.git --trees trees.tar.xz	# eras/1.0, eras/2.0-rc1

T_NAME="two trees, one branch"
mktar clash.tar f:linux-1.0/a:A f:1.0/b:B f:linux-3.0/c:C
mkdir clashdir && tar -xf clash.tar -C clashdir
test_expect_success 'one tarball: refused, naming both, no branch written' '
	refused 1 ref.git --trees clash.tar &&
	test "$OUT" = "$(row clash.tar "'"'clash.tar': '1.0/' and 'linux-1.0/' both make branch 'eras/1.0'"'")" &&
	unchanged ref.git
'
test_expect_success 'a new repository: no branch at all, not even the tree without a twin' '
	refused 1 new.git --trees clash.tar && test -z "$(refs new.git)"
'
test_expect_success 'a directory: the same' '
	refused 1 ref.git --trees clashdir &&
	test "$OUT" = "$(row clashdir "'"'clashdir': '1.0/' and 'linux-1.0/' both make branch 'eras/1.0'"'")" &&
	unchanged ref.git
'
mkdir -p twin/1.0 && echo B > twin/1.0/b
test_expect_success 'a tarball and a directory: both refused, each naming both' '
	refused 1 ref.git --trees trees.tar.xz --trees twin &&
	msg="'"'linux-1.0/' of 'trees.tar.xz' and '1.0/' of 'twin' both make branch 'eras/1.0'"'" &&
	test "$OUT" = "$(row trees.tar.xz "$msg")
$(row twin "$msg")" &&
	unchanged ref.git
'
test_expect_success 'a directory and a tarball: named in the order given' '
	refused 1 ref.git --trees twin --trees trees.tar.xz --json &&
	test "$(printf "%s" "$OUT" | jq -r ".trees[] | [.source, .branch, .created, .error] | @tsv")" = \
"twin		false	'"'1.0/' of 'twin' and 'linux-1.0/' of 'trees.tar.xz' both make branch 'eras/1.0'"'
trees.tar.xz		false	'"'1.0/' of 'twin' and 'linux-1.0/' of 'trees.tar.xz' both make branch 'eras/1.0'"'" &&
	unchanged ref.git
'
test_expect_success 'the same tarball twice' '
	refused 1 ref.git --trees trees.tar.xz --trees trees.tar.xz &&
	test "$(printf "%s\n" "$OUT" | sed -n 1p)" = "$(row trees.tar.xz "'"'linux-1.0/' of 'trees.tar.xz' and 'linux-1.0/' of 'trees.tar.xz' both make branch 'eras/1.0'"'")" &&
	unchanged ref.git
'
mkdir -p other/linux-9.0 && echo N > other/linux-9.0/n
test_expect_success 'a source without a clash, beside two that clash, is imported' '
	refused 1 side.git --trees clash.tar --trees other &&
	test "$(refs side.git | cut -d" " -f1)" = refs/heads/eras/9.0
'
mktar prefix.tar f:linux-/a:A f:linux-linux-/b:B
test_expect_success '--prefix: "linux-" and "linux-linux-" make one branch' '
	refused 1 ref.git --trees prefix.tar --prefix old/ &&
	test "$OUT" = "$(row prefix.tar "'"'prefix.tar': 'linux-/' and 'linux-linux-/' both make branch 'old/linux-'"'")" &&
	unchanged ref.git
'
test_expect_success '--prefix: a branch in the way (eras/1.0 of eras/1.0/2.0-rc1)' '
	refused 1 ref.git --trees trees.tar.xz --prefix eras/1.0/ &&
	test "$OUT" = "$(row trees.tar.xz "branch '"'eras/1.0/1.0' (from 'linux-1.0/') cannot be made: branch 'eras/1.0' is in its way"'")" &&
	unchanged ref.git
'
mkdir -p erastree/eras && echo E > erastree/eras/e
test_expect_success '--prefix: a branch below in the way (eras/1.0 of eras)' '
	refused 1 ref.git --trees erastree --prefix "" &&
	test "$OUT" = "$(row erastree "branch '"'eras' (from 'eras/') cannot be made: branch 'eras/1.0' is in its way"'")" &&
	unchanged ref.git
'

T_NAME="not a tarball or a directory"
mkfifo fifo && ln -s fifo fifolink
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock
test_expect_success 'a FIFO: exit 2 at once, the repository not even made' '
	refused 2 fifo.git --trees fifo &&
	test "$ERR" = "error: '"'fifo' is a FIFO, not a tarball or a directory"'" &&
	test -z "$OUT" && test ! -e fifo.git
'
test_expect_success 'a symlink to a FIFO' '
	refused 2 fifo.git --trees fifolink &&
	test "$ERR" = "error: '"'fifolink' is a FIFO, not a tarball or a directory"'"
'
test_expect_success 'a character device' '
	refused 2 fifo.git --trees /dev/null &&
	test "$ERR" = "error: '"'/dev/null' is a character device, not a tarball or a directory"'"
'
test_expect_success 'a socket' '
	refused 2 fifo.git --trees sock &&
	test "$ERR" = "error: '"'sock' is a socket, not a tarball or a directory"'"
'
test_expect_success 'a FIFO after a good tarball: nothing imported' '
	refused 2 ref.git --trees clash.tar --trees other --trees fifo &&
	test "$ERR" = "error: '"'fifo' is a FIFO, not a tarball or a directory"'" &&
	unchanged ref.git
'

T_NAME="members that are no source"
mkdir -p special/linux-1.0/sub && echo A > special/linux-1.0/a && mkfifo special/linux-1.0/sub/pipe
test_expect_success 'a FIFO in a directory tree: refused, never opened' '
	refused 1 ref.git --trees special &&
	test "$OUT" = "$(row special "'"'special': 'linux-1.0/sub/pipe' is a FIFO, not a file, a directory or a symlink"'")" &&
	unchanged ref.git
'
rm special/linux-1.0/sub/pipe
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' special/linux-1.0/sub/sock
test_expect_success 'a socket in a directory tree' '
	refused 1 ref.git --trees special &&
	test "$OUT" = "$(row special "'"'special': 'linux-1.0/sub/sock' is a socket, not a file, a directory or a symlink"'")" &&
	unchanged ref.git
'
rm special/linux-1.0/sub/sock
mknod special/linux-1.0/null c 1 3 2>/dev/null && test_set_prereq MKNOD
test_expect_success MKNOD 'a character device in a directory tree' '
	refused 1 ref.git --trees special &&
	test "$OUT" = "$(row special "'"'special': 'linux-1.0/null' is a character device, not a file, a directory or a symlink"'")" &&
	unchanged ref.git
'
rm -f special/linux-1.0/null
mkfifo special/topfifo
test_expect_success 'a FIFO at the top of a directory: left out, as files at the top are' '
	refused 0 top.git --trees special &&
	test "$(git -C top.git ls-tree -r --name-only eras/1.0)" = a
'
for m in p:FIFO c:"character device" b:"block device"; do
	mktar "member-${m%%:*}.tar" f:linux-1.0/a:A "${m%%:*}:linux-1.0/dev/x"
	test_expect_success "a ${m#*:} member in a tarball" '
		refused 1 ref.git --trees "member-${m%%:*}.tar" &&
		test "$OUT" = "$(row "member-${m%%:*}.tar" "'"'member-${m%%:*}.tar': 'linux-1.0/dev/x' is a ${m#*:}, not a file, a directory or a symlink"'")" &&
		unchanged ref.git
	'
done

T_NAME="a file and a directory"
# the member that is a file (or symlink) first, then the one below it; and reversed
for order in file-first dir-first; do
	if [ $order = file-first ]; then mktar fd-$order.tar f:linux-1.0/a:A f:linux-1.0/x:X f:linux-1.0/x/y:Y
	else mktar fd-$order.tar f:linux-1.0/x/y:Y f:linux-1.0/a:A f:linux-1.0/x:X; fi
	test_expect_success "x and x/y ($order): refused, naming both" '
		refused 1 ref.git --trees fd-$order.tar &&
		test "$OUT" = "$(row fd-$order.tar "'"'fd-$order.tar': 'linux-1.0/x' is both a file and a directory ('linux-1.0/x/y')"'")" &&
		unchanged ref.git
	'
done
mktar fd-between.tar f:linux-1.0/x:X f:linux-1.0/x-1:Z f:linux-1.0/x.c:Z f:linux-1.0/x/y:Y
test_expect_success 'x and x/y with x-1 and x.c sorting between them' '
	refused 1 ref.git --trees fd-between.tar &&
	test "$OUT" = "$(row fd-between.tar "'"'fd-between.tar': 'linux-1.0/x' is both a file and a directory ('linux-1.0/x/y')"'")"
'
mktar fd-link.tar f:linux-1.0/a:A l:linux-1.0/include/asm:asm-x86 f:linux-1.0/include/asm/io.h:IO
test_expect_success 'a symlink and a directory' '
	refused 1 ref.git --trees fd-link.tar &&
	test "$OUT" = "$(row fd-link.tar "'"'fd-link.tar': 'linux-1.0/include/asm' is both a symlink and a directory ('linux-1.0/include/asm/io.h')"'")" &&
	unchanged ref.git
'
mktar fd-emptydir.tar f:linux-1.0/a:A f:linux-1.0/x:X d:linux-1.0/x/
test_expect_success 'a file and an empty directory member' '
	refused 1 ref.git --trees fd-emptydir.tar &&
	test "$OUT" = "$(row fd-emptydir.tar "'"'fd-emptydir.tar': 'linux-1.0/x' is both a file and a directory ('linux-1.0/x/')"'")"
'
mktar fd-linkdir.tar f:linux-1.0/a:A d:linux-1.0/include/asm/ d:linux-1.0/include/asm/sub/ l:linux-1.0/include/asm:asm-x86
test_expect_success 'a symlink and directory members only' '
	refused 1 ref.git --trees fd-linkdir.tar &&
	test "$OUT" = "$(row fd-linkdir.tar "'"'fd-linkdir.tar': 'linux-1.0/include/asm' is both a symlink and a directory ('linux-1.0/include/asm/')"'")"
'
mktar fd-deep.tar f:linux-1.0/a:A f:linux-1.0/x:X d:linux-1.0/x/sub/
test_expect_success 'a file and a directory member below it' '
	refused 1 ref.git --trees fd-deep.tar &&
	test "$OUT" = "$(row fd-deep.tar "'"'fd-deep.tar': 'linux-1.0/x' is both a file and a directory ('linux-1.0/x/sub')"'")"
'
# on disk a path cannot be both; two top directories of one branch can
mkdir -p fddir/linux-1.0 fddir/1.0/x && echo X > fddir/linux-1.0/x && echo Y > fddir/1.0/x/y
test_expect_success 'a directory: linux-1.0/x and 1.0/x/y, refused (one branch)' '
	refused 1 ref.git --trees fddir &&
	test "$OUT" = "$(row fddir "'"'fddir': '1.0/' and 'linux-1.0/' both make branch 'eras/1.0'"'")" &&
	unchanged ref.git
'
mkdir -p fdtar && mktar fdtar/a.tar f:linux-1.0/x:X && mkdir -p fdsrc/1.0/x && echo Y > fdsrc/1.0/x/y
test_expect_success 'a tarball with x and a directory with x/y, one branch: refused' '
	refused 1 ref.git --trees fdtar/a.tar --trees fdsrc &&
	test "$(printf "%s\n" "$OUT" | sed -n 1p)" = "$(row fdtar/a.tar "'"'linux-1.0/' of 'fdtar/a.tar' and '1.0/' of 'fdsrc' both make branch 'eras/1.0'"'")" &&
	unchanged ref.git
'
mktar dirtwice.tar d:linux-1.0/ d:linux-1.0/x/ f:linux-1.0/x/y:Y d:linux-1.0/x/
test_expect_success 'a directory member twice, and a file in it: imported' '
	refused 0 dirtwice.git --trees dirtwice.tar &&
	test "$OUT" = "eras/1.0         linux-1.0            imported $(git -C dirtwice.git rev-parse --short=12 eras/1.0) (1 files)" &&
	test "$(git -C dirtwice.git ls-tree -r --name-only eras/1.0)" = x/y
'

T_NAME="one path twice"
mktar twice.tar f:linux-1.0/a:A f:linux-1.0/x:old f:linux-1.0/x:new
test_expect_success 'a file twice: refused (tar would keep the last)' '
	refused 1 ref.git --trees twice.tar &&
	test "$OUT" = "$(row twice.tar "'"'twice.tar': 'linux-1.0/x' is in it twice"'")" &&
	unchanged ref.git
'
mktar twice-link.tar f:linux-1.0/x:X l:linux-1.0/x:target
test_expect_success 'a file and a symlink of one path' '
	refused 1 ref.git --trees twice-link.tar &&
	test "$OUT" = "$(row twice-link.tar "'"'twice-link.tar': 'linux-1.0/x' is in it twice"'")"
'
mktar twice-hard.tar f:linux-1.0/x:X h:linux-1.0/x:linux-1.0/x
test_expect_success 'a file and a hard link to itself' '
	refused 1 ref.git --trees twice-hard.tar &&
	test "$OUT" = "$(row twice-hard.tar "'"'twice-hard.tar': 'linux-1.0/x' is in it twice"'")"
'
mktar twice-dot.tar f:linux-1.0/x:X f:./linux-1.0/x:X
test_expect_success 'x and ./x' '
	refused 1 ref.git --trees twice-dot.tar &&
	test "$OUT" = "$(row twice-dot.tar "'"'twice-dot.tar': 'linux-1.0/x' is in it twice"'")"
'

T_NAME="sparse members"
# GNU tar --sparse: the holes of these files are not in the tarball; the
# blob must be the file's bytes, holes as zeros, the size exact
mkdir -p sparse/linux-1.0
truncate -s 100000 sparse/linux-1.0/holes
python3 - sparse/linux-1.0 <<'PY'
import os, sys
def write(name, size, pieces):
    with open(os.path.join(sys.argv[1], name), "wb") as f:
        for at, data in pieces:
            f.seek(at)
            f.write(data)
        f.truncate(size)
write("mixed", 300000, [(0, b"head\n" * 100), (131072, b"middle\n" * 700), (290000, b"end\n")])
write("tail-hole", 1 << 20, [(8192, b"x" * 5000)])
write("no-hole", 5000, [(0, b"y" * 5000)])
write("empty", 0, [])
PY
printf 'int a;\n' > sparse/linux-1.0/a.c
for f in holes mixed tail-hole; do
	[ "$(du -k "sparse/linux-1.0/$f" | cut -f1)" -lt 80 ] || no_holes=1
done
[ -n "${no_holes:-}" ] || test_set_prereq HOLES
for fmt in gnu oldgnu pax-0.0 pax-0.1 pax-1.0; do
	case $fmt in
	pax-*) tar --sparse --format=pax --sparse-version=${fmt#pax-} -cf sparse-$fmt.tar -C sparse linux-1.0 ;;
	*) tar --sparse --format=$fmt -cf sparse-$fmt.tar -C sparse linux-1.0 ;;
	esac
	test_expect_success HOLES "$fmt: the tarball has sparse members" '
		python3 -c "import sys; d = open(sys.argv[1], \"rb\").read(); sys.exit(0 if b\"GNU.sparse\" in d or any(d[i + 156:i + 157] == b\"S\" for i in range(0, len(d), 512)) else 1)" sparse-$fmt.tar
	'
	test_expect_success "$fmt: every blob the file's bytes, holes as zeros" '
		refused 0 sparse-$fmt.git --trees sparse-$fmt.tar &&
		(cd sparse/linux-1.0 && for f in *; do echo "$(git hash-object "$f") $(stat -c %s "$f") $f"; done) >expect &&
		git -C sparse-$fmt.git ls-tree -r -l eras/1.0 | awk "{ print \$3, \$4, \$5 }" >actual &&
		test_cmp expect actual
	'
done
# a sparse member cut in its data: an error naming it, nothing written
python3 - sparse-gnu.tar sparse-cut.tar <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
at = d.find(b"middle\n")
open(sys.argv[2], "wb").write(d[:at + 100])
PY
test_expect_success 'a sparse member cut in its data: refused, naming it' '
	refused 1 ref.git --trees sparse-cut.tar &&
	case "$OUT" in "$(row sparse-cut.tar "cannot read '"'linux-1.0/mixed'"' from the tarball: ")"*) ;; *) false ;; esac &&
	unchanged ref.git
'
python3 - trees.tar cut.tar <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
at = d.find(b"int dev_load_2;")
open(sys.argv[2], "wb").write(d[:at + 5])
PY
test_expect_success 'a file cut in its data: refused, naming it' '
	refused 1 ref.git --trees cut.tar &&
	case "$OUT" in "$(row cut.tar "cannot read '"'linux-2.0-rc1/net/core/dev.c'"' from the tarball: ")"*) ;; *) false ;; esac &&
	unchanged ref.git
'

# the real trees: ../shared/linux-eras.tar.xz
T_NAME="linux-eras.tar.xz"
ERAS=${KB_SHARED:-$TOP_DIR/../shared}/linux-eras.tar.xz
if [ ! -f "$ERAS" ]; then
	skip "no linux-eras.tar.xz at $ERAS (set KB_SHARED to the shared folder)"
	finish
	exit
fi
# Under valgrind (make check-valgrind) the synthetic tarballs above take the
# same code paths; the real one (three whole trees, twice) would take many
# minutes there, and is imported in the plain and ASan passes.
if [ -n "${KB_VALGRIND:-}" ]; then
	skip "the real trees are not imported again under valgrind (the plain and ASan passes do)"
	finish
	exit
fi
run_kb 0 import --repo eras.git --trees "$ERAS" --json
test_expect_success 'three branches, all created' '
	test_eq '\''[["eras/2.6.32","linux-2.6.32",true],["eras/2.6.36","linux-2.6.36",true],["eras/2.6.38-rc8","linux-2.6.38-rc8",true]]'\'' "$(printf "%s" "$OUT" | jq -c '\''[.trees[] | [.branch, .name, .created]]'\'')"
'
tips=$(git -C eras.git rev-parse eras/2.6.32 eras/2.6.36 eras/2.6.38-rc8)
# every member that is not a directory, per tree, and a few files read back
tar -tvJf "$ERAS" | awk '$1 !~ /^d/ { split($6, p, "/"); if (p[2] != "") n[p[1]]++ }
	END { for (t in n) print t, n[t] }' | sort > members
for b in 2.6.32 2.6.36 2.6.38-rc8; do
	echo "linux-$b $(git -C eras.git ls-tree -r eras/$b | wc -l)"
done > imported
test_expect_success 'as many files as the tarball has' '
	test_cmp members imported
'
mkdir x && tar -xJf "$ERAS" -C x linux-2.6.32/Makefile linux-2.6.32/net/core/dev.c \
	linux-2.6.36/net/core/dev.c linux-2.6.38-rc8/net/ipv4/ipip.c linux-2.6.38-rc8/scripts/setlocalversion
for f in linux-2.6.32/Makefile linux-2.6.32/net/core/dev.c linux-2.6.36/net/core/dev.c \
	linux-2.6.38-rc8/net/ipv4/ipip.c linux-2.6.38-rc8/scripts/setlocalversion; do
	b=eras/${f%%/*}; b=${b/linux-/}
	test_expect_success "$f: the tarball's bytes" '
		test "$(git -C eras.git rev-parse "$b:${f#*/}")" = "$(git hash-object "x/$f")"
	'
done
test_expect_success 'an executable stays executable' '
	test "$(git -C eras.git ls-tree eras/2.6.38-rc8 scripts/setlocalversion | cut -c1-6)" = 100755
'
test_expect_success 'the vulnerable dev_load of 2.6.32' '
	test "$(git -C eras.git show eras/2.6.32:net/core/dev.c | grep -c "if (!dev && capable(CAP_NET_ADMIN))")" = 1
'
run_kb 0 import --repo eras.git --trees "$ERAS" --json
test_expect_success 'imported again: nothing created' '
	test "$(printf "%s" "$OUT" | jq -r '\''[.trees[].created] | join(" ")'\'')" = "false false false"
'
test_expect_success 'the same tips' '
	test_eq "$tips" "$(git -C eras.git rev-parse eras/2.6.32 eras/2.6.36 eras/2.6.38-rc8)"
'
finish
