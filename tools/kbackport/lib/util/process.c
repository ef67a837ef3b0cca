#include "util/process.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The process groups of the children running now (0: a free slot), kept
 * where a signal handler can read them: kb_processes_kill().
 */
#define MAX_CHILDREN 16

static volatile sig_atomic_t groups[MAX_CHILDREN];

/* In the parent, after fork: remember `pid` (its group) until untracked. */
static void track(pid_t pid)
{
	size_t i;

	setpgid(pid, pid);	/* the child may not have run yet */
	for (i = 0; i < MAX_CHILDREN; i++)
		if (!groups[i]) {
			groups[i] = pid;
			return;
		}
}

static void untrack(pid_t pid)
{
	size_t i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (groups[i] == pid)
			groups[i] = 0;
}

void kb_processes_kill(int sig)
{
	size_t i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (groups[i] > 0)
			kill(-(pid_t)groups[i], sig);
}

void kb_process_init(struct kb_process *p, const char *const *argv)
{
	memset(p, 0, sizeof(*p));
	p->argv = argv;
	p->out = KB_PROCESS_NULL;
	p->err = KB_PROCESS_NULL;
	p->pipe_fd = -1;
}

/* `want` (an fd, KB_PROCESS_NULL or KB_PROCESS_PIPE) as the child's `fd`. */
static void redirect(int want, int fd, int null_fd, int pipe_fd)
{
	int from = want == KB_PROCESS_PIPE ? pipe_fd : want == KB_PROCESS_NULL ? null_fd : want;

	if (from >= 0)
		dup2(from, fd);
}

/* In the child: streams, environment, directory, exec; never returns. */
static __attribute__((noreturn)) void child(const struct kb_process *p, int pipe_fd)
{
	int null_fd = open("/dev/null", O_RDWR);
	size_t i;

	setpgid(0, 0);	/* a process group of its own */
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	redirect(p->out, STDOUT_FILENO, null_fd, pipe_fd);
	if (p->err == KB_PROCESS_AS_OUT)
		dup2(STDOUT_FILENO, STDERR_FILENO);
	else
		redirect(p->err, STDERR_FILENO, null_fd, pipe_fd);
	for (i = 0; p->unset_env && p->unset_env[i]; i++)
		unsetenv(p->unset_env[i]);
	for (i = 0; p->set_env && p->set_env[i]; i++)
		putenv((char *)p->set_env[i]);
	if (p->cwd && chdir(p->cwd) < 0)
		_exit(126);
	execvp(p->argv[0], (char *const *)p->argv);
	if (p->say_exec_error)
		dprintf(STDERR_FILENO, "cannot run '%s': %s\n", p->argv[0], strerror(errno));
	_exit(127);
}

int kb_process_start(struct kb_process *p)
{
	bool piped = p->out == KB_PROCESS_PIPE || p->err == KB_PROCESS_PIPE;
	int fds[2] = { -1, -1 }, saved;

	p->pid = 0;
	p->pipe_fd = -1;
	if (piped && pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	if ((p->pid = fork()) < 0) {
		saved = errno;
		p->pid = 0;
		if (piped) {
			close(fds[0]);
			close(fds[1]);
		}
		errno = saved;
		return -1;
	}
	if (p->pid == 0)
		child(p, fds[1]);
	track(p->pid);
	if (piped) {
		close(fds[1]);
		p->pipe_fd = fds[0];
	}
	return 0;
}

static void reaped(struct kb_process *p)
{
	untrack(p->pid);
	p->pid = 0;
}

int kb_process_wait(struct kb_process *p, int *status)
{
	int err = 0;

	while (waitpid(p->pid, status, 0) < 0)
		if (errno != EINTR) {
			err = -1;
			break;
		}
	reaped(p);
	return err;
}

int kb_process_poll(struct kb_process *p, int *status)
{
	pid_t got = waitpid(p->pid, status, WNOHANG);

	if (got == p->pid) {
		reaped(p);
		return 1;
	}
	if (got < 0 && errno != EINTR)
		return -1;
	return 0;
}

void kb_process_kill(struct kb_process *p, int *status)
{
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
	while (waitpid(p->pid, status, 0) < 0 && errno == EINTR)
		;
	reaped(p);
}

int kb_process_exit_code(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* ---- a program run to its end, its failure said in a message ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* kb_process_wait(), polled every 50 ms while ticks are wanted. */
static int wait_ticking(struct kb_process *p, int *status, const struct kb_ticker *ticker,
			const char *step)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	struct kb_tick k = { .step = step };
	double start = now(), next = 0;
	int got;

	if (!ticker || !ticker->tick || ticker->interval <= 0)
		return kb_process_wait(p, status);
	while ((got = kb_process_poll(p, status)) == 0) {
		k.seconds = now() - start;
		if (kb_ticker_due(ticker, &next, k.seconds))
			ticker->tick(&k, ticker->payload);
		nanosleep(&pause, NULL);
	}
	return got < 0 ? -1 : 0;
}

static int wait_for(struct kb_process *p, const char *name, const struct kb_ticker *ticker,
		    const char *step)
{
	int status;

	if (wait_ticking(p, &status, ticker, step) < 0)
		return kb_error_set(KB_ERROR, "cannot wait for '%s': %s", name, strerror(errno));
	if (WIFSIGNALED(status))
		return kb_error_set(KB_ERROR, "'%s' was killed by signal %d", name,
				    WTERMSIG(status));
	if (WEXITSTATUS(status) == 127)
		return kb_error_set(KB_ENOTFOUND, "cannot run '%s': not found", name);
	return WEXITSTATUS(status);
}

int kb_process_run(const char *const argv[], const char *cwd, const char *log)
{
	return kb_process_run_ticked(argv, cwd, log, NULL, NULL);
}

int kb_process_run_ticked(const char *const argv[], const char *cwd, const char *log,
			  const struct kb_ticker *ticker, const char *step)
{
	struct kb_process p;
	int fd = -1, rc;

	if (log && (fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		return kb_error_set(KB_ERROR, "cannot write '%s': %s", log, strerror(errno));
	kb_process_init(&p, argv);
	p.cwd = cwd;
	p.out = fd >= 0 ? fd : KB_PROCESS_NULL;
	p.err = KB_PROCESS_AS_OUT;
	if (kb_process_start(&p) < 0)
		rc = kb_error_set(KB_ERROR, "cannot start '%s': %s", argv[0], strerror(errno));
	else
		rc = wait_for(&p, argv[0], ticker, step);
	if (fd >= 0)
		close(fd);
	return rc;
}

int kb_process_run_logged(const char *const argv[], const char *cwd, const char *log)
{
	return kb_process_run_logged_ticked(argv, cwd, log, NULL, NULL);
}

int kb_process_run_logged_ticked(const char *const argv[], const char *cwd, const char *log,
				 const struct kb_ticker *ticker, const char *step)
{
	char *tail;
	int rc = kb_process_run_ticked(argv, cwd, log, ticker, step);

	if (rc <= 0)
		return rc;
	tail = kb_file_tail(log, 8);
	rc = kb_error_set(KB_ERROR, "'%s' failed (exit %d); the end of '%s':\n%s", argv[0], rc,
			  log, tail ? tail : "");
	free(tail);
	return rc;
}

int kb_process_capture(char **out, const char *const argv[])
{
	struct kb_buf buf = KB_BUF_INIT;
	struct kb_process p;
	char chunk[4096];
	ssize_t n;
	int rc;

	*out = NULL;
	kb_process_init(&p, argv);
	p.out = KB_PROCESS_PIPE;
	if (kb_process_start(&p) < 0)
		return kb_error_set(KB_ERROR, "cannot start '%s': %s", argv[0], strerror(errno));
	while ((n = read(p.pipe_fd, chunk, sizeof(chunk))) != 0)
		if (n > 0)
			kb_buf_put(&buf, chunk, (size_t)n);
		else if (errno != EINTR)
			break;
	close(p.pipe_fd);
	rc = wait_for(&p, argv[0], NULL, NULL);
	if (buf.ptr)
		buf.ptr[strcspn(buf.ptr, "\n")] = '\0';
	*out = kb_buf_detach(&buf);
	return rc;
}
