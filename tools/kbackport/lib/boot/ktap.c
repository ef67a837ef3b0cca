/*
 * KTAP parser: one pass over the log's lines with an explicit stack of
 * open tests (document, suite, case, parameter...), never recursion, so
 * that any input, however deep or garbled, costs bounded stack.
 *
 * Where a result line belongs follows kunit_parser.py: a result closes the
 * open test when it carries that test's "# Subtest:" name, or when the
 * test's plan is complete. When the log indents subtests (KUnit always
 * does), indentation decides instead: a result left of the test's own
 * lines ends it. That makes "plan 1..6 but 7 results" or a suite whose
 * result line is lost an error of that suite alone.
 */
#include "boot/ktap.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 8		/* document, suite, case, parameter, and spare */
#define MAX_NUMBER 999999999	/* test numbers and plans beyond count as this */
#define QUOTE_MAX 80		/* of a line quoted in a message */

/* A piece of the log: not NUL-terminated. */
struct text {
	const char *s;
	size_t len;
};

struct result_line {
	struct text line;	/* the whole line, indentation included */
	size_t indent;
	struct text body;	/* the line without its indentation */
	bool ok, skip;
	size_t num;
	struct text rest;	/* after the number */
	struct text name;
	struct text directive;	/* after '#' */
};

struct level {
	char *name;		/* from "# Subtest:", or NULL */
	size_t indent;		/* of the line that opened it */
	size_t line;
	bool by_version;	/* opened by a version line: "# Subtest:" may follow */
	bool has_plan;
	size_t plan;
	size_t nresults;	/* result lines of its children */
	struct kb_ktap_case *cases;	/* suite: its cases; case: its params */
	size_t ncases, acases;
};

struct parser {
	struct kb_ktap_result *out;
	size_t asuites;
	int err;		/* an allocation failed: everything after is a no-op */
	size_t lineno;
	bool open;		/* a document is being read */
	struct text prefix;	/* what precedes its lines */
	char *version;		/* its version line */
	size_t docline;
	struct level levels[MAX_DEPTH];	/* [0] the document, [1] the suite */
	size_t depth;
	struct kb_buf text;	/* KTAP lines since the last suite ended */
	struct kb_buf diag;	/* diagnostics waiting for a result */
	struct text stamp;	/* the line's printk timestamp, if any */
	struct text diag_stamp;	/* that of the last diagnostic line */
	size_t diag_line;	/* its number */
	struct kb_buf problem;	/* the first problem of the open suite */
	struct kb_buf errors;	/* the documents' problems */
};

/* ---- small helpers ---- */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

static struct text text_from(struct text t, size_t skip)
{
	skip = skip < t.len ? skip : t.len;
	return (struct text){ t.s + skip, t.len - skip };
}

/* Without trailing blanks and carriage returns (serial consoles add them). */
static struct text rtrim(struct text t)
{
	while (t.len && (blank(t.s[t.len - 1]) || t.s[t.len - 1] == '\r'))
		t.len--;
	return t;
}

static struct text trim(struct text t)
{
	t = rtrim(t);
	while (t.len && blank(t.s[0]))
		t = text_from(t, 1);
	return t;
}

static size_t indentation(struct text t)
{
	size_t i = 0;

	while (i < t.len && blank(t.s[i]))
		i++;
	return i;
}

static bool starts_with(struct text t, const char *word)
{
	size_t n = strlen(word);

	return t.len >= n && !memcmp(t.s, word, n);
}

static bool text_eq(struct text t, const char *s)
{
	return s && strlen(s) == t.len && !memcmp(t.s, s, t.len);
}

/*
 * The number of the digits starting `t` in *out (may be NULL), saturated
 * at MAX_NUMBER; returns how many digits (0: none).
 */
static size_t number(struct text t, size_t *out)
{
	size_t i = 0, n = 0;

	while (i < t.len && digit(t.s[i])) {
		n = n > MAX_NUMBER / 10 ? MAX_NUMBER : n * 10 + (size_t)(t.s[i] - '0');
		i++;
	}
	if (out)
		*out = n < MAX_NUMBER ? n : MAX_NUMBER;
	return i;
}

static int quote_len(struct text t)
{
	return (int)(t.len < QUOTE_MAX ? t.len : QUOTE_MAX);
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* ---- allocation, with the parser's sticky error ---- */

static void put(struct parser *p, struct kb_buf *b, const char *s, size_t n)
{
	if (!p->err && kb_buf_put(b, s, n) < 0)
		p->err = kb_error_oom();
}

static void vformat(struct parser *p, struct kb_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || p->err)
		return;
	if (kb_buf_grow(b, (size_t)n) < 0) {
		p->err = kb_error_oom();
		return;
	}
	vsnprintf(b->ptr + b->size, (size_t)n + 1, fmt, ap);
	b->size += (size_t)n;
}

static void format(struct parser *p, struct kb_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void format(struct parser *p, struct kb_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vformat(p, b, fmt, ap);
	va_end(ap);
}

static char *dup(struct parser *p, const char *s, size_t n)
{
	char *d;

	if (p->err)
		return NULL;
	if (!(d = malloc(n + 1))) {
		p->err = kb_error_oom();
		return NULL;
	}
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* The buffer's text, or NULL when it is empty; the buffer is reset. */
static char *take(struct parser *p, struct kb_buf *b)
{
	char *s = NULL;

	if (b->size && !p->err && !(s = kb_buf_detach(b)))
		p->err = kb_error_oom();
	kb_buf_clear(b);
	return s;
}

/* ---- problems ---- */

/* Record the open suite's problem; the first one is the one reported. */
static void suite_problem(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void suite_problem(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->problem.size)
		return;
	if (p->depth >= 2 && p->levels[2].name)
		format(p, &p->problem, "case '%s': ", p->levels[2].name);
	else if (p->depth >= 2)
		format(p, &p->problem, "test at line %zu: ", p->levels[p->depth].line);
	va_start(ap, fmt);
	vformat(p, &p->problem, fmt, ap);
	va_end(ap);
}

static void doc_problem(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void doc_problem(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	format(p, &p->errors, "%sKTAP document at line %zu: ", p->errors.size ? "; " : "",
	       p->docline);
	va_start(ap, fmt);
	vformat(p, &p->errors, fmt, ap);
	va_end(ap);
}

/* "plan 1..6 but 3 results", "no plan" or "no result line". */
static void level_shortfall(char *buf, size_t size, const struct level *l)
{
	if (l->has_plan && l->nresults != l->plan)
		snprintf(buf, size, "plan 1..%zu but %zu result%s", l->plan, l->nresults,
			 plural(l->nresults));
	else if (!l->has_plan)
		snprintf(buf, size, "no plan");
	else
		snprintf(buf, size, "no result line");
}

/* ---- line kinds ---- */

/* "KTAP version N" or "TAP version N" ending `t`; *pos where it starts. */
static bool find_version(struct text t, size_t *pos)
{
	static const char word[] = "TAP version ";
	const char *at = t.s, *end = t.s + t.len;
	size_t n;

	while ((at = memmem(at, (size_t)(end - at), word, sizeof(word) - 1))) {
		struct text v = { at + sizeof(word) - 1, (size_t)(end - at) - (sizeof(word) - 1) };

		if ((n = number(v, NULL)) && n == v.len) {
			*pos = (size_t)(at - t.s);
			if (*pos && t.s[*pos - 1] == 'K')
				(*pos)--;
			return true;
		}
		at++;
	}
	return false;
}

static bool is_version(struct text s)
{
	size_t pos;

	return find_version(s, &pos) && pos == 0;
}

/* "# Subtest: name" */
static bool subtest_name(struct text s, struct text *name)
{
	if (!starts_with(s, "#"))
		return false;
	s = trim(text_from(s, 1));
	if (!starts_with(s, "Subtest:"))
		return false;
	*name = trim(text_from(s, strlen("Subtest:")));
	return name->len > 0;
}

/* "1..N", maybe followed by a comment */
static bool plan_line(struct text s, size_t *n)
{
	size_t d;

	if (!starts_with(s, "1.."))
		return false;
	s = text_from(s, 3);
	d = number(s, n);
	return d && (d == s.len || blank(s.s[d]) || s.s[d] == '#');
}

/* "ok N [- ]name [# directive]" or "not ok ..." */
static bool result_line(struct text s, struct result_line *r)
{
	struct text t;
	const char *hash;
	size_t d;

	r->ok = starts_with(s, "ok ");
	if (!r->ok && !starts_with(s, "not ok "))
		return false;
	t = trim(text_from(s, r->ok ? 3 : 7));
	if (!(d = number(t, &r->num)) || (d < t.len && !blank(t.s[d])))
		return false;
	r->rest = text_from(t, d);
	t = trim(r->rest);
	if (starts_with(t, "-") && (t.len == 1 || blank(t.s[1])))
		t = trim(text_from(t, 1));
	hash = memchr(t.s, '#', t.len);
	r->name = trim((struct text){ t.s, hash ? (size_t)(hash - t.s) : t.len });
	r->directive = hash ? trim(text_from(t, (size_t)(hash - t.s) + 1)) : (struct text){ "", 0 };
	r->skip = r->directive.len >= 4 && !strncasecmp(r->directive.s, "SKIP", 4) &&
		  (r->directive.len == 4 || blank(r->directive.s[4]));
	return true;
}

static enum kb_ktap_status result_status(const struct result_line *r)
{
	return r->skip ? KB_KTAP_SKIP : r->ok ? KB_KTAP_PASS : KB_KTAP_FAIL;
}

/* ---- the suite and document being read ---- */

/* A KTAP line of the open suite, for its standalone document. */
static void keep_line(struct parser *p, struct text c)
{
	put(p, &p->text, c.s, c.len);
	put(p, &p->text, "\n", 1);
}

static void level_release(struct level *l);

static void case_release(struct kb_ktap_case *c)
{
	size_t i;

	for (i = 0; i < c->nparams; i++)
		case_release(&c->params[i]);
	free(c->params);
	free(c->name);
	free(c->diag);
}

static void level_release(struct level *l)
{
	size_t i;

	for (i = 0; i < l->ncases; i++)
		case_release(&l->cases[i]);
	free(l->cases);
	free(l->name);
	memset(l, 0, sizeof(*l));
}

static struct kb_ktap_case *add_case(struct parser *p, struct level *l, struct text name,
				     enum kb_ktap_status status)
{
	struct kb_ktap_case *c;
	int err;

	if ((err = KB_ARRAY_GROW(l->cases, l->acases, l->ncases + 1)) < 0) {
		p->err = err;
		return NULL;
	}
	c = &l->cases[l->ncases];
	memset(c, 0, sizeof(*c));
	if (!(c->name = dup(p, name.s, name.len)))
		return NULL;
	c->status = status;
	l->ncases++;
	return c;
}

/* The suite's document: header, its lines, its result renumbered 1. */
static char *suite_document(struct parser *p, const struct result_line *r)
{
	struct kb_buf doc = KB_BUF_INIT;

	if (p->err)
		return NULL;
	put(p, &doc, p->version, strlen(p->version));
	put(p, &doc, "\n1..1\n", 6);
	put(p, &doc, p->text.ptr ? p->text.ptr : "", p->text.size);
	if (r) {
		put(p, &doc, r->line.s, r->indent);
		put(p, &doc, r->ok ? "ok 1" : "not ok 1", r->ok ? 4 : 8);
		put(p, &doc, r->rest.s, r->rest.len);
		put(p, &doc, "\n", 1);
	}
	return take(p, &doc);
}

static void count_cases(struct kb_ktap_suite *s)
{
	size_t i;

	for (i = 0; i < s->ncases; i++) {
		s->pass += s->cases[i].status == KB_KTAP_PASS;
		s->fail += s->cases[i].status == KB_KTAP_FAIL;
		s->skip += s->cases[i].status == KB_KTAP_SKIP;
	}
}

/* A suite that says "ok" must have run something, all of it fine. */
static void check_consistent(struct parser *p, const struct kb_ktap_suite *s, bool has_cases)
{
	size_t i;

	if (s->status != KB_KTAP_PASS)
		return;
	if (has_cases && !s->ncases)
		suite_problem(p, "no test cases ran");
	for (i = 0; i < s->ncases; i++)
		if (s->cases[i].status == KB_KTAP_FAIL)
			suite_problem(p, "its result is 'ok' but case '%s' failed",
				      s->cases[i].name);
}

static struct kb_ktap_suite *new_suite(struct parser *p)
{
	struct kb_ktap_result *out = p->out;
	struct kb_ktap_suite *s;
	int err;

	if ((err = KB_ARRAY_GROW(out->suites, p->asuites, out->nsuites + 1)) < 0) {
		p->err = err;
		return NULL;
	}
	s = &out->suites[out->nsuites++];
	memset(s, 0, sizeof(*s));
	return s;
}

/* Drop what the suite that just ended left behind. */
static void suite_reset(struct parser *p)
{
	kb_buf_clear(&p->text);
	kb_buf_clear(&p->diag);
	kb_buf_clear(&p->problem);
}

/*
 * The open suite ends: with its result line `r`, or NULL when it has none.
 * `l` is its level (NULL for a result without subtests), whose cases move
 * to the suite.
 */
static void finish_suite(struct parser *p, const char *name, size_t line,
			 const struct result_line *r, struct level *l)
{
	struct kb_ktap_suite *s;
	struct kb_buf error = KB_BUF_INIT;

	if (p->err)
		return;
	if (!name) {	/* it ended before its "# Subtest:" line or result */
		doc_problem(p, "suite at line %zu: %s", line,
			    p->problem.size ? p->problem.ptr : "no name");
		suite_reset(p);
		return;
	}
	if (!(s = new_suite(p)))
		return;
	s->name = dup(p, name, strlen(name));
	s->line = line;
	s->status = r ? result_status(r) : KB_KTAP_ERROR;
	if (l) {
		s->cases = l->cases, s->ncases = l->ncases;
		l->cases = NULL, l->ncases = l->acases = 0;
	}
	count_cases(s);
	check_consistent(p, s, l != NULL);
	if (p->problem.size) {
		s->status = KB_KTAP_ERROR;
		format(p, &error, "suite '%s': %s", name, p->problem.ptr);
		s->error = take(p, &error);
		kb_buf_release(&error);
	}
	s->ktap = suite_document(p, r);
	suite_reset(p);
}

/* The result's number must be the next one of `l`. */
static void check_number(struct parser *p, const struct level *l, const struct result_line *r)
{
	size_t want = l->nresults + 1;

	if (r->num == want)
		return;
	if (r->num && r->num < want)
		suite_problem(p, "test number %zu repeated at line %zu ('%.*s')", r->num,
			      p->lineno, quote_len(r->body), r->body.s);
	else
		suite_problem(p, "result '%.*s' at line %zu where test %zu was expected",
			      quote_len(r->body), r->body.s, p->lineno, want);
}

static void close_document(struct parser *p, const char *cause);

/* A result line of the document itself: a suite ends. */
static void document_result(struct parser *p, const struct result_line *r, struct level *l)
{
	struct level *doc = &p->levels[0];
	char *name = l && l->name ? l->name : NULL;
	char *own = NULL;

	check_number(p, doc, r);
	if (!doc->has_plan && !doc->nresults)
		doc_problem(p, "results without a plan (line %zu)", p->lineno);
	doc->nresults++;
	if (!name)
		name = own = dup(p, r->name.s, r->name.len);
	finish_suite(p, name, l ? l->line : p->lineno, r, l);
	free(own);
	if (doc->has_plan && doc->nresults == doc->plan)
		close_document(p, NULL);
}

/* A result line of a child of the open suite, case or deeper test. */
static void child_result(struct parser *p, const struct result_line *r, struct level *done)
{
	struct level *l = &p->levels[p->depth];
	enum kb_ktap_status status = result_status(r);
	struct kb_ktap_case *c;

	if (done && !done->nresults && status == KB_KTAP_PASS) {
		suite_problem(p, "'%.*s' is ok but ran none of its subtests",
			      quote_len(r->name), r->name.s);
		status = KB_KTAP_ERROR;
	}
	check_number(p, l, r);
	if (!l->has_plan && p->depth == 1)
		suite_problem(p, "result '%.*s' at line %zu without a plan",
			      quote_len(r->body), r->body.s, p->lineno);
	l->nresults++;
	keep_line(p, r->line);
	if (p->depth > 2 || !(c = add_case(p, l, r->name, status))) {
		kb_buf_clear(&p->diag);
		return;
	}
	if (r->directive.len) {
		put(p, &p->diag, r->directive.s, r->directive.len);
		put(p, &p->diag, "\n", 1);
	}
	if (p->diag.size)
		p->diag.ptr[--p->diag.size] = '\0';	/* the last '\n' */
	c->diag = take(p, &p->diag);
	if (done && p->depth == 1) {
		c->params = done->cases, c->nparams = done->ncases;
		done->cases = NULL, done->ncases = done->acases = 0;
	}
}

/* The innermost open test ends without a result line. */
static void end_level(struct parser *p, const char *cause)
{
	struct level *l = &p->levels[p->depth];
	char why[96];

	level_shortfall(why, sizeof(why), l);
	if (p->depth == 1) {
		suite_problem(p, "%s: %s", why, cause);
		finish_suite(p, l->name, l->line, NULL, l);
		p->levels[0].nresults++;	/* the next suite's number is still its own */
	} else {
		suite_problem(p, "%s: %s", why, cause);
		if (p->depth == 2 && l->name)
			add_case(p, &p->levels[1], (struct text){ l->name, strlen(l->name) },
				 KB_KTAP_ERROR);
	}
	level_release(l);
	p->depth--;
}

/* The innermost open test ends with result `r`. */
static void close_level(struct parser *p, const struct result_line *r)
{
	struct level done = p->levels[p->depth];
	char why[96];

	if (!done.has_plan && p->depth == 1)
		suite_problem(p, "no plan");
	else if (done.has_plan && done.nresults != done.plan) {
		level_shortfall(why, sizeof(why), &done);
		suite_problem(p, "%s", why);
	}
	memset(&p->levels[p->depth], 0, sizeof(done));
	p->depth--;
	if (p->depth == 0)
		document_result(p, r, &done);
	else
		child_result(p, r, &done);
	level_release(&done);
}

enum placement { CHILD, CLOSES, ENDS_BEFORE };

/* Where result `r` belongs, relative to the innermost open test. */
static enum placement placement(const struct parser *p, const struct result_line *r)
{
	const struct level *l = &p->levels[p->depth], *up = &p->levels[p->depth - 1];
	bool plan_done = l->has_plan && l->nresults >= l->plan;
	bool named = l->name && text_eq(r->name, l->name);

	if (l->indent > up->indent) {
		if (r->indent >= l->indent)
			return CHILD;
	} else if (!named && !plan_done) {
		return CHILD;
	}
	return !l->name || named ? CLOSES : ENDS_BEFORE;
}

static void on_result(struct parser *p, const struct result_line *r)
{
	char cause[64];

	for (;;) {
		if (p->depth == 0) {
			document_result(p, r, NULL);
			return;
		}
		switch (placement(p, r)) {
		case CHILD:
			child_result(p, r, NULL);
			return;
		case CLOSES:
			close_level(p, r);
			return;
		case ENDS_BEFORE:
			snprintf(cause, sizeof(cause), "it ends before line %zu", p->lineno);
			end_level(p, cause);
			break;
		}
	}
}

/* A version line or "# Subtest:" header: a test with subtests starts. */
static void on_open(struct parser *p, struct text c, size_t indent, const struct text *name)
{
	struct level *l = &p->levels[p->depth];
	char cause[64];

	if (name && p->depth && l->by_version && !l->name && !l->has_plan && !l->nresults) {
		l->name = dup(p, name->s, name->len);
		keep_line(p, c);
		return;
	}
	snprintf(cause, sizeof(cause), "it ends before line %zu", p->lineno);
	while (p->depth && p->levels[p->depth].indent > p->levels[p->depth - 1].indent &&
	       indent <= p->levels[p->depth].indent)
		end_level(p, cause);
	if (p->depth + 1 >= MAX_DEPTH) {
		suite_problem(p, "tests nested more than %d deep at line %zu", MAX_DEPTH - 1,
			      p->lineno);
		keep_line(p, c);
		return;
	}
	if (++p->depth == 1)
		kb_buf_clear(&p->problem), kb_buf_clear(&p->diag);
	l = &p->levels[p->depth];
	memset(l, 0, sizeof(*l));
	l->name = name ? dup(p, name->s, name->len) : NULL;
	l->indent = indent;
	l->line = p->lineno;
	l->by_version = !name;
	keep_line(p, c);
}

static void on_plan(struct parser *p, struct text c, size_t n)
{
	struct level *l = &p->levels[p->depth];

	if (l->has_plan || l->nresults) {	/* not where a plan goes: ignored */
		keep_line(p, c);
		return;
	}
	l->has_plan = true;
	l->plan = n;
	if (p->depth)
		keep_line(p, c);
	else if (n == 0)
		close_document(p, NULL);
}

/*
 * An unindented line that is not KTAP, right after a diagnostic line of
 * the same printk record (same timestamp, or none for both): the rest of a
 * multi-line message, like KUnit's text of a failed KUNIT_EXPECT_*_MSG.
 */
static bool continues_diag(const struct parser *p)
{
	return p->depth && p->diag_line && p->diag_line + 1 == p->lineno &&
	       p->stamp.len == p->diag_stamp.len &&
	       !memcmp(p->stamp.s, p->diag_stamp.s, p->stamp.len);
}

/* A '#' line or an indented unknown line: diagnostics for the next result. */
static void on_diag(struct parser *p, struct text c, size_t indent)
{
	struct text d = text_from(c, indent);

	keep_line(p, c);
	p->diag_stamp = p->stamp;
	p->diag_line = p->lineno;
	if (!p->depth)
		return;
	if (starts_with(d, "#")) {
		d = text_from(d, 1);
		if (starts_with(d, " "))
			d = text_from(d, 1);
	} else {	/* keep what is indented deeper than the suite */
		size_t keep = p->levels[1].indent;

		d = text_from(c, indent < keep ? indent : keep);
	}
	put(p, &p->diag, d.s, d.len);
	put(p, &p->diag, "\n", 1);
}

/* A line of the open document, prefix stripped. */
static void on_line(struct parser *p, struct text c)
{
	size_t indent = indentation(c), n;
	struct text s = text_from(c, indent), name;
	struct result_line r;

	if (is_version(s)) {
		on_open(p, c, indent, NULL);
	} else if (subtest_name(s, &name)) {
		on_open(p, c, indent, &name);
	} else if (plan_line(s, &n)) {
		on_plan(p, c, n);
	} else if (result_line(s, &r)) {
		r.line = c;
		r.indent = indent;
		r.body = s;
		on_result(p, &r);
	} else if (starts_with(s, "#") || indent || continues_diag(p)) {
		on_diag(p, c, indent);
	}
}

/* ---- documents ---- */

static void close_document(struct parser *p, const char *cause)
{
	struct level *doc = &p->levels[0];

	if (!p->open)
		return;
	while (p->depth)
		end_level(p, cause);
	if (doc->has_plan && doc->nresults != doc->plan)
		doc_problem(p, "plan 1..%zu but %zu result%s%s%s", doc->plan, doc->nresults,
			    plural(doc->nresults), cause ? ": " : "", cause ? cause : "");
	else if (!doc->has_plan && !doc->nresults)
		doc_problem(p, "no plan and no results%s%s", cause ? ": " : "",
			    cause ? cause : "");
	level_release(doc);
	free(p->version);
	p->version = NULL;
	suite_reset(p);
	p->open = false;
}

static void open_document(struct parser *p, struct text t, size_t pos)
{
	char cause[80];

	snprintf(cause, sizeof(cause), "truncated: a new KTAP document starts at line %zu",
		 p->lineno);
	close_document(p, cause);
	p->open = true;
	p->prefix = (struct text){ t.s, pos };
	p->version = dup(p, t.s + pos, t.len - pos);
	p->docline = p->lineno;
	p->depth = 0;
	memset(&p->levels[0], 0, sizeof(p->levels[0]));
	p->out->ndocuments++;
}

/* "[    1.234567] ", with an optional "<6>" before and "[  T1]" after. */
static struct text strip_timestamp(struct parser *p, struct text t)
{
	struct text u = t;
	const char *close;
	size_t n;

	p->stamp = (struct text){ t.s, 0 };
	if (starts_with(u, "<") && (n = number(text_from(u, 1), NULL)) &&
	    n + 1 < u.len && u.s[n + 1] == '>')
		u = text_from(u, n + 2);
	if (!starts_with(u, "["))
		return t;
	u = text_from(u, 1 + indentation(text_from(u, 1)));
	if (!(n = number(u, NULL)) || !starts_with(text_from(u, n), "."))
		return t;
	u = text_from(u, n + 1);
	if (!(n = number(u, NULL)) || !starts_with(text_from(u, n), "]"))
		return t;
	u = text_from(u, n + 1);
	if (starts_with(u, "[") && (close = memchr(u.s, ']', u.len < 12 ? u.len : 12)))
		u = text_from(u, (size_t)(close - u.s) + 1);
	p->stamp = (struct text){ t.s, (size_t)(u.s - t.s) };
	return starts_with(u, " ") ? text_from(u, 1) : u;
}

/* Lines after which nothing more of the open document can come. */
static bool ends_document(const struct parser *p, struct text t)
{
	struct text u = trim(t);

	if (starts_with(u, "Kernel panic - not syncing") || starts_with(u, "reboot: "))
		return true;
	if (!p->prefix.len || t.len < p->prefix.len || memcmp(t.s, p->prefix.s, p->prefix.len))
		return false;
	u = trim(text_from(t, p->prefix.len));
	return starts_with(u, "Kernel panic - not syncing") || starts_with(u, "reboot: ");
}

/* A version line inside the open document (an indented subtest's)? */
static bool nested_version(const struct parser *p, struct text t, size_t pos)
{
	size_t i;

	if (!p->open || pos <= p->prefix.len || memcmp(t.s, p->prefix.s, p->prefix.len))
		return false;
	for (i = p->prefix.len; i < pos; i++)
		if (!blank(t.s[i]))
			return false;
	return true;
}

static void handle_line(struct parser *p, struct text t)
{
	char cause[QUOTE_MAX + 64];
	size_t pos;

	t = strip_timestamp(p, rtrim(t));
	if (find_version(t, &pos) && !nested_version(p, t, pos)) {
		open_document(p, t, pos);
		return;
	}
	if (p->open && ends_document(p, t)) {
		snprintf(cause, sizeof(cause), "truncated at line %zu: '%.*s'", p->lineno,
			 quote_len(trim(t)), trim(t).s);
		close_document(p, cause);
		return;
	}
	if (p->open && t.len >= p->prefix.len && !memcmp(t.s, p->prefix.s, p->prefix.len))
		on_line(p, text_from(t, p->prefix.len));
}

/* ---- public ---- */

int kb_ktap_parse(struct kb_ktap_result *out, const char *log, size_t len)
{
	struct parser p = { .out = out };
	const char *end = log ? log + len : log, *nl;
	char cause[64];

	memset(out, 0, sizeof(*out));
	while (log < end && !p.err) {
		nl = memchr(log, '\n', (size_t)(end - log));
		p.lineno++;
		handle_line(&p, (struct text){ log, (size_t)((nl ? nl : end) - log) });
		log = nl ? nl + 1 : end;
	}
	snprintf(cause, sizeof(cause), "truncated: the log ends at line %zu", p.lineno);
	close_document(&p, cause);
	out->error = take(&p, &p.errors);
	kb_buf_release(&p.text);
	kb_buf_release(&p.diag);
	kb_buf_release(&p.problem);
	kb_buf_release(&p.errors);
	if (p.err) {
		kb_ktap_result_release(out);
		return kb_error_set(KB_ENOMEM, "out of memory parsing KTAP");
	}
	return 0;
}

static void suite_release(struct kb_ktap_suite *s)
{
	size_t i;

	for (i = 0; i < s->ncases; i++)
		case_release(&s->cases[i]);
	free(s->cases);
	free(s->name);
	free(s->error);
	free(s->ktap);
}

void kb_ktap_result_release(struct kb_ktap_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nsuites; i++)
		suite_release(&r->suites[i]);
	free(r->suites);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

const struct kb_ktap_suite *kb_ktap_find_suite(const struct kb_ktap_result *r,
					       const char *name)
{
	size_t i;

	for (i = 0; i < r->nsuites; i++)
		if (r->suites[i].name && !strcmp(r->suites[i].name, name))
			return &r->suites[i];
	return NULL;
}

static const char *const ktap_status_names[] = {
	[KB_KTAP_PASS] = "pass",
	[KB_KTAP_FAIL] = "fail",
	[KB_KTAP_SKIP] = "skip",
	[KB_KTAP_ERROR] = "error",
};

const char *kb_ktap_status_name(enum kb_ktap_status s)
{
	return ktap_status_names[s];
}

bool kb_ktap_status_parse(enum kb_ktap_status *out, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ktap_status_names) / sizeof(*ktap_status_names); i++)
		if (!strcmp(ktap_status_names[i], name)) {
			*out = (enum kb_ktap_status)i;
			return true;
		}
	return false;
}

int kb_ktap_suite_document(char **out, const struct kb_ktap_result *r, const char *name)
{
	const struct kb_ktap_suite *s = kb_ktap_find_suite(r, name);

	*out = NULL;
	if (!s)
		return kb_error_set(KB_ENOTFOUND, "no KTAP suite '%s' in the log", name);
	*out = kb_strdup(s->ktap ? s->ktap : "");
	KB_ERROR_CHECK_ALLOC(*out);
	return 0;
}
