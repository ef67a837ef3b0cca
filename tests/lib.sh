# Shared by the shell tests: a hermetic environment and small assertions.
# Like git's test-lib.sh: pinned HOME, locale, zone, identities and dates.

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_DIR=$(cd "$TESTS_DIR/.." && pwd)
FIXTURES=$TESTS_DIR/fixtures
: "${KBACKPORT:=$TOP_DIR/build/kbackport}"

hermetic() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-test.XXXXXX")
	# a failed test keeps its directory to look into, as git's test-lib does
	trap 'if [ "$T_FAIL" -eq 0 ]; then rm -rf "$TMP"; else echo "# kept $TMP"; fi' EXIT
	export HOME=$TMP/home LANG=C LC_ALL=C TZ=UTC
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$HOME/.gitconfig
	export GIT_AUTHOR_NAME="Fixture Author" GIT_AUTHOR_EMAIL=author@example.org
	export GIT_AUTHOR_DATE="1262304000 +0000"
	export GIT_COMMITTER_DATE="1700000000 +0000"
	unset GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
	mkdir -p "$HOME"
	git config --global user.name "Stable Maintainer"
	git config --global user.email stable@example.org
	git config --global init.defaultBranch master
	git config --global advice.detachedHead false
}

# fake_kernel DIR: a repository at DIR holding the fake kernel-like tree of
# tests/fixtures/fake-kernel (its README says what it mimics), one commit
# "6.1" on master and linux-6.1.y; its .gitignore ignores everything at the
# top, as Debian's kernel tarballs do
fake_kernel() {
	mkdir -p "$1" && cp -r "$FIXTURES/fake-kernel/." "$1/" && printf '/*\n' > "$1/.gitignore" &&
		git -C "$1" init -q && git -C "$1" add -A -f && git -C "$1" commit -q -m "6.1" &&
		git -C "$1" branch linux-6.1.y
}

T_PASS=0 T_FAIL=0 T_SKIP=0 T_NAME= T_IN_BLOCK=0
pass() { T_PASS=$((T_PASS + 1)); echo "ok - ${T_NAME:+$T_NAME: }$1"; }
fail() { T_FAIL=$((T_FAIL + 1)); echo "not ok - ${T_NAME:+$T_NAME: }$1"; }
# skip WHY: a check that cannot run here, counted and said (TAP's SKIP)
skip() { T_SKIP=$((T_SKIP + 1)); echo "ok - ${T_NAME:+$T_NAME: }# SKIP $1"; }

# assert_eq DESCRIPTION EXPECTED ACTUAL
assert_eq() {
	if [ "$2" == "$3" ]; then
		pass "$1"
	else
		fail "$1"
		diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/#   /' | head -40
	fi
}

# assert_contains DESCRIPTION NEEDLE HAYSTACK
assert_contains() {
	case "$3" in
	*"$2"*) pass "$1" ;;
	*) fail "$1"; printf '#   %s not in:\n' "$2"; printf '%s\n' "$3" | sed 's/^/#   /' | head -20 ;;
	esac
}

# assert_file_eq DESCRIPTION EXPECTED_FILE ACTUAL_TEXT_FILE
assert_file_eq() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1"
		diff -u "$2" "$3" | sed 's/^/#   /' | head -40
	fi
}

# run_kb EXPECTED_EXIT ARGS...: runs kbackport, output in $OUT/$ERR, checks
# exit (a wrong one is a failed check, or in a block fails the block)
run_kb() {
	local want=$1 rc
	shift
	${KB_VALGRIND:-} "$KBACKPORT" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	if [ "$rc" -ne "$want" ]; then
		# in a block, the block's own "not ok" counts it, with this said
		if [ "$T_IN_BLOCK" = 1 ]; then
			echo "kbackport $* exits $want (got $rc)"
		else
			fail "kbackport $* exits $want (got $rc)"
		fi
		sed 's/^/#   err: /' "$TMP/err" | head -20
		return 1
	fi
	return 0
}

# Everything about a repository a user could care about, except our refs.
user_state() {
	local repo=$1
	(
		cd "$repo" || exit 1
		git for-each-ref --format='%(refname) %(objectname)' | grep -v '^refs/heads/backport/'
		echo "HEAD: $(git symbolic-ref -q HEAD || git rev-parse HEAD)"
		if [ "$(git rev-parse --is-bare-repository)" = false ]; then
			echo "index: $(sha1sum < "$(git rev-parse --git-dir)/index")"
			echo "status: $(git status --porcelain --untracked-files=all | tr '\n' ' ')"
			find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha1sum
		fi
	)
}

# shared_set NAME: $SET is the real data set ../shared/NAME (or
# $KB_SHARED/NAME); when it is absent, a counted skip ends the suite.
shared_set() {
	SET=${KB_SHARED:-$TOP_DIR/../shared}/$1
	[ -d "$SET" ] && return 0
	skip "no $1 at $SET (set KB_SHARED to the shared folder)"
	finish
	exit
}

# finish: the suite's total, printed and added to build/test-totals (or
# $KB_TEST_TOTALS: t_lib.sh's child scripts keep theirs apart); fails if a
# check failed.
finish() {
	local suite=${T_SUITE_PREFIX:-}${T_SUITE:-tests}
	local skipped=
	[ "$T_SKIP" -eq 0 ] || skipped=", $T_SKIP skipped"
	echo "$suite: $T_PASS passed, $T_FAIL failed$skipped"
	local totals=${KB_TEST_TOTALS:-$TOP_DIR/build/test-totals}
	mkdir -p "$(dirname "$totals")"
	echo "$suite $T_PASS $T_FAIL $T_SKIP" >> "$totals"
	[ "$T_FAIL" -eq 0 ]
}

# Named test blocks, as git's test-lib.sh:
#
#   test_expect_success [PREREQ[,PREREQ...]] 'NAME' 'COMMANDS'
#
# runs COMMANDS (an &&-chain) in the test's shell with their output set
# aside: their status 0 is "ok - NAME", anything else "not ok - NAME" with
# the commands and their output shown ('# '-prefixed), and the test's
# directory kept (hermetic prints "# kept DIR" at exit). A missing
# prerequisite (test_set_prereq) makes it a counted skip. The plain
# assert_* helpers are for outside blocks; in a block, use commands such as
# test_cmp, grep or test. In a body, $1... are the block's own arguments:
# a function that makes blocks copies its arguments into variables first.
# A suite's own arguments (lib.sh is sourced without any: it sees the
# suite's), as git's test-lib: `--run=SEL` runs only the blocks SEL names,
# a comma-separated list of block numbers, ranges (3-5) and words that a
# block's name (with its T_NAME) contains (the others are counted skips;
# the lines outside blocks always run, as they set the scene);
# `-i`/`--immediate` stops at the first block that fails, its directory
# kept.
T_RUN= T_IMMEDIATE=0 T_BLOCK=0
for t_arg in "$@"; do
	case $t_arg in
	--run=*) T_RUN=${t_arg#--run=} ;;
	-i|--immediate) T_IMMEDIATE=1 ;;
	esac
done
unset t_arg

# t_selected NUMBER NAME: whether --run names this block
t_selected() {
	local sel lo hi IFS=,
	[ -z "$T_RUN" ] && return 0
	for sel in $T_RUN; do
		case $sel in
		*[!0-9-]*|-|'') [[ $2 == *"$sel"* ]] && return 0 ;;
		*-*) lo=${sel%-*} hi=${sel#*-}
		     [ "$1" -ge "${lo:-1}" ] && [ "$1" -le "${hi:-$1}" ] && return 0 ;;
		*) [ "$1" -eq "$sel" ] && return 0 ;;
		esac
	done
	return 1
}

T_PREREQS=" "
test_set_prereq() { T_PREREQS="$T_PREREQS$1 "; }
test_have_prereq() {
	local p
	for p in ${1//,/ }; do
		[[ $T_PREREQS == *" $p "* ]] || return 1
	done
}

test_expect_success() {
	# t_-prefixed: a body is eval'd in here and sees the caller's variables
	local t_prereq= t_name t_body t_log t_rc
	if [ $# -eq 3 ]; then
		t_prereq=$1
		shift
	fi
	[ $# -eq 2 ] || { echo "error: test_expect_success [PREREQ] NAME COMMANDS" >&2; return 2; }
	t_name=$1 t_body=$2
	T_BLOCK=$((T_BLOCK + 1))
	if ! t_selected "$T_BLOCK" "${T_NAME:+$T_NAME: }$t_name"; then
		skip "$t_name (not in --run=$T_RUN)"
		return 0
	fi
	if [ -n "$t_prereq" ] && ! test_have_prereq "$t_prereq"; then
		skip "$t_name (missing $t_prereq)"
		return 0
	fi
	# the block's output, outside the test's directory (which checks may list)
	t_log=$(mktemp "${TMPDIR:-/tmp}/kbackport-block.XXXXXX")
	T_IN_BLOCK=1
	eval "$t_body" >"$t_log" 2>&1
	t_rc=$?
	T_IN_BLOCK=0
	if [ $t_rc -eq 0 ]; then
		pass "$t_name"
	else
		fail "$t_name (exit $t_rc)"
		t_body=${t_body#$'\n'}
		t_body=${t_body%"${t_body##*[!$'\t\n ']}"}
		printf '%s\n' "$t_body" | sed 's/^/#   > /'
		sed 's/^/#   /' "$t_log" | head -40
		if [ "$T_IMMEDIATE" = 1 ]; then
			rm -f "$t_log"
			echo "# stopped at block $T_BLOCK (-i)"
			finish
			exit 1
		fi
	fi
	rm -f "$t_log"
	return 0
}

# test_cmp EXPECTED_FILE ACTUAL_FILE: as git's, a unified diff when they differ
test_cmp() {
	diff -u "$1" "$2"
}

# test_eq WANT GOT: whether the text GOT is WANT; when not, their unified
# diff (each printed with a newline, as printf "%s\n" does, labelled want
# and got), as test_cmp's on two files, without writing any. Anything but
# two arguments fails: a third would otherwise go unchecked.
test_eq() {
	if [ $# -ne 2 ]; then
		echo "test_eq: $# arguments, not 2 (WANT GOT): $*"
		return 1
	fi
	diff -u --label want --label got <(printf '%s\n' "$1") <(printf '%s\n' "$2")
}
