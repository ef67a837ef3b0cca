#!/usr/bin/env bash
# pre-fix: true reconstructs a branch's state before a fix it carries
# (the fix reverse-applied, on its own labelled ref) and backports onto it.
# Round trip on the era fixtures: (4.19 + fix) reversed must be 4.19 again,
# and the backport onto it must be (4.19 + fix) again.
source "$(dirname "$0")/../lib.sh"
T_SUITE=pre-fix
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"
REF=refs/heads/backport/CVE-2011-1019
git_l() { git -C repos/linux "$@"; }
printf 'repo: repos/linux\nbranches:\n  - {name: 4.19.y, ref: linux-4.19.y}\n' > first.yaml
run_kb 0 apply --config first.yaml
# a "shipped" branch that carries the fix, as Debian's 6.1 does
git_l branch shipped-4.19 $REF/4.19.y
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - name: shipped
    ref: shipped-4.19
    pre-fix: true
  - name: never-fixed
    ref: linux-2.6.32.y
    pre-fix: true
YAML
state=$(user_state repos/linux)
run_kb 0 apply --json
r() { printf '%s' "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
test_expect_success 'backported onto the pre-fix state' '
	test "$(r shipped '\''"\(.status) \(.variant)"'\'')" = "applied 3.9"
'
test_expect_success 'pre-fix ref and reversed variant' '
	test "$(r shipped '\''"\(.pre_fix.ref) \(.pre_fix.reversed_variant)"'\'')" = "$REF/shipped.pre-fix 3.9"
'
test_expect_success 'pre-fix commit is the ref' '
	test "$(r shipped .pre_fix.commit)" = "$(git_l rev-parse $REF/shipped.pre-fix)"
'
test_expect_success 'base is the pre-fix commit' '
	test "$(r shipped .base)" = "$(git_l rev-parse $REF/shipped.pre-fix)"
'
test_expect_success 'pre-fix tree is the unfixed tree' '
	test "$(git_l rev-parse "$REF/shipped.pre-fix^{tree}")" = "$(git_l rev-parse "linux-4.19.y^{tree}")"
'
test_expect_success 'pre-fix sits on the shipped branch' '
	test "$(git_l rev-parse "$REF/shipped.pre-fix^")" = "$(git_l rev-parse shipped-4.19)"
'
test_expect_success 'backport tree is the shipped tree' '
	test "$(git_l rev-parse "$REF/shipped^{tree}")" = "$(git_l rev-parse "shipped-4.19^{tree}")"
'
test_expect_success 'backport sits on the pre-fix state' '
	test "$(git_l rev-parse "$REF/shipped^")" = "$(git_l rev-parse $REF/shipped.pre-fix)"
'
test_expect_success 'labelled as reconstructed' '
	printf "%s\n" "kbackport: reconstructed pre-fix state of shipped-4.19 for CVE-2011-1019

NOT A STABLE RELEASE. This is shipped-4.19 ($(git_l rev-parse --short=12 shipped-4.19)) with variant '\''3.9'\'' of
upstream commit 8909c9ad8ff03611c9c96c9a92656213e4bb495b
(\"net: don'\''t allow CAP_NET_ADMIN to load non-netdev kernel modules\")
reverse-applied by kbackport, so that the fix can be backported onto,
built and tested against a tree that is vulnerable again." > want &&
	printf "%s\n" "$(git_l log -1 --format=%B $REF/shipped.pre-fix)" > got &&
	test_cmp want got
'
# a fix the branch does not carry (the next fix on a branch that had the
# last one): nothing to reverse, the branch is its own pre-fix state
test_expect_success 'a branch without the fix: backported onto the branch itself' '
	test "$(r never-fixed '\''"\(.status) \(.variant) \(.base) \(.pre_fix)"'\'')" = \
		"applied 2.6.32 $(git_l rev-parse linux-2.6.32.y) null"
'
test_expect_success '...saying so first in its notes' '
	test "$(r never-fixed .notes[0])" = \
		"pre-fix: the fix is not in '\''linux-2.6.32.y'\'': the branch itself is the state before it, no pre-fix lane"
'
test_expect_success '...and writing no pre-fix ref' '
	test -z "$(git_l for-each-ref "$REF/never-fixed.pre-fix")"
'
test_expect_success '...its backport on the branch' '
	test "$(git_l rev-parse "$REF/never-fixed^")" = "$(git_l rev-parse linux-2.6.32.y)"
'
test_expect_success 'user state untouched' '
	test_eq "$state" "$(user_state repos/linux)"
'

first=$(printf '%s' "$OUT" | jq -c '.[0].results[0] | [.commit, .pre_fix.commit]')
run_kb 0 apply --json
test_expect_success 're-run: same commits' '
	test "$(printf "%s" "$OUT" | jq -c '\''.[0].results[0] | [.commit, .pre_fix.commit]'\'')" = "$first"
'
test_expect_success 're-run: nothing created' '
	test "$(r shipped .created)" = false
'
run_kb 0 apply --dry-run --json
test_expect_success 'dry run: pre-fix commit not named' '
	test "$(r shipped '\''"\(.pre_fix.commit) \(.status)"'\'')" = "null applied"
'
run_kb 0 apply --branch shipped
test_expect_success 'text mentions the reconstructed lane' '
	[[ $OUT == *"on the reconstructed pre-fix state $REF/shipped.pre-fix (variant '\''3.9'\'' reversed)"* ]]
'
finish
