#include "boot/guest.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/process.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How the guest program is compiled: part of its key. */
#define GUEST_CFLAGS "-static -O2 -Wall -Wextra"

static int guest_key(char **out, const char *source)
{
	const char *version[] = { "cc", "--version", NULL };
	struct kb_buf key = KB_BUF_INIT;
	char *text = NULL, *cc = NULL;
	int err;

	*out = NULL;
	if ((err = kb_read_file(&text, NULL, source)) < 0) {
		err = kb_error_set(KB_ENOTFOUND, "cannot read the guest program '%s'", source);
		goto done;
	}
	if ((err = kb_process_capture(&cc, version)) != 0) {
		err = err < 0 ? err : kb_error_set(KB_ERROR, "'cc --version' failed (exit %d)", err);
		goto done;
	}
	if ((err = kb_buf_printf(&key, "%s\n%s\n%s\n", text, cc, GUEST_CFLAGS)) < 0)
		goto done;
	err = kb_digest(out, key.ptr, key.size, "the guest program's key");
done:
	free(text);
	free(cc);
	kb_buf_release(&key);
	return err;
}

static int compile(const char *binary, const char *source, const char *dir)
{
	struct kb_buf tmp = KB_BUF_INIT, log = KB_BUF_INIT;
	int err;

	if ((err = kb_tmp_path(&tmp, binary)) < 0 ||
	    (err = kb_buf_printf(&log, "%s/cc.log", dir)) < 0)
		goto done;
	unlink(log.ptr);
	{
		const char *cc[] = { "cc", "-static", "-O2", "-Wall", "-Wextra", /* GUEST_CFLAGS */
				     "-o", tmp.ptr, source, NULL };

		if ((err = kb_process_run_logged(cc, NULL, log.ptr)) < 0)
			err = kb_error_prefix(err, "cannot compile '%s'", source);
		else if (rename(tmp.ptr, binary) < 0)
			err = kb_error_set(KB_ERROR, "cannot rename '%s': %s", tmp.ptr,
					   strerror(errno));
	}
	if (err < 0)
		unlink(tmp.ptr);
done:
	kb_buf_release(&tmp);
	kb_buf_release(&log);
	return err;
}

int kb_guest_program(char **out_path, const char *source, const char *workdir)
{
	struct kb_buf dir = KB_BUF_INIT, binary = KB_BUF_INIT;
	char *key = NULL;
	int err;

	*out_path = NULL;
	if ((err = guest_key(&key, source)) < 0 ||
	    (err = kb_buf_printf(&dir, "%s/guest/%s", workdir, key)) < 0 ||
	    (err = kb_buf_printf(&binary, "%s/kbackport-guest", dir.ptr)) < 0)
		goto done;
	if (!kb_path_exists(binary.ptr) &&
	    ((err = kb_mkdir_p(dir.ptr)) < 0 || (err = compile(binary.ptr, source, dir.ptr)) < 0))
		goto done;
	*out_path = kb_buf_detach(&binary);
done:
	free(key);
	kb_buf_release(&dir);
	kb_buf_release(&binary);
	return err;
}
