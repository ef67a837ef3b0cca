#!/usr/bin/env bash
# The rtnetlink changelink family (backports/rtnl-changelink/: 11 fixes and
# their series, written from Debian's linux-source-6.1 and 6.12) on the
# real trees t_kernels.sh imported, in a shared bare clone of them (the
# imported repository gets no ref):
#   - the default fix set (backports/) does not hold the family's fixes;
#   - Debian's 6.1.y and 6.12.y: the whole queue already-applied;
#   - each branch with the series reversed by git (git apply -R of the
#     fixes' patches, last first): exactly the series' lines gone; the
#     queue applies every fix, one commit each, and its tip's tree is
#     Debian's; each fix alone applies and makes exactly Debian's files;
#   - every vulnerable: shape, alone in a probe fix, is found in the
#     reversed tree of its era and in no Debian tree (not-affected);
#   - vxlan alone reversed: the queue applies it, the others are
#     already-applied, Debian's tree again; ip_gre alone reversed: applied
#     by its era's variant; one of ip_gre's two checks reversed: the other
#     is never written twice, a conflict names both places the first fits
#     (with the pre-image blobs at hand or not).
# Runs after t_kernels.sh (its name sorts after it), which imports the trees.
source "$(dirname "$0")/lib.sh"
T_SUITE=e2e-changelink-data
hermetic
e2e_need stable/6.1.y "the imported repository '$REPO' is missing: run t_kernels.sh first"
e2e_need stable/6.12.y "the imported repository '$REPO' has no 6.12.y: run t_kernels.sh first"
FAM=$TOP_DIR/backports/rtnl-changelink
SERIES=$FAM/series
cd "$TMP"
git -C "$REPO" for-each-ref > shared.refs
git clone -q --bare --shared "$REPO" linux.git
L=$TMP/linux.git
QREF=refs/heads/backport/queue/rtnl-changelink

HELPER=rtnetlink-add-rtnl-dev-link-net-capable
VXLAN=CVE-2026-68432
GRE=CVE-2026-63829
VTI=net-ip-vti-require-cap-net-admin-in-the-device-netns-for
IDS="$HELPER
$VXLAN
CVE-2026-68142
CVE-2026-72051
$GRE
net-ipip-require-cap-net-admin-in-the-device-netns-for
net-sit-require-cap-net-admin-in-the-device-netns-for
$VTI
net-ip6-vti-require-cap-net-admin-in-the-device-netns-for
net-ip6-gre-require-cap-net-admin-in-the-device-netns-for
xfrm-xfrm-interface-require-cap-net-admin-in-the-device"

# config FILE NAME=REF...: a branches.yaml on the clone
config() {
	local f=$1 b
	shift
	{ echo "repo: $L"; echo "branches:"
	  for b in "$@"; do echo "  - {name: \"${b%%=*}\", ref: ${b#*=}}"; done; } > "$f"
}
# results JSON: "branch fix status variant" per fix, queue or single fixes
results() {
	jq -r 'if type == "object" and has("branches") then
		.branches[] | .branch as $b | .results[] | "\($b) \(.fix) \(.status) \(.variant)"
	else .[] | .fix as $f | .results[] |
		"\(.branch) \($f) \(.status) \(.variant)" end' "$1"
}
# expect BRANCH STATUS: the lines results() gives for the whole family on
# BRANCH, in series order (ip_gre's variant: the branch's era)
expect() {
	local id v
	while read -r id; do
		v=patch
		[ "$id" = "$GRE" ] && v=${1%.y}
		echo "$1 $id $2 $v"
	done <<< "$IDS"
}
# The files of fix FIX's patches
files_of() { grep -h '^+++ b/' "$FAM/$1/fix.patch" | sed 's|^+++ b/||' | sort -u; }

T_NAME=data
test_expect_success 'the series: the helper first, then the ten drivers' '
	sed "s/#.*//" "$SERIES" | awk "NF { print \$1 }" > series.ids &&
	test_cmp - series.ids <<< "$IDS"
'
test_expect_success 'the family folder is no fix; every member has a fix.yaml' '
	test ! -e "$FAM/fix.yaml" &&
	( for id in $IDS; do test -f "$FAM/$id/fix.yaml" || exit 1; done )
'
config deb.yaml 6.1.y=stable/6.1.y 6.12.y=stable/6.12.y
test_expect_success 'the default fix set (backports/) does not pick up the family' '
	"$KBACKPORT" apply --config deb.yaml --fix "$TOP_DIR/backports" --dry-run --json > dflt.json &&
	jq -r ".[].fix" dflt.json > dflt.ids &&
	echo CVE-2011-1019 | test_cmp - dflt.ids
'
test_expect_success 'the family folder given as --fix: its 11 fixes' '
	"$KBACKPORT" apply --config deb.yaml --fix "$FAM" --dry-run --json > fam.json &&
	jq -r ".[].fix" fam.json > fam.ids &&
	sort <<< "$IDS" | test_cmp - fam.ids
'

# ---- Debian's trees carry the series
T_NAME=debian
test_expect_success 'the queue on Debian 6.1.y and 6.12.y: every fix already-applied' '
	"$KBACKPORT" apply --queue "$SERIES" --name rtnl-changelink --config deb.yaml --dry-run --json > deb.json &&
	results deb.json > deb.got &&
	{ expect 6.1.y already-applied; expect 6.12.y already-applied; } | test_cmp - deb.got &&
	jq -r ".branches[] | \"\(.branch) \(.applied) \(.commit) \(.error)\"" deb.json > deb.branches &&
	printf "6.1.y 0 null null\n6.12.y 0 null null\n" | test_cmp - deb.branches
'
test_expect_success 'not dry-run: nothing applied, no queue ref' '
	"$KBACKPORT" apply --queue "$SERIES" --name rtnl-changelink --config deb.yaml > deb.txt &&
	grep -c "0 of 11 fixes applied: no ref written" deb.txt > n && echo 2 | test_cmp - n &&
	test -z "$(git -C "$L" for-each-ref "$QREF/")"
'

# ---- the series reversed, by git
# reverse REF BASE FIX...: REF is BASE with FIX... reversed, last first,
# each by the first of its patches git apply -R takes as it is, else with
# one line of context (ip_vti's patch, 6.1's context, on 6.12). "FIX PATCH"
# for each goes to REF.used.
reverse() {
	local ref=$1 base=$2 fix p c ok tree
	shift 2
	: > "$ref.used"
	export GIT_INDEX_FILE=$TMP/index
	git -C "$L" read-tree "$base" || return 1
	for fix in $(printf "%s\n" "$@" | tac); do
		ok=
		for c in "" -C1; do
			for p in "$FAM/$fix/fix.patch" "$FAM/$fix"/variants/*.patch; do
				[ -f "$p" ] || continue
				if git -C "$L" apply -R --cached $c "$p" 2>/dev/null; then
					ok="${p#$FAM/$fix/}${c:+ $c}"
					break 2
				fi
			done
		done
		[ -n "$ok" ] || { echo "cannot reverse $fix on $base" >&2; unset GIT_INDEX_FILE; return 1; }
		echo "$fix $ok" >> "$ref.used"
	done
	tree=$(git -C "$L" write-tree) && unset GIT_INDEX_FILE &&
	git -C "$L" update-ref "refs/heads/$ref" \
		"$(git -C "$L" commit-tree "$tree" -p "$base" -m "the rtnetlink changelink fixes reversed: $*")"
}
NUMSTAT="0	3	drivers/net/geneve.c
0	3	drivers/net/vxlan/vxlan_core.c
0	2	include/net/rtnetlink.h
0	8	net/core/rtnetlink.c
0	6	net/ipv4/ip_gre.c
0	3	net/ipv4/ip_vti.c
0	3	net/ipv4/ipip.c
0	6	net/ipv6/ip6_gre.c
0	3	net/ipv6/ip6_tunnel.c
0	3	net/ipv6/ip6_vti.c
0	3	net/ipv6/sit.c
0	3	net/xfrm/xfrm_interface_core.c"
for v in 6.1 6.12; do
	T_NAME=reversed-$v.y
	test_expect_success "the series reversed on Debian $v.y: exactly its lines gone" '
		reverse rev-$v stable/$v.y $IDS &&
		git -C "$L" diff --numstat stable/$v.y rev-$v > numstat &&
		test_cmp - numstat <<< "$NUMSTAT" &&
		test -z "$(git -C "$L" grep -l rtnl_dev_link_net_capable rev-$v)"
	'
done
T_NAME=reversed
test_expect_success 'the patches git reversed: ip_gre by its era'"'"'s variant, ip_vti on 6.12 with less context' '
	grep -E "^($GRE|$VTI) " rev-6.1.used rev-6.12.used > used &&
	test_cmp - used <<-EOF
	rev-6.1.used:$VTI fix.patch
	rev-6.1.used:$GRE fix.patch
	rev-6.12.used:$VTI fix.patch -C1
	rev-6.12.used:$GRE variants/6.12.patch
	EOF
'

config rev.yaml 6.1.y=rev-6.1 6.12.y=rev-6.12
T_NAME=queue
test_expect_success 'the queue on the reversed trees: every fix applied' '
	"$KBACKPORT" apply --queue "$SERIES" --name rtnl-changelink --config rev.yaml --json > rev.json &&
	results rev.json > rev.got &&
	{ expect 6.1.y applied; expect 6.12.y applied; } | test_cmp - rev.got &&
	jq -r ".branches[] | \"\(.branch) \(.applied) \(.created) \(.ref)\"" rev.json > rev.branches &&
	printf "6.1.y 11 true $QREF/6.1.y\n6.12.y 11 true $QREF/6.12.y\n" | test_cmp - rev.branches
'
test_expect_success 'ip_vti on 6.12: applied with fuzz 2, in its one place' '
	jq -r ".branches[1].results[] | select(.fix == \"$VTI\") | .notes[]" rev.json > vti.notes &&
	echo "hunk 1 of '"'"'net/ipv4/ip_vti.c'"'"' applied at line 594 (offset +15, fuzz 2)" | test_cmp - vti.notes
'
for v in 6.1 6.12; do
	test_expect_success "$v.y: one commit per fix on the reversed tree, the series' subjects in order" '
		git -C "$L" log --reverse --format=%s rev-$v..$QREF/$v.y > subjects &&
		for id in $IDS; do sed -n "s/^subject: \"\(.*\)\"$/\1/p" "$FAM/$id/fix.yaml"; done > want &&
		test_cmp want subjects &&
		git -C "$L" rev-parse $QREF/$v.y > tip && jq -r ".branches[] | select(.branch == \"$v.y\") | .commit" rev.json | test_cmp tip -
	'
	test_expect_success "$v.y: the queue tip's tree is Debian's" '
		git -C "$L" rev-parse "stable/$v.y^{tree}" > want &&
		git -C "$L" rev-parse "$QREF/$v.y^{tree}" | test_cmp want -
	'
done
test_expect_success 'a second run writes nothing' '
	"$KBACKPORT" apply --queue "$SERIES" --name rtnl-changelink --config rev.yaml --json > rev2.json &&
	jq -r "[.branches[].created] | map(tostring) | join(\" \")" rev2.json > created &&
	echo "false false" | test_cmp - created
'

# ---- each fix alone on the reversed trees
T_NAME=alone
test_expect_success 'each fix alone on the reversed trees: applied' '
	"$KBACKPORT" apply --config rev.yaml --fix "$FAM" --json > alone.json &&
	results alone.json | sort > alone.got &&
	{ expect 6.1.y applied; expect 6.12.y applied; } | sort | test_cmp - alone.got
'
test_expect_success 'each fix alone changes its own files only, into Debian'"'"'s' '
	( for v in 6.1 6.12; do
		for id in $IDS; do
			ref=refs/heads/backport/$id/$v.y
			git -C "$L" diff --name-only rev-$v $ref > changed &&
			files_of $id | test_cmp - changed || exit 1
			for f in $(files_of $id); do
				test "$(git -C "$L" rev-parse $ref:$f)" = "$(git -C "$L" rev-parse stable/$v.y:$f)" ||
					{ echo "$id $v.y: $f is not Debian'"'"'s"; exit 1; }
			done
		done
	done )
'

# ---- vulnerable: every shape alone, in a probe fix that adds a new file
T_NAME=vulnerable
# probes DIR: one probe fix per vulnerable: entry of each member, named
# <id>.shape<n>.<era> (era: 61, 612, or any: the entry's comment names
# none)
probes() {
	python3 - "$FAM" "$1" $IDS <<'PY'
import os, re, sys
fam, out, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
probe = ("From: kbackport <kbackport@localhost>\nDate: Sun, 6 Dec 2026 12:00:00 +0000\n"
         "Subject: [PATCH] probe\n\n---\n"
         "diff --git a/kb-probe.txt b/kb-probe.txt\nnew file mode 100644\n"
         "--- /dev/null\n+++ b/kb-probe.txt\n@@ -0,0 +1 @@\n+probe\n")
for fid in ids:
    lines = open(os.path.join(fam, fid, "fix.yaml")).read().split("\n")
    i = lines.index("vulnerable:") + 1
    entries, label = [], "any"
    while i < len(lines) and (lines[i].startswith(" ") or not lines[i]):
        m = re.match(r"^  # .*\(\), (6\.1|6\.12)$", lines[i])
        if m:
            label = m.group(1)
        elif lines[i].startswith("  - paths:"):
            entries.append((label, [lines[i]]))
            label = "any"
        elif lines[i].startswith("    ") or not lines[i]:
            entries[-1][1].append(lines[i])
        i += 1
    for n, (era, body) in enumerate(entries, 1):
        name = "%s.shape%d.%s" % (fid, n, era.replace(".", ""))
        os.makedirs(os.path.join(out, name))
        open(os.path.join(out, name, "probe.patch"), "w").write(probe)
        open(os.path.join(out, name, "fix.yaml"), "w").write(
            "id: %s\nsubject: \"probe\"\npatch: probe.patch\nvulnerable:\n%s\n"
            % (name, "\n".join(body).rstrip()))
PY
}
config all.yaml r6.1.y=rev-6.1 r6.12.y=rev-6.12 d6.1.y=stable/6.1.y d6.12.y=stable/6.12.y
test_expect_success 'the shapes: one per function, two where 6.1 and 6.12 declare differently' '
	probes probe && ls probe > probe.list &&
	sed "s/\.shape.*$//" probe.list | uniq -c | awk "{ print \$2, \$1 }" | sort > shapes &&
	sort <<-EOF | test_cmp - shapes
	$HELPER 2
	$VXLAN 1
	CVE-2026-68142 1
	CVE-2026-72051 1
	$GRE 4
	net-ipip-require-cap-net-admin-in-the-device-netns-for 2
	net-sit-require-cap-net-admin-in-the-device-netns-for 2
	$VTI 2
	net-ip6-vti-require-cap-net-admin-in-the-device-netns-for 1
	net-ip6-gre-require-cap-net-admin-in-the-device-netns-for 2
	xfrm-xfrm-interface-require-cap-net-admin-in-the-device 1
	EOF
'
test_expect_success 'each shape is in the reversed tree of its era, and in no Debian tree' '
	"$KBACKPORT" apply --config all.yaml --fix probe --dry-run --json > probe.json &&
	jq -r ".[] | .fix as \$f | .results[] | \"\(\$f) \(.branch) \(.status)\"" probe.json | sort > probe.got &&
	while read -r p; do
		era=${p##*.}
		for b in d6.1.y d6.12.y r6.1.y r6.12.y; do
			s=not-affected
			case $b in r*) { [ $era = any ] || [ r$era = $(echo $b | tr -d .y) ]; } && s=applied ;; esac
			echo "$p $b $s"
		done
	done < probe.list | sort | test_cmp - probe.got
'

# ---- one fix reversed, the others in
T_NAME=one
config one.yaml 6.1.y=one-vxlan-6.1 6.12.y=one-vxlan-6.12
test_expect_success 'vxlan alone reversed: vxlan applied, the others already-applied, Debian'"'"'s tree' '
	reverse one-vxlan-6.1 stable/6.1.y $VXLAN && reverse one-vxlan-6.12 stable/6.12.y $VXLAN &&
	"$KBACKPORT" apply --queue "$SERIES" --name rtnl-changelink --config one.yaml --json > one.json &&
	results one.json > one.got &&
	{ expect 6.1.y already-applied; expect 6.12.y already-applied; } |
		sed "s/ $VXLAN already-applied / $VXLAN applied /" | test_cmp - one.got &&
	( for v in 6.1 6.12; do
		test "$(git -C "$L" rev-list --count one-vxlan-$v..$QREF/$v.y)" = 1 &&
		test "$(git -C "$L" rev-parse "$QREF/$v.y^{tree}")" = "$(git -C "$L" rev-parse "stable/$v.y^{tree}")" || exit 1
	done )
'
config gre.yaml 6.1.y=one-gre-6.1 6.12.y=one-gre-6.12
test_expect_success 'ip_gre alone reversed: applied by its era'"'"'s variant, Debian'"'"'s tree' '
	reverse one-gre-6.1 stable/6.1.y $GRE && reverse one-gre-6.12 stable/6.12.y $GRE &&
	"$KBACKPORT" apply --config gre.yaml --fix "$FAM/$GRE" --json > gre.json &&
	results gre.json > gre.got &&
	printf "6.1.y $GRE applied 6.1\n6.12.y $GRE applied 6.12\n" | test_cmp - gre.got &&
	( for v in 6.1 6.12; do
		test "$(git -C "$L" rev-parse "backport/$GRE/$v.y^{tree}")" = "$(git -C "$L" rev-parse "stable/$v.y^{tree}")" || exit 1
	done )
'
# half REPO: branches half-gre-6.1 and half-gre-6.12 in REPO, Debian's
# with ipgre_changelink's check gone and erspan_changelink's kept
half() {
	( for v in 6.1 6.12; do
		git -C "$1" show stable/$v.y:net/ipv4/ip_gre.c |
			awk "/^static int ipgre_changelink\\(/ { f = 1 }
			     f && /rtnl_dev_link_net_capable/ { skip = 3; f = 0 }
			     skip { skip--; next } { print }" > "$TMP/ip_gre.c" &&
		test "$(git -C "$1" show stable/$v.y:net/ipv4/ip_gre.c | wc -l)" = "$(($(wc -l < "$TMP/ip_gre.c") + 3))" &&
		blob=$(git -C "$1" hash-object -w --path net/ipv4/ip_gre.c "$TMP/ip_gre.c") &&
		export GIT_INDEX_FILE=$TMP/index &&
		git -C "$1" read-tree stable/$v.y &&
		git -C "$1" update-index --cacheinfo 100644,$blob,net/ipv4/ip_gre.c &&
		tree=$(git -C "$1" write-tree) &&
		git -C "$1" update-ref refs/heads/half-gre-$v "$(git -C "$1" commit-tree $tree -p stable/$v.y -m half)" || exit 1
	done )
}
config half.yaml 6.1.y=half-gre-6.1 6.12.y=half-gre-6.12
# in the clone (the pre-image blobs at hand, backport refs from above)
# and in a plain one: the same conflict, nothing written
test_expect_success 'one of ip_gre'"'"'s two checks reversed: a conflict naming both places, the other check never written twice' '
	git clone -q --bare --shared "$REPO" plain.git &&
	half "$L" && half "$TMP/plain.git" &&
	sed "s|^repo: .*|repo: $TMP/plain.git|" half.yaml > plain.yaml &&
	git -C "$L" for-each-ref > refs.before &&
	( for y in half plain; do
		{ "$KBACKPORT" apply --config $y.yaml --fix "$FAM/$GRE" --json > $y.json; test $? = 1; } &&
		jq -r ".[0].results[] | \"\(.branch) \(.status) \(.variant) \([.hunks[] | \"\(.hunk):\(.status)\"] | join(\",\")) \(.detail)\"" $y.json > $y.got &&
		test_cmp - $y.got <<-EOF || exit 1
		6.1.y conflict 6.1 1:ambiguous,2:in variant '"'"'6.1'"'"' does not apply: hunk 1 of '"'"'net/ipv4/ip_gre.c'"'"' fits more than one place (line 1406 forward, line 1441 in reverse): not guessing
		6.12.y conflict 6.12 1:ambiguous,2:in variant '"'"'6.12'"'"' does not apply: hunk 1 of '"'"'net/ipv4/ip_gre.c'"'"' fits more than one place (line 1451 forward, line 1486 in reverse): not guessing
		EOF
	done ) &&
	git -C "$L" for-each-ref | test_cmp refs.before - &&
	test -z "$(git -C plain.git for-each-ref "refs/heads/backport/$GRE/")"
'
test_expect_success 'the shared repository got no ref' '
	git -C "$REPO" for-each-ref | test_cmp shared.refs -
'
finish
