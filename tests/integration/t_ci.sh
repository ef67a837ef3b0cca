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
		if [ "$status" = PASS ]; then
			pass "$what"
		else
			fail "$what"
			printf '#   %s\n' "${why:0:2000}"
		fi
	done < "$TMP/check.out"
}

# ---- the three formats: golden files, then read as the CI would ----
run_kb 0 ci-matrix && printf '%s\n' "$OUT" > matrix.json
assert_file_eq "json matrix as reviewed" "$FIXTURES/ci/expected.json" matrix.json
check json matrix.json "${BRANCHES[@]}"
run_kb 0 ci-matrix --format json && assert_eq "json is the default" "$(cat matrix.json)" "$OUT"
assert_eq "json: the kernel branch names its package, the others null" \
	"linux-image-amd64 null" "$(jq -r 'map(select(.branch == "debian-6.1" or .branch == "6.1.y") | .kernel // "null") | sort | join(" ")' matrix.json)"

run_kb 0 ci-matrix --format github && printf '%s\n' "$OUT" > matrix.github
assert_file_eq "github matrix as reviewed" "$FIXTURES/ci/expected.github" matrix.github
check github matrix.github "${BRANCHES[@]}"
# as the workflow does it: the value must survive a GITHUB_OUTPUT line
GITHUB_OUTPUT=$TMP/github_output
echo "matrix=$("$KBACKPORT" ci-matrix --format github)" >> "$GITHUB_OUTPUT"
assert_eq "github: one name=value line for GITHUB_OUTPUT" 1 "$(wc -l < "$GITHUB_OUTPUT")"
assert_eq "github: the value is the matrix" "$(cat matrix.github)" "$(sed -n 's/^matrix=//p' "$GITHUB_OUTPUT")"

run_kb 0 ci-matrix --format gitlab && printf '%s\n' "$OUT" > matrix.yml
assert_file_eq "gitlab child pipeline as reviewed" "$FIXTURES/ci/expected.gitlab.yml" matrix.yml
check gitlab matrix.yml "${BRANCHES[@]}"

# ---- selection, order, --config handed on ----
run_kb 0 ci-matrix --branch debian-6.1 --branch 6.1.y
assert_eq "--branch keeps the config's order" "6.1.y debian-6.1" "$(jq -r 'map(.branch) | join(" ")' <<<"$OUT")"
run_kb 0 ci-matrix --format gitlab -b 6.12.y && printf '%s\n' "$OUT" > one.yml
check gitlab one.yml 6.12.y
mkdir -p conf && cp branches.yaml "conf/my branches.yaml"
run_kb 0 ci-matrix --config "conf/my branches.yaml" -b 6.1.y
assert_eq "--config given: each job runs with it" \
	"kbackport run --config 'conf/my branches.yaml' --branch 6.1.y" "$(jq -r '.[0].run' <<<"$OUT")"
run_kb 0 ci-matrix --config "conf/my branches.yaml" --format gitlab && printf '%s\n' "$OUT" > conf.yml
assert_contains "gitlab: the job's run line has the config" \
	"- \"kbackport run --config 'conf/my branches.yaml' --branch 6.12.y\"" "$OUT"
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
	local want=$1 rc=0 b matrix='{"include":[]}'
	shift
	for b in "$@"; do matrix=$(jq -c --arg b "$b" '.include += [{branch: $b}]' <<<"$matrix"); done
	(cd ws && MATRIX=$matrix bash -eo pipefail ../merge-step.sh) > merge.out 2>&1 || rc=$?
	MERGE=$(cat merge.out)
	assert_eq "merge step exits $want for: $*${STUB_RC:+ (report exits $STUB_RC)}" "$want" "$rc"
}
mkdir -p ws/artifacts/reports-6.1.y/run1 ws/artifacts/reports-debian-6.1/run2 ws/artifacts/reports-debian-6.1/latest
touch ws/artifacts/reports-6.1.y/run1/results.json ws/artifacts/reports-debian-6.1/{run2,latest}/results.json
merge_step 0 6.1.y debian-6.1 && assert_contains "merge step: every run directory, not latest" \
	"report: report --merge artifacts/reports-6.1.y/run1/ artifacts/reports-debian-6.1/run2/ --output reports/merged" "$MERGE"
STUB_RC=1 merge_step 1 6.1.y debian-6.1
merge_step 1 6.1.y debian-6.1 6.12.y && assert_contains "merge step: a branch without a report is an error" \
	"::error::3 branches but 2 run directories" "$MERGE"
rm -rf ws/artifacts && mkdir -p ws/artifacts/run1 && touch ws/artifacts/run1/results.json
merge_step 0 6.1.y && assert_contains "merge step: one branch, extracted flat" \
	"report --merge artifacts/run1/ --output" "$MERGE"

# ---- errors ----
run_kb 0 ci-matrix --help && assert_contains "--help" "usage: kbackport ci-matrix" "$OUT"
assert_contains "--help says what a job runs" '`kbackport run --branch NAME`' "$OUT"
run_kb 0 --help && assert_contains "kbackport --help lists ci-matrix" "ci-matrix" "$OUT"
run_kb 2 ci-matrix --branch nope &&
	assert_eq "unknown branch" "error: no branch 'nope' in 'branches.yaml'" "$(head -1 <<<"$ERR")"
assert_eq "unknown branch: nothing on stdout" "" "$OUT"
run_kb 2 ci-matrix --format yaml &&
	assert_eq "bad format" "error: --format is 'json', 'github' or 'gitlab', not 'yaml'" "$(head -1 <<<"$ERR")"
run_kb 2 ci-matrix --format && assert_contains "--format without a value" "usage: kbackport ci-matrix" "$ERR"
run_kb 2 ci-matrix --no-such-option
run_kb 2 ci-matrix stray && assert_eq "stray argument" "error: unexpected argument 'stray'" "$ERR"
run_kb 2 ci-matrix --config missing.yaml && assert_contains "missing config named" "missing.yaml" "$ERR"
printf 'repo: r\nbranches:\n  - name: a\n    ref: x\n    refs: oops\n' > bad.yaml
run_kb 2 ci-matrix --config bad.yaml --format gitlab &&
	assert_contains "bad config at file:line:column" "error: bad.yaml:5:5: unknown key 'refs'" "$ERR"
assert_eq "bad config: nothing on stdout" "" "$OUT"
finish
