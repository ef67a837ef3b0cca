#include "util/interrupt.h"

#include <signal.h>
#include <unistd.h>

#define MAX_CHILDREN 16

static volatile sig_atomic_t groups[MAX_CHILDREN];
static volatile sig_atomic_t work_total = -1, work_done, work_refs;

void kb_child_own_group(void)
{
	setpgid(0, 0);
}

void kb_child_track(pid_t pid)
{
	size_t i;

	setpgid(pid, pid);	/* the child may not have run yet */
	for (i = 0; i < MAX_CHILDREN; i++)
		if (!groups[i]) {
			groups[i] = pid;
			return;
		}
}

void kb_child_untrack(pid_t pid)
{
	size_t i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (groups[i] == pid)
			groups[i] = 0;
}

void kb_children_kill(int sig)
{
	size_t i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (groups[i] > 0)
			kill(-(pid_t)groups[i], sig);
}

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
