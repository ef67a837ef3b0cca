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
before=$(objects repos/linux)
state=$(user_state repos/linux)

run_kb 1 apply --dry-run --json
assert_eq "same statuses and variants as a real run" \
	'[["2.6.31.y","not-affected",null],["2.6.32.y","applied","2.6.32"],["2.6.35.y","applied","2.6.33"],["2.6.37.y","applied","upstream"],["4.19.y","applied","3.9"],["vendor-fixed","already-applied","2.6.32"],["vendor-reworked","conflict",null]]' \
	"$(printf '%s' "$OUT" | jq -c '[.results[] | [.branch, .status, .variant]]')"
assert_eq "no commit ids, refs named" \
	'[[null,"refs/heads/backport/CVE-2011-1019/2.6.32.y",false]]' \
	"$(printf '%s' "$OUT" | jq -c '[.results[] | select(.branch == "2.6.32.y") | [.commit, .ref, .created]]')"
assert_eq "detail says would" "would apply variant '2.6.32'" \
	"$(printf '%s' "$OUT" | jq -r '.results[] | select(.branch == "2.6.32.y") | .detail')"
assert_eq "no object written" "$before" "$(objects repos/linux)"
assert_eq "no ref written" "" "$(git -C repos/linux for-each-ref refs/heads/backport)"
assert_eq "user state untouched" "$state" "$(user_state repos/linux)"
finish
