/*
 * The one place kbackport starts other programs (apt-get, make, QEMU...):
 * fork, the child's standard streams, environment and directory, exec,
 * then wait, poll or kill. Each child runs in a process group of its own
 * and is tracked (child.h) from start until reaped, so an interrupted
 * kbackport stops it.
 *
 * Like the system calls under it, these functions report a failure as -1
 * with errno set and record no message: the caller names the program in
 * its own words ("cannot start qemu: ...").
 */
#ifndef KB_SPAWN_H
#define KB_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

/* Where a child's standard output or error goes (else a file descriptor). */
enum {
	KB_SPAWN_NULL = -1,	/* /dev/null */
	KB_SPAWN_PIPE = -2,	/* a pipe whose read end is kb_spawn.pipe_fd */
	KB_SPAWN_AS_OUT = -3,	/* standard error only: where standard output goes */
};

struct kb_spawn {
	/* set by the caller */
	const char *const *argv;	/* argv[0] is searched in PATH */
	const char *cwd;		/* NULL: here; the child exits 126 when it cannot go there */
	const char *const *unset_env;	/* NULL-terminated names, or NULL */
	const char *const *set_env;	/* NULL-terminated "NAME=value", or NULL */
	int out;			/* KB_SPAWN_NULL, KB_SPAWN_PIPE or an fd */
	int err;			/* the same, or KB_SPAWN_AS_OUT */
	bool say_exec_error;		/* "cannot run '<argv[0]>': ..." on its stderr */

	/* set by kb_spawn_start() */
	pid_t pid;			/* 0 before the start and once reaped */
	int pipe_fd;			/* the pipe's read end (closed by the caller), or -1 */
};

/* A description with standard input, output and error on /dev/null. */
void kb_spawn_init(struct kb_spawn *s, const char *const *argv);

/*
 * Start the child (standard input from /dev/null). 127 is its exit status
 * when argv[0] cannot be run. Returns 0, or -1 with errno.
 */
int kb_spawn_start(struct kb_spawn *s);

/* Wait for the child to end: its wait status in *status. 0, or -1 with errno. */
int kb_spawn_wait(struct kb_spawn *s, int *status);

/*
 * Reap the child if it has ended (1, its status in *status), else 0;
 * -1 with errno.
 */
int kb_spawn_poll(struct kb_spawn *s, int *status);

/* Kill the child's whole process group (SIGKILL) and reap it. */
void kb_spawn_kill(struct kb_spawn *s, int *status);

/* A wait status as a shell shows it: the exit status, or 128 + the signal. */
int kb_spawn_exit_code(int status);

#endif
