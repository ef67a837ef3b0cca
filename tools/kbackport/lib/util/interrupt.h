/*
 * The programs kbackport is running right now (make, QEMU, apt-get...),
 * each in a process group of its own, so that an interrupted kbackport can
 * stop them all (kb_children_kill() from a signal handler) instead of
 * leaving a QEMU or a make behind. A child that ignores the terminal's ^C
 * (it is not in the foreground group) still stops with kbackport.
 */
#ifndef KB_CHILD_H
#define KB_CHILD_H

#include <signal.h>
#include <sys/types.h>

/* In the child, before exec: a process group of its own. */
void kb_child_own_group(void);

/* In the parent, after fork: remember `pid` (its group) until untracked. */
void kb_child_track(pid_t pid);
void kb_child_untrack(pid_t pid);

/* Send `sig` to every tracked child's group. Async-signal-safe. */
void kb_children_kill(int sig);

/*
 * Hold SIGINT, SIGTERM and SIGHUP while a ref is written (its lock file
 * created, written, renamed), so that an interruption never leaves a stale
 * "<ref>.lock" the next run would refuse: a signal that came meanwhile is
 * delivered by kb_signals_release(), with the ref whole.
 */
void kb_signals_hold(sigset_t *saved);
void kb_signals_release(const sigset_t *saved);

/*
 * What the command has done so far, kept where a signal handler can read
 * it, so that an interruption can say it: `total` items (branches) to do,
 * how many are finished, and how many refs were written. A ref is counted
 * by kb_work_ref_written() while the signals are held (kb_signals_hold()),
 * so the count never misses a ref that exists nor names one that does not.
 */
struct kb_work {
	long total;		/* -1: no work started (kb_work_start()) */
	long done;
	long refs;
};

void kb_work_start(long total);
void kb_work_step(void);
void kb_work_ref_written(void);
/* Async-signal-safe. */
void kb_work_get(struct kb_work *out);

#endif
