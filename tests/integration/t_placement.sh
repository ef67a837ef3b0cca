#!/usr/bin/env bash
# Where apply places a hunk, and what it answers when it cannot say (issue
# 25): a hunk that fits both ways never counts as in, ambiguities name both
# places and which way each fits, a clean git apply is matched byte for
# byte (or the placement called ambiguous), a new file is decided once, no
# hunk reports more fuzz than --max-fuzz, a hunk with foreign lines between
# its change blocks is placed block by block, and fuzz that drops a context
# line standing changed in the tree is never a silent applied. Each case is
# one file in a fresh repository and one fix made of a plain diff.
source "$(dirname "$0")/../lib.sh"
T_SUITE=placement
hermetic
cd "$TMP"

# kb_case NAME FILE PATCH [PATH]: repository NAME/repo with FILE at PATH (f),
# fix NAME/fixes/stable with PATCH; kbackport apply --json there:
# NAME/out.json, NAME/rc; the backport's PATH in NAME/result when applied.
kb_case() {
	local name=$1 file=$2 patch=$3 path=${4:-f} rc ref
	rm -rf "$name"
	mkdir -p "$name/repo/$(dirname "$path")" "$name/fixes/stable"
	cp "$file" "$name/repo/$path"
	git -C "$name/repo" init -q
	git -C "$name/repo" add -A
	git -C "$name/repo" commit -q -m tree
	{
		printf 'From 1234567890123456789012345678901234567890 Mon Sep 17 00:00:00 2001\n'
		printf 'From: A U Thor <author@example.org>\nDate: Fri, 13 Aug 2010 11:30:58 -0700\n'
		printf 'Subject: [PATCH] the fix\n\nWhy.\n---\n'
		cat "$patch"
	} > "$name/fixes/stable/fix.patch"
	printf 'id: stable\nsubject: "the fix"\nupstream: 1234567890123456789012345678901234567890\npatch: fix.patch\n' \
		> "$name/fixes/stable/fix.yaml"
	printf 'branches:\n  - {name: vendor, ref: master, repo: repo}\n' > "$name/branches.yaml"
	(cd "$name" && ${KB_VALGRIND:-} "$KBACKPORT" apply --json --fix fixes "${@:5}" > out.json 2> err.txt)
	rc=$?
	echo "$rc" > "$name/rc"
	ref=$(jq -r '.[0].results[0].ref // empty' "$name/out.json")
	[ -z "$ref" ] || git -C "$name/repo" show "$ref:$path" > "$name/result"
	return 0
}
# res NAME JQ: a field of NAME's one result
res() { jq -r ".[0].results[0] | $2" "$1/out.json"; }
# git_result NAME PATCH [PATH]: what git apply makes of NAME's tree, in NAME/git
git_result() {
	rm -rf "$1/gitwt"
	git clone -q "$1/repo" "$1/gitwt" && git -C "$1/gitwt" apply "$TMP/$2" &&
		cp "$1/gitwt/${3:-f}" "$1/git"
}
lines() { printf '%s\n' "$@"; }

# ---- 3, 4: a hunk that fits both ways is never in; both places named ----
lines a1 X a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a1 Y a3 b1 b2 b3 b4 NEW b5 b6 > both.f
cat > both.diff <<'EOF'
--- a/f
+++ b/f
@@ -1,3 +1,3 @@
 a1
-X
+Y
 a3
@@ -16,6 +16,7 @@
 b1
 b2
 b3
 b4
+NEW
 b5
 b6
EOF
kb_case both both.f both.diff
test_expect_success 'a hunk that fits at its line and in reverse elsewhere, beside one in: conflict' '
	test "$(cat both/rc) $(res both .status)" = "1 conflict" &&
	test "$(res both "[.hunks[].status] | join(\" \")")" = "ambiguous in"
'
test_expect_success 'the ambiguity names the place it fits and the place its reverse fits' '
	test "$(res both .detail)" = "variant '\''patch'\'' does not apply: hunk 1 of '\''f'\'' fits more than one place (line 1 forward, line 13 in reverse): not guessing"
'
head -7 both.diff > alone.diff
kb_case alone both.f alone.diff
test_expect_success 'alone, the same hunk is a conflict with the same places' '
	test "$(cat alone/rc) $(res alone .status)" = "1 conflict" &&
	test "$(res alone ".notes[0]")" = "hunk 1 of '\''f'\'' fits more than one place (line 1 forward, line 13 in reverse): not guessing"
'
# the hunk second, and the one before it in: the forward pass hung hunk 1
# on its leading context once more, the places are still the tree's lines
lines b1 b2 b3 b4 NEW b5 b6 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 c18 c19 a1 X a3 \
	c23 c24 c25 c26 c27 c28 c29 c30 a1 Y a3 > second.f
cat > second.diff <<'EOF'
--- a/f
+++ b/f
@@ -1,6 +1,7 @@
 b1
 b2
 b3
 b4
+NEW
 b5
 b6
@@ -19,3 +20,3 @@
 a1
-X
+Y
 a3
EOF
kb_case second second.f second.diff
test_expect_success 'the ambiguous hunk second, the first one in: conflict, the tree'\''s lines named' '
	test "$(cat second/rc) $(res second .status)" = "1 conflict" &&
	test "$(res second "[.hunks[] | \"\(.status) \(.line)\"] | join(\" \")")" = "in 1 ambiguous 20" &&
	test "$(res second ".notes[0]")" = "hunk 2 of '\''f'\'' fits more than one place (line 20 forward, line 31 in reverse): not guessing"
'
# the same, the hunk that is in being in another file
{ head -7 both.diff; printf -- '--- a/g\n+++ b/g\n'; sed -n '8,$p' both.diff; } > twofiles.diff
kb_case twofiles both.f twofiles.diff
cp both.f twofiles/repo/g && git -C twofiles/repo add g && git -C twofiles/repo commit -q -m g
(cd twofiles && ${KB_VALGRIND:-} "$KBACKPORT" apply --json --fix fixes > out.json 2>err.txt; echo $? > rc)
test_expect_success 'the ambiguous hunk in one file, the other file in: conflict, never already-applied' '
	test "$(cat twofiles/rc) $(res twofiles .status)" = "1 conflict" &&
	test "$(res twofiles "[.hunks[] | \"\(.file) \(.status)\"] | join(\", \")")" = "f ambiguous, g in"
'
# the mirror: the reverse at its own line, the change 12 lines further
lines a1 Y a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a1 X a3 b1 b2 b3 b4 NEW b5 b6 > mirror.f
kb_case mirror mirror.f both.diff
test_expect_success 'its reverse at its own line, the change further away: already-applied' '
	test "$(cat mirror/rc) $(res mirror .status)" = "0 already-applied" &&
	test "$(res mirror "[.hunks[].status] | join(\" \")")" = "in in"
'
# fuzz finds the kept lines twice: both places, both forward
lines x1 '{' '	return 0;' '}' x2 '' y1 '{' '	return 0;' '}' y2 > twice.f
cat > twice.diff <<'EOF'
--- a/f
+++ b/f
@@ -1,5 +1,6 @@
 q1
 {
 	return 0;
+	new();
 }
 q2
EOF
kb_case twice twice.f twice.diff
test_expect_success 'kept lines that fit twice: both places named, both forward' '
	test "$(cat twice/rc) $(res twice .status)" = "1 conflict" &&
	test "$(res twice ".notes[0]")" = "hunk 1 of '\''f'\'' fits more than one place (line 1 forward, line 7 forward): not guessing"
'

# ---- 6: where git apply puts a hunk ----
cat > tie.diff <<'EOF'
--- a/f
+++ b/f
@@ -10,3 +10,3 @@
 B1
-B2
+NEW
 B3
EOF
lines x1 x2 x3 x4 B1 B2 B3 x8 x9 x10 x11 x12 x13 x14 B1 B2 B3 x18 x19 x20 > tie.f
cat > before.diff <<'EOF'
--- a/f
+++ b/f
@@ -2,3 +2,4 @@
 a2
-a3
+A3
+A3b
 a4
@@ -10,3 +11,3 @@
 B1
-B2
+NEW
 B3
EOF
lines p1 p2 B1 B2 B3 p6 p7 p8 p9 p10 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 > before.f
cat > agree.diff <<'EOF'
--- a/f
+++ b/f
@@ -2,3 +2,3 @@
 a2
-a3
+A3
 a4
@@ -10,3 +10,3 @@
 B1
-B2
+NEW
 B3
EOF
lines v1 v2 v3 a1 a2 a3 a4 a5 a6 a7 a8 a9 B1 B2 B3 c1 c2 B1 B2 B3 c3 > agree.f
for c in tie before agree; do
	kb_case "$c" "$c.f" "$c.diff"
	test_expect_success "$c: a repeated block, applied where git apply puts it, byte for byte" '
		test "$(cat $c/rc) $(res $c .status)" = "0 applied" &&
		git_result $c $c.diff &&
		test_cmp $c/git $c/result
	'
done
lines v1 v2 v3 v4 v5 v6 a1 a2 a3 a4 a5 B1 B2 B3 a9 B1 B2 B3 c1 c2 > disagree.f
kb_case disagree disagree.f agree.diff
test_expect_success 'its own line and the earlier hunk'\''s offset name two places: ambiguous' '
	git_result disagree agree.diff &&
	test "$(cat disagree/rc) $(res disagree .status)" = "1 conflict" &&
	test "$(res disagree ".notes[0]")" = "hunk 2 of '\''f'\'' fits more than one place (line 16 forward nearest the earlier hunks'\'' offset, line 12 forward nearest its own line): not guessing"
'

# ---- 8: a fix that creates a file (the ASan and valgrind runs of this
# suite check that nothing leaks) ----
cat > create.diff <<'EOF'
diff --git a/new.c b/new.c
new file mode 100644
--- /dev/null
+++ b/new.c
@@ -0,0 +1,2 @@
+int y;
+int z;
EOF
lines 'int x;' > create.f
kb_case create create.f create.diff
test_expect_success 'a fix that creates a file applies, and the file is what it adds' '
	test "$(cat create/rc) $(res create .status)" = "0 applied" &&
	lines "int y;" "int z;" >want &&
	git -C create/repo show "$(res create .ref):new.c" >got &&
	test_cmp want got
'

# ---- 18: no placement beyond --max-fuzz ----
cat > anchor.diff <<'EOF'
--- a/h.h
+++ b/h.h
@@ -3,6 +3,8 @@
 a
 b
 c
+
+#define NEW 1
 #endif /* K */
 
 #endif /* H */
EOF
lines '#ifndef H' '#ifdef K' a b c '' more stuff '#endif /* K */' '' '#endif /* H */' > anchor.f
for fuzz in 0 1 2; do
	kb_case anchor$fuzz anchor.f anchor.diff h.h --max-fuzz $fuzz
	test_expect_success "--max-fuzz $fuzz: hung on its trailing context, no fuzz above $fuzz reported" '
		test "$(res anchor$fuzz .status)" = applied &&
		test "$(res anchor$fuzz ".hunks[0] | \"\(.anchor) \(.fuzz)\"")" = "trailing 0"
	'
done
cat > sides.diff <<'EOF'
--- a/f
+++ b/f
@@ -2,6 +2,7 @@
 a
 b
 c
+NEW
 d
 e
 f
EOF
lines z a b c q q d e f z > sides.f
kb_case sides sides.f sides.diff
test_expect_success 'each side of an insertion fits once, apart: ambiguous, no fuzz reported' '
	test "$(res sides .status)" = conflict &&
	test "$(res sides ".hunks[0] | \"\(.status) \(.anchor) \(.fuzz)\"")" = "ambiguous leading 0" &&
	test "$(res sides ".notes[0]")" = "hunk 1 of '\''f'\'' fits more than one place (line 2 forward by its leading context, line 4 forward by its trailing context): not guessing"
'

# ---- 19: block by block ----
cat > blocks.diff <<'EOF'
--- a/f.c
+++ b/f.c
@@ -3,11 +3,11 @@ int f(void)
 	int a;
 	int b;
 	lock();
-	a = old_a();
+	a = new_a();
 	b = 1;
 	c = 2;
 	d = 3;
-	unlock_old();
+	unlock_new();
 	return a;
 }
 
EOF
# f.c with the fix in (new) or not (old), four comment lines put after line $2
f_c() {
	local i=0 l
	for l in 'int f(void)' '{' '	int a;' '	int b;' '	lock();' "	a = $1_a();" '	b = 1;' \
		'	c = 2;' '	d = 3;' "	unlock_$1();" '	return a;' '}' '' 'int g(void)' '{' '	return 0;' '}'; do
		printf '%s\n' "$l"
		i=$((i + 1))
		[ "$i" -ne "$2" ] || printf '\t/*\n\t * d must be set last:\n\t * see g()\n\t */\n'
	done
}
for at in 8 9; do
	f_c new $at > fixed$at.f
	kb_case fixed$at fixed$at.f blocks.diff f.c
	test_expect_success "four comment lines between its two changes (after line $at): already-applied" '
		test "$(cat fixed$at/rc) $(res fixed$at .status)" = "0 already-applied" &&
		test "$(res fixed$at ".hunks[0].anchor")" = blocks &&
		test "$(res fixed$at ".notes[0]")" = "hunk 1 of '\''f.c'\'' is already in, at line 3 (offset +0, block by block, 4 lines of the tree between its blocks)"
	'
	f_c old $at > unfixed$at.f
	kb_case unfixed$at unfixed$at.f blocks.diff f.c
	test_expect_success "the same tree without the fix: applied around the comment" '
		test "$(cat unfixed$at/rc) $(res unfixed$at .status)" = "0 applied" &&
		test_cmp fixed$at.f unfixed$at/result
	'
done
f_c old 8 | sed '8a\	/* five */\n\t/* six */\n\t/* seven */\n\t/* eight */\n\t/* nine */' > far.f
kb_case far far.f blocks.diff f.c
test_expect_success 'nine foreign lines between the blocks: too far apart, a conflict' '
	test "$(cat far/rc) $(res far .status)" = "1 conflict"
'

# ---- 20: fuzz over a context line that stands changed ----
cat > unlock.diff <<'EOF'
--- a/f.c
+++ b/f.c
@@ -3,7 +3,6 @@ void f(struct s *s)
 	spin_lock_irq(&s->lock);
 	a(s);
 	b(s);
-	spin_unlock_irq(&s->lock);
 	c(s);
 	d(s);
 	e(s);
EOF
lines 'void f(struct s *s)' '{' '	spin_lock(&s->lock);' '	a(s);' '	b(s);' \
	'	spin_unlock_irq(&s->lock);' '	c(s);' '	d(s);' '	e(s);' '}' > renamed.f
kb_case renamed renamed.f unlock.diff f.c
# fuzz is a witness (issue 37, 4): the line it dropped names the lock the
# fix's change names, and the tree has no such line: the lock this fix
# builds on is not taken here, a prerequisite is missing
test_expect_success 'fuzz dropped a context line the tree lacks, naming what the change names: a conflict' '
	test "$(cat renamed/rc) $(res renamed .status)" = "1 conflict" &&
	test_eq "variant '\''patch'\'' does not apply: hunk 1 of '\''f.c'\'' applies only by fuzz over its context line '\''	spin_lock_irq(&s->lock);'\'', which the tree lacks: a change it builds on is missing" "$(res renamed .detail)" &&
	test_eq "hunk 1 of '\''f.c'\'' dropped its context line '\''	spin_lock_irq(&s->lock);'\'' by fuzz; the tree has no such line, and it names '\''lock'\'' as the fix'\''s change does: a prerequisite is missing" "$(res renamed ".notes[0]")" &&
	test "$(res renamed ".hunks[0].status") $(res renamed ".hunks[0].line")" = "failed null"
'
lines 'void f(struct s *s)' '{' '	memset(buf, 0, sizeof(buf));' '	a(s);' '	b(s);' \
	'	spin_unlock_irq(&s->lock);' '	c(s);' '	d(s);' '}' > unrelated.f
kb_case unrelated unrelated.f unlock.diff f.c
test_expect_success 'the same line lacking, other text in its place: a conflict too' '
	test "$(res unrelated .status)" = conflict &&
	test "$(res unrelated ".hunks[0].status")" = failed
'
lines 'void g(struct s *s)' '{' '	spin_lock_irq(&s->lock);' '}' 'void f(struct s *s)' '{' \
	'	spin_lock(&s->lock);' '	a(s);' '	b(s);' '	spin_unlock_irq(&s->lock);' '	c(s);' '	d(s);' \
	'	e(s);' '}' > elsewhere.f
kb_case elsewhere elsewhere.f unlock.diff f.c
test_expect_success 'fuzz over a line the tree holds unchanged elsewhere in the file: applied as before, with the warning' '
	test "$(cat elsewhere/rc) $(res elsewhere .status)" = "0 applied" &&
	test_eq "applied variant '\''patch'\''; warning: hunk 1 of '\''f.c'\'' dropped its context line '\''spin_lock_irq(&s->lock);'\'' by fuzz, and line 7 of the tree holds it changed: a change this fix builds on may be missing; check the result" "$(res elsewhere .detail)" &&
	test "$(res elsewhere ".hunks[0].changed_context | \"\(.line) \(.text)\"")" = "7 	spin_lock_irq(&s->lock);"
'
cat > comment.diff <<'EOF'
--- a/f.c
+++ b/f.c
@@ -3,7 +3,6 @@ void f(struct s *s)
 	/* take the lock */
 	a(s);
 	b(s);
-	spin_unlock_irq(&s->lock);
 	c(s);
 	d(s);
 	e(s);
EOF
lines 'void f(struct s *s)' '{' '	/* the lock is taken by the caller */' '	a(s);' '	b(s);' \
	'	spin_unlock_irq(&s->lock);' '	c(s);' '	d(s);' '	e(s);' '}' > comment.f
kb_case comment comment.f comment.diff f.c
test_expect_success 'fuzz over a comment the tree words otherwise: applied' '
	test "$(cat comment/rc) $(res comment .status)" = "0 applied"
'
# ---- content finds what is in (issue 37, 5): a check a vendor tree holds a
# few lines from where the patch expects it, inside the same function ----
cat > near.diff <<'EOF'
--- a/f.c
+++ b/f.c
@@ -3,6 +3,8 @@ int mount(struct sb *sb)
 	int err;
 
 	err = parse(sb);
+	if (sb->depth > MAX_DEPTH)
+		return -EINVAL;
 	if (err)
 		return err;
 	err = fill(sb);
EOF
lines 'int mount(struct sb *sb)' '{' '	int err;' '' '	err = parse(sb);' '	if (err)' '		return err;' \
	'	err = fill(sb);' '	if (sb->depth > MAX_DEPTH)' '		return -EINVAL;' '	return err;' '}' > near.f
kb_case near near.f near.diff f.c
test_expect_success 'its added lines in order a few lines below its place, in its function: already-applied, the place said' '
	test "$(cat near/rc) $(res near .status)" = "0 already-applied" &&
	test_eq "hunk 1 of '\''f.c'\'' is in by its lines: the first it adds at line 9, every one in order within its function, where the patch puts them at line 6" "$(res near ".notes[0]")" &&
	test "$(res near ".hunks[0] | \"\(.status) \(.tree.state) \(.tree.near)\"")" = "in post-image true"
'
lines 'int mount(struct sb *sb)' '{' '	int err;' '' '	err = parse(sb);' '	if (err)' '		return err;' \
	'	err = fill(sb);' '	return err;' '}' 'int remount(struct sb *sb)' '{' '	if (sb->depth > MAX_DEPTH)' \
	'		return -EINVAL;' '	return 0;' '}' > nextfn.f
kb_case nextfn nextfn.f near.diff f.c
test_expect_success 'the same lines in the next function: not this one'\''s check, the fix applies' '
	test "$(cat nextfn/rc) $(res nextfn .status)" = "0 applied" &&
	test "$(res nextfn ".hunks[0].tree.near")" = false
'

# ---- the variant named is the variant applied (issue 37, 6) ----
# a fix whose first variant's hunks do not fit the tree, and whose file the
# second variant's hunks change: the second is named, its note in the commit
mkdir -p named/fix/NAMED named/repo
lines 'int f(void)' '{' '	int a = 1;' '	int b = 2;' '	return old_call(a, b);' '}' > named/repo/f.c
git -C named/repo init -q && git -C named/repo add -A && git -C named/repo commit -q -m tree
cat > named/fix/NAMED/upstream.patch <<'EOF'
From 1234567890123456789012345678901234567890 Mon Sep 17 00:00:00 2001
From: A U Thor <author@example.org>
Date: Fri, 13 Aug 2010 11:30:58 -0700
Subject: [PATCH] f: check b

Why.
---
--- a/f.c
+++ b/f.c
@@ -2,5 +2,7 @@ int f(void)
 {
 	int a = 1;
 	long b = 2;
+	if (b < 0)
+		return -EINVAL;
 	return new_call(a, b);
 }
EOF
cat > named/fix/NAMED/older.patch <<'EOF'
--- a/f.c
+++ b/f.c
@@ -2,5 +2,7 @@ int f(void)
 {
 	int a = 1;
 	int b = 2;
+	if (b < 0)
+		return -EINVAL;
 	return old_call(a, b);
 }
EOF
cat > named/fix/NAMED/fix.yaml <<'EOF'
id: NAMED
subject: "f: check b"
patch: upstream.patch
variants:
  - name: upstream
    patch: upstream.patch
    why: "trees with new_call() and a long b"
  - name: older
    patch: older.patch
    why: "trees with old_call()"
    note: "older: old_call() here"
EOF
printf 'repo: repo\nbranches:\n  - {name: b, ref: HEAD}\n' > named/branches.yaml
( cd named && ${KB_VALGRIND:-} "$KBACKPORT" apply --json -c branches.yaml --fix fix/NAMED > out.json; echo $? > rc )
test_expect_success 'the other variant'\''s hunks applied: that variant named, in the table and --json' '
	test "$(cat named/rc) $(res named .status) $(res named .variant)" = "0 applied older" &&
	test "$(res named .detail)" = "applied variant '\''older'\''" &&
	test "$(res named ".hunks[0].variant")" = older
'
test_expect_success '...and its note in the commit message' '
	git -C named/repo log -1 --format=%B refs/heads/backport/NAMED/b | grep -qxF "[ older: old_call() here ]"
'

# ---- a file that moved (issue 37, 7) ----
cat > moved.diff <<'EOF'
--- a/fs/xfs/linux-2.6/xfs_acl.c
+++ b/fs/xfs/linux-2.6/xfs_acl.c
@@ -2,5 +2,5 @@ struct acl *from_disk(struct disk_acl *d)
 {
 	struct acl *acl;
-	int count, i;
+	unsigned int count, i;
 
 	count = be32_to_cpu(d->cnt);
EOF
lines 'struct acl *from_disk(struct disk_acl *d)' '{' '	struct acl *acl;' '	int count, i;' '' \
	'	count = be32_to_cpu(d->cnt);' '	return acl;' '}' > moved.f
kb_case moved moved.f moved.diff fs/xfs/xfs_acl.c
test_expect_success 'the fix'\''s file moved in the tree: applied there, said so' '
	test "$(cat moved/rc) $(res moved .status)" = "0 applied" &&
	test_eq "'\''fs/xfs/linux-2.6/xfs_acl.c'\'' is '\''fs/xfs/xfs_acl.c'\'' in this tree (the file moved): its hunks placed there" "$(res moved ".notes[0]")" &&
	test "$(res moved ".hunks[0] | \"\(.file) \(.moved_to) \(.tree.state)\"")" = "fs/xfs/linux-2.6/xfs_acl.c fs/xfs/xfs_acl.c pre-image"
'
test_expect_success '...the commit changes the file where it is, and nothing else' '
	git -C moved/repo diff --name-only HEAD refs/heads/backport/stable/vendor > files &&
	echo fs/xfs/xfs_acl.c > want && test_cmp want files &&
	git -C moved/repo show refs/heads/backport/stable/vendor:fs/xfs/xfs_acl.c | grep -qxF "	unsigned int count, i;"
'
rm -rf twice && mkdir -p twice/repo/fs/a twice/repo/fs/b twice/fixes
cp moved.f twice/repo/fs/a/xfs_acl.c && cp moved.f twice/repo/fs/b/xfs_acl.c
git -C twice/repo init -q && git -C twice/repo add -A && git -C twice/repo commit -q -m tree
cp -r moved/fixes/stable twice/fixes/ && cp moved/branches.yaml twice/
( cd twice && ${KB_VALGRIND:-} "$KBACKPORT" apply -n --json -c branches.yaml --fix fixes/stable > out.json; echo $? > rc )
test_expect_success 'two files of its name that the hunks fit: no guess, both named' '
	test "$(cat twice/rc) $(res twice .status)" = "1 conflict" &&
	test_eq "'\''fs/xfs/linux-2.6/xfs_acl.c'\'': no file '\''fs/xfs/linux-2.6/xfs_acl.c'\'' in the tree; the hunks fit more than one file of its name: '\''fs/a/xfs_acl.c'\'', '\''fs/b/xfs_acl.c'\''" "$(res twice ".notes[0]")"
'

finish
