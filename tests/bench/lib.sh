# Shared by the tests/bench scripts (sourced). Each bench prints progress on
# stderr and its result, a Markdown section, on stdout; tests/bench/bench.sh
# gathers the sections into BENCHMARKS.md.

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }

# The median of the numbers on stdin, one per line.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) print "nan"
		else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The numbers given, comma-separated, 3 significant digits: "312, 11.9, 0.102".
list() {
	local out= x
	for x in "$@"; do out+="${out:+, }$(printf '%.3g' "$x")"; done
	echo "$out"
}

# bench_clone REPO DIR: a bare clone of REPO sharing its objects, without
# the backport refs kbackport made there, so the bench never touches REPO.
bench_clone() {
	git clone -q --bare --shared "$1" "$2"
	drop_backport_refs "$2"
}

drop_backport_refs() {
	git -C "$1" for-each-ref --format='delete %(refname)' refs/heads/backport refs/heads/pick |
		git -C "$1" update-ref --stdin
}

# need_import REPO NAME: skip the bench (a note on stdout, exit 0) unless
# REPO has the imported stable/6.1.y and stable/6.12.y branches.
need_import() {
	local ref
	for ref in stable/6.1.y stable/6.12.y; do
		git -C "$1" rev-parse -q --verify "$ref^{commit}" >/dev/null 2>&1 && continue
		printf '## %s\n\nSkipped: no %s in %s. `make demo` (or `kbackport import`) imports it.\n\n' \
			"$2" "$ref" "$1"
		exit 0
	done
}

# bench_work NAME: $work, a scratch directory removed on exit, with HOME,
# locale, zone and git's identities pinned (the history benches' commits)
bench_work() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-bench-$1.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	export HOME=$work/home LANG=C LC_ALL=C TZ=UTC GIT_CONFIG_NOSYSTEM=1
	export GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.org
	export GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.org
	mkdir -p "$HOME"
}

# row LABEL SECONDS...: a Markdown table row, the median and every run
row() { printf '| %s | %s s | %s |\n' "$1" "$(printf '%s\n' "${@:2}" | median | xargs printf '%.3g')" "$(list "${@:2}")"; }
