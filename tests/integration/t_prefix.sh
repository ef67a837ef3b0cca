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
assert_eq "backported onto the pre-fix state" "applied 3.9" "$(r shipped '"\(.status) \(.variant)"')"
assert_eq "pre-fix ref and reversed variant" "$REF/shipped.pre-fix 3.9" "$(r shipped '"\(.pre_fix.ref) \(.pre_fix.reversed_variant)"')"
assert_eq "pre-fix commit is the ref" "$(git_l rev-parse $REF/shipped.pre-fix)" "$(r shipped .pre_fix.commit)"
assert_eq "base is the pre-fix commit" "$(git_l rev-parse $REF/shipped.pre-fix)" "$(r shipped .base)"
assert_eq "pre-fix tree is the unfixed tree" "$(git_l rev-parse 'linux-4.19.y^{tree}')" "$(git_l rev-parse "$REF/shipped.pre-fix^{tree}")"
assert_eq "pre-fix sits on the shipped branch" "$(git_l rev-parse shipped-4.19)" "$(git_l rev-parse "$REF/shipped.pre-fix^")"
assert_eq "backport tree is the shipped tree" "$(git_l rev-parse 'shipped-4.19^{tree}')" "$(git_l rev-parse "$REF/shipped^{tree}")"
assert_eq "backport sits on the pre-fix state" "$(git_l rev-parse $REF/shipped.pre-fix)" "$(git_l rev-parse "$REF/shipped^")"
assert_eq "labelled as reconstructed" "kbackport: reconstructed pre-fix state of shipped-4.19 for CVE-2011-1019

NOT A STABLE RELEASE. This is shipped-4.19 ($(git_l rev-parse --short=12 shipped-4.19)) with variant '3.9' of
upstream commit 8909c9ad8ff03611c9c96c9a92656213e4bb495b
(\"net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules\")
reverse-applied by kbackport, so that the fix can be backported onto,
built and tested against a tree that is vulnerable again." "$(git_l log -1 --format=%B $REF/shipped.pre-fix)"
# a fix the branch does not carry (the next fix on a branch that had the
# last one): nothing to reverse, the branch is its own pre-fix state
assert_eq "a branch without the fix: backported onto the branch itself" "applied 2.6.32 $(git_l rev-parse linux-2.6.32.y) null" \
	"$(r never-fixed '"\(.status) \(.variant) \(.base) \(.pre_fix)"')"
assert_eq "...saying so first in its notes" "pre-fix: the fix is not in 'linux-2.6.32.y': the branch itself is the state before it, no pre-fix lane" \
	"$(r never-fixed .notes[0])"
assert_eq "...and writing no pre-fix ref" "" "$(git_l for-each-ref "$REF/never-fixed.pre-fix")"
assert_eq "...its backport on the branch" "$(git_l rev-parse linux-2.6.32.y)" "$(git_l rev-parse "$REF/never-fixed^")"
assert_eq "user state untouched" "$state" "$(user_state repos/linux)"

first=$(printf '%s' "$OUT" | jq -c '.[0].results[0] | [.commit, .pre_fix.commit]')
run_kb 0 apply --json
assert_eq "re-run: same commits" "$first" "$(printf '%s' "$OUT" | jq -c '.[0].results[0] | [.commit, .pre_fix.commit]')"
assert_eq "re-run: nothing created" "false" "$(r shipped .created)"
run_kb 0 apply --dry-run --json
assert_eq "dry run: pre-fix commit not named" "null applied" "$(r shipped '"\(.pre_fix.commit) \(.status)"')"
run_kb 0 apply --branch shipped
assert_contains "text mentions the reconstructed lane" "on the reconstructed pre-fix state $REF/shipped.pre-fix (variant '3.9' reversed)" "$OUT"
finish
