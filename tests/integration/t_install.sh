#!/usr/bin/env bash
# make install and make uninstall: into a temporary PREFIX, the installed
# kbackport run from another directory on the era fixtures gives the dev
# binary's verdicts and reads its data under PREFIX; --version, the man
# page, the bash completion; into DESTDIR, the staged layout; uninstall
# leaves nothing, not even a directory install made.
source "$(dirname "$0")/../lib.sh"
T_SUITE=install
hermetic
# make is run from here, outside any make that started this test
make_kb() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP_DIR" --no-print-directory "$@"; }
PREFIX=$TMP/opt/kb
KB=$PREFIX/bin/kbackport

# ---- install into a prefix ----
T_NAME=install
make_kb install PREFIX="$PREFIX" >"$TMP/install.out" 2>&1
assert_eq "make install exits 0" "0 installed kbackport in $PREFIX" "$? $(tail -1 "$TMP/install.out")"
expected_files() {	# ROOT: every file install writes under ROOT
	printf '%s\n' bin/kbackport share/man/man1/kbackport.1 \
		share/bash-completion/completions/kbackport share/kbackport/.installed
	(cd "$TOP_DIR" && find tests/cases.yaml tests/qemu/guest.c tests/kernel/kbackport.config \
		tests/kunit backports -type f | sed 's|^|share/kbackport/|')
}
assert_eq "the files installed" "$(expected_files | LC_ALL=C sort)" \
	"$(cd "$PREFIX" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)"
assert_eq "the binary is executable" yes "$([ -x "$KB" ] && echo yes)"
assert_file_eq "the data as in the source tree" "$TOP_DIR/tests/cases.yaml" "$PREFIX/share/kbackport/tests/cases.yaml"

# ---- --version ----
T_NAME=version
want=$(git -C "$TOP_DIR" describe --always --dirty 2>/dev/null || head -1 "$TOP_DIR/VERSION" 2>/dev/null || echo unknown)
run_kb 0 --version && assert_eq "dev binary: git describe" "kbackport $want" "$OUT"
KBACKPORT=$KB run_kb 0 --version && assert_eq "installed binary: the same" "kbackport $want" "$OUT"
KBACKPORT=$KB run_kb 0 version && assert_eq "version, the command" "kbackport $want" "$OUT"
run_kb 0 --help && assert_contains "--help names --version" "'kbackport --version' (or 'kbackport version') prints the version." "$OUT"

# ---- the installed binary, elsewhere, on the era fixtures ----
T_NAME=eras
era_dir() {	# DIR: the era repositories and branches.yaml, no backports/ nor tests/
	mkdir -p "$1"
	"$FIXTURES/make-era-repos.sh" "$1/repos" >/dev/null
	cp "$FIXTURES/eras/branches.yaml" "$1/branches.yaml"
}
era_dir "$TMP/dev"
era_dir "$TMP/elsewhere"
verdicts() { jq -c '[.branches[] | {name, verdict, apply: .apply.status, variant: .apply.variant, lanes: [.lanes[] | [.kind, .build, .verdict]]}]' "$1"; }
(cd "$TMP/dev" && "$KBACKPORT" run --fix "$TOP_DIR/backports/CVE-2011-1019") >"$TMP/dev.out" 2>&1
assert_eq "dev binary: kbackport run exits 1 (a conflict)" 1 "$?"
(cd "$TMP/elsewhere" && env -u KBACKPORT_DATADIR "$KB" run --fix "$PREFIX/share/kbackport/backports/CVE-2011-1019") >"$TMP/inst.out" 2>&1
assert_eq "installed binary: kbackport run exits 1 too" 1 "$?"
assert_eq "the same verdicts, lanes and variants" "$(verdicts "$TMP/dev/reports/latest/results.json")" \
	"$(verdicts "$TMP/elsewhere/reports/latest/results.json")"
assert_eq "...which are the eras' ones" \
	"2.6.31.y not-affected|2.6.32.y skipped|2.6.35.y skipped|2.6.37.y skipped|4.19.y skipped|vendor-fixed skipped|vendor-reworked conflict" \
	"$(jq -r '[.branches[] | "\(.name) \(.verdict)"] | join("|")' "$TMP/elsewhere/reports/latest/results.json")"
assert_eq "the same backport commits" "$(git -C "$TMP/dev/repos/linux" for-each-ref --format='%(refname) %(objectname)' refs/heads/backport)" \
	"$(git -C "$TMP/elsewhere/repos/linux" for-each-ref --format='%(refname) %(objectname)' refs/heads/backport)"
# its data is PREFIX's: without the installed cases.yaml, run says where it looked
mv "$PREFIX/share/kbackport/tests/cases.yaml" "$TMP/cases.yaml"
(cd "$TMP/elsewhere" && env -u KBACKPORT_DATADIR "$KB" run --fix "$PREFIX/share/kbackport/backports/CVE-2011-1019") >/dev/null 2>"$TMP/err"
assert_eq "the installed binary reads its data under PREFIX" \
	"2 error: cannot open '$PREFIX/share/kbackport/tests/cases.yaml': No such file or directory" "$? $(cat "$TMP/err")"
mv "$TMP/cases.yaml" "$PREFIX/share/kbackport/tests/cases.yaml"

# ---- the man page ----
T_NAME=man
if command -v man >/dev/null; then
	MANWIDTH=80 man -l "$PREFIX/share/man/man1/kbackport.1" >"$TMP/man.txt" 2>"$TMP/man.err"
	assert_eq "man -l renders it without a warning" "0 " "$? $(cat "$TMP/man.err")"
	assert_eq "the title" "KBACKPORT(1)                     User Commands                    KBACKPORT(1)" \
		"$(head -1 "$TMP/man.txt")"
	assert_eq "a section per command, in --help's order" \
		"KBACKPORT IMPORT|KBACKPORT APPLY|KBACKPORT AUDIT|KBACKPORT BUILD|KBACKPORT TEST|KBACKPORT RUN|KBACKPORT REPORT|KBACKPORT CI-MATRIX|KBACKPORT KTAP|KBACKPORT FIX" \
		"$(grep '^KBACKPORT [A-Z-]*$' "$TMP/man.txt" | paste -sd'|')"
	assert_contains "a command's --help text in its section" "$("$KBACKPORT" ci-matrix --help | sed -n 2p)" \
		"$(sed -n '/^KBACKPORT CI-MATRIX$/,/^KBACKPORT KTAP$/p' "$TMP/man.txt")"
	assert_contains "a backslash of --help kept" 'with any of " : < > | * ? \ / % in NAME' "$(cat "$TMP/man.txt")"
	assert_contains "the version in the footer" "kbackport $want" "$(tail -1 "$TMP/man.txt")"
	if command -v groff >/dev/null; then
		assert_eq "groff -ww: no warning" "" "$(groff -man -ww -z "$PREFIX/share/man/man1/kbackport.1" 2>&1)"
	fi
else
	skip "man is not installed (Debian: man-db)"
fi

# ---- bash completion ----
T_NAME=completion
complete_kb() {	# WORDS...: what completing the last word offers
	(cd "$TMP/elsewhere" && PATH=$PREFIX/bin:$PATH bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kbackport
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | paste -sd" "' _ \
		"$PREFIX/share/bash-completion/completions/kbackport" "$@")
}
assert_eq "a command" "report run" "$(complete_kb kbackport r)"
assert_eq "--version" "--version" "$(complete_kb kbackport --ver)"
assert_eq "an option of the command" "--branch" "$(complete_kb kbackport run --br)"
assert_eq "every option of ci-matrix" "--branch --config --format --help" "$(complete_kb kbackport ci-matrix --)"
assert_eq "a branch from ./branches.yaml" "2.6.31.y 2.6.32.y 2.6.35.y 2.6.37.y" "$(complete_kb kbackport run --branch 2.6.3)"
cp "$TMP/elsewhere/branches.yaml" "$TMP/other.yaml" && sed -i 's/name: vendor-fixed/name: "vendor fixed"/' "$TMP/other.yaml"
assert_eq "a branch from --config's file, quotes dropped" "vendor fixed|vendor-reworked" \
	"$(complete_kb kbackport apply --config "$TMP/other.yaml" -b vendor | sed 's/ vendor-/|vendor-/')"
mkdir -p "$TMP/fixes/backports" && cp -r "$TOP_DIR/backports/CVE-2011-1019" "$TMP/fixes/backports/"
cp "$TMP/elsewhere/branches.yaml" "$TMP/fixes/"
assert_eq "a fix from backports/ beside the config" "$TMP/fixes/backports/CVE-2011-1019" \
	"$(complete_kb kbackport run --config "$TMP/fixes/branches.yaml" --fix "$TMP/fixes/backports/C")"
assert_eq "the values --help lists" "github gitlab json" "$(complete_kb kbackport ci-matrix --format '')"

# ---- uninstall ----
T_NAME=uninstall
make_kb uninstall PREFIX="$PREFIX" >"$TMP/uninstall.out" 2>&1
assert_eq "make uninstall exits 0" "0 uninstalled kbackport from $PREFIX" "$? $(tail -1 "$TMP/uninstall.out")"
assert_eq "nothing left, not an empty directory install made" "" "$(find "$TMP/opt" 2>/dev/null)"
make_kb uninstall PREFIX="$PREFIX" >"$TMP/uninstall.out" 2>&1
assert_contains "again: nothing installed" "error: no kbackport installed in '$PREFIX'" "$(cat "$TMP/uninstall.out")"

# ---- DESTDIR: staged as a package would be, directories that were there kept ----
T_NAME=destdir
STAGE=$TMP/stage
mkdir -p "$STAGE/usr/share/man/man1" && touch "$STAGE/usr/share/man/man1/other.1"
make_kb install DESTDIR="$STAGE" PREFIX=/usr >"$TMP/install.out" 2>&1
assert_eq "make install DESTDIR= exits 0" 0 "$?"
assert_eq "the files under DESTDIR/PREFIX" "$({ expected_files | sed 's|^|usr/|'; echo usr/share/man/man1/other.1; } | LC_ALL=C sort)" \
	"$(cd "$STAGE" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)"
assert_contains "the data path is PREFIX's, without DESTDIR" "/usr/share/kbackport" \
	"$(strings "$STAGE/usr/bin/kbackport" | grep -x '/usr/share/kbackport')"
assert_eq "the list of what was installed holds no DESTDIR" "" "$(grep -F "$STAGE" "$STAGE/usr/share/kbackport/.installed")"
before=$(cd "$STAGE" && find . | LC_ALL=C sort)
make_kb install DESTDIR="$STAGE" PREFIX=/usr >"$TMP/install.out" 2>&1
assert_eq "installing again replaces the install, the list the same" "0 $before" "$? $(cd "$STAGE" && find . | LC_ALL=C sort)"
make_kb uninstall DESTDIR="$STAGE" PREFIX=/usr >"$TMP/uninstall.out" 2>&1
assert_eq "uninstall: what was there before, only" "./usr ./usr/share ./usr/share/man ./usr/share/man/man1 ./usr/share/man/man1/other.1" \
	"$(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort | paste -sd' ')"
make_kb install PREFIX=relative >"$TMP/install.out" 2>&1
assert_eq "a relative PREFIX is refused" "error: PREFIX must be an absolute path, not 'relative'" \
	"$(grep ^error "$TMP/install.out")"
finish
