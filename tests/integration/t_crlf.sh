#!/usr/bin/env bash
# A tree whose files have CRLF line endings is matched like its LF twin:
# audit and apply agree that it is vulnerable, the backport keeps CRLF
# (added lines included), and the fixed CRLF tree is already-applied.
source "$(dirname "$0")/../lib.sh"
T_SUITE=crlf
hermetic
cd "$TMP"
ERA=$FIXTURES/eras/2.6.32
crlf() { sed 's/$/\r/' "$1"; }
git init -q repo
(cd "$ERA/tree" && find . -type f) | while read -r f; do
	mkdir -p "repo/$(dirname "$f")"
	crlf "$ERA/tree/$f" > "repo/$f"
done
git -C repo add -A && git -C repo commit -q -m "2.6.32, CRLF"
git -C repo branch vulnerable
(cd "$ERA/expected" && find . -type f) | while read -r f; do
	crlf "$ERA/expected/$f" > "repo/$f"
done
git -C repo commit -q -am "2.6.32 fixed, CRLF"
git -C repo branch fixed
cat > branches.yaml <<'YAML'
repo: repo
branches:
  - {name: vulnerable, ref: vulnerable}
  - {name: fixed, ref: fixed}
YAML
ln -s "$TOP_DIR/backports" backports
run_kb 1 audit --json --branch vulnerable
test_expect_success 'audit: the bare pattern in the CRLF dev.c' '
	echo net/core/dev.c >expect &&
	echo "$OUT" | jq -r ".branches[0].calls[] | select(.cve_2011_1019_pattern) | .path" >actual &&
	test_cmp expect actual
'
run_kb 0 apply --json
field() { echo "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }
test_expect_success 'apply agrees: vulnerable, applied' '
	test "$(field vulnerable .status) $(field vulnerable .variant)" = "applied 2.6.32"
'
for f in $(cd "$ERA/expected" && find . -type f | sed 's|^\./||' | sort); do
	test_expect_success "$f: the backport keeps CRLF, byte for byte" '
		crlf "$ERA/expected/$f" >want &&
		git -C repo show "backport/CVE-2011-1019/vulnerable:$f" >got &&
		test_cmp want got
	'
done
test_expect_success 'the fixed CRLF tree is already-applied' '
	test "$(field fixed .status)" = already-applied
'
finish
