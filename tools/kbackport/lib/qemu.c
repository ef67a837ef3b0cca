#include "qemu.h"
#include "buf.h"
#include "child.h"
#include "error.h"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PANIC_MARK "Kernel panic - not syncing"

const char *kb_boot_end_name(enum kb_boot_end end)
{
	static const char *const names[] = {
		[KB_BOOT_EXITED] = "exited",
		[KB_BOOT_TIMEOUT] = "timeout",
		[KB_BOOT_QEMU_FAILED] = "qemu-failed",
	};
	return names[end];
}

const char *kb_accel_name(enum kb_accel accel)
{
	return accel == KB_ACCEL_KVM ? "kvm" : "tcg";
}

void kb_boot_opts_init(struct kb_boot_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->qemu = "qemu-system-x86_64";
	opts->memory_mb = 512;
	opts->timeout = 120;
}

void kb_boot_result_release(struct kb_boot_result *r)
{
	free(r->panic);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct argv {
	const char *v[32];
	size_t n;
};

static void arg(struct argv *a, const char *s)
{
	if (a->n < sizeof(a->v) / sizeof(a->v[0]) - 1)
		a->v[a->n++] = s;
}

/* QEMU's command line; strings it points at live in `bufs`. */
static int command(struct argv *a, struct kb_buf *serial, struct kb_buf *mem,
		   struct kb_buf *append, const struct kb_boot_opts *o)
{
	int err;

	if ((err = kb_buf_printf(serial, "file:%s", o->log)) < 0 ||
	    (err = kb_buf_printf(mem, "%u", o->memory_mb)) < 0 ||
	    (err = kb_buf_printf(append, "console=ttyS0 panic=-1%s%s", o->append ? " " : "",
				 o->append ? o->append : "")) < 0)
		return err;
	arg(a, o->qemu);
	arg(a, "-accel");
	arg(a, kb_accel_name(o->accel));
	arg(a, "-cpu");
	arg(a, o->accel == KB_ACCEL_KVM ? "host" : "max");
	arg(a, "-m");
	arg(a, mem->ptr);
	arg(a, "-nodefaults");
	arg(a, "-display");
	arg(a, "none");
	arg(a, "-no-reboot");
	arg(a, "-serial");
	arg(a, serial->ptr);
	arg(a, "-kernel");
	arg(a, o->kernel);
	if (o->initrd) {
		arg(a, "-initrd");
		arg(a, o->initrd);
	}
	arg(a, "-append");
	arg(a, append->ptr);
	a->v[a->n] = NULL;
	return 0;
}

/* In the child: own process group (so a timeout kills all of QEMU), QEMU's
 * messages to `err_fd`, and exec. */
static void child(const struct argv *a, int err_fd)
{
	int null_fd = open("/dev/null", O_RDWR);

	kb_child_own_group();
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	dup2(err_fd, STDOUT_FILENO);
	dup2(err_fd, STDERR_FILENO);
	execvp(a->v[0], (char *const *)a->v);
	dprintf(err_fd, "cannot run '%s': %s\n", a->v[0], strerror(errno));
	_exit(127);
}

/* Wait for `pid` until `deadline`; kill its group then. */
static int wait_until(struct kb_boot_result *out, pid_t pid, double deadline,
		      const struct kb_ticker *ticker)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct kb_tick k = { "boot", 0, false, 0, 0, NULL };
	double start = now(), next = 0;
	int status;
	pid_t got;

	for (;;) {
		k.seconds = now() - start;
		if (kb_ticker_due(ticker, &next, k.seconds))
			ticker->tick(&k, ticker->payload);
		got = waitpid(pid, &status, WNOHANG);
		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			return kb_error_set(KB_ERROR, "cannot wait for qemu: %s", strerror(errno));
		if (now() >= deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			out->end = KB_BOOT_TIMEOUT;
			return 0;
		}
		nanosleep(&tick, NULL);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		out->end = KB_BOOT_EXITED;
		return 0;
	}
	out->end = KB_BOOT_QEMU_FAILED;
	out->qemu_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

/* The first panic line of the log, if any. */
static int find_panic(char **out, const char *log)
{
	char *text = NULL, *p, *end;
	size_t len = 0;
	int err;

	*out = NULL;
	if ((err = kb_read_file(&text, &len, log)) < 0) {
		kb_error_clear();
		return 0;	/* QEMU never created it: nothing printed */
	}
	if ((p = memmem(text, len, PANIC_MARK, strlen(PANIC_MARK)))) {
		end = p + strcspn(p, "\r\n");
		if (!(*out = strndup(p, (size_t)(end - p))))
			err = kb_error_set(KB_ENOMEM, "out of memory");
	}
	free(text);
	return err;
}

int kb_qemu_boot(struct kb_boot_result *out, const struct kb_boot_opts *o)
{
	struct kb_buf serial = KB_BUF_INIT, mem = KB_BUF_INIT, append = KB_BUF_INIT;
	struct kb_buf errlog = KB_BUF_INIT;
	struct argv a = { { NULL }, 0 };
	double start = now();
	int err, fd = -1, log_fd = -1;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if ((err = command(&a, &serial, &mem, &append, o)) < 0 ||
	    (err = kb_buf_printf(&errlog, "%s.qemu", o->log)) < 0)
		goto done;
	/* QEMU appends to a file: start from an empty one, so an old boot's
	 * output can never be read as this one's */
	if ((log_fd = open(o->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0 ||
	    (fd = open(errlog.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s",
				   log_fd < 0 ? o->log : errlog.ptr, strerror(errno));
		goto done;
	}
	if ((pid = fork()) < 0) {
		err = kb_error_set(KB_ERROR, "cannot start qemu: %s", strerror(errno));
		goto done;
	}
	if (pid == 0)
		child(&a, fd);
	kb_child_track(pid);
	err = wait_until(out, pid, start + (o->timeout ? o->timeout : 120), &o->ticker);
	kb_child_untrack(pid);
	if (err < 0)
		goto done;
	out->seconds = now() - start;
	if (out->end == KB_BOOT_QEMU_FAILED && !(out->reason = kb_file_tail(errlog.ptr, 5)))
		err = kb_error_set(KB_ENOMEM, "out of memory");
	if (!err)
		err = find_panic(&out->panic, o->log);
done:
	if (fd >= 0)
		close(fd);
	if (log_fd >= 0)
		close(log_fd);
	kb_buf_release(&serial);
	kb_buf_release(&mem);
	kb_buf_release(&append);
	kb_buf_release(&errlog);
	return err;
}
