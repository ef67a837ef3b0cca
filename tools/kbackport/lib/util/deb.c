/* A Debian package from the archive: apt-get download, dpkg-deb -x (see deb.h). */
#include "util/deb.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/process.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int kb_deb_download(char **deb, const char *package, const char *version, const char *arch,
		    const char *dir, const char *log, const struct kb_ticker *ticker)
{
	struct kb_buf name = KB_BUF_INIT, path = KB_BUF_INIT, spec = KB_BUF_INIT;
	struct kb_buf tmp = KB_BUF_INIT, got = KB_BUF_INIT;
	const char *colon = strchr(version, ':');
	int err;

	*deb = NULL;
	/* apt writes an epoch's colon as %3a in file names */
	kb_buf_printf(&spec, "%s=%s", package, version);
	if (colon)
		kb_buf_printf(&name, "%s_%.*s%%3a%s_%s.deb", package, (int)(colon - version),
			      version, colon + 1, arch);
	else
		kb_buf_printf(&name, "%s_%s_%s.deb", package, version, arch);
	kb_buf_printf(&path, "%s/%s", dir, name.ptr);	/* name is checked before path is used */
	if ((err = kb_buf_check(&spec)) < 0 || (err = kb_buf_check(&name)) < 0 ||
	    (err = kb_buf_check(&path)) < 0)
		goto done;
	if (!kb_path_exists(path.ptr)) {
		const char *argv[] = { "apt-get", "-q", "download", spec.ptr, NULL };

		if ((err = kb_tmp_path(&tmp, path.ptr)) < 0 ||
		    (err = kb_remove_tree(tmp.ptr)) < 0 || (err = kb_mkdir_p(tmp.ptr)) < 0 ||
		    (err = kb_buf_printf(&got, "%s/%s", tmp.ptr, name.ptr)) < 0 ||
		    (err = kb_process_run_logged_ticked(argv, tmp.ptr, log, ticker,
							"download")) < 0)
			goto done;
		if (!kb_path_exists(got.ptr)) {
			err = kb_error_set(KB_ENOTFOUND, "apt-get download left no '%s'", path.ptr);
			goto done;
		}
		if (rename(got.ptr, path.ptr) < 0) {
			err = kb_error_set(KB_ERROR, "cannot rename '%s': %s", got.ptr, strerror(errno));
			goto done;
		}
	}
	*deb = kb_buf_detach(&path);
done:
	if (tmp.ptr)
		kb_remove_tree(tmp.ptr);
	kb_buf_release(&name);
	kb_buf_release(&path);
	kb_buf_release(&spec);
	kb_buf_release(&tmp);
	kb_buf_release(&got);
	return err;
}

int kb_deb_unpack(const char *deb, const char *dest, const char *log,
		  const struct kb_ticker *ticker)
{
	struct kb_buf tmp = KB_BUF_INIT;
	int err;

	if ((err = kb_tmp_path(&tmp, dest)) < 0 || (err = kb_remove_tree(tmp.ptr)) < 0)
		goto done;
	{
		const char *argv[] = { "dpkg-deb", "-x", deb, tmp.ptr, NULL };
		if ((err = kb_process_run_logged_ticked(argv, NULL, log, ticker, "unpack")) < 0)
			goto done;
	}
	/* another kbackport may have unpacked the same package meanwhile */
	if (rename(tmp.ptr, dest) < 0 && !kb_path_exists(dest))
		err = kb_error_set(KB_ERROR, "cannot rename '%s': %s", tmp.ptr, strerror(errno));
done:
	if (tmp.ptr && kb_path_exists(tmp.ptr))
		kb_remove_tree(tmp.ptr);
	kb_buf_release(&tmp);
	return err;
}
