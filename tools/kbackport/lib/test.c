#include "test.h"
#include "buf.h"
#include "error.h"
#include "guest.h"
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TAIL_LINES 8

void kb_test_opts_init(struct kb_test_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
}

void kb_test_run_release(struct kb_test_run *run)
{
	kb_boot_result_release(&run->boot);
	kb_ktap_result_release(&run->ktap);
	free(run->log);
	free(run->problem);
	memset(run, 0, sizeof(*run));
}

static int mkdir_p(const char *path)
{
	char *copy = kb_strdup(path), *p;
	int err = 0;

	if (!copy)
		return KB_ENOMEM;
	for (p = copy + 1; !err; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			err = kb_error_set(KB_ERROR, "cannot create '%s': %s", copy, strerror(errno));
		if (!(*p = c))
			break;
	}
	free(copy);
	return err;
}

/* The initramfs for `target`: the guest (compiled when needed) and modules. */
static int make_initrd(struct kb_buf *initrd, const struct kb_test_target *target,
		       const struct kb_test_opts *o)
{
	struct kb_initramfs_spec spec;
	char *program = NULL;
	int err;

	memset(&spec, 0, sizeof(spec));
	if ((err = kb_buf_printf(initrd, "%s/initrd.gz", target->outdir)) < 0)
		return err;
	if (!o->guest_program &&
	    (err = kb_guest_program(&program, o->guest_source, o->workdir)) < 0)
		return kb_error_prefix(err, "cannot build the guest program");
	spec.init = o->guest_program ? o->guest_program : program;
	spec.modules_root = target->modules_root;
	spec.modules = target->modules;
	if ((err = kb_initramfs_write(initrd->ptr, &spec)) < 0)
		err = kb_error_prefix(err, "cannot write the initramfs '%s'", initrd->ptr);
	free(program);
	return err;
}

/* Why a boot that went wrong cannot be believed; NULL when it went right. */
static int explain(struct kb_test_run *run, const char *text, unsigned timeout)
{
	struct kb_buf why = KB_BUF_INIT;
	char *tail = NULL;
	int err = 0;

	run->finished = text && strstr(text, KB_GUEST_DONE);
	if (run->boot.end == KB_BOOT_QEMU_FAILED)
		err = kb_buf_printf(&why, "qemu failed (exit status %d): %s", run->boot.qemu_status,
				    run->boot.reason ? run->boot.reason : "no message");
	else if (run->boot.end == KB_BOOT_TIMEOUT)
		err = kb_buf_printf(&why, "the guest hung: no end after %u s", timeout);
	else if (run->boot.panic)
		err = kb_buf_printf(&why, "the kernel panicked: %s", run->boot.panic);
	else if (!run->finished)
		err = kb_buf_printf(&why, "the guest did not finish: no '%s' on the console",
				    KB_GUEST_DONE);
	else
		return 0;
	if (!err && !run->boot.panic && (tail = kb_file_tail(run->log, TAIL_LINES)) && *tail)
		err = kb_buf_printf(&why, "; the console log %s ends:\n%s", run->log, tail);
	else if (!err)
		err = kb_buf_printf(&why, "; see the console log %s", run->log);
	free(tail);
	if (err < 0) {
		kb_buf_release(&why);
		return err;
	}
	run->problem = kb_buf_detach(&why);
	return 0;
}

/* Each suite's KTAP alone, beside the console log. */
static int write_suites(const struct kb_test_run *run, const char *outdir)
{
	struct kb_buf path = KB_BUF_INIT;
	size_t i;
	int err = 0;
	FILE *fp;

	for (i = 0; i < run->ktap.nsuites && !err; i++) {
		const struct kb_ktap_suite *s = &run->ktap.suites[i];
		path.size = 0;
		if ((err = kb_buf_printf(&path, "%s/%s.ktap", outdir, s->name)) < 0)
			break;
		if (!(fp = fopen(path.ptr, "w")) || fputs(s->ktap ? s->ktap : "", fp) < 0 ||
		    fclose(fp) != 0)
			err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path.ptr, strerror(errno));
	}
	kb_buf_release(&path);
	return err;
}

int kb_test_boot(struct kb_test_run *out, const struct kb_test_target *target,
		 const struct kb_test_opts *o)
{
	struct kb_buf initrd = KB_BUF_INIT, log = KB_BUF_INIT;
	struct kb_boot_opts boot;
	char *text = NULL;
	size_t len = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = mkdir_p(target->outdir)) < 0 || (err = make_initrd(&initrd, target, o)) < 0 ||
	    (err = kb_buf_printf(&log, "%s/console.log", target->outdir)) < 0)
		goto done;
	out->log = kb_buf_detach(&log);
	kb_boot_opts_init(&boot);
	if (o->qemu)
		boot.qemu = o->qemu;
	boot.kernel = target->image;
	boot.initrd = initrd.ptr;
	boot.append = KB_GUEST_MARKER;
	boot.accel = o->accel;
	boot.memory_mb = 1024;
	if (o->timeout)
		boot.timeout = o->timeout;
	boot.log = out->log;
	if ((err = kb_qemu_boot(&out->boot, &boot)) < 0)
		goto done;
	if (kb_read_file(&text, &len, out->log) < 0)
		kb_error_clear();	/* nothing printed: parsed as empty */
	if ((err = kb_ktap_parse(&out->ktap, text ? text : "", text ? len : 0)) < 0 ||
	    (err = explain(out, text, boot.timeout)) < 0)
		goto done;
	err = write_suites(out, target->outdir);
done:
	free(text);
	kb_buf_release(&initrd);
	kb_buf_release(&log);
	return err;
}
