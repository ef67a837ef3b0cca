/*
 * Debian's own kernel, a known fixed one to boot the guest program with.
 *
 *   <downloads>/<package>_<version>_<arch>.deb       Debian's kernel package
 *   <downloads>/<package>_<version>/                 unpacked, with depmod's
 *                                                    output added
 */
#ifndef KB_DISTRO_H
#define KB_DISTRO_H

#include "util/progress.h"

struct kb_distro_kernel {
	char *package;		/* "linux-image-6.1.0-57-amd64" */
	char *version;		/* its Debian version: "6.1.192-3" */
	char *release;		/* `uname -r` of the kernel: "6.1.0-57-amd64" */
	char *image;		/* .../boot/vmlinuz-<release> in the unpacked tree */
	char *modules_root;	/* holds lib/modules/<release>/, depmod run */
};

/*
 * Debian's kernel `package` ("linux-image-amd64": a metapackage is
 * followed to the linux-image-<release> it depends on, at the version
 * apt-cache shows) fetched with `apt-get download` into `downloads`,
 * unpacked with dpkg-deb -x and indexed with `depmod -b` (the package
 * ships no modules.dep). A .deb or an unpacked tree already there is
 * reused; a newer version in apt's lists is fetched next to it.
 * `apt-cache show` output is kept as <downloads>/<package>.apt-show, other
 * programs' output goes to <downloads>/apt.log; on failure the message
 * carries its tail. While apt-get download or dpkg-deb runs, `ticker`
 * (may be NULL) ticks with the step "download" or "unpack".
 */
int kb_distro_kernel_fetch(struct kb_distro_kernel *out, const char *package,
			   const char *downloads, const struct kb_ticker *ticker);
void kb_distro_kernel_release(struct kb_distro_kernel *kernel);

#endif
