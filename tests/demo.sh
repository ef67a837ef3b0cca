#!/usr/bin/env bash
# make demo: the built-in default branches.yaml end to end. Import Debian's
# 6.1 and 6.12 kernel sources into work/linux, generate the era repositories
# under work/demo, audit, then `kbackport run`: apply, build (two cold kernel
# builds: about 10 minutes on 2 cores the first time, nothing the next),
# test every lane and Debian's own kernel under QEMU, and write the report
# under reports/. The demo succeeds when the report says 6.1.y and 6.12.y
# are verified and Debian's kernel is fixed; the era branches show the other
# statuses (not-affected, skipped, a conflict) on purpose.
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
echo
echo "== kbackport audit"
"$kb" audit
audit_rc=$?
echo
echo "== kbackport run"
"$kb" run
run_rc=$?
echo
results=reports/latest/results.json
if [ ! -f "$results" ]; then
	echo "demo: no report was written (kbackport run exited $run_rc)"
	exit 1
fi
verdicts=$(jq -r '[.branches[] | select(.name == "6.1.y" or .name == "6.12.y" or .name == "debian-6.1")
		  | "\(.name)=\(.verdict)"] | join(" ")' "$results")
echo "run exited $run_rc (1: a branch needs a person; the default set has a conflict on purpose)"
echo "audit exited $audit_rc (1: a bare name on CAP_NET_ADMIN found)"
echo "verdicts: $verdicts"
echo "report: $top/reports/$(readlink reports/latest)/summary.html"
[ "$verdicts" = "6.1.y=verified 6.12.y=verified debian-6.1=fixed" ] && [ $run_rc -le 1 ] &&
	[ $audit_rc -le 1 ]
