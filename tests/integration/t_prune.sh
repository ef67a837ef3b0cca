#!/usr/bin/env bash
# kbackport prune on refs made by kbackport itself (apply, apply --queue, a
# pre-fix lane, a second repository) and one resolved by hand, among the
# user's refs (backport-foo, backportx, backport/<x>/<not a branch>, a
# symbolic ref of kbackport's shape, tags and remote refs of the same
# names, a branch `backport` in another repository), with backport refs
# checked out in the main working tree and in a linked worktree: selection
# by fix, queue, branch, --stale and --all, the exact refs left after each,
# --dry-run writing nothing, checked-out and locked refs kept with why,
# bad input refused before anything is deleted, --json.
source "$(dirname "$0")/../lib.sh"
T_SUITE=prune
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP" || exit 1
kb() { "$KBACKPORT" "$@" >/dev/null 2>&1; }	# setup: refs written by kbackport itself
L=repos/linux V=repos/vendor.git M=repos/mine.git
F=CVE-2011-1019 G=CVE-2011-4001
B=refs/heads/backport

# ---- the refs: kbackport's own ----
# a second fix, made by fix new from a format-patch file
git clone -q -b linux-2.6.37.y $L up
sed -i 's|^ \* congestion control\.$| * congestion control; modules tcp_<name> load on demand.|' up/net/ipv4/tcp_cong.c
git -C up commit -qam "tcp: say that modules load on demand" -m "Fixes $G."
git -C up format-patch -q -o ../patches origin/linux-2.6.37.y
kb fix new -o fixes patches/*.patch
printf 'fixes/%s\nbackports/%s\n' $G $F > stable.series
# 4.19.y's backport as a branch that carries the fix: a pre-fix lane
printf 'repo: repos/linux\nbranches:\n  - {name: 4.19.y, ref: linux-4.19.y}\n' > first.yaml
kb apply --config first.yaml
git -C $L branch shipped $B/$F/4.19.y
git -C $L branch -D -q backport/$F/4.19.y
git -C $V fetch -q ../linux linux-2.6.32.y:vendor-tip
git init -q --bare $M && git -C $M fetch -q ../linux linux-2.6.32.y:mine
cat > branches.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: 2.6.31.y, ref: linux-2.6.31.y}
  - {name: 2.6.32.y, ref: linux-2.6.32.y}
  - {name: 2.6.35.y, ref: linux-2.6.35.y}
  - {name: 2.6.37.y, ref: linux-2.6.37.y}
  - {name: shipped, ref: shipped, pre-fix: true}
  - {name: vendor, repo: repos/vendor.git, ref: vendor-tip}
  - {name: mine, repo: repos/mine.git, ref: mine}
  - {name: debian, kernel: linux-image-amd64}
YAML
kb apply -b 2.6.32.y -b 2.6.35.y -b shipped -b vendor
kb apply --fix fixes/$G -b 2.6.32.y -b 2.6.35.y -b shipped
kb apply --queue stable.series -b 2.6.32.y -b 2.6.35.y -b shipped
# resolved by hand, as the conflict's commands do it, and left checked out
git -C $L worktree add -q "$TMP/wt-hand" -b backport/$F/2.6.31.y linux-2.6.31.y
echo "/* by hand */" >> wt-hand/net/core/dev.c
git -C wt-hand commit -qam "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules"
# checked out in the main working tree
git -C $L checkout -q backport/queue/stable/2.6.35.y

# ---- the user's refs ----
git -C $L branch backport-foo master
git -C $L branch backportx master
git -C $L branch backport/mine/topic master		# not a fix's shape for a branch
git -C $L branch backport/$F/topic master		# no branch 'topic' in branches.yaml
git -C $L symbolic-ref $B/$F/2.6.37.y refs/heads/linux-2.6.37.y	# kbackport writes no symbolic ref
git -C $L tag v1 master
git -C $L tag -a -m "a tag of the same name" backport/$F/2.6.32.y master
git -C $L update-ref refs/remotes/origin/backport/$F/2.6.32.y linux-2.6.32.y
git -C $M branch backport mine			# a branch named backport, in another repository

refs() {	# every ref of the three repositories, with its value
	local r
	for r in $L $V $M; do
		git -C $r for-each-ref --format="$r %(refname) %(objectname)"
		git -C $r symbolic-ref -q $B/$F/2.6.37.y | sed "s|^|$r symbolic |"
	done
}
at() { git -C "${2:-$L}" rev-parse --short=12 "$1"; }	# REF [REPO]: its commit, short
without() {	# REF...: $(refs) as it was at the start, without these refs
	local pattern=
	for r in "$@"; do pattern="$pattern|$r"; done
	printf '%s\n' "$START" | grep -Ev " (${pattern#|}) "
}
state() { user_state $L; user_state wt-hand; user_state $V; }

T_NAME="the refs"
START=$(refs)
BEFORE=$(state)
ours_linux="$B/$F/2.6.31.y $B/$F/2.6.32.y $B/$F/2.6.35.y $B/$F/shipped $B/$F/shipped.pre-fix
$B/$G/2.6.32.y $B/$G/2.6.35.y $B/$G/shipped
$B/queue/stable/2.6.32.y $B/queue/stable/2.6.35.y $B/queue/stable/shipped $B/queue/stable/shipped.pre-fix"
test_expect_success "kbackport's, as apply, apply --queue and the commands by hand named them" '
	test_eq "$(echo $ours_linux) $B/$F/vendor" "$(printf "%s\n" "$START" | grep -v -e /topic -e backport-foo -e backportx -e $F/2.6.37.y | awk '\''$2 ~ "^refs/heads/backport/" {print $2}'\'' | paste -sd" ")"
'

# ---- bad input: refused, nothing deleted ----
T_NAME="bad input"
refused() {	# DESCRIPTION MESSAGE ARGS...: exit 2 with MESSAGE, no ref changed
	local what=$1 message=$2
	shift 2
	run_kb 2 prune "$@"
	test_expect_success "$what: refused" '
		test_eq "$message" "$ERR"
	'
	test_expect_success "$what: nothing written" '
		test_eq "" "$OUT"
	'
	test_expect_success "$what: no ref changed" '
		test_eq "$START" "$(refs)"
	'
}
refused "no selector" \
	"error: which refs? name --fix, --queue, --branch or --stale, or --all for every ref kbackport wrote"
refused "--dry-run alone" \
	"error: which refs? name --fix, --queue, --branch or --stale, or --all for every ref kbackport wrote" --dry-run
refused "--all with a selector" \
	"error: --all takes no --fix, --queue, --branch or --stale: it selects every ref" --all --fix $F
refused "an unknown fix" \
	"error: no fix 'CVE-2011-9999': no fix directory has that id, and no ref refs/heads/backport/CVE-2011-9999/<branch> is in the branches' repositories" \
	--fix $F --fix CVE-2011-9999
refused "an unknown queue" \
	"error: no queue 'nightly': no ref refs/heads/backport/queue/nightly/<branch> is in the branches' repositories" \
	--queue stable --queue nightly
refused "an unknown branch" "error: no branch '4.19.y' in 'branches.yaml'
hint: its branches: 2.6.31.y, 2.6.32.y, 2.6.35.y, 2.6.37.y, shipped, vendor, mine, debian" --branch 4.19.y --fix $F
refused "a fix directory for an id" \
	"error: 'backports/$F' is not a fix id (the name of a fix's directory, one component)" --fix backports/$F
refused "the queues' folder for a fix" \
	"error: 'queue' cannot be a fix id: refs/heads/backport/queue/ holds the queues' refs" --fix queue
refused "a queue name of two components" \
	"error: invalid queue name 'a/b' (must be usable as one component of a git ref name)" --queue a/b
refused "an argument" "error: unexpected argument 'extra'" --all extra
run_kb 0 prune --fix CVE-2026-63829
test_expect_success 'a fix with a directory and no ref: nothing to do' '
	test "$OUT" = "0 refs deleted, 0 kept"
'

# ---- --dry-run: what would go, nothing written ----
T_NAME="dry run"
logs() { (cd $L/.git && find logs -type f | sort | xargs sha1sum); }
logs_before=$(logs)
run_kb 1 prune --all --dry-run
expected=
for r in $ours_linux; do
	case $r in
	*/$F/2.6.31.y) expected+="kept $r (at $(at $r)): checked out in '$TMP/wt-hand': switch branches there first"$'\n' ;;
	*/stable/2.6.35.y) expected+="kept $r (at $(at $r)): checked out in '$TMP/repos/linux': switch branches there first"$'\n' ;;
	*) expected+="would delete $r (at $(at $r))"$'\n' ;;
	esac
done
test_expect_success 'each ref with its commit, the checked-out ones kept with where, a total' '
	printf "%s\n" "${expected}would delete $B/$F/vendor (at $(at $B/$F/vendor $V))
dry run: 11 refs would be deleted, 2 kept" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'
test_expect_success 'no ref changed' '
	test_eq "$START" "$(refs)"
'
test_expect_success 'no reflog changed' '
	test_eq "$logs_before" "$(logs)"
'
test_expect_success 'HEAD, index and working trees as they were' '
	test_eq "$BEFORE" "$(state)"
'

# ---- by fix and branch, by queue ----
T_NAME="--fix --branch"
run_kb 0 prune --fix $G --branch 2.6.32.y
test_expect_success "that fix's ref of that branch" '
	printf "%s\n" "deleted $B/$G/2.6.32.y (was $(printf "%s\n" "$START" | awk -v r=$B/$G/2.6.32.y '\''$2 == r {print substr($3, 1, 12)}'\''))
1 ref deleted, 0 kept" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'
test_expect_success 'every other ref as it was' '
	test_eq "$(without $B/$G/2.6.32.y)" "$(refs)"
'
test_expect_success 'its reflog gone too' '
	! git -C $L reflog exists $B/$G/2.6.32.y
'

T_NAME="--queue --branch"
q=$B/queue/stable/shipped
run_kb 0 prune --queue stable --branch shipped
test_expect_success "the queue's ref of that branch and its pre-fix ref" '
	printf "%s\n" "deleted $q (was $(printf "%s\n" "$START" | awk -v r=$q '\''$2 == r {print substr($3, 1, 12)}'\''))
deleted $q.pre-fix (was $(printf "%s\n" "$START" | awk -v r=$q.pre-fix '\''$2 == r {print substr($3, 1, 12)}'\''))
2 refs deleted, 0 kept" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'
test_expect_success 'every other ref as it was' '
	test_eq "$(without $B/$G/2.6.32.y $q $q.pre-fix)" "$(refs)"
'

# ---- --stale: the branch moved on ----
T_NAME="--stale"
git -C $L update-ref refs/heads/linux-2.6.35.y \
	"$(git -C $L commit-tree linux-2.6.35.y^{tree} -p linux-2.6.35.y -m "Linux 2.6.35.2 (fixture point release)")"
START=$(refs)
BEFORE=$(state)
tip=$(at linux-2.6.35.y)
why="stale: 'linux-2.6.35.y' at $tip is not in its history"
run_kb 1 prune --stale --dry-run
test_expect_success 'the refs of the branch that moved, and only those' '
	printf "%s\n" "would delete $B/$F/2.6.35.y (at $(at $B/$F/2.6.35.y)): $why
would delete $B/$G/2.6.35.y (at $(at $B/$G/2.6.35.y)): $why
kept $B/queue/stable/2.6.35.y (at $(at $B/queue/stable/2.6.35.y)): $why: checked out in '\''$TMP/repos/linux'\'': switch branches there first
dry run: 2 refs would be deleted, 1 kept" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'
test_expect_success 'dry run: no ref changed' '
	test_eq "$START" "$(refs)"
'
run_kb 1 prune --stale --json
test_expect_success '--json: status, stale and kept per ref' '
	printf "%s\n" "deleted backport CVE-2011-1019 null true null
deleted backport CVE-2011-4001 null true null
kept queue null stable true \"checked out in '\''$TMP/repos/linux'\'': switch branches there first\"" > want &&
	printf "%s\n" "$(printf "%s" "$OUT" | jq -r '\''.refs[] | "\(.status) \(.kind) \(.fix) \(.queue) \(.stale != null) \(.kept | tojson)"'\'')" > got &&
	test_cmp want got
'
test_expect_success 'deleted, the one checked out left' '
	test_eq "$(without $B/$F/2.6.35.y $B/$G/2.6.35.y)" "$(refs)"
'
run_kb 1 prune --stale
test_expect_success 'again: the one checked out, still kept' '
	printf "%s\n" "kept $B/queue/stable/2.6.35.y (at $(at $B/queue/stable/2.6.35.y)): $why: checked out in '\''$TMP/repos/linux'\'': switch branches there first
0 refs deleted, 1 kept" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'

# ---- --json ----
T_NAME="--json"
run_kb 0 prune --fix $F --dry-run --json --branch 2.6.32.y --branch vendor
test_expect_success 'the document'\''s keys' '
	test "$(printf "%s" "$OUT" | jq -c keys_unsorted)" = '\''["dry_run","refs","errors","deleted","kept"]'\''
'
test_expect_success 'one entry per ref' '
	test_eq "[{\"ref\":\"$B/$F/2.6.32.y\",\"repo\":\"$TMP/$L\",\"branch\":\"2.6.32.y\",\"kind\":\"backport\",\"fix\":\"$F\",\"queue\":null,\"commit\":\"$(git -C $L rev-parse $B/$F/2.6.32.y)\",\"status\":\"would-delete\",\"stale\":null,\"kept\":null},{\"ref\":\"$B/$F/vendor\",\"repo\":\"$TMP/$V\",\"branch\":\"vendor\",\"kind\":\"backport\",\"fix\":\"$F\",\"queue\":null,\"commit\":\"$(git -C $V rev-parse $B/$F/vendor)\",\"status\":\"would-delete\",\"stale\":null,\"kept\":null}]" "$(printf "%s" "$OUT" | jq -c .refs)"
'
test_expect_success 'totals' '
	test "$(printf "%s" "$OUT" | jq -r '\''"\(.dry_run) \(.errors | tojson) \(.deleted) \(.kept)"'\'')" = "true [] 2 0"
'

# ---- --all: packed refs, a locked one, the checked-out ones kept ----
T_NAME="--all"
git -C $L pack-refs --all
touch $V/refs/heads/backport/$F/vendor.lock
START=$(refs)
expected="kept $B/$F/2.6.31.y (at $(at $B/$F/2.6.31.y)): checked out in '$TMP/wt-hand': switch branches there first
deleted $B/$F/2.6.32.y (was $(at $B/$F/2.6.32.y))
deleted $B/$F/shipped (was $(at $B/$F/shipped))
deleted $B/$F/shipped.pre-fix (was $(at $B/$F/shipped.pre-fix))
deleted $B/$G/shipped (was $(at $B/$G/shipped))
deleted $B/queue/stable/2.6.32.y (was $(at $B/queue/stable/2.6.32.y))
kept $B/queue/stable/2.6.35.y (at $(at $B/queue/stable/2.6.35.y)): checked out in '$TMP/repos/linux': switch branches there first
kept $B/$F/vendor (at $(at $B/$F/vendor $V)): cannot lock '$B/$F/vendor': '$TMP/$V/$B/$F/vendor.lock' exists (another git at work, or a stale lock to remove)
5 refs deleted, 3 kept"
run_kb 1 prune --all
test_expect_success "every ref of kbackport's deleted but those checked out or locked, each said" '
	test_eq "$expected" "$OUT"
'
test_expect_success 'the refs left: the user'\''s, and those kept' '
	test_eq "$(without $B/$F/2.6.32.y $B/$F/shipped $B/$F/shipped.pre-fix $B/$G/shipped $B/queue/stable/2.6.32.y)" "$(refs)"
'
test_expect_success 'the packed refs hold none of them' '
	test_eq "" "$(grep -e "$B/$F/2.6.32.y" -e "$B/$F/shipped" -e "$B/$G/shipped" -e "$B/queue/stable/2.6.32.y" $L/.git/packed-refs)"
'
test_expect_success 'HEAD, index and working trees as they were' '
	test_eq "$BEFORE" "$(state)"
'

T_NAME="--all once nothing is checked out"
rm $V/refs/heads/backport/$F/vendor.lock
git -C wt-hand checkout -q --detach
git -C $L checkout -q master
BEFORE=$(state)
expected="deleted $B/$F/2.6.31.y (was $(at $B/$F/2.6.31.y))
deleted $B/queue/stable/2.6.35.y (was $(at $B/queue/stable/2.6.35.y))
deleted $B/$F/vendor (was $(at $B/$F/vendor $V))
3 refs deleted, 0 kept"
run_kb 0 prune --all
test_expect_success 'the rest deleted' '
	test_eq "$expected" "$OUT"
'
test_expect_success "only the user's refs are left, every one of them" '
	printf "%s\n" "$L refs/heads/backport-foo $(git -C $L rev-parse master)
$L refs/heads/backport/$F/2.6.37.y $(git -C $L rev-parse linux-2.6.37.y)
$L refs/heads/backport/$F/topic $(git -C $L rev-parse master)
$L refs/heads/backport/mine/topic $(git -C $L rev-parse master)
$L refs/heads/backportx $(git -C $L rev-parse master)
$L refs/heads/linux-2.6.31.y $(git -C $L rev-parse linux-2.6.31.y)
$L refs/heads/linux-2.6.32.y $(git -C $L rev-parse linux-2.6.32.y)
$L refs/heads/linux-2.6.35.y $(git -C $L rev-parse linux-2.6.35.y)
$L refs/heads/linux-2.6.37.y $(git -C $L rev-parse linux-2.6.37.y)
$L refs/heads/linux-4.19.y $(git -C $L rev-parse linux-4.19.y)
$L refs/heads/master $(git -C $L rev-parse master)
$L refs/heads/shipped $(git -C $L rev-parse shipped)
$L refs/remotes/origin/backport/$F/2.6.32.y $(git -C $L rev-parse linux-2.6.32.y)
$L refs/tags/backport/$F/2.6.32.y $(git -C $L rev-parse refs/tags/backport/$F/2.6.32.y)
$L refs/tags/v1 $(git -C $L rev-parse master)
$L symbolic refs/heads/linux-2.6.37.y
$V refs/heads/vendor-2.6.32-fixed $(git -C $V rev-parse vendor-2.6.32-fixed)
$V refs/heads/vendor-2.6.32-reworked $(git -C $V rev-parse vendor-2.6.32-reworked)
$V refs/heads/vendor-tip $(git -C $V rev-parse vendor-tip)
$M refs/heads/backport $(git -C $M rev-parse mine)
$M refs/heads/mine $(git -C $M rev-parse mine)" > want &&
	printf "%s\n" "$(refs)" > got &&
	test_cmp want got
'
test_expect_success 'no reflog of theirs left' '
	printf "%s\n" "$(cd $L/.git && find logs/refs/heads/backport -type f | sort)" > want &&
	printf "%s\n" "logs/refs/heads/backport/$F/2.6.37.y
logs/refs/heads/backport/$F/topic
logs/refs/heads/backport/mine/topic" > got &&
	test_cmp want got
'
test_expect_success 'HEAD, index and working trees as they were' '
	test_eq "$BEFORE" "$(state)"
'
git -C $V branch backport vendor-tip 2>&1
test_expect_success "their folder is gone: a branch 'backport' can be made" '
	test "$(git -C $V rev-parse refs/heads/backport)" = "$(git -C $V rev-parse vendor-tip)"
'
run_kb 0 prune --all
test_expect_success 'again: nothing to do' '
	test "$OUT" = "0 refs deleted, 0 kept"
'

# ---- what cannot be read: said, the rest goes on ----
T_NAME="errors"
kb apply --config first.yaml
cat > broken.yaml <<'YAML'
repo: repos/linux
branches:
  - {name: gone, repo: repos/gone, ref: linux-2.6.32.y}
  - {name: 4.19.y, ref: linux-4.19.y}
  - {name: 2.6.32.y, ref: no-such-ref}
YAML
git -C $L branch backport/$F/2.6.32.y linux-2.6.32.y
START=$(refs)
run_kb 1 prune --config broken.yaml --stale --dry-run
test_expect_success 'a repository that cannot be opened' '
	[[ $ERR == *"error: cannot open repository '\''$TMP/repos/gone'\'' (its refs are left): "* ]]
'
test_expect_success 'a branch whose ref is not there' '
	[[ $ERR == *"error: branch '\''2.6.32.y'\'': cannot tell which of its refs are stale (they are left): no commit '\''no-such-ref'\'' in '\''$TMP/$L'\'': "* ]]
'
test_expect_success 'the others looked at' '
	test "$OUT" = "dry run: 0 refs would be deleted, 0 kept"
'
run_kb 1 prune --config broken.yaml --all --json
test_expect_success '--json: the error listed, the other refs deleted (--all needs no branch'\''s commit)' '
	test_eq "1 $B/$F/2.6.32.y deleted|$B/$F/4.19.y deleted" "$(printf "%s" "$OUT" | jq -r '\''"\(.errors | length) \([.refs[] | "\(.ref) \(.status)"] | join("|"))"'\'')"
'
test_expect_success 'the refs left' '
	test_eq "$(without $B/$F/2.6.32.y $B/$F/4.19.y)" "$(refs)"
'

T_NAME="a worktree whose directory is gone"
kb apply --config first.yaml
git -C $L worktree add -q "$TMP/wt-gone" backport/$F/4.19.y
rm -rf "$TMP/wt-gone"
c=$(at $B/$F/4.19.y)
run_kb 1 prune --config first.yaml --all
test_expect_success 'kept: git still counts it checked out' '
	printf "%s\n" "kept $B/$F/4.19.y (at $c): checked out in '\''$TMP/wt-gone'\'': switch branches there first
0 refs deleted, 1 kept" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'
git -C $L worktree prune
run_kb 0 prune --config first.yaml --all
test_expect_success 'once git worktree prune forgot it: deleted' '
	printf "%s\n" "deleted $B/$F/4.19.y (was $c)
1 ref deleted, 0 kept" > want &&
	printf "%s\n" "$OUT" > got &&
	test_cmp want got
'
finish
