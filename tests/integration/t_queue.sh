#!/usr/bin/env bash
# kbackport apply --queue: fixes in order onto each branch, each on top of
# the previous one, to one ref per branch and queue; a fix that does not
# apply is skipped there and reported, one already in is noted; bad series.
source "$(dirname "$0")/../lib.sh"
T_SUITE=queue
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cd "$TMP"
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: 2.6.32.y, ref: linux-2.6.32.y}
  - {name: 2.6.37.y, ref: linux-2.6.37.y}
YAML
mail() { # FILE SUBJECT UPSTREAM-SHA: a mail header for a patch that follows
	printf 'From %s Mon Sep 17 00:00:00 2001\nFrom: A U Thor <author@example.org>\nDate: Wed, 2 Mar 2011 10:00:00 +0000\nSubject: [PATCH] %s\n\ncommit %s upstream.\n---\n' "$3" "$2" "$3" > "$1"
}
# 2: needs 1 (its context is a line that fix 1 adds)
mail needs-one.patch "sit: one more alias" 2222222222222222222222222222222222222222
cat >> needs-one.patch <<'P'
diff --git a/net/ipv6/sit.c b/net/ipv6/sit.c
--- a/net/ipv6/sit.c
+++ b/net/ipv6/sit.c
@@ -1,1 +1,2 @@
 MODULE_ALIAS_NETDEV("sit0");
+MODULE_ALIAS_NETDEV("sit1");
P
# 3: fits nowhere
mail nowhere.patch "nothing: change a missing line" 3333333333333333333333333333333333333333
cat >> nowhere.patch <<'P'
diff --git a/net/ipv6/sit.c b/net/ipv6/sit.c
--- a/net/ipv6/sit.c
+++ b/net/ipv6/sit.c
@@ -1,1 +1,1 @@
-no such line
+another line
P
# 4: already in after 1 and 2 (the change of 2 again, under another name)
mail in.patch "sit: the alias, once more" 4444444444444444444444444444444444444444
sed -n '/^diff --git/,$p' needs-one.patch >> in.patch
cat > stable.series <<EOF2
# the order matters: needs-one.patch only fits once CVE-2011-1019 is in
$TOP_DIR/backports/CVE-2011-1019
needs-one.patch
nowhere.patch   # skipped, the rest goes on
in.patch
EOF2

run_kb 1 apply --queue stable.series --json
echo "$OUT" > q.json
st() { jq -r --arg b "$1" '.branches[] | select(.branch == $b) | [.results[].status] | join(" ")' q.json; }
for b in 2.6.32.y 2.6.37.y; do
	T_NAME=$b
	test_expect_success 'statuses in queue order' 'test "$(st $b)" = "applied applied conflict already-applied"'
	ref=refs/heads/backport/queue/stable/$b
	test_expect_success 'one ref per branch and queue' '
		test "$(jq -r --arg b $b '\''.branches[] | select(.branch == $b) | .ref'\'' q.json)" = "$ref"
	'
	test_expect_success "the ref holds the queue's last applied commit" '
		test "$(jq -r --arg b $b '\''.branches[] | select(.branch == $b) | .results[1].commit'\'' q.json)" = \
			"$(git -C repos/linux rev-parse $ref)"
	'
	test_expect_success 'two commits, in order, on the branch' '
		echo "sit: one more alias|net: don'\''t allow CAP_NET_ADMIN to load non-netdev kernel modules" > want &&
		printf "%s\n" "$(git -C repos/linux log --format=%s linux-$b..$ref | tr "\n" "|" | sed "s/|\$//")" > got &&
		test_cmp want got
	'
	test_expect_success "the first commit is the fix's own" '
		test "$(git -C repos/linux rev-parse $ref^)" = \
			"$(jq -r --arg b $b '\''.branches[] | select(.branch == $b) | .results[0].commit'\'' q.json)"
	'
	test_expect_success 'fix 2 on top of fix 1' '
		printf "%s\n" '\''MODULE_ALIAS_NETDEV("sit0");'\'' '\''MODULE_ALIAS_NETDEV("sit1");'\'' > want &&
		printf "%s\n" "$(git -C repos/linux show $ref:net/ipv6/sit.c | grep MODULE_ALIAS_NETDEV)" > got &&
		test_cmp want got
	'
	test_expect_success 'the skipped fix says why' '
		[[ $(jq -r --arg b $b '\''.branches[] | select(.branch == $b) | .results[2].notes | join("\n")'\'' q.json) == \
			*"hunk 1 of '\''net/ipv6/sit.c'\'' does not apply"* ]]
	'
done
T_NAME="re-run"
run_kb 1 apply --queue stable.series --json
test_expect_success 'nothing new: the same commits' '
	test "$(echo "$OUT" | jq -r '\''[.branches[].created] | join(" ")'\'')" = "false false"
'
T_NAME="text"
run_kb 1 apply --queue stable.series --branch 2.6.37.y
test_expect_success 'the ref and the count' '[[ $OUT == *"refs/heads/backport/queue/stable/2.6.37.y at"* ]]'
test_expect_success '...2 of 4' '[[ $OUT == *"2 of 4 fixes applied"* ]]'
T_NAME="dry run"
run_kb 1 apply --queue stable.series --dry-run --json --config branches.yaml
printf 'needs-one.patch\n' > alone.series
run_kb 1 apply --queue alone.series --json
test_expect_success 'without its prerequisite, fix 2 does not apply' '
	test "$(echo "$OUT" | jq -r '\''[.branches[].results[0].status] | join(" ")'\'')" = "conflict conflict"
'
test_expect_success '...and no ref is written' '
	test "$(git -C repos/linux for-each-ref refs/heads/backport/queue/alone)" = ""
'
T_NAME="bad series"
printf 'needs-one.patch\nmissing-fix\n' > missing.series
test_expect_success 'a missing entry' '
	run_kb 2 apply --queue missing.series &&
	test "$ERR" = "error: missing.series:2: no fix directory or patch '\''missing-fix'\''"
'
printf 'needs-one.patch\nin.patch\nneeds-one.patch\n' > twice.series
test_expect_success 'a fix twice' '
	run_kb 2 apply --queue twice.series &&
	[[ $ERR == *"twice.series:3: fix '\''sit-one-more-alias'\'' is in the queue twice"* ]]
'
printf '# nothing\n\n' > empty.series
test_expect_success 'an empty series' '
	run_kb 2 apply --queue empty.series &&
	test "$ERR" = "error: empty.series: the series names no fix"
'
test_expect_success '--queue and --fix' '
	run_kb 2 apply --queue stable.series --fix "$TOP_DIR/backports" &&
	[[ $ERR == *"no --fix with it"* ]]
'
finish
