/*
 * What an interruption (^C, kill, a closed terminal) needs besides
 * stopping the running programs (kb_processes_kill(), util/process.h): the
 * signals held while a ref is written, and how far the command got, kept
 * where the signal handler can read it and say it.
 */
#ifndef KB_INTERRUPT_H
#define KB_INTERRUPT_H

#include <signal.h>

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
