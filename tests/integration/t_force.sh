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
test_expect_success 'forcing a variant of another era is a conflict' '
	test "$(r wrong-era '\''"\(.status) \(.variant) \(.forced)"'\'')" = "conflict 2.6.32 true"
'
test_expect_success 'which hunk failed' '
	test_eq "variant '\''2.6.32'\'' does not apply: hunk 1 of '\''net/core/dev.c'\'' does not apply" "$(r wrong-era .detail)"
'
test_expect_success 'per-fix forcing' '
	test "$(r per-fix '\''"\(.status) \(.variant) \(.forced)"'\'')" = "applied 2.6.33 true"
'
test_expect_success 'forced detail' '
	test "$(r per-fix .detail)" = "applied variant '\''2.6.33'\'' (forced)"
'
test_expect_success 'same tree as the automatic choice' '
	test "$(git -C repos/linux rev-parse refs/heads/backport/CVE-2011-1019/per-fix^{tree})" = \
		"$(git -C repos/linux rev-parse refs/heads/backport/CVE-2011-1019/auto^{tree})"
'
test_expect_success 'unknown variant is an error' '
	test "$(r unknown .status)" = error
'
test_expect_success 'unknown variant named' '
	test "$(r unknown .detail)" = "fix '\''CVE-2011-1019'\'' has no variant '\''9.9'\''"
'
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
	test_expect_success 'a usage error naming it' '
		test_eq "error: typo.yaml:5:15: variant for unknown fix '\''CVE-2011-1091'\'' (fixes here: CVE-2011-1019)" "$ERR"
	'
test_expect_success 'nothing written' '
	test -z "$(git -C repos/linux for-each-ref refs/heads/backport/CVE-2011-1019/typo)"
'
# a fix that is not in this run but beside one that is: known
mkdir -p fx && cp -r backports/CVE-2011-1019 fx/ && cp -r backports/CVE-2011-1019 fx/CVE-2099-0001 &&
	sed -i 's/^id: .*/id: CVE-2099-0001/' fx/CVE-2099-0001/fix.yaml
sed 's/CVE-2011-1091/CVE-2099-0001/' typo.yaml > sibling.yaml
test_expect_success 'a fix beside the one given is known' '
	${KB_VALGRIND:-} "$KBACKPORT" apply --config sibling.yaml --fix fx/CVE-2011-1019
'
finish
