#!/usr/bin/env bash
# kbackport apply --queue on the era fixtures, from fixes made with `fix new`
# out of `git format-patch` files: exact statuses per fix and branch, every
# queue commit's tree equal to `git am -3` of the same patches in a clone,
# parents chained in order, idempotent re-runs, a stale lock, FAILED mails,
# and bad series (nothing written).
source "$(dirname "$0")/../lib.sh"
T_SUITE=apply-queue
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cd "$TMP"
R=repos/linux
BRANCHES="2.6.32.y 2.6.37.y 4.19.y"
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: 2.6.32.y, ref: linux-2.6.32.y}
  - {name: 2.6.37.y, ref: linux-2.6.37.y}
  - {name: 4.19.y, ref: linux-4.19.y}
YAML

# Four upstream commits (by $GIT_AUTHOR_NAME) on 2.6.37, as format-patch files: 2 edits the line
# that 1 adds, 3 touches a file 4.19 does not have.
git clone -q -b linux-2.6.37.y $R up
(
	cd up
	sed -i 's|^ \* congestion control\.$| * congestion control; modules tcp_<name> load on demand.|' net/ipv4/tcp_cong.c
	git commit -qam "tcp: say that modules load on demand" -m "Fixes CVE-2011-4001."
	sed -i 's|load on demand\.$|load on demand,\n * for CAP_NET_ADMIN only.|' net/ipv4/tcp_cong.c
	git commit -qam "tcp: say who may load them"
	sed -i 's|DPRINTK("invalid minor number\\n");|DPRINTK("invalid minor number %u\\n", minor);|' \
		drivers/staging/comedi/comedi_fops.c
	git commit -qam "staging: comedi: print the minor"
	sed -i 's|^#include <net/tcp.h>$|#include <net/tcp.h>\n#include <linux/kmod.h>|' net/ipv4/tcp_cong.c
	git commit -qam "tcp: include kmod.h for request_module"
	git format-patch -q -o ../patches origin/linux-2.6.37.y
)
# the change of 1 again, as a mail-style (DEP-3) patch without a From line
{
	printf 'From: A U Thor <author@example.org>\nDate: Mon, 14 Mar 2011 10:00:00 +0000\n'
	printf 'Subject: tcp: the on-demand note, once more\n\n'
	printf 'commit 1111111111111111111111111111111111111111 upstream.\n---\n'
	sed -n '/^diff --git/,/^-- $/p' patches/0001-*.patch | sed '$d'
} > again.patch

T_NAME="fix new"
run_kb 0 fix new -o fixes patches/*.patch
test_expect_success 'one fix per format-patch file, ids from the CVE or the subject' '
	printf "%s\n" "created fixes/CVE-2011-4001/: tcp: say that modules load on demand
created fixes/tcp-say-who-may-load-them/: tcp: say who may load them
created fixes/staging-comedi-print-the-minor/: staging: comedi: print the minor
created fixes/tcp-include-kmod-h-for-request-module/: tcp: include kmod.h for request_module" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'
cat > stable.series <<'EOF'
# a stable queue: fix directories and a patch file, in order
fixes/CVE-2011-4001
again.patch                                 # in already, once 1 is
fixes/tcp-say-who-may-load-them

fixes/staging-comedi-print-the-minor        # no drivers/ in 4.19
fixes/tcp-include-kmod-h-for-request-module
EOF
FIXES="CVE-2011-4001 tcp-the-on-demand-note-once-more tcp-say-who-may-load-them staging-comedi-print-the-minor tcp-include-kmod-h-for-request-module"
PATCHES="patches/0001-*.patch again.patch patches/0002-*.patch patches/0003-*.patch patches/0004-*.patch"
before=$(user_state $R)

T_NAME="apply --queue"
run_kb 1 apply --queue stable.series --json --mails mails
echo "$OUT" > q.json
q() { jq -r --arg b "$1" ".branches[] | select(.branch == \$b) | $2" q.json; }
test_expect_success 'the queue'\''s name' '
	test "$(jq -r .queue q.json)" = stable
'
test_expect_success 'fixes in series order' '
	test_eq "$FIXES" "$(q 4.19.y '\''[.results[].fix] | join(" ")'\'')"
'
test_expect_success '2.6.32.y: statuses' '
	test "$(q 2.6.32.y '\''[.results[].status] | join(" ")'\'')" = "applied already-applied applied applied applied"
'
test_expect_success '2.6.37.y: statuses' '
	test "$(q 2.6.37.y '\''[.results[].status] | join(" ")'\'')" = "applied already-applied applied applied applied"
'
test_expect_success '4.19.y: statuses, the failing fix skipped and the rest applied' '
	test "$(q 4.19.y '\''[.results[].status] | join(" ")'\'')" = "applied already-applied applied conflict applied"
'
test_expect_success '4.19.y: why it was skipped' '
	test_eq "'\''drivers/staging/comedi/comedi_fops.c'\'': no file '\''drivers/staging/comedi/comedi_fops.c'\'' in the tree" "$(q 4.19.y '\''.results[3].notes | join("\n")'\'')"
'
test_expect_success 'applied counts' '
	test "$(jq -r '\''[.branches[].applied] | join(" ")'\'' q.json)" = "4 4 3"
'
test_expect_success 'the user'\''s refs, HEAD, index and work tree are untouched' '
	test_eq "$before" "$(user_state $R)"
'

for b in $BRANCHES; do
	T_NAME="$b"
	ref=refs/heads/backport/queue/stable/$b
	test_expect_success 'the ref is the queue'\''s and holds its commit' '
		test_eq "$ref $(git -C $R rev-parse $ref)" "$(q $b '\''"\(.ref) \(.commit)"'\'')"
	'
	# parents chained in order: every applied fix's commit on the previous one
	chain=$(git -C $R rev-list --reverse --parents linux-$b..$ref)
	want_parent=$(git -C $R rev-parse linux-$b) ok=yes i=0
	for c in $(q $b '.results[] | select(.status == "applied") | .commit'); do
		i=$((i + 1))
		[ "$(echo "$chain" | sed -n ${i}p)" = "$c $want_parent" ] || ok=no
		want_parent=$c
	done
	test_expect_success 'each applied fix'\''s commit sits on the previous one, in series order' '
		test "$ok $(echo "$chain" | wc -l)" = "yes $i"
	'
	test_expect_success 'the last one is the ref' '
		test "$(git -C $R rev-parse $ref)" = "$want_parent"
	'
	test_expect_success 'the subjects, in order' '
		printf "%s\n" "$(q $b '\''[.results[] | select(.status == "applied") | .fix] | join(" ")'\'')" > want &&
		printf "%s\n" "$(git -C $R log --reverse --format=%s linux-$b..$ref | while read -r s; do
			for f in fixes/*/; do grep -qxF "subject: \"$s\"" $f/fix.yaml && basename $f; done
		done | tr "\n" " " | sed "s/ \$//")" > got &&
		test_cmp want got
	'
	# the same patches with git am -3 in a clone: the same tree after every fix
	rm -rf am && git clone -q -b linux-$b $R am
	trees=
	for p in $PATCHES; do
		head=$(git -C am rev-parse HEAD)
		if git -C am am -q -3 "$TMP"/$p >/dev/null 2>&1; then
			# "No changes -- Patch already applied." makes no commit
			[ "$(git -C am rev-parse HEAD)" = "$head" ] ||
				trees="$trees $(git -C am rev-parse HEAD^{tree})"
		else
			git -C am am --abort >/dev/null 2>&1
		fi
	done
	test_expect_success 'every queue commit'\''s tree is git am -3'\''s, byte for byte' '
		test_eq "${trees# }" "$(git -C $R rev-list --reverse linux-$b..$ref | while read -r c; do git -C $R rev-parse $c^{tree}; done | tr "\n" " " | sed "s/ \$//")"
	'
done
T_NAME="files"
test_expect_success '4.19.y: tcp_cong.c at the tip has 1, 2 and 4' '
	printf "%s\n" "// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pluggable TCP congestion control support and newReno
 * congestion control; modules tcp_<name> load on demand,
 * for CAP_NET_ADMIN only.
 *
 * Test fixture, cut down to the two module-loading callers.
 */

#include <linux/module.h>
#include <net/tcp.h>
#include <linux/kmod.h>" > want &&
	printf "%s\n" "$(git -C $R show refs/heads/backport/queue/stable/4.19.y:net/ipv4/tcp_cong.c | sed -n 1,12p)" > got &&
	test_cmp want got
'
test_expect_success '2.6.32.y: comedi'\''s line changed once' '
	test_eq '\''		DPRINTK("invalid minor number %u\n", minor);'\'' "$(git -C $R show refs/heads/backport/queue/stable/2.6.32.y:drivers/staging/comedi/comedi_fops.c | grep "invalid minor")"
'
test_expect_success 'the message names the upstream commit' '
	test_eq "commit $(sed -n "s/^upstream: //p" fixes/tcp-say-who-may-load-them/fix.yaml) upstream." "$(git -C $R log -1 --format=%b refs/heads/backport/queue/stable/4.19.y~1 | sed -n 1p)"
'

T_NAME="FAILED mail"
test_expect_success 'one mail per skipped fix and branch' '
	test_eq "mails/staging-comedi-print-the-minor/FAILED-4.19.y.txt" "$(find mails -type f)"
'
test_expect_success '...named in the JSON' '
	test "$(q 4.19.y ".results[3].mail")" = "mails/staging-comedi-print-the-minor/FAILED-4.19.y.txt"
'
m=mails/staging-comedi-print-the-minor/FAILED-4.19.y.txt
WT=$TMP/repos/linux-staging-comedi-print-the-minor-4.19.y
F=$TMP/fixes
# the whole mail, exactly: the stable defaults of a stable branch (no mail:
# in branches.yaml), the commands, then the patch tried in mail form
{
	cat <<EOF
To: Fixture Author <author@example.org>
Cc: stable@vger.kernel.org
Subject: FAILED: patch "staging: comedi: print the minor" failed to apply to 4.19-stable tree
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

The patch below does not apply to the 4.19-stable tree.
If someone wants it applied there, or to any other stable or longterm
tree, then please email the backport, including the original git commit
id to <stable@vger.kernel.org>.

kbackport tried each variant of staging-comedi-print-the-minor on the branch
4.19.y of $TMP/repos/linux, on top of the fixes before it in the queue 'stable':

  variant 'patch' does not apply: 'drivers/staging/comedi/comedi_fops.c': no file 'drivers/staging/comedi/comedi_fops.c' in the tree

To reproduce the conflict and resolve it by hand, you may use the following commands:

  git -C $TMP/repos/linux worktree add $WT -b backport/staging-comedi-print-the-minor/4.19.y linux-4.19.y
  git -C $WT am -3 $F/CVE-2011-4001/fix.patch
  git -C $WT am -3 $F/tcp-say-who-may-load-them/fix.patch
  git -C $WT am -3 $F/staging-comedi-print-the-minor/fix.patch
  # resolve the conflicts (see the failed hunks), then: git -C $WT add <files>
  # build and test the kernel
  git -C $WT am --continue

------------------ original commit in Linus's tree ------------------

From $(sed -n 's/^upstream: //p' fixes/staging-comedi-print-the-minor/fix.yaml) Mon Sep 17 00:00:00 2001
From: Fixture Author <author@example.org>
Date: Fri, 1 Jan 2010 00:00:00 +0000
Subject: [PATCH] staging: comedi: print the minor

---
EOF
	sed -n '/^diff --git/,$p' fixes/staging-comedi-print-the-minor/fix.patch
} > expected-mail
test_expect_success '...the whole mail, stable'\''s wording for a stable branch, the patch tried at its end' '
	test_cmp expected-mail $m
'
test_expect_success '...whose commands start from the queue as it stood: the fixes applied before it, by git am -3' '
	printf "%s\n" "git -C $TMP/repos/linux worktree add $WT -b backport/staging-comedi-print-the-minor/4.19.y linux-4.19.y
git -C $WT am -3 $TMP/fixes/CVE-2011-4001/fix.patch
git -C $WT am -3 $TMP/fixes/tcp-say-who-may-load-them/fix.patch
git -C $WT am -3 $TMP/fixes/staging-comedi-print-the-minor/fix.patch
# resolve the conflicts (see the failed hunks), then: git -C $WT add <files>
# build and test the kernel
git -C $WT am --continue" > want &&
	printf "%s\n" "$(sed -n "/^To reproduce/,/^  git -C .* am --continue/p" $m | sed -n "s/^  //p")" > got &&
	test_cmp want got
'
test_expect_success '...as in the JSON' '
	test_eq "$(sed -n "/^To reproduce/,/^  git -C .* am --continue/p" $m | sed -n "s/^  //p")" "$(q 4.19.y '\''.results[3].reproduce | join("\n")'\'')"
'
test_expect_success '...pasted into sh from elsewhere: the queue before it replayed, then the fix stops on its conflict' '
	q 4.19.y ".results[3].reproduce[]" >paste.sh &&
	mkdir -p elsewhere &&
	{ (cd elsewhere && sh ../paste.sh) >paste.out 2>&1; true; } &&	# it stops at the conflict
	test "$(git -C "$WT" log --format=%s linux-4.19.y..HEAD)" = "tcp: say who may load them
tcp: say that modules load on demand" &&
	test "$(git -C "$WT" rev-parse HEAD^{tree})" = "$(git -C $R rev-parse refs/heads/backport/queue/stable/4.19.y~1^{tree})" &&
	test -d "$(git -C "$WT" rev-parse --git-path rebase-apply)" &&
	git -C "$WT" am --abort && git -C $R worktree remove "$WT" &&
	git -C $R branch -D backport/staging-comedi-print-the-minor/4.19.y
'

T_NAME="re-run"
# lib.sh pins GIT_COMMITTER_DATE: a re-run at another time (another date,
# or none: now) must find the queue's commits all the same
refs=$(git -C $R for-each-ref refs/heads/backport)
logs=$(cat $R/.git/logs/refs/heads/backport/queue/stable/* | wc -l)
nobj=$(find $R/.git/objects -type f | wc -l)
rerun() {
	local date=$1
	if [ "$date" = now ]; then
		(unset GIT_COMMITTER_DATE; ${KB_VALGRIND:-} "$KBACKPORT" apply --queue stable.series --json >rerun.json 2>rerun.err)
	else
		GIT_COMMITTER_DATE="$date" ${KB_VALGRIND:-} "$KBACKPORT" apply --queue stable.series --json >rerun.json 2>rerun.err
	fi
}
for date in "1800000000 +0200" now; do
	test_expect_success "again at another committer date ($date): nothing written, the same commits" '
		rerun "$date"; test $? = 1 &&
		test "$(jq -r "[.branches[].created] | join(\" \")" rerun.json)" = "false false false" &&
		test "$(jq -c "[.branches[] | .commit, [.results[] | .commit, .base]]" q.json)" = \
		     "$(jq -c "[.branches[] | .commit, [.results[] | .commit, .base]]" rerun.json)" &&
		test "$(jq -r "[.branches[].results[] | select(.status == \"applied\") | .created] | unique | join(\" \")" rerun.json)" = false &&
		test "$(jq -r ".branches[0].results[0].detail" rerun.json)" = "unchanged, already backported with variant '"'patch'"'"
	'
	test_expect_success "...the refs, their reflogs and the object store unchanged ($date)" '
		test "$(git -C $R for-each-ref refs/heads/backport)" = "$refs" &&
		test "$(cat $R/.git/logs/refs/heads/backport/queue/stable/* | wc -l)" = "$logs" &&
		test "$(find $R/.git/objects -type f | wc -l)" = "$nobj"
	'
done
test_expect_success 'a dry run at another date: the same statuses, nothing written' '
	GIT_COMMITTER_DATE="1900000000 +0000" ${KB_VALGRIND:-} "$KBACKPORT" apply --queue stable.series --dry-run --json >dry.json
	test $? = 1 &&
	test "$(jq -c "[.branches[].results[].status]" dry.json)" = "$(jq -c "[.branches[].results[].status]" q.json)" &&
	test "$(find $R/.git/objects -type f | wc -l)" = "$nobj" &&
	test "$(git -C $R for-each-ref refs/heads/backport)" = "$refs"
'
test_expect_success 'a queue grown by fixes at its end keeps its first commits' '
	head -4 stable.series >short.series &&
	GIT_COMMITTER_DATE="1700000100 +0000" ${KB_VALGRIND:-} "$KBACKPORT" apply --queue short.series --name grow -b 4.19.y --json >short.json &&
	{ GIT_COMMITTER_DATE="1700000200 +0000" ${KB_VALGRIND:-} "$KBACKPORT" apply --queue stable.series --name grow -b 4.19.y --json >grown.json; test $? = 1; } &&
	test "$(jq -r ".branches[0].created" grown.json)" = true &&
	test "$(jq -c "[.branches[0].results[:3][] | .commit]" short.json)" = "$(jq -c "[.branches[0].results[:3][] | .commit]" grown.json)" &&
	test "$(jq -r "[.branches[0].results[] | .created] | join(\" \")" grown.json)" = "false false false false true" &&
	test "$(git -C $R rev-parse refs/heads/backport/queue/grow/4.19.y~1)" = "$(jq -r ".branches[0].commit" short.json)"
'

T_NAME="text"
run_kb 1 apply --queue stable.series --branch 2.6.37.y --branch 4.19.y
c37=$(git -C $R rev-parse --short=12 refs/heads/backport/queue/stable/2.6.37.y)
c419=$(git -C $R rev-parse --short=12 refs/heads/backport/queue/stable/4.19.y)
cat > expected-text <<EOF
#   FIX                                    2.6.37.y         4.19.y
1   CVE-2011-4001                          applied          applied
2   tcp-the-on-demand-note-once-more       already-applied  already-applied
3   tcp-say-who-may-load-them              applied          applied
4   staging-comedi-print-the-minor         applied          conflict
5   tcp-include-kmod-h-for-request-module  applied          applied

2.6.37.y: refs/heads/backport/queue/stable/2.6.37.y at $c37: 4 of 5 fixes applied
  2 tcp-the-on-demand-note-once-more: already-applied: the changes of variant 'patch' are already in 'linux-2.6.37.y' (with the fixes applied before it in the queue)
      found: variant 'patch' at net/ipv4/tcp_cong.c:1

4.19.y: refs/heads/backport/queue/stable/4.19.y at $c419: 3 of 5 fixes applied
  2 tcp-the-on-demand-note-once-more: already-applied: every hunk of variant 'patch' is already in the tree (with the fixes applied before it in the queue)
  4 staging-comedi-print-the-minor: conflict: variant 'patch' does not apply: 'drivers/staging/comedi/comedi_fops.c': no file 'drivers/staging/comedi/comedi_fops.c' in the tree
      'drivers/staging/comedi/comedi_fops.c': no file 'drivers/staging/comedi/comedi_fops.c' in the tree
EOF
test_expect_success 'a fix x branch matrix, then per branch the ref and the skipped fixes' '
	printf "%s\n" "$OUT" > got &&
	test_cmp expected-text got
'

T_NAME="--name and --dry-run"
run_kb 1 apply --queue stable.series --name other --dry-run --json
test_expect_success 'the refs it would write' '
	test_eq "refs/heads/backport/queue/other/2.6.32.y refs/heads/backport/queue/other/2.6.37.y refs/heads/backport/queue/other/4.19.y" "$(echo "$OUT" | jq -r '\''[.branches[].ref] | join(" ")'\'')"
'
test_expect_success '...the same statuses' '
	test_eq "$(jq -c "[.branches[].results[].status]" q.json)" "$(echo "$OUT" | jq -c "[.branches[].results[].status]")"
'
test_expect_success '...no ref written' '
	test -z "$(git -C $R for-each-ref refs/heads/backport/queue/other)"
'

T_NAME="stale lock"
touch $R/.git/refs/heads/backport/queue/stable/2.6.37.y.lock
git -C $R update-ref -d refs/heads/backport/queue/stable/2.6.32.y
run_kb 1 apply --queue stable.series --json
rm $R/.git/refs/heads/backport/queue/stable/2.6.37.y.lock
test_expect_success 'the locked branch is an error naming the lock' '
	[[ $(echo "$OUT" | jq -r ".branches[1].error") == *"2.6.37.y.lock"* ]]
'
test_expect_success '...its ref unchanged, the others written' '
	test "$(echo "$OUT" | jq -r '\''[.branches[] | if .error then "error=true" else "created=\(.created)" end] | join(" ")'\'')" = \
		"created=true error=true created=false"
'

T_NAME="in the branch already"
cat > vendor.yaml <<'YAML'
repo: repos/vendor.git
branches:
  - {name: vendor-fixed, ref: vendor-2.6.32-fixed}
YAML
printf '%s\n' "$TOP_DIR/backports/CVE-2011-1019" > vendor.series
run_kb 0 apply --queue vendor.series --config vendor.yaml
cat > expected-vendor <<'EOF'
#   FIX            vendor-fixed
1   CVE-2011-1019  already-applied

vendor-fixed: 0 of 1 fixes applied: no ref written
  1 CVE-2011-1019: already-applied: the changes of variant '2.6.32' are already in 'vendor-2.6.32-fixed'
      found: variant '2.6.32' at include/linux/netdevice.h:13 (variant 'upstream'), net/core/dev.c:32, net/ipv4/ip_gre.c:18, net/ipv4/ipip.c:16, net/ipv6/sit.c:16
EOF
test_expect_success 'noted as in the branch itself, and no ref written' '
	printf "%s\n" "$OUT" > got &&
	test_cmp expected-vendor got
'
test_expect_success '...nothing under refs/heads/backport' '
	test -z "$(git -C repos/vendor.git for-each-ref refs/heads/backport)"
'

T_NAME="bad input"
objects() { find $R/.git/objects -type f | wc -l; }
refs=$(git -C $R for-each-ref) nobj=$(objects)
printf 'fixes/CVE-2011-4001\nfixes/no-such-fix\n' > missing.series
test_expect_success 'a series naming a missing fix' '
	run_kb 2 apply --queue missing.series &&
	test "$ERR" = "error: missing.series:2: no fix directory or patch '\''fixes/no-such-fix'\''"
'
printf 'From: A U Thor <author@example.org>\nSubject: [PATCH] words only\n\nno diff here\n' > nodiff.patch
printf 'fixes/CVE-2011-4001\nnodiff.patch\n' > nodiff.series
run_kb 2 apply --queue nodiff.series
test_expect_success 'a mail with no patch' '
	[[ $ERR == *"nodiff.series:2: "* ]]
'
test_expect_success '...naming the mail' '
	[[ $ERR == *"nodiff.patch"* ]]
'
sed 's/^Subject: .*/Subject: tcp: say who may load them/' again.patch > same-subject.patch
printf 'fixes/tcp-say-who-may-load-them\nsame-subject.patch\n' > sameid.series
test_expect_success 'two patches with one id' '
	run_kb 2 apply --queue sameid.series &&
	test_eq "error: sameid.series:2: fix '\''tcp-say-who-may-load-them'\'' is in the queue twice" "$ERR"
'
printf '# nothing yet\n\n   \n' > empty.series
test_expect_success 'an empty series' '
	run_kb 2 apply --queue empty.series &&
	test "$ERR" = "error: empty.series: the series names no fix"
'
test_expect_success 'a name that cannot be in a ref' '
	run_kb 2 apply --queue stable.series --name "a..b" &&
	test_eq "error: '\''refs/heads/backport/queue/a..b/2.6.32.y'\'' is not a valid ref name" "$ERR"
'
test_expect_success '--name without --queue' '
	run_kb 2 apply --name x &&
	test "$ERR" = "error: --name goes with --queue"
'
test_expect_success 'nothing written by any of them' '
	test_eq "$refs $nobj" "$(git -C $R for-each-ref) $(objects)"
'
test_expect_success 'the user'\''s refs, HEAD, index and work tree are untouched' '
	test_eq "$before" "$(user_state $R)"
'
# ---- one ref namespace: refs/heads/backport/<fix>/<branch> and
# refs/heads/backport/queue/<queue>/<branch>. A fix may not be named queue;
# a ref in the way (git keeps refs as files in folders) is said in words,
# before anything is written.
T_NAME="ref namespace"
NOT_BOTH="and one name cannot be both a ref and a folder of refs"
# unchanged CMD...: runs it; the refs and the objects are as they were
unchanged() {
	local refs nobj
	refs=$(git -C $R for-each-ref) nobj=$(objects)
	"$@" && test "$(git -C $R for-each-ref) $(objects)" = "$refs $nobj"
}
qerr() { echo "$OUT" | jq -r '.branches[0].error'; }
test_expect_success 'a fix named queue is refused, alone or in a series' '
	mkdir -p qfixes && cp -r fixes/CVE-2011-4001 qfixes/queue &&
	sed -i "s/^id: .*/id: queue/" qfixes/queue/fix.yaml &&
	unchanged run_kb 2 apply --fix qfixes/queue &&
	test "$ERR" = "error: qfixes/queue/fix.yaml:3:5: '"'"'queue'"'"' cannot be a fix id: refs/heads/backport/queue/ holds the queues'"'"' refs" &&
	echo qfixes/queue > queue-fix.series &&
	unchanged run_kb 2 apply --queue queue-fix.series &&
	test "$ERR" = "error: queue-fix.series:1: ./qfixes/queue/fix.yaml:3:5: '"'"'queue'"'"' cannot be a fix id: refs/heads/backport/queue/ holds the queues'"'"' refs"
'
test_expect_success 'a queue named like a branch, where a fix named queue left its ref: the clash in words, nothing written' '
	git -C $R update-ref refs/heads/backport/queue/2.6.37.y linux-2.6.37.y &&
	unchanged run_kb 1 apply --queue stable.series --name 2.6.37.y --branch 2.6.37.y --json &&
	test "$(qerr)" = "cannot write '"'"'refs/heads/backport/queue/2.6.37.y/2.6.37.y'"'"': the ref '"'"'refs/heads/backport/queue/2.6.37.y'"'"' exists, $NOT_BOTH (rename or delete '"'"'refs/heads/backport/queue/2.6.37.y'"'"')" &&
	unchanged run_kb 1 apply --queue stable.series --name 2.6.37.y --branch 2.6.37.y --dry-run --json &&
	test "$(qerr)" = "cannot write '"'"'refs/heads/backport/queue/2.6.37.y/2.6.37.y'"'"': the ref '"'"'refs/heads/backport/queue/2.6.37.y'"'"' exists, $NOT_BOTH (rename or delete '"'"'refs/heads/backport/queue/2.6.37.y'"'"')" &&
	git -C $R update-ref -d refs/heads/backport/queue/2.6.37.y &&
	run_kb 0 apply --queue stable.series --name 2.6.37.y --branch 2.6.37.y --json &&
	test "$(echo "$OUT" | jq -r ".branches[0] | \"\(.ref) \(.created)\"")" = "refs/heads/backport/queue/2.6.37.y/2.6.37.y true"
'
test_expect_success 'a fix id that is a branch namespace of the repository (a branch backport/<id>): the clash in words, nothing written' '
	git -C $R branch backport/CVE-2011-4001 linux-2.6.37.y &&
	unchanged run_kb 1 apply --fix fixes/CVE-2011-4001 --branch 2.6.37.y --json &&
	test "$(echo "$OUT" | jq -r ".[0].results[0] | \"\(.status): \(.detail)\"")" = "error: cannot write '"'"'refs/heads/backport/CVE-2011-4001/2.6.37.y'"'"': the ref '"'"'refs/heads/backport/CVE-2011-4001'"'"' exists, $NOT_BOTH (rename or delete '"'"'refs/heads/backport/CVE-2011-4001'"'"')" &&
	git -C $R branch -D -q backport/CVE-2011-4001 &&
	run_kb 0 apply --fix fixes/CVE-2011-4001 --branch 2.6.37.y --json &&
	test "$(echo "$OUT" | jq -r ".[0].results[0].status")" = applied
'
test_expect_success 'refs inside the ref to write, for a fix and for a queue: the clash in words, nothing written' '
	git -C $R update-ref -d refs/heads/backport/CVE-2011-4001/2.6.37.y &&
	git -C $R update-ref refs/heads/backport/CVE-2011-4001/2.6.37.y/old linux-2.6.37.y &&
	unchanged run_kb 1 apply --fix fixes/CVE-2011-4001 --branch 2.6.37.y --json &&
	test "$(echo "$OUT" | jq -r ".[0].results[0].detail")" = "cannot write '"'"'refs/heads/backport/CVE-2011-4001/2.6.37.y'"'"': refs exist inside it ('"'"'refs/heads/backport/CVE-2011-4001/2.6.37.y/old'"'"'), $NOT_BOTH (rename or delete them)" &&
	git -C $R update-ref -d refs/heads/backport/CVE-2011-4001/2.6.37.y/old &&
	git -C $R update-ref refs/heads/backport/queue/inside/2.6.37.y/x linux-2.6.37.y &&
	unchanged run_kb 1 apply --queue stable.series --name inside --branch 2.6.37.y --json &&
	test "$(qerr)" = "cannot write '"'"'refs/heads/backport/queue/inside/2.6.37.y'"'"': refs exist inside it ('"'"'refs/heads/backport/queue/inside/2.6.37.y/x'"'"'), $NOT_BOTH (rename or delete them)" &&
	git -C $R update-ref -d refs/heads/backport/queue/inside/2.6.37.y/x
'
test_expect_success 'a branch named backport: every fix and queue ref is in the way, said in words' '
	git init -q -b main solo && git -C solo fetch -q ../$R linux-2.6.37.y:linux-2.6.37.y &&
	git -C solo branch backport linux-2.6.37.y &&
	printf "repo: solo\nbranches:\n  - {name: 2.6.37.y, ref: linux-2.6.37.y}\n" > solo.yaml &&
	run_kb 1 apply --config solo.yaml --fix fixes/CVE-2011-4001 --json &&
	test "$(echo "$OUT" | jq -r ".[0].results[0].detail")" = "cannot write '"'"'refs/heads/backport/CVE-2011-4001/2.6.37.y'"'"': the ref '"'"'refs/heads/backport'"'"' exists, $NOT_BOTH (rename or delete '"'"'refs/heads/backport'"'"')" &&
	run_kb 1 apply --config solo.yaml --queue stable.series --json &&
	test "$(qerr)" = "cannot write '"'"'refs/heads/backport/queue/stable/2.6.37.y'"'"': the ref '"'"'refs/heads/backport'"'"' exists, $NOT_BOTH (rename or delete '"'"'refs/heads/backport'"'"')" &&
	test "$(git -C solo for-each-ref --format="%(refname)")" = "refs/heads/backport
refs/heads/linux-2.6.37.y"
'
test_expect_success 'a queue named as a fix id, and names that are prefixes of each other as strings: no clash' '
	run_kb 0 apply --fix fixes/CVE-2011-4001 --branch 2.6.37.y --json &&
	run_kb 0 apply --queue stable.series --name CVE-2011-4001 --branch 2.6.37.y --json &&
	run_kb 0 apply --queue stable.series --name stable-2 --branch 2.6.37.y --json &&
	run_kb 0 apply --queue stable.series --name stabl --branch 2.6.37.y --json &&
	git -C $R for-each-ref --format="%(refname)" refs/heads/backport/CVE-2011-4001 refs/heads/backport/queue/CVE-2011-4001 \
		refs/heads/backport/queue/stable refs/heads/backport/queue/stable-2 refs/heads/backport/queue/stabl >got &&
	cat >want <<-\EOF &&
	refs/heads/backport/CVE-2011-4001/2.6.37.y
	refs/heads/backport/queue/CVE-2011-4001/2.6.37.y
	refs/heads/backport/queue/stabl/2.6.37.y
	refs/heads/backport/queue/stable-2/2.6.37.y
	refs/heads/backport/queue/stable/2.6.32.y
	refs/heads/backport/queue/stable/2.6.37.y
	refs/heads/backport/queue/stable/4.19.y
	EOF
	test_cmp want got &&
	git -C $R fsck --strict --no-dangling --no-progress
'
test_expect_success 'a queue name with a slash (queue a/b would take queue a'"'"'s refs of a branch b): refused' '
	unchanged run_kb 2 apply --queue stable.series --name stable/2.6.37.y &&
	test "$ERR" = "error: invalid queue name '"'"'stable/2.6.37.y'"'"' (must be usable as one component of a git ref name)"
'
finish
