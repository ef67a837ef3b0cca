#!/usr/bin/env bash
# --dry-run decides exactly as a real run but writes no object and no ref.
source "$(dirname "$0")/../lib.sh"
T_SUITE=dry-run
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cp "$FIXTURES/eras/branches.yaml" "$TMP/branches.yaml"
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"
objects() { (cd "$1" && find "$(git rev-parse --git-dir)/objects" -type f | sort | sha1sum); }
# of_branch BRANCH JQ: JQ on the dry run's result for BRANCH
of_branch() { printf '%s' "$OUT" | jq -c -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
before=$(objects repos/linux)
state=$(user_state repos/linux)

run_kb 1 apply --dry-run --json
test_expect_success 'same statuses and variants as a real run' '
	echo "[[\"2.6.31.y\",\"not-affected\",null],[\"2.6.32.y\",\"applied\",\"2.6.32\"],[\"2.6.35.y\",\"applied\",\"2.6.33\"],[\"2.6.37.y\",\"applied\",\"upstream\"],[\"4.19.y\",\"applied\",\"3.9\"],[\"vendor-fixed\",\"already-applied\",\"2.6.32\"],[\"vendor-reworked\",\"conflict\",null]]" >expect &&
	printf "%s" "$OUT" | jq -c "[.[0].results[] | [.branch, .status, .variant]]" >actual &&
	test_cmp expect actual
'
test_expect_success 'no commit ids, refs named' '
	echo "[null,\"refs/heads/backport/CVE-2011-1019/2.6.32.y\",false]" >expect &&
	of_branch 2.6.32.y "[.commit, .ref, .created]" >actual &&
	test_cmp expect actual
'
test_expect_success 'detail says would' '
	echo "would apply variant '\''2.6.32'\''" >expect &&
	of_branch 2.6.32.y .detail >actual &&
	test_cmp expect actual
'
test_expect_success 'no object written' 'test "$before" = "$(objects repos/linux)"'
test_expect_success 'no ref written' '
	git -C repos/linux for-each-ref refs/heads/backport >actual &&
	test ! -s actual
'
test_expect_success 'user state untouched' 'test "$state" = "$(user_state repos/linux)"'
finish
