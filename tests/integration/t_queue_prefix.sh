#!/usr/bin/env bash
# A queue's pre-fix lane (apply --queue and run --queue on a `pre-fix: true`
# branch): the branch with the queue's fixes it carries reversed, the last
# fix first, committed on refs/heads/backport/queue/<queue>/<branch>.pre-fix;
# the queue is applied onto it, so its tip is the branch's tree again. A
# branch carrying part of the queue gets only that part reversed, one
# carrying none has no pre-fix lane (a note says so). Re-runs write nothing.
# The lanes of run --queue (build: false here: no kernel) are as-is,
# pre-fix and backport. Real kernels: tests/e2e/t_kernels_changelink.sh.
source "$(dirname "$0")/../lib.sh"
T_SUITE=queue-prefix
hermetic
cd "$TMP"

# A tree, three fixes on it as commits (each made a fix with fix new), and
# branches carrying all of them, the first only, and none.
git init -q linux
(
	cd linux
	printf 'int a(void)\n{\n\treturn 0;\n}\n' > a.c
	printf 'int b(void)\n{\n\treturn 0;\n}\n' > b.c
	printf 'int c(void)\n{\n\treturn 0;\n}\n' > c.c
	git add -A && git commit -qm base && git branch base
	sed -i 's/return 0;/return 1;/' a.c && git commit -qam "a: return 1"
	sed -i 's/return 0;/return 2;/' b.c && git commit -qam "b: return 2"
	sed -i 's/return 1;/return 11;/' a.c && git commit -qam "a: return 11, on top of a: return 1"
	git branch all
	git branch first-only HEAD~2
	git format-patch -q -o ../patches base..all
)
run_kb 0 fix new -o fixes patches/*.patch
ls fixes > fixes.list
printf '%s\n' "$(sed 's|^|fixes/|' fixes.list)" > three.series
cat > branches.yaml <<'EOF'
repo: linux
branches:
  - {name: all, ref: all, pre-fix: true, build: false}
  - {name: first-only, ref: first-only, pre-fix: true, build: false}
  - {name: none, ref: base, pre-fix: true, build: false}
  - {name: plain, ref: all, build: false}
EOF
git_l() { git -C linux "$@"; }
Q=refs/heads/backport/queue/three

test_expect_success 'apply --queue: the fixes a branch carries reversed, last first, on the pre-fix ref' '
	"$KBACKPORT" apply --queue three.series --json >out.json 2>err &&
	jq -r ".branches[] | \"\(.branch) \(.pre_fix.ref) \((.pre_fix.reversed // []) | join(\",\"))\"" out.json >got &&
	cat >expect <<-EOF &&
	all $Q/all.pre-fix $(sed -n 3p fixes.list) (variant '"'"'patch'"'"'),$(sed -n 2p fixes.list) (variant '"'"'patch'"'"'),$(sed -n 1p fixes.list) (variant '"'"'patch'"'"')
	first-only $Q/first-only.pre-fix $(sed -n 1p fixes.list) (variant '"'"'patch'"'"')
	none null 
	plain null 
	EOF
	test_cmp expect got
'
test_expect_success '...the pre-fix commit sits on the branch and holds the tree before the queue' '
	test "$(git_l rev-parse "$Q/all.pre-fix^")" = "$(git_l rev-parse all)" &&
	test "$(git_l rev-parse "$Q/all.pre-fix^{tree}")" = "$(git_l rev-parse "base^{tree}")" &&
	test "$(git_l rev-parse "$Q/first-only.pre-fix^{tree}")" = "$(git_l rev-parse "base^{tree}")" &&
	git_l log -1 --format=%s "$Q/all.pre-fix" >subject &&
	echo "kbackport: reconstructed pre-fix state of all for the queue three" >expect &&
	test_cmp expect subject
'
test_expect_success '...the queue applied onto it ends at the branch'"'"'s tree again, each fix a commit' '
	test "$(git_l rev-parse "$Q/all^{tree}")" = "$(git_l rev-parse "all^{tree}")" &&
	test "$(git_l rev-list --count "$Q/all.pre-fix..$Q/all")" = 3 &&
	test "$(git_l rev-parse "$Q/first-only^{tree}")" = "$(git_l rev-parse "all^{tree}")" &&
	jq -r ".branches[] | select(.branch == \"all\") | [.results[].status] | join(\" \")" out.json >got &&
	echo "applied applied applied" >expect && test_cmp expect got
'
test_expect_success 'a branch carrying none of the queue: no pre-fix lane, a note says why' '
	jq -r ".branches[] | select(.branch == \"none\") | .pre_fix.note" out.json >got &&
	echo "pre-fix: no fix of the queue is in '"'"'base'"'"': the branch itself is the state before it, no pre-fix lane" >expect &&
	test_cmp expect got &&
	! git_l rev-parse -q --verify "$Q/none.pre-fix" &&
	test "$(git_l rev-parse "$Q/none^{tree}")" = "$(git_l rev-parse "all^{tree}")"
'
# Without a pre-fix lane the queue starts at the branch as it is, where the
# third fix changed the first one's line: the history knows the first is in
# (its commit is on the branch) and names the commit that changed it; the
# content alone (--no-history) sees it neither in nor applicable, which is
# why the pre-fix order matters.
test_expect_success 'without pre-fix: the queue starts at the branch; the history says the first fix is in' '
	jq -r ".branches[] | select(.branch == \"plain\") | \"\(.pre_fix) \([.results[].status] | join(\" \"))\"" out.json >got &&
	echo "null already-applied already-applied already-applied" >expect && test_cmp expect got &&
	jq -r ".branches[] | select(.branch == \"plain\") | .results[0].detail" out.json >got &&
	echo "in since $(git_l rev-parse --short=12 all~2): it is the fix'"'"'s commit $(git_l rev-parse --short=12 all~2) itself; its lines were changed later by $(git_l rev-parse --short=12 all) (\"a: return 11, on top of a: return 1\")" >expect &&
	test_cmp expect got
'
test_expect_success '...the content alone: the first fix a conflict there (exit 1)' '
	{ "$KBACKPORT" apply --queue three.series --branch plain --no-history --json >nohist.json 2>err; test $? = 1; } &&
	jq -r ".branches[] | [.results[].status] | join(\" \")" nohist.json >got &&
	echo "conflict already-applied already-applied" >expect && test_cmp expect got
'
test_expect_success 'the text says the pre-fix lane' '
	"$KBACKPORT" apply --queue three.series --branch first-only >out.txt 2>err &&
	grep -F "  pre-fix: $Q/first-only.pre-fix at $(git_l rev-parse --short=12 "$Q/first-only.pre-fix"), the queue'"'"'s fixes reversed: $(sed -n 1p fixes.list) (variant '"'"'patch'"'"')" out.txt
'
test_expect_success 'a re-run writes nothing: the same pre-fix and queue commits' '
	git_l for-each-ref --format="%(refname) %(objectname)" refs/heads/backport >before &&
	"$KBACKPORT" apply --queue three.series --json >again.json 2>err &&
	git_l for-each-ref --format="%(refname) %(objectname)" refs/heads/backport >after &&
	test_cmp before after &&
	jq -r "[.branches[] | if .pre_fix == null then \"-\" else (.pre_fix.created | tostring) end] | join(\" \")" again.json >got &&
	echo "false false false -" >expect && test_cmp expect got
'
test_expect_success 'a dry run on a new branch commit writes no pre-fix ref' '
	git_l branch moved all && git_l commit-tree -p moved -m moved "all^{tree}" >/dev/null &&
	printf "repo: linux\nbranches:\n  - {name: fresh, ref: all, pre-fix: true, build: false}\n" >fresh.yaml &&
	"$KBACKPORT" apply --config fresh.yaml --queue three.series --dry-run >dry.txt 2>err &&
	grep -F "  pre-fix (dry run: no ref), the queue'"'"'s fixes reversed:" dry.txt &&
	! git_l rev-parse -q --verify "$Q/fresh.pre-fix"
'
test_expect_success 'run --queue: lanes as-is, pre-fix, backport, in results.json' '
	"$KBACKPORT" run --queue three.series --branch all --branch none >run.out 2>run.err;
	test $? = 0 &&
	jq -r ".branches[] | \"\(.name): \([.lanes[] | \"\(.kind) \(.ref)\"] | join(\", \"))\"" reports/latest/results.json >got &&
	cat >expect <<-EOF &&
	all: as-is all, pre-fix $Q/all.pre-fix, backport $Q/all
	none: as-is base, backport $Q/none
	EOF
	test_cmp expect got &&
	grep -F "all: pre-fix $Q/all.pre-fix at" run.err &&
	grep -F "none: pre-fix: no fix of the queue is in" run.err
'
finish
