/*
 * results.json -> struct kb_report: the whole document is checked here,
 * once, so the writers can trust it. Messages name the file and the field:
 * "'r/results.json': branches[1].lanes[0].verdict: 'fine' is not one of ...".
 */
#include "report/report.h"
#include "report/report_priv.h"
#include "util/dir.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const case_statuses[] = { "pass", "fail", "skip", "error", NULL };
static const char *const lane_kinds[] = { "as-is", "pre-fix", "backport", NULL };
static const char *const boot_images[] = { "pvh-vmlinux", "bzimage", NULL };
static const char *const build_statuses[] = { "pass", "fail", "cached", "skipped", NULL };
static const char *const lane_verdicts[] = {
	"fixed", "vulnerable", "regression", "error", "skipped", "untested", NULL };
static const char *const branch_verdicts[] = {
	"verified", "fixed", "not-affected", "vulnerable", "conflict", "regression", "error",
	"skipped", "untested", NULL };
/* a branch's apply status, or a lane's: "reverse-applied" is the pre-fix
 * lane (the fix taken out of the branch) */
static const char *const apply_statuses[] = {
	"applied", "already-applied", "not-affected", "conflict", "partial", "error",
	"reverse-applied", "reverted", NULL };

/* Where in the document we are, for messages. */
struct ctx {
	const char *file;
	char at[256];
};

static int bad(const struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(const struct ctx *c, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return kb_error_set(KB_EINVALID, "'%s': %s%s%s", c->file, c->at, *c->at ? ": " : "", what);
}

/* Enter field `fmt` of the current place; leave() restores `len`. */
static size_t enter(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static size_t enter(struct ctx *c, const char *fmt, ...)
{
	size_t len = strlen(c->at);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->at + len, sizeof(c->at) - len, fmt, ap);
	va_end(ap);
	return len;
}

static void leave(struct ctx *c, size_t len)
{
	c->at[len] = '\0';
}

static const char *dot(const struct ctx *c)
{
	return *c->at ? "." : "";
}

static void list_words(char *buf, size_t size, const char *const *words)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; words[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", words[i]);
}

/* Field `key` of `obj`: a string or absent/null (*out NULL). */
static int get_str(const char **out, struct ctx *c, json_t *obj, const char *key, bool required)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (json_is_string(v)) {
		*out = json_string_value(v);
		return 0;
	}
	if (v && !json_is_null(v))
		return bad(c, "'%s' is not a string", key);
	return required ? bad(c, "'%s' is missing", key) : 0;
}

static int get_word(const char **out, struct ctx *c, json_t *obj, const char *key, bool required,
		    const char *const *words)
{
	char list[256];
	size_t i;
	int err;

	if ((err = get_str(out, c, obj, key, required)) < 0 || !*out)
		return err;
	for (i = 0; words[i]; i++)
		if (!strcmp(*out, words[i]))
			return 0;
	list_words(list, sizeof(list), words);
	return bad(c, "'%s' is '%s', not one of %s", key, *out, list);
}

/*
 * The word of `key`, one of `words` (the contract's), as its enum: each
 * kb_*_parse() knows every word of its enum, `words` those allowed here.
 */
static int get_ktap_status(enum kb_ktap_status *out, struct ctx *c, json_t *obj)
{
	const char *w;
	int err;

	if ((err = get_word(&w, c, obj, "status", true, case_statuses)) == 0 &&
	    !kb_ktap_status_parse(out, w))
		err = bad(c, "'status' is '%s'", w);
	return err;
}

static int get_verdict(enum kb_verdict *out, struct ctx *c, json_t *obj,
		       const char *const *words)
{
	const char *w;
	int err;

	if ((err = get_word(&w, c, obj, "verdict", true, words)) == 0 && !kb_verdict_parse(out, w))
		err = bad(c, "'verdict' is '%s'", w);
	return err;
}

static int get_lane_kind(struct kb_report_lane *l, struct ctx *c, json_t *obj)
{
	const char *w;
	int err;

	if ((err = get_word(&w, c, obj, "kind", true, lane_kinds)) == 0 &&
	    !kb_lane_kind_parse(&l->kind, w))
		err = bad(c, "'kind' is '%s'", w);
	return err;
}

static int get_build(struct kb_report_lane *l, struct ctx *c, json_t *obj)
{
	const char *w;
	int err;

	if ((err = get_word(&w, c, obj, "build", false, build_statuses)) < 0 || !w)
		return err;
	l->has_build = true;
	return kb_build_status_parse(&l->build, w) ? 0 : bad(c, "'build' is '%s'", w);
}

static int get_apply_status(struct kb_report_apply *a, struct ctx *c, json_t *obj)
{
	const char *w;
	int err;

	if ((err = get_word(&w, c, obj, "status", true, apply_statuses)) < 0)
		return err;
	a->present = true;
	return kb_status_parse(&a->status, w) ? 0 : bad(c, "'status' is '%s'", w);
}

static int get_number(double *out, struct ctx *c, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	*out = -1;
	if (json_is_number(v))
		*out = json_number_value(v);
	else if (v && !json_is_null(v))
		return bad(c, "'%s' is not a number", key);
	return 0;
}

/*
 * More cases than any suite has: the writers add a suite's counts up
 * ("pass/total"), which must not overflow whatever the document says.
 */
#define KB_REPORT_COUNT_MAX 1000000000LL

static int get_count(long long *out, struct ctx *c, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	*out = 0;
	if (json_is_integer(v) && json_integer_value(v) > KB_REPORT_COUNT_MAX)
		return bad(c, "'%s' is %lld, more than %lld cases", key,
			   (long long)json_integer_value(v), KB_REPORT_COUNT_MAX);
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		*out = json_integer_value(v);
	else if (v && !json_is_null(v))
		return bad(c, "'%s' is not a count", key);
	return 0;
}

/* An array of strings, a single string (one line), or absent. */
static int get_lines(const char ***out, size_t *n, struct ctx *c, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key), *item;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_string(v))
		v = json_pack("[O]", v), json_object_set_new(obj, key, v);
	if (!json_is_array(v))
		return bad(c, "'%s' is not a list of strings", key);
	*out = calloc(json_array_size(v) + 1, sizeof(**out));
	KB_ERROR_CHECK_ALLOC(*out);
	json_array_foreach(v, i, item) {
		if (!json_is_string(item))
			return bad(c, "%s[%zu] is not a string", key, i);
		(*out)[(*n)++] = json_string_value(item);
	}
	return 0;
}

static int load_apply_fields(struct kb_report_apply *a, struct ctx *c, json_t *v)
{
	int err;

	if ((err = get_apply_status(a, c, v)) < 0 ||
	    (err = get_str(&a->variant, c, v, "variant", false)) < 0 ||
	    (err = get_str(&a->detail, c, v, "detail", false)) < 0 ||
	    (err = get_str(&a->patch_hash, c, v, "patch_hash", false)) < 0 ||
	    (err = get_str(&a->base, c, v, "base", false)) < 0 ||
	    (err = get_lines(&a->notes, &a->nnotes, c, v, "notes")) < 0 ||
	    (err = get_lines(&a->reproduce, &a->nreproduce, c, v, "reproduce")) < 0)
		return err;
	return 0;
}

static int load_apply(struct kb_report_apply *a, struct ctx *c, json_t *obj)
{
	json_t *v = json_object_get(obj, "apply");
	size_t at;
	int err;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return bad(c, "'apply' is not an object");
	at = enter(c, "%sapply", dot(c));
	if ((err = load_apply_fields(a, c, v)) < 0)
		return err;
	leave(c, at);
	return 0;
}

static bool safe_dir(const char *dir);

static int load_queued(struct kb_report_queued *q, struct ctx *c, json_t *obj)
{
	int err;

	if (!json_is_object(obj))
		return bad(c, "not an object");
	if ((err = get_str(&q->fix, c, obj, "fix", true)) < 0 ||
	    (err = get_str(&q->mail, c, obj, "mail", false)) < 0)
		return err;
	if (q->mail && !safe_dir(q->mail))
		return bad(c, "'mail' is '%s': not a path in the run directory", q->mail);
	return load_apply_fields(&q->apply, c, obj);
}

/* A queue's run: the branch's "queue" (see kb_queue_result_json()). */
static int load_queue(struct kb_report_queue *q, struct ctx *c, json_t *obj)
{
	json_t *v = json_object_get(obj, "queue"), *results, *item;
	size_t i, at, at2;
	int err;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return bad(c, "'queue' is not an object");
	at = enter(c, "%squeue", dot(c));
	results = json_object_get(v, "results");
	if (!json_is_array(results))
		return bad(c, "'results' is not a list");
	if ((err = get_str(&q->ref, c, v, "ref", false)) < 0 ||
	    (err = get_str(&q->commit, c, v, "commit", false)) < 0 ||
	    (err = get_str(&q->error, c, v, "error", false)) < 0)
		return err;
	q->fixes = calloc(json_array_size(results) + 1, sizeof(*q->fixes));
	KB_ERROR_CHECK_ALLOC(q->fixes);
	q->present = true;
	json_array_foreach(results, i, item) {
		at2 = enter(c, ".results[%zu]", i);
		if ((err = load_queued(&q->fixes[q->nfixes++], c, item)) < 0)
			return err;
		leave(c, at2);
	}
	leave(c, at);
	return 0;
}

static int load_case(struct kb_report_case *k, struct ctx *c, json_t *obj)
{
	json_t *detects = json_object_get(obj, "detects");
	int err;

	if (!json_is_object(obj))
		return bad(c, "not an object");
	if ((err = get_str(&k->name, c, obj, "name", true)) < 0 ||
	    (err = get_ktap_status(&k->status, c, obj)) < 0 ||
	    (err = get_str(&k->proves, c, obj, "proves", false)) < 0 ||
	    (err = get_str(&k->diag, c, obj, "diag", false)) < 0)
		return err;
	if (detects && !json_is_boolean(detects) && !json_is_null(detects))
		return bad(c, "'detects' is not true or false");
	k->detects = json_is_true(detects);
	return 0;
}

static int load_suite(struct kb_report_suite *s, struct ctx *c, const char *name, json_t *obj)
{
	json_t *cases, *item;
	size_t i, at;
	int err;

	s->name = name;
	if (!json_is_object(obj))
		return bad(c, "not an object");
	if ((err = get_ktap_status(&s->status, c, obj)) < 0 ||
	    (err = get_count(&s->pass, c, obj, "pass")) < 0 ||
	    (err = get_count(&s->fail, c, obj, "fail")) < 0 ||
	    (err = get_count(&s->skip, c, obj, "skip")) < 0)
		return err;
	cases = json_object_get(obj, "cases");
	if (cases && !json_is_array(cases) && !json_is_null(cases))
		return bad(c, "'cases' is not a list");
	s->cases = calloc(json_array_size(cases) + 1, sizeof(*s->cases));
	KB_ERROR_CHECK_ALLOC(s->cases);
	json_array_foreach(cases, i, item) {
		at = enter(c, ".cases[%zu]", i);
		if ((err = load_case(&s->cases[s->ncases++], c, item)) < 0)
			return err;
		leave(c, at);
	}
	return 0;
}

static int load_suites(struct kb_report_lane *l, struct ctx *c, json_t *obj)
{
	json_t *suites = json_object_get(obj, "suites"), *v;
	const char *name;
	size_t at;
	int err;

	if (!suites || json_is_null(suites))
		return 0;
	if (!json_is_object(suites))
		return bad(c, "'suites' is not an object");
	l->suites = calloc(json_object_size(suites) + 1, sizeof(*l->suites));
	KB_ERROR_CHECK_ALLOC(l->suites);
	json_object_foreach(suites, name, v) {
		at = enter(c, ".suites.%s", name);
		if ((err = load_suite(&l->suites[l->nsuites++], c, name, v)) < 0)
			return err;
		leave(c, at);
	}
	return 0;
}

/* A lane directory must stay inside the run directory. */
static bool safe_dir(const char *dir)
{
	const char *p = dir;
	size_t len;

	if (!*dir || *dir == '/')
		return false;
	while (*p) {
		len = strcspn(p, "/");
		if ((len == 2 && !strncmp(p, "..", 2)) || len == 0)
			return false;
		p += len + (p[len] == '/');
	}
	return true;
}

/* The regular files of `rundir`/`rel`, sorted; none when it is missing.
 * The reports' own outputs are left out, so writing twice gives the same.
 * A symbolic link, on the way or in the directory, is an error. */
static int list_files(char ***out, size_t *n, const char *rundir, const char *rel)
{
	struct kb_buf path = KB_BUF_INIT;
	struct kb_dir ents = KB_DIR_INIT;
	struct stat st;
	size_t len, i, alloc = *n;	/* what *out holds at least */
	int err;

	if ((err = report_check_links(rundir, rel)) < 0 ||
	    (err = kb_buf_printf(&path, "%s/%s", rundir, rel)) < 0)
		return err;
	err = kb_dir_read(&ents, path.ptr, KB_DIR_NO_HIDDEN | KB_DIR_UNREADABLE_OK);
	len = path.size;
	for (i = 0; !err && i < ents.n; i++) {
		if (!strcmp(ents.names[i], "junit.xml"))
			continue;
		path.size = len;
		if ((err = kb_buf_printf(&path, "/%s", ents.names[i])) < 0 || lstat(path.ptr, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode))
			err = report_link_error(path.ptr);
		else if (S_ISREG(st.st_mode))
			err = report_strv_add(out, n, &alloc, ents.names[i]);
	}
	kb_dir_release(&ents);
	kb_buf_release(&path);
	return err;
}

static int lane_dir(struct kb_report_lane *l, struct ctx *c, json_t *obj, const char *branch,
		    const char *rundir)
{
	int err;

	if ((err = get_str(&l->dir, c, obj, "dir", false)) < 0)
		return err;
	if (!l->dir) {
		/* the contract's default place; kept in the document */
		json_object_set_new(obj, "dir", json_sprintf("%s/%s", branch, kb_lane_kind_name(l->kind)));
		l->dir = json_string_value(json_object_get(obj, "dir"));
	}
	if (!l->dir || !safe_dir(l->dir))
		return bad(c, "'dir' is '%s': not a relative path inside the run directory",
			   l->dir ? l->dir : "");
	return list_files(&l->files, &l->nfiles, rundir, l->dir);
}

static int load_lane(struct kb_report_lane *l, struct ctx *c, json_t *obj, const char *branch,
		     const char *rundir)
{
	int err;

	if (!json_is_object(obj))
		return bad(c, "not an object");
	if ((err = get_lane_kind(l, c, obj)) < 0 ||
	    (err = get_str(&l->ref, c, obj, "ref", false)) < 0 ||
	    (err = get_str(&l->commit, c, obj, "commit", false)) < 0 ||
	    (err = get_str(&l->base, c, obj, "base", false)) < 0 ||
	    (err = get_str(&l->config, c, obj, "config", false)) < 0 ||
	    (err = load_apply(&l->apply, c, obj)) < 0 ||
	    (err = get_build(l, c, obj)) < 0 ||
	    (err = get_number(&l->build_seconds, c, obj, "build_seconds")) < 0 ||
	    (err = load_suites(l, c, obj)) < 0 ||
	    (err = get_verdict(&l->verdict, c, obj, lane_verdicts)) < 0 ||
	    (err = get_lines(&l->reason, &l->nreason, c, obj, "reason")) < 0 ||
	    (err = get_number(&l->test_seconds, c, obj, "test_seconds")) < 0 ||
	    (err = get_word(&l->boot_image, c, obj, "boot_image", false, boot_images)) < 0 ||
	    (err = get_str(&l->boot_note, c, obj, "boot_note", false)) < 0)
		return err;
	return lane_dir(l, c, obj, branch, rundir);
}

static const struct kb_report_lane *find_lane(const struct kb_report_branch *b,
					      enum kb_lane_kind kind)
{
	size_t i;

	for (i = 0; i < b->nlanes; i++)
		if (b->lanes[i].kind == kind)
			return &b->lanes[i];
	return NULL;
}

/* The lane that should show the bug (kb_branch_verdict()'s baseline). */
static void mark_baseline(struct kb_report_branch *b)
{
	const struct kb_report_lane *base = find_lane(b, KB_LANE_PRE_FIX);

	if (!base && find_lane(b, KB_LANE_BACKPORT))
		base = find_lane(b, KB_LANE_AS_IS);
	if (base)
		((struct kb_report_lane *)base)->baseline = true;
}

static int load_lanes(struct kb_report_branch *b, struct ctx *c, json_t *obj, const char *rundir)
{
	json_t *lanes = json_object_get(obj, "lanes"), *item;
	size_t i, at;
	int err;

	if (lanes && !json_is_array(lanes) && !json_is_null(lanes))
		return bad(c, "'lanes' is not a list");
	b->lanes = calloc(json_array_size(lanes) + 1, sizeof(*b->lanes));
	KB_ERROR_CHECK_ALLOC(b->lanes);
	json_array_foreach(lanes, i, item) {
		at = enter(c, ".lanes[%zu]", i);
		if ((err = load_lane(&b->lanes[b->nlanes++], c, item, b->name, rundir)) < 0)
			return err;
		leave(c, at);
	}
	mark_baseline(b);
	return 0;
}

static bool one_line(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* A mail header's text: one line, no control characters. */
static int get_header(const char **out, struct ctx *c, json_t *obj, const char *key, bool required)
{
	int err;

	if ((err = get_str(out, c, obj, key, required)) < 0 || !*out)
		return err;
	return one_line(*out) ? 0 : bad(c, "'%s' holds a control character", key);
}

/* A branch's "mail" (see kb_run_dir_add()): recipients, tree, patch. */
static int load_mail(struct kb_report_branch *b, struct ctx *c, json_t *obj)
{
	json_t *v = json_object_get(obj, "mail"), *cc, *item;
	struct kb_mail *m = &b->mail;
	size_t i, at;
	int err;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return bad(c, "'mail' is not an object");
	at = enter(c, "%smail", dot(c));
	cc = json_object_get(v, "cc");
	if (cc && !json_is_null(cc) && !json_is_array(cc))
		return bad(c, "'cc' is not a list of strings");
	m->cc = calloc(json_array_size(cc) + 1, sizeof(*m->cc));
	KB_ERROR_CHECK_ALLOC(m->cc);
	json_array_foreach(cc, i, item) {
		if (!json_is_string(item) || !one_line(json_string_value(item)))
			return bad(c, "cc[%zu] is not one line of text", i);
		m->cc[m->ncc++] = (char *)json_string_value(item);
	}
	if ((err = get_header((const char **)&m->to, c, v, "to", false)) < 0 ||
	    (err = get_header((const char **)&m->tree, c, v, "tree", true)) < 0 ||
	    (err = get_header((const char **)&m->send_to, c, v, "send_to", false)) < 0 ||
	    (err = get_str(&b->mail_patch, c, v, "patch", false)) < 0)
		return err;
	m->stable = json_is_true(json_object_get(v, "stable"));
	b->has_mail = true;
	leave(c, at);
	return 0;
}

static int load_branch(struct kb_report_branch *b, struct ctx *c, json_t *obj, const char *rundir)
{
	int err;

	if (!json_is_object(obj))
		return bad(c, "not an object");
	if ((err = get_str(&b->name, c, obj, "name", true)) < 0 ||
	    (err = get_verdict(&b->verdict, c, obj, branch_verdicts)) < 0 ||
	    (err = get_str(&b->note, c, obj, "note", false)) < 0 ||
	    (err = get_str(&b->repo, c, obj, "repo", false)) < 0 ||
	    (err = get_str(&b->ref, c, obj, "ref", false)) < 0 ||
	    (err = load_apply(&b->apply, c, obj)) < 0 ||
	    (err = load_queue(&b->queue, c, obj)) < 0 ||
	    (err = load_mail(b, c, obj)) < 0)
		return err;
	if (!safe_dir(b->name))
		return bad(c, "'name' is '%s': not usable as a directory name", b->name);
	if ((err = load_lanes(b, c, obj, rundir)) < 0)
		return err;
	return list_files(&b->files, &b->nfiles, rundir, b->name);
}

static int check_unique(const struct kb_report *r, struct ctx *c)
{
	size_t i, j;

	for (i = 0; i < r->nbranches; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(r->branches[i].name, r->branches[j].name))
				return bad(c, "branch '%s' is there twice", r->branches[i].name);
	return 0;
}

static int load_branches(struct kb_report *r, struct ctx *c)
{
	json_t *branches = json_object_get(r->doc, "branches"), *item;
	size_t i, at;
	int err;

	if (!json_is_array(branches))
		return bad(c, branches ? "'branches' is not a list" : "'branches' is missing");
	r->branches = calloc(json_array_size(branches) + 1, sizeof(*r->branches));
	KB_ERROR_CHECK_ALLOC(r->branches);
	json_array_foreach(branches, i, item) {
		at = enter(c, "branches[%zu]", i);
		if ((err = load_branch(&r->branches[r->nbranches++], c, item, r->dir)) < 0)
			return err;
		leave(c, at);
	}
	return check_unique(r, c);
}

/* A queue's run: "queue": {"name", "fixes": [{"id", ...}]}. */
static int load_queue_fixes(struct kb_report *r, struct ctx *c)
{
	json_t *v = json_object_get(r->doc, "queue"), *fixes, *item;
	size_t i, at;
	int err;

	if (!v || json_is_null(v))
		return 0;
	at = enter(c, "queue");
	if (!json_is_object(v))
		return bad(c, "not an object");
	fixes = json_object_get(v, "fixes");
	if ((err = get_str(&r->queue, c, v, "name", true)) < 0)
		return err;
	if (!json_is_array(fixes))
		return bad(c, "'fixes' is not a list");
	r->queue_fixes = calloc(json_array_size(fixes) + 1, sizeof(*r->queue_fixes));
	KB_ERROR_CHECK_ALLOC(r->queue_fixes);
	json_array_foreach(fixes, i, item) {
		size_t at2 = enter(c, ".fixes[%zu]", i);
		if (!json_is_object(item))
			return bad(c, "not an object");
		if ((err = get_str(&r->queue_fixes[r->nqueue_fixes++], c, item, "id", true)) < 0)
			return err;
		leave(c, at2);
	}
	leave(c, at);
	return 0;
}

static int load_top(struct kb_report *r, struct ctx *c)
{
	json_t *schema = json_object_get(r->doc, "schema");
	int err;

	if (!json_is_integer(schema))
		return bad(c, schema ? "'schema' is not a number" : "'schema' is missing");
	if (json_integer_value(schema) != KB_REPORT_SCHEMA)
		return bad(c, "schema %lld, this kbackport reads schema %d",
			   (long long)json_integer_value(schema), KB_REPORT_SCHEMA);
	if ((err = get_str(&r->run, c, r->doc, "run", true)) < 0 ||
	    (err = get_str(&r->fix, c, r->doc, "fix", true)) < 0 ||
	    (err = get_str(&r->upstream, c, r->doc, "upstream", false)) < 0 ||
	    (err = get_str(&r->subject, c, r->doc, "subject", false)) < 0 ||
	    (err = get_str(&r->author, c, r->doc, "author", false)) < 0 ||
	    (err = get_str(&r->started, c, r->doc, "started", false)) < 0 ||
	    (err = get_str(&r->finished, c, r->doc, "finished", false)) < 0 ||
	    (err = get_str(&r->host, c, r->doc, "host", false)) < 0 ||
	    (err = load_queue_fixes(r, c)) < 0)
		return err;
	return load_branches(r, c);
}

/* results.json: a regular file (kb_check_regular()), never through a link. */
static int parse(struct kb_report *r, const char *file)
{
	json_error_t jerr;
	char *text = NULL;
	size_t len = 0;
	int fd, err;

	if ((fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return errno == ELOOP ? report_link_error(file) :
			kb_error_set(errno == ENOENT ? KB_ENOTFOUND : KB_ERROR, "cannot read '%s': %s",
				     file, strerror(errno));
	if ((err = kb_check_regular(fd, file)) < 0 || (err = kb_read_fd(&text, &len, fd, file)) < 0)
		goto done;
	if (!(r->doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr)))
		err = kb_error_set(KB_EINVALID, "'%s': line %d, column %d: %s", file, jerr.line,
				   jerr.column, jerr.text);
	else if (!json_is_object(r->doc))
		err = kb_error_set(KB_EINVALID, "'%s': not a JSON object", file);
done:
	free(text);
	close(fd);
	return err;
}

int kb_report_load(struct kb_report **out, const char *rundir)
{
	struct kb_buf file = KB_BUF_INIT;
	struct kb_report *r;
	struct ctx c = { NULL, "" };
	size_t len;
	int err;

	*out = NULL;
	if (!(r = calloc(1, sizeof(*r))) || !(r->dir = kb_strdup(rundir))) {
		free(r);
		return kb_error_oom();
	}
	for (len = strlen(r->dir); len > 1 && r->dir[len - 1] == '/'; len--)
		r->dir[len - 1] = '\0';
	if ((err = kb_buf_printf(&file, "%s/results.json", rundir)) == 0) {
		c.file = file.ptr;
		if ((err = parse(r, file.ptr)) == 0)
			err = load_top(r, &c);
	}
	kb_buf_release(&file);
	if (err < 0)
		kb_report_free(r);
	else
		*out = r;
	return err;
}

static void apply_release(struct kb_report_apply *a)
{
	free(a->notes);
	free(a->reproduce);
}

static void lane_release(struct kb_report_lane *l)
{
	size_t i;

	for (i = 0; i < l->nsuites; i++)
		free(l->suites[i].cases);
	free(l->suites);
	free(l->reason);
	apply_release(&l->apply);
	report_strv_free(l->files);
}

void kb_report_free(struct kb_report *r)
{
	size_t i, j;

	if (!r)
		return;
	for (i = 0; r->branches && i < r->nbranches; i++) {
		for (j = 0; j < r->branches[i].nlanes; j++)
			lane_release(&r->branches[i].lanes[j]);
		free(r->branches[i].lanes);
		apply_release(&r->branches[i].apply);
		for (j = 0; j < r->branches[i].queue.nfixes; j++)
			apply_release(&r->branches[i].queue.fixes[j].apply);
		free(r->branches[i].queue.fixes);
		free(r->branches[i].mail.cc);
		report_strv_free(r->branches[i].files);
	}
	free(r->branches);
	free(r->queue_fixes);
	json_decref(r->doc);
	free(r->dir);
	free(r);
}

bool kb_report_verdict_ok(enum kb_verdict v)
{
	return v == KB_VERDICT_VERIFIED || v == KB_VERDICT_FIXED || v == KB_VERDICT_NOT_AFFECTED ||
	       v == KB_VERDICT_SKIPPED;
}

int kb_report_attention(const struct kb_report_branch ***out, size_t *n,
			const struct kb_report *r)
{
	size_t i;

	*n = 0;
	*out = calloc(r->nbranches + 1, sizeof(**out));
	KB_ERROR_CHECK_ALLOC(*out);
	for (i = 0; i < r->nbranches; i++)
		if (!kb_report_verdict_ok(r->branches[i].verdict))
			(*out)[(*n)++] = &r->branches[i];
	return 0;
}

bool kb_report_needs_hand(const struct kb_report_apply *apply)
{
	return apply->present && kb_status_needs_hand(apply->status);
}
