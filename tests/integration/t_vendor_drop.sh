#!/usr/bin/env bash
# The vendor-drop shape (issue 37), made from ../shared/stable-history's real
# 2.6.32.y history by vendor_drop.py: on every tag, a commit that writes the
# files of an older tag over it (all of them, or every other one), as a
# board-support import does. The history still holds every stable fix that
# such a drop took out; the tree decides: no false already-applied, every
# scored answer right, with the history on.
source "$(dirname "$0")/../lib.sh"
T_SUITE=vendor-drop
hermetic
shared_set stable-history
python3 "$(dirname "$0")/vendor_drop.py" "$SET" "$KBACKPORT" "$TMP" > "$TMP/score.txt" 2>&1
score_rc=$?
sed 's/^/# /' "$TMP/score.txt"
last=$(tail -n 1 "$TMP/score.txt")
if [[ $last =~ ^vendor-drop:\ right\ ([0-9]+)/([0-9]+),\ false\ already-applied\ ([0-9]+),.*branches\ ([0-9]+)$ ]]; then
	right=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]} faa=${BASH_REMATCH[3]} nb=${BASH_REMATCH[4]}
	test_expect_success 'no false already-applied on a tree that put older files back' 'test "$faa" = 0'
	test_expect_success 'right answers: all of them' 'test "$right" = "$total"'
	ntags=$(jq '.tags | length' "$SET/expected.json")
	nfixes=$(jq '.fixes | length' "$SET/expected.json")
	test_expect_success 'the drops made: two on each tag but the first, at least half their answers scored' '
		test "$nb" = $((2 * (ntags - 1))) && test "$total" -ge $((nfixes * nb / 2))
	'
	sq=$(grep "^squashed:" "$TMP/score.txt")
	test_expect_success 'squashed trees (no history): no false already-applied, most fixes that are in found' '
		[[ $sq =~ ^squashed:\ right\ ([0-9]+)/([0-9]+),\ false\ already-applied\ 0, ]] &&
		test "${BASH_REMATCH[1]}" -ge $((BASH_REMATCH[2] * 3 / 4))
	'
	test_expect_success 'vendor_drop.py agrees' 'test "$score_rc" = 0'
else
	test_expect_success 'vendor_drop.py printed its score' 'false'
fi
mkdir "$TMP/content"
python3 "$(dirname "$0")/vendor_drop.py" "$SET" "$KBACKPORT" "$TMP/content" --no-history > "$TMP/content.txt" 2>&1
last=$(tail -n 1 "$TMP/content.txt")
echo "# the content alone (--no-history): $last"
test_expect_success 'the content alone: no false already-applied either' '
	[[ $last =~ ,\ false\ already-applied\ 0, ]]
'
finish
