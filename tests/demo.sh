#!/usr/bin/env bash
# make demo: the built-in default branches.yaml end to end, for both fixes
# of backports/: CVE-2011-1019 on every branch, then the rtnetlink changelink
# queue on 6.1.y, 6.12.y and Debian's kernel. Import Debian's
# 6.1 and 6.12 kernel sources into work/linux, generate the era repositories
# under work/demo, import the real v2.6.x trees of ../shared/linux-eras.tar.xz
# when it is there, audit, then `kbackport run`: apply, build (five cold
# kernel builds the first time, nothing the next), test every lane and
# Debian's own kernel under QEMU, and write the report under reports/. The
# demo succeeds when the report says 6.1.y, 6.12.y and the three v2.6.x
# trees are verified (skipped without the tarball) and Debian's kernel is
# fixed; the era fixture branches show the other statuses (not-affected,
# skipped, a conflict) on purpose.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kb=$top/${1:-build/kbackport}
cd "$top"
if [ ! -d work/demo/linux ] || [ tests/fixtures/eras -nt work/demo/linux ]; then
	echo "== generating era repositories under work/demo"
	tests/fixtures/make-era-repos.sh work/demo
fi
echo "== kbackport import (Debian's linux-source-6.1 and -6.12 into work/linux)"
"$kb" import || exit 1
eras=${KB_SHARED:-$top/../shared}/linux-eras.tar.xz
if [ -f "$eras" ]; then
	echo "== kbackport import --trees $eras (v2.6.32, v2.6.36, v2.6.38-rc8)"
	"$kb" import --trees "$eras" || exit 1
else
	echo "== no $eras: the v2.6.x branches are skipped"
fi
echo
echo "== kbackport audit"
"$kb" --no-pager audit	# a script: never wait in a pager
audit_rc=$?
echo
echo "== kbackport run (CVE-2011-1019 on every branch)"
"$kb" run
run_rc=$?
echo
results=reports/latest/results.json
if [ ! -f "$results" ]; then
	echo "demo: no report was written (kbackport run exited $run_rc)"
	exit 1
fi
report=$top/reports/$(readlink reports/latest)/summary.html
verdicts=$(jq -r '[.branches[] | select(.name == "6.1.y" or .name == "6.12.y" or .name == "debian-6.1"
		  or (.name | startswith("v2.6."))) | "\(.name)=\(.verdict)"] | join(" ")' "$results")
# The second family: the rtnetlink changelink series as a queue on Debian's
# 6.1 and 6.12 (pre-fix lanes: the series reversed) and Debian's own kernel;
# its kernels share the as-is builds above (one config per branch).
echo "== kbackport run --queue backports/rtnl-changelink/series (6.1.y, 6.12.y, debian-6.1)"
"$kb" run --queue backports/rtnl-changelink/series --branch 6.1.y --branch 6.12.y --branch debian-6.1
queue_rc=$?
echo
queue_verdicts=$(jq -r '[.branches[] | "\(.name)=\(.verdict)"] | join(" ")' reports/latest/results.json)
echo "run exited $run_rc (1: a branch needs a person; the default set has a conflict on purpose)"
echo "audit exited $audit_rc (1: a bare name on CAP_NET_ADMIN found)"
echo "verdicts: $verdicts"
echo "report: $report"
echo "changelink queue exited $queue_rc"
echo "changelink verdicts: $queue_verdicts"
echo "report: $top/reports/$(readlink reports/latest)/summary.html"
want="6.1.y=verified 6.12.y=verified debian-6.1=fixed"
if [ -f "$eras" ]; then
	want="$want v2.6.32=verified v2.6.36=verified v2.6.38-rc8=verified"
else
	want="$want v2.6.32=skipped v2.6.36=skipped v2.6.38-rc8=skipped"
fi
[ "$verdicts" = "$want" ] && [ $run_rc -le 1 ] && [ $audit_rc -le 1 ] &&
	[ "$queue_verdicts" = "6.1.y=verified 6.12.y=verified debian-6.1=fixed" ] && [ $queue_rc -eq 0 ]
