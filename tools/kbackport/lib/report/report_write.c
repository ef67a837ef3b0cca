/* kb_report_write(): every report file of a run directory, from its model. */
#include "report/report.h"
#include "report/report_priv.h"
#include "report/kcidb.h"
#include "util/dir.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct writer {
	const struct kb_report *r;
	char **written;
	size_t n, alloc;
	struct kb_buf data, name;
};

/* Write w->data to `rel`, remember it, and empty the buffers. */
static int emit(struct writer *w, const char *rel)
{
	int err;

	if ((err = report_write_file(w->r->dir, rel, w->data.ptr ? w->data.ptr : "", w->data.size)) == 0)
		err = report_strv_add(&w->written, &w->n, &w->alloc, rel);
	kb_buf_clear(&w->data);
	kb_buf_clear(&w->name);
	return err;
}

static int write_junit(struct writer *w)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < w->r->nbranches && !err; i++)
		for (j = 0; j < w->r->branches[i].nlanes && !err; j++) {
			const struct kb_report_lane *l = &w->r->branches[i].lanes[j];
			if ((err = kb_report_junit(&w->data, w->r, &w->r->branches[i], l)) == 0 &&
			    (err = kb_buf_printf(&w->name, "%s/junit.xml", l->dir)) == 0)
				err = emit(w, w->name.ptr);
		}
	return err;
}

static int write_kcidb(struct writer *w, const struct kb_report_opts *opts)
{
	json_t *doc = NULL;
	char *text = NULL;
	int err;

	if ((err = kb_kcidb_report(&doc, w->r, opts ? opts->base_url : NULL)) < 0)
		return err;
	if (!(text = json_dumps(doc, JSON_INDENT(2))) || kb_buf_puts(&w->data, text) < 0 ||
	    kb_buf_putc(&w->data, '\n') < 0)
		err = kb_error_oom();
	else
		err = emit(w, "kcidb.json");
	free(text);
	json_decref(doc);
	return err;
}

static int write_mails(struct writer *w)
{
	size_t i;
	int err = 0;

	for (i = 0; i < w->r->nbranches && !err; i++) {
		const struct kb_report_branch *b = &w->r->branches[i];
		if (!kb_report_needs_hand(&b->apply))
			continue;
		if ((err = kb_report_failed_mail(&w->data, w->r, b)) == 0 &&
		    (err = kb_report_failed_name(&w->name, b)) == 0)
			err = emit(w, w->name.ptr);
	}
	return err;
}

/* FAILED-*.txt of an earlier report whose branch no longer conflicts. */
static void remove_stale_mails(struct writer *w)
{
	struct kb_buf path = KB_BUF_INIT;
	struct kb_dir ents = KB_DIR_INIT;
	const char *name;
	size_t i;

	/* best effort: what cannot be read or removed stays */
	(void)kb_dir_read(&ents, w->r->dir, KB_DIR_UNREADABLE_OK);
	for (i = 0; i < ents.n; i++) {
		name = ents.names[i];
		if (strncmp(name, "FAILED-", 7) || strcmp(name + strlen(name) - 4, ".txt") ||
		    report_has_file(w->written, w->n, name))
			continue;
		kb_buf_clear(&path);
		if (kb_buf_printf(&path, "%s/%s", w->r->dir, name) == 0)
			unlink(path.ptr);
	}
	kb_dir_release(&ents);
	kb_buf_release(&path);
}

int kb_report_write(const struct kb_report *r, const struct kb_report_opts *opts, char ***written)
{
	struct writer w = { r, NULL, 0, 0, KB_BUF_INIT, KB_BUF_INIT };
	int err;

	if (written)
		*written = NULL;
	if ((err = write_junit(&w)) == 0 && (err = kb_report_markdown(&w.data, r)) == 0 &&
	    (err = emit(&w, "summary.md")) == 0 && (err = kb_report_html(&w.data, r)) == 0 &&
	    (err = emit(&w, "summary.html")) == 0 && (err = write_kcidb(&w, opts)) == 0 &&
	    (err = write_mails(&w)) == 0)
		remove_stale_mails(&w);
	kb_buf_release(&w.data);
	kb_buf_release(&w.name);
	if (err < 0 || !written)
		report_strv_free(w.written);
	else
		*written = w.written;
	return err;
}
