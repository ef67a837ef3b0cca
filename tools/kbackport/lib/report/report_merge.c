/*
 * kb_report_merge(): run directories of one fix (CI jobs, one branch each,
 * on different machines) into one. The rule for a branch found in more than
 * one run, and the new run's id, are in report.h.
 */
#include "report/report.h"
#include "report/report_priv.h"
#include "report/results_json.h"
#include "report/kcidb.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A branch kept: which run it comes from. */
struct pick {
	size_t run;
	size_t branch;
};

struct merge {
	const struct kb_report_merge_opts *o;
	struct kb_report **in;
	struct pick *picks;
	size_t npicks;
	char **notes;
	size_t nnotes, anotes;
	char id[64];
	struct kb_buf out;
};

/* ---- files ---- */

static int copy_file(const char *from, const char *to)
{
	char chunk[65536];
	int in, out, err = 0;
	ssize_t n;

	if ((in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ELOOP ? report_link_error(from) :
			kb_error_set(KB_ERROR, "cannot read '%s': %s", from, strerror(errno));
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		close(in);
		return kb_error_set(KB_ERROR, "cannot write '%s': %s", to, strerror(errno));
	}
	while (!err && (n = read(in, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = kb_error_set(KB_ERROR, "cannot read '%s': %s", from, strerror(errno));
		else if (write(out, chunk, (size_t)n) != n)
			err = kb_error_set(KB_ERROR, "cannot write '%s': %s", to, strerror(errno));
	}
	close(in);
	if (close(out) < 0 && !err)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", to, strerror(errno));
	return err;
}

/*
 * Regular files and directories under `from` to `to`; other files are
 * left, a symbolic link is an error. With `to` NULL, only the check.
 */
static int copy_tree(const char *from, const char *to)
{
	struct kb_buf src = KB_BUF_INIT, dst = KB_BUF_INIT;
	struct kb_dir ents = KB_DIR_INIT;
	struct stat st;
	size_t i;
	int err;

	/* a missing `from`: nothing to copy, and no `to` made */
	if ((err = kb_dir_read(&ents, from, 0)) == KB_ENOTFOUND) {
		kb_error_clear();
		err = 0;
	} else if (!err && to) {
		err = kb_mkdir_p(to);
	}
	for (i = 0; !err && i < ents.n; i++) {
		kb_buf_clear(&src);
		kb_buf_clear(&dst);
		if ((err = kb_buf_printf(&src, "%s/%s", from, ents.names[i])) < 0 ||
		    (to && (err = kb_buf_printf(&dst, "%s/%s", to, ents.names[i])) < 0) ||
		    lstat(src.ptr, &st) < 0)
			break;
		if (S_ISLNK(st.st_mode))
			err = report_link_error(src.ptr);
		else if (S_ISDIR(st.st_mode))
			err = copy_tree(src.ptr, to ? dst.ptr : NULL);
		else if (S_ISREG(st.st_mode) && to)
			err = copy_file(src.ptr, dst.ptr);
	}
	kb_dir_release(&ents);
	kb_buf_release(&src);
	kb_buf_release(&dst);
	return err;
}

/* Copy a branch's lanes and files into the new run; with `m` NULL, only
 * check that its lanes hold no link (before anything is written). */
static int copy_branch(const struct merge *m, const struct kb_report *from,
		       const struct kb_report_branch *b)
{
	struct kb_buf src = KB_BUF_INIT, dst = KB_BUF_INIT;
	size_t i;
	int err = 0;

	for (i = 0; i < b->nlanes && !err; i++) {
		kb_buf_clear(&src);
		kb_buf_clear(&dst);
		if ((err = kb_buf_printf(&src, "%s/%s", from->dir, b->lanes[i].dir)) == 0 &&
		    (!m || (err = kb_buf_printf(&dst, "%s/%s", m->out.ptr, b->lanes[i].dir)) == 0))
			err = copy_tree(src.ptr, m ? dst.ptr : NULL);
	}
	for (i = 0; m && i < b->nfiles && !err; i++) {
		kb_buf_clear(&src);
		kb_buf_clear(&dst);
		if ((err = kb_buf_printf(&src, "%s/%s/%s", from->dir, b->name, b->files[i])) == 0 &&
		    (err = kb_buf_printf(&dst, "%s/%s", m->out.ptr, b->name)) == 0 &&
		    (err = kb_mkdir_p(dst.ptr)) == 0 &&
		    (err = kb_buf_printf(&dst, "/%s", b->files[i])) == 0)
			err = copy_file(src.ptr, dst.ptr);
	}
	kb_buf_release(&src);
	kb_buf_release(&dst);
	return err;
}

/* ---- which branch from which run ---- */

/* When a run ended: "finished", else "started"; NULL if neither. */
static const char *run_time(const struct kb_report *r)
{
	return r->finished ? r->finished : r->started;
}

static json_t *branch_json(const struct merge *m, const struct pick *p)
{
	return json_array_get(json_object_get(m->in[p->run]->doc, "branches"), p->branch);
}

static int note(struct merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(struct merge *m, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return report_strv_add(&m->notes, &m->nnotes, &m->anotes, text);
}

/* Branch `b` of run `run` met the same branch, picked earlier, in `p`. */
static int choose(struct merge *m, struct pick *p, size_t run, size_t b)
{
	const struct kb_report *old = m->in[p->run], *new = m->in[run];
	const char *name = new->branches[b].name;
	const char *t_old = run_time(old), *t_new = run_time(new);
	struct pick cand = { run, b };
	int cmp;

	if (json_equal(branch_json(m, p), branch_json(m, &cand)))
		return 0;
	if (!t_old || !t_new || !(cmp = strcmp(t_new, t_old)))
		return kb_error_set(KB_EINVALID, "branch '%s' is in '%s' and '%s' with different "
				    "results, and which run is newer is not known (finished %s and %s)",
				    name, old->dir, new->dir, t_old ? t_old : "unknown",
				    t_new ? t_new : "unknown");
	if (cmp < 0)
		return note(m, "branch '%s': kept the run %s (finished %s), not %s (finished %s)",
			    name, old->run, t_old, new->run, t_new);
	*p = cand;
	return note(m, "branch '%s': kept the run %s (finished %s), not %s (finished %s)", name,
		    new->run, t_new, old->run, t_old);
}

static int pick_branches(struct merge *m)
{
	size_t run, b, i, total = 0;
	int err = 0;

	for (run = 0; run < m->o->ndirs; run++)
		total += m->in[run]->nbranches;
	m->picks = calloc(total + 1, sizeof(*m->picks));
	KB_ERROR_CHECK_ALLOC(m->picks);
	for (run = 0; run < m->o->ndirs && !err; run++)
		for (b = 0; b < m->in[run]->nbranches && !err; b++) {
			const char *name = m->in[run]->branches[b].name;
			for (i = 0; i < m->npicks; i++)
				if (!strcmp(m->in[m->picks[i].run]->branches[m->picks[i].branch].name, name))
					break;
			if (i < m->npicks)
				err = choose(m, &m->picks[i], run, b);
			else
				m->picks[m->npicks++] = (struct pick){ run, b };
		}
	return err;
}

/* No link in what will be copied, checked before anything is written. */
static int check_links(const struct merge *m)
{
	size_t i;
	int err = 0;

	for (i = 0; i < m->npicks && !err; i++)
		err = copy_branch(NULL, m->in[m->picks[i].run],
				  &m->in[m->picks[i].run]->branches[m->picks[i].branch]);
	return err;
}

static int check_same_fix(const struct merge *m)
{
	const struct kb_report *a = m->in[0], *b;
	size_t i;

	for (i = 1; i < m->o->ndirs; i++) {
		b = m->in[i];
		if (strcmp(a->fix, b->fix))
			return kb_error_set(KB_EINVALID, "'%s' is a run of %s and '%s' of %s: only runs "
					    "of one fix merge", a->dir, a->fix, b->dir, b->fix);
		if (a->upstream && b->upstream && strcmp(a->upstream, b->upstream))
			return kb_error_set(KB_EINVALID, "'%s' and '%s' name different upstream commits "
					    "for %s (%s, %s)", a->dir, b->dir, a->fix, a->upstream,
					    b->upstream);
	}
	return 0;
}

/* ---- the new run ---- */

/* The last end of the runs (end), or their first start. */
static const char *bound(const struct merge *m, bool end)
{
	const char *best = NULL, *t;
	size_t i;

	for (i = 0; i < m->o->ndirs; i++) {
		t = end ? run_time(m->in[i]) : m->in[i]->started;
		if (t && (!best || (end ? strcmp(t, best) > 0 : strcmp(t, best) < 0)))
			best = t;
	}
	return best;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "<20261203T075210Z>-m<4 hex>", see report.h. */
static int make_id(struct merge *m)
{
	const char **runs = calloc(m->o->ndirs + 1, sizeof(*runs));
	const char *t = bound(m, true), *p;
	char stamp[32], hash[65];
	size_t i, n = 0;
	time_t now;

	KB_ERROR_CHECK_ALLOC(runs);
	for (i = 0; i < m->o->ndirs; i++)
		runs[i] = m->in[i]->run;
	qsort(runs, m->o->ndirs, sizeof(*runs), cmp_str);
	kb_kcidb_patchset_hash(hash, runs, m->o->ndirs);
	free(runs);
	for (p = t; p && *p && *p != '.' && *p != 'Z' && *p != '+' && n < 15; p++)
		if (*p != '-' && *p != ':')
			stamp[n++] = *p;
	stamp[n] = '\0';
	if (n != 15) {
		now = time(NULL);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", gmtime(&now));
	}
	snprintf(m->id, sizeof(m->id), "%sZ-m%.4s", stamp, hash);
	return 0;
}

static json_t *hosts(const struct merge *m)
{
	struct kb_buf all = KB_BUF_INIT;
	json_t *v;
	size_t i, j;

	for (i = 0; i < m->o->ndirs; i++) {
		const char *h = m->in[i]->host;
		for (j = 0; h && j < i; j++)
			if (m->in[j]->host && !strcmp(m->in[j]->host, h))
				break;
		if (h && j == i)
			kb_buf_printf(&all, "%s%s", all.size ? ", " : "", h);
	}
	v = all.size ? json_string(all.ptr) : json_null();
	kb_buf_release(&all);
	return v;
}

static json_t *first_str(const struct merge *m, const char *key)
{
	json_t *v;
	size_t i;

	for (i = 0; i < m->o->ndirs; i++)
		if (json_is_string(v = json_object_get(m->in[i]->doc, key)))
			return json_incref(v);
	return json_null();
}

static json_t *opt_str(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *sources(const struct merge *m)
{
	json_t *list = json_array(), *names;
	size_t i, j;

	for (i = 0; i < m->o->ndirs; i++) {
		names = json_array();
		for (j = 0; j < m->npicks; j++)
			if (m->picks[j].run == i)
				json_array_append_new(names, json_string(
					m->in[i]->branches[m->picks[j].branch].name));
		json_array_append_new(list, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}",
						      "run", m->in[i]->run, "dir", m->in[i]->dir,
						      "host", opt_str(m->in[i]->host),
						      "started", opt_str(m->in[i]->started),
						      "finished", opt_str(m->in[i]->finished),
						      "branches", names));
	}
	return list;
}

static json_t *merged_doc(const struct merge *m)
{
	json_t *doc, *branches = json_array(), *notes = json_array();
	size_t i;

	for (i = 0; i < m->npicks; i++)
		json_array_append_new(branches, json_deep_copy(branch_json(m, &m->picks[i])));
	for (i = 0; i < m->nnotes; i++)
		json_array_append_new(notes, json_string(m->notes[i]));
	doc = json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o}}",
			"schema", KB_REPORT_SCHEMA, "run", m->id, "fix", m->in[0]->fix,
			"upstream", first_str(m, "upstream"), "subject", first_str(m, "subject"),
			"author", first_str(m, "author"), "started", opt_str(bound(m, false)),
			"finished", opt_str(bound(m, true)), "host", hosts(m), "branches", branches,
			"merged", "from", sources(m), "notes", notes);
	/* runs of one queue: its fixes, from the first run */
	if (doc && json_object_get(m->in[0]->doc, "queue"))
		json_object_set(doc, "queue", json_object_get(m->in[0]->doc, "queue"));
	return doc;
}

/* The output must not hold anything yet. */
static int check_output(const char *dir)
{
	struct kb_dir ents = KB_DIR_INIT;
	int err = kb_dir_read(&ents, dir, KB_DIR_MISSING_OK);

	if (!err && ents.n)
		err = kb_error_set(KB_EEXISTS, "'%s' already exists and is not empty", dir);
	kb_dir_release(&ents);
	return err;
}

static int write_merged(struct merge *m)
{
	json_t *doc = merged_doc(m);
	size_t i;
	int err = doc ? 0 : kb_error_oom();

	for (i = 0; i < m->npicks && !err; i++)
		err = copy_branch(m, m->in[m->picks[i].run],
				  &m->in[m->picks[i].run]->branches[m->picks[i].branch]);
	if (!err)
		err = kb_results_save(m->out.ptr, doc);
	json_decref(doc);
	return err;
}

static int load_all(struct merge *m)
{
	size_t i;
	int err = 0;

	if (!m->o->ndirs)
		return kb_error_set(KB_EINVALID, "no run directory to merge");
	m->in = calloc(m->o->ndirs, sizeof(*m->in));
	KB_ERROR_CHECK_ALLOC(m->in);
	for (i = 0; i < m->o->ndirs && !err; i++)
		err = kb_report_load(&m->in[i], m->o->dirs[i]);
	return err;
}

int kb_report_merge(struct kb_report **out, char ***notes, const struct kb_report_merge_opts *o)
{
	struct merge m = { o, NULL, NULL, 0, NULL, 0, 0, "", KB_BUF_INIT };
	size_t i;
	int err;

	*out = NULL;
	if (notes)
		*notes = NULL;
	if ((err = load_all(&m)) < 0 || (err = check_same_fix(&m)) < 0 ||
	    (err = pick_branches(&m)) < 0 || (err = check_links(&m)) < 0 ||
	    (err = make_id(&m)) < 0)
		goto done;
	if ((err = o->output ? kb_buf_puts(&m.out, o->output) :
		   kb_buf_printf(&m.out, "%s/%s", o->reports ? o->reports : "reports", m.id)) < 0 ||
	    (err = check_output(m.out.ptr)) < 0 || (err = kb_mkdir_p(m.out.ptr)) < 0 ||
	    (err = write_merged(&m)) < 0)
		goto done;
	err = kb_report_load(out, m.out.ptr);
done:
	for (i = 0; m.in && i < o->ndirs; i++)
		kb_report_free(m.in[i]);
	free(m.in);
	free(m.picks);
	kb_buf_release(&m.out);
	if (err == 0 && notes)
		*notes = m.notes;
	else
		report_strv_free(m.notes);
	return err;
}
