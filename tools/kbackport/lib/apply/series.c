#include "apply/series.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"
#include "fix.h"
#include "apply/fixnew.h"

#include <ctype.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "queue-6.1.series" -> "queue-6.1" */
static char *series_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(base, '.');

	return kb_strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

/* The entry of one line, comment and blanks stripped, or "" (malloc'ed). */
static char *entry_of(const char *line, size_t len)
{
	const char *end = line + len, *hash;

	for (hash = line; hash < end; hash++)
		if (*hash == '#' && (hash == line || isspace((unsigned char)hash[-1])))
			break;
	end = hash;
	while (line < end && isspace((unsigned char)*line))
		line++;
	while (end > line && isspace((unsigned char)end[-1]))
		end--;
	return kb_strndup(line, (size_t)(end - line));
}

int kb_fix_load_patch(struct kb_fix **out, const char *path)
{
	struct kb_fix_draft_opts opts = { NULL, NULL, NULL };
	struct kb_fix_draft *draft = NULL;
	char *buf = NULL;
	size_t len = 0;
	int err;

	if ((err = kb_read_file(&buf, &len, path)) == 0 &&
	    (err = kb_fix_draft_new(&draft, buf, len, path, &opts)) == 0)
		err = kb_fix_draft_to_fix(out, draft, path);
	kb_fix_draft_free(draft);
	free(buf);
	return err;
}

/* `alloc`: how many s->fixes holds, kept by the caller through its loop. */
static int add_entry(struct kb_series *s, size_t *alloc, const char *dir, const char *entry,
		     const char *origin, size_t lineno)
{
	struct kb_buf path = KB_BUF_INIT;
	struct kb_fix *fix = NULL;
	struct stat st;
	size_t i;
	int err;

	if (entry[0] == '/')
		err = kb_buf_puts(&path, entry);
	else
		err = kb_buf_printf(&path, "%s/%s", dir, entry);
	if (err < 0)
		goto done;
	if (stat(path.ptr, &st) < 0) {
		err = kb_error_set(KB_EINVALID, "%s:%zu: no fix directory or patch '%s'",
				   origin, lineno, entry);
		goto done;
	}
	err = S_ISDIR(st.st_mode) ? kb_fix_load(&fix, path.ptr) : kb_fix_load_patch(&fix, path.ptr);
	if (err < 0) {
		kb_error_prefix(err, "%s:%zu", origin, lineno);
		goto done;
	}
	for (i = 0; i < s->nfixes; i++)
		if (!strcmp(s->fixes[i]->id, fix->id)) {
			err = kb_error_set(KB_EINVALID, "%s:%zu: fix '%s' is in the queue twice",
					   origin, lineno, fix->id);
			goto done;
		}
	if ((err = KB_ARRAY_GROW(s->fixes, *alloc, s->nfixes + 1)) < 0)
		goto done;
	s->fixes[s->nfixes++] = fix;
	fix = NULL;
done:
	kb_fix_free(fix);
	kb_buf_release(&path);
	return err;
}

int kb_series_load(struct kb_series *out, const char *path)
{
	char *buf = NULL, *copy = NULL, *entry = NULL;
	const char *p, *nl, *dir;
	size_t len = 0, lineno = 0, alloc = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = kb_read_file(&buf, &len, path)) < 0)
		return err;
	if (!(out->name = series_name(path)) || !(copy = kb_strdup(path))) {
		err = kb_error_oom();
		goto done;
	}
	dir = dirname(copy);
	for (p = buf; p < buf + len && !err; p = nl ? nl + 1 : buf + len) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		lineno++;
		free(entry);
		if (!(entry = entry_of(p, (size_t)((nl ? nl : buf + len) - p))))
			err = kb_error_oom();
		else if (*entry)
			err = add_entry(out, &alloc, dir, entry, path, lineno);
	}
	if (!err && !out->nfixes)
		err = kb_error_set(KB_EINVALID, "%s: the series names no fix", path);
done:
	if (err < 0)
		kb_series_release(out);
	free(entry);
	free(copy);
	free(buf);
	return err;
}

void kb_series_release(struct kb_series *s)
{
	free(s->name);
	kb_fix_free_all(s->fixes, s->nfixes);
	memset(s, 0, sizeof(*s));
}
