#!/usr/bin/env bash
# End to end: Debian's own kernel patch series (debian/patches/series of the
# source package that built linux-source-6.1, mail-style DEP-3 patches) made
# into fixes with `kbackport fix new --from-mbox` and applied as a queue onto
# 6.1.y and 6.12.y of the repository t_kernels.sh imported. linux-source-6.1
# ships with those patches applied, so on 6.1.y most must be found
# already-applied. No list of statuses is assumed; the invariants are
# checked for every patch and branch:
#   - every patch became a fix or was refused with a reason;
#   - every fix has one status per branch, and no `error`;
#   - every `applied` commit sits on the one before it (the branch tip
#     first) and its tree is what `git apply -3` of the same patch makes of
#     its parent's tree (where a hunk needs fuzz, which git lacks: GNU
#     `patch -F2`, as quilt applies Debian's series);
#   - every `already-applied` patch reverse-applies on the queue as it
#     stood (GNU `patch -R`, or its hunks found ignoring blank lines);
#   - the queue's ref is the last applied commit; a second run writes nothing.
# The debian tarball is fetched once into build/e2e/debian-series
# (tests/e2e/debian-series.sh, a private apt setup); without network it is
# a counted skip.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-debian-series
hermetic
e2e_need stable/6.1.y "the imported repository '$REPO' is missing: run t_kernels.sh first"
e2e_need stable/6.12.y "the imported repository '$REPO' has no 6.12.y: run t_kernels.sh first"
cd "$TMP"
if ! got=$(bash "$TESTS_DIR/e2e/debian-series.sh" "$E2E/debian-series" 2> fetch.err); then
	skip "no Debian patch series to test with: $(tr '\n' ' ' < fetch.err)"
	finish
	exit
fi
read -r version tarball <<< "$got"
sed 's/^/# /' fetch.err
echo "# Debian's series of linux $version: $tarball"
mkdir deb && tar xf "$tarball" -C deb debian/patches
P=$TMP/deb/debian/patches
sed 's/#.*//' "$P/series" | awk 'NF { print $1 }' > patches.list
total=$(wc -l < patches.list)

# Each patch alone (dry run): the fix it makes, or why not.
T_NAME="fix new"
: > made.list; : > refused.list
while read -r p; do
	if "$KBACKPORT" fix new --dry-run -o fixes "$P/$p" > dry.out 2> dry.err; then
		echo "$p $(sed -n 's|^would create fixes/\([^/]*\)/fix.patch.*|\1|p' dry.out)" >> made.list
	else
		echo "$p: $(cat dry.err)" >> refused.list
	fi
done < patches.list
sed 's/^/# refused: /' refused.list
test_expect_success "every one of the $total patches makes a fix or is refused with a reason" '
	test "$(( $(grep -c " [^ ]" made.list) + $(grep -c "error: " refused.list) ))" = "$total"
'
test_expect_success 'all but a few (5%) make a fix' '
	[ $(wc -l < refused.list) -le $((total / 20)) ]
'
# Together, in series order, as one mbox (a mail client's separator line
# where a patch has no "From <sha>" line of its own).
while read -r p id; do
	head -1 "$P/$p" | grep -q '^From [^ ]* ' || echo "From MAILER-DAEMON Thu Jan  1 00:00:00 1970"
	cat "$P/$p"
	echo
done < made.list > series.mbox
run_kb 0 fix new -o fixes --from-mbox series.mbox
test_expect_success '--from-mbox makes the same fixes, in series order' '
	printf "%s\n" "$(awk "{ print \$2 }" made.list)" > mbox.want &&
	printf "%s\n" "$(echo "$OUT" | sed -n "s|^created fixes/\([^/]*\)/:.*|\1|p")" > mbox.got &&
	test_cmp mbox.want mbox.got
'
nfix=$(wc -l < made.list)
awk '{ print "fixes/" $2 }' made.list > debian.series

T_NAME="queue"
cat > branches.yaml <<YAML
repo: $REPO
branches:
  - {name: "6.1.y", ref: stable/6.1.y}
  - {name: "6.12.y", ref: stable/6.12.y}
YAML
git -C "$REPO" for-each-ref --format='delete %(refname)' refs/heads/backport/queue/debian |
	git -C "$REPO" update-ref --stdin
"$KBACKPORT" apply --queue debian.series --config branches.yaml --json > q.json 2> q.err
rc=$?
test_expect_success 'apply --queue: exit 0 or 1 (some fixes need a hand), never 2' '
	[ $rc -le 1 ] || { echo "no: $rc $(head -3 q.err)"; false; }
'
"$KBACKPORT" apply --queue debian.series --config branches.yaml > q.txt 2>&1
echo "# the matrix ($nfix fixes of linux $version's series):"
sed 's/^/# /' q.txt | head -$((nfix + 2))
test_expect_success 'a second run writes nothing' '
	test "$("$KBACKPORT" apply --queue debian.series --config branches.yaml --json 2>/dev/null |
		jq -r "[.branches[].created] | map(tostring) | join(\" \")")" = "false false"
'

# The files PATCH touches, as the tree TREE has them, into DIR.
extract() {
	local f
	rm -rf "$3" && mkdir -p "$3"
	for f in $(grep -E '^\+\+\+ |^--- ' "$2" | awk '$2 != "/dev/null" { print $2 }' | sed 's|^[^/]*/||' | sort -u); do
		mkdir -p "$3/$(dirname "$f")"
		git -C "$REPO" show "$1:$f" > "$3/$f" 2>/dev/null || rm -f "$3/$f"
	done
}
# GNU patch's answer where git apply has none: git applies no fuzz, while
# quilt (GNU patch) allows 2 context lines to differ, as kbackport does.
# Is C's tree what `patch -F2` makes of PARENT's files (and nothing else)?
patch_agrees() {
	local parent=$1 p=$2 c=$3 f
	extract "$parent" "$p" "$TMP/gnu"
	patch -s -p1 -F2 --no-backup-if-mismatch -d "$TMP/gnu" < "$p" > /dev/null 2>&1 || return 1
	[ "$(git -C "$REPO" diff --name-only "$parent" "$c" | sort)" = "$(cd "$TMP/gnu" && find . -type f | sed 's|^\./||' | sort)" ] || return 1
	for f in $(git -C "$REPO" diff --name-only "$parent" "$c"); do
		git -C "$REPO" show "$c:$f" | cmp -s - "$TMP/gnu/$f" || return 1
	done
}
# Does PATCH reverse-apply on TREE? GNU patch -R, offsets, whitespace and
# fuzz up to the whole context allowed (a hunk found by its own lines);
# failing that, every hunk's new side is in the file once blank lines and
# whitespace are ignored (kbackport's documented tolerance: blank-line drift).
reverse_applies() {
	extract "$1" "$2" "$TMP/rev"
	patch -R -s -p1 -F3 -l --dry-run -d "$TMP/rev" < "$2" > /dev/null 2>&1 && { REV_BY=patch; return 0; }
	REV_BY=search
	python3 - "$2" "$TMP/rev" <<'PY'
import re, sys
norm = lambda l: re.sub(r"\s+", "", l)
files, cur, hunks = {}, None, []
for line in open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n"):
    if line.startswith("+++ "):
        cur = line[4:].split("\t")[0].split("/", 1)[1]
    elif line.startswith("@@"):
        hunks.append((cur, []))
    elif hunks and line[:1] in (" ", "+") and not line.startswith("+++"):
        hunks[-1][1].append(line[1:])
for path, new in hunks:
    want = [n for n in map(norm, new) if n]
    try:
        have = [n for n in map(norm, open(f"{sys.argv[2]}/{path}", encoding="utf-8", errors="replace")) if n]
    except OSError:
        sys.exit(1)
    # up to 3 lines of context may differ at either end, as GNU patch's fuzz
    ok = any(any(want[a:len(want) - b] == have[i:i + len(want) - a - b]
                 for i in range(len(have))) for a in range(4) for b in range(4) if len(want) - a - b > 0)
    if not ok:
        sys.exit(1)
PY
[ $? = 0 ] && return 0
	# in by its lines (kbackport's `near`): each hunk's added lines, in
	# order, within a stretch of the file as long as the hunk and 16 lines
	REV_BY=lines
	python3 - "$2" "$TMP/rev" <<'PY'
import re, sys
norm = lambda l: re.sub(r"\s+", "", l)
cur, hunks = None, []
for line in open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n"):
    if line.startswith("+++ "):
        cur = line[4:].split("\t")[0].split("/", 1)[1]
    elif line.startswith("@@"):
        hunks.append((cur, [], 0))
    elif hunks and line[:1] in (" ", "+", "-") and not line.startswith(("+++", "---")):
        path, adds, n = hunks[-1]
        hunks[-1] = (path, adds + ([line[1:]] if line[0] == "+" else []), n + 1)
for path, adds, n in hunks:
    want = [a for a in map(norm, adds) if len(a) >= 3]
    try:
        have = [norm(l) for l in open(f"{sys.argv[2]}/{path}", encoding="utf-8", errors="replace")]
    except OSError:
        sys.exit(1)
    def fits(i):
        k = 0
        for l in have[i:i + n + 16]:
            if k < len(want) and l == want[k]:
                k += 1
        return k == len(want)
    if want and not any(have[i] == want[0] and fits(i) for i in range(len(have))):
        sys.exit(1)
PY
}

# Walk one branch's results in order, checking each against git (and GNU patch).
check_branch() {
	local b=$1 prev i=0 st fix c patch bad_apply= bad_in= chain= by_git=0 by_patch=0 rev_patch=0 rev_search=0 rev_lines=0
	prev=$(git -C "$REPO" rev-parse "stable/$b^{commit}")
	export GIT_INDEX_FILE=$TMP/index-$b
	git -C "$REPO" read-tree "$prev"
	while read -r st fix c moved; do
		patch=$TMP/fixes/$fix/fix.patch
		# a file that moved in the tree (the hunk's moved_to): the patch
		# checked where kbackport found it
		if [ -n "$moved" ]; then
			cp "$patch" "$TMP/moved.patch"
			for m in ${moved//,/ }; do
				sed -i -E "s#^(---|\+\+\+) ([ab]/)${m%%=*}\$#\1 \2${m#*=}#" "$TMP/moved.patch"
			done
			patch=$TMP/moved.patch
		fi
		case $st in
		applied)
			[ "$(git -C "$REPO" rev-parse "$c^")" = "$prev" ] || chain+="$fix "
			if git -C "$REPO" apply --cached -3 "$patch" 2> apply.err &&
			   [ "$(git -C "$REPO" write-tree)" = "$(git -C "$REPO" rev-parse "$c^{tree}")" ]; then
				by_git=$((by_git + 1))
			else
				if patch_agrees "$prev" "$patch" "$c"; then by_patch=$((by_patch + 1))
				else bad_apply+="$fix ($(head -1 apply.err)) "; fi
				git -C "$REPO" read-tree "$c"
			fi
			prev=$c ;;
		already-applied)
			if reverse_applies "$prev" "$patch"; then
				case $REV_BY in
				patch) rev_patch=$((rev_patch + 1)) ;;
				search) rev_search=$((rev_search + 1)) ;;
				*) rev_lines=$((rev_lines + 1)) ;;
				esac
			else
				bad_in+="$fix "
			fi ;;
		esac
	done < <(jq -r --arg b "$b" '.branches[] | select(.branch == $b) | .results[] | "\(.status) \(.fix) \(.commit) \([.hunks[] | select(.moved_to) | "\(.file)=\(.moved_to)"] | unique | join(","))"' q.json)
	unset GIT_INDEX_FILE
	echo "# $b: applied: $by_git as git apply -3 makes it, $by_patch (fuzz) as GNU patch -F2 does;" \
		"already-applied: $rev_patch reverse-apply with GNU patch, $rev_search found ignoring blank lines," \
		"$rev_lines by their added lines near their place"
	test_expect_success 'every applied commit sits on the one before it' '
		test -z "$chain"
	'
	test_expect_success 'every applied commit'\''s tree is git apply -3'\''s (or, with fuzz, patch -F2'\''s) of its patch on the parent' '
		test -z "$bad_apply"
	'
	test_expect_success 'every already-applied patch reverse-applies on the queue as it stood, or its added lines are there in order near each hunk'\''s place' '
		test_eq "" "$bad_in"
	'
	test_expect_success 'the queue'\''s ref is the last applied commit' '
		test "$(git -C "$REPO" rev-parse -q --verify "refs/heads/backport/queue/debian/$b" || git -C "$REPO" rev-parse "stable/$b")" = "$prev"
	'
}

for b in 6.1.y 6.12.y; do
	T_NAME=$b
	res() { jq -r --arg b $b ".branches[] | select(.branch == \$b) | $1" q.json; }
	test_expect_success 'one result per fix, in series order' '
		printf "%s\n" "$(awk "{ print \$2 }" made.list)" > res.want &&
		printf "%s\n" "$(res ".results[].fix")" > res.got &&
		test_cmp res.want res.got
	'
	test_expect_success 'every result has a status, none an error' '
		test -z "$(res '\''.results[] | select(.status | IN("applied", "already-applied", "not-affected", "partial", "conflict") | not) | "\(.fix): \(.status) \(.detail)"'\'')"
	'
	counts=$(res '.results[].status' | sort | uniq -c | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')
	echo "# $b: $counts"
	check_branch $b
done
T_NAME=6.1.y
n_in=$(jq -r '[.branches[] | select(.branch == "6.1.y") | .results[] | select(.status == "already-applied")] | length' q.json)
test_expect_success "Debian's 6.1 tree has its own series in: most already-applied ($n_in of $nfix)" '
	[ $((n_in * 2)) -gt "$nfix" ]
'
finish
