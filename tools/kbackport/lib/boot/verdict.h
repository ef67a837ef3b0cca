/*
 * Verdicts: what a lane's test results say about a fix, and what a
 * branch's lanes say together. The rules (tests/cases.yaml declares what
 * each case proves):
 *
 * Lane (one boot, one fix), from the suites that can run on its kernel
 * (KUnit suites are not-applicable on a kernel without KUnit):
 *   error        no suite could run, the boot did not end cleanly (timeout, panic, QEMU
 *                failed, the guest never said it was done), a suite that
 *                should have run is missing or its KTAP is broken, a
 *                declared case is missing, or an undeclared case ran
 *   fixed        every case passed (skips allowed), and some case that ran
 *                detects the fix: the tests looked for it
 *   untested     every case passed, but no case that ran detects the fix:
 *                the kernel booted, nothing tested the fix
 *   vulnerable   some cases failed, and every one of them detects the fix
 *   regression   a case that detects no fix at all failed
 * A failed case that detects only other fixes (not under test: a test
 * directory several fixes share) is named in the reason and judges nothing.
 *
 * Branch (its lanes for one fix): the baseline is the pre-fix lane when
 * there is one, else the as-is lane; the result is the backport lane when
 * there is one, else the as-is lane.
 *   error        a lane is error
 *   regression   a lane is regression
 *   vulnerable   the result lane (or the shipped as-is lane) is vulnerable
 *   verified     the baseline is vulnerable and the backport lane fixed:
 *                the tests saw the bug and saw it gone
 *   fixed        the result lane is fixed but the bug was never seen: the
 *                branch has no lane without the fix, or (noted loudly) the
 *                baseline passed everything, so the tests did not detect
 *                the bug there
 *   untested     the result lane is untested: no case detects the fix
 *   skipped      no lane was tested
 */
#ifndef KB_VERDICT_H
#define KB_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "boot/cases.h"
#include "boot/ktap.h"
#include "lanes.h"

enum kb_verdict {
	KB_VERDICT_FIXED,
	KB_VERDICT_VULNERABLE,
	KB_VERDICT_REGRESSION,
	KB_VERDICT_ERROR,
	KB_VERDICT_SKIPPED,
	KB_VERDICT_VERIFIED,	/* branches only */
	KB_VERDICT_CONFLICT,	/* branches only: the fix does not apply */
	KB_VERDICT_NOT_AFFECTED,	/* branches only: the vulnerable code is absent */
	KB_VERDICT_UNTESTED,	/* booted and passed, but no case detects the fix */
};

/* "fixed", "vulnerable", "regression", "error", "skipped", "verified",
 * "conflict", "not-affected", "untested". */
const char *kb_verdict_name(enum kb_verdict verdict);
/* The verdict named `name` (one of the above): true, or false when none is. */
bool kb_verdict_parse(enum kb_verdict *out, const char *name);

struct kb_lane_verdict {
	enum kb_verdict verdict;
	char *reason;		/* one line per finding: failed cases with what
				 * they prove, or why there is no verdict */
};

/*
 * The verdict of one lane for `fix_id` from its console's KTAP. `problem`
 * is the boot's own failure (timeout, panic...) or NULL; `with_kunit` says
 * whether the kernel has the built-in suites (runs: kunit).
 */
int kb_lane_verdict(struct kb_lane_verdict *out, const struct kb_cases *cases,
		    const struct kb_ktap_result *ktap, bool with_kunit,
		    const char *fix_id, const char *problem);

/*
 * The same for a queue of fixes (kbackport run --queue): a failed case is
 * one that detects a missing fix when it detects any of `fix_ids`.
 */
int kb_lane_verdict_any(struct kb_lane_verdict *out, const struct kb_cases *cases,
			const struct kb_ktap_result *ktap, bool with_kunit,
			const char *const *fix_ids, size_t nfix_ids, const char *problem);

void kb_lane_verdict_release(struct kb_lane_verdict *v);

/*
 * The KUnit suites of `cases` (runs: kunit) named in v->reason, before its
 * other lines, as "<suite>: not-applicable (<why>)": on a kernel that
 * cannot have KUnit (before 5.5), whose verdict kb_lane_verdict() gave
 * without them (with_kunit false). The verdict itself is not changed.
 */
int kb_lane_verdict_not_applicable(struct kb_lane_verdict *v, const struct kb_cases *cases,
				   const char *why);

struct kb_lane_outcome {
	enum kb_lane_kind kind;
	enum kb_verdict verdict;
};

/*
 * A branch's verdict from its lanes' verdicts (for one fix); *note is a
 * malloc'ed warning ("the tests did not detect ... on the pre-fix lane")
 * or NULL.
 */
int kb_branch_verdict(enum kb_verdict *out, char **note, const struct kb_lane_outcome *lanes,
		      size_t n, const char *fix_id);

/* The worse of two branch verdicts (error > regression > conflict >
 * vulnerable > untested > fixed > verified > not-affected > skipped), to
 * combine fixes. */
enum kb_verdict kb_verdict_worse(enum kb_verdict a, enum kb_verdict b);

#endif
