#!/usr/bin/env bash
# Commits made with no user.name/user.email in git config (HOME pinned,
# nothing in it, no GIT_COMMITTER_*): kbackport falls back, as git does, to
# the login name and user@host, and says so on stderr, once per command:
# "note: no user.name/user.email in git config; commits are by <name>
# <email>", the identity of the commits it wrote. Nothing is said when no
# commit was written (a dry run, a re-run reusing its refs) or when the
# identity is configured or given in the environment.
source "$(dirname "$0")/../lib.sh"
T_SUITE=identity
hermetic
git config --global --unset user.name
git config --global --unset user.email
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cp "$FIXTURES/eras/branches.yaml" "$TMP/branches.yaml"
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"
R=repos/linux
REF=refs/heads/backport/CVE-2011-1019
for r in $R repos/vendor.git; do
	git -C $r config --unset user.name
	git -C $r config --unset user.email
done
test_expect_success 'no identity in any git config' 'test "$(git -C $R config --get-regexp "^user\.")" = ""'

# what kbackport guesses, as it does: the passwd name (to its first comma)
# or the login name, and <login>@<host>
user=$(id -un)
gecos=$(getent passwd "$user" | cut -d: -f5 | cut -d, -f1)
WHO="${gecos:-$user} <$user@$(hostname)>"
NOTE="note: no user.name/user.email in git config; commits are by $WHO"

T_NAME="apply on two branches"
run_kb 0 apply --branch 2.6.32.y --branch 4.19.y
test_expect_success 'said once, on stderr' '
	printf "%s\n" "$NOTE" > want && printf "%s\n" "$ERR" > got && test_cmp want got
'
test_expect_success '...the identity of both commits written' '
	test "$(git -C $R log -1 --format="%cn <%ce>" $REF/2.6.32.y)|$(git -C $R log -1 --format="%cn <%ce>" $REF/4.19.y)" = \
		"$WHO|$WHO"
'
test_expect_success '...not on stdout' 'test "$(printf "%s\n" "$OUT" | grep "note: no user")" = ""'

T_NAME="nothing written"
run_kb 0 apply --branch 2.6.32.y --branch 4.19.y
test_expect_success 'a re-run reusing its refs says nothing' '
	printf "%s\n" "" > want && printf "%s\n" "$ERR" > got && test_cmp want got
'
run_kb 0 apply --dry-run --branch 2.6.35.y
test_expect_success 'a dry run says nothing' '
	printf "%s\n" "" > want && printf "%s\n" "$ERR" > got && test_cmp want got
'
test_expect_success '...and writes no ref' 'test "$(git -C $R for-each-ref $REF/2.6.35.y)" = ""'

T_NAME="apply --queue"
printf '%s\n' "$TOP_DIR/backports/CVE-2011-1019" > q.series
run_kb 0 apply --queue q.series --branch 2.6.35.y --branch 2.6.37.y
test_expect_success 'said once' '
	printf "%s\n" "$NOTE" > want && printf "%s\n" "$ERR" > got && test_cmp want got
'
test_expect_success "...the queue's commit by it" '
	test "$(git -C $R log -1 --format="%cn <%ce>" refs/heads/backport/queue/q/2.6.37.y)" = "$WHO"
'

T_NAME="an identity given"
GIT_COMMITTER_NAME="Env Committer" GIT_COMMITTER_EMAIL=env@example.org run_kb 0 apply --branch 2.6.35.y
test_expect_success 'GIT_COMMITTER_NAME and _EMAIL: nothing said' '
	printf "%s\n" "" > want && printf "%s\n" "$ERR" > got && test_cmp want got
'
test_expect_success '...the commit by them' '
	test "$(git -C $R log -1 --format="%cn <%ce>" $REF/2.6.35.y)" = "Env Committer <env@example.org>"
'
git config --global user.name "Stable Maintainer"
git config --global user.email stable@example.org
run_kb 0 apply --branch 2.6.37.y
test_expect_success 'user.name and user.email configured: nothing said' '
	printf "%s\n" "" > want && printf "%s\n" "$ERR" > got && test_cmp want got
'
test_expect_success '...the commit by them' '
	test "$(git -C $R log -1 --format="%cn <%ce>" $REF/2.6.37.y)" = "Stable Maintainer <stable@example.org>"
'
finish
