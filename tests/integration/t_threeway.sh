#!/usr/bin/env bash
# When no hunk placement works but the patch's preimage blob is in the
# repository, the change is merged 3-way (git_merge_file) into the branch.
source "$(dirname "$0")/../lib.sh"
T_SUITE=three-way
hermetic
cd "$TMP"
git init -q repo
cd repo
# upstream file: two change sites a few lines apart in one hunk
printf '%s\n' 'int f(void)' '{' '	int a = 1;' '	int b = 2;' '	/* between */' '	int c = 3;' '	int d = 4;' '	return a + b + c + d;' '}' > f.c
git add f.c && git commit -q -m base
git branch stable
sed -i 's/int a = 1;/int a = 10;/; s/int d = 4;/int d = 40;/' f.c
git commit -q -am "upstream: bump a and d"
upstream=$(git rev-parse HEAD)
mkdir -p ../backports/FIX-1
git format-patch -1 --stdout --full-index > ../backports/FIX-1/fix.patch
# the stable branch changed the line between the two sites: no placement
# with offset, fuzz or whitespace tolerance can match the hunk there
git checkout -q stable
sed -i 's|/\* between \*/|/* between, stable */|' f.c
git commit -q -am "stable: reword comment"
git checkout -q master
cd ..
cat > backports/FIX-1/fix.yaml <<YAML
id: FIX-1
subject: "upstream: bump a and d"
upstream: $upstream
patch: fix.patch
variants:
  - name: upstream
    patch: fix.patch
    why: "the upstream patch itself"
YAML
cat > branches.yaml <<'YAML'
repo: repo
branches:
  - name: stable
    ref: stable
YAML
run_kb 0 apply --json
test_expect_success 'applied through the 3-way merge' '
	test "$(printf "%s" "$OUT" | jq -r ".[0].results[0] | \"\(.status) \(.variant)\"")" = "applied upstream"
'
test_expect_success 'merge reported' '
	test_eq "'\''f.c'\'' merged 3-way from the patch'\''s preimage blob $(git -C repo rev-parse stable~1:f.c)" "$(printf "%s" "$OUT" | jq -r ".[0].results[0].notes | join(\"\n\")")"
'
test_expect_success 'merged contents' '
	printf "%s\n" "int f(void)
{
	int a = 10;
	int b = 2;
	/* between, stable */
	int c = 3;
	int d = 40;
	return a + b + c + d;
}" > want &&
	printf "%s\n" "$(git -C repo show refs/heads/backport/FIX-1/stable:f.c)" > got &&
	test_cmp want got
'

# Without the preimage blob there is nothing to merge from: a conflict.
sed -i "s/^index [0-9a-f]*\.\./index 1234567890123456789012345678901234567890../" backports/FIX-1/fix.patch
git -C repo update-ref -d refs/heads/backport/FIX-1/stable
run_kb 1 apply --json
test_expect_success 'no preimage blob: conflict' '
	test "$(printf "%s" "$OUT" | jq -r ".[0].results[0] | \"\(.status) \(.notes[0])\"")" = "conflict hunk 1 of '\''f.c'\'' does not apply"
'

# A hunk that fits more than one place is said so, never merged: here its
# change fits at its own line and its reverse further down, the other hunk
# is in, and the preimage blob is there. The merge would apply it without a
# word; the answer is a conflict naming both places (issue 25, 3).
git init -q amb
printf '%s\n' a1 X a3 a4 a5 a6 a7 a8 a9 a10 a11 a12 a1 W a3 b1 b2 b3 b4 b5 b6 > amb/f
git -C amb add f && git -C amb commit -q -m base
git -C amb branch vendor
sed -i 's/^X$/Y/; s/^b4$/b4\nNEW/' amb/f
git -C amb commit -q -am "upstream: X is Y, and NEW"
mkdir -p fixes-amb/AMB
git -C amb format-patch -1 -U1 --stdout --full-index > fixes-amb/AMB/fix.patch
printf 'id: AMB\nsubject: "upstream: X is Y, and NEW"\nupstream: %s\npatch: fix.patch\n' \
	"$(git -C amb rev-parse HEAD)" > fixes-amb/AMB/fix.yaml
git -C amb checkout -q vendor
sed -i 's/^W$/Y/; s/^b4$/b4\nNEW/' amb/f
git -C amb commit -q -am "vendor: W is Y, and NEW"
printf 'branches:\n  - {name: vendor, ref: vendor, repo: amb}\n' > amb.yaml
run_kb 1 apply --json --config amb.yaml --fix fixes-amb
test_expect_success 'an ambiguous hunk is not merged 3-way: a conflict naming both places' '
	test "$(printf "%s" "$OUT" | jq -r ".[0].results[0].status")" = conflict &&
	test "$(printf "%s" "$OUT" | jq -r ".[0].results[0].notes[0]")" = "hunk 1 of '\''f'\'' fits more than one place (line 1 forward, line 13 in reverse): not guessing" &&
	! git -C amb rev-parse -q --verify refs/heads/backport/AMB/vendor
'

# The same for a hunk whose own line (git apply's place) and the earlier
# hunk's offset (GNU patch's) are two places (issue 25, 6).
git init -q rules
printf '%s\n' a1 a2 a3 a4 a5 a6 a7 a8 a9 B1 B2 B3 c1 c2 > rules/f
git -C rules add f && git -C rules commit -q -m base
git -C rules branch vendor
sed -i 's/^a3$/A3/; s/^B2$/NEW/' rules/f
git -C rules commit -q -am "upstream: A3 and NEW"
mkdir -p fixes-rules/RULES
git -C rules format-patch -1 -U1 --stdout --full-index > fixes-rules/RULES/fix.patch
printf 'id: RULES\nsubject: "upstream: A3 and NEW"\nupstream: %s\npatch: fix.patch\n' \
	"$(git -C rules rev-parse HEAD)" > fixes-rules/RULES/fix.yaml
git -C rules checkout -q vendor
printf '%s\n' v1 v2 v3 v4 v5 v6 a1 a2 a3 a4 a5 B1 B2 B3 a9 B1 B2 B3 c1 c2 > rules/f
git -C rules commit -q -am "vendor: six lines on top, the B block twice"
printf 'branches:\n  - {name: vendor, ref: vendor, repo: rules}\n' > rules.yaml
run_kb 1 apply --json --config rules.yaml --fix fixes-rules
test_expect_success 'own line and offsets disagreeing are not merged 3-way either' '
	test "$(printf "%s" "$OUT" | jq -r ".[0].results[0].status")" = conflict &&
	test "$(printf "%s" "$OUT" | jq -r ".[0].results[0].notes[0]")" = "hunk 2 of '\''f'\'' fits more than one place (line 16 forward nearest the earlier hunks'\'' offset, line 12 forward nearest its own line): not guessing"
'
finish
