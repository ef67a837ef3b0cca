#include "boot/verdict.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {
	[KB_VERDICT_FIXED] = "fixed",
	[KB_VERDICT_VULNERABLE] = "vulnerable",
	[KB_VERDICT_REGRESSION] = "regression",
	[KB_VERDICT_ERROR] = "error",
	[KB_VERDICT_SKIPPED] = "skipped",
	[KB_VERDICT_VERIFIED] = "verified",
	[KB_VERDICT_CONFLICT] = "conflict",
	[KB_VERDICT_NOT_AFFECTED] = "not-affected",
	[KB_VERDICT_UNTESTED] = "untested",
};

const char *kb_verdict_name(enum kb_verdict verdict)
{
	return verdict_names[verdict];
}

bool kb_verdict_parse(enum kb_verdict *out, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(verdict_names) / sizeof(*verdict_names); i++)
		if (!strcmp(verdict_names[i], name)) {
			*out = (enum kb_verdict)i;
			return true;
		}
	return false;
}

void kb_lane_verdict_release(struct kb_lane_verdict *v)
{
	free(v->reason);
	memset(v, 0, sizeof(*v));
}

/* What one lane's run showed, gathered before deciding. */
struct tally {
	struct kb_buf errors;		/* why there can be no verdict */
	struct kb_buf detecting;	/* failed cases that detect the fix */
	struct kb_buf foreign;		/* ... that detect only fixes not under test */
	struct kb_buf others;		/* ... that detect no fix */
	size_t ran;			/* suites tallied */
	size_t looking;			/* declared cases of those that detect the fix */
	const char *const *fix_ids;	/* a failure of a case detecting one of
					 * them shows a fix missing */
	size_t nfix_ids;
};

/* The declared cases of `decl` that `suite` did not report. */
static int check_missing(struct tally *t, const struct kb_suite_decl *decl,
			 const struct kb_ktap_suite *suite)
{
	size_t c, i;
	int err = 0;

	for (c = 0; c < decl->ncases && !err; c++) {
		for (i = 0; i < suite->ncases; i++)
			if (!strcmp(suite->cases[i].name, decl->cases[c].name))
				break;
		if (i == suite->ncases)
			err = kb_buf_printf(&t->errors, "%s.%s: declared, but did not run\n",
					    decl->name, decl->cases[c].name);
	}
	return err;
}

/* "<suite>.<case> failed (detects <ids><what>): <proves>" */
static int failed_line(struct kb_buf *out, const struct kb_suite_decl *decl,
		       const struct kb_case *c, const char *what)
{
	size_t i;

	kb_buf_printf(out, "%s.%s failed (detects ", decl->name, c->name);
	for (i = 0; i < c->ndetects; i++)
		kb_buf_printf(out, "%s%s", i ? ", " : "", c->detects[i]);
	kb_buf_printf(out, "%s): %s\n", what, c->proves);
	return kb_buf_check(out);
}

static int tally_case(struct tally *t, const struct kb_suite_decl *decl,
		      const struct kb_ktap_case *kc)
{
	const struct kb_case *c = kb_suite_case(decl, kc->name);

	if (!c)
		return kb_buf_printf(&t->errors,
				     "%s.%s: ran, but is not declared in the cases file\n",
				     decl->name, kc->name);
	if (kc->status == KB_KTAP_ERROR)
		return kb_buf_printf(&t->errors, "%s.%s: no result\n", decl->name, kc->name);
	if (kc->status != KB_KTAP_FAIL)
		return 0;
	if (kb_case_detects_any(c, t->fix_ids, t->nfix_ids))
		return failed_line(&t->detecting, decl, c, "");
	if (c->ndetects)
		return failed_line(&t->foreign, decl, c, ", not under test");
	return kb_buf_printf(&t->others, "%s.%s failed: %s\n", decl->name, c->name, c->proves);
}

static int tally_suite(struct tally *t, const struct kb_suite_decl *decl,
		       const struct kb_ktap_result *ktap)
{
	const struct kb_ktap_suite *suite = kb_ktap_find_suite(ktap, decl->name);
	size_t i;
	int err;

	t->ran++;
	for (i = 0; i < decl->ncases; i++)
		t->looking += kb_case_detects_any(&decl->cases[i], t->fix_ids, t->nfix_ids);
	if (!suite)
		return kb_buf_printf(&t->errors, "suite '%s': no KTAP on the console\n", decl->name);
	if (suite->status == KB_KTAP_ERROR)
		return suite->error ? kb_buf_printf(&t->errors, "%s\n", suite->error)
				    : kb_buf_printf(&t->errors, "suite '%s': broken KTAP\n", decl->name);
	if ((err = check_missing(t, decl, suite)) < 0)
		return err;
	for (i = 0; i < suite->ncases && !err; i++)
		err = tally_case(t, decl, &suite->cases[i]);
	return err;
}

/* "no case detects A, B: ..." into `why`. */
static int untested_line(struct kb_buf *why, const struct tally *t)
{
	size_t i;

	kb_buf_puts(why, "no case detects ");
	for (i = 0; i < t->nfix_ids; i++)
		kb_buf_printf(why, "%s%s", i ? ", " : "", t->fix_ids[i]);
	kb_buf_puts(why, ": the kernel booted and every case passed, but nothing tested the fix\n");
	return kb_buf_check(why);
}

static int decide(struct kb_lane_verdict *out, struct tally *t)
{
	struct kb_buf *why;
	int err = 0;

	if (t->errors.size) {
		out->verdict = KB_VERDICT_ERROR;
		why = &t->errors;
	} else if (t->others.size) {
		out->verdict = KB_VERDICT_REGRESSION;
		err = kb_buf_puts(&t->others, t->detecting.ptr ? t->detecting.ptr : "");
		why = &t->others;
	} else if (t->detecting.size) {
		out->verdict = KB_VERDICT_VULNERABLE;
		why = &t->detecting;
	} else if (!t->looking) {
		out->verdict = KB_VERDICT_UNTESTED;
		why = &t->detecting;
		err = untested_line(why, t);
	} else {
		out->verdict = KB_VERDICT_FIXED;
		why = &t->detecting;
	}
	/* failures of cases that judge other fixes are said, whatever the verdict */
	if (!err && t->foreign.size && out->verdict != KB_VERDICT_ERROR)
		err = kb_buf_puts(why, t->foreign.ptr);
	if (err < 0)
		return kb_error_oom();
	if (!why->size)
		return 0;
	why->ptr[--why->size] = '\0';	/* the last newline */
	out->reason = kb_buf_detach(why);
	return 0;
}

int kb_lane_verdict(struct kb_lane_verdict *out, const struct kb_cases *cases,
		    const struct kb_ktap_result *ktap, bool with_kunit,
		    const char *fix_id, const char *problem)
{
	return kb_lane_verdict_any(out, cases, ktap, with_kunit, &fix_id, 1, problem);
}

int kb_lane_verdict_any(struct kb_lane_verdict *out, const struct kb_cases *cases,
			const struct kb_ktap_result *ktap, bool with_kunit,
			const char *const *fix_ids, size_t nfix_ids, const char *problem)
{
	struct tally t = { KB_BUF_INIT, KB_BUF_INIT, KB_BUF_INIT, KB_BUF_INIT, 0, 0, fix_ids,
			   nfix_ids };
	size_t s;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (problem)
		kb_buf_printf(&t.errors, "%s\n", problem);
	if (ktap->error)
		kb_buf_printf(&t.errors, "%s\n", ktap->error);
	for (s = 0; s < cases->nsuites && !err; s++)
		if (with_kunit || cases->suites[s].runs != KB_RUNS_KUNIT)
			err = tally_suite(&t, &cases->suites[s], ktap);
	/* a verdict rests on the suites that ran: none is no verdict */
	if (!err && !t.ran && cases->nsuites)
		kb_buf_puts(&t.errors, "no suite of the cases file can run on this kernel "
			    "(every one needs KUnit)\n");
	if (!err && (err = kb_buf_check(&t.errors)) == 0)
		err = decide(out, &t);
	kb_buf_release(&t.errors);
	kb_buf_release(&t.detecting);
	kb_buf_release(&t.foreign);
	kb_buf_release(&t.others);
	return err;
}

int kb_lane_verdict_not_applicable(struct kb_lane_verdict *v, const struct kb_cases *cases,
				   const char *why)
{
	struct kb_buf lines = KB_BUF_INIT;
	size_t s;
	int err;

	for (s = 0; s < cases->nsuites; s++)
		if (cases->suites[s].runs == KB_RUNS_KUNIT)
			kb_buf_printf(&lines, "%s%s: not-applicable (%s)", lines.size ? "\n" : "",
				      cases->suites[s].name, why);
	if (lines.size && v->reason)
		kb_buf_printf(&lines, "\n%s", v->reason);
	if ((err = kb_buf_check(&lines)) == 0 && lines.size) {
		free(v->reason);
		v->reason = kb_buf_detach(&lines);
	}
	kb_buf_release(&lines);
	return err;
}

/* ---- branches ---- */

static const struct kb_lane_outcome *find(const struct kb_lane_outcome *lanes, size_t n,
					  enum kb_lane_kind kind)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lanes[i].kind == kind)
			return &lanes[i];
	return NULL;
}

static bool any(const struct kb_lane_outcome *lanes, size_t n, enum kb_verdict v)
{
	return n && (lanes[0].verdict == v || any(lanes + 1, n - 1, v));
}

int kb_branch_verdict(enum kb_verdict *out, char **note, const struct kb_lane_outcome *lanes,
		      size_t n, const char *fix_id)
{
	const struct kb_lane_outcome *as_is = find(lanes, n, KB_LANE_AS_IS);
	const struct kb_lane_outcome *pre = find(lanes, n, KB_LANE_PRE_FIX);
	const struct kb_lane_outcome *backport = find(lanes, n, KB_LANE_BACKPORT);
	const struct kb_lane_outcome *baseline = pre ? pre : as_is;
	const struct kb_lane_outcome *result = backport ? backport : as_is;
	struct kb_buf msg = KB_BUF_INIT;

	*note = NULL;
	if (!n || !result) {
		*out = KB_VERDICT_SKIPPED;
		return 0;
	}
	if (any(lanes, n, KB_VERDICT_ERROR))
		*out = KB_VERDICT_ERROR;
	else if (any(lanes, n, KB_VERDICT_REGRESSION))
		*out = KB_VERDICT_REGRESSION;
	else if (result->verdict == KB_VERDICT_VULNERABLE ||
		 (pre && as_is && as_is->verdict == KB_VERDICT_VULNERABLE))
		*out = KB_VERDICT_VULNERABLE;
	else if (result->verdict == KB_VERDICT_SKIPPED)
		*out = KB_VERDICT_SKIPPED;
	else if (result->verdict == KB_VERDICT_UNTESTED)
		*out = KB_VERDICT_UNTESTED;
	else if (backport && baseline && baseline->verdict == KB_VERDICT_VULNERABLE)
		*out = KB_VERDICT_VERIFIED;
	else
		*out = KB_VERDICT_FIXED;
	if (*out == KB_VERDICT_FIXED && backport && baseline &&
	    baseline->verdict == KB_VERDICT_FIXED) {
		if (kb_buf_printf(&msg, "the tests did not detect %s on the %s lane: "
				  "it passed every case, so this backport is not verified",
				  fix_id, kb_lane_kind_name(baseline->kind)) < 0)
			return kb_error_oom();
		*note = kb_buf_detach(&msg);
	}
	return 0;
}

static int rank(enum kb_verdict v)
{
	static const int ranks[] = {
		[KB_VERDICT_SKIPPED] = 0, [KB_VERDICT_NOT_AFFECTED] = 1, [KB_VERDICT_VERIFIED] = 2,
		[KB_VERDICT_FIXED] = 3, [KB_VERDICT_UNTESTED] = 4, [KB_VERDICT_VULNERABLE] = 5,
		[KB_VERDICT_CONFLICT] = 6, [KB_VERDICT_REGRESSION] = 7, [KB_VERDICT_ERROR] = 8,
	};
	return ranks[v];
}

enum kb_verdict kb_verdict_worse(enum kb_verdict a, enum kb_verdict b)
{
	return rank(a) >= rank(b) ? a : b;
}
