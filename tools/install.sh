#!/bin/sh
# tools/install.sh install DESTDIR PREFIX BINARY MANPAGE
# tools/install.sh uninstall DESTDIR PREFIX
#
# Run by `make install` and `make uninstall`. Install writes, under
# DESTDIR/PREFIX:
#   bin/kbackport                                  the binary
#   share/kbackport/                               the data it reads there
#                                                  (cli_data_path()) and the
#                                                  fixes of backports/
#   share/man/man1/kbackport.1                     kbackport(1)
#   share/bash-completion/completions/kbackport    bash completion
# and share/kbackport/.installed, the list of every file it wrote and every
# directory it made (without DESTDIR, as a package would put them), that
# uninstall removes (files, then the directories left empty, deepest first)
# and nothing else.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:?usage: tools/install.sh install|uninstall DESTDIR PREFIX [BINARY MANPAGE]}
destdir=${2?}
prefix=${3:?PREFIX is empty}
case $prefix in
/*) ;;
*) echo "error: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;;
esac
root=$destdir$prefix
datadir=$root/share/kbackport
manifest=$datadir/.installed

# The data the binary reads through KB_DATADIR (tools/kbackport/cli.c
# cli_data_path() callers), and the fixes.
data_files() {
	(cd "$top" && find tests/cases.yaml tests/qemu/guest.c tests/kernel/kbackport.config \
		tests/kunit backports -type f | LC_ALL=C sort)
}

# mkdirs DIR: make DIR and its missing parents, each one made listed
mkdirs() {
	[ -d "$1" ] && return 0
	mkdirs "$(dirname "$1")"
	mkdir "$1"
	echo "d ${1#"$destdir"}" >> "$list"
}

# put MODE SRC DEST
put() {
	mkdirs "$(dirname "$3")"
	install -m "$1" "$2" "$3"
	echo "f ${3#"$destdir"}" >> "$list"
}

install_all() {
	bin=${1:?no binary}
	man=${2:?no man page}
	# an earlier install is removed first, so the list stays exact
	[ -f "$manifest" ] && uninstall_all >/dev/null
	list=$(mktemp)
	trap 'rm -f "$list"' EXIT
	put 755 "$bin" "$root/bin/kbackport"
	put 644 "$man" "$root/share/man/man1/kbackport.1"
	put 644 "$top/tools/completion.bash" "$root/share/bash-completion/completions/kbackport"
	data_files | while IFS= read -r f; do
		put 644 "$top/$f" "$datadir/$f"
	done
	echo "f ${manifest#"$destdir"}" >> "$list"
	install -m 644 "$list" "$manifest"
	echo "installed kbackport in $root"
}

uninstall_all() {
	if [ ! -f "$manifest" ]; then
		echo "error: no kbackport installed in '$root' (no $manifest)" >&2
		exit 1
	fi
	list=$(cat "$manifest")
	printf '%s\n' "$list" | sed -n 's/^f //p' | while IFS= read -r f; do rm -f "$destdir$f"; done
	printf '%s\n' "$list" | sed -n 's/^d //p' | sort -r | while IFS= read -r d; do
		rmdir "$destdir$d" 2>/dev/null || true
	done
	echo "uninstalled kbackport from $root"
}

case $what in
install) shift 3; install_all "$@" ;;
uninstall) uninstall_all ;;
*) echo "usage: tools/install.sh install|uninstall DESTDIR PREFIX [BINARY MANPAGE]" >&2; exit 2 ;;
esac
