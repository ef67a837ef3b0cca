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
run_kb 0 fix new -o fixes "$PATCH"
test_expect_success 'says what it made' '
	test_eq "created fixes/CVE-2011-1019/: net: don'\''t allow CAP_NET_ADMIN to load non-netdev kernel modules" "$OUT"
'
test_expect_success 'the patch as given' '
	test_cmp "$PATCH" fixes/CVE-2011-1019/fix.patch
'
test_expect_success 'fix.yaml: id from the CVE, subject, upstream from the From line, no variants' '
	printf "%s\n" "id: CVE-2011-1019
subject: \"net: don'\''t allow CAP_NET_ADMIN to load non-netdev kernel modules\"
upstream: $UPSTREAM
cve: CVE-2011-1019
patch: fix.patch" > want &&
	printf "%s\n" "$(grep -v "^#" fixes/CVE-2011-1019/fix.yaml)" > got &&
	test_cmp want got
'
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: 2.6.37.y, ref: linux-2.6.37.y}
  - {name: 2.6.32.y, ref: linux-2.6.32.y}
YAML
run_kb 1 apply --fix fixes --json
test_expect_success 'a fix without variants: its patch is its one variant' '
	test "$(echo "$OUT" | jq -r '\''.[0].results[0] | "\(.status) \(.variant)"'\'')" = "applied patch"
'
for f in $(cd "$FIXTURES/eras/2.6.37/expected" && find . -type f | sed 's|^\./||'); do
	test_expect_success "...$f as the hand-made fix's upstream variant makes it" '
		git -C repos/linux show "refs/heads/backport/CVE-2011-1019/2.6.37.y:$f" > got &&
		test_cmp "$FIXTURES/eras/2.6.37/expected/$f" got
	'
done
test_expect_success '...and a conflict where it does not fit, saying why' '
	test "$(echo "$OUT" | jq -r ".[0].results[1].status")" = conflict
'

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
test_expect_success 'id from the CVE in the message, upstream from the message' '
	test "$(sed -n "s/^id: //p; s/^upstream: //p" fixes/CVE-2011-9999/fix.yaml | tr "\n" " " | sed "s/ \$//")" = \
		"CVE-2011-9999 1111111111111111111111111111111111111111"
'

T_NAME="DEP-3 Origin"
{ printf 'From: Ben Hutchings <ben@example.org>\nDate: Tue, 1 Mar 2011 10:00:00 +0000\nSubject: sit: the alias\n'
  printf 'Origin: https://git.kernel.org/linus/4444444444444444444444444444444444444444\nForwarded: not-needed\n\nWhy.\n---\n'
  sed -n '/^diff --git/,$p' dep3.patch; } > origin.patch
run_kb 0 fix new -o fixes origin.patch
test_expect_success 'upstream from the Origin header, id from the subject' '
	test "$(sed -n "s/^id: //p; s/^upstream: //p" fixes/sit-the-alias/fix.yaml | tr "\n" " " | sed "s/ \$//")" = \
		"sit-the-alias 4444444444444444444444444444444444444444"
'

T_NAME="DEP-3 Description"
{ printf 'Description: sit: the alias, described\n The long text names CVE-2011-8888.\n .\n A second paragraph.\n'
  printf 'Author: Ben Hutchings <ben@example.org>\nOrigin: upstream, https://git.kernel.org/linus/5555555555555555555555555555555555555555\n\n---\n'
  sed -n '/^diff --git/,$p' dep3.patch; } > described.patch
run_kb 0 fix new -o fixes described.patch
test_expect_success 'subject from the Description, CVE from its long text, upstream from Origin' '
	test_eq "CVE-2011-8888 sit: the alias, described 5555555555555555555555555555555555555555" "$(sed -n '\''s/^id: //p; s/^subject: "\(.*\)"$/\1/p; s/^upstream: //p'\'' fixes/CVE-2011-8888/fix.yaml | tr "\n" " " | sed "s/ \$//")"
'

T_NAME="mbox"
{ cat "$PATCH"; echo; sed 's/CVE-2011-9999/nothing/' dep3.patch | sed '1i From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001'; } > two.mbox
run_kb 0 fix new -o mbox-fixes --from-mbox two.mbox
test_expect_success 'one fix per mail, ids from the CVE or the subject' '
	test "$(ls mbox-fixes | tr "\n" " " | sed "s/ \$//")" = "CVE-2011-1019 sit-use-the-netdev-alias"
'

T_NAME="commit"
git init -q src
printf 'a\n' > src/f && git -C src add f && git -C src commit -q -m "add f"
printf 'b\n' > src/f && git -C src commit -q -am "f: say b" -m "[ Upstream commit 3333333333333333333333333333333333333333 ]"
run_kb 0 fix new -o fixes --from-commit src HEAD
test_expect_success 'id from the subject, upstream from the message' '
	test "$(sed -n "s/^id: //p; s/^upstream: //p" fixes/f-say-b/fix.yaml | tr "\n" " " | sed "s/ \$//")" = \
		"f-say-b 3333333333333333333333333333333333333333"
'
test_expect_success 'the patch is the commit'\''s' '
	[[ $(cat fixes/f-say-b/fix.patch) == *"+b"* ]]
'

T_NAME="a commit range"
base=$(git -C src rev-parse HEAD)
printf 'c\n' > src/f && git -C src commit -q -am "f: say c" -m "Fixes CVE-2011-7001."
git -C src checkout -q -b side "$base"
printf 'x\n' > src/g && git -C src add g && git -C src commit -q -m "g: add it"
git -C src checkout -q master && git -C src merge -q --no-edit side
printf 'd\n' > src/f && git -C src commit -q -am "f: say d"
run_kb 0 fix new -o range-fixes --from-commit src "$base..HEAD"
test_expect_success 'A..B: each commit, oldest first, the merge left out' '
	test_eq "created range-fixes/CVE-2011-7001/: f: say c|created range-fixes/g-add-it/: g: add it|created range-fixes/f-say-d/: f: say d" "$(paste -sd"|" <<<"$OUT")"
'
test_expect_success 'each its commit'\''s patch' '
	[[ $(cat range-fixes/f-say-d/fix.patch) == *"+d"* ]]
'
run_kb 0 fix new -o two-fixes --dry-run --from-commit src side HEAD
test_expect_success 'two commits are two fixes, in the order given' '
	printf "%s\n" "would create two-fixes/g-add-it/fix.patch|would create two-fixes/f-say-d/fix.patch" > want &&
	printf "%s\n" "$(grep "^would create" <<<"$OUT" | sed "s/ (.*//" | paste -sd"|")" > got &&
	test_cmp want got
'
run_kb 2 fix new -o none-fixes --from-commit src "HEAD..HEAD"
test_expect_success 'an empty range' '
	test "$ERR" = "error: '\''HEAD..HEAD'\'' holds no commit to make a fix of"
'
run_kb 2 fix new -o none-fixes --from-commit src HEAD~1
test_expect_success 'a merge named alone' '
	test "$ERR" = "error: '\''HEAD~1'\'' is a merge: make a fix of one of its commits"
'
run_kb 2 fix new -o none-fixes --from-commit src "nope..HEAD"
test_expect_success 'a range that is none' '
	[[ $ERR == *"error: '\''nope..HEAD'\'' is not a range of commits of '\''src'\''"* ]]
'
run_kb 2 fix new -o none-fixes --id x --from-commit src "$base..HEAD"
test_expect_success '--id names one fix' '
	test "$ERR" = "error: --id, --cve and --upstream name one fix, but there are 3 patches"
'
test_expect_success 'nothing written on errors' '
	test -z "$(ls -d none-fixes 2>/dev/null)"
'

T_NAME="no upstream commit"
# A distribution's own patch names no upstream commit (as most of Debian's
# debian/*.patch), here behind a mail client's mbox separator line.
{ echo 'From MAILER-DAEMON Thu Jan  1 00:00:00 1970'; sed '/upstream\./d' dep3.patch; } > noup.patch
run_kb 0 fix new -o noup-fixes noup.patch
test_expect_success 'fix.yaml without upstream' '
	printf "%s\n" "id: CVE-2011-9999
subject: \"sit: use the netdev alias\"
cve: CVE-2011-9999
patch: fix.patch" > want &&
	printf "%s\n" "$(grep -v "^#" noup-fixes/CVE-2011-9999/fix.yaml)" > got &&
	test_cmp want got
'
run_kb 0 apply --fix noup-fixes --branch 2.6.37.y --json
test_expect_success 'it applies' '
	test "$(echo "$OUT" | jq -r ".[0].results[0].status")" = applied
'
test_expect_success 'the message as git am writes it: no upstream line' '
	printf "%s\n" "sit: use the netdev alias

Fixes CVE-2011-9999." > want &&
	printf "%s\n" "$(git -C repos/linux log -1 --format=%B refs/heads/backport/CVE-2011-9999/2.6.37.y)" > got &&
	test_cmp want got
'
sed 's/"sit0"/"nope0"/' noup.patch > noup-fixes/CVE-2011-9999/fix.patch
# (the ref the first apply wrote holds a commit with the fix's subject: it
# would be taken as the conflict resolved by hand, see t_handcmd.sh)
git -C repos/linux update-ref -d refs/heads/backport/CVE-2011-9999/2.6.37.y
run_kb 1 apply --fix noup-fixes --branch 2.6.37.y --json
test_expect_success 'a conflict'\''s commands: git am of the patch, nothing to cherry-pick' '
	test_eq "git -C $TMP/repos/linux-CVE-2011-9999-2.6.37.y am -3 $TMP/noup-fixes/CVE-2011-9999/fix.patch" "$(echo "$OUT" | jq -r ".[0].results[0].reproduce[]" | grep -e " am -3 " -e cherry-pick)"
'

T_NAME="dry run"
run_kb 0 fix new -o dry --dry-run "$PATCH"
test_expect_success 'says what it would write' '
	[[ $OUT == *"would create dry/CVE-2011-1019/fix.patch"* ]]
'
test_expect_success 'writes nothing' '
	test ! -e dry
'

T_NAME="bad input"
printf 'From: x <x@example.org>\nSubject: [PATCH] words only\n\nno diff here\n' > nodiff.patch
test_expect_success 'a mail with no patch' '
	run_kb 2 fix new -o bad nodiff.patch &&
	[[ $ERR == *"nodiff.patch"* ]]
'
{ cat "$PATCH"; echo; cat "$PATCH"; } > twice.mbox
test_expect_success 'two patches with one id' '
	run_kb 2 fix new -o bad --from-mbox twice.mbox &&
	test_eq "error: two patches with one id '\''CVE-2011-1019'\'': twice.mbox (mail 1) and twice.mbox (mail 2)" "$ERR"
'
test_expect_success 'an id that is taken' '
	run_kb 2 fix new -o fixes "$PATCH" &&
	test_eq "error: $PATCH: fix '\''CVE-2011-1019'\'' exists already: '\''fixes/CVE-2011-1019'\''" "$ERR"
'
sed 's/^commit 1111/commit 11/' dep3.patch > badup.patch
test_expect_success 'a bad upstream commit' '
	run_kb 2 fix new -o bad --upstream 1234 badup.patch &&
	[[ $ERR == *"40 lowercase hex digits"* ]]
'
test_expect_success '--id for two patches' '
	run_kb 2 fix new -o bad --id x --from-mbox two.mbox &&
	[[ $ERR == *"there are 2 patches"* ]]
'
test_expect_success 'an id that is no name' '
	run_kb 2 fix new -o bad --id ../x "$PATCH" &&
	[[ $ERR == *"cannot be a fix id"* ]]
'
test_expect_success 'a missing file' '
	run_kb 2 fix new -o bad no-such.patch &&
	[[ $ERR == *"no-such.patch"* ]]
'
test_expect_success 'no patch at all' '
	run_kb 2 fix new &&
	[[ $ERR == *"no patch given"* ]]
'
test_expect_success 'nothing written by any of them' '
	test ! -e bad
'
# ---- mail headers, as git mailinfo takes them: encoded words converted to
# UTF-8 from their charset, control characters folded; a mail that cannot be
# taken refused before any fix is written; every commit passes git fsck --strict
# mail SUBJECT [FROM]: a format-patch mail of the sit.c change, mbox line first
mail() {
	printf 'From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n'
	printf 'From: %s\nDate: Tue, 1 Mar 2011 10:00:00 +0000\nSubject: [PATCH] %s\n\n' \
		"${2:-A U Thor <author@example.org>}" "$1"
	printf 'Fixes it.\n\nSigned-off-by: A U Thor <author@example.org>\n---\n'
	sed -n '/^diff --git/,$p' dep3.patch
}
# subject_of DIR: the subject fix.yaml holds, YAML escapes left as written
subject_of() { sed -n 's/^subject: "\(.*\)"$/\1/p' "$1/fix.yaml"; }
# backport FIXDIR: apply it to 2.6.37.y; prints its ref
backport() {
	run_kb 0 apply --fix "$1" --branch 2.6.37.y --json >/dev/null &&
	echo "$OUT" | jq -r '.[0].results[0].ref'
}
fsck_strict() { git -C repos/linux fsck --strict --no-dangling --no-progress; }
has_controls() { LC_ALL=C grep -q "[[:cntrl:]]" "$@"; }
T_NAME="mail headers"

test_expect_success 'an mbox whose second mail has an ISO-8859-1 Subject: both fixes written, in UTF-8' '
	{ cat "$PATCH"; echo; mail "=?ISO-8859-1?Q?caf=E9?= fix"; } > latin1.mbox &&
	run_kb 0 fix new -o latin1 --from-mbox latin1.mbox &&
	test "$(ls latin1 | tr "\n" " ")" = "CVE-2011-1019 caf-fix " &&
	test "$(subject_of latin1/caf-fix)" = "caf"$'"'\xc3\xa9'"'" fix" &&
	test "$(echo "$OUT" | sed -n 2p)" = "created latin1/caf-fix/: caf"$'"'\xc3\xa9'"'" fix"
'

# charsets: ENCODED SUBJECT, the UTF-8 it is
CHARSETS=(
	'=?ISO-8859-1?Q?caf=E9?='		$'caf\xc3\xa9'
	'=?iso-8859-15?q?=A4uro?='		$'\xe2\x82\xacuro'
	'=?ISO-8859-2?Q?=A3=F3d=BC?='		$'\xc5\x81\xc3\xb3d\xc5\xba'
	'=?windows-1252?Q?=93quoted=94_=80?='	$'\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x82\xac'
	'=?windows-1251?B?z/Do?='		$'\xd0\x9f\xd1\x80\xd0\xb8'
	'=?KOI8-R?B?9MXT1A==?='			$'\xd0\xa2\xd0\xb5\xd1\x81\xd1\x82'
	'=?UTF-8?B?Y2Fmw6k=?='			$'caf\xc3\xa9'
	'=?ISO-8859-1?B?Y2Fm6Q==?= =?UTF-8?Q?_=C3=A0?='	$'caf\xc3\xa9 \xc3\xa0'
)
test_expect_success 'legacy charsets and B encoding: fix.yaml, the created line and the commit in UTF-8' '
	mkdir cs &&
	for ((i = 0; i < ${#CHARSETS[@]}; i += 2)); do
		mail "net: ${CHARSETS[i]}" > cs/m$((i / 2)) || break
	done &&
	( for ((i = 0; i < ${#CHARSETS[@]}; i += 2)); do
		n=$((i / 2)) && want="net: ${CHARSETS[i + 1]}" &&
		run_kb 0 fix new -o cs --id cs$n cs/m$n &&
		test "$OUT" = "created cs/cs$n/: $want" &&
		test "$(subject_of cs/cs$n)" = "$want" &&
		ref=$(backport cs/cs$n) &&
		test "$(git -C repos/linux log -1 --format=%s $ref)" = "$want" || exit 1
	done ) &&
	fsck_strict
'

# From: names with control characters: AUTHOR LINE NAME they fold to
FROMS=(
	'=?UTF-8?Q?A=0Aencoding_x?='			'A encoding x'
	'=?UTF-8?Q?A=0D=0Acommitter_B_1_+0000?='		'A committer B 1 +0000'
	'=?UTF-8?Q?A=0Db?='				'A b'
	'=?UTF-8?Q?A=09b?='				'A b'
	'=?UTF-8?Q?A=1B[31m=07b=7F?='			'A [31m b'
	'=?ISO-8859-1?Q?Ren=E9=85=9Bx?='		$'Ren\xc3\xa9 x'
	'=?UTF-8?B?QQpnaXQ=?='				'A git'
)
test_expect_success 'an encoded From: with a line break or other control characters: one author line, git fsck --strict passes' '
	( for ((i = 0; i < ${#FROMS[@]}; i += 2)); do
		n=$((i / 2)) &&
		mail "sit: author $n" "${FROMS[i]} <author@example.org>" > from$n.patch &&
		run_kb 0 fix new -o from --id from$n from$n.patch &&
		ref=$(backport from/from$n) &&
		git -C repos/linux cat-file commit $ref | sed "/^\$/q" > header &&
		test "$(grep -c . header)" = 4 &&
		test "$(sed -n 3p header)" = "author ${FROMS[i + 1]} <author@example.org> 1298973600 +0000" &&
		test "$(git -C repos/linux log -1 --format=%an $ref)" = "${FROMS[i + 1]}" || exit 1
	done ) &&
	fsck_strict
'

test_expect_success 'a Subject whose line break would forge a Signed-off-by: paragraph is one line' '
	mail "=?UTF-8?Q?sit:_fix=0A=0ASigned-off-by:_Evil_<evil@example.org>?=" > forged.patch &&
	run_kb 0 fix new -o forged forged.patch &&
	test "$OUT" = "created forged/sit-fix-signed-off-by-evil-evil-example-org/: sit: fix Signed-off-by: Evil <evil@example.org>" &&
	ref=$(backport forged/sit-fix-signed-off-by-evil-evil-example-org) &&
	git -C repos/linux log -1 --format=%B $ref > msg &&
	printf "%s\n" "sit: fix Signed-off-by: Evil <evil@example.org>" "" "commit 2222222222222222222222222222222222222222 upstream." \
		"" "Fixes it." "" "Signed-off-by: A U Thor <author@example.org>" "" > want &&
	test_cmp want msg &&
	fsck_strict
'

# subjects with control characters: ENCODED, what they fold to
CONTROLS=(
	'=?UTF-8?Q?sit:_a=0Db?='			'sit: a b'
	'=?UTF-8?Q?sit:_a=0D=0Ab?='			'sit: a b'
	'=?UTF-8?Q?sit:_a=09=09b?='			'sit: a b'
	$'sit: raw\ttab'				'sit: raw tab'
	'=?UTF-8?Q?sit:_=1B]0;owned=07title=1B[2J?='	'sit: ]0;owned title [2J'
	'=?UTF-8?Q?sit:_del=7Fc1=C2=9B=C2=85end?='	'sit: del c1 end'
	'=?ISO-8859-1?Q?sit:_c1=9B=85latin1?='		'sit: c1 latin1'
	'=?UTF-8?Q?sit:_nul=00vt=0Bff=0C?='		'sit: nul vt ff'
	'=?UTF-8?Q?sit:_trailing=0A=1B?='		'sit: trailing'
)
test_expect_success 'ESC, BEL, CR, TAB, DEL and C1 controls in a Subject: folded in fix.yaml, on the terminal and in the commit' '
	( for ((i = 0; i < ${#CONTROLS[@]}; i += 2)); do
		n=$((i / 2)) && want="${CONTROLS[i + 1]}" &&
		mail "${CONTROLS[i]}" > ctl$n.patch &&
		run_kb 0 fix new -o ctl --id ctl$n ctl$n.patch &&
		! has_controls "$TMP/out" &&
		test "$OUT" = "created ctl/ctl$n/: $want" &&
		test "$(subject_of ctl/ctl$n)" = "$want" &&
		run_kb 0 fix new -o ctl-dry --id ctl$n --dry-run ctl$n.patch &&
		! has_controls "$TMP/out" &&
		ref=$(backport ctl/ctl$n) &&
		test "$(git -C repos/linux log -1 --format=%s $ref)" = "$want" &&
		! git -C repos/linux log -1 --format=%B $ref | sed 1q | has_controls || exit 1
	done ) &&
	fsck_strict
'

test_expect_success 'names printed on the terminal: control characters quoted as git quotes them' '
	run_kb 0 fix new -o "$(printf "esc\033[2Jdir")" --id x ctl0.patch &&
	test "$OUT" = "created esc\\033[2Jdir/x/: sit: a b" &&
	run_kb 2 fix new "$(printf "bel\007name.patch")" &&
	! has_controls "$TMP/err" &&
	test "$ERR" = "error: cannot open '"'"'bel\\007name.patch'"'"': No such file or directory"
'

# refuse MBOX ERROR SUBJECT [FROM]: in an mbox after a good mail, the second
# is refused (exit 2) and nothing at all is written, dry run or not
refuse() {
	{ cat "$PATCH"; echo; mail "$3" "${4:-}"; } > "$1" &&
	run_kb 2 fix new -o refused --from-mbox "$1" &&
	test "$ERR" = "$2" &&
	test ! -e refused &&
	run_kb 2 fix new -o refused --dry-run --from-mbox "$1" &&
	test "$ERR" = "$2" && test -z "$OUT"
}
test_expect_success 'an unknown charset in a later mail: refused before anything is written' '
	refuse unknown.mbox "error: unknown.mbox (mail 2):4: the Subject header is in the unknown charset '"'"'x-unknown'"'"'" \
		"=?x-unknown?Q?caf=E9?=" &&
	refuse unknown-from.mbox "error: unknown-from.mbox (mail 2):2: the From header is in the unknown charset '"'"'X-MAC-ROMAN'"'"'" \
		"sit: fine" "=?X-MAC-ROMAN?Q?A?= <a@example.org>"
'
test_expect_success 'bytes that are no text in their charset, a raw 8-bit Subject: refused before anything is written' '
	refuse badutf8.mbox "error: badutf8.mbox (mail 2):4: the Subject header is not valid UTF-8 text" \
		"=?UTF-8?Q?caf=E9?=" &&
	refuse ascii.mbox "error: ascii.mbox (mail 2):4: the Subject header is not valid US-ASCII text" \
		"=?US-ASCII?Q?caf=E9?=" &&
	refuse raw.mbox "error: raw.mbox (mail 2): the Subject is not UTF-8 and names no charset (as an RFC 2047 encoded word would)" \
		"$(printf "caf\351 raw")"
'
test_expect_success 'a later fix that would not load (a Subject YAML refuses): refused before anything is written' '
	refuse nonchar.mbox "error: nonchar.mbox (mail 2): the fix would not load: refused/sit-a-b/fix.yaml:4:17: control characters are not allowed" \
		"=?UTF-8?Q?sit:_a=EF=BF=BEb?="
'

T_NAME="queue is no fix id"
test_expect_success 'fix new refuses the id queue, given or made of the subject' '
	run_kb 2 fix new -o q --id queue dep3.patch &&
	test "$ERR" = "error: dep3.patch: '"'"'queue'"'"' cannot be a fix id: refs/heads/backport/queue/ holds the queues'"'"' refs" &&
	mail "Queue" > queue.patch &&
	run_kb 2 fix new -o q queue.patch &&
	test "$ERR" = "error: queue.patch: '"'"'queue'"'"' cannot be a fix id: refs/heads/backport/queue/ holds the queues'"'"' refs (give another with --id)" &&
	test ! -e q &&
	run_kb 0 fix new -o q --id queue-fix queue.patch
'
finish
