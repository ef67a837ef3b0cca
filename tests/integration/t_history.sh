#!/usr/bin/env bash
# History first (issue 27: 1): before the content, kbackport apply asks the
# branch's history whether the fix is in: a commit naming the fix's upstream
# commit at the start of a line of its message ("commit <sha> upstream.",
# "(cherry picked from commit <sha>)", ...) and changing the fix's files, or
# with the fix's patch-id, not reverted since. Small real repositories made
# with git: each answer and what it rests on, exactly.
source "$(dirname "$0")/../lib.sh"
T_SUITE=history
hermetic
cd "$TMP"

git init -q repo
cd repo
for i in $(seq 1 30); do echo "	int v$i = $i;"; done > body.txt
{ echo 'int foo(int x)'; echo '{'; cat body.txt; echo '	return x;'; echo '}'; } > f.c
printf '%s\n' 'int other(void)' '{' '	return 0;' '}' > g.c
git add f.c g.c && git commit -q -m "base"
git tag v1.0
# upstream: the fix, on a branch of its own (never an ancestor of the stable branches)
git checkout -q -b upstream
sed -i 's/^	int v15 = 15;$/	int v15 = 15;\n	if (x < 0)\n		return -EINVAL;/' f.c
git commit -q -am "foo: reject a negative x" -m "A negative x overflows v15."
U=$(git rev-parse HEAD)
git checkout -q master
cd ..
mkdir -p src
git -C repo format-patch -1 --stdout "$U" > src/fix.patch
run_kb 0 fix new -o backports --id FIX src/fix.patch

# pick BRANCH MESSAGE: the fix's patch committed on BRANCH with MESSAGE;
# edit BRANCH SED MESSAGE: f.c edited by SED, committed
pick() {
	git -C repo checkout -q "$1" &&
	git -C repo apply "$TMP/src/fix.patch" &&
	git -C repo commit -q -am "$2"
}
edit() {
	git -C repo checkout -q "$1" &&
	sed -i "$2" repo/f.c &&
	git -C repo commit -q -am "$3"
}
revert() {
	git -C repo checkout -q "$1" && git -C repo revert --no-edit HEAD >/dev/null
}
at() { git -C repo rev-parse "$1"; }
s12() { printf '%.12s' "$1"; }
# the same check, the fix's other form: "return -EINVAL; /* MARK */"
other_form() { echo "s/^	int v15 = 15;\$/	int v15 = 15;\n	if (x < 0)\n		return -EINVAL; \/* $1 *\//"; }

# later: in by "commit <sha> upstream.", then a later commit changed its lines
git -C repo branch later v1.0
pick later "foo: reject a negative x

commit $U upstream.

A negative x overflows v15."
S1=$(at later); git -C repo tag v1.1 later
edit later 's/return -EINVAL;/return -ERANGE;/' "foo: a negative x is out of range"
S2=$(at later); git -C repo tag v1.2 later

# reverted: brought in, then `git revert`
git -C repo branch reverted v1.0
pick reverted "foo: reject a negative x

commit $U upstream."
R1=$(at reverted)
revert reverted
R2=$(at reverted)

# reapplied: reverted, then in again with another patch, another reference form
git -C repo branch reapplied reverted
edit reapplied "$(other_form again)" "foo: reject a negative x

[ Upstream commit $U ]"
R3=$(at reapplied)

# rereverted: another patch, reverted, then the revert reverted (no patch-id matches)
git -C repo branch rereverted v1.0
edit rereverted "$(other_form first)" "foo: reject a negative x

(cherry picked from commit $U)"
Q1=$(at rereverted)
revert rereverted
Q2=$(at rereverted)
revert rereverted
Q3=$(at rereverted)

# elsewhere: a message naming the fix, in a commit that does not change f.c
git -C repo branch elsewhere v1.0
git -C repo checkout -q elsewhere
sed -i 's/return 0;/return 1;/' repo/g.c
git -C repo commit -q -am "other: return 1

commit $U upstream."
E1=$(at elsewhere)

# comment: a commit naming the fix that only adds a comment to its file: no evidence
git -C repo branch comment v1.0
git -C repo checkout -q comment
sed -i 's|^int foo(int x)$|/* foo: see the fix upstream */\nint foo(int x)|' repo/f.c
git -C repo commit -q -am "foo: say where the fix is

commit $U upstream."
C1=$(at comment)

# dropped: in by "commit <sha> upstream.", then a vendor's import wrote the old f.c back
git -C repo branch dropped v1.0
pick dropped "foo: reject a negative x

commit $U upstream."
D1=$(at dropped)
git -C repo checkout -q dropped
git -C repo show v1.0:f.c > repo/f.c
git -C repo commit -q -am "board: import the vendor's sources"
D2=$(at dropped)

# merged: in by "commit <sha> upstream.", then a merge took the vendor's older f.c:
# no commit of the branch's own took the lines back, the tree holds the pre-image
git -C repo branch merged v1.0
pick merged "foo: reject a negative x

commit $U upstream."
M1=$(at merged)
git -C repo checkout -q -b vendor-side v1.0
sed -i 's/return 0;/return 2;/' repo/g.c
git -C repo commit -q -am "vendor: its own g"
git -C repo checkout -q merged
git -C repo merge -q --no-commit vendor-side >/dev/null 2>&1
git -C repo checkout vendor-side -- f.c
git -C repo commit -q -m "Merge the vendor's tree"
git -C repo branch -q -D vendor-side

# patchid: the fix's diff under another message, no reference; its lines changed later
git -C repo branch patchid v1.0
pick patchid "foo: a negative x is refused"
P1=$(at patchid)
edit patchid 's/return -EINVAL;/return -ERANGE;/' "foo: out of range"
P2=$(at patchid)
git -C repo checkout -q master

cat > branches.yaml <<'YAML'
repo: repo
branches:
  - {name: later, ref: later}
  - {name: reverted, ref: reverted}
  - {name: reapplied, ref: reapplied}
  - {name: rereverted, ref: rereverted}
  - {name: elsewhere, ref: elsewhere}
  - {name: patchid, ref: patchid}
  - {name: upstream, ref: upstream}
  - {name: comment, ref: comment}
  - {name: dropped, ref: dropped}
  - {name: merged, ref: merged}
YAML
before=$(user_state repo)
run_kb 1 apply -n --json
printf '%s' "$OUT" > first.json
r() { jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2" first.json; }

T_NAME="lines changed later"
test_expect_success 'already-applied, naming the commit, its tag, and the commit that changed its lines' '
	test_eq "already-applied|in since $(s12 $S1) (v1.1): its message names $(s12 $U) ('\''commit <sha> upstream'\'') and it changes f.c; its lines were changed later by $(s12 $S2) (\"foo: a negative x is out of range\", v1.2)" "$(r later '\''"\(.status)|\(.detail)"'\'')"
'
test_expect_success 'what the content alone says, in the notes' '
	test "$(r later '\''.notes[0]'\'')" = "the content alone, in '\''later'\'': variant '\''patch'\'' does not apply"
'
test_expect_success '--json: the history'\''s commit, tag and later commits' '
	test_eq "in $S1 v1.1 foo: reject a negative x|$S2 v1.2" "$(r later '\''"\(.history.state) \(.history.commit.commit) \(.history.commit.tag) \(.history.commit.subject)|\([.history.changed_by[] | "\(.commit) \(.tag)"] | join(","))"'\'')"
'

T_NAME="reverted"
test_expect_success 'a status of its own, nothing written: a person decides' '
	test_eq "reverted|reverted by $(s12 $R2) after $(s12 $R1) brought it in: not applied again (the fix would apply); --reapply to carry it anyway|null" "$(r reverted '\''"\(.status)|\(.detail)|\(.commit)"'\'')"
'
test_expect_success 'the revert named, first in the notes' '
	test_eq "history: brought in by $(s12 $R1) (its message names $(s12 $U) ('\''commit <sha> upstream'\'') and it changes f.c), reverted by $(s12 $R2) (its message says it reverts $(s12 $R1)): not applied again unless asked (--reapply)" "$(r reverted '\''.notes[0]'\'')"
'
test_expect_success '--json: reverted, by which commit' '
	test_eq "reverted $R1 $R2" "$(r reverted '\''"\(.history.state) \(.history.commit.commit) \(.history.reverted_by.commit)"'\'')"
'

T_NAME="reverted and applied again"
test_expect_success 'already-applied by the new commit, whatever the content says' '
	test_eq "already-applied|in since $(s12 $R3): its message names $(s12 $U) ('\''[ Upstream commit <sha> ]'\'') and it changes f.c; the tree no longer holds all of its changes" "$(r reapplied '\''"\(.status)|\(.detail)"'\'')"
'
test_expect_success 'the revert of the revert brings it back' '
	test_eq "already-applied|in since $(s12 $Q3): it reverts $(s12 $Q2), a revert of the fix, and it changes f.c; the tree no longer holds all of its changes" "$(r rereverted '\''"\(.status)|\(.detail)"'\'')"
'

T_NAME="a reference that changes other lines"
test_expect_success 'a commit naming the fix whose change is a comment is no evidence: the content decides' '
	test_eq "applied|not-found|would apply variant '\''patch'\''" "$(r comment '\''"\(.status)|\(.history.state)|\(.detail)"'\'')"
'

T_NAME="undone by a later commit"
test_expect_success 'the tree decides: applied, naming the commit that brought it in and the one that undid it' '
	test_eq "applied|would apply variant '\''patch'\''; brought in by $(s12 $D1), undone by $(s12 $D2)" "$(r dropped '\''"\(.status)|\(.detail)"'\'')"
'
test_expect_success '...the first note says both witnesses' '
	test_eq "history: brought in by $(s12 $D1) (its message names $(s12 $U) ('\''commit <sha> upstream'\'') and it changes f.c), undone since by $(s12 $D2) (\"board: import the vendor'\''s sources\"): its lines stand as before the fix; the tree decides" "$(r dropped '\''.notes[0]'\'')"
'
test_expect_success '--json: history in, undone_by the import; the hunk'\''s tree state' '
	test_eq "in $D1 $D2|pre-image gone 2 0" "$(r dropped '\''"\(.history.state) \(.history.commit.commit) \(.history.undone_by.commit)|\(.hunks[0].tree | "\(.state) \(.fate) \(.added) \(.kept)")"'\'')"
'
test_expect_success 'the lines changed later: the hunk'\''s tree state says so' '
	test_eq "neither changed 2 1 1" "$(r later '\''.hunks[0].tree | "\(.state) \(.fate) \(.added) \(.kept) \(.changed)"'\'')"
'

T_NAME="undone by a merge"
test_expect_success 'the tree holds the pre-image, no commit of its own undid it: the tree decides, saying so' '
	test_eq "applied|would apply variant '\''patch'\''; brought in by $(s12 $M1), undone since (the tree holds the fix'\''s pre-image)|null" "$(r merged '\''"\(.status)|\(.detail)|\(.history.undone_by)"'\'')"
'

T_NAME="a reference alone"
test_expect_success 'a commit naming the fix but not changing its files is no evidence: the content'\''s answer' '
	test "$(r elsewhere '\''"\(.status)|\(.history.state)|\(.detail)"'\'')" = "applied|not-found|would apply variant '\''patch'\''"
'

T_NAME="patch-id"
test_expect_success 'the same patch-id, no reference: already-applied, saying so' '
	test_eq "already-applied|in since $(s12 $P1): it has the patch-id of the fix'\''s patch; its lines were changed later by $(s12 $P2) (\"foo: out of range\")" "$(r patchid '\''"\(.status)|\(.detail)"'\'')"
'

T_NAME="the upstream commit"
test_expect_success 'the fix'\''s own commit in the branch is evidence too' '
	test_eq "already-applied|history: in since $(s12 $U): it is the fix'\''s commit $(s12 $U) itself" "$(r upstream '\''"\(.status)|\(.detail | sub(".*; "; ""))"'\'')"
'

T_NAME="text"
run_kb 0 apply -n --branch later
test_expect_success 'the text output names the evidence' '
	[[ $OUT == *"later (FIX): in since $(s12 $S1) (v1.1): its message names $(s12 $U)"* ]]
'
test_expect_success '...and no '\''found:'\'' line: the content does not hold it, the history decided' '
	! printf "%s\n" "$OUT" | grep found:
'
run_kb 0 apply -n --branch upstream
test_expect_success 'the content and the history agreeing: both named, the lines found and the commit' '
	printf "%s\n" "upstream (FIX): the changes of variant '\''patch'\'' are already in '\''upstream'\''; history: in since $(s12 $U): it is the fix'\''s commit $(s12 $U) itself
  found: variant '\''patch'\'' at f.c:15" > want &&
	printf "%s\n" "$(printf "%s\n" "$OUT" | sed -n "/^upstream (FIX)/,/found:/p")" > got &&
	test_cmp want got
'
run_kb 1 apply --branch later --branch reverted
test_expect_success 'already-applied and reverted write no ref' '
	test -z "$(git -C repo for-each-ref --format="%(refname)" refs/heads/backport)"
'
test_expect_success '...the table says reverted' '
	printf "%s\n" "$OUT" | grep -q "^reverted  *FIX  *reverted  *-"
'
run_kb 0 apply --reapply --branch later --branch reverted
test_expect_success '--reapply: the reverted branch gets its backport, the note says it was asked' '
	test "$(git -C repo for-each-ref --format="%(refname)" refs/heads/backport)" = refs/heads/backport/FIX/reverted &&
	printf "%s\n" "$OUT" | grep -qF "reverted by $(s12 $R2) (its message says it reverts $(s12 $R1)): not in, applied again as asked (--reapply, or the fix'\''s reapply: true)"
'
git -C repo update-ref -d refs/heads/backport/FIX/reverted
mkdir -p again && cp -r backports/FIX again/ && echo 'reapply: true' >> again/FIX/fix.yaml
run_kb 0 apply -n --json --fix again/FIX --branch reverted
test_expect_success 'the fix'\''s own reapply: true does as --reapply' '
	test "$(printf "%s" "$OUT" | jq -r '\''.[0].results[0].status'\'')" = applied
'
run_kb 1 apply --mails mails --branch reverted
test_expect_success 'a reverted fix gets a mail: a decision to ask for, not a failed backport' '
	head -n 2 mails/FIX/FAILED-reverted.txt | grep -qxF "Subject: REVERTED: patch \"foo: reject a negative x\" was reverted in the reverted tree" &&
	grep -qF "reverted by $(s12 $R2) after $(s12 $R1) brought it in" mails/FIX/FAILED-reverted.txt
'
test_expect_success 'the user'\''s repository untouched' '
	test_eq "$before" "$(user_state repo)"
'

T_NAME="--no-history"
run_kb 1 apply -n --json --no-history
test_expect_success 'the content alone: the answers of before' '
	test_eq "later conflict null|reverted applied null|reapplied conflict null|rereverted conflict null|elsewhere applied null|patchid conflict null|upstream already-applied null|comment applied null|dropped applied null|merged applied null" "$(printf "%s" "$OUT" | jq -r '\''[.[0].results[] | "\(.branch) \(.status) \(.history)"] | join("|")'\'')"
'

T_NAME="queue"
printf '%s\n' backports/FIX > q.series
run_kb 1 apply -n --json --queue q.series --branch later --branch reverted
test_expect_success 'apply --queue asks the history too' '
	test "$(printf "%s" "$OUT" | jq -r '\''[.branches[].results[] | "\(.branch) \(.status) \(.history.state)"] | join("|")'\'')" = \
		"later already-applied in|reverted reverted reverted"
'
T_NAME="resolved by hand"
# hand REF BRANCH SED SUBJECT: a resolution by hand, as git am leaves it: a
# commit on BRANCH whose f.c is edited by SED, with the fix's SUBJECT, on
# the backport ref REF (a commit made anew on BRANCH each time); its id in HC
hand() {
	git -C repo checkout -q --detach "$2" &&
	sed -i "$3" repo/f.c &&
	git -C repo commit -q -am "$4" &&
	git -C repo update-ref "$1" HEAD &&
	HC=$(at HEAD) &&
	git -C repo checkout -q master
}
# a branch the fix does not apply to (its context changed), resolved by hand
# on the backport ref: once with half the change, once with all of it
git -C repo branch hand v1.0
edit hand 's/^	int v1\([34]\) = /	long v1\1 = /; s/^	int v1\([67]\) = /	long v1\1 = /' "foo: longer values"
H0=$(at hand)
hand refs/heads/backport/FIX/hand hand 's/^	int v15 = 15;$/	int v15 = 15;\n	if (x < 0)/' "foo: reject a negative x"
H1=$HC
printf '%s\n' 'repo: repo' 'branches:' '  - {name: hand, ref: hand}' > hand.yaml
run_kb 1 apply -n --json -c hand.yaml
test_expect_success 'a commit with the subject that carries half the change is no resolution: the conflict stays, the missing hunk named' '
	test_eq "conflict|refs/heads/backport/FIX/hand at $(s12 $H1) does not hold the fix (its commit $(s12 $H1) is '\''foo: reject a negative x'\'', but its tree lacks hunk 1 of '\''f.c'\''): not taken as resolved by hand" "$(printf "%s" "$OUT" | jq -r '\''.[0].results[0] | "\(.status)|\(.notes[-1])"'\'')"
'
hand refs/heads/backport/FIX/hand hand 's/^	int v15 = 15;$/	int v15 = 15;\n	if (x < 0)\n		return -EINVAL;/' "foo: reject a negative x"
H2=$HC
run_kb 0 apply -n --json -c hand.yaml
test_expect_success 'one that carries every hunk is: resolved by hand' '
	test_eq "applied|resolved by hand: refs/heads/backport/FIX/hand at $(s12 $H2) holds the fix|its commit $(s12 $H2) is '\''foo: reject a negative x'\'' and carries every hunk of the fix" "$(printf "%s" "$OUT" | jq -r '\''.[0].results[0] | "\(.status)|\(.detail)|\(.notes[0])"'\'')"
'
git -C repo update-ref -d refs/heads/backport/FIX/hand
# a fix of two hunks, resolved by hand with one of them: partial, not resolved
git -C repo checkout -q -b two v1.0
sed -i 's/^	int v5 = 5;$/	int v5 = 5;\n	if (x > 100)\n		return -E2BIG;/; s/^	int v25 = 25;$/	int v25 = 25;\n	if (x == 7)\n		return -EAGAIN;/' repo/f.c
git -C repo commit -q -am "foo: two checks"
git -C repo format-patch -q -1 -o "$TMP/two" HEAD
git -C repo checkout -q master
run_kb 0 fix new -o backports2 --id TWO "$TMP"/two/*.patch
git -C repo branch twohand v1.0
edit twohand 's/^	int v\([34]\) = /	long v\1 = /; s/^	int v\([67]\) = /	long v\1 = /; s/^	int v2\([34]\) = /	long v2\1 = /; s/^	int v2\([67]\) = /	long v2\1 = /' "foo: longer values"
hand refs/heads/backport/TWO/twohand twohand 's/^	int v5 = 5;$/	int v5 = 5;\n	if (x > 100)\n		return -E2BIG;/' "foo: two checks"
T1=$HC
printf '%s\n' 'repo: repo' 'branches:' '  - {name: twohand, ref: twohand}' > two.yaml
run_kb 1 apply -n --json -c two.yaml --fix backports2/TWO
test_expect_success 'a hand commit with one of the fix'\''s two hunks: partial, the missing hunk named' '
	test_eq "partial|resolved by hand in part: refs/heads/backport/TWO/twohand at $(s12 $T1) holds only part of the fix|refs/heads/backport/TWO/twohand at $(s12 $T1) does not hold the fix (its commit $(s12 $T1) is '\''foo: two checks'\'', but its tree lacks hunk 2 of '\''f.c'\''): not taken as resolved by hand" "$(printf "%s" "$OUT" | jq -r '\''.[0].results[0] | "\(.status)|\(.detail)|\(.notes[-1])"'\'')"
'
git -C repo update-ref -d refs/heads/backport/TWO/twohand

T_NAME="cache"
idx=$(echo work/history/*/index)
test_expect_success 'one index for the repository, and the paths it looked at, under work/history/' '
	test "$(ls work/history | wc -l) $(ls work/history/*/paths | wc -l)" = "1 1"
'
run_kb 1 apply --json	# every branch's tip in the index (not a dry run: that writes none)
printf '%s' "$OUT" > all.json
sum=$(sha1sum < "$idx")
run_kb 1 apply --json
test_expect_success 'an unchanged history: the index reused, not written again' '
	test "$(sha1sum < "$idx")" = "$sum"
'
test_expect_success '...the same answers' '
	test_eq "$(jq -c '\''[.[0].results[] | .status, .history.state, .history.commit.commit]'\'' all.json)" "$(printf "%s" "$OUT" | jq -c '\''[.[0].results[] | .status, .history.state, .history.commit.commit]'\'')"
'
stamp=$(head -c 16 "$idx" | od -An -tx1)
size=$(stat -c %s "$idx")
edit later '/^	if (x < 0)$/,/return -ERANGE;/d' "Revert \"foo: reject a negative x\"

This reverts commit $S1."
S3=$(at later)
git -C repo checkout -q master
run_kb 1 apply --json --branch later
test_expect_success 'a new commit: the index extended (its stamp kept, bigger), not made again' '
	test "$(head -c 16 "$idx" | od -An -tx1)" = "$stamp" &&
	test "$(stat -c %s "$idx")" -gt "$size"
'
test_expect_success '...and the new commit is read: the fix reverted, nothing written' '
	test "$(printf "%s" "$OUT" | jq -r '\''.[0].results[0] | "\(.status) \(.history.state) \(.history.reverted_by.commit)"'\'')" = \
		"reverted reverted $S3"
'
printf 'garbage' > "$idx"
run_kb 1 apply --json --branch later
test_expect_success 'an index that does not read back is made again: the same answer' '
	test "$(printf "%s" "$OUT" | jq -r '\''.[0].results[0] | "\(.status) \(.history.state) \(.history.reverted_by.commit)"'\'')" = \
		"reverted reverted $S3"
'
run_kb 0 apply -n --json --branch patchid -w dry
test_expect_success '--dry-run: no index written' '
	test ! -e dry
'
run_kb 0 apply --json --branch patchid -w alt
test_expect_success '--workdir DIR: the index in DIR/history/' '
	test "$(ls alt/history | wc -l)" = 1
'

finish
