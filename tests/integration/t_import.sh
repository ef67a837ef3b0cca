#!/usr/bin/env bash
# kbackport import on generated tarballs (no apt: a version asked for that
# is not installed is read from <downloads>/<package>_<version>/usr/src/,
# where `apt-get download` + `dpkg-deb -x` would leave it). A damaged
# member is an error naming it, exit 1, never a crash, and the branch is
# not written.
source "$(dirname "$0")/../lib.sh"
T_SUITE=import
hermetic
cd "$TMP" || exit 1
P=linux-source-9.9
B=stable/9.9.y

# tarball VERSION [damage]: a small source tree as <downloads>/..., whose
# header of net/core/dev.c (or the first header: first; or nothing:
# truncated, the tarball cut in dev.c's data) is damaged
tarball() {
	local dir=dl/${P}_$1/usr/src
	mkdir -p "$dir"
	python3 - "$dir/$P.tar" "${2:-}" <<'PY'
import io, sys, tarfile
path, damage = sys.argv[1], sys.argv[2]
out = io.BytesIO()
with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
    for name, data in [("Makefile", b"VERSION = 9\n"), ("README", b"x\n"),
                       ("net/core/dev.c", b"int dev_load;\n" * 100), ("net/ipv4/ipip.c", b"y\n")]:
        info = tarfile.TarInfo(f"linux-source-9.9/{name}")
        info.size, info.mtime, info.mode = len(data), 0, 0o644
        tar.addfile(info, io.BytesIO(data))
data = bytearray(out.getvalue())
at = data.find(b"linux-source-9.9/net/core/dev.c")
if damage == "header":
    data[at + 5] ^= 0x20          # one byte of the name: the checksum no longer matches
elif damage == "first":
    data[0] ^= 0x20
elif damage == "truncated":
    data = data[:at + 512 + 700]  # in the middle of dev.c's data
open(path, "wb").write(data)
PY
	xz -f "$dir/$P.tar"
}
import() { run_kb "$1" import --repo repo.git --downloads dl --package "$P=$2"; }

T_NAME="a sound tarball"
tarball 1.0-1
import 0 1.0-1 &&
	test_expect_success 'imported' '
		printf "%s\n" "$OUT" &&
		[[ $OUT == *"$B   $P 1.0-1"* ]]
	'
test_expect_success 'every file' '
	test "$(git -C repo.git ls-tree -r --name-only $B | tr "\n" " " | sed "s/ $//")" = \
		"Makefile README net/core/dev.c net/ipv4/ipip.c"
'
tip=$(git -C repo.git rev-parse $B)

T_NAME="a damaged header"
tarball 1.1-1 header
import 1 1.1-1 &&
	test_expect_success 'an error naming the member, not a crash' '
		test_eq "$B   $P     error: '\''dl/${P}_1.1-1/usr/src/$P.tar.xz'\'': damaged member at byte 2048 (after '\''$P/README'\''): Damaged tar archive" "$OUT"
	'
test_expect_success 'the branch is not written' '
	test "$(git -C repo.git rev-parse $B)" = "$tip"
'
T_NAME="a damaged first header"
tarball 1.2-1 first
import 1 1.2-1 &&
	test_expect_success 'not a tarball at all' '
		printf "%s\n" "$OUT" &&
		[[ $OUT == *"error: cannot open '\''dl/${P}_1.2-1/usr/src/$P.tar.xz'\'': Unrecognized archive format"* ]]
	'
T_NAME="a tarball cut in a file"
tarball 1.3-1 truncated
import 1 1.3-1 &&
	test_expect_success 'an error naming the file' '
		printf "%s\n" "$OUT" &&
		[[ $OUT == *"error: cannot read '\''net/core/dev.c'\'' from the tarball: "* ]]
	'
test_expect_success 'the branch is not written' '
	test "$(git -C repo.git rev-parse $B)" = "$tip"
'
# members read as for --trees (t_import_trees.sh has every kind): a
# sparse file with its holes, a path given twice refused
T_NAME="members"
mkdir -p sp/$P dl/${P}_1.4-1/usr/src dl/${P}_1.5-1/usr/src
truncate -s 100000 sp/$P/holes && printf 'Makefile\n' > sp/$P/Makefile
tar --sparse --format=gnu -cJf dl/${P}_1.4-1/usr/src/$P.tar.xz -C sp $P
import 0 1.4-1 &&
	test_expect_success 'a sparse member: its bytes, holes as zeros' '
		test "$(git -C repo.git ls-tree -l $B holes | awk "{ print \$3, \$4 }")" = \
			"$(git hash-object sp/$P/holes) 100000"
	'
tip=$(git -C repo.git rev-parse $B)
python3 - dl/${P}_1.5-1/usr/src/$P.tar <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.USTAR_FORMAT) as tar:
    for data in (b"old\n", b"new\n"):
        info = tarfile.TarInfo("linux-source-9.9/Makefile")
        info.size, info.mtime, info.mode = len(data), 0, 0o644
        tar.addfile(info, io.BytesIO(data))
PY
xz dl/${P}_1.5-1/usr/src/$P.tar
import 1 1.5-1 &&
	test_expect_success 'a path given twice: refused' '
		test_eq "$B   $P     error: '\''dl/${P}_1.5-1/usr/src/$P.tar.xz'\'': '\''Makefile'\'' is in it twice" "$OUT"
	'
test_expect_success 'the branch is not written' '
	test "$(git -C repo.git rev-parse $B)" = "$tip"
'
T_NAME="--json"
run_kb 1 import --repo repo.git --downloads dl --package "$P=1.1-1" --json &&
	test_expect_success 'the error in the document' '
		printf "%s\n" "null '\''dl/${P}_1.1-1/usr/src/$P.tar.xz'\'': damaged member at byte 2048 (after '\''$P/README'\''): Damaged tar archive" >want &&
		printf "%s\n" "$(printf "%s" "$OUT" | jq -r ".imports[0] | \"\(.commit) \(.error)\"")" >got &&
		test_cmp want got
	'
# two imports at once onto a new branch: never one replacing the other.
# Each commit reported created stays in the branch's history, and the
# reflog never moves the branch from anything but its last value.
T_NAME="two imports at once"
tarball 2.0-1 && tarball 2.1-1
rounds=${CONCURRENT_ROUNDS:-$([ -n "${KB_VALGRIND:-}" ] && echo 3 || echo 100)} ok=0
# import_rounds: $rounds rounds of the two imports, $ok of them with no
# imported commit replaced; a line for each other round
import_rounds() {
	local i v c lost chain
	for i in $(seq "$rounds"); do
		git -C repo.git update-ref -d refs/heads/$B 2>/dev/null
		git -C repo.git config core.logAllRefUpdates true
		for v in 2.0-1 2.1-1; do
			${KB_VALGRIND:-} "$KBACKPORT" import --repo repo.git --downloads dl --package "$P=$v" --json \
				>"imp-$v.json" 2>/dev/null &
		done
		wait
		lost=
		for v in 2.0-1 2.1-1; do
			c=$(jq -r '.imports[0] | select(.created) | .commit' "imp-$v.json" 2>/dev/null)
			[ -z "$c" ] || git -C repo.git merge-base --is-ancestor "$c" $B || lost="$lost $v:$c"
		done
		chain=$(awk 'NR > 1 && $1 != prev { print "broken" } { prev = $2 }' "repo.git/logs/refs/heads/$B")
		if [ -z "$lost$chain" ]; then ok=$((ok + 1)); else echo "round $i: replaced:$lost $chain"; fi
	done
}
test_expect_success "$rounds rounds: no imported commit replaced" '
	import_rounds &&
	test "$ok" = "$rounds"
'
finish
