#!/usr/bin/env bash
# kbackport fix new: fix directories from a format-patch file, a mail-style
# (DEP-3) patch, an mbox and a commit; the fixes load and apply with no
# variants; bad input is refused with nothing written.
source "$(dirname "$0")/../lib.sh"
T_SUITE=fix-new
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cd "$TMP"
UPSTREAM=8909c9ad8ff03611c9c96c9a92656213e4bb495b
PATCH=$TOP_DIR/backports/CVE-2011-1019/upstream.patch

T_NAME="format-patch"
run_kb 0 fix new -o fixes "$PATCH" &&
	assert_eq "says what it made" "created fixes/CVE-2011-1019/: net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules" "$OUT"
assert_file_eq "the patch as given" "$PATCH" fixes/CVE-2011-1019/fix.patch
assert_eq "fix.yaml: id from the CVE, subject, upstream from the From line, no variants" \
"id: CVE-2011-1019
subject: \"net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules\"
upstream: $UPSTREAM
cve: CVE-2011-1019
patch: fix.patch" "$(grep -v '^#' fixes/CVE-2011-1019/fix.yaml)"
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: 2.6.37.y, ref: linux-2.6.37.y}
  - {name: 2.6.32.y, ref: linux-2.6.32.y}
YAML
run_kb 1 apply --fix fixes --json
assert_eq "a fix without variants: its patch is its one variant" "applied patch" \
	"$(echo "$OUT" | jq -r '.results[0] | "\(.status) \(.variant)"')"
for f in $(cd "$FIXTURES/eras/2.6.37/expected" && find . -type f | sed 's|^\./||'); do
	git -C repos/linux show "refs/heads/backport/CVE-2011-1019/2.6.37.y:$f" > got
	assert_file_eq "...$f as the hand-made fix's upstream variant makes it" \
		"$FIXTURES/eras/2.6.37/expected/$f" got
done
assert_eq "...and a conflict where it does not fit, saying why" "conflict" \
	"$(echo "$OUT" | jq -r '.results[1].status')"

T_NAME="mail-style"
cat > dep3.patch <<'MAIL'
From: A U Thor <author@example.org>
Date: Tue, 1 Mar 2011 10:00:00 +0000
Subject: [PATCH] sit: use the netdev alias

commit 1111111111111111111111111111111111111111 upstream.

Fixes CVE-2011-9999.
---
diff --git a/net/ipv6/sit.c b/net/ipv6/sit.c
--- a/net/ipv6/sit.c
+++ b/net/ipv6/sit.c
@@ -1,1 +1,1 @@
-MODULE_ALIAS("sit0");
+MODULE_ALIAS_NETDEV("sit0");
MAIL
run_kb 0 fix new -o fixes dep3.patch
assert_eq "id from the CVE in the message, upstream from the message" \
	"CVE-2011-9999 1111111111111111111111111111111111111111" \
	"$(sed -n 's/^id: //p; s/^upstream: //p' fixes/CVE-2011-9999/fix.yaml | tr '\n' ' ' | sed 's/ $//')"

T_NAME="DEP-3 Origin"
{ printf 'From: Ben Hutchings <ben@example.org>\nDate: Tue, 1 Mar 2011 10:00:00 +0000\nSubject: sit: the alias\n'
  printf 'Origin: https://git.kernel.org/linus/4444444444444444444444444444444444444444\nForwarded: not-needed\n\nWhy.\n---\n'
  sed -n '/^diff --git/,$p' dep3.patch; } > origin.patch
run_kb 0 fix new -o fixes origin.patch
assert_eq "upstream from the Origin header, id from the subject" "sit-the-alias 4444444444444444444444444444444444444444" \
	"$(sed -n 's/^id: //p; s/^upstream: //p' fixes/sit-the-alias/fix.yaml | tr '\n' ' ' | sed 's/ $//')"

T_NAME="DEP-3 Description"
{ printf 'Description: sit: the alias, described\n The long text names CVE-2011-8888.\n .\n A second paragraph.\n'
  printf 'Author: Ben Hutchings <ben@example.org>\nOrigin: upstream, https://git.kernel.org/linus/5555555555555555555555555555555555555555\n\n---\n'
  sed -n '/^diff --git/,$p' dep3.patch; } > described.patch
run_kb 0 fix new -o fixes described.patch
assert_eq "subject from the Description, CVE from its long text, upstream from Origin" \
	"CVE-2011-8888 sit: the alias, described 5555555555555555555555555555555555555555" \
	"$(sed -n 's/^id: //p; s/^subject: "\(.*\)"$/\1/p; s/^upstream: //p' fixes/CVE-2011-8888/fix.yaml | tr '\n' ' ' | sed 's/ $//')"

T_NAME="mbox"
{ cat "$PATCH"; echo; sed 's/CVE-2011-9999/nothing/' dep3.patch | sed '1i From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001'; } > two.mbox
run_kb 0 fix new -o mbox-fixes --from-mbox two.mbox
assert_eq "one fix per mail, ids from the CVE or the subject" "CVE-2011-1019 sit-use-the-netdev-alias" \
	"$(ls mbox-fixes | tr '\n' ' ' | sed 's/ $//')"

T_NAME="commit"
git init -q src
printf 'a\n' > src/f && git -C src add f && git -C src commit -q -m "add f"
printf 'b\n' > src/f && git -C src commit -q -am "f: say b" -m "[ Upstream commit 3333333333333333333333333333333333333333 ]"
run_kb 0 fix new -o fixes --from-commit src HEAD
assert_eq "id from the subject, upstream from the message" "f-say-b 3333333333333333333333333333333333333333" \
	"$(sed -n 's/^id: //p; s/^upstream: //p' fixes/f-say-b/fix.yaml | tr '\n' ' ' | sed 's/ $//')"
assert_contains "the patch is the commit's" "+b" "$(cat fixes/f-say-b/fix.patch)"

T_NAME="no upstream commit"
# A distribution's own patch names no upstream commit (as most of Debian's
# debian/*.patch), here behind a mail client's mbox separator line.
{ echo 'From MAILER-DAEMON Thu Jan  1 00:00:00 1970'; sed '/upstream\./d' dep3.patch; } > noup.patch
run_kb 0 fix new -o noup-fixes noup.patch
assert_eq "fix.yaml without upstream" \
"id: CVE-2011-9999
subject: \"sit: use the netdev alias\"
cve: CVE-2011-9999
patch: fix.patch" "$(grep -v '^#' noup-fixes/CVE-2011-9999/fix.yaml)"
run_kb 0 apply --fix noup-fixes --branch 2.6.37.y --json
assert_eq "it applies" "applied" "$(echo "$OUT" | jq -r '.results[0].status')"
assert_eq "the message as git am writes it: no upstream line" "sit: use the netdev alias

Fixes CVE-2011-9999." "$(git -C repos/linux log -1 --format=%B refs/heads/backport/CVE-2011-9999/2.6.37.y)"
sed 's/"sit0"/"nope0"/' noup.patch > noup-fixes/CVE-2011-9999/fix.patch
# (the ref the first apply wrote holds a commit with the fix's subject: it
# would be taken as the conflict resolved by hand, see t_handcmd.sh)
git -C repos/linux update-ref -d refs/heads/backport/CVE-2011-9999/2.6.37.y
run_kb 1 apply --fix noup-fixes --branch 2.6.37.y --json
assert_eq "a conflict's commands: git am of the patch, nothing to cherry-pick" \
	"git -C $TMP/repos/linux-CVE-2011-9999-2.6.37.y am -3 $TMP/noup-fixes/CVE-2011-9999/fix.patch" \
	"$(echo "$OUT" | jq -r '.results[0].reproduce[]' | grep -e ' am -3 ' -e cherry-pick)"

T_NAME="dry run"
run_kb 0 fix new -o dry --dry-run "$PATCH"
assert_contains "says what it would write" "would create dry/CVE-2011-1019/fix.patch" "$OUT"
assert_eq "writes nothing" "no" "$([ -e dry ] && echo yes || echo no)"

T_NAME="bad input"
printf 'From: x <x@example.org>\nSubject: [PATCH] words only\n\nno diff here\n' > nodiff.patch
run_kb 2 fix new -o bad nodiff.patch && assert_contains "a mail with no patch" "nodiff.patch" "$ERR"
{ cat "$PATCH"; echo; cat "$PATCH"; } > twice.mbox
run_kb 2 fix new -o bad --from-mbox twice.mbox &&
	assert_eq "two patches with one id" "error: two patches with one id 'CVE-2011-1019': twice.mbox (mail 1) and twice.mbox (mail 2)" "$ERR"
run_kb 2 fix new -o fixes "$PATCH" &&
	assert_eq "an id that is taken" "error: $PATCH: fix 'CVE-2011-1019' exists already: 'fixes/CVE-2011-1019'" "$ERR"
sed 's/^commit 1111/commit 11/' dep3.patch > badup.patch
run_kb 2 fix new -o bad --upstream 1234 badup.patch && assert_contains "a bad upstream commit" "40 lowercase hex digits" "$ERR"
run_kb 2 fix new -o bad --id x --from-mbox two.mbox && assert_contains "--id for two patches" "there are 2 patches" "$ERR"
run_kb 2 fix new -o bad --id ../x "$PATCH" && assert_contains "an id that is no name" "cannot be a fix id" "$ERR"
run_kb 2 fix new -o bad no-such.patch && assert_contains "a missing file" "no-such.patch" "$ERR"
run_kb 2 fix new && assert_contains "no patch at all" "no patch given" "$ERR"
assert_eq "nothing written by any of them" "no" "$([ -e bad ] && echo yes || echo no)"
finish
