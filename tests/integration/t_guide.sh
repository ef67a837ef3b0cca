#!/usr/bin/env bash
# A command line that guides like git's (issue 28, first part): a mistake
# gets "error:" and a "hint:" (did you mean ...?) and the synopsis, not the
# whole help; the config is found from any directory below it (or named
# by KBACKPORT_CONFIG, or after -C DIR); --fix takes a fix id; colour and
# the pager as git's (a terminal from script(1)). Exact messages and exit codes.
source "$(dirname "$0")/../lib.sh"
T_SUITE=guide
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
mkdir -p "$TMP/top/backports" "$TMP/top/sub/deeper"
cp -r "$TOP_DIR/backports/CVE-2011-1019" "$TMP/top/backports/"
cat > "$TMP/top/branches.yaml" <<YAML
repo: $TMP/repos/linux
branches:
  - {name: 2.6.32.y, ref: linux-2.6.32.y}
  - {name: 2.6.35.y, ref: linux-2.6.35.y}
YAML
cd "$TMP/top"
# the synopsis of apply: its usage up to the first blank line
synopsis=$("$KBACKPORT" apply --help | sed '/^$/q' | sed '$d')

test_expect_success 'a misspelt command: the closest command as a hint, no command list' '
	run_kb 2 aplpy &&
	printf "%s\n" "error: '\''aplpy'\'' is not a kbackport command" \
		"hint: did you mean '\''apply'\''?" "See '\''kbackport --help'\''." > want &&
	echo "$ERR" > got && test_cmp want got
'

test_expect_success 'a word nothing is close to: no hint' '
	run_kb 2 frobnicate &&
	printf "%s\n" "error: '\''frobnicate'\'' is not a kbackport command" \
		"See '\''kbackport --help'\''." > want &&
	echo "$ERR" > got && test_cmp want got
'

test_expect_success 'a misspelt option: error, hint, then the synopsis only' '
	run_kb 2 apply --brnach 2.6.32.y &&
	{ echo "error: unknown option '\''brnach'\''"; echo "hint: did you mean '\''--branch'\''?";
	  echo "$synopsis"; } > want &&
	echo "$ERR" > got && test_cmp want got &&
	test -z "$OUT"
'

test_expect_success 'an option with =value, misspelt: its name alone' '
	run_kb 2 run --workdri=w &&
	test "$(sed -n 1,2p <<<"$ERR")" = "error: unknown option '\''workdri'\''
hint: did you mean '\''--workdir'\''?"
'

test_expect_success 'an option without its value, long and short' '
	run_kb 2 apply --branch &&
	test "$(head -1 <<<"$ERR")" = "error: option '\''--branch'\'' needs a value" &&
	run_kb 2 build -b &&
	test "$(head -1 <<<"$ERR")" = "error: option '\''-b'\'' (--branch) needs a value"
'

test_expect_success 'an unknown letter' '
	run_kb 2 test -Z &&
	test "$(head -1 <<<"$ERR")" = "error: unknown switch '\''Z'\''"
'

test_expect_success 'a branch that is not there: the closest one' '
	run_kb 2 apply -n --branch 2.6.32.2 &&
	printf "%s\n" "error: no branch '\''2.6.32.2'\'' in '\''branches.yaml'\''" \
		"hint: did you mean '\''2.6.32.y'\''?" > want &&
	echo "$ERR" > got && test_cmp want got
'

test_expect_success '...none close: the branches there are' '
	run_kb 2 apply -n --branch mainline &&
	printf "%s\n" "error: no branch '\''mainline'\'' in '\''branches.yaml'\''" \
		"hint: its branches: 2.6.32.y, 2.6.35.y" > want &&
	echo "$ERR" > got && test_cmp want got
'

test_expect_success 'the config found from a directory below it' '
	cd sub/deeper &&
	run_kb 0 apply -n --json &&
	test "$(jq -r "[.[0].results[].status] | join(\" \")" <<<"$OUT")" = "applied applied" &&
	run_kb 2 apply -n --branch nope &&
	test "$(head -1 <<<"$ERR")" = "error: no branch '\''nope'\'' in '\''$TMP/top/branches.yaml'\''"
'

test_expect_success '...and KBACKPORT_CONFIG names one from anywhere' '
	cd "$TMP" &&
	KBACKPORT_CONFIG=$TMP/top/branches.yaml run_kb 0 apply -n --branch 2.6.35.y --json &&
	test "$(jq -r ".[0].results[].status" <<<"$OUT")" = applied
'

test_expect_success 'no config anywhere up: where it looked, and how to name one' '
	mkdir -p "$TMP/none" && cd "$TMP/none" &&
	run_kb 2 apply -n &&
	printf "%s\n" "error: no branches.yaml in '\''$TMP/none'\'' nor in any directory above it" \
		"hint: name one with --config FILE (or KBACKPORT_CONFIG=FILE)" > want &&
	echo "$ERR" > got && test_cmp want got
'

test_expect_success '--fix takes a fix id: the fix under backports/ beside the config; --json: an array even for one fix' '
	cd "$TMP/top/sub" &&
	run_kb 0 apply -n --fix CVE-2011-1019 --json &&
	test "$(jq -r "type" <<<"$OUT")" = array &&
	test "$(jq -r ".[].fix" <<<"$OUT")" = CVE-2011-1019 &&
	test "$(jq -c ".[0] | keys_unsorted" <<<"$OUT")" = "[\"fix\",\"results\"]" &&
	test "$(jq -r "[.[0].results[].status] | join(\" \")" <<<"$OUT")" = "applied applied"
'

test_expect_success '...also a fix inside a family'\''s folder under backports/; --json: an array for two fixes too, one document per fix' '
	mkdir -p "$TMP/top/backports/family" &&
	cp -r "$TMP/top/backports/CVE-2011-1019" "$TMP/top/backports/family/nested-fix" &&
	sed -i "s/^id: .*/id: nested-fix/" "$TMP/top/backports/family/nested-fix/fix.yaml" &&
	run_kb 0 apply -n --fix nested-fix --json &&
	test "$(jq -r "type" <<<"$OUT")" = array &&
	test "$(jq -r ".[].fix" <<<"$OUT")" = nested-fix &&
	run_kb 0 apply -n --fix CVE-2011-1019 --fix nested-fix --json &&
	rm -r "$TMP/top/backports/family" &&
	test "$(jq -c "[type, [.[] | \"\(.fix): \([.results[].branch] | join(\" \"))\"]]" <<<"$OUT")" = \
		"[\"array\",[\"CVE-2011-1019: 2.6.32.y 2.6.35.y\",\"nested-fix: 2.6.32.y 2.6.35.y\"]]"
'

test_expect_success '...an id found nowhere: the closest id as a hint' '
	run_kb 2 apply -n --fix CVE-2011-1091 &&
	printf "%s\n" "error: no fix '\''CVE-2011-1091'\'': no such directory, nor a fix id under '\''$TMP/top/backports'\''" \
		"hint: did you mean '\''CVE-2011-1019'\''?" > want &&
	echo "$ERR" > got && test_cmp want got
'

test_expect_success '...a directory of that name in the current directory is still a path' '
	mkdir -p "$TMP/top/sub/CVE-2011-1019" &&
	run_kb 2 apply -n --fix CVE-2011-1019 &&
	rmdir "$TMP/top/sub/CVE-2011-1019"
'

test_expect_success 'the table, then the details, then the tally last; a dry run says so' '
	cd "$TMP/top" &&
	run_kb 0 apply -n &&
	printf "%s\n" "BRANCH    FIX             STATUS           VARIANT    COMMIT" \
		"2.6.32.y  CVE-2011-1019   applied          2.6.32     (dry run)" \
		"2.6.35.y  CVE-2011-1019   applied          2.6.33     (dry run)" > want &&
	head -3 <<<"$OUT" > got && test_cmp want got &&
	test "$(tail -1 <<<"$OUT")" = "2 branches: 2 applied"
'

test_expect_success '...several fixes: fix-branch pairs, each status counted' '
	mkdir -p "$TMP/more" && cp -r backports/CVE-2011-1019 "$TMP/more/a-fix-id-longer-than-the-column" &&
	sed -i "s/^id: .*/id: a-fix-id-longer-than-the-column/" "$TMP/more/a-fix-id-longer-than-the-column/fix.yaml" &&
	run_kb 0 apply -n --fix CVE-2011-1019 --fix "$TMP/more" &&
	test "$(tail -1 <<<"$OUT")" = "4 fix-branch pairs: 4 applied" &&
	grep -qx "2.6.32.y  a-fix-id-longer-than-the-column  applied          2.6.32     (dry run)" <<<"$OUT"
'

test_expect_success '-q is --quiet: the table and the tally only' '
	cd "$TMP/top" &&
	run_kb 0 apply -n -q &&
	printf "%s\n" "BRANCH    FIX             STATUS           VARIANT    COMMIT" \
		"2.6.32.y  CVE-2011-1019   applied          2.6.32     (dry run)" \
		"2.6.35.y  CVE-2011-1019   applied          2.6.33     (dry run)" "" \
		"2 branches: 2 applied" > want &&
	echo "$OUT" > got && test_cmp want got
'

test_expect_success '...and never --queue: that one is spelt out' '
	run_kb 2 prune -q x &&
	test "$(head -1 <<<"$ERR")" = "error: unknown switch '\''q'\''"
'

test_expect_success '--fix takes a patch file: a one-off fix without variants, no directory made' '
	cd "$TMP/top" &&
	cp backports/CVE-2011-1019/upstream.patch "$TMP/upstream.patch" &&
	ls -R backports > before &&
	run_kb 1 apply -n -q --fix "$TMP/upstream.patch" &&
	printf "%s\n" "BRANCH    FIX             STATUS           VARIANT    COMMIT" \
		"2.6.32.y  CVE-2011-1019   conflict         patch      -" \
		"2.6.35.y  CVE-2011-1019   conflict         patch      -" "" \
		"2 branches: 2 conflict" > want &&
	echo "$OUT" > got && test_cmp want got &&
	ls -R backports > after && test_cmp before after
'

test_expect_success '-C DIR: as if started there (the config found upward from it); repeatable' '
	cd / &&
	run_kb 0 -C "$TMP/top" -C sub/deeper apply -n -q &&
	test "$(tail -1 <<<"$OUT")" = "2 branches: 2 applied" &&
	run_kb 2 -C "$TMP/nowhere" apply -n &&
	test "$ERR" = "error: cannot change to '\''$TMP/nowhere'\'': No such file or directory" &&
	run_kb 2 -C &&
	test "$ERR" = "error: option '\''-C'\'' needs a directory" &&
	cd "$TMP/top"
'

esc=$(printf '\033')
test_expect_success 'colour: none when piped; --color=always (also before the command) colours each status' '
	run_kb 0 apply -n -q &&
	! grep -q "$esc" <<<"$OUT" &&
	run_kb 0 apply -n -q --color=always &&
	test "$(grep -c "$esc\[32mapplied$esc\[m" <<<"$OUT")" = 3 &&
	run_kb 0 --color apply -n -q &&
	test "$(grep -c "$esc\[32mapplied$esc\[m" <<<"$OUT")" = 3 &&
	run_kb 0 apply -n -q --color=always --color=never &&
	! grep -q "$esc" <<<"$OUT" &&
	run_kb 2 apply -n --color=sometimes &&
	test "$(head -1 <<<"$ERR")" = "error: --color wants auto, always or never, not '\''sometimes'\''"
'

# on_tty CMD...: CMD with a terminal as its stdout (script(1)'s), output in $TMP/tty
on_tty() { script -qec "$(printf '%q ' "$@")" /dev/null > "$TMP/tty" 2>&1 < /dev/null; }
command -v script >/dev/null && test_set_prereq TTY
test_expect_success TTY 'colour on a terminal; not with NO_COLOR set, nor with TERM=dumb' '
	PAGER=cat on_tty "$KBACKPORT" apply -n -q &&
	grep -q "$esc\[32mapplied" "$TMP/tty" &&
	NO_COLOR=1 PAGER=cat on_tty "$KBACKPORT" apply -n -q &&
	! grep -q "$esc" "$TMP/tty" &&
	TERM=dumb PAGER=cat on_tty "$KBACKPORT" apply -n -q &&
	! grep -q "$esc" "$TMP/tty"
'

test_expect_success TTY 'on a terminal apply goes through the pager ($KBACKPORT_PAGER, $PAGER); not with --no-pager, nor piped' '
	PAGER="sed s/^/paged:/" on_tty "$KBACKPORT" apply -n -q &&
	test "$(grep -c "^paged:" "$TMP/tty")" = 5 &&
	PAGER=cat KBACKPORT_PAGER="sed s/^/kb:/" on_tty "$KBACKPORT" apply -n -q &&
	test "$(grep -c "^kb:" "$TMP/tty")" = 5 &&
	PAGER="sed s/^/paged:/" on_tty "$KBACKPORT" --no-pager apply -n -q &&
	! grep -q "^paged:" "$TMP/tty" &&
	PAGER="sed s/^/paged:/" run_kb 0 apply -n -q &&
	! grep -q "^paged:" <<<"$OUT"
'

test_expect_success 'a misspelt key of branches.yaml: the keys, then the closest as a hint' '
	sed "s/^branches:/brnaches:/" branches.yaml > "$TMP/keys.yaml" &&
	run_kb 2 apply -n -c "$TMP/keys.yaml" &&
	printf "%s\n" "error: $TMP/keys.yaml:2:1: unknown key '\''brnaches'\'' in top level (expected repo, mail, branches)" \
		"hint: did you mean '\''branches'\''?" > want &&
	echo "$ERR" > got && test_cmp want got &&
	printf "repo: r\nbranches:\n  - {name: a, ref: b, varaint: x}\n" > "$TMP/keys.yaml" &&
	run_kb 2 apply -n -c "$TMP/keys.yaml" &&
	test "$(tail -1 <<<"$ERR")" = "hint: did you mean '\''variant'\''?" &&
	printf "repo: r\nbranches:\n  - {name: a, ref: b, zzz: x}\n" > "$TMP/keys.yaml" &&
	run_kb 2 apply -n -c "$TMP/keys.yaml" &&
	test "$(wc -l <<<"$ERR")" = 1
'

test_expect_success 'a ref the repository lacks: the closest ref it has (never our own refs)' '
	sed "s/ref: linux-2.6.32.y/ref: linux-2.6.32.z/" branches.yaml > refs.yaml &&
	run_kb 1 apply -n -c refs.yaml --json &&
	test "$(jq -r ".[0].results[0].detail" <<<"$OUT")" = \
		"branch '\''2.6.32.y'\'': ref '\''linux-2.6.32.z'\'' not found in '\''$TMP/repos/linux'\'': revspec '\''linux-2.6.32.z'\'' not found (did you mean '\''linux-2.6.32.y'\''?)" &&
	git -C "$TMP/repos/linux" update-ref refs/heads/backport/CVE-x/mine linux-2.6.32.y &&
	sed "s/ref: linux-2.6.32.y/ref: backport\/CVE-x\/mien/" branches.yaml > refs.yaml &&
	run_kb 1 apply -n -c refs.yaml --json &&
	git -C "$TMP/repos/linux" update-ref -d refs/heads/backport/CVE-x/mine &&
	rm refs.yaml &&
	test "$(jq -r ".[0].results[0].detail" <<<"$OUT")" = \
		"branch '\''2.6.32.y'\'': ref '\''backport/CVE-x/mien'\'' not found in '\''$TMP/repos/linux'\'': revspec '\''backport/CVE-x/mien'\'' not found"
'

test_expect_success '-v: each hunk the notes do not place, as --json has it (-q after it wins)' '
	printf "repo: %s\nbranches:\n  - {name: vf, ref: vendor-2.6.32-fixed}\n" "$TMP/repos/vendor.git" > v.yaml &&
	run_kb 0 apply -n -v -c v.yaml --no-history &&
	grep "^  hunk [0-9]* of .*: " <<<"$OUT" > got &&
	printf "%s\n" "  hunk 1 of '\''include/linux/netdevice.h'\'': in at line 13 (offset -2379, whitespace, anchor own-lines) [variant '\''upstream'\'']" \
		"  hunk 1 of '\''net/core/dev.c'\'': in at line 32 (offset -994, whitespace)" \
		"  hunk 1 of '\''net/ipv4/ip_gre.c'\'': in at line 18 (offset -1691)" \
		"  hunk 1 of '\''net/ipv4/ipip.c'\'': in at line 16 (offset -861)" \
		"  hunk 1 of '\''net/ipv6/sit.c'\'': in at line 16 (offset -1125)" > want &&
	test_cmp want got &&
	run_kb 0 apply -n -c v.yaml --no-history &&
	! grep -q "^  hunk [0-9]* of .*: " <<<"$OUT" &&
	run_kb 0 apply -n -v -q -c v.yaml --no-history &&
	test "$(wc -l <<<"$OUT")" = 4 &&
	rm v.yaml
'

test_expect_success 'nothing was written' '
	test -z "$(git -C "$TMP/repos/linux" for-each-ref refs/heads/backport)"
'

finish
