#!/usr/bin/env bash
# make demo: the built-in default branches.yaml end to end: import Debian's
# 6.1 and 6.12 kernel sources into work/linux, generate the era repositories
# under work/demo, then run `kbackport apply`, `kbackport audit` and
# `kbackport build` (two cold kernel builds: about 10 minutes on 2 cores the
# first time; nothing to do the next) and `kbackport test` (every built lane
# and Debian's own kernel booted under QEMU: 6.1.y and 6.12.y end verified).
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
echo "== kbackport apply"
"$kb" apply
apply_rc=$?
echo
echo "== kbackport audit"
"$kb" audit
audit_rc=$?
echo
echo "== kbackport build"
"$kb" build
build_rc=$?
echo
echo "== kbackport test"
"$kb" test
test_rc=$?
echo
echo "test exited $test_rc (1: a branch is not verified or fixed)"
echo "build exited $build_rc (1: a lane failed to build)"
echo "apply exited $apply_rc (1: a branch needs a person), audit exited $audit_rc (1: a bare name on CAP_NET_ADMIN found)"
# The default set is meant to show every status, a conflict included:
# only a crash or a usage error fails the demo.
[ $apply_rc -le 1 ] && [ $audit_rc -le 1 ] && [ $build_rc -eq 0 ] && [ $test_rc -eq 0 ]
