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

#endif
