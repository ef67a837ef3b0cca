#include "datafiles.h"
#include "util/error.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

const struct kb_data_file kb_data_files[KB_DATA_COUNT] = {
	[KB_DATA_GUEST] = { "data/guest/guest.c", "the guest program" },
	[KB_DATA_FRAGMENT] = { "data/kernel/kbackport.config", "the common config fragment" },
	[KB_DATA_COMPAT] = { "data/kernel/compat/rules", "the build compatibility rules" },
	[KB_DATA_COMPAT_MERGE] = { "data/kernel/compat/merge_config.sh",
				   "a file the build compatibility rules add" },
	[KB_DATA_FIXES] = { "backports/", "the fixes, with their tests" },
};

/* `dir`/`rel` (its '/' at the end dropped) into `out`: is it there, of its kind? */
static int there(bool *found, struct kb_buf *out, const char *dir, const char *rel)
{
	size_t len = strlen(rel);
	bool want_dir = len && rel[len - 1] == '/';
	struct stat st;
	int err;

	kb_buf_clear(out);
	if ((err = kb_buf_printf(out, "%s/%.*s", dir, (int)(len - want_dir), rel)) < 0)
		return err;
	*found = stat(out->ptr, &st) == 0 && (want_dir ? S_ISDIR(st.st_mode) : !S_ISDIR(st.st_mode));
	return 0;
}

int kb_data_path(struct kb_buf *out, enum kb_data_id id, const char *config_dir,
		 const char *datadir)
{
	const struct kb_data_file *f = &kb_data_files[id];
	struct kb_buf beside = KB_BUF_INIT;
	bool found = false;
	int err;

	if ((err = there(&found, out, config_dir, f->path)) < 0 || found)
		return err;
	if ((err = kb_buf_puts(&beside, out->ptr)) < 0 ||
	    (err = there(&found, out, datadir, f->path)) < 0 || found)
		goto done;
	err = kb_error_set(KB_ENOTFOUND, "missing data file '%s' (%s; nor is there '%s' beside "
			   "the branches file): make install puts it there, KBACKPORT_DATADIR "
			   "says where it is", out->ptr, f->what, beside.ptr);
done:
	kb_buf_release(&beside);
	return err;
}
