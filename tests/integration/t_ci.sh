#!/usr/bin/env bash
# kbackport ci-matrix and the CI files: the matrices generated from a
# branches.yaml (dotted names, a distribution kernel branch, a name that
# needs quoting) read as GitHub Actions and GitLab would read them, the
# workflow files wired to them, and the errors. No pipeline is run.
source "$(dirname "$0")/../lib.sh"
T_SUITE=ci
hermetic
CHECK=$FIXTURES/ci/check.py
cp "$FIXTURES/ci/branches.yaml" "$TMP/branches.yaml"
cd "$TMP"
BRANCHES=(6.1.y 6.12.y debian-6.1 2.6.32.y "vendor\"it's|odd%")

if ! python3 -c 'import yaml' 2>/dev/null; then
	fail "python3 with the yaml module (Debian: python3-yaml) reads the YAML"
	finish
	exit 1
fi

# check.py KIND FILE [BRANCH...]: each of its checks is one test
check() {
	local status what why
	python3 "$CHECK" "$@" >"$TMP/check.out" 2>"$TMP/check.err" ||
		{ fail "check.py $1 $2 ran to its end"; tail -3 "$TMP/check.err" | sed 's/^/#   /'; }
	while IFS=$'\t' read -r status what why; do
		test_expect_success "$what" '
			test "$status" = PASS || { printf "%s\n" "${why:0:2000}"; false; }
		'
	done < "$TMP/check.out"
}

# ---- the three formats: golden files, then read as the CI would ----
run_kb 0 ci-matrix && printf '%s\n' "$OUT" > matrix.json
test_expect_success 'json matrix as reviewed' '
	test_cmp "$FIXTURES/ci/expected.json" matrix.json
'
check json matrix.json "${BRANCHES[@]}"
run_kb 0 ci-matrix --format json && test_expect_success 'json is the default' '
	test_cmp <(printf "%s\n" "$(cat matrix.json)") <(printf "%s\n" "$OUT")
'
test_expect_success 'json: the kernel branch names its package, the others null' '
	test "$(jq -r '\''map(select(.branch == "debian-6.1" or .branch == "6.1.y") | .kernel // "null") | sort | join(" ")'\'' matrix.json)" = \
		"linux-image-amd64 null"
'

run_kb 0 ci-matrix --format github && printf '%s\n' "$OUT" > matrix.github
test_expect_success 'github matrix as reviewed' '
	test_cmp "$FIXTURES/ci/expected.github" matrix.github
'
check github matrix.github "${BRANCHES[@]}"
# as the workflow does it: the value must survive a GITHUB_OUTPUT line
GITHUB_OUTPUT=$TMP/github_output
echo "matrix=$("$KBACKPORT" ci-matrix --format github)" >> "$GITHUB_OUTPUT"
test_expect_success 'github: one name=value line for GITHUB_OUTPUT' '
	test "$(wc -l < "$GITHUB_OUTPUT")" = 1
'
test_expect_success 'github: the value is the matrix' '
	test_cmp <(printf "%s\n" "$(cat matrix.github)") <(printf "%s\n" "$(sed -n "s/^matrix=//p" "$GITHUB_OUTPUT")")
'

run_kb 0 ci-matrix --format gitlab && printf '%s\n' "$OUT" > matrix.yml
test_expect_success 'gitlab child pipeline as reviewed' '
	test_cmp "$FIXTURES/ci/expected.gitlab.yml" matrix.yml
'
check gitlab matrix.yml "${BRANCHES[@]}"

# ---- selection, order, --config handed on ----
run_kb 0 ci-matrix --branch debian-6.1 --branch 6.1.y
test_expect_success '--branch keeps the config'\''s order' '
	test "$(jq -r '\''map(.branch) | join(" ")'\'' <<<"$OUT")" = "6.1.y debian-6.1"
'
run_kb 0 ci-matrix --format gitlab -b 6.12.y && printf '%s\n' "$OUT" > one.yml
check gitlab one.yml 6.12.y
mkdir -p conf && cp branches.yaml "conf/my branches.yaml"
run_kb 0 ci-matrix --config "conf/my branches.yaml" -b 6.1.y
test_expect_success '--config given: each job runs with it' '
	test "$(jq -r ".[0].run" <<<"$OUT")" = "kbackport run --config '\''conf/my branches.yaml'\'' --branch 6.1.y"
'
run_kb 0 ci-matrix --config "conf/my branches.yaml" --format gitlab && printf '%s\n' "$OUT" > conf.yml
test_expect_success 'gitlab: the job'\''s run line has the config' '
	[[ $OUT == *"- \"kbackport run --config '\''conf/my branches.yaml'\'' --branch 6.12.y\""* ]]
'
check gitlab conf.yml "${BRANCHES[@]}"

# more branch jobs than GitLab's `needs:` takes: the report waits by stage
{
	echo "repo: repos/linux"
	echo "branches:"
	for i in $(seq 1 51); do printf '  - name: "5.%d.y"\n    ref: linux-5.%d.y\n' "$i" "$i"; done
} > many.yaml
run_kb 0 ci-matrix --config many.yaml --format gitlab && printf '%s\n' "$OUT" > many.yml
check gitlab many.yml $(seq -f '5.%g.y' 1 51)

# ---- the workflow files ----
check github-workflow "$TOP_DIR/ci/github-actions.yml"
check gitlab-parent "$TOP_DIR/ci/gitlab-ci.yml"

# The report job's merge step, on the layouts download-artifact leaves, with
# a stand-in kbackport report (exit $STUB_RC) that says what it was given.
python3 -c 'import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["jobs"]["report"]["steps"]
print(next(s["run"] for s in steps if "kbackport report" in s.get("run", "")))' \
	"$TOP_DIR/ci/github-actions.yml" > merge-step.sh
mkdir -p ws/build && printf '#!/bin/sh\necho "report: $*"; exit ${STUB_RC:-0}\n' > ws/build/kbackport
chmod +x ws/build/kbackport
merge_step() {	# EXPECTED_EXIT MATRIX_BRANCHES...
	local want=$1 merge_rc=0 b matrix='{"include":[]}'
	shift
	for b in "$@"; do matrix=$(jq -c --arg b "$b" '.include += [{branch: $b}]' <<<"$matrix"); done
	(cd ws && MATRIX=$matrix bash -eo pipefail ../merge-step.sh) > merge.out 2>&1 || merge_rc=$?
	MERGE=$(cat merge.out)
	test_expect_success "merge step exits $want for: $*${STUB_RC:+ (report exits $STUB_RC)}" '
		test "$merge_rc" = "$want" || { printf "%s\n" "exit $merge_rc:" "$MERGE"; false; }
	'
}
mkdir -p ws/artifacts/reports-6.1.y/run1 ws/artifacts/reports-debian-6.1/run2 ws/artifacts/reports-debian-6.1/latest
touch ws/artifacts/reports-6.1.y/run1/results.json ws/artifacts/reports-debian-6.1/{run2,latest}/results.json
merge_step 0 6.1.y debian-6.1 && test_expect_success 'merge step: every run directory, not latest' '
	[[ $MERGE == *"report: report --merge artifacts/reports-6.1.y/run1/ artifacts/reports-debian-6.1/run2/ --output reports/merged"* ]]
'
STUB_RC=1 merge_step 1 6.1.y debian-6.1
merge_step 1 6.1.y debian-6.1 6.12.y && test_expect_success 'merge step: a branch without a report is an error' '
	[[ $MERGE == *"::error::3 branches but 2 run directories"* ]]
'
rm -rf ws/artifacts && mkdir -p ws/artifacts/run1 && touch ws/artifacts/run1/results.json
merge_step 0 6.1.y && test_expect_success 'merge step: one branch, extracted flat' '
	[[ $MERGE == *"report --merge artifacts/run1/ --output"* ]]
'

# ---- errors ----
run_kb 0 ci-matrix --help && test_expect_success '--help' '
	[[ $OUT == *"usage: kbackport ci-matrix"* ]]
'
test_expect_success '--help says what a job runs' '
	[[ $OUT == *"\`kbackport run --branch NAME\`"* ]]
'
run_kb 0 --help && test_expect_success 'kbackport --help lists ci-matrix' '
	[[ $OUT == *"ci-matrix"* ]]
'
run_kb 2 ci-matrix --branch nope && test_expect_success 'unknown branch' '
	test "$(head -1 <<<"$ERR")" = "error: no branch '\''nope'\'' in '\''branches.yaml'\''"
'
test_expect_success 'unknown branch: nothing on stdout' '
	test -z "$OUT"
'
run_kb 2 ci-matrix --format yaml && test_expect_success 'bad format' '
	test "$(head -1 <<<"$ERR")" = "error: --format is '\''json'\'', '\''github'\'' or '\''gitlab'\'', not '\''yaml'\''"
'
run_kb 2 ci-matrix --format && test_expect_success '--format without a value' '
	[[ $ERR == *"usage: kbackport ci-matrix"* ]]
'
run_kb 2 ci-matrix --no-such-option
run_kb 2 ci-matrix stray && test_expect_success 'stray argument' '
	test "$ERR" = "error: unexpected argument '\''stray'\''"
'
run_kb 2 ci-matrix --config missing.yaml && test_expect_success 'missing config named' '
	[[ $ERR == *"missing.yaml"* ]]
'
printf 'repo: r\nbranches:\n  - name: a\n    ref: x\n    refs: oops\n' > bad.yaml
run_kb 2 ci-matrix --config bad.yaml --format gitlab && test_expect_success 'bad config at file:line:column' '
	[[ $ERR == *"error: bad.yaml:5:5: unknown key '\''refs'\''"* ]]
'
test_expect_success 'bad config: nothing on stdout' '
	test -z "$OUT"
'
finish
