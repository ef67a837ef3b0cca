#!/usr/bin/env bash
# File modes, as git apply has them: a mode change alone or with content,
# a new executable, a new symlink, an empty new file, a deleted executable
# or symlink, a symlink retargeted. Each fix is made with `fix new` from a
# `git format-patch` file and applied; the backport's tree is byte for byte
# what `git apply --index` + `git write-tree` makes of the same patch. On
# the upstream commit the fix is already-applied (mode and content in); a
# mode the patch does not expect is a conflict saying so; the pre-fix lane
# undoes modes too; submodules and file type changes are refused, naming
# the file.
source "$(dirname "$0")/../lib.sh"
T_SUITE=modes
hermetic
# kb ARGS...: kbackport (under $KB_VALGRIND in the valgrind pass, whose
# errors, exit 99, are counted at the end)
kb() {
	${KB_VALGRIND:-} "$KBACKPORT" "$@"
	local rc=$?
	[ $rc != 99 ] || echo "kbackport $*" >> "$TMP/valgrind.errors"
	return $rc
}
cd "$TMP"
R=repo
git init -q $R
(
	cd $R
	printf 'echo run\n' > run.sh
	printf 'x\ny\nz\n' > tool.sh && chmod +x tool.sh
	printf 'a\nb\n' > gone.sh && chmod +x gone.sh
	printf 'doc\n' > doc.txt
	ln -s doc.txt doc.link
	git add -A && git commit -q -m base && git branch -q base
)
# upstream NAME SUBJECT COMMANDS: a commit on base, as a format-patch file
# patches/NAME.patch, and a branch NAME at it
upstream() {
	git -C $R checkout -q -b "$1" base &&
	(cd $R && eval "$3") &&
	git -C $R add -A && git -C $R commit -q -m "$2" &&
	git -C $R format-patch -q -1 --stdout > "patches/$1.patch"
}
mkdir patches
upstream mode-only "scripts: make run.sh executable" 'chmod +x run.sh'
upstream mode-content "scripts: tool.sh is sourced, not run" 'chmod -x tool.sh && sed -i s/^y$/Y/ tool.sh'
upstream new-exec "scripts: add bin/start" 'mkdir bin && printf "#!/bin/sh\nexec ./run.sh\n" > bin/start && chmod +x bin/start'
upstream new-link "doc: point latest at the doc" 'ln -s doc.txt latest'
upstream empty-exec "scripts: add an empty hook" ': > hook.sh && chmod +x hook.sh'
upstream del-exec "scripts: drop gone.sh" 'git rm -q gone.sh'
upstream retarget "doc: the link names run.sh" 'ln -sfn run.sh doc.link'
upstream del-link "doc: drop the link" 'git rm -q doc.link'
upstream all "scripts: all of it at once" \
	'chmod +x run.sh && chmod -x tool.sh && sed -i s/^y$/Y/ tool.sh && ln -s doc.txt latest && git rm -q gone.sh'
git -C $R checkout -q base
FIXES="mode-only mode-content new-exec new-link empty-exec del-exec retarget del-link all"
{
	printf 'repo: repo\nbranches:\n  - {name: base, ref: base}\n'
	for f in $FIXES; do printf '  - {name: %s, ref: %s}\n' "$f" "$f"; done
} > branches.yaml

test_expect_success 'the patches say what git says: mode lines, no hunks for a mode alone' '
	grep -qx "old mode 100644" patches/mode-only.patch &&
	grep -qx "new mode 100755" patches/mode-only.patch &&
	! grep -q "^@@" patches/mode-only.patch &&
	grep -qx "new file mode 120000" patches/new-link.patch &&
	grep -qx "deleted file mode 100755" patches/del-exec.patch &&
	grep -q "^index .* 120000$" patches/retarget.patch
'

test_expect_success 'fix new makes a fix of each' '
	for f in $FIXES; do
		kb fix new -o fixes --id $f patches/$f.patch >>made
	done
	test $(grep -c "^created fixes/" made) = 9
'

# git_tree PATCH [-R]: the tree git apply --index makes of PATCH on base
git_tree() {
	rm -rf ga && git clone -q -b base $R ga &&
	git -C ga apply --index $2 "$TMP/$1" && git -C ga write-tree
}
for f in $FIXES; do
	test_expect_success "$f: applied, the tree git apply --index makes" '
		kb apply --fix fixes/'$f' -b base --json >out.json &&
		test "$(jq -r ".[0].results[0].status" out.json)" = applied &&
		test "$(git -C $R rev-parse backport/'$f'/base^{tree})" = "$(git_tree patches/'$f'.patch)" &&
		test "$(git -C $R rev-parse backport/'$f'/base^{tree})" = "$(git -C $R rev-parse '$f'^{tree})"
	'
	test_expect_success "$f: on the upstream commit, already-applied" '
		kb apply --fix fixes/'$f' -b '$f' --json >out.json &&
		test "$(jq -r ".[0].results[0] | \"\(.status) \(.commit)\"" out.json)" = "already-applied null"
	'
done

test_expect_success 'the modes written, as ls-tree shows them' '
	cat >expect <<-EOF &&
	100755 run.sh
	100644 tool.sh
	100755 bin/start
	120000 latest
	100755 hook.sh
	120000 doc.link
	EOF
	for p in mode-only:run.sh mode-content:tool.sh new-exec:bin/start new-link:latest \
		 empty-exec:hook.sh retarget:doc.link; do
		git -C $R ls-tree backport/${p%%:*}/base -- ${p#*:} | sed "s/ blob [0-9a-f]*\t/ /"
	done >actual &&
	test_cmp expect actual &&
	test "$(git -C $R cat-file -p backport/new-link/base:latest)" = doc.txt &&
	test "$(git -C $R cat-file -p backport/retarget/base:doc.link)" = run.sh &&
	test -z "$(git -C $R ls-tree backport/del-exec/base -- gone.sh)$(git -C $R ls-tree backport/del-link/base -- doc.link)"
'

test_expect_success 'fix new --from-commit: the same fixes, the same trees' '
	for f in mode-only new-link all; do
		kb fix new -o fromcommit --id $f --from-commit $R $f >/dev/null &&
		kb apply --fix fromcommit/$f -b base --dry-run --json >out.json &&
		test "$(jq -r ".[0].results[0].status" out.json)" = applied || return 1
		grep -q "^old mode 100644" fromcommit/mode-only/fix.patch || return 1
	done &&
	kb apply --fix fromcommit/all -b all --json >out.json &&
	test "$(jq -r ".[0].results[0].status" out.json)" = already-applied
'

# branch_with NAME COMMANDS: a branch from base with COMMANDS' changes committed
branch_with() {
	git -C $R checkout -q -b "$1" base && (cd $R && eval "$2") &&
	git -C $R add -A && git -C $R commit -q -m "$1" && git -C $R checkout -q base &&
	printf '  - {name: %s, ref: %s}\n' "$1" "$1" >> branches.yaml
}
branch_with tool-regular 'chmod -x tool.sh'
branch_with tool-changed-still-exec 'sed -i s/^y$/Y/ tool.sh'
branch_with gone-regular 'chmod -x gone.sh'
branch_with latest-elsewhere 'ln -s run.sh latest'
branch_with start-regular 'mkdir bin && printf "#!/bin/sh\nexec ./run.sh\n" > bin/start'

# status FIX BRANCH: "status: detail" of apply --json
status() {
	kb apply --fix "fixes/$1" -b "$2" --json >out.json
	jq -r '.[0].results[0] | "\(.status): \(.detail)"' out.json
}
test_expect_success 'a mode change whose old mode is not the tree'"'"'s is a conflict' '
	test "$(status mode-content tool-regular)" = "conflict: variant '"'patch'"' does not apply: '"'tool.sh'"': mode 100644 in the tree, the patch expects 100755" &&
	test "$(jq -r ".[0].results[0].notes | join(\"|\")" out.json)" = "'"'tool.sh'"': mode 100644 in the tree, the patch expects 100755" &&
	test -z "$(git -C $R for-each-ref refs/heads/backport/mode-content/tool-regular)"
'
test_expect_success 'content in, mode change missing: a conflict, never already-applied' '
	test "$(status mode-content tool-changed-still-exec)" = "conflict: variant '"'patch'"' does not apply: '"'tool.sh'"': in, but with mode 100755, not the patch'"'"'s 100644"
'
test_expect_success 'a deleted file mode that is not the tree'"'"'s: a conflict' '
	test "$(status del-exec gone-regular)" = "conflict: variant '"'patch'"' does not apply: '"'gone.sh'"': mode 100644 in the tree, the patch expects 100755"
'
test_expect_success 'a new symlink where another one is: a conflict' '
	test "$(status new-link latest-elsewhere)" = "conflict: variant '"'patch'"' does not apply: '"'latest'"': '"'latest'"' already exists"
'
test_expect_success 'a new executable there already, not executable: a conflict' '
	test "$(status new-exec start-regular)" = "conflict: variant '"'patch'"' does not apply: '"'bin/start'"': in, but with mode 100644, not the patch'"'"'s 100755"
'
test_expect_success 'the exit status of a conflict is 1' '
	test_expect_code() { "$@"; test $? = 1; } &&
	test_expect_code kb apply --fix fixes/mode-content -b tool-regular
'

test_expect_success 'pre-fix: the lane undoes the modes, as git apply -R does' '
	printf "repo: repo\nbranches:\n  - {name: all, ref: all, pre-fix: true}\n" >prefix.yaml &&
	kb apply --config prefix.yaml --fix fixes/all --json >out.json &&
	test "$(jq -r ".[0].results[0] | \"\(.status) \(.pre_fix.reversed_variant)\"" out.json)" = "applied patch" &&
	pre=$(jq -r ".[0].results[0].pre_fix.commit" out.json) &&
	rm -rf ga && git clone -q -b all $R ga && git -C ga apply -R --index "$TMP/patches/all.patch" &&
	test "$(git -C $R rev-parse $pre^{tree})" = "$(git -C ga write-tree)" &&
	test "$(git -C $R rev-parse $pre^{tree})" = "$(git -C $R rev-parse base^{tree})" &&
	test "$(git -C $R rev-parse backport/all/all^{tree})" = "$(git -C $R rev-parse all^{tree})"
'

test_expect_success 'a queue of mode changes: each commit git apply'"'"'s tree' '
	printf "fixes/mode-only\nfixes/new-link\nfixes/del-exec\n" >modes.series &&
	kb apply --queue modes.series -b base --json >out.json &&
	test "$(jq -r "[.branches[0].results[].status] | join(\" \")" out.json)" = "applied applied applied" &&
	rm -rf ga && git clone -q -b base $R ga &&
	for f in mode-only new-link del-exec; do
		git -C ga apply --index "$TMP/patches/$f.patch" && git -C ga write-tree || return 1
	done >want &&
	git -C $R rev-list --reverse base..backport/queue/modes/base |
		while read -r c; do git -C $R rev-parse $c^{tree}; done >got &&
	test_cmp want got
'

# refused PATCH MESSAGE: fix new refuses PATCH (exit 2) with MESSAGE, writing nothing
refused() {
	kb fix new -o refused "$1" >out 2>err
	test $? = 2 && test "$(cat err)" = "$2" && test ! -e refused
}
git -C $R checkout -q -b with-sub base
git -C $R update-index --add --cacheinfo "160000,$(git -C $R rev-parse base),lib/sub"
git -C $R commit -q -m "lib: add a submodule"
git -C $R format-patch -q -1 --stdout > patches/sub.patch
git -C $R checkout -q -b typechange base
(cd $R && rm doc.txt && ln -s run.sh doc.txt && git add -A && git commit -q -m "doc: a link now")
git -C $R format-patch -q -1 --stdout > patches/typechange.patch
git -C $R checkout -q base
test_expect_success 'a submodule is refused, naming it' '
	line=$(grep -n "^new file mode 160000" patches/sub.patch | cut -d: -f1) &&
	refused patches/sub.patch "error: patches/sub.patch:$line: '"'lib/sub'"' is a submodule (mode 160000): submodules are not supported"
'
test_expect_success 'a file type change is refused, naming the file' '
	line=$(grep -n "^diff --git" patches/typechange.patch | sed -n 2p | cut -d: -f1) &&
	refused patches/typechange.patch "error: patches/typechange.patch:$line: '"'doc.txt'"' is deleted and created again (mode 100644 to 120000): file type changes are not supported"
'
test_expect_success 'a fix whose patch has a submodule: apply refuses it (exit 2)' '
	mkdir -p badfix/sub && cp patches/sub.patch badfix/sub/fix.patch &&
	printf "id: sub\nsubject: \"lib: add a submodule\"\npatch: fix.patch\n" >badfix/sub/fix.yaml &&
	kb apply --fix badfix/sub -b base >out 2>err; test $? = 2 &&
	grep -q "'"'lib/sub'"' is a submodule (mode 160000): submodules are not supported" err
'
test_expect_success 'no kbackport run above had a valgrind error' '
	test ! -e "$TMP/valgrind.errors"
'
finish
