#!/usr/bin/env bash
# Real 2.6.32.y history (../shared/stable-history): 40 real stable fixes on
# 12 tags, scored by the set's own score.py against what the history says
# (in, reverted, not in). A false already-applied is never allowed; every
# scored answer must be right.
source "$(dirname "$0")/../lib.sh"
T_SUITE=stable-history
hermetic
shared_set stable-history
python3 "$SET/score.py" --kb "$KBACKPORT" > "$TMP/score.txt" 2>&1
score_rc=$?
sed 's/^/# /' "$TMP/score.txt"
last=$(tail -n 1 "$TMP/score.txt")
if [[ $last =~ ^stable-history:\ right\ ([0-9]+)/([0-9]+),\ false\ already-applied\ ([0-9]+), ]]; then
	right=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]} faa=${BASH_REMATCH[3]}
	test_expect_success 'no false already-applied' 'test "$faa" = 0'
	# every scored answer right (the content alone: 333)
	test_expect_success 'right answers: all of them' 'test "$right" = "$total"'
	test_expect_success 'score.py agrees' 'test "$score_rc" = 0'
else
	test_expect_success 'score.py printed its score' '
		[[ $last =~ ^stable-history:\ right\ ([0-9]+)/([0-9]+),\ false\ already-applied\ ([0-9]+), ]]
	'
fi
finish
