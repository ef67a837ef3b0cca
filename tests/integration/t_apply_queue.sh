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
assert_eq "one fix per format-patch file, ids from the CVE or the subject" \
"created fixes/CVE-2011-4001/: tcp: say that modules load on demand
created fixes/tcp-say-who-may-load-them/: tcp: say who may load them
created fixes/staging-comedi-print-the-minor/: staging: comedi: print the minor
created fixes/tcp-include-kmod-h-for-request-module/: tcp: include kmod.h for request_module" "$OUT"
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
assert_eq "the queue's name" "stable" "$(jq -r .queue q.json)"
assert_eq "fixes in series order" "$FIXES" "$(q 4.19.y '[.results[].fix] | join(" ")')"
assert_eq "2.6.32.y: statuses" "applied already-applied applied applied applied" "$(q 2.6.32.y '[.results[].status] | join(" ")')"
assert_eq "2.6.37.y: statuses" "applied already-applied applied applied applied" "$(q 2.6.37.y '[.results[].status] | join(" ")')"
assert_eq "4.19.y: statuses, the failing fix skipped and the rest applied" \
	"applied already-applied applied conflict applied" "$(q 4.19.y '[.results[].status] | join(" ")')"
assert_eq "4.19.y: why it was skipped" \
	"'drivers/staging/comedi/comedi_fops.c': no file 'drivers/staging/comedi/comedi_fops.c' in the tree" \
	"$(q 4.19.y '.results[3].notes | join("\n")')"
assert_eq "applied counts" "4 4 3" "$(jq -r '[.branches[].applied] | join(" ")' q.json)"
assert_eq "the user's refs, HEAD, index and work tree are untouched" "$before" "$(user_state $R)"

for b in $BRANCHES; do
	T_NAME="$b"
	ref=refs/heads/backport/queue/stable/$b
	assert_eq "the ref is the queue's and holds its commit" "$ref $(git -C $R rev-parse $ref)" \
		"$(q $b '"\(.ref) \(.commit)"')"
	# parents chained in order: every applied fix's commit on the previous one
	chain=$(git -C $R rev-list --reverse --parents linux-$b..$ref)
	want_parent=$(git -C $R rev-parse linux-$b) ok=yes i=0
	for c in $(q $b '.results[] | select(.status == "applied") | .commit'); do
		i=$((i + 1))
		[ "$(echo "$chain" | sed -n ${i}p)" = "$c $want_parent" ] || ok=no
		want_parent=$c
	done
	assert_eq "each applied fix's commit sits on the previous one, in series order" \
		"yes $i" "$ok $(echo "$chain" | wc -l)"
	assert_eq "the last one is the ref" "$want_parent" "$(git -C $R rev-parse $ref)"
	assert_eq "the subjects, in order" \
		"$(q $b '[.results[] | select(.status == "applied") | .fix] | join(" ")')" \
		"$(git -C $R log --reverse --format=%s linux-$b..$ref | while read -r s; do
			for f in fixes/*/; do grep -qxF "subject: \"$s\"" $f/fix.yaml && basename $f; done
		done | tr '\n' ' ' | sed 's/ $//')"
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
	assert_eq "every queue commit's tree is git am -3's, byte for byte" "${trees# }" \
		"$(git -C $R rev-list --reverse linux-$b..$ref | while read -r c; do git -C $R rev-parse $c^{tree}; done | tr '\n' ' ' | sed 's/ $//')"
done
T_NAME="files"
assert_eq "4.19.y: tcp_cong.c at the tip has 1, 2 and 4" \
"// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pluggable TCP congestion control support and newReno
 * congestion control; modules tcp_<name> load on demand,
 * for CAP_NET_ADMIN only.
 *
 * Test fixture, cut down to the two module-loading callers.
 */

#include <linux/module.h>
#include <net/tcp.h>
#include <linux/kmod.h>" "$(git -C $R show refs/heads/backport/queue/stable/4.19.y:net/ipv4/tcp_cong.c | sed -n 1,12p)"
assert_eq "2.6.32.y: comedi's line changed once" '		DPRINTK("invalid minor number %u\n", minor);' \
	"$(git -C $R show refs/heads/backport/queue/stable/2.6.32.y:drivers/staging/comedi/comedi_fops.c | grep 'invalid minor')"
assert_eq "the message names the upstream commit" "commit $(sed -n 's/^upstream: //p' fixes/tcp-say-who-may-load-them/fix.yaml) upstream." \
	"$(git -C $R log -1 --format=%b refs/heads/backport/queue/stable/4.19.y~1 | sed -n 1p)"

T_NAME="FAILED mail"
assert_eq "one mail per skipped fix and branch" "mails/staging-comedi-print-the-minor/FAILED-4.19.y.txt" \
	"$(find mails -type f)"
assert_eq "...named in the JSON" "mails/staging-comedi-print-the-minor/FAILED-4.19.y.txt" "$(q 4.19.y '.results[3].mail')"
m=mails/staging-comedi-print-the-minor/FAILED-4.19.y.txt
assert_eq "...to the author, about the branch" "To: Fixture Author <author@example.org>
Subject: FAILED: patch \"staging: comedi: print the minor\" failed to apply to 4.19.y stable tree" \
	"$(grep -E '^(To|Subject):' $m)"
assert_contains "...in the queue" "4.19.y of $TMP/repos/linux, on top of the fixes before it in the queue 'stable':" "$(tr '\n' ' ' < $m | sed 's/  */ /g; s/ $//')"
assert_contains "...with the failing file" "no file 'drivers/staging/comedi/comedi_fops.c' in the tree" "$(cat $m)"

assert_eq "...whose commands start from the queue as it stood: the fixes applied before it, by git am -3" \
"cd $TMP/repos/linux
git fetch https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git $(sed -n 's/^upstream: //p' fixes/staging-comedi-print-the-minor/fix.yaml)
git checkout -b backport/staging-comedi-print-the-minor/4.19.y linux-4.19.y
git am -3 $TMP/fixes/CVE-2011-4001/fix.patch
git am -3 $TMP/fixes/tcp-say-who-may-load-them/fix.patch
git cherry-pick -x $(sed -n 's/^upstream: //p' fixes/staging-comedi-print-the-minor/fix.yaml)" \
	"$(sed -n '/^To reproduce/,/^  git cherry-pick/p' $m | sed -n 's/^  //p')"
assert_eq "...as in the JSON" "$(sed -n '/^To reproduce/,/^  git commit/p' $m | sed -n 's/^  //p')" \
	"$(q 4.19.y '.results[3].reproduce | join("\n")')"

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
assert_eq "a fix x branch matrix, then per branch the ref and the skipped fixes" \
"#   FIX                                    2.6.37.y         4.19.y
1   CVE-2011-4001                          applied          applied
2   tcp-the-on-demand-note-once-more       already-applied  already-applied
3   tcp-say-who-may-load-them              applied          applied
4   staging-comedi-print-the-minor         applied          conflict
5   tcp-include-kmod-h-for-request-module  applied          applied

2.6.37.y: refs/heads/backport/queue/stable/2.6.37.y at $c37: 4 of 5 fixes applied
  2 tcp-the-on-demand-note-once-more: already-applied: the changes of variant 'patch' are already in 'linux-2.6.37.y' (with the fixes applied before it in the queue)

4.19.y: refs/heads/backport/queue/stable/4.19.y at $c419: 3 of 5 fixes applied
  2 tcp-the-on-demand-note-once-more: already-applied: every hunk of variant 'patch' is already in the tree (with the fixes applied before it in the queue)
  4 staging-comedi-print-the-minor: conflict: variant 'patch' does not apply: 'drivers/staging/comedi/comedi_fops.c': no file 'drivers/staging/comedi/comedi_fops.c' in the tree
      'drivers/staging/comedi/comedi_fops.c': no file 'drivers/staging/comedi/comedi_fops.c' in the tree" "$OUT"

T_NAME="--name and --dry-run"
run_kb 1 apply --queue stable.series --name other --dry-run --json
assert_eq "the refs it would write" "refs/heads/backport/queue/other/2.6.32.y refs/heads/backport/queue/other/2.6.37.y refs/heads/backport/queue/other/4.19.y" \
	"$(echo "$OUT" | jq -r '[.branches[].ref] | join(" ")')"
assert_eq "...the same statuses" "$(jq -c '[.branches[].results[].status]' q.json)" "$(echo "$OUT" | jq -c '[.branches[].results[].status]')"
assert_eq "...no ref written" "" "$(git -C $R for-each-ref refs/heads/backport/queue/other)"

T_NAME="stale lock"
touch $R/.git/refs/heads/backport/queue/stable/2.6.37.y.lock
git -C $R update-ref -d refs/heads/backport/queue/stable/2.6.32.y
run_kb 1 apply --queue stable.series --json
rm $R/.git/refs/heads/backport/queue/stable/2.6.37.y.lock
assert_contains "the locked branch is an error naming the lock" "2.6.37.y.lock" "$(echo "$OUT" | jq -r '.branches[1].error')"
assert_eq "...its ref unchanged, the others written" "created=true error=true created=false" \
	"$(echo "$OUT" | jq -r '[.branches[] | if .error then "error=true" else "created=\(.created)" end] | join(" ")')"

T_NAME="in the branch already"
cat > vendor.yaml <<'YAML'
repo: repos/vendor.git
branches:
  - {name: vendor-fixed, ref: vendor-2.6.32-fixed}
YAML
printf '%s\n' "$TOP_DIR/backports/CVE-2011-1019" > vendor.series
run_kb 0 apply --queue vendor.series --config vendor.yaml
assert_eq "noted as in the branch itself, and no ref written" \
"#   FIX            vendor-fixed
1   CVE-2011-1019  already-applied

vendor-fixed: 0 of 1 fixes applied: no ref written
  1 CVE-2011-1019: already-applied: the changes of variant '2.6.32' are already in 'vendor-2.6.32-fixed'" "$OUT"
assert_eq "...nothing under refs/heads/backport" "" "$(git -C repos/vendor.git for-each-ref refs/heads/backport)"

T_NAME="bad input"
objects() { find $R/.git/objects -type f | wc -l; }
refs=$(git -C $R for-each-ref) nobj=$(objects)
printf 'fixes/CVE-2011-4001\nfixes/no-such-fix\n' > missing.series
run_kb 2 apply --queue missing.series &&
	assert_eq "a series naming a missing fix" "error: missing.series:2: no fix directory or patch 'fixes/no-such-fix'" "$ERR"
printf 'From: A U Thor <author@example.org>\nSubject: [PATCH] words only\n\nno diff here\n' > nodiff.patch
printf 'fixes/CVE-2011-4001\nnodiff.patch\n' > nodiff.series
run_kb 2 apply --queue nodiff.series && assert_contains "a mail with no patch" "nodiff.series:2: " "$ERR" &&
	assert_contains "...naming the mail" "nodiff.patch" "$ERR"
sed 's/^Subject: .*/Subject: tcp: say who may load them/' again.patch > same-subject.patch
printf 'fixes/tcp-say-who-may-load-them\nsame-subject.patch\n' > sameid.series
run_kb 2 apply --queue sameid.series &&
	assert_eq "two patches with one id" "error: sameid.series:2: fix 'tcp-say-who-may-load-them' is in the queue twice" "$ERR"
printf '# nothing yet\n\n   \n' > empty.series
run_kb 2 apply --queue empty.series && assert_eq "an empty series" "error: empty.series: the series names no fix" "$ERR"
run_kb 2 apply --queue stable.series --name 'a..b' &&
	assert_eq "a name that cannot be in a ref" "error: 'refs/heads/backport/queue/a..b/2.6.32.y' is not a valid ref name" "$ERR"
run_kb 2 apply --name x && assert_eq "--name without --queue" "error: --name and --mails go with --queue" "$ERR"
assert_eq "nothing written by any of them" "$refs $nobj" "$(git -C $R for-each-ref) $(objects)"
assert_eq "the user's refs, HEAD, index and work tree are untouched" "$before" "$(user_state $R)"
finish
