/*
 * The one place kbackport starts other programs (apt-get, dpkg-deb, make,
 * QEMU...): fork, the child's standard streams, environment and directory,
 * exec, then wait, poll or kill. Each child runs in a process group of its
 * own and is tracked from start until reaped, so that an interrupted
 * kbackport stops them all (kb_processes_kill() from a signal handler)
 * instead of leaving a QEMU or a make behind: a child that ignores the
 * terminal's ^C (it is not in the foreground group) still stops with
 * kbackport.
 *
 * The struct kb_process functions, like the system calls under them,
 * report a failure as -1 with errno set and record no message: the caller
 * names the program in its own words ("cannot start qemu: ..."). The
 * kb_process_run*() and kb_process_capture() wrappers run a program to its
 * end and record a message naming it, as the rest of the library.
 */
#ifndef KB_PROCESS_H
#define KB_PROCESS_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/progress.h"

/* Where a child's standard output or error goes (else a file descriptor). */
enum {
	KB_PROCESS_NULL = -1,	/* /dev/null */
	KB_PROCESS_PIPE = -2,	/* a pipe whose read end is kb_process.pipe_fd */
	KB_PROCESS_AS_OUT = -3,	/* standard error only: where standard output goes */
};

struct kb_process {
	/* set by the caller */
	const char *const *argv;	/* argv[0] is searched in PATH */
	const char *cwd;		/* NULL: here; the child exits 126 when it cannot go there */
	const char *const *unset_env;	/* NULL-terminated names, or NULL */
	const char *const *set_env;	/* NULL-terminated "NAME=value", or NULL */
	int out;			/* KB_PROCESS_NULL, KB_PROCESS_PIPE or an fd */
	int err;			/* the same, or KB_PROCESS_AS_OUT */
	bool say_exec_error;		/* "cannot run '<argv[0]>': ..." on its stderr */

	/* set by kb_process_start() */
	pid_t pid;			/* 0 before the start and once reaped */
	int pipe_fd;			/* the pipe's read end (closed by the caller), or -1 */
};

/* A description with standard input, output and error on /dev/null. */
void kb_process_init(struct kb_process *p, const char *const *argv);

/*
 * Start the child (standard input from /dev/null). 127 is its exit status
 * when argv[0] cannot be run. Returns 0, or -1 with errno.
 */
int kb_process_start(struct kb_process *p);

/* Wait for the child to end: its wait status in *status. 0, or -1 with errno. */
int kb_process_wait(struct kb_process *p, int *status);

/*
 * Reap the child if it has ended (1, its status in *status), else 0;
 * -1 with errno.
 */
int kb_process_poll(struct kb_process *p, int *status);

/* Kill the child's whole process group (SIGKILL) and reap it. */
void kb_process_kill(struct kb_process *p, int *status);

/* A wait status as a shell shows it: the exit status, or 128 + the signal. */
int kb_process_exit_code(int status);

/* Send `sig` to every running child's group. Async-signal-safe. */
void kb_processes_kill(int sig);

/*
 * Run argv[0] (searched in PATH) with `argv`, in `cwd` (NULL: here), its
 * standard output and error appended to `log` (NULL: discarded), standard
 * input from /dev/null. Returns the exit status (0..255), or a negative
 * code when it could not be started or was killed by a signal (with a
 * message naming the program).
 */
int kb_process_run(const char *const argv[], const char *cwd, const char *log);

/*
 * kb_process_run() calling `ticker` (may be NULL) every interval while the
 * program runs, with a tick of `step` ("download") and the seconds since it
 * began.
 */
int kb_process_run_ticked(const char *const argv[], const char *cwd, const char *log,
			  const struct kb_ticker *ticker, const char *step);

/*
 * Like kb_process_run() with a `log`, and a non-zero exit is an error too:
 * its message names the program and ends with the last lines of `log`.
 */
int kb_process_run_logged(const char *const argv[], const char *cwd, const char *log);

/* kb_process_run_logged() with ticks, as kb_process_run_ticked(). */
int kb_process_run_logged_ticked(const char *const argv[], const char *cwd, const char *log,
				 const struct kb_ticker *ticker, const char *step);

/*
 * Like kb_process_run() without a log; the first line of standard output
 * goes to *out (malloc'ed, without the newline; "" when none).
 */
int kb_process_capture(char **out, const char *const argv[]);

#endif
