#!/usr/bin/env bash
# `variant:` in branches.yaml forces a variant, for every fix or per fix.
source "$(dirname "$0")/../lib.sh"
T_SUITE=force
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - name: wrong-era
    ref: linux-2.6.35.y
    variant: "2.6.32"
  - name: per-fix
    ref: linux-2.6.35.y
    variant: {CVE-2011-1019: "2.6.33"}
  - name: unknown
    ref: linux-2.6.35.y
    variant: "9.9"
  - name: auto
    ref: linux-2.6.35.y
YAML
run_kb 1 apply --json
r() { printf '%s' "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
assert_eq "forcing a variant of another era is a conflict" "conflict 2.6.32 true" "$(r wrong-era '"\(.status) \(.variant) \(.forced)"')"
assert_eq "which hunk failed" "variant '2.6.32' does not apply: hunk 1 of 'net/core/dev.c' does not apply" "$(r wrong-era .detail)"
assert_eq "per-fix forcing" "applied 2.6.33 true" "$(r per-fix '"\(.status) \(.variant) \(.forced)"')"
assert_eq "forced detail" "applied variant '2.6.33' (forced)" "$(r per-fix .detail)"
assert_eq "same tree as the automatic choice" \
	"$(git -C repos/linux rev-parse refs/heads/backport/CVE-2011-1019/auto^{tree})" \
	"$(git -C repos/linux rev-parse refs/heads/backport/CVE-2011-1019/per-fix^{tree})"
assert_eq "unknown variant is an error" "error" "$(r unknown .status)"
assert_eq "unknown variant named" "fix 'CVE-2011-1019' has no variant '9.9'" "$(r unknown .detail)"
# a fix id in `variant:` that no fix has: a typo, a usage error naming it
T_NAME="an unknown fix id"
cat > typo.yaml <<'YAML'
repo: repos/linux
branches:
  - name: typo
    ref: linux-2.6.35.y
    variant: {CVE-2011-1091: "2.6.33"}
YAML
run_kb 2 apply --config typo.yaml &&
	assert_eq "a usage error naming it" \
		"error: typo.yaml:5:15: variant for unknown fix 'CVE-2011-1091' (fixes here: CVE-2011-1019)" "$ERR"
assert_eq "nothing written" "" "$(git -C repos/linux for-each-ref refs/heads/backport/CVE-2011-1019/typo)"
# a fix that is not in this run but beside one that is: known
mkdir -p fx && cp -r backports/CVE-2011-1019 fx/ && cp -r backports/CVE-2011-1019 fx/CVE-2099-0001 &&
	sed -i 's/^id: .*/id: CVE-2099-0001/' fx/CVE-2099-0001/fix.yaml
sed 's/CVE-2011-1091/CVE-2099-0001/' typo.yaml > sibling.yaml
run_kb 0 apply --config sibling.yaml --fix fx/CVE-2011-1019 &&
	pass "a fix beside the one given is known"
finish
