#!/usr/bin/env bash
# A hunk that deletes a file is checked like any other: it deletes the file
# only when the file is exactly what it removes (git apply refuses the same).
source "$(dirname "$0")/../lib.sh"
T_SUITE=deletion
hermetic
cd "$TMP"
git init -q repo
printf 'int a;\nint b;\nint c;\n' > repo/gone.c
printf 'keep\n' > repo/keep.c
git -C repo add -A && git -C repo commit -q -m base
git -C repo checkout -q -b other
printf 'int a;\nint other;\nint c;\n' > repo/gone.c
git -C repo commit -q -am "other content"
git -C repo checkout -q -b more master
printf 'int a;\nint b;\nint c;\nint d;\n' > repo/gone.c
git -C repo commit -q -am "more content"
git -C repo checkout -q master
mkdir -p fixes/del
cat > fixes/del/del.patch <<'PATCH'
From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
From: A U Thor <author@example.org>
Date: Wed, 2 Mar 2011 00:33:13 +0300
Subject: [PATCH] remove gone.c

---
diff --git a/gone.c b/gone.c
deleted file mode 100644
--- a/gone.c
+++ /dev/null
@@ -1,3 +0,0 @@
-int a;
-int b;
-int c;
PATCH
cat > fixes/del/fix.yaml <<'YAML'
id: del
subject: "remove gone.c"
upstream: 1111111111111111111111111111111111111111
patch: del.patch
variants:
  - {name: plain, patch: del.patch, why: "the patch itself"}
YAML
cat > branches.yaml <<'YAML'
repo: repo
branches:
  - {name: same, ref: master}
  - {name: other, ref: other}
  - {name: more, ref: more}
YAML
run_kb 1 apply --json --fix fixes
field() { echo "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
test_expect_success 'the file as the patch knows it is deleted' 'test "$(field same .status)" = applied'
test_expect_success 'deleted in the backport' '
	test "$(git -C repo ls-tree --name-only backport/del/same -- gone.c)" = ""
'
test_expect_success 'a file with other content is not deleted' 'test "$(field other .status)" = conflict'
test_expect_success 'which hunk' '
	[[ $(field other '\''.notes | join("\n")'\'') == *"hunk 1 of '\''gone.c'\'' does not apply"* ]]
'
test_expect_success 'no ref for the conflict' '
	test "$(git -C repo for-each-ref refs/heads/backport/del/other)" = ""
'
test_expect_success 'a file holding more than the patch removes is not deleted' 'test "$(field more .status)" = conflict'
test_expect_success 'which hunk, there too' '
	[[ $(field more '\''.notes | join("\n")'\'') == *"hunk 1 of '\''gone.c'\'' does not apply"* ]]
'
git -C repo checkout -q other
test_expect_success 'git apply refuses it too' '
	test "$(git -C repo apply --check ../fixes/del/del.patch 2>/dev/null; echo $?)" = 1
'
git -C repo checkout -q master
# once deleted, the deletion is in
git -C repo rm -q gone.c && git -C repo commit -q -m "deleted"
run_kb 0 apply --json --fix fixes --branch same
test_expect_success 'a deleted file counts as the deletion being in' 'test "$(field same .status)" = already-applied'
finish
