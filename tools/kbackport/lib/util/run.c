#include "util/run.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* kb_spawn_wait(), polled every 50 ms while ticks are wanted. */
static int wait_ticking(struct kb_spawn *s, int *status, const struct kb_ticker *ticker,
			const char *step)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	struct kb_tick k = { .step = step };
	double start = now(), next = 0;
	int got;

	if (!ticker || !ticker->tick || ticker->interval <= 0)
		return kb_spawn_wait(s, status);
	while ((got = kb_spawn_poll(s, status)) == 0) {
		k.seconds = now() - start;
		if (kb_ticker_due(ticker, &next, k.seconds))
			ticker->tick(&k, ticker->payload);
		nanosleep(&pause, NULL);
	}
	return got < 0 ? -1 : 0;
}

static int wait_for(struct kb_spawn *s, const char *name, const struct kb_ticker *ticker,
		    const char *step)
{
	int status;

	if (wait_ticking(s, &status, ticker, step) < 0)
		return kb_error_set(KB_ERROR, "cannot wait for '%s': %s", name, strerror(errno));
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
	struct kb_spawn s;
	int fd = -1, rc;

	if (log && (fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		return kb_error_set(KB_ERROR, "cannot write '%s': %s", log, strerror(errno));
	kb_spawn_init(&s, argv);
	s.cwd = cwd;
	s.out = fd >= 0 ? fd : KB_SPAWN_NULL;
	s.err = KB_SPAWN_AS_OUT;
	if (kb_spawn_start(&s) < 0)
		rc = kb_error_set(KB_ERROR, "cannot start '%s': %s", argv[0], strerror(errno));
	else
		rc = wait_for(&s, argv[0], ticker, step);
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
	struct kb_spawn s;
	char chunk[4096];
	ssize_t n;
	int rc;

	*out = NULL;
	kb_spawn_init(&s, argv);
	s.out = KB_SPAWN_PIPE;
	if (kb_spawn_start(&s) < 0)
		return kb_error_set(KB_ERROR, "cannot start '%s': %s", argv[0], strerror(errno));
	while ((n = read(s.pipe_fd, chunk, sizeof(chunk))) != 0)
		if (n > 0)
			kb_buf_put(&buf, chunk, (size_t)n);
		else if (errno != EINTR)
			break;
	close(s.pipe_fd);
	rc = wait_for(&s, argv[0], NULL, NULL);
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
