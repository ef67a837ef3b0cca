#!/bin/sh
# Install the Debian packages named on the command line that are missing.
# Used by `make deps` (and so by `make check` / `make demo`) and by .ci/run.
set -eu
# what the installed packages provide (nodesource's nodejs provides npm)
provided=$(dpkg-query -W -f='${Status}|${Provides}\n' 2>/dev/null |
	sed -n 's/^[^|]* ok installed|//p' | tr ',' '\n' | sed 's/^ *//; s/ .*//' | sort -u)
missing=
for pkg in "$@"; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
		printf '%s\n' "$provided" | grep -qxF "$pkg" ||
		missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
else
	SUDO=
fi
$SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $missing
