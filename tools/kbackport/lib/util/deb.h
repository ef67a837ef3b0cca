/*
 * A Debian package from the archive: apt-get download, dpkg-deb -x. Both
 * write into a temporary directory first and rename it into place, so a
 * download or an unpacking cut short is never taken for a whole one.
 */
#ifndef KB_DEB_H
#define KB_DEB_H

#include "util/progress.h"

/*
 * DIR/<package>_<version>_<arch>.deb (an epoch's colon written %3a, as apt
 * names it), downloaded by `apt-get download PACKAGE=VERSION` unless it is
 * there already; its path in *deb (malloc'ed). apt's output is appended to
 * `log`; `ticker` (may be NULL) ticks "download" while it runs.
 */
int kb_deb_download(char **deb, const char *package, const char *version, const char *arch,
		    const char *dir, const char *log, const struct kb_ticker *ticker);

/*
 * `deb` unpacked (dpkg-deb -x) into `dest`, which must not exist: into a
 * temporary directory beside it, then renamed. `ticker` ticks "unpack".
 */
int kb_deb_unpack(const char *deb, const char *dest, const char *log,
		  const struct kb_ticker *ticker);

#endif
