/*
 * Testing lanes one after another (kbackport test, kbackport run): what
 * the lanes share, loaded once: the test cases and their declarations,
 * the modules a distribution kernel's initramfs needs, and the choice of
 * accelerator (TCG, or KVM once a probe boot has proved it works).
 */
#ifndef KB_TESTER_H
#define KB_TESTER_H

#include <stdbool.h>

#include "boot/cases.h"
#include "boot/test.h"
#include "boot/verdict.h"

struct kb_tester {
	struct kb_test_opts opts;	/* accel becomes KVM after a good probe */
	struct kb_cases *cases;
	char *guest_cases;	/* the guest suites of `cases`, as the guest reads them */
	char **distro_modules;	/* NULL-terminated, borrowed from cases */
	bool accel_auto;	/* probe KVM before the first boot */
	bool accel_probed;
	char *accel_note;	/* why KVM is not used, or NULL */
};

/*
 * A tester of lanes with `cases` (taken over: freed with the tester; NULL:
 * no case at all, every lane untested); `opts` is copied (its strings are
 * borrowed).
 */
int kb_tester_init(struct kb_tester *t, const struct kb_test_opts *opts,
		   struct kb_cases *cases, bool accel_auto);
void kb_tester_release(struct kb_tester *t);

struct kb_lane_test {
	bool booted;		/* false: the verdict says why not */
	struct kb_test_run run;
	struct kb_lane_verdict verdict;
};

/*
 * Boot `target` (after the KVM probe, when asked for) and decide its
 * verdict for `fix_id`. `with_kunit`: the kernel has the built-in suites.
 */
int kb_tester_lane(struct kb_lane_test *out, struct kb_tester *t,
		   const struct kb_test_target *target, bool with_kunit, const char *fix_id);
/* The same for a queue: the verdict for all of `fix_ids` (kb_lane_verdict_any()). */
int kb_tester_lane_any(struct kb_lane_test *out, struct kb_tester *t,
		       const struct kb_test_target *target, bool with_kunit,
		       const char *const *fix_ids, size_t nfix_ids);

/* A lane that cannot be booted: an `error` verdict saying `why`. */
int kb_lane_test_error(struct kb_lane_test *out, const char *why);

void kb_lane_test_release(struct kb_lane_test *lt);

#endif
