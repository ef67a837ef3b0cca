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
run_kb 0 import --repo repo.git --trees trees.tar.xz &&
	assert_eq "one branch per tree" \
"eras/1.0         linux-1.0            imported $(git -C repo.git rev-parse --short=12 eras/1.0) (2 files)
eras/2.0-rc1     linux-2.0-rc1        imported $(git -C repo.git rev-parse --short=12 eras/2.0-rc1) (5 files)" "$OUT"
assert_eq "the branches, and nothing else" "refs/heads/eras/1.0 refs/heads/eras/2.0-rc1" \
	"$(git -C repo.git for-each-ref --format='%(refname)' | tr '\n' ' ' | sed 's/ $//')"
assert_eq "files, modes and links" \
"100644 blob $(printf 'VERSION = 2\n' | git hash-object --stdin)	COPYING
100644 blob $(printf 'VERSION = 2\n' | git hash-object --stdin)	Makefile
120000 blob $(printf 'asm-x86' | git hash-object --stdin)	include/asm
100644 blob $(printf 'int dev_load_2;\n' | git hash-object --stdin)	net/core/dev.c
100755 blob $(printf '#!/bin/sh\n' | git hash-object --stdin)	scripts/mkver" \
	"$(git -C repo.git ls-tree -r eras/2.0-rc1)"
assert_eq "the other tree" "VERSION = 1|int dev_load_1;" \
	"$(git -C repo.git show eras/1.0:Makefile)|$(git -C repo.git show eras/1.0:net/core/dev.c)"
assert_eq "one commit, titled with the directory, no parent" "linux-1.0|" \
	"$(git -C repo.git log -1 --format='%s|%P' eras/1.0)"
assert_eq "git fsck --strict" "" "$(git -C repo.git fsck --strict 2>&1 | grep -v "^notice: HEAD points to an unborn")"
first=$(git -C repo.git rev-parse eras/1.0 eras/2.0-rc1)

T_NAME="imported again"
run_kb 0 import --repo repo.git --trees trees.tar.xz --json &&
	assert_eq "nothing created" \
		'[["eras/1.0","linux-1.0",false,2,null],["eras/2.0-rc1","linux-2.0-rc1",false,5,null]]' \
		"$(printf '%s' "$OUT" | jq -c '[.trees[] | [.branch, .name, .created, .files, .error]]')"
assert_eq "the same tips" "$first" "$(git -C repo.git rev-parse eras/1.0 eras/2.0-rc1)"

T_NAME="a directory of trees"
mkdir dir && tar -xf trees.tar -C dir
run_kb 0 import --repo dir.git --trees dir/ --prefix old/ &&
	assert_eq "the same trees, under the prefix" \
		"$(git -C repo.git rev-parse 'eras/1.0^{tree}' 'eras/2.0-rc1^{tree}')" \
		"$(git -C dir.git rev-parse 'old/1.0^{tree}' 'old/2.0-rc1^{tree}')"
run_kb 0 import --repo repo.git --trees dir &&
	assert_contains "already imported from the tarball" \
		"eras/1.0         linux-1.0            already imported" "$OUT"

T_NAME="members named ./linux-..."
tar -cJf dot.tar.xz -C dir .
run_kb 0 import --repo repo.git --trees dot.tar.xz &&
	assert_eq "the same branches, nothing new" \
"eras/1.0         linux-1.0            already imported $(git -C repo.git rev-parse --short=12 eras/1.0)
eras/2.0-rc1     linux-2.0-rc1        already imported $(git -C repo.git rev-parse --short=12 eras/2.0-rc1)" "$OUT"

T_NAME="a tree changed"
printf 'int dev_load_1_fixed;\n' > dir/linux-1.0/net/core/dev.c
run_kb 0 import --repo repo.git --trees dir --json &&
	assert_eq "a new commit on the old tip, the other tree unchanged" \
		"true $(echo "$first" | head -1) false" \
		"$(printf '%s' "$OUT" | jq -r '.trees[0].created') $(git -C repo.git rev-parse eras/1.0^) $(printf '%s' "$OUT" | jq -r '.trees[1].created')"

T_NAME="errors"
run_kb 1 import --repo repo.git --trees nothing.tar.xz &&
	assert_eq "a missing tarball" "-                nothing.tar.xz       error: cannot read 'nothing.tar.xz': No such file or directory" "$OUT"
mkdir empty
run_kb 1 import --repo repo.git --trees empty &&
	assert_eq "a directory without trees" "-                empty                error: 'empty' holds no tree (a directory with files)" "$OUT"
run_kb 1 import --repo repo.git --trees trees.tar.xz --prefix 'bad..' &&
	assert_contains "a prefix that makes no branch name" \
		"error: 'bad..1.0' (from 'linux-1.0/') is not a valid branch name" "$OUT"

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
assert_eq "three branches, all created" \
	'[["eras/2.6.32","linux-2.6.32",true],["eras/2.6.36","linux-2.6.36",true],["eras/2.6.38-rc8","linux-2.6.38-rc8",true]]' \
	"$(printf '%s' "$OUT" | jq -c '[.trees[] | [.branch, .name, .created]]')"
tips=$(git -C eras.git rev-parse eras/2.6.32 eras/2.6.36 eras/2.6.38-rc8)
# every member that is not a directory, per tree, and a few files read back
tar -tvJf "$ERAS" | awk '$1 !~ /^d/ { split($6, p, "/"); if (p[2] != "") n[p[1]]++ }
	END { for (t in n) print t, n[t] }' | sort > members
for b in 2.6.32 2.6.36 2.6.38-rc8; do
	echo "linux-$b $(git -C eras.git ls-tree -r eras/$b | wc -l)"
done > imported
assert_file_eq "as many files as the tarball has" members imported
mkdir x && tar -xJf "$ERAS" -C x linux-2.6.32/Makefile linux-2.6.32/net/core/dev.c \
	linux-2.6.36/net/core/dev.c linux-2.6.38-rc8/net/ipv4/ipip.c linux-2.6.38-rc8/scripts/setlocalversion
for f in linux-2.6.32/Makefile linux-2.6.32/net/core/dev.c linux-2.6.36/net/core/dev.c \
	linux-2.6.38-rc8/net/ipv4/ipip.c linux-2.6.38-rc8/scripts/setlocalversion; do
	b=eras/${f%%/*}; b=${b/linux-/}
	assert_eq "$f: the tarball's bytes" "$(git hash-object "x/$f")" \
		"$(git -C eras.git rev-parse "$b:${f#*/}")"
done
assert_eq "an executable stays executable" 100755 \
	"$(git -C eras.git ls-tree eras/2.6.38-rc8 scripts/setlocalversion | cut -c1-6)"
assert_eq "the vulnerable dev_load of 2.6.32" 1 \
	"$(git -C eras.git show eras/2.6.32:net/core/dev.c | grep -c 'if (!dev && capable(CAP_NET_ADMIN))')"
run_kb 0 import --repo eras.git --trees "$ERAS" --json
assert_eq "imported again: nothing created" "false false false" \
	"$(printf '%s' "$OUT" | jq -r '[.trees[].created] | join(" ")')"
assert_eq "the same tips" "$tips" "$(git -C eras.git rev-parse eras/2.6.32 eras/2.6.36 eras/2.6.38-rc8)"
finish
