#include "util/process.h"
#include "util/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void kb_spawn_init(struct kb_spawn *s, const char *const *argv)
{
	memset(s, 0, sizeof(*s));
	s->argv = argv;
	s->out = KB_SPAWN_NULL;
	s->err = KB_SPAWN_NULL;
	s->pipe_fd = -1;
}

/* `want` (an fd, KB_SPAWN_NULL or KB_SPAWN_PIPE) as the child's `fd`. */
static void redirect(int want, int fd, int null_fd, int pipe_fd)
{
	int from = want == KB_SPAWN_PIPE ? pipe_fd : want == KB_SPAWN_NULL ? null_fd : want;

	if (from >= 0)
		dup2(from, fd);
}

/* In the child: streams, environment, directory, exec; never returns. */
static __attribute__((noreturn)) void child(const struct kb_spawn *s, int pipe_fd)
{
	int null_fd = open("/dev/null", O_RDWR);
	size_t i;

	kb_child_own_group();
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	redirect(s->out, STDOUT_FILENO, null_fd, pipe_fd);
	if (s->err == KB_SPAWN_AS_OUT)
		dup2(STDOUT_FILENO, STDERR_FILENO);
	else
		redirect(s->err, STDERR_FILENO, null_fd, pipe_fd);
	for (i = 0; s->unset_env && s->unset_env[i]; i++)
		unsetenv(s->unset_env[i]);
	for (i = 0; s->set_env && s->set_env[i]; i++)
		putenv((char *)s->set_env[i]);
	if (s->cwd && chdir(s->cwd) < 0)
		_exit(126);
	execvp(s->argv[0], (char *const *)s->argv);
	if (s->say_exec_error)
		dprintf(STDERR_FILENO, "cannot run '%s': %s\n", s->argv[0], strerror(errno));
	_exit(127);
}

int kb_spawn_start(struct kb_spawn *s)
{
	bool piped = s->out == KB_SPAWN_PIPE || s->err == KB_SPAWN_PIPE;
	int fds[2] = { -1, -1 }, saved;

	s->pid = 0;
	s->pipe_fd = -1;
	if (piped && pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	if ((s->pid = fork()) < 0) {
		saved = errno;
		s->pid = 0;
		if (piped) {
			close(fds[0]);
			close(fds[1]);
		}
		errno = saved;
		return -1;
	}
	if (s->pid == 0)
		child(s, fds[1]);
	kb_child_track(s->pid);
	if (piped) {
		close(fds[1]);
		s->pipe_fd = fds[0];
	}
	return 0;
}

static void reaped(struct kb_spawn *s)
{
	kb_child_untrack(s->pid);
	s->pid = 0;
}

int kb_spawn_wait(struct kb_spawn *s, int *status)
{
	int err = 0;

	while (waitpid(s->pid, status, 0) < 0)
		if (errno != EINTR) {
			err = -1;
			break;
		}
	reaped(s);
	return err;
}

int kb_spawn_poll(struct kb_spawn *s, int *status)
{
	pid_t got = waitpid(s->pid, status, WNOHANG);

	if (got == s->pid) {
		reaped(s);
		return 1;
	}
	if (got < 0 && errno != EINTR)
		return -1;
	return 0;
}

void kb_spawn_kill(struct kb_spawn *s, int *status)
{
	kill(-s->pid, SIGKILL);
	kill(s->pid, SIGKILL);
	while (waitpid(s->pid, status, 0) < 0 && errno == EINTR)
		;
	reaped(s);
}

int kb_spawn_exit_code(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
