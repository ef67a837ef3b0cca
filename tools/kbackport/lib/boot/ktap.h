/*
 * KTAP results from a console log (Documentation/dev-tools/ktap.rst): the
 * kernel's built-in KUnit suites, then the guest program's, each a KTAP
 * document whose subtests are suites whose subtests are cases:
 *
 *   KTAP version 1                  document (also "TAP version 13/14")
 *   1..1
 *       KTAP version 1              suite
 *       # Subtest: kbackport_caps
 *       1..2
 *       ok 1 first_case             case
 *       # second_case: why it fails diagnostic, for the next result
 *       not ok 2 second_case
 *   not ok 1 kbackport_caps
 *
 * Like the kernel's tools/testing/kunit/kunit_parser.py, lines may carry a
 * printk timestamp ("[    1.234567] ") and a constant prefix before
 * "KTAP version", which are stripped; other lines (kernel messages
 * interleaved with the results) are ignored. A case may have parameterised
 * runs one level down. Every document in the log is read.
 *
 * Nothing passes unless its own result line was seen: a suite whose
 * results do not match its plan, which is cut short (a panic, the end of
 * the log, a new document), has duplicate or out-of-order test numbers,
 * or results without a plan, is KB_KTAP_ERROR with the reason in `error`.
 */
#ifndef KB_KTAP_H
#define KB_KTAP_H

#include <stdbool.h>
#include <stddef.h>

enum kb_ktap_status {
	KB_KTAP_PASS,
	KB_KTAP_FAIL,
	KB_KTAP_SKIP,
	KB_KTAP_ERROR,
};

struct kb_ktap_case {
	char *name;
	enum kb_ktap_status status;	/* ERROR: started, never got a result */
	char *diag;		/* the diagnostic lines before its result, "# "
				 * dropped, '\n'-joined, then its directive
				 * ("SKIP reason"); NULL when none */
	struct kb_ktap_case *params;	/* parameterised runs (no params of
					 * their own), or NULL */
	size_t nparams;
};

struct kb_ktap_suite {
	char *name;
	enum kb_ktap_status status;
	struct kb_ktap_case *cases;
	size_t ncases;
	size_t pass, fail, skip;	/* cases by status; ERROR cases in none */
	char *error;		/* why ERROR ("suite 'x': plan 1..6 but 3
				 * results"), else NULL */
	size_t line;		/* where it starts in the log, from 1 */
	char *ktap;		/* the suite alone as a KTAP document: see
				 * kb_ktap_suite_document() */
};

struct kb_ktap_result {
	struct kb_ktap_suite *suites;	/* in log order */
	size_t nsuites;
	size_t ndocuments;
	char *error;		/* what is wrong with the documents themselves
				 * ("KTAP document at line 1: plan 1..3 but 2
				 * results"), "; "-joined, else NULL */
};

/*
 * Parse the KTAP in `log` (`len` bytes, NUL bytes allowed) into `*out`.
 * A log without KTAP gives no suites and no error: the caller decides.
 * Broken KTAP is reported in the suites' and the result's `error`, not
 * by the return value: 0, or KB_ENOMEM (then *out is empty).
 */
int kb_ktap_parse(struct kb_ktap_result *out, const char *log, size_t len);

void kb_ktap_result_release(struct kb_ktap_result *r);

/* The first suite called `name`, or NULL. */
const struct kb_ktap_suite *kb_ktap_find_suite(const struct kb_ktap_result *r,
					       const char *name);

/* "pass", "fail", "skip", "error". */
const char *kb_ktap_status_name(enum kb_ktap_status s);
/* The status named `name`: true, or false when none is. */
bool kb_ktap_status_parse(enum kb_ktap_status *out, const char *name);

/*
 * Suite `name` as a standalone KTAP document for reports and for kunit.py:
 * the document's version line, "1..1", then exactly the suite's KTAP lines
 * as the log has them, timestamp and prefix stripped, other kernel
 * messages left out, with its own result line numbered 1. `*out` is the
 * caller's. KB_ENOTFOUND when there is no such suite.
 */
int kb_ktap_suite_document(char **out, const struct kb_ktap_result *r, const char *name);

#endif
