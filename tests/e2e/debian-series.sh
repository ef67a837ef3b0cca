#!/usr/bin/env bash
# tests/e2e/debian-series.sh CACHE [PACKAGE]: Debian's own kernel patch
# series, the debian tarball of the source package that built PACKAGE
# (default linux-source-6.1, the one t_kernels.sh imports), fetched once
# into CACHE with `apt-get source --download-only --diff-only`.
#
# The system's apt configuration is only read, never changed: a private
# sources list (deb-src lines for the archives the system gets PACKAGE
# from, with their keys), lists and cache live in a temporary directory.
# The version that built the installed PACKAGE comes first; when the archive
# no longer (or not yet) serves its sources, the newest older version of
# the same source package it does serve is taken instead, and said.
#
# Prints "VERSION TARBALL" on stdout; exit 3 with the reason on stderr when
# no tarball can be had (no network, no such package), 2 for usage errors.
set -u
cache=${1:?usage: debian-series.sh CACHE [PACKAGE]}
pkg=${2:-linux-source-6.1}
mkdir -p "$cache" || exit 2
cache=$(cd "$cache" && pwd)
no() { echo "debian-series: $*" >&2; exit 3; }

src=$(dpkg-query -W -f='${source:Package}' "$pkg" 2>/dev/null) || no "$pkg is not installed"
want=$(dpkg-query -W -f='${source:Version}' "$pkg")
tarball() { ls "$cache/${src}_$1".debian.tar.* 2>/dev/null | head -1; }
chosen=$cache/$src-for-$want	# the version fetched last time for $want
if [ -s "$chosen" ] && [ -n "$(tarball "$(cat "$chosen")")" ]; then
	echo "$(cat "$chosen") $(tarball "$(cat "$chosen")")"
	exit 0
fi

apt=$(mktemp -d "${TMPDIR:-/tmp}/kbackport-apt.XXXXXX") || exit 2
trap 'rm -rf "$apt"' EXIT
mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/dl"
chmod -R a+rwX "$apt"	# apt fetches as its _apt user
opts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts="$apt/parts"
      -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
      -o Acquire::Retries=0 -o Acquire::http::Timeout=20)

# The archives that serve PACKAGE, as the system's own lists say...
uris=$(apt-cache madison "$pkg" 2>/dev/null | awk -F'|' '{ split($3, f, " "); print f[1] }' | sort -u)
[ -n "$uris" ] || no "apt knows no archive that serves $pkg"
# ...and the system's entries for them, as deb-src (one-line and deb822 files).
: > "$apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
	[ -f "$f" ] || continue
	for u in $uris; do
		awk -v u="$u" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i == u || $i == u "/") {
			sub(/^deb/, "deb-src"); print; next } }' "$f" >> "$apt/sources.list"
	done
done
n=0
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	awk -v uris="$uris" 'BEGIN { RS = ""; split(uris, want, "\n") }
		{ keep = 0; n = split($0, line, "\n")
		  for (i = 1; i <= n; i++) if (line[i] ~ /^URIs:/) for (w in want) {
			k = split(line[i], word, /[ \t]+/)
			for (j = 2; j <= k; j++) if (word[j] == want[w] || word[j] == want[w] "/") keep = 1 }
		  if (!keep || $0 !~ /(^|\n)Types:.*deb/) next
		  for (i = 1; i <= n; i++) { if (line[i] ~ /^Types:/) line[i] = "Types: deb-src"; print line[i] }
		  print "" }' "$f" > "$apt/parts/$((n++)).sources"
done
grep -q . "$apt/sources.list" "$apt"/parts/*.sources 2>/dev/null || no "no apt entry for $uris"

apt-get "${opts[@]}" update > "$apt/update.log" 2>&1
apt-cache "${opts[@]}" showsrc "$src" 2>/dev/null | grep -q '^Package:' ||
	no "no source index for '$src' from $uris (apt-get update: $(grep -m1 -E '^(E|W|Err):' "$apt/update.log"))"

# The version that built PACKAGE first, then the older ones, newest first.
versions=$(echo "$want"; apt-cache "${opts[@]}" showsrc "$src" | sed -n 's/^Version: //p' | sort -u |
	while read -r v; do dpkg --compare-versions "$v" lt "$want" && echo "$v"; done | sort -r -V | head -7)
for v in $versions; do
	if (cd "$apt/dl" && apt-get "${opts[@]}" source --download-only --diff-only "$src=$v") \
		> "$apt/source.log" 2>&1 && f=$(ls "$apt/dl/${src}_$v".debian.tar.* 2>/dev/null | head -1) &&
		[ -n "$f" ]; then
		mv "$f" "$cache/" && echo "$v" > "$chosen" || exit 2
		[ "$v" = "$want" ] ||
			echo "debian-series: $src $want's sources are not served ($(grep -m1 '^E:' "$apt/first.log" | sed 's/^E: //; s/ \[IP:.*//')); took $v, the newest older one served" >&2
		echo "$v $cache/$(basename "$f")"
		exit 0
	fi
	[ -e "$apt/first.log" ] || cp "$apt/source.log" "$apt/first.log"
done
no "no debian tarball of $src $want (or an older one) could be fetched: $(grep -m1 -E '^(E|Err)' "$apt/first.log" 2>/dev/null)"
