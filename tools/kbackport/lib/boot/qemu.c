#include "boot/qemu.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/process.h"

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

/*
 * QEMU's command line; strings it points at live in `bufs`. no_timer_check:
 * under TCG on a loaded host, a 2.6.x kernel's IO-APIC timer check can fail
 * ("IO-APIC + timer doesn't work!") and panic the boot; every kernel takes
 * the option.
 */
static int command(struct argv *a, struct kb_buf *serial, struct kb_buf *mem,
		   struct kb_buf *append, const struct kb_boot_opts *o)
{
	int err;

	if ((err = kb_buf_printf(serial, "file:%s", o->log)) < 0 ||
	    (err = kb_buf_printf(mem, "%u", o->memory_mb)) < 0 ||
	    (err = kb_buf_printf(append, "console=ttyS0 panic=-1 no_timer_check%s%s",
				 o->append ? " " : "",
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

int kb_qemu_command_line(char **out, const struct kb_boot_opts *o)
{
	struct kb_buf serial = KB_BUF_INIT, mem = KB_BUF_INIT, append = KB_BUF_INIT;
	struct kb_buf line = KB_BUF_INIT;
	struct argv a = { { NULL }, 0 };
	size_t i;
	int err;

	if ((err = command(&a, &serial, &mem, &append, o)) == 0) {
		for (i = 0; i < a.n; i++)
			kb_buf_printf(&line, "%s%s", i ? " " : "", a.v[i]);
		err = kb_buf_check(&line);
	}
	kb_buf_release(&serial);
	kb_buf_release(&mem);
	kb_buf_release(&append);
	if (err < 0) {
		kb_buf_release(&line);
		return err;
	}
	*out = kb_buf_detach(&line);
	return 0;
}

/* Wait for the child until `deadline`; kill its group then. */
static int wait_until(struct kb_boot_result *out, struct kb_process *s, double deadline,
		      const struct kb_ticker *ticker)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct kb_tick k = { "boot", 0, false, 0, 0, NULL };
	double start = now(), next = 0;
	int status, got;

	for (;;) {
		k.seconds = now() - start;
		if (kb_ticker_due(ticker, &next, k.seconds))
			ticker->tick(&k, ticker->payload);
		if ((got = kb_process_poll(s, &status)) > 0)
			break;
		if (got < 0)
			return kb_error_set(KB_ERROR, "cannot wait for qemu: %s", strerror(errno));
		if (now() >= deadline) {
			kb_process_kill(s, &status);
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
	out->qemu_status = kb_process_exit_code(status);
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
			err = kb_error_oom();
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
	int err, fd = -1, log_fd = -1, status;
	struct kb_process s;

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
	kb_process_init(&s, a.v);
	s.out = fd;
	s.err = KB_PROCESS_AS_OUT;
	s.say_exec_error = true;
	if (kb_process_start(&s) < 0) {
		err = kb_error_set(KB_ERROR, "cannot start qemu: %s", strerror(errno));
		goto done;
	}
	err = wait_until(out, &s, start + (o->timeout ? o->timeout : 120), &o->ticker);
	if (s.pid > 0)	/* it could not be waited for: it must not outlive the boot */
		kb_process_kill(&s, &status);
	if (err < 0)
		goto done;
	out->seconds = now() - start;
	if (out->end == KB_BOOT_QEMU_FAILED && !(out->reason = kb_file_tail(errlog.ptr, 5)))
		err = kb_error_oom();
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
