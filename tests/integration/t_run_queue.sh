#!/usr/bin/env bash
# kbackport run --queue on the era fixtures (every branch `build: false`:
# lanes are skipped, no kernel is built): the queue's tip as the backport
# lane, every fix's status per branch in results.json and above the lane
# verdicts in summary.md and summary.html, FAILED mails of skipped fixes, a
# second run that reuses the queue, and bad input.
source "$(dirname "$0")/../lib.sh"
T_SUITE=run-queue
hermetic
"$FIXTURES/make-era-repos.sh" "$TMP/repos" >/dev/null
cp "$FIXTURES/eras/branches.yaml" "$TMP/branches.yaml"
ln -s "$TOP_DIR/backports" "$TMP/backports"
cd "$TMP"
before_linux=$(user_state repos/linux)

# Two upstream commits on 2.6.37 as format-patch files: the first touches
# net/ipv4/tcp_cong.c, the second a file 4.19 does not have.
git clone -q -b linux-2.6.37.y repos/linux up
(
	cd up
	sed -i 's|^ \* congestion control\.$| * congestion control; modules tcp_<name> load on demand.|' net/ipv4/tcp_cong.c
	git commit -qam "tcp: say that modules load on demand" -m "Fixes CVE-2011-4001."
	sed -i 's|DPRINTK("invalid minor number\\n");|DPRINTK("invalid minor number %u\\n", minor);|' \
		drivers/staging/comedi/comedi_fops.c
	git commit -qam "staging: comedi: print the minor"
	git format-patch -q -o ../patches origin/linux-2.6.37.y
)
run_kb 0 fix new -o fixes patches/*.patch
cat > stable.series <<'EOF'
# the repository's fix, then two made with fix new
backports/CVE-2011-1019
fixes/CVE-2011-4001
fixes/staging-comedi-print-the-minor      # no drivers/ in 4.19
EOF
FIXES="CVE-2011-1019 CVE-2011-4001 staging-comedi-print-the-minor"

T_NAME="run --queue"
run_kb 1 run --queue stable.series
assert_contains "says where the report is" "report: $TMP/reports/" "$OUT"
run1=$(readlink reports/latest)
R=reports/latest/results.json
cp $R results1.json
echo "$ERR" > err1.txt
fail debug
