#include "boot/tester.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/* The modules the guest suites need, for kernels that bring all of theirs. */
static int guest_modules(char ***out, const struct kb_cases *cases)
{
	size_t s, m, n = 0;

	for (s = 0; s < cases->nsuites; s++)
		n += cases->suites[s].nmodules;
	*out = calloc(n + 1, sizeof(char *));
	KB_ERROR_CHECK_ALLOC(*out);
	for (s = n = 0; s < cases->nsuites; s++)
		for (m = 0; m < cases->suites[s].nmodules; m++)
			(*out)[n++] = cases->suites[s].modules[m];
	return 0;
}

int kb_tester_init(struct kb_tester *t, const struct kb_test_opts *opts,
		   struct kb_cases *cases, bool accel_auto)
{
	int err = 0;

	memset(t, 0, sizeof(*t));
	t->opts = *opts;
	t->accel_auto = accel_auto;
	t->cases = cases;
	if (!t->cases && (!(t->cases = calloc(1, sizeof(*t->cases))) ||
			  !(t->cases->path = kb_strdup("(no cases)"))))
		err = kb_error_oom();
	if (err < 0 || (err = kb_cases_guest_text(&t->guest_cases, t->cases)) < 0 ||
	    (err = guest_modules(&t->distro_modules, t->cases)) < 0)
		kb_tester_release(t);
	return err;
}

void kb_tester_release(struct kb_tester *t)
{
	kb_cases_free(t->cases);
	free(t->guest_cases);
	free(t->distro_modules);
	free(t->accel_note);
	memset(t, 0, sizeof(*t));
}

void kb_lane_test_release(struct kb_lane_test *lt)
{
	kb_test_run_release(&lt->run);
	kb_lane_verdict_release(&lt->verdict);
	memset(lt, 0, sizeof(*lt));
}

int kb_lane_test_error(struct kb_lane_test *out, const char *why)
{
	memset(out, 0, sizeof(*out));
	out->verdict.verdict = KB_VERDICT_ERROR;
	return (out->verdict.reason = kb_strdup(why)) ? 0 : kb_error_oom();
}

/* With accel_auto: one boot under KVM; only a boot that ran to the end
 * makes KVM the accelerator for the rest. */
static int probe_accel(struct kb_tester *t, const struct kb_test_target *target)
{
	struct kb_test_target probe = *target;
	struct kb_test_opts opts = t->opts;
	struct kb_test_run run;
	struct kb_buf dir = KB_BUF_INIT, note = KB_BUF_INIT;
	int err;

	t->accel_probed = true;
	if (!t->accel_auto)
		return 0;
	if ((err = kb_buf_printf(&dir, "%s/kvm-probe", target->outdir)) < 0)
		return err;
	probe.outdir = dir.ptr;
	opts.accel = KB_ACCEL_KVM;
	opts.timeout = 60;
	if ((err = kb_test_boot(&run, &probe, &opts)) == 0) {
		if (!run.problem)
			t->opts.accel = KB_ACCEL_KVM;
		else if ((err = kb_buf_printf(&note, "a KVM probe boot failed, booting under TCG: "
					      "%.*s", (int)strcspn(run.problem, "\n"),
					      run.problem)) == 0)
			t->accel_note = kb_buf_detach(&note);
		kb_test_run_release(&run);
	}
	kb_buf_release(&dir);
	return err;
}

int kb_tester_lane(struct kb_lane_test *out, struct kb_tester *t,
		   const struct kb_test_target *target, bool with_kunit, const char *fix_id)
{
	return kb_tester_lane_any(out, t, target, with_kunit, &fix_id, 1);
}

int kb_tester_lane_any(struct kb_lane_test *out, struct kb_tester *t,
		       const struct kb_test_target *target, bool with_kunit,
		       const char *const *fix_ids, size_t nfix_ids)
{
	struct kb_test_target with_cases = *target;
	int err;

	memset(out, 0, sizeof(*out));
	with_cases.guest_cases = t->guest_cases;
	if (!t->accel_probed && (err = probe_accel(t, &with_cases)) < 0)
		return err;
	if ((err = kb_test_boot(&out->run, &with_cases, &t->opts)) < 0)
		return err;
	out->booted = true;
	return kb_lane_verdict_any(&out->verdict, t->cases, &out->run.ktap, with_kunit, fix_ids,
				   nfix_ids, out->run.problem);
}
