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
