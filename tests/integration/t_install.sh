#!/usr/bin/env bash
# make install and make uninstall: into a temporary PREFIX, the installed
# kbackport run from another directory on the era fixtures gives the dev
# binary's verdicts and reads its data under PREFIX; --version, the man
# page, the bash completion; into DESTDIR, the staged layout; uninstall
# leaves nothing, not even a directory install made.
source "$(dirname "$0")/../lib.sh"
T_SUITE=install
hermetic
cd "$TMP"	# the blocks' files (expect, got) go here
# make is run from here, outside any make that started this test
make_kb() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP_DIR" --no-print-directory "$@"; }
PREFIX=$TMP/opt/kb
KB=$PREFIX/bin/kbackport

# ---- install into a prefix ----
T_NAME=install
make_kb install PREFIX="$PREFIX" >"$TMP/install.out" 2>&1
install_rc=$?
test_expect_success 'make install exits 0' '
	test "$install_rc $(tail -1 "$TMP/install.out")" = "0 installed kbackport in $PREFIX"
'
# the binary's table of the data it reads (lib/datafiles.c), as make install printed it
TABLE=$("$TOP_DIR/build/list-data")
expected_files() {	# every file install writes under PREFIX: the table's, a folder's every file
	printf '%s\n' bin/kbackport share/bash-completion/completions/kbackport share/kbackport/.installed
	# the man pages: kbackport(1), one per command, the three file formats
	printf 'share/man/man1/kbackport.1\n'
	"$KBACKPORT" --help | sed -n '/^commands:$/,/^$/s|^  \([a-z][a-z-]*\) .*|share/man/man1/kbackport-\1.1|p'
	printf 'share/man/man5/kbackport-%s.5\n' branches.yaml fix.yaml cases
	printf '%s\n' "$TABLE" | while IFS= read -r p; do
		case $p in
		*/) (cd "$TOP_DIR" && find "${p%/}" -type f) ;;
		*) printf '%s\n' "$p" ;;
		esac
	done | sed 's|^|share/kbackport/|'
}
test_expect_success 'the table names every data file the binary reads' '
	test_eq "data/guest/guest.c data/kernel/kbackport.config data/kernel/compat/rules data/kernel/compat/merge_config.sh backports/" "$(printf "%s\n" "$TABLE" | paste -sd" ")"
'
test_expect_success 'the files installed: the table'\''s, no more, no fewer' '
	test_eq "$(expected_files | LC_ALL=C sort)" "$(cd "$PREFIX" && find . -type f | sed "s|^\./||" | LC_ALL=C sort)"
'
test_expect_success 'the build compatibility rules installed' '
	test_cmp "$TOP_DIR/data/kernel/compat/rules" "$PREFIX/share/kbackport/data/kernel/compat/rules"
'
test_expect_success '...and the file a rule adds, executable as in the source tree' '
	test -x "$PREFIX/share/kbackport/data/kernel/compat/merge_config.sh" &&
	cmp -s "$TOP_DIR/data/kernel/compat/merge_config.sh" "$PREFIX/share/kbackport/data/kernel/compat/merge_config.sh"
'
test_expect_success 'the binary is executable' '
	test -x "$KB"
'
test_expect_success 'the data as in the source tree' '
	test_cmp "$TOP_DIR/data/guest/guest.c" "$PREFIX/share/kbackport/data/guest/guest.c"
'
test_expect_success '...the fixes with their tests' '
	test_cmp "$TOP_DIR/backports/CVE-2011-1019/tests/cases.yaml" "$PREFIX/share/kbackport/backports/CVE-2011-1019/tests/cases.yaml"
'

# ---- --version ----
T_NAME=version
g=$(git -C "$TOP_DIR" describe --always --dirty --exclude '*' 2>/dev/null)
lg=$(pkg-config --modversion libgit2 2>/dev/null)
want="$(head -1 "$TOP_DIR/VERSION")${g:++g$g} (libgit2 $lg)"
test_expect_success 'dev binary: the release, its commit, libgit2' '
	run_kb 0 --version &&
	test "$OUT" = "kbackport $want"
'
test_expect_success 'installed binary: the same' '
	KBACKPORT=$KB run_kb 0 --version &&
	test "$OUT" = "kbackport $want"
'
test_expect_success 'version, the command' '
	KBACKPORT=$KB run_kb 0 version &&
	test "$OUT" = "kbackport $want"
'
test_expect_success '--help names --version' '
	run_kb 0 --help &&
	[[ $OUT == *"'\''kbackport --version'\'' (or '\''kbackport version'\'') prints the version."* ]]
'
test_expect_success 'help apply: apply'\''s help' '
	run_kb 0 help apply &&
	[[ $(head -1 <<<"$OUT") == *"usage: kbackport apply"* ]]
'
test_expect_success 'help of no command' '
	run_kb 2 help aply &&
	printf "%s\n" "error: '\''aply'\'' is not a kbackport command
hint: did you mean '\''apply'\''?
See '\''kbackport --help'\''." > want &&
	printf "%s\n" "$ERR" > got &&
	test_cmp want got
'

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
dev_rc=$?
test_expect_success 'dev binary: kbackport run exits 1 (a conflict)' '
	test "$dev_rc" = 1
'
(cd "$TMP/elsewhere" && env -u KBACKPORT_DATADIR "$KB" run --fix "$PREFIX/share/kbackport/backports/CVE-2011-1019") >"$TMP/inst.out" 2>&1
inst_rc=$?
test_expect_success 'installed binary: kbackport run exits 1 too' '
	test "$inst_rc" = 1
'
test_expect_success 'the same verdicts, lanes and variants' '
	test_eq "$(verdicts "$TMP/dev/reports/latest/results.json")" "$(verdicts "$TMP/elsewhere/reports/latest/results.json")"
'
test_expect_success '...which are the eras'\'' ones' '
	test_eq "2.6.31.y not-affected|2.6.32.y skipped|2.6.35.y skipped|2.6.37.y skipped|4.19.y skipped|vendor-fixed skipped|vendor-reworked conflict" "$(jq -r '\''[.branches[] | "\(.name) \(.verdict)"] | join("|")'\'' "$TMP/elsewhere/reports/latest/results.json")"
'
test_expect_success 'the same backport commits' '
	test_eq "$(git -C "$TMP/dev/repos/linux" for-each-ref --format="%(refname) %(objectname)" refs/heads/backport)" "$(git -C "$TMP/elsewhere/repos/linux" for-each-ref --format="%(refname) %(objectname)" refs/heads/backport)"
'
# its data is PREFIX's: without the installed guest program, run says where it looked
mv "$PREFIX/share/kbackport/data/guest/guest.c" "$TMP/guest.c"
(cd "$TMP/elsewhere" && env -u KBACKPORT_DATADIR "$KB" run --fix "$PREFIX/share/kbackport/backports/CVE-2011-1019") >/dev/null 2>"$TMP/err"
guest_rc=$?
test_expect_success 'the installed binary reads its data under PREFIX: a missing file is an error naming it' '
	test_eq "2 error: missing data file '\''$PREFIX/share/kbackport/data/guest/guest.c'\'' (the guest program; nor is there '\''$TMP/elsewhere/data/guest/guest.c'\'' beside the branches file): make install puts it there, KBACKPORT_DATADIR says where it is" "$guest_rc $(cat "$TMP/err")"
'
mv "$TMP/guest.c" "$PREFIX/share/kbackport/data/guest/guest.c"

# ---- the installed binary on an era lane's build setup ----
T_NAME=era-build
# a tree shaped like 2.6.32's configuration tools and timeconst.pl (no
# kernel: the build stops at make, after the rules made the tree to build)
old_tree() {	# DIR: a repository with the tree on master
	mkdir -p "$1/scripts/kconfig" "$1/kernel"
	printf 'config:\n\t$(Q)$< -n $(Kconfig)\nallnoconfig: $(obj)/conf\n' > "$1/scripts/kconfig/Makefile"
	printf 'int main(void) { return 0; }\n' > "$1/scripts/kconfig/conf.c"
	printf 'if (defined(@val)) {\n}\n' > "$1/kernel/timeconst.pl"
	git init -q "$1" && git -C "$1" add -A && git -C "$1" commit -qm v2.6.32
	printf 'repo: %s\nbranches:\n  - {name: v2.6.32, ref: master}\n' "$(basename "$1")" > "$(dirname "$1")/branches.yaml"
}
era_build() {	# KB DIR: the installed binary KB builds the tree of DIR, from DIR; the lane's build log in DIR/log
	(cd "$2" && env -u KBACKPORT_DATADIR "$1" build --fix "$TOP_DIR/backports/CVE-2011-1019" --no-overlay \
		--jobs 1 --json) >"$2/build.json" 2>"$2/build.err"
	echo $? >"$2/rc"
	jq -r '.builds[0].log // empty' "$2/build.json" | xargs -r cat >"$2/log"
}
rules_applied() {	# DATADIR: the log's lines of the rules that hold for that tree
	cat <<-EOF
	compat rule 'timeconst-perl' ($1/data/kernel/compat/rules:19): replace kernel/timeconst.pl
	compat rule 'kconfig-tinyconfig' ($1/data/kernel/compat/rules:46): append to scripts/kconfig/Makefile
	compat rule 'kconfig-merge-config' ($1/data/kernel/compat/rules:51): add scripts/kconfig/merge_config.sh
	EOF
}
mkdir -p "$TMP/era-build" && old_tree "$TMP/era-build/old"
era_build "$KB" "$TMP/era-build"
test_expect_success 'the installed rules hold for the old tree, read from PREFIX' '
	rules_applied "$PREFIX/share/kbackport" >expect &&
	grep "compat rule" "$TMP/era-build/log" | sed "s/^### \[[0-9.]*s\] //" >got &&
	test_cmp expect got
'
test_expect_success '...the file a rule adds is the installed one, executable, in the tree built' '
	cmp "$PREFIX/share/kbackport/data/kernel/compat/merge_config.sh" "$TMP/era-build/work/src/v2.6.32/scripts/kconfig/merge_config.sh" &&
	test -x "$TMP/era-build/work/src/v2.6.32/scripts/kconfig/merge_config.sh"
'
mv "$PREFIX/share/kbackport/data/kernel/compat/rules" "$TMP/rules"
era_build "$KB" "$TMP/era-build"
test_expect_success 'without the installed rules: an error naming the file, nothing built' '
	test "$(cat "$TMP/era-build/rc")" = 2 &&
	test "$(cat "$TMP/era-build/build.err")" = "error: missing data file '"'"'$PREFIX/share/kbackport/data/kernel/compat/rules'"'"' (the build compatibility rules; nor is there '"'"'$TMP/era-build/data/kernel/compat/rules'"'"' beside the branches file): make install puts it there, KBACKPORT_DATADIR says where it is"
'
mv "$TMP/rules" "$PREFIX/share/kbackport/data/kernel/compat/rules"

# ---- the man page ----
T_NAME=man
if command -v man >/dev/null; then
	MANWIDTH=80 man -l "$PREFIX/share/man/man1/kbackport.1" >"$TMP/man.txt" 2>"$TMP/man.err"
	man_rc=$?
	test_expect_success 'man -l renders it without a warning' '
		test_eq "0 " "$man_rc $(cat "$TMP/man.err")"
	'
	test_expect_success 'the title' '
		test_eq "KBACKPORT(1)                     User Commands                    KBACKPORT(1)" "$(head -1 "$TMP/man.txt")"
	'
	test_expect_success 'a section per command, in --help'\''s order' '
		test_eq "KBACKPORT IMPORT|KBACKPORT APPLY|KBACKPORT AUDIT|KBACKPORT BUILD|KBACKPORT TEST|KBACKPORT RUN|KBACKPORT REPORT|KBACKPORT CI-MATRIX|KBACKPORT KTAP|KBACKPORT FIX|KBACKPORT PRUNE" "$(grep "^KBACKPORT [A-Z-]*\$" "$TMP/man.txt" | paste -sd"|")"
	'
	test_expect_success 'a command'\''s --help text in its section' '
		[[ $(sed -n "/^KBACKPORT CI-MATRIX\$/,/^KBACKPORT KTAP\$/p" "$TMP/man.txt") == *"$("$KBACKPORT" ci-matrix --help | sed -n 2p)"* ]]
	'
	test_expect_success 'a backslash of --help kept' '
		[[ $(cat "$TMP/man.txt") == *'\''with any of " : < > | * ? \ / % in NAME'\''* ]]
	'
	test_expect_success 'the version in the footer' '
		[[ $(tail -1 "$TMP/man.txt") == *"kbackport $want"* ]]
	'
	if command -v groff >/dev/null; then
		test_expect_success 'groff -ww: no warning' '
			test_eq "" "$(groff -man -ww -z "$PREFIX/share/man/man1/kbackport.1" 2>&1)"
		'
	fi
	# every page of a command and of a file format: no warning, its title and NAME
	for page in "$PREFIX"/share/man/man1/kbackport-*.1 "$PREFIX"/share/man/man5/*.5; do
		name=$(basename "$page") && name=${name%.*}
		MANWIDTH=80 man -l "$page" >"$TMP/man.txt" 2>"$TMP/man.err"
		page_rc=$?
		test_expect_success "$name: man -l renders it without a warning, groff -ww neither" '
			test_eq "0  " "$page_rc $(cat "$TMP/man.err") $(groff -man -t -ww -z "$page" 2>&1)"
		'
		test_expect_success "$name: its title, its NAME" '
			test_eq "$(echo "$name" | tr a-z A-Z)($(echo "$page" | sed "s/.*\.//")) $name -" "$(head -1 "$TMP/man.txt" | cut -d" " -f1) $(sed -n "/^NAME\$/{n;p}" "$TMP/man.txt" | awk "{print \$1, \$2}")"
		'
	done
	MANWIDTH=200 man -l "$PREFIX/share/man/man1/kbackport-apply.1" >"$TMP/man.txt" 2>/dev/null
	test_expect_success 'kbackport-apply(1): its --help'\''s options' '
		[[ $(cat "$TMP/man.txt") == *"$("$KBACKPORT" apply --help | grep -- "--max-fuzz N  " | sed "s/^ *//")"* ]]
	'
	test_expect_success 'kbackport-apply(1): its page under docs/ as the description' '
		[[ $(sed -n "/^DESCRIPTION\$/,\$p" "$TMP/man.txt") == *"Each (branch, fix) gets exactly one status:"* ]]
	'
	MANWIDTH=200 man -l "$PREFIX/share/man/man5/kbackport-branches.yaml.5" >"$TMP/man.txt" 2>/dev/null
	test_expect_success 'kbackport-branches.yaml(5): the format'\''s page' '
		[[ $(cat "$TMP/man.txt") == *"$(grep -m1 "^repo: " "$TOP_DIR/docs/branches.yaml.md" | cut -c1-30)"* ]]
	'
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
test_expect_success 'a command' '
	test "$(complete_kb kbackport r)" = "report run"
'
test_expect_success '--version' '
	test "$(complete_kb kbackport --ver)" = "--version"
'
test_expect_success 'an option of the command' '
	test "$(complete_kb kbackport run --br)" = "--branch"
'
test_expect_success 'every option of ci-matrix' '
	test "$(complete_kb kbackport ci-matrix --)" = "--branch --config --format --help"
'
test_expect_success 'a branch from ./branches.yaml' '
	test "$(complete_kb kbackport run --branch 2.6.3)" = "2.6.31.y 2.6.32.y 2.6.35.y 2.6.37.y"
'
cp "$TMP/elsewhere/branches.yaml" "$TMP/other.yaml" && sed -i 's/name: vendor-fixed/name: "vendor fixed"/' "$TMP/other.yaml"
test_expect_success 'a branch from --config'\''s file, quotes dropped' '
	test "$(complete_kb kbackport apply --config "$TMP/other.yaml" -b vendor | sed "s/ vendor-/|vendor-/")" = "vendor fixed|vendor-reworked"
'
mkdir -p "$TMP/fixes/backports" && cp -r "$TOP_DIR/backports/CVE-2011-1019" "$TMP/fixes/backports/"
cp "$TMP/elsewhere/branches.yaml" "$TMP/fixes/"
test_expect_success 'a fix from backports/ beside the config' '
	test "$(complete_kb kbackport run --config "$TMP/fixes/branches.yaml" --fix "$TMP/fixes/backports/C")" = "$TMP/fixes/backports/CVE-2011-1019"
'
test_expect_success 'prune --fix: a fix'\''s id' '
	test "$(complete_kb kbackport prune --config "$TMP/fixes/branches.yaml" --fix C)" = CVE-2011-1019
'
test_expect_success 'the values --help lists' '
	test "$(complete_kb kbackport ci-matrix --format "")" = "github gitlab json"
'
printf 'repo: r\nbranches:\n  - {name: 6.1.y, ref: a}\n  - {name: "6.12.y", ref: b}\n  - { name: '"'"'deb 6.1'"'"' , kernel: k}\n' > "$TMP/flow.yaml"
test_expect_success 'branch names in the flow style (quotes dropped, one has a space)' '
	test "$(complete_kb kbackport run --config "$TMP/flow.yaml" --branch "")" = "6.1.y 6.12.y deb 6.1"
'
test_expect_success 'fix: its subcommand, not files' '
	test "$(complete_kb kbackport fix "")" = new
'
test_expect_success 'help: the commands' '
	test "$(complete_kb kbackport help r)" = "report run"
'
mkdir -p "$TMP/fixes/sub/deeper"
test_expect_success 'the config found upward, and --fix offers the fix'\''s id' '
	test "$(cd "$TMP/fixes/sub/deeper" && PATH=$PREFIX/bin:$PATH bash -c '\''
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kbackport
		printf "%s\n" "${COMPREPLY[@]}"'\'' _ \
		"$PREFIX/share/bash-completion/completions/kbackport" kbackport apply --fix C)" = CVE-2011-1019
'
test_expect_success 'the options before the command' '
	test "$(complete_kb kbackport --)" = "--color --help --no-pager --version"
'
test_expect_success '-C DIR, then the command' '
	test "$(complete_kb kbackport -C "$TMP/fixes" --no-pager r)" = "report run"
'
test_expect_success '-C DIR: the config found from DIR' '
	test "$(complete_kb kbackport -C "$TMP/fixes/sub" apply --fix C)" = CVE-2011-1019
'
mkdir -p "$TMP/flow-dir" && cp "$TMP/flow.yaml" "$TMP/flow-dir/branches.yaml"
test_expect_success '-C DIR: a branch of DIR'\''s config' '
	test "$(complete_kb kbackport -C "$TMP/flow-dir" run --branch "")" = "6.1.y 6.12.y deb 6.1"
'

# ---- uninstall ----
T_NAME=uninstall
make_kb uninstall PREFIX="$PREFIX" >"$TMP/uninstall.out" 2>&1
uninstall_rc=$?
test_expect_success 'make uninstall exits 0' '
	test "$uninstall_rc $(tail -1 "$TMP/uninstall.out")" = "0 uninstalled kbackport from $PREFIX"
'
test_expect_success 'nothing left, not an empty directory install made' '
	test_eq "" "$(find "$TMP/opt" 2>/dev/null)"
'
make_kb uninstall PREFIX="$PREFIX" >"$TMP/uninstall.out" 2>&1
test_expect_success 'again: nothing installed' '
	[[ $(cat "$TMP/uninstall.out") == *"error: no kbackport installed in '\''$PREFIX'\''"* ]]
'

# ---- DESTDIR: staged as a package would be, directories that were there kept ----
T_NAME=destdir
STAGE=$TMP/stage
mkdir -p "$STAGE/usr/share/man/man1" && touch "$STAGE/usr/share/man/man1/other.1"
make_kb install DESTDIR="$STAGE" PREFIX=/usr >"$TMP/install.out" 2>&1
destdir_rc=$?
test_expect_success 'make install DESTDIR= exits 0' '
	test "$destdir_rc" = 0
'
test_expect_success 'the files under DESTDIR/PREFIX' '
	test_eq "$({ expected_files | sed "s|^|usr/|"; echo usr/share/man/man1/other.1; } | LC_ALL=C sort)" "$(cd "$STAGE" && find . -type f | sed "s|^\./||" | LC_ALL=C sort)"
'
test_expect_success 'the data path is PREFIX'\''s, without DESTDIR' '
	[[ $(strings "$STAGE/usr/bin/kbackport" | grep -x "/usr/share/kbackport") == *"/usr/share/kbackport"* ]]
'
test_expect_success 'the list of what was installed holds no DESTDIR' '
	! grep -F "$STAGE" "$STAGE/usr/share/kbackport/.installed"
'
before=$(cd "$STAGE" && find . | LC_ALL=C sort)
make_kb install DESTDIR="$STAGE" PREFIX=/usr >"$TMP/install.out" 2>&1
again_rc=$?
test_expect_success 'installing again replaces the install, the list the same' '
	test_eq "0 $before" "$again_rc $(cd "$STAGE" && find . | LC_ALL=C sort)"
'
make_kb uninstall DESTDIR="$STAGE" PREFIX=/usr >"$TMP/uninstall.out" 2>&1
test_expect_success 'uninstall: what was there before, only' '
	test_eq "./usr ./usr/share ./usr/share/man ./usr/share/man/man1 ./usr/share/man/man1/other.1" "$(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort | paste -sd" ")"
'

# ---- any PREFIX: quotes, backslashes, spaces, '$' ----
T_NAME=prefix-characters
W='we\ird b\\ '"'"'q'"'"' "dq" $HOME $$ $(touch pwned) `touch pwned` \b%s?#'
STAGE2=$TMP/stage2
make_kb install DESTDIR="$STAGE2" PREFIX="/opt/$W" >"$TMP/install.out" 2>&1
test_expect_success 'DESTDIR: installed under DESTDIR/PREFIX, as PREFIX says it' '
	test "$(tail -1 "$TMP/install.out")" = "installed kbackport in $STAGE2/opt/$W" &&
	expected_files | while IFS= read -r f; do printf "%s\n" "opt/$W/$f"; done | LC_ALL=C sort >expect &&
	(cd "$STAGE2" && find . -type f | sed "s|^\./||" | LC_ALL=C sort) >got &&
	test_cmp expect got
'
test_expect_success '...the binary'"'"'s data path is PREFIX'"'"'s, byte for byte' '
	strings "$STAGE2/opt/$W/bin/kbackport" | grep -qxF "/opt/$W/share/kbackport"
'
test_expect_success '...the list of what was installed names PREFIX'"'"'s paths' '
	grep -qxF "f /opt/$W/share/kbackport/data/kernel/compat/rules" "$STAGE2/opt/$W/share/kbackport/.installed"
'
make_kb uninstall DESTDIR="$STAGE2" PREFIX="/opt/$W" >"$TMP/uninstall.out" 2>&1
test_expect_success '...and uninstalled, nothing left' '
	test "$(tail -1 "$TMP/uninstall.out")" = "uninstalled kbackport from $STAGE2/opt/$W" &&
	test -z "$(find "$STAGE2" -mindepth 1)"
'
WP=$TMP/p/$W
make_kb install PREFIX="$WP" >"$TMP/install.out" 2>&1
mkdir -p "$TMP/era-w" && old_tree "$TMP/era-w/old"
era_build "$WP/bin/kbackport" "$TMP/era-w"
test_expect_success 'the binary installed there finds its data there: the rules it applies' '
	rules_applied "$WP/share/kbackport" >expect &&
	grep "compat rule" "$TMP/era-w/log" | sed "s/^### \[[0-9.]*s\] //" >got &&
	test_cmp expect got
'
make_kb uninstall PREFIX="$WP" >"$TMP/uninstall.out" 2>&1
test_expect_success '...uninstalled, nothing left; nothing in PREFIX ran' '
	test -z "$(find "$TMP/p" -mindepth 1)" &&
	test -z "$(find "$TMP" "$TOP_DIR" -maxdepth 3 -name pwned)"
'
make_kb install PREFIX="$TMP/a"$'\t'"b" >"$TMP/install.out" 2>&1
test_expect_success 'a control character in PREFIX is refused, nothing installed' '
	test_eq "error: PREFIX must not hold a control character (a newline, a tab...)|" "$(grep ^error "$TMP/install.out")|$(ls "$TMP" | grep "^a")"
'
make_kb install DESTDIR="$TMP/d"$'\n'"x" PREFIX=/usr >"$TMP/install.out" 2>&1
test_expect_success '...in DESTDIR too' '
	test_eq "error: DESTDIR must not hold a control character (a newline, a tab...)" "$(grep ^error "$TMP/install.out")"
'
make_kb install PREFIX=relative >"$TMP/install.out" 2>&1
test_expect_success 'a relative PREFIX is refused' '
	test "$(grep ^error "$TMP/install.out")" = "error: PREFIX must be an absolute path, not '\''relative'\''"
'
finish
