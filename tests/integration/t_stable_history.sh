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
rc=$?
sed 's/^/# /' "$TMP/score.txt"
last=$(tail -n 1 "$TMP/score.txt")
if [[ $last =~ ^stable-history:\ right\ ([0-9]+)/([0-9]+),\ false\ already-applied\ ([0-9]+), ]]; then
	right=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]} faa=${BASH_REMATCH[3]}
	assert_eq "no false already-applied" 0 "$faa"
	# every scored answer right (the content alone: 333)
	assert_eq "right answers: all of them" "$total" "$right"
	assert_eq "score.py agrees" 0 "$rc"
else
	fail "score.py printed its score"
fi
finish
