#include "apply/detect.h"
#include "util/buf.h"
#include "util/error.h"
#include "apply/locate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read `path`; a missing file is not an error here: *buf is NULL. */
static int read_optional(const char **buf, size_t *len, struct kb_source *src,
			 const char *path)
{
	int err = kb_source_read(buf, len, src, path);

	if (err == KB_ENOTFOUND) {
		*buf = NULL;
		*len = 0;
		return 0;
	}
	return err;
}

int kb_cond_eval(bool *holds, struct kb_source *src, const struct kb_cond *cond)
{
	const char *buf;
	size_t len;
	bool found;
	int err;

	if ((err = read_optional(&buf, &len, src, cond->path)) < 0)
		return err;
	found = buf && cond->text &&
		kb_text_contains(buf, len, cond->text, strlen(cond->text));
	switch (cond->kind) {
	case KB_COND_CONTAINS: *holds = found; break;
	case KB_COND_LACKS:    *holds = !found; break;
	case KB_COND_EXISTS:   *holds = buf != NULL; break;
	case KB_COND_MISSING:  *holds = buf == NULL; break;
	}
	return 0;
}

char *kb_cond_describe(const struct kb_cond *cond)
{
	struct kb_buf out = KB_BUF_INIT;
	static const char *const verbs[] = {
		[KB_COND_CONTAINS] = "contains", [KB_COND_LACKS] = "lacks",
		[KB_COND_EXISTS] = "exists", [KB_COND_MISSING] = "is missing",
	};
	const char *p;

	kb_buf_printf(&out, "%s %s", cond->path, verbs[cond->kind]);
	if (cond->text) {
		/* one line: the text's lines joined, trailing newline dropped */
		kb_buf_puts(&out, " '");
		for (p = cond->text; *p; p++) {
			if (*p == '\n' && p[1])
				kb_buf_puts(&out, "\\n");
			else if (*p != '\n')
				kb_buf_putc(&out, *p);
		}
		kb_buf_putc(&out, '\'');
	}
	return kb_buf_detach(&out);
}

int kb_variant_fits(bool *fits, const struct kb_cond **failed,
		    struct kb_source *src, const struct kb_variant *variant)
{
	bool holds = true;
	size_t i;
	int err;

	if (failed)
		*failed = NULL;
	for (i = 0; i < variant->nwhen; i++) {
		if ((err = kb_cond_eval(&holds, src, &variant->when[i])) < 0)
			return err;
		if (!holds) {
			if (failed)
				*failed = &variant->when[i];
			break;
		}
	}
	*fits = holds;
	return 0;
}

/* Files of a variant in the tree; own: found by the variant's own hunks. */
static void count_in(size_t *in, size_t *own, unsigned *cost, const struct kb_apply *a)
{
	size_t f;

	*in = *own = 0;
	*cost = 0;
	for (f = 0; f < a->patch->nfiles; f++) {
		if (a->files[f].state != KB_FILE_PRESENT && a->files[f].state != KB_FILE_PARTIAL)
			continue;
		(*in)++;
		*own += !a->files[f].from;
		*cost += a->files[f].cost;
	}
}

/* Which present variant to name: its conditions hold, then the closest fit,
 * then the most files found by its own hunks, then fix order. */
struct rank {
	bool fits;
	size_t own;
	unsigned cost;
};

static bool better(const struct rank *a, const struct rank *b)
{
	if (a->fits != b->fits)
		return a->fits;
	if (a->cost != b->cost)
		return a->cost < b->cost;
	return a->own > b->own;
}

int kb_survey_fix(struct kb_survey *out, struct kb_source *src,
		  const struct kb_fix *fix, const struct kb_locate_opts *opts)
{
	struct rank r, best = { false, 0, 0 };
	size_t v, in, best_in = 0;
	int err;

	memset(out, 0, sizeof(*out));
	out->v = calloc(fix->nvariants ? fix->nvariants : 1, sizeof(*out->v));
	KB_ERROR_CHECK_ALLOC(out->v);
	for (v = 0; v < fix->nvariants; v++) {
		struct kb_apply *a = &out->v[v];
		out->n++;
		if ((err = kb_apply_variant(a, src, fix, &fix->variants[v], opts)) < 0 ||
		    (err = kb_variant_fits(&r.fits, NULL, src, &fix->variants[v])) < 0)
			return err;
		count_in(&in, &r.own, &r.cost, a);
		if (a->state == KB_FILE_PRESENT && (!out->present || better(&r, &best))) {
			out->present = &fix->variants[v];
			out->present_apply = a;
			best = r;
		}
		if (in > best_in) {
			out->partly = &fix->variants[v];
			out->partly_apply = a;
			best_in = in;
		}
	}
	if (out->present) {
		out->partly = NULL;
		out->partly_apply = NULL;
	}
	return 0;
}

void kb_survey_release(struct kb_survey *s)
{
	size_t v;

	for (v = 0; v < s->n; v++)
		kb_apply_release(&s->v[v]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int kb_detect_applied(const struct kb_variant **out, struct kb_source *src,
		      const struct kb_fix *fix)
{
	struct kb_survey survey;
	struct kb_locate_opts opts;
	int err;

	kb_locate_opts_init(&opts);
	err = kb_survey_fix(&survey, src, fix, &opts);
	*out = err < 0 ? NULL : survey.present;
	kb_survey_release(&survey);
	return err;
}

int kb_detect_vulnerable(const char **path, struct kb_source *src,
			 const struct kb_fix *fix)
{
	const struct kb_marker *m;
	const char *buf;
	size_t i, p, len;
	int err;

	*path = fix->nvulnerable ? NULL : "";
	for (i = 0; i < fix->nvulnerable; i++) {
		m = &fix->vulnerable[i];
		for (p = 0; p < m->npaths; p++) {
			if ((err = read_optional(&buf, &len, src, m->paths[p])) < 0)
				return err;
			if (buf && kb_text_contains(buf, len, m->code, strlen(m->code))) {
				*path = m->paths[p];
				return 0;
			}
		}
	}
	return 0;
}
