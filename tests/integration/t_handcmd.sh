#!/usr/bin/env bash
# A conflict resolved by hand with the commands kbackport prints: in apply's
# text and --json, run's results.json and FAILED mail, and a queue's. The
# repositories, the fixes and the branch names carry what a shell would run
# (a space, $(...), backquotes, a quote, ;): every word is quoted, pasting
# the commands into sh from another directory runs nothing else, they work
# on a bare and on a non-bare repository given by a relative, unnormalised
# path, and once the conflict is resolved apply says so (exit 0) and build,
# test and run take the resolved ref as the backport lane.
source "$(dirname "$0")/../lib.sh"
T_SUITE=handcmd
hermetic
cd "$TMP"
D='my repos $(touch pwned) `touch pwned` it'"'"'s'	# relative, from $TMP
H=$TMP/$D
mkdir -p "$H/fixes" "$H/repos/work" elsewhere
"$FIXTURES/make-era-repos.sh" "$H/repos" >/dev/null
cp -r "$TOP_DIR/backports/CVE-2011-1019" "$H/fixes/"
BARE_NAME='vendor;touch${IFS}pwned'
BARE_REF='rw;touch${IFS}pwned'
PLAIN_NAME='linux`touch${IFS}pwned`'
PLAIN_REF="it's;\$(touch\${IFS}pwned)"
git -C "$H/repos/vendor.git" branch "$BARE_REF" vendor-2.6.32-reworked
git -C "$H/repos/linux" fetch -q ../vendor.git "vendor-2.6.32-reworked:$PLAIN_REF"
# repo: not normalised (work/../), relative to the branches file
config() {	# BUILD: the branches, `build: BUILD`
	cat <<-EOF
	repo: repos/linux
	branches:
	  - name: '$BARE_NAME'
	    repo: repos/work/../vendor.git
	    ref: '$BARE_REF'
	    build: $1
	  - name: '$PLAIN_NAME'
	    ref: '${PLAIN_REF//\'/\'\'}'
	    build: $1
	EOF
}
config false > "$H/branches.yaml"
config true > "$H/lanes.yaml"	# for `test`: it lists the lanes it would boot
before_linux=$(user_state "$H/repos/linux")
FIX="$D/fixes/../fixes/CVE-2011-1019"
KB_ARGS=(--config "$D/branches.yaml" --fix "$FIX")
pwned() { find "$TMP" -name pwned | grep -q .; }
# field BRANCH JQ: of the last apply --json
field() { printf '%s' "$OUT" | jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | $2"; }

# ---- the commands, quoted ----
T_NAME=quoted
run_kb 1 apply "${KB_ARGS[@]}" --json
echo "$OUT" > apply.json
cat > expect.bare <<'EOF'
git -C '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/vendor.git' worktree add '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/vendor-CVE-2011-1019-vendor;touch${IFS}pwned' -b 'backport/CVE-2011-1019/vendor;touch${IFS}pwned' 'rw;touch${IFS}pwned'
git -C '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/vendor-CVE-2011-1019-vendor;touch${IFS}pwned' am -3 '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/fixes/CVE-2011-1019/upstream.patch'
# resolve the conflicts (see the failed hunks), then: git -C '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/vendor-CVE-2011-1019-vendor;touch${IFS}pwned' add <files>
# build and test the kernel
git -C '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/vendor-CVE-2011-1019-vendor;touch${IFS}pwned' am --continue
EOF
cat > expect.plain <<'EOF'
git -C '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/linux' worktree add '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/linux-CVE-2011-1019-linux`touch${IFS}pwned`' -b 'backport/CVE-2011-1019/linux`touch${IFS}pwned`' 'it'\''s;$(touch${IFS}pwned)'
git -C '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/linux-CVE-2011-1019-linux`touch${IFS}pwned`' am -3 '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/fixes/CVE-2011-1019/upstream.patch'
# resolve the conflicts (see the failed hunks), then: git -C '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/linux-CVE-2011-1019-linux`touch${IFS}pwned`' add <files>
# build and test the kernel
git -C '@TMP@/my repos $(touch pwned) `touch pwned` it'\''s/repos/linux-CVE-2011-1019-linux`touch${IFS}pwned`' am --continue
EOF
sed -i "s|@TMP@|$TMP|g" expect.bare expect.plain
test_expect_success 'both branches are conflicts' '
	test "$(jq -r "[.[0].results[].status] | join(\" \")" apply.json)" = "conflict conflict"
'
test_expect_success 'bare repository: every word from data quoted, the repository path normalised, the patch absolute' '
	field "$BARE_NAME" ".reproduce[]" >got && test_cmp expect.bare got
'
test_expect_success 'non-bare repository: the same, its ref with a quote in it' '
	field "$PLAIN_NAME" ".reproduce[]" >got && test_cmp expect.plain got
'
run_kb 1 apply "${KB_ARGS[@]}"
test_expect_success 'the text output: the same commands, indented' '
	printf "%s\n" "$OUT" | sed -n "/^$(printf %s "$BARE_NAME" | sed "s/[]\$*.^[]/\\\\&/g") (/,/am --continue/p" |
		sed -n "s/^    //p" >got &&
	test_cmp expect.bare got
'

# run: results.json and the FAILED mails carry them too
(cd elsewhere && "$KBACKPORT" run --config "../$D/branches.yaml" --fix "../$FIX") >run.out 2>&1
R=$H/reports/latest
test_expect_success 'results.json: the same commands' '
	jq -r --arg b "$BARE_NAME" ".branches[] | select(.name == \$b) | .apply.reproduce[]" "$R/results.json" >got &&
	test_cmp expect.bare got &&
	jq -r --arg b "$PLAIN_NAME" ".branches[] | select(.name == \$b) | .apply.reproduce[]" "$R/results.json" >got &&
	test_cmp expect.plain got
'
test_expect_success 'the FAILED mails: the same commands' '
	sed -n "/^To reproduce/,/am --continue/p" "$R/FAILED-vendor;touch\${IFS}pwned.txt" | sed -n "s/^  //p" >got &&
	test_cmp expect.bare got &&
	sed -n "/^To reproduce/,/am --continue/p" "$R/FAILED-linux\`touch\${IFS}pwned\`.txt" | sed -n "s/^  //p" >got &&
	test_cmp expect.plain got
'
test_expect_success 'nothing ran so far' '! pwned'

# ---- pasted into sh, elsewhere ----
T_NAME=pasted
paste_into_sh() {	# NAME FILE: apply's commands for branch NAME into sh, output in FILE.out
	jq -r --arg b "$1" ".[0].results[] | select(.branch == \$b) | .reproduce[]" "$TMP/apply.json" >"$TMP/$2"
	(cd "$TMP/elsewhere" && sh <"$TMP/$2") >"$TMP/$2.out" 2>&1
}
BARE_WT="$H/repos/vendor-CVE-2011-1019-$BARE_NAME"
PLAIN_WT="$H/repos/linux-CVE-2011-1019-$PLAIN_NAME"
paste_into_sh "$BARE_NAME" bare.sh
paste_into_sh "$PLAIN_NAME" plain.sh
test_expect_success 'nothing but the commands ran' '! pwned'
test_expect_success 'bare: a work tree on the branch, the backport branch made, git am stopped on the conflict' '
	test "$(git -C "$BARE_WT" symbolic-ref HEAD)" = "refs/heads/backport/CVE-2011-1019/$BARE_NAME" &&
	test "$(git -C "$BARE_WT" rev-parse HEAD)" = "$(git -C "$H/repos/vendor.git" rev-parse "$BARE_REF")" &&
	test -d "$(git -C "$BARE_WT" rev-parse --git-path rebase-apply)" &&
	grep -q "Patch failed at 0001 net: don.t allow CAP_NET_ADMIN to load non-netdev kernel modules" "$TMP/bare.sh.out"
'
test_expect_success 'non-bare: the same, the checkout of the repository untouched' '
	test "$(git -C "$PLAIN_WT" symbolic-ref HEAD)" = "refs/heads/backport/CVE-2011-1019/$PLAIN_NAME" &&
	test "$(git -C "$PLAIN_WT" rev-parse HEAD)" = "$(git -C "$H/repos/linux" rev-parse "$PLAIN_REF")" &&
	test -d "$(git -C "$PLAIN_WT" rev-parse --git-path rebase-apply)" &&
	test "$(user_state "$H/repos/linux")" = "$before_linux"
'
# resolve it: dev_load() asks for netdev- names only (the fix, by hand), then git am --continue
resolve() {	# WORKTREE
	sed -i "s/request_module(\"%s\", name);/request_module(\"netdev-%s\", name);/" "$1/net/core/dev.c" &&
	git -C "$1" add net/core/dev.c &&
	git -C "$1" am --continue >/dev/null
}
test_expect_success 'resolved, and git am --continue as the last command says' '
	resolve "$BARE_WT" && resolve "$PLAIN_WT" &&
	test "$(git -C "$BARE_WT" log -1 --format=%s)" = "net: don'"'"'t allow CAP_NET_ADMIN to load non-netdev kernel modules"
'

# ---- apply, build, test and run after it ----
T_NAME=resolved
BARE_AT=$(git -C "$H/repos/vendor.git" rev-parse "refs/heads/backport/CVE-2011-1019/$BARE_NAME")
PLAIN_AT=$(git -C "$H/repos/linux" rev-parse "refs/heads/backport/CVE-2011-1019/$PLAIN_NAME")
run_kb 0 apply "${KB_ARGS[@]}" --json
test_expect_success 'apply: applied, exit 0, the resolved commit on its ref, nothing written' '
	test "$(field "$BARE_NAME" "[.status, .commit, .ref, .created, .variant] | @tsv")" = \
		"applied	$BARE_AT	refs/heads/backport/CVE-2011-1019/$BARE_NAME	false	" &&
	test "$(field "$PLAIN_NAME" "[.status, .commit, .created] | @tsv")" = "applied	$PLAIN_AT	false" &&
	test "$(git -C "$H/repos/vendor.git" rev-parse "refs/heads/backport/CVE-2011-1019/$BARE_NAME")" = "$BARE_AT"
'
test_expect_success 'apply: "resolved by hand", why it holds the fix, what kbackport alone says' '
	test "$(field "$BARE_NAME" .detail)" = "resolved by hand: refs/heads/backport/CVE-2011-1019/$BARE_NAME at ${BARE_AT:0:12} holds the fix" &&
	cat >expect <<-EOF &&
	the vulnerable code is not in its tree
	kbackport alone: no variant fits this tree; the upstream patch fails: hunk 1 of '"'"'include/linux/netdevice.h'"'"' does not apply
	EOF
	field "$BARE_NAME" ".notes[]" >got && test_cmp expect got &&
	test "$(field "$BARE_NAME" "[.reproduce, .hunks] | tostring")" = "[[],[]]"
'
run_kb 0 apply "${KB_ARGS[@]}"
test_expect_success 'apply, text: the row and the paragraph' '
	printf "%s\n" "$OUT" | grep -qxF "$BARE_NAME  CVE-2011-1019   applied          -          ${BARE_AT:0:12}" &&
	printf "%s\n" "$OUT" | grep -qxF "$BARE_NAME (CVE-2011-1019): resolved by hand: refs/heads/backport/CVE-2011-1019/$BARE_NAME at ${BARE_AT:0:12} holds the fix"
'
run_kb 1 test --config "$D/lanes.yaml" --fix "$FIX" --no-overlay --workdir "$TMP/no-builds" --json
test_expect_success 'test (nothing built): the backport lane is the resolved commit' '
	test "$(printf "%s" "$OUT" | jq -r --arg b "$BARE_NAME" ".branches[] | select(.name == \$b) | .lanes[] | \"\(.kind) \(.ref) \(.commit)\"")" = \
"as-is $BARE_REF $(git -C "$H/repos/vendor.git" rev-parse "$BARE_REF")
backport refs/heads/backport/CVE-2011-1019/$BARE_NAME $BARE_AT" &&
	test "$(printf "%s" "$OUT" | jq -r --arg b "$PLAIN_NAME" ".branches[] | select(.name == \$b) | [.lanes[].commit] | .[1]")" = "$PLAIN_AT"
'
(cd elsewhere && "$KBACKPORT" run --config "../$D/branches.yaml" --fix "../$FIX") >run.out 2>&1
test_expect_success 'run: applied by hand, its lanes as-is and the resolved commit, no FAILED mail' '
	test "$(jq -r --arg b "$BARE_NAME" ".branches[] | select(.name == \$b) | [.apply.status, .apply.commit, (.lanes | map(.kind) | join(\",\"))] | @tsv" "$R/results.json")" = \
		"applied	$BARE_AT	as-is,backport" &&
	test "$(jq -r --arg b "$BARE_NAME" ".branches[] | select(.name == \$b) | .lanes[1].commit" "$R/results.json")" = "$BARE_AT" &&
	! ls "$R"/FAILED-* 2>/dev/null
'

# ---- a ref that is not the resolution ----
T_NAME="not resolved"
REF="refs/heads/backport/CVE-2011-1019/$BARE_NAME"
V=$H/repos/vendor.git
# a commit on the branch that does not hold the fix
other=$(git -C "$V" commit-tree "$(git -C "$V" rev-parse "$BARE_REF^{tree}")" -p "$BARE_REF" -m "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules")
git -C "$V" update-ref "$REF" "$other"
run_kb 1 apply "${KB_ARGS[@]}" --branch "$BARE_NAME" --json
test_expect_success 'a commit that does not hold the fix: still a conflict, the ref named in a note' '
	test "$(field "$BARE_NAME" .status)" = conflict &&
	test "$(field "$BARE_NAME" ".notes[-1]")" = "$REF at ${other:0:12} does not hold the fix (the vulnerable code is still in '"'"'net/core/dev.c'"'"'): not taken as resolved by hand"
'
# the resolution, but the branch moved on since
git -C "$V" update-ref "$REF" "$BARE_AT"
moved=$(git -C "$V" commit-tree "$(git -C "$V" rev-parse "$BARE_REF^{tree}")" -p "$BARE_REF" -m "Linux 2.6.32.2")
git -C "$V" update-ref "refs/heads/$BARE_REF" "$moved"
run_kb 1 apply "${KB_ARGS[@]}" --branch "$BARE_NAME" --json
test_expect_success 'a resolution on an older commit of the branch: still a conflict, said why' '
	test "$(field "$BARE_NAME" .status)" = conflict &&
	test "$(field "$BARE_NAME" ".notes[-1]")" = "$REF at ${BARE_AT:0:12} is not built on $BARE_REF at ${moved:0:12}: not taken as resolved by hand" &&
	test "$(git -C "$V" rev-parse "$REF")" = "$BARE_AT"
'
test_expect_success 'nothing ran at all' '! pwned'

# ---- control characters and bytes that are not UTF-8 in the path ----
T_NAME="control characters"
C=$TMP/$'nl\ntouch pwned\n\ttab\r\xe9'
mkdir -p "$C" && git clone -q --bare "$V" "$C/vendor.git"
printf 'repo: vendor.git\nbranches:\n  - {name: v, ref: vendor-2.6.32-reworked}\n' > "$C/branches.yaml"
run_kb 1 apply --config "$C/branches.yaml" --fix "$FIX" --json
test_expect_success 'each command on one line of UTF-8, the path as printf escapes' '
	test "$(field v ".reproduce | length")" = 5 &&
	field v ".reproduce[0]" >got &&
	grep -qF "git -C \"\$(printf '"'"'$TMP/nl\\012touch pwned\\012\\011tab\\015\\351/vendor.git'"'"')\" worktree add " got
'
(cd elsewhere && field v ".reproduce[]" | sh) >ctl.out 2>&1
test_expect_success '...pasted: the work tree made beside that repository, nothing else ran' '
	test "$(git -C "$C/vendor-CVE-2011-1019-v" symbolic-ref HEAD)" = refs/heads/backport/CVE-2011-1019/v &&
	test -d "$(git -C "$C/vendor-CVE-2011-1019-v" rev-parse --git-path rebase-apply)" &&
	! pwned
'

# ---- a queue: the fixes before the skipped one replayed ----
T_NAME=queue
git -C "$V" update-ref "refs/heads/$BARE_REF" "$moved~1"
git -C "$V" update-ref -d "$REF"
git -C "$V" worktree remove --force "$BARE_WT"
git clone -q -b "$BARE_REF" "$V" up
sed -i 's/^NAME = .*/NAME = vendor/' up/Makefile
git -C up commit -qam 'kbuild: name the vendor'
git -C up format-patch -q -o "$H/patches" -1
"$KBACKPORT" fix new -o "$H/fixes" "$H"/patches/*.patch >/dev/null
printf '%s\n' fixes/kbuild-name-the-vendor fixes/CVE-2011-1019 > "$H/q.series"
(cd elsewhere && "$KBACKPORT" apply --queue "../$D/q.series" --config "../$D/branches.yaml" --branch "$BARE_NAME" --json) >queue.json 2>queue.err
{
	sed -n 1p expect.bare
	sed -n 2p expect.bare | sed "s|CVE-2011-1019/upstream.patch'\$|kbuild-name-the-vendor/fix.patch'|"
	sed -n '2,$p' expect.bare
} > expect.queue
test_expect_success 'the skipped fix: the queue before it by git am -3, then its own patch' '
	test "$(jq -r "[.branches[0].results[].status] | join(\" \")" queue.json)" = "applied conflict" &&
	jq -r ".branches[0].results[1].reproduce[]" queue.json >got && test_cmp expect.queue got
'
(cd elsewhere && jq -r ".branches[0].results[1].reproduce[]" ../queue.json | sh) >queue.paste 2>&1
test_expect_success '...pasted: the first fix replayed, the second stopped on its conflict, nothing else ran' '
	test "$(git -C "$BARE_WT" log -1 --format=%s HEAD)" = "kbuild: name the vendor" &&
	test "$(git -C "$BARE_WT" rev-parse HEAD~1)" = "$(git -C "$V" rev-parse "$BARE_REF")" &&
	test -d "$(git -C "$BARE_WT" rev-parse --git-path rebase-apply)" &&
	! pwned
'
finish
