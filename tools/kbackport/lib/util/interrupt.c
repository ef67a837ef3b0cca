#include "util/interrupt.h"

#include <signal.h>

static volatile sig_atomic_t work_total = -1, work_done, work_refs;

void kb_signals_hold(sigset_t *saved)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, saved);
}

void kb_signals_release(const sigset_t *saved)
{
	sigprocmask(SIG_SETMASK, saved, NULL);
}

void kb_work_start(long total)
{
	work_done = 0;
	work_total = (sig_atomic_t)total;
}

void kb_work_step(void)
{
	work_done = work_done + 1;
}

void kb_work_ref_written(void)
{
	work_refs = work_refs + 1;
}

void kb_work_get(struct kb_work *out)
{
	out->total = work_total;
	out->done = work_done;
	out->refs = work_refs;
}
