#!/usr/bin/env bash
# tests/lib.sh itself: named blocks, prerequisites, counted skips, the totals
# tests/summary.sh adds up, and the directory of a failed test kept.
source "$(dirname "$0")/../lib.sh"
T_SUITE=lib
hermetic
cd "$TMP"
mkdir tmp
# child SCRIPT: run a test script sourcing lib.sh, its temporary directories
# under tmp/ and its totals in totals; stdout in out, exit code in rc. The
# children run as a plain pass would, whichever pass runs this one (the
# valgrind pass sets T_SUITE_PREFIX and KB_VALGRIND).
child() {
	env -u T_SUITE_PREFIX -u KB_VALGRIND TMPDIR=$TMP/tmp KB_TEST_TOTALS=$TMP/totals \
		bash "$@" >out 2>&1
	echo $? >rc
}

cat >mixed.sh <<SCRIPT
source "$TESTS_DIR/lib.sh"
T_SUITE=mixed
hermetic
cd "\$TMP"
echo evidence >left-behind
test_set_prereq HAVE_X
test_expect_success 'a passing block' 'echo one >a && test "\$(cat a)" = one'
test_expect_success 'a block sets a variable' 'x=42'
test_expect_success 'the next block sees it' 'test "\$x" = 42'
test_expect_success HAVE_X 'a prerequisite present' 'true'
test_expect_success HAVE_X,NO_Y 'a prerequisite missing' 'false'
test_expect_success 'a failing block' '
	echo "what went wrong" &&
	false
'
finish
SCRIPT
cat >passing.sh <<SCRIPT
source "$TESTS_DIR/lib.sh"
T_SUITE=passing
hermetic
test_expect_success 'one' 'touch "\$TMP/f"'
finish
SCRIPT
cat >no_set.sh <<SCRIPT
source "$TESTS_DIR/lib.sh"
T_SUITE=no-set
hermetic
KB_SHARED=$TMP/nowhere shared_set stable-trees
echo "not reached"
SCRIPT

child mixed.sh
kept=$(sed -n 's/^# kept //p' out)
test_expect_success 'a failing script: each block named, the failure shown, totals' '
	cat >expect <<-EOF &&
	ok - a passing block
	ok - a block sets a variable
	ok - the next block sees it
	ok - a prerequisite present
	ok - # SKIP a prerequisite missing (missing HAVE_X,NO_Y)
	not ok - a failing block (exit 1)
	#   > 	echo "what went wrong" &&
	#   > 	false
	#   what went wrong
	mixed: 4 passed, 1 failed, 1 skipped
	# kept $kept
	EOF
	test_cmp expect out &&
	test "$(cat rc)" = 1
'
test_expect_success 'its directory is kept, under $TMPDIR' '
	case "$kept" in "$TMP"/tmp/kbackport-test.*) ;; *) false ;; esac &&
	test "$(cat "$kept/left-behind")" = evidence
'
test_expect_success 'skips are counted in the totals summary.sh adds up' '
	echo "mixed 4 1 1" >expect &&
	test_cmp expect totals &&
	mkdir -p sum/build && cp totals sum/build/test-totals &&
	(cd sum && sh "$TESTS_DIR/summary.sh") >summary; echo $? >summary.rc &&
	echo "4 passed, 1 failed, 1 skipped" >expect &&
	test_cmp expect summary &&
	test "$(cat summary.rc)" = 1
'

test_expect_success 'summary.sh: the slowest suites, each pass, and ccache'"'"'s share' '
	mkdir -p times/build times/bin &&
	echo "a 1 0 0" >times/build/test-totals &&
	printf "%s\n" "unit 3" "t_a.sh 40" "t_b.sh 7" "asan/t_a.sh 50" "valgrind/t_a.sh 90" \
		"e2e/t_kernels_build.sh 700" >times/build/test-times &&
	printf "direct_cache_hit\t10\npreprocessed_cache_hit\t0\ncache_miss\t100\n" >times/build/ccache-before &&
	cat >times/bin/ccache <<-\EOS &&
	#!/bin/sh
	printf "direct_cache_hit\t70\npreprocessed_cache_hit\t5\ncache_miss\t125\n"
	EOS
	chmod +x times/bin/ccache &&
	(cd times && PATH=$PWD/bin:$PATH KB_SLOWEST=3 sh "$TESTS_DIR/summary.sh") >summary &&
	cat >expect <<-\EOS &&
	# the slowest suites (seconds):
	#      700  e2e/t_kernels_build.sh
	#       90  valgrind/t_a.sh
	#       50  asan/t_a.sh
	# each pass (seconds, suites run one after the other):
	#      700  e2e
	#       90  valgrind
	#       50  asan
	#       50  plain
	# ccache: 65 of 90 compiles served from the cache (72%)
	1 passed, 0 failed
	EOS
	test_cmp expect summary
'

rm -rf tmp/* totals
child passing.sh
test_expect_success 'a passing script: its directory removed' '
	printf "%s\n" "ok - one" "passing: 1 passed, 0 failed" >expect &&
	test_cmp expect out &&
	test "$(cat rc)" = 0 &&
	test -z "$(ls tmp)" &&
	echo "passing 1 0 0" >expect &&
	test_cmp expect totals
'

rm -rf tmp/* totals
child no_set.sh
test_expect_success 'a missing shared data set: one counted skip ends the script' '
	printf "%s\n" "ok - # SKIP no stable-trees at $TMP/nowhere/stable-trees (set KB_SHARED to the shared folder)" \
		"no-set: 0 passed, 0 failed, 1 skipped" >expect &&
	test_cmp expect out &&
	test "$(cat rc)" = 0 &&
	test -z "$(ls tmp)" &&
	echo "no-set 0 0 1" >expect &&
	test_cmp expect totals
'

rm -rf tmp/* totals
child mixed.sh --run=1,3-4,fail
test_expect_success '--run: only the blocks named (numbers, ranges, words of a name), the others counted skips' '
	cat >expect <<-EOF &&
	ok - a passing block
	ok - # SKIP a block sets a variable (not in --run=1,3-4,fail)
	not ok - the next block sees it (exit 1)
	#   > test "\$x" = 42
	ok - a prerequisite present
	ok - # SKIP a prerequisite missing (not in --run=1,3-4,fail)
	not ok - a failing block (exit 1)
	EOF
	sed -n "1,7p" out | grep -v "^#   [^>]" >got &&
	test_cmp expect got &&
	test "$(tail -2 out | head -1)" = "mixed: 2 passed, 2 failed, 2 skipped"
'

rm -rf tmp/* totals
child mixed.sh -i
test_expect_success '-i: the first failing block ends the script, its directory kept' '
	test "$(grep -c "^ok - " out)" = 5 &&
	grep -q "^not ok - a failing block" out &&
	grep -q "^# stopped at block 6 (-i)" out &&
	grep -q "^mixed: 4 passed, 1 failed, 1 skipped" out &&
	test "$(cat rc)" = 1 &&
	test -n "$(ls tmp)"
'

test_set_prereq PRESENT
test_expect_success PRESENT 'a block with its prerequisite runs' 'true'

cat >eq.sh <<SCRIPT
source "$TESTS_DIR/lib.sh"
T_SUITE=eq
hermetic
test_expect_success 'the same text' 'test_eq "a b" "a \$(echo b)"'
test_expect_success 'another text' 'test_eq "one
two" "one
three"'
test_expect_success 'a third argument' 'test_eq a a b'
finish
SCRIPT
child eq.sh
test_expect_success 'test_eq: the same passes; another shows the diff, labelled; a third argument fails' '
	cat >expect <<-EOF &&
	ok - the same text
	not ok - another text (exit 1)
	#   > test_eq "one
	#   > two" "one
	#   > three"
	#   --- want
	#   +++ got
	#   @@ -1,2 +1,2 @@
	#    one
	#   -two
	#   +three
	not ok - a third argument (exit 1)
	#   > test_eq a a b
	#   test_eq: 3 arguments, not 2 (WANT GOT): a a b
	eq: 1 passed, 2 failed
	EOF
	grep -v "^# kept " out >got &&
	test_cmp expect got
'
finish
