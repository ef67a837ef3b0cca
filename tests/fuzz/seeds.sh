#!/bin/sh
# tests/fuzz/seeds.sh NAME: the seed inputs of fuzz target NAME, one path a
# line, sorted: the project's own files of that kind (KTAP fixtures, the
# fixes' patches, the branches.yaml files, backports/*/tests/cases.yaml), read where they
# are, and tests/fuzz/corpus/NAME/ for inputs no other file holds. Run from
# the top of the tree (as `make fuzz` and `make fuzz-replay` do).
set -eu
name=${1:?usage: tests/fuzz/seeds.sh NAME}
[ -f "tests/fuzz/fuzz_$name.c" ] || { echo "error: no fuzz target '$name'" >&2; exit 2; }
{
	[ ! -d "tests/fuzz/corpus/$name" ] || find "tests/fuzz/corpus/$name" -type f
	case $name in
	ktap)	ls tests/fixtures/ktap/*.log ;;
	patch)	ls backports/*/upstream.patch backports/*/variants/*.patch ;;
	yaml)	ls branches.yaml backports/*/tests/cases.yaml tests/fixtures/*/branches.yaml ;;
	esac
} | sort
