#!/usr/bin/env bash
# FAILED mails (--mails DIR of apply, and run's FAILED-<branch>.txt): the
# whole mail compared exactly for a fix on its own, a branch with `mail:`
# (to, cc, tree, send-to), a stable branch's defaults, a branch that is
# neither; the patch tried, in mail form with the fix's Date and body, is
# exactly the variant's and `git am` takes it; non-ASCII author and subject
# RFC 2047 encoded; never with --dry-run; never through a symbolic link;
# run and `kbackport report` write the same mail. (A queue's mail:
# t_apply_queue.sh.)
source "$(dirname "$0")/../lib.sh"
T_SUITE=mails
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cd "$TMP"
mkdir fixes
cp -r "$TOP_DIR/backports/CVE-2011-1019" fixes/
FIX=$TMP/fixes/CVE-2011-1019
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: 4.19.y, ref: linux-4.19.y, build: false}
  # a vendor tree with its own recipients and name; 3.9 forced, so it is
  # the variant tried
  - name: acme
    repo: repos/vendor.git
    ref: vendor-2.6.32-reworked
    variant: {CVE-2011-1019: "3.9"}
    build: false
    mail:
      to: "ACME Kernel <kernel@acme.example>"
      cc: [backports@acme.example, "Ré Viewer <rv@acme.example>"]
      tree: ACME vendor 2.6.32
      send-to: backports@acme.example
  # neither a stable branch nor a mail: entry
  - {name: plain, repo: repos/vendor.git, ref: vendor-2.6.32-reworked, build: false}
YAML

# The upstream commit's mail head, as the fix's patch has it (Date and body).
original() {
	cat <<EOF
------------------ original commit in Linus's tree ------------------

From 8909c9ad8ff03611c9c96c9a92656213e4bb495b Mon Sep 17 00:00:00 2001
From: Vasiliy Kulikov <segoon@openwall.com>
Date: Wed, 2 Mar 2011 00:33:13 +0300
Subject: [PATCH] net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules

EOF
	# the body: from the blank line after the headers to the "---" line
	awk 'f { print } f && /^---$/ { exit } !f && /^$/ { f = 1 }' "$FIX/upstream.patch"
}

T_NAME="one fix"
run_kb 1 apply --fix fixes/CVE-2011-1019 --mails mails
test_expect_success 'a mail per branch that needs a hand' '
	test_eq "mails/CVE-2011-1019/FAILED-acme.txt mails/CVE-2011-1019/FAILED-plain.txt" "$(find mails -type f | sort | tr "\n" " " | sed "s/ \$//")"
'
test_expect_success '...named in the text' '
	[[ $OUT == *"  FAILED mail: mails/CVE-2011-1019/FAILED-acme.txt"* ]]
'
WT=$TMP/repos/vendor-CVE-2011-1019-acme
{
	cat <<EOF
To: ACME Kernel <kernel@acme.example>
Cc: backports@acme.example,
    =?UTF-8?B?UsOpIFZpZXdlcg==?= <rv@acme.example>
Subject: FAILED: patch "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules" failed to apply to ACME vendor 2.6.32 tree
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

The patch below does not apply to the ACME vendor 2.6.32 tree.
If someone wants it applied there, then please email the backport,
including the original git commit id, to <backports@acme.example>.

kbackport tried each variant of CVE-2011-1019 on the branch
vendor-2.6.32-reworked of $TMP/repos/vendor.git:

  variant '3.9' does not apply: 'net/core/dev_ioctl.c': no file 'net/core/dev_ioctl.c' in the tree

The hunks that do not apply:

  'net/core/dev_ioctl.c': no file 'net/core/dev_ioctl.c' in the tree
  hunk 1 of 'net/ipv4/ip_gre.c' does not apply
  hunk 1 of 'net/ipv4/ipip.c' does not apply
  hunk 1 of 'net/ipv6/sit.c' does not apply

To reproduce the conflict and resolve it by hand, you may use the following commands:

  git -C $TMP/repos/vendor.git worktree add $WT -b backport/CVE-2011-1019/acme vendor-2.6.32-reworked
  git -C $WT am -3 $FIX/variants/3.9.patch
  # resolve the conflicts (see the failed hunks), then: git -C $WT add <files>
  # build and test the kernel
  git -C $WT am --continue

EOF
	original
	sed -n '/^diff --git/,$p' "$FIX/variants/3.9.patch"
} > expected-acme
test_expect_success 'mail: of the branch: its to, cc, tree and send-to; the variant tried at the end' '
	test_cmp expected-acme mails/CVE-2011-1019/FAILED-acme.txt
'
test_expect_success 'no stable list where mail: does not name it' '
	! grep -i stable mails/CVE-2011-1019/FAILED-acme.txt
'
test_expect_success 'the mail'\''s diff is exactly the variant'\''s patch' '
	test_eq "$(sed -n "/^diff --git/,\$p" "$FIX/variants/3.9.patch")" "$(sed -n "/^diff --git/,\$p" mails/CVE-2011-1019/FAILED-acme.txt)"
'
test_expect_success '...which is not the upstream one' '
	! cmp -s <(sed -n "/^diff --git/,\$p" "$FIX/upstream.patch") <(sed -n "/^diff --git/,\$p" mails/CVE-2011-1019/FAILED-acme.txt)
'
test_expect_success '...and git am takes the patch part as a mail: author, date and subject of the fix' '
	sed -n "/^From 8909c9ad8ff0/,\$p" mails/CVE-2011-1019/FAILED-acme.txt >acme.mbox &&
	git clone -q -b linux-4.19.y repos/linux am419 &&
	git -C am419 am -q "$TMP/acme.mbox" &&
	test "$(git -C am419 log -1 --format="%an <%ae>|%aD|%s")" = "Vasiliy Kulikov <segoon@openwall.com>|Wed, 2 Mar 2011 00:33:13 +0300|net: don'"'"'t allow CAP_NET_ADMIN to load non-netdev kernel modules" &&
	test "$(git -C am419 rev-parse HEAD^{tree})" = "$(git -C repos/linux rev-parse refs/heads/backport/CVE-2011-1019/4.19.y^{tree})"
'

WT=$TMP/repos/vendor-CVE-2011-1019-plain
{
	cat <<EOF
To: Vasiliy Kulikov <segoon@openwall.com>
Subject: FAILED: patch "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules" failed to apply to plain tree
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

The patch below does not apply to the plain tree.

kbackport tried each variant of CVE-2011-1019 on the branch
vendor-2.6.32-reworked of $TMP/repos/vendor.git:

  no variant fits this tree; the upstream patch fails: hunk 1 of 'include/linux/netdevice.h' does not apply

The hunks that do not apply:

EOF
	sed -n "/^plain (CVE-2011-1019)/,/^  to resolve it by hand:/p" out | sed '1d;$d'
	cat <<EOF

To reproduce the conflict and resolve it by hand, you may use the following commands:

  git -C $TMP/repos/vendor.git worktree add $WT -b backport/CVE-2011-1019/plain vendor-2.6.32-reworked
  git -C $WT am -3 $FIX/upstream.patch
  # resolve the conflicts (see the failed hunks), then: git -C $WT add <files>
  # build and test the kernel
  git -C $WT am --continue

EOF
	original
	sed -n '/^diff --git/,$p' "$FIX/upstream.patch"
} > expected-plain
test_expect_success 'no mail: and not a stable branch: the branch'\''s name, no Cc, no stable list; the upstream patch tried' '
	test_cmp expected-plain mails/CVE-2011-1019/FAILED-plain.txt
'

T_NAME="--json"
rm -rf mails
run_kb 1 apply --fix fixes/CVE-2011-1019 --mails mails --json
test_expect_success 'each result'\''s mail' '
	test_eq "4.19.y null|acme mails/CVE-2011-1019/FAILED-acme.txt|plain mails/CVE-2011-1019/FAILED-plain.txt" "$(echo "$OUT" | jq -r '\''[.[0].results[] | "\(.branch) \(.mail)"] | join("|")'\'')"
'
run_kb 1 apply --fix fixes/CVE-2011-1019 --json
test_expect_success 'no --mails: no mail key' '
	test "$(echo "$OUT" | jq -c "[.[0].results[] | .mail] | unique | .[0]")" = null
'
test_expect_success 'a re-run writes the same mail' '
	test_cmp expected-acme mails/CVE-2011-1019/FAILED-acme.txt
'

T_NAME="stable defaults, non-ASCII"
# an upstream commit by an author whose name, like the subject, is not ASCII
git clone -q -b linux-2.6.37.y repos/linux up
(
	cd up &&
	sed -i 's|DPRINTK("invalid minor number\\n");|DPRINTK("invalid minor number %u\\n", minor);|' \
		drivers/staging/comedi/comedi_fops.c &&
	GIT_AUTHOR_NAME="Jörg Rößler" GIT_AUTHOR_EMAIL=jr@example.org GIT_AUTHOR_DATE="1300000000 +0100" \
		git commit -qam "staging: comedi: print the minor, café" -m "Noticed by Zoë." &&
	git format-patch -q -1 -o ../patches
)
run_kb 0 fix new -o fixes patches/*.patch
CF=$TMP/fixes/staging-comedi-print-the-minor-caf
run_kb 1 apply --fix "$CF" --branch 4.19.y --mails mails
WT=$TMP/repos/linux-staging-comedi-print-the-minor-caf-4.19.y
{
	cat <<EOF
To: =?UTF-8?B?SsO2cmcgUsO2w59sZXI=?= <jr@example.org>
Cc: stable@vger.kernel.org
Subject: =?UTF-8?B?RkFJTEVEOiBwYXRjaCAic3RhZ2luZzogY29tZWRpOiBwcmludCB0aGUgbWlu?=
 =?UTF-8?B?b3IsIGNhZsOpIiBmYWlsZWQgdG8gYXBwbHkgdG8gNC4xOS1zdGFibGUgdHJl?=
 =?UTF-8?B?ZQ==?=
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

The patch below does not apply to the 4.19-stable tree.
If someone wants it applied there, or to any other stable or longterm
tree, then please email the backport, including the original git commit
id to <stable@vger.kernel.org>.

kbackport tried each variant of staging-comedi-print-the-minor-caf on the branch
linux-4.19.y of $TMP/repos/linux:

  variant 'patch' does not apply: 'drivers/staging/comedi/comedi_fops.c': no file 'drivers/staging/comedi/comedi_fops.c' in the tree

To reproduce the conflict and resolve it by hand, you may use the following commands:

  git -C $TMP/repos/linux worktree add $WT -b backport/staging-comedi-print-the-minor-caf/4.19.y linux-4.19.y
  git -C $WT am -3 $CF/fix.patch
  # resolve the conflicts (see the failed hunks), then: git -C $WT add <files>
  # build and test the kernel
  git -C $WT am --continue

------------------ original commit in Linus's tree ------------------

From $(git -C up rev-parse HEAD) Mon Sep 17 00:00:00 2001
From: =?UTF-8?B?SsO2cmcgUsO2w59sZXI=?= <jr@example.org>
Date: Sun, 13 Mar 2011 08:06:40 +0100
Subject: =?UTF-8?B?W1BBVENIXSBzdGFnaW5nOiBjb21lZGk6IHByaW50IHRoZSBtaW5vciwgY2Fm?=
 =?UTF-8?B?w6k=?=

Noticed by Zoë.
---
EOF
	sed -n '/^diff --git/,$p' "$CF/fix.patch"
} > expected-caf
test_expect_success 'a stable branch without mail: gets stable'\''s defaults; non-ASCII headers RFC 2047 encoded' '
	test_cmp expected-caf mails/staging-comedi-print-the-minor-caf/FAILED-4.19.y.txt
'
# decoded MAIL: its To and Subject as a mail reader shows them, To|Subject
decoded() {
	python3 -c 'import email,sys
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
sys.stdout.buffer.write(("%s|%s" % (m["To"], m["Subject"])).encode())' "$1"
}
test_expect_success '...which decode to the author and subject' '
	test_eq "Jörg Rößler <jr@example.org>|FAILED: patch \"staging: comedi: print the minor, café\" failed to apply to 4.19-stable tree" "$(decoded mails/staging-comedi-print-the-minor-caf/FAILED-4.19.y.txt)"
'

T_NAME="--dry-run"
rm -rf mails
before=$(git -C repos/vendor.git for-each-ref)
run_kb 2 apply --fix fixes/CVE-2011-1019 --mails mails --dry-run
test_expect_success 'refused: a dry run writes nothing' '
	test "$ERR" = "error: --dry-run writes nothing: no --mails with it"
'
test_expect_success '...no mail, no directory' '
	test ! -e mails
'
run_kb 2 apply --queue /dev/null --mails mails -n
test_expect_success '...with --queue too' '
	test "$ERR" = "error: --dry-run writes nothing: no --mails with it"
'
test_expect_success '...no ref written' '
	test_eq "$before" "$(git -C repos/vendor.git for-each-ref)"
'

T_NAME="links"
mkdir -p outside mails/CVE-2011-1019
echo precious > outside/file
ln -s ../../outside/file mails/CVE-2011-1019/FAILED-acme.txt
run_kb 1 apply --fix fixes/CVE-2011-1019 --branch acme --mails mails
test_expect_success 'a link in place of the mail: refused, named' '
	test_eq "error: '\''mails/CVE-2011-1019/FAILED-acme.txt'\'' is a symbolic link: kbackport does not write mails through links" "$ERR"
'
test_expect_success '...not followed' '
	test "$(cat outside/file)" = precious
'
test_expect_success '...and left as it was' '
	test "$(readlink mails/CVE-2011-1019/FAILED-acme.txt)" = "../../outside/file"
'
rm -rf mails && mkdir mails && ln -s ../outside mails/CVE-2011-1019
run_kb 1 apply --fix fixes/CVE-2011-1019 --branch acme --mails mails
test_expect_success 'a link in place of the fix'\''s directory: refused' '
	test_eq "error: '\''mails/CVE-2011-1019'\'' is a symbolic link: kbackport does not write mails through links" "$ERR"
'
test_expect_success '...nothing written through it' '
	test "$(ls outside)" = file
'
rm -rf mails && ln -s outside mails
run_kb 1 apply --fix fixes/CVE-2011-1019 --branch acme --mails mails
test_expect_success 'a link as DIR itself: refused' '
	test_eq "error: '\''mails'\'' is a symbolic link: kbackport does not write mails through links" "$ERR"
'
test_expect_success '...nothing written through it' '
	test "$(ls outside)" = file
'
rm mails

T_NAME="run"
ln -s fixes backports
run_kb 1 run --fix fixes/CVE-2011-1019
M=reports/latest/FAILED-acme.txt
test_expect_success 'results.json keeps what the mail needs' '
	test_eq "ACME Kernel <kernel@acme.example>|backports@acme.example,Ré Viewer <rv@acme.example>|ACME vendor 2.6.32|backports@acme.example|false" "$(jq -r '\''.branches[] | select(.name == "acme") | .mail | "\(.to)|\(.cc | join(","))|\(.tree)|\(.send_to)|\(.stable)"'\'' reports/latest/results.json)"
'
test_expect_success 'no mail where none is needed' '
	test "$(jq -r '\''.branches[] | select(.name == "4.19.y") | .mail'\'' reports/latest/results.json)" = null
'
run1=$(readlink reports/latest)
test_expect_success 'the same mail as apply'\''s, with the logs'\'' line' '
	printf "%s\n" "$(sed "/^  git -C .* am --continue\$/a\\
\\
The logs are in acme/ of the run $run1." expected-acme)" > want &&
	printf "%s\n" "$(cat $M)" > got &&
	test_cmp want got
'
cp $M before-report
run_kb 1 report
test_expect_success 'kbackport report writes it again, the same' '
	test_cmp before-report $M
'
test_expect_success '...and the stable-less branch'\''s' '
	test -s reports/latest/FAILED-plain.txt && ! grep -qi stable reports/latest/FAILED-plain.txt
'

finish
