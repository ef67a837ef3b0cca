#!/usr/bin/env bash
# kbackport apply and audit on the real kernel trees of ../shared/real-trees:
# the files CVE-2011-1019 touches from 20 real trees (2.6.30 to 3.10:
# stable, vendor BSPs, Android, RHEL 6, board trees), each with its expected
# answer. One git repository per tree is made from the shared files at test
# time (never copied into the project); real_trees.py checks every status
# and that every backport is right for its era.
source "$(dirname "$0")/../lib.sh"
T_SUITE=real-trees
hermetic
shared_set real-trees
TREES=$SET
cd "$TMP"
{
	echo "branches:"
	for d in "$TREES"/*/; do
		t=$(basename "$d")
		[ -f "$d/PROVENANCE.yaml" ] || continue
		mkdir -p "repos/$t"
		git init -q "repos/$t"
		# the shared folder is read-only: copy the tree's files, not the oracle
		(cd "$d" && tar cf - --exclude=./post-fix --exclude=./PROVENANCE.yaml .) |
			(cd "repos/$t" && tar xf -)
		git -C "repos/$t" add -A -f
		git -C "repos/$t" commit -q -m "$t"
		echo "  - {name: \"$t\", ref: master, repo: repos/$t}"
	done
} > branches.yaml
ln -s "$TOP_DIR/backports" backports

run_kb 0 apply --json && echo "$OUT" > apply.json
# fuzz is context dropped at each end, never above --max-fuzz; an anchor or
# a hunk's own lines are other rules, named in "anchor" (issue 25, 18)
test_expect_success 'no hunk reports more fuzz than --max-fuzz 2' '
	test "$(jq "[.[0].results[].hunks[]? | select(.fuzz > 2)] | length" apply.json)" = 0 &&
	test "$(jq "[.[0].results[].hunks[]? | select(.anchor == \"trailing\")] | length" apply.json)" -gt 0
'
"$KBACKPORT" apply --json --dry-run --max-fuzz 1 > fuzz1.json
test_expect_success 'nor more than --max-fuzz 1' '
	test "$(jq "[.[0].results[].hunks[]? | select(.fuzz > 1)] | length" fuzz1.json)" = 0
'
run_kb 1 audit --json && echo "$OUT" > audit.json
# a second run writes nothing new: every applied result is unchanged
run_kb 0 apply --json
test_expect_success 'a second apply creates nothing' '
	test "$(echo "$OUT" | jq -c "[.[0].results[] | select(.created)]")" = "[]"
'

python3 "$TESTS_DIR/integration/real_trees.py" "$TREES" "$TMP" apply.json audit.json > checks.txt
rc=$?
# one block per check of the checker: it passes when the checker said ok,
# and shows what the checker said under the check when not
T_NAME= verdict= check= why=
checker_block() {
	[ -n "$verdict" ] || return 0
	test_expect_success "$check" 'printf "%s" "$why" && test "$verdict" = ok'
	verdict= check= why=
}
while IFS= read -r line; do
	case "$line" in
	"ok - "*) checker_block; verdict=ok check=${line#ok - } ;;
	"not ok - "*) checker_block; verdict="not ok" check=${line#not ok - } ;;
	"#   "*) if [ -n "$verdict" ]; then why+="${line#\#   }"$'\n'; else echo "$line"; fi ;;
	*) checker_block; echo "$line" ;;
	esac
done < checks.txt
checker_block
test_expect_success 'the checker ran to its end' '
	test "$rc" = 0
'
finish
