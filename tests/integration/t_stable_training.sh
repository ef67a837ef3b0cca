#!/usr/bin/env bash
# 100 real 2.6.35.y stable commits carried into a drifted vendor tree
# (../shared/stable-training): each commit is a fix made from its
# fix.patch, applied to a repository of the vendor tree's files. The status
# must be the expected one (31 already-applied, 62 applies, 7 conflict) and
# every applied result must equal post/ byte for byte.
source "$(dirname "$0")/../lib.sh"
T_SUITE=stable-training
hermetic
shared_set stable-training
python3 "$TESTS_DIR/integration/stable_training.py" "$KBACKPORT" "$SET" "$TMP/cases" > "$TMP/checks.txt"
rc=$?
while IFS= read -r line; do
	case "$line" in
	"ok - "*|"not ok - "*)
		check=${line#*ok - }
		test_expect_success "$check" 'test "$line" = "ok - $check"' ;;
	*) echo "$line" ;;
	esac
done < "$TMP/checks.txt"
# ($rc in a block is test_expect_success's own: the checker's is written in)
test_expect_success 'the checker ran to its end' 'test '"$rc"' = 0'
finish
