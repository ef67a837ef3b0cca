#!/usr/bin/env bash
# Bad input of every kind: one clear line naming the input and the
# position, the documented exit code (2 for bad input files and usage, 1
# for a branch-level failure in the results), and nothing written: no ref,
# no new object in the repository, no report directory.
source "$(dirname "$0")/../lib.sh"
T_SUITE=bad-input
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cd "$TMP"
R=repos/linux

# everything a run may write: the user's state, our refs, the count of
# objects, the files beside branches.yaml (reports/, work/)
state() {
	user_state "$R"
	git -C "$R" for-each-ref --format='%(refname)' refs/heads/backport/
	echo "objects: $(find "$R/.git/objects" -type f | wc -l)"
	ls -A "$TMP" | grep -vxE 'home|out|err|work'
	# work/history is the history index, a cache of the repository's
	# commits that any apply reading the history keeps (not under
	# --dry-run); anything else in work/ counts
	[ ! -d "$TMP/work" ] || ls -A "$TMP/work" | grep -vx history
}
# nothing_written: the state is the one `before` saved
# (the state is taken outside the block: a block keeps its output in a
# file in $TMP while it runs; its comparisons use no files of their own)
before() { BEFORE=$(state); }
nothing_written() {
	AFTER=$(state)
	test_expect_success 'nothing written' '
		test_cmp <(printf "%s\n" "$BEFORE") <(printf "%s\n" "$AFTER")
	'
}
# one_line: the error is one line (a git-style "hint:" line may follow it)
one_line() {
	test_expect_success 'one line' '
		test "$(printf "%s\n" "$ERR" | grep -vc "^hint: ")" = 1
	'
}

# ---- a fix of our own: one hunk on the era trees' Makefile ----
# make_fix DIR PATCH_FILE_NAME: fix.yaml naming the patch, written by the caller
make_fix() {
	mkdir -p "$1"
	cat > "$1/fix.yaml" <<YAML
id: $(basename "$1")
subject: "name the fixture"
upstream: 1234567890123456789012345678901234567890
patch: $2
variants:
  - name: upstream
    patch: $2
    why: "the patch itself"
YAML
}
header() {
	printf 'From: A U Thor <author@example.org>\nDate: Fri, 1 Jan 2010 00:00:00 +0000\n'
	printf 'Subject: [PATCH] name the fixture\n\n---\n'
}
hunk() {
	printf 'diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n' "$1" "$1" "$1" "$1"
	printf '@@ -4,2 +4,2 @@\n EXTRAVERSION =\n-NAME = kbackport era fixture\n+NAME = named\n'
}
mkdir fixes
make_fix fixes/GOOD good.patch
{ header; hunk Makefile; } > fixes/GOOD/good.patch
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - name: 2.6.32.y
    ref: linux-2.6.32.y
YAML
T_NAME="the good fix"
before
run_kb 0 apply --fix fixes/GOOD --dry-run && nothing_written

# ---- branches.yaml ----
# bad_config NAME TEXT EXPECTED_ERROR
bad_config() {
	local msg=$3
	T_NAME="branches.yaml: $1"
	printf '%s' "$2" > bad.yaml
	before
	run_kb 2 apply --config bad.yaml --fix fixes/GOOD && test_expect_success 'message' '
		test_cmp <(printf "%s\n" "$msg") <(printf "%s\n" "$ERR")
	'
	one_line
	nothing_written
	rm bad.yaml
}
bad_config "malformed" $'repo: repos/linux\nbranches: [\n  - name: a\n' \
	"error: bad.yaml:3:3: did not find expected node content (while parsing a flow node at line 3)"
bad_config "cut mid-mapping" $'repo: repos/linux\nbranches:\n  - {name: a, ref: linux-2.6.3' \
	"error: bad.yaml:4:1: did not find expected ',' or '}' (while parsing a flow mapping at line 3)"
bad_config "cut mid-mapping, block style" $'repo: repos/linux\nbranches:\n  - name: a\n    ref' \
	"error: bad.yaml:5:1: could not find expected ':' (while scanning a simple key at line 4)"
bad_config "unknown key" $'repo: repos/linux\nbranches:\n  - name: a\n    ref: linux-2.6.32.y\n    refs: x\n' \
	"error: bad.yaml:5:5: unknown key 'refs' in branch (expected name, ref, repo, variant, arch, config, build, build-skip-reason, pre-fix, skip-if-missing, kernel, mail)
hint: did you mean 'ref'?"
bad_config "wrong type" $'repo: repos/linux\nbranches:\n  - name: a\n    ref: [linux-2.6.32.y]\n' \
	"error: bad.yaml:4:10: 'ref' must be a string, not a sequence"

# a branch named like another's pre-fix lane: both would write one ref
bad_config "a pre-fix lane's name" $'repo: repos/linux\nbranches:\n  - {name: x, ref: linux-2.6.32.y, pre-fix: true}\n  - {name: x.pre-fix, ref: linux-2.6.35.y}\n' \
	"error: bad.yaml:4:5: branch 'x.pre-fix' has the name of the pre-fix lane of branch 'x' (line 3): both would write refs/heads/backport/<fix>/x.pre-fix"

# a missing repository or ref: an error in the results, exit 1
T_NAME="branches.yaml: missing repository and ref"
cat > missing.yaml <<'YAML'
repo: repos/linux
branches:
  - name: no-such-ref
    ref: linux-9.9.y
  - name: no-such-repo
    repo: nowhere
    ref: master
YAML
before
run_kb 1 apply --config missing.yaml --fix fixes/GOOD
test_expect_success 'ref named' '
	test "$(grep -o "ref '\''linux-9.9.y'\'' not found in '\''[^'\'']*'\''" <<<"$OUT")" = \
		"ref '\''linux-9.9.y'\'' not found in '\''$TMP/repos/linux'\''"
'
test_expect_success 'repository named' '
	[[ $OUT == *"cannot open repository '\''$TMP/nowhere'\''"* ]]
'
nothing_written
rm missing.yaml

# ---- the fix directory: bad input, exit 2 ----
# bad_fix NAME EXPECTED_ERROR: fixes/BAD/p.patch written by the caller
bad_fix() {
	local msg=$2
	T_NAME="fix: $1"
	before
	run_kb 2 apply --fix fixes/BAD && test_expect_success 'message' '
		test_cmp <(printf "%s\n" "$msg") <(printf "%s\n" "$ERR")
	'
	one_line
	nothing_written
	rm -rf fixes/BAD
}
make_fix fixes/BAD p.patch
bad_fix "no patch file" "error: fixes/BAD/fix.yaml:4:8: cannot open 'fixes/BAD/p.patch': No such file or directory"
mkdir -p fixes/BAD
bad_fix "no fix.yaml" "error: no fixes under 'fixes/BAD'"
make_fix fixes/BAD p.patch
{ header; hunk Makefile; } | head -n -1 > fixes/BAD/p.patch
bad_fix "cut mid-hunk" "error: fixes/BAD/p.patch:9: hunk ends early (0 old and 1 new lines missing)"
make_fix fixes/BAD p.patch
{ header; printf 'diff --git a/Makefile b/Makefile\nindex 1234567..89abcde 100644\nGIT binary patch\nliteral 5\n'; } > fixes/BAD/p.patch
bad_fix "binary patch" "error: fixes/BAD/p.patch:8: binary patches are not supported"
# CRLF: rejected, not normalised. A patch with CRLF lines is a mail
# client's doing; stripping the CRs would also strip them from the few
# files that have CRLF lines, and applying as-is matches nothing.
make_fix fixes/BAD p.patch
{ header; hunk Makefile; } | sed 's/$/\r/' > fixes/BAD/p.patch
bad_fix "CRLF line endings" "error: fixes/BAD/p.patch:1: CRLF line endings are not supported"
make_fix fixes/BAD p.patch
{ header; hunk Makefile | sed 's|[ab]/Makefile|/tmp/Makefile|g'; } > fixes/BAD/p.patch
bad_fix "absolute path" "error: fixes/BAD/p.patch:7: absolute path '/tmp/Makefile' is not allowed"
make_fix fixes/BAD p.patch
{ header; hunk ../Makefile; } > fixes/BAD/p.patch
bad_fix "path with .." "error: fixes/BAD/p.patch:7: path 'a/../Makefile' leaves the tree"
test_expect_success 'nothing written outside the tree' '
	test ! -e "$TMP/repos/Makefile"
'
# mail headers as git mailinfo takes them: a charset iconv does not know, or
# bytes that are no text in theirs, are no header to guess at
make_fix fixes/BAD p.patch
{ header | sed 's/^Subject: .*/Subject: [PATCH] =?x-unknown?Q?name_the_fixture?=/'; hunk Makefile; } > fixes/BAD/p.patch
bad_fix "a Subject in an unknown charset" "error: fixes/BAD/p.patch:3: the Subject header is in the unknown charset 'x-unknown'"
make_fix fixes/BAD p.patch
{ header | sed 's/^From: .*/From: =?UTF-8?Q?A_U_Th=F6r?= <author@example.org>/'; hunk Makefile; } > fixes/BAD/p.patch
bad_fix "a From: that is not the UTF-8 it says" "error: fixes/BAD/p.patch:1: the From header is not valid UTF-8 text"
# refs/heads/backport/queue/ holds the queues' refs
make_fix fixes/queue p.patch
{ header; hunk Makefile; } > fixes/queue/p.patch
T_NAME="fix: named queue"
before
run_kb 2 apply --fix fixes/queue && test_expect_success 'message' '
	test_cmp <(printf "%s\n" "error: fixes/queue/fix.yaml:1:5: '\''queue'\'' cannot be a fix id: refs/heads/backport/queue/ holds the queues'\'' refs") \
		<(printf "%s\n" "$ERR")
'
one_line
nothing_written
rm -rf fixes/queue

# two fix directories with one id: both would write refs/heads/backport/<id>/
T_NAME="fix: the same id twice"
mkdir -p again && cp -r fixes/GOOD again/
before
run_kb 2 apply --fix fixes/GOOD --fix again/GOOD && test_expect_success 'message' '
	test "$ERR" = "error: fix '\''GOOD'\'' is given twice: '\''fixes/GOOD'\'' and '\''again/GOOD'\''"
'
one_line
run_kb 2 apply --fix fixes --fix fixes/GOOD && test_expect_success 'a directory of fixes and one of them' '
	test "$ERR" = "error: fix '\''GOOD'\'' is given twice: '\''fixes/GOOD'\'' and '\''fixes/GOOD'\''"
'
nothing_written
rm -r again

# ---- trees the patch does not fit: a result per branch, exit 1 ----
# branch_with BASE BRANCH MODE PATH CONTENT: BASE's tree plus one entry
branch_with() {
	local g="git -C $R" blob tree
	blob=$(printf '%s' "$5" | $g hash-object -w --stdin)
	GIT_INDEX_FILE=$TMP/idx $g read-tree "$1"
	printf '%s %s\t%s\n' "$3" "$blob" "$4" | GIT_INDEX_FILE=$TMP/idx $g update-index --index-info
	tree=$(GIT_INDEX_FILE=$TMP/idx $g write-tree)
	rm -f "$TMP/idx"
	$g update-ref "refs/heads/$2" "$($g commit-tree "$tree" -p "$1" -m "$2")"
}
branch_with linux-2.6.32.y symlinked 120000 Makefile Makefile.real
branch_with symlinked symlinked 100644 Makefile.real "$(git -C $R show linux-2.6.32.y:Makefile)"
branch_with linux-2.6.32.y latin1 100644 $'caf\xe9.c' $'x\n'
cat > trees.yaml <<'YAML'
repo: repos/linux
branches:
  - name: symlinked
    ref: symlinked
  - name: latin1
    ref: latin1
YAML
r() { printf '%s' "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
make_fix fixes/LACKS p.patch
{ header; hunk no/such/Makefile; } > fixes/LACKS/p.patch
T_NAME="fix: a file the branch lacks"
before
run_kb 1 apply --fix fixes/LACKS --json
test_expect_success 'a conflict naming the file' '
	test_cmp <(printf "%s\n" "conflict: variant '\''upstream'\'' does not apply: '\''no/such/Makefile'\'': no file '\''no/such/Makefile'\'' in the tree") \
		<(printf "%s\n" "$(r 2.6.32.y '\''"\(.status): \(.detail)"'\'')")
'
nothing_written
T_NAME="fix: a symlink where the patch expects a file"
before
run_kb 1 apply --config trees.yaml --fix fixes/GOOD --json -b symlinked
test_expect_success 'an error naming the file' '
	test "$(r symlinked '\''"\(.status): \(.detail)"'\'')" = "error: '\''Makefile'\'' is not a regular file (mode 120000)"
'
nothing_written
# Non-UTF-8 file names: names are bytes, as in git; JSON shows the bytes
# that are not UTF-8 as git quotes them
T_NAME="non-UTF-8 file names"
run_kb 0 apply --config trees.yaml --fix fixes/GOOD --json -b latin1 &&
	test_expect_success 'a tree with one: the fix applies, the name kept' '
		test_cmp <(printf "%s\n" $'\''applied\n100644 blob 587be6b4c3f93f93c489c0111bba5596147a26cb\t"caf\\351.c"'\'') \
			<(printf "%s\n" "$(r latin1 .status; git -C $R ls-tree refs/heads/backport/GOOD/latin1 | grep "\"caf")")
	'
make_fix fixes/LATIN1 p.patch
{ header; printf 'diff --git a/caf\xe9.c b/caf\xe9.c\n--- a/caf\xe9.c\n+++ b/caf\xe9.c\n@@ -1 +1 @@\n-x\n+y\n'; } > fixes/LATIN1/p.patch
run_kb 1 apply --config trees.yaml --fix fixes/LATIN1 --json
test_expect_success 'a patch with one: applied where the file is' '
	test "$(r latin1 .status) $(git -C $R show "refs/heads/backport/LATIN1/latin1:caf"$'\''\xe9'\''".c")" = "applied y"
'
test_expect_success '...a conflict where it is not, in JSON as git quotes it' '
	test_cmp <(printf "%s\n" "conflict: variant '\''upstream'\'' does not apply: '\''caf\\351.c'\'': no file '\''caf\\351.c'\'' in the tree") \
		<(printf "%s\n" "$(r symlinked '\''"\(.status): \(.detail)"'\'')")
'

# ---- the repository's state ----
T_NAME="a stale lock on the backport ref"
mkdir -p $R/.git/refs/heads/backport/GOOD
touch $R/.git/refs/heads/backport/GOOD/2.6.32.y.lock
before
run_kb 1 apply --fix fixes/GOOD --json
test_expect_success 'an error naming the lock file' '
	test_cmp <(printf "%s\n" "error: cannot lock '\''refs/heads/backport/GOOD/2.6.32.y'\'': '\''$TMP/$R/.git/refs/heads/backport/GOOD/2.6.32.y.lock'\'' exists (another git at work, or a stale lock to remove)") \
		<(printf "%s\n" "$(r 2.6.32.y '\''"\(.status): \(.detail)"'\'')")
'
nothing_written
rm -r $R/.git/refs/heads/backport/GOOD
T_NAME="a stale lock on the pre-fix ref"
ln -s "$TOP_DIR/backports" backports
printf 'repo: repos/linux\nbranches:\n  - {name: 4.19.y, ref: linux-4.19.y}\n' > first.yaml
run_kb 0 apply --config first.yaml
git -C $R branch shipped-4.19 refs/heads/backport/CVE-2011-1019/4.19.y
printf 'repo: repos/linux\nbranches:\n  - {name: shipped, ref: shipped-4.19, pre-fix: true}\n' > prefix.yaml
touch $R/.git/refs/heads/backport/CVE-2011-1019/shipped.pre-fix.lock
before
run_kb 1 apply --config prefix.yaml --json
test_expect_success 'an error naming the lock file' '
	test_cmp <(printf "%s\n" "error: cannot lock '\''refs/heads/backport/CVE-2011-1019/shipped.pre-fix'\'': '\''$TMP/$R/.git/refs/heads/backport/CVE-2011-1019/shipped.pre-fix.lock'\'' exists (another git at work, or a stale lock to remove)") \
		<(printf "%s\n" "$(r shipped '\''"\(.status): \(.detail)"'\'')")
'
nothing_written
rm $R/.git/refs/heads/backport/CVE-2011-1019/shipped.pre-fix.lock
# kbackport never reads or writes HEAD, the index or the working tree: a
# held index.lock or a rebase in progress do not matter, and stay as found
T_NAME="index.lock and a rebase in progress"
git -C $R checkout -q -b topic linux-2.6.32.y
touch $R/.git/index.lock
mkdir $R/.git/rebase-merge
echo refs/heads/topic > $R/.git/rebase-merge/head-name
before
run_kb 0 apply --fix fixes/GOOD --json
test_expect_success 'applied' '
	test "$(r 2.6.32.y .status)" = applied
'
AFTER=$(state)
test_expect_success 'only the backport ref and its objects are new' '
	test_cmp <(printf "%s\n" "$(sed "/^objects: /d" <<<"$BEFORE")") \
		<(printf "%s\n" "$(sed "/^refs\/heads\/backport\/GOOD\/2.6.32.y$/d; /^objects: /d" <<<"$AFTER")")
'
test_expect_success 'index.lock and rebase-merge untouched' '
	test "$(stat -c %s $R/.git/index.lock) $(cat $R/.git/rebase-merge/head-name)" = "0 refs/heads/topic"
'
rm -r $R/.git/index.lock $R/.git/rebase-merge

# ---- input files that are not files: never a hang, never unbounded memory ----
# run_limited EXIT ARGS...: run_kb under a timeout, so that a read that
# blocks fails the test instead of hanging it
run_limited() {
	local want=$1 rc
	shift
	timeout 20 ${KB_VALGRIND:-} "$KBACKPORT" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	[ "$rc" -eq "$want" ] || { fail "kbackport $* exits $want (got $rc)"; return 1; }
}
T_NAME="input files"
mkfifo fifo
truncate -s 65M big.yaml
mkdir fiforun && mkfifo fiforun/results.json
before
run_limited 2 apply --config fifo && test_expect_success '--config a FIFO' '
	test "$ERR" = "error: cannot read '\''fifo'\'': not a regular file"
'
run_limited 2 apply --config /dev/zero && test_expect_success '--config /dev/zero' '
	test "$ERR" = "error: cannot read '\''/dev/zero'\'': not a regular file"
'
run_limited 2 apply --config big.yaml && test_expect_success '--config over 64 MiB' '
	test "$ERR" = "error: cannot read '\''big.yaml'\'': larger than 64 MiB"
'
run_limited 2 ktap fifo && test_expect_success 'ktap of a FIFO' '
	test "$ERR" = "error: cannot read '\''fifo'\'': not a regular file"
'
run_limited 2 ktap /dev/zero && test_expect_success 'ktap of /dev/zero' '
	test "$ERR" = "error: cannot read '\''/dev/zero'\'': not a regular file"
'
timeout 180 ${KB_VALGRIND:-} "$KBACKPORT" ktap - < /dev/zero >/dev/null 2>"$TMP/err"
zero_rc=$?
test_expect_success 'ktap - from /dev/zero: bounded' '
	test "$zero_rc $(cat "$TMP/err")" = "2 error: cannot read '\''standard input'\'': larger than 64 MiB"
'
printf 'KTAP version 1\n1..1\nok 1 a\n' | ${KB_VALGRIND:-} "$KBACKPORT" ktap - >/dev/null 2>&1
pipe_rc=$?
test_expect_success 'ktap - from a pipe still reads' '
	test "$pipe_rc" = 0
'
run_limited 2 report fiforun && test_expect_success 'report: results.json a FIFO' '
	test "$ERR" = "error: cannot read '\''fiforun/results.json'\'': not a regular file"
'
# import --trees takes a tarball of any size or a directory, nothing else
run_limited 2 import --repo "$R" --trees fifo && test_expect_success 'import --trees a FIFO' '
	test "$ERR" = "error: '\''fifo'\'' is a FIFO, not a tarball or a directory"
'
run_limited 2 import --repo "$R" --trees /dev/zero && test_expect_success 'import --trees /dev/zero' '
	test "$ERR" = "error: '\''/dev/zero'\'' is a character device, not a tarball or a directory"
'
nothing_written
rm -r fifo big.yaml fiforun

# ---- run and report ----
T_NAME="run --reports under a file"
touch somefile
before
run_kb 2 run --fix fixes/LATIN1 --reports somefile/sub && test_expect_success 'message' '
	test "$ERR" = "error: cannot create '\''somefile/sub'\'': Not a directory"
'
nothing_written
T_NAME="report"
run_kb 2 report nowhere && test_expect_success 'a missing run directory' '
	test "$ERR" = "error: cannot read '\''nowhere/results.json'\'': No such file or directory"
'
run_kb 2 report --reports nowhere && test_expect_success 'no reports/latest' '
	test "$ERR" = "error: cannot read '\''nowhere/latest/results.json'\'': No such file or directory"
'
run_kb 2 report somefile && test_expect_success 'a file, not a directory' '
	test "$ERR" = "error: cannot read '\''somefile/results.json'\'': Not a directory"
'
mkdir cut && echo '{"run": "x",' > cut/results.json
before
run_kb 2 report cut && test_expect_success 'a cut results.json' '
	test "$ERR" = "error: '\''cut/results.json'\'': line 2, column 0: string or '\''}'\'' expected near end of file"
'
nothing_written
finish
