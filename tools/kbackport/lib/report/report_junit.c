/*
 * junit.xml of one lane, in the shape CI systems read (Jenkins, GitLab,
 * GitHub annotations): one <testsuites>; a <testsuite> "<branch>.<lane>" with
 * a testcase per stage (apply, build, test) so a conflict or a failed build
 * shows as a failure; for a queue's backport lane "<branch>.backport.queue"
 * with a testcase per fix; then a <testsuite> per KTAP suite with a
 * testcase per case, classname "<branch>.<lane>.<suite>".
 *
 * A baseline lane (pre-fix, or as-is before a backport) is meant to show
 * the bug: its detecting cases failing, and its "vulnerable" verdict, are
 * what the branch's "verified" rests on, so they pass here with a note in
 * <system-out>; any other failure there is a failure.
 */
#include "report/report.h"
#include "report/report_priv.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fsutil.h"

#include <stdlib.h>
#include <string.h>

enum outcome { J_PASS, J_FAIL, J_ERROR, J_SKIP };

/* One <testcase>, before it is written. */
struct jcase {
	const char *classname;	/* built once per suite */
	const char *name;
	enum outcome outcome;
	double seconds;		/* < 0: no time attribute */
	struct kb_buf message;	/* failure/error/skipped message */
	struct kb_buf body;	/* failure/error text, or system-out */
};

struct jsuite {
	struct kb_buf name;
	struct jcase *cases;
	size_t n, alloc;
	size_t counts[4];
};

static struct jcase *add_case(struct jsuite *s, const char *name, enum outcome o)
{
	struct jcase *v;

	if (KB_ARRAY_GROW(s->cases, s->alloc, s->n + 1) < 0)
		return NULL;
	v = memset(&s->cases[s->n++], 0, sizeof(*v));
	v->classname = s->name.ptr;
	v->name = name;
	v->outcome = o;
	v->seconds = -1;
	s->counts[o]++;
	return v;
}

static void jsuite_release(struct jsuite *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		kb_buf_release(&s->cases[i].message);
		kb_buf_release(&s->cases[i].body);
	}
	free(s->cases);
	kb_buf_release(&s->name);
}

/*
 * The texts of the cases are appended without checking: a failed append
 * leaves its buffer failed (util/buf.h), put_suites() carries that into the
 * document, and kb_report_junit() checks it once at the end.
 */

/* Lines of `lines` (NULL-terminated), each after `indent` and ending in a
 * newline. */
static void put_lines(struct kb_buf *out, const char *const *lines, const char *indent)
{
	for (; lines && *lines; lines++)
		kb_buf_printf(out, "%s%s\n", indent, *lines);
}

/* The testcase `name` of the apply result `a`: a conflict fails it. */
static int apply_case(struct jsuite *s, const char *name, const struct kb_report_apply *a)
{
	enum outcome o = J_PASS;
	struct jcase *c;

	if (!a->present)
		o = J_SKIP;
	else if (kb_report_needs_hand(a))
		o = J_FAIL;
	else if (a->status == KB_STATUS_ERROR)
		o = J_ERROR;
	c = add_case(s, name, o);
	KB_ERROR_CHECK_ALLOC(c);
	if (o == J_SKIP) {
		kb_buf_puts(&c->message, "no apply stage for this lane");
		return 0;
	}
	report_put_apply_cell(&c->message, a);
	if (a->detail)
		kb_buf_printf(&c->message, ": %s", a->detail);
	if (o == J_PASS) {
		kb_buf_carry_oom(&c->body, &c->message);
		kb_buf_printf(&c->body, "%s\n", c->message.ptr);
	}
	put_lines(&c->body, a->notes, "");
	if (a->nreproduce) {
		kb_buf_puts(&c->body, "to resolve it by hand:\n");
		put_lines(&c->body, a->reproduce, "  ");
	}
	return 0;
}

static int stage_apply(struct jsuite *s, const struct kb_report_branch *b,
		       const struct kb_report_lane *l)
{
	return apply_case(s, "apply", report_lane_apply(b, l));
}

/*
 * A queue's backport lane: the suite <branch>.backport.queue, a testcase
 * per fix named after it, in the queue's order (a skipped fix fails it).
 */
static int queue_suite(struct jsuite *s, const struct kb_report_branch *b,
		       const struct kb_report_lane *l)
{
	struct jcase *c;
	size_t f;
	int err = 0;

	kb_buf_printf(&s->name, "%s.%s.queue", b->name, kb_lane_kind_name(l->kind));
	if (b->queue.error) {
		c = add_case(s, "queue", J_ERROR);
		KB_ERROR_CHECK_ALLOC(c);
		kb_buf_puts(&c->message, b->queue.error);
		return 0;
	}
	for (f = 0; f < b->queue.nfixes && !err; f++)
		err = apply_case(s, b->queue.fixes[f].fix, &b->queue.fixes[f].apply);
	return err;
}

static int build_log_tail(struct kb_buf *out, const struct kb_report *r,
			  const struct kb_report_lane *l)
{
	struct kb_buf path = KB_BUF_INIT;
	char *tail = NULL;
	int err;

	if (!report_has_file(l->files, l->nfiles, "build.log")) {
		kb_buf_puts(out, "no build.log\n");
		return 0;
	}
	kb_buf_printf(&path, "%s/%s/build.log", r->dir, l->dir);
	if ((err = kb_buf_check(&path)) == 0 && !(tail = kb_file_tail(path.ptr, 40)))
		err = kb_error_oom();
	if (tail)
		kb_buf_printf(out, "the last lines of %s/build.log:\n%s%s", l->dir, tail,
			      *tail && tail[strlen(tail) - 1] != '\n' ? "\n" : "");
	free(tail);
	kb_buf_release(&path);
	return err;
}

static int stage_build(struct jsuite *s, const struct kb_report *r, const struct kb_report_lane *l)
{
	enum outcome o = J_PASS;
	struct jcase *c;

	if (!l->has_build || l->build == KB_BUILD_SKIPPED)
		o = J_SKIP;
	else if (l->build == KB_BUILD_FAIL)
		o = J_FAIL;
	c = add_case(s, "build", o);
	KB_ERROR_CHECK_ALLOC(c);
	c->seconds = l->build_seconds;
	if (o == J_SKIP)
		kb_buf_puts(&c->message, l->has_build ? "not built" : "no build stage for this lane");
	else if (o == J_PASS && l->build == KB_BUILD_CACHED)
		kb_buf_puts(&c->body, "a cached build was reused\n");
	if (o != J_FAIL)
		return 0;
	kb_buf_puts(&c->message, "the build failed");
	return build_log_tail(&c->body, r, l);
}

static void stage_test_text(struct jcase *c, const struct kb_report_lane *l)
{
	enum kb_verdict v = l->verdict;

	if (c->outcome == J_PASS) {
		kb_buf_puts(&c->body, "vulnerable, as a baseline lane should be: "
			    "the tests see the bug here\n");
	} else {
		kb_buf_puts(&c->message, kb_verdict_name(v));
		if (l->nreason) {
			kb_buf_puts(&c->message, ": ");
			report_put_first_line(&c->message, l->reason[0], "");
		}
	}
	put_lines(&c->body, l->reason, "");
}

static int stage_test(struct jsuite *s, const struct kb_report_lane *l)
{
	enum kb_verdict v = l->verdict;
	enum outcome o = J_FAIL;
	struct jcase *c;

	if (v == KB_VERDICT_FIXED || (l->baseline && v == KB_VERDICT_VULNERABLE))
		o = J_PASS;
	else if (v == KB_VERDICT_ERROR)
		o = J_ERROR;
	else if (v == KB_VERDICT_SKIPPED || v == KB_VERDICT_UNTESTED)
		o = J_SKIP;	/* untested: no case looked for the fix, none could fail */
	c = add_case(s, "test", o);
	KB_ERROR_CHECK_ALLOC(c);
	c->seconds = l->test_seconds;
	if (o != J_PASS || v == KB_VERDICT_VULNERABLE)
		stage_test_text(c, l);
	return 0;
}

static enum outcome case_outcome(const struct kb_report_lane *l, const struct kb_report_case *k)
{
	if (k->status == KB_KTAP_PASS || report_case_expected_failure(l, k))
		return J_PASS;
	if (k->status == KB_KTAP_SKIP)
		return J_SKIP;
	return k->status == KB_KTAP_FAIL ? J_FAIL : J_ERROR;
}

static int ktap_case(struct jsuite *s, const struct kb_report_lane *l,
		     const struct kb_report_case *k)
{
	enum outcome o = case_outcome(l, k);
	struct jcase *c = add_case(s, k->name, o);

	KB_ERROR_CHECK_ALLOC(c);
	if (o == J_PASS && report_case_expected_failure(l, k))
		kb_buf_puts(&c->body, "failed, as it should on a baseline lane: "
			    "it detects the missing fix\n");
	else if (o != J_PASS)
		report_put_first_line(&c->message, k->diag, o == J_SKIP ? "skipped" :
				      o == J_FAIL ? "failed" : "error");
	if (o != J_SKIP && (o != J_PASS || c->body.size) && k->proves)
		kb_buf_printf(&c->body, "proves: %s\n", k->proves);
	if (o != J_SKIP && (o != J_PASS || c->body.size) && k->diag)
		kb_buf_printf(&c->body, "%s\n", k->diag);
	return 0;
}

static int ktap_suite(struct jsuite *s, const struct kb_report_branch *b,
		      const struct kb_report_lane *l, const struct kb_report_suite *suite)
{
	size_t i;
	int err = 0;

	kb_buf_printf(&s->name, "%s.%s.%s", b->name, kb_lane_kind_name(l->kind), suite->name);
	for (i = 0; i < suite->ncases && !err; i++)
		err = ktap_case(s, l, &suite->cases[i]);
	return err;
}

static void put_attr(struct kb_buf *out, const char *name, const char *value)
{
	kb_buf_printf(out, " %s=\"", name);
	report_put_xml(out, value);
	kb_buf_putc(out, '"');
}

/* <failure>, <error> or <skipped>, with the text of a failure or error. */
static void put_result(struct kb_buf *out, const struct jcase *c, const char *tag)
{
	bool text = c->outcome != J_SKIP && c->body.size;

	kb_buf_printf(out, "      <%s", tag);
	put_attr(out, "message", c->message.ptr ? c->message.ptr : "");
	if (c->outcome != J_SKIP)
		put_attr(out, "type", tag);
	if (!text) {
		kb_buf_puts(out, "/>\n");
		return;
	}
	kb_buf_putc(out, '>');
	report_put_xml(out, c->body.ptr);
	kb_buf_printf(out, "</%s>\n", tag);
}

static void put_case(struct kb_buf *out, const struct jcase *c)
{
	static const char *const tags[] = { NULL, "failure", "error", "skipped" };
	const char *tag = tags[c->outcome];

	kb_buf_carry_oom(out, &c->message);
	kb_buf_carry_oom(out, &c->body);
	kb_buf_puts(out, "    <testcase");
	put_attr(out, "classname", c->classname);
	put_attr(out, "name", c->name);
	if (c->seconds >= 0)
		kb_buf_printf(out, " time=\"%.3f\"", c->seconds);
	if (!tag && !c->body.size) {
		kb_buf_puts(out, "/>\n");
		return;
	}
	kb_buf_puts(out, ">\n");
	if (tag) {
		put_result(out, c, tag);
	} else {
		kb_buf_puts(out, "      <system-out>");
		report_put_xml(out, c->body.ptr);
		kb_buf_puts(out, "</system-out>\n");
	}
	kb_buf_puts(out, "    </testcase>\n");
}

static size_t total(const struct jsuite *s, size_t n, enum outcome o)
{
	size_t i, t = 0;

	for (i = 0; i < n; i++)
		t += o == J_PASS ? s[i].n : s[i].counts[o];
	return t;
}

static void put_counts(struct kb_buf *out, const struct jsuite *s, size_t n)
{
	kb_buf_printf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\"",
		      total(s, n, J_PASS), total(s, n, J_FAIL), total(s, n, J_ERROR),
		      total(s, n, J_SKIP));
}

static void put_suites(struct kb_buf *out, const struct kb_report *r,
		       const struct kb_report_branch *b, const struct kb_report_lane *l,
		       const struct jsuite *s, size_t n)
{
	struct kb_buf name = KB_BUF_INIT;
	size_t i, j;

	kb_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	kb_buf_printf(&name, "kbackport %s %s %s", r->fix, b->name, kb_lane_kind_name(l->kind));
	kb_buf_carry_oom(out, &name);
	put_attr(out, "name", name.ptr);
	put_counts(out, s, n);
	kb_buf_puts(out, ">\n");
	for (i = 0; i < n; i++) {
		kb_buf_carry_oom(out, &s[i].name);
		kb_buf_puts(out, "  <testsuite");
		put_attr(out, "name", s[i].name.ptr);
		put_counts(out, &s[i], 1);
		kb_buf_puts(out, ">\n");
		for (j = 0; j < s[i].n; j++)
			put_case(out, &s[i].cases[j]);
		kb_buf_puts(out, "  </testsuite>\n");
	}
	kb_buf_puts(out, "</testsuites>\n");
	kb_buf_release(&name);
}

int kb_report_junit(struct kb_buf *out, const struct kb_report *r,
		    const struct kb_report_branch *b, const struct kb_report_lane *l)
{
	struct jsuite *s = calloc(l->nsuites + 2, sizeof(*s));
	size_t i, n = 0;
	int err;

	KB_ERROR_CHECK_ALLOC(s);
	n = 1;
	kb_buf_printf(&s[0].name, "%s.%s", b->name, kb_lane_kind_name(l->kind));
	if ((err = stage_apply(&s[0], b, l)) < 0 || (err = stage_build(&s[0], r, l)) < 0 ||
	    (err = stage_test(&s[0], l)) < 0)
		goto done;
	if (b->queue.present && l->kind == KB_LANE_BACKPORT && (err = queue_suite(&s[n++], b, l)) < 0)
		goto done;
	for (i = 0; i < l->nsuites && !err; i++)
		err = ktap_suite(&s[n++], b, l, &l->suites[i]);
	if (!err) {
		put_suites(out, r, b, l, s, n);
		err = kb_buf_check(out);
	}
done:
	for (i = 0; i < n; i++)
		jsuite_release(&s[i]);
	free(s);
	return err;
}
