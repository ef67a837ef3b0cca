# Shared by the e2e tests (sourced): tests/lib.sh, and the imported
# repository and work directory they share, in order, under build/e2e (or
# $KB_E2E_DIR): t_kernels.sh imports, t_kernels_build.sh builds, the others
# use what those left.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
E2E=${KB_E2E_DIR:-$TOP_DIR/build/e2e}
REPO=$E2E/linux
WORK=$E2E/work

# e2e_need REF MESSAGE: unless REPO has REF, fail with MESSAGE and end here.
e2e_need() {
	git -C "$REPO" rev-parse -q --verify "$1" >/dev/null 2>&1 && return 0
	fail "$2"
	finish
	exit 1
}

# Kernel builds use the machine's ccache, as a developer's builds do: the
# tests pin HOME, which would give every suite an empty cache of its own.
# The cache is content-addressed, so it changes no result (a fresh machine
# only pays the cold compiles; `CCACHE_DISABLE=1 make e2e` measures that);
# paths under build/e2e are made relative so that another clone hits too.
if [ -z "${CCACHE_DIR:-}" ] && command -v ccache >/dev/null 2>&1; then
	CCACHE_DIR=$(ccache -k cache_dir 2>/dev/null) && export CCACHE_DIR
fi
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$E2E}
