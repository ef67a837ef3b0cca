#include "run.h"
#include "buf.h"
#include "child.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* In the child: set up fds and exec; never returns. */
static __attribute__((noreturn)) void child(const char *const argv[], const char *cwd, int out_fd)
{
	int null_fd = open("/dev/null", O_RDWR);

	kb_child_own_group();
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	if (out_fd < 0)
		out_fd = null_fd;
	if (out_fd >= 0) {
		dup2(out_fd, STDOUT_FILENO);
		dup2(out_fd, STDERR_FILENO);
	}
	if (cwd && chdir(cwd) < 0)
		_exit(126);
	execvp(argv[0], (char *const *)argv);
	_exit(127);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* waitpid(), polled every 50 ms while ticks are wanted: returns its result. */
static pid_t wait_ticking(pid_t pid, int *status, const struct kb_ticker *ticker,
			  const char *step)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	struct kb_tick k = { .step = step };
	double start = now(), next = 0;
	pid_t got;

	if (!ticker || !ticker->tick || ticker->interval <= 0)
		return waitpid(pid, status, 0);
	while ((got = waitpid(pid, status, WNOHANG)) == 0) {
		k.seconds = now() - start;
		if (kb_ticker_due(ticker, &next, k.seconds))
			ticker->tick(&k, ticker->payload);
		nanosleep(&pause, NULL);
	}
	return got;
}

static int wait_for(pid_t pid, const char *name, const struct kb_ticker *ticker,
		    const char *step)
{
	int status;

	while (wait_ticking(pid, &status, ticker, step) < 0)
		if (errno != EINTR)
			return kb_error_set(KB_ERROR, "cannot wait for '%s': %s", name,
					    strerror(errno));
	if (WIFSIGNALED(status))
		return kb_error_set(KB_ERROR, "'%s' was killed by signal %d", name,
				    WTERMSIG(status));
	if (WEXITSTATUS(status) == 127)
		return kb_error_set(KB_ENOTFOUND, "cannot run '%s': not found", name);
	return WEXITSTATUS(status);
}

int kb_run(const char *const argv[], const char *cwd, const char *log)
{
	return kb_run_ticked(argv, cwd, log, NULL, NULL);
}

int kb_run_ticked(const char *const argv[], const char *cwd, const char *log,
		  const struct kb_ticker *ticker, const char *step)
{
	int fd = -1, rc;
	pid_t pid;

	if (log && (fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		return kb_error_set(KB_ERROR, "cannot write '%s': %s", log, strerror(errno));
	if ((pid = fork()) < 0) {
		rc = kb_error_set(KB_ERROR, "cannot start '%s': %s", argv[0], strerror(errno));
	} else if (pid == 0) {
		child(argv, cwd, fd);
	} else {
		kb_child_track(pid);
		rc = wait_for(pid, argv[0], ticker, step);
		kb_child_untrack(pid);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int kb_run_logged(const char *const argv[], const char *cwd, const char *log)
{
	return kb_run_logged_ticked(argv, cwd, log, NULL, NULL);
}

int kb_run_logged_ticked(const char *const argv[], const char *cwd, const char *log,
			 const struct kb_ticker *ticker, const char *step)
{
	char *tail;
	int rc = kb_run_ticked(argv, cwd, log, ticker, step);

	if (rc <= 0)
		return rc;
	tail = kb_file_tail(log, 8);
	rc = kb_error_set(KB_ERROR, "'%s' failed (exit %d); the end of '%s':\n%s", argv[0], rc,
			  log, tail ? tail : "");
	free(tail);
	return rc;
}

int kb_run_capture(char **out, const char *const argv[])
{
	struct kb_buf buf = KB_BUF_INIT;
	char chunk[4096];
	int fds[2], rc;
	ssize_t n;
	pid_t pid;

	*out = NULL;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return kb_error_set(KB_ERROR, "cannot create a pipe: %s", strerror(errno));
	if ((pid = fork()) == 0) {
		int null_fd = open("/dev/null", O_RDWR);
		dup2(fds[1], STDOUT_FILENO);
		if (null_fd >= 0) {
			dup2(null_fd, STDIN_FILENO);
			dup2(null_fd, STDERR_FILENO);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && (n = read(fds[0], chunk, sizeof(chunk))) != 0)
		if (n > 0)
			kb_buf_put(&buf, chunk, (size_t)n);
		else if (errno != EINTR)
			break;
	close(fds[0]);
	if (pid < 0) {
		kb_buf_release(&buf);
		return kb_error_set(KB_ERROR, "cannot start '%s': %s", argv[0], strerror(errno));
	}
	rc = wait_for(pid, argv[0], NULL, NULL);
	if (buf.ptr)
		buf.ptr[strcspn(buf.ptr, "\n")] = '\0';
	*out = kb_buf_detach(&buf);
	return rc;
}

char *kb_file_tail(const char *path, unsigned lines)
{
	char *data = NULL, *p, *tail;
	size_t len = 0;
	unsigned seen = 0;

	if (kb_read_file(&data, &len, path) < 0)
		return kb_strdup("");
	p = data + len;
	if (p > data && p[-1] == '\n')
		p--;
	while (p > data && seen < lines)
		if (*--p == '\n')
			seen++;
	if (*p == '\n')
		p++;
	tail = kb_strdup(p);
	free(data);
	return tail;
}
