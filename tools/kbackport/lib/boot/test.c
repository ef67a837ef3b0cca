#include "boot/test.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "boot/guest.h"
#include "boot/initramfs.h"
#include "util/process.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
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

/*
 * <outdir>/initrd.cpio as the cached initramfs of `spec` (a hard link, or
 * a copy where links do not work), replaced atomically.
 */
static int link_initrd(const char *initrd, bool *reused, const char *workdir,
		       const struct kb_initramfs_spec *spec)
{
	struct kb_buf cache = KB_BUF_INIT, tmp = KB_BUF_INIT;
	char *cached = NULL;
	int err;

	if ((err = kb_buf_printf(&cache, "%s/initramfs", workdir)) < 0 ||
	    (err = kb_initramfs_cached(&cached, reused, cache.ptr, spec)) < 0 ||
	    (err = kb_tmp_path(&tmp, initrd)) < 0)
		goto done;
	/* never a copy through an old link: that would write into the cache */
	if (unlink(tmp.ptr) < 0 && errno != ENOENT) {
		err = kb_error_set(KB_ERROR, "cannot remove '%s': %s", tmp.ptr, strerror(errno));
		goto done;
	}
	if (link(cached, tmp.ptr) < 0 && (err = kb_copy_file(tmp.ptr, cached)) < 0)
		goto done;
	if (rename(tmp.ptr, initrd) < 0) {
		err = kb_error_set(KB_ERROR, "cannot rename '%s': %s", tmp.ptr, strerror(errno));
		unlink(tmp.ptr);
	}
done:
	free(cached);
	kb_buf_release(&cache);
	kb_buf_release(&tmp);
	return err;
}

/*
 * <outdir>/guest-cases, read by the guest program itself (--check) on this
 * host before any boot: a case it would not understand is an error now,
 * with the guest's own words, not a lane that fails in the guest.
 */
static int check_cases(const char *program, const struct kb_test_target *target)
{
	struct kb_buf path = KB_BUF_INIT, log = KB_BUF_INIT;
	const char *argv[] = { program, "--check", NULL, NULL };
	int err;

	if ((err = kb_buf_printf(&path, "%s/guest-cases", target->outdir)) < 0 ||
	    (err = kb_buf_printf(&log, "%s/guest-cases.check", target->outdir)) < 0 ||
	    (err = kb_write_file_atomic(path.ptr, target->guest_cases,
					  strlen(target->guest_cases))) < 0)
		goto done;
	argv[2] = path.ptr;
	unlink(log.ptr);
	if ((err = kb_process_run_logged(argv, NULL, log.ptr)) < 0)
		err = kb_error_prefix(err, "the guest cannot run the cases in '%s'", path.ptr);
done:
	kb_buf_release(&path);
	kb_buf_release(&log);
	return err;
}

/*
 * The initramfs for `target`: the guest (compiled when needed), its cases
 * and modules, from <workdir>/initramfs/ when an earlier boot had the same
 * inputs.
 */
static int make_initrd(struct kb_buf *initrd, bool *reused, const struct kb_test_target *target,
		       const struct kb_test_opts *o)
{
	struct kb_initramfs_spec spec;
	char *program = NULL;
	int err;

	memset(&spec, 0, sizeof(spec));
	*reused = false;
	if ((err = kb_buf_printf(initrd, "%s/initrd.cpio", target->outdir)) < 0)
		return err;
	if (!o->guest_program &&
	    (err = kb_guest_program(&program, o->guest_source, o->workdir)) < 0)
		return kb_error_prefix(err, "cannot build the guest program");
	spec.init = o->guest_program ? o->guest_program : program;
	spec.modules_root = target->modules_root;
	spec.modules = target->modules;
	spec.cases = target->guest_cases;
	if (spec.cases && !o->guest_program && (err = check_cases(program, target)) < 0) {
		free(program);
		return err;
	}
	err = o->workdir ? link_initrd(initrd->ptr, reused, o->workdir, &spec) :
			   kb_initramfs_write(initrd->ptr, &spec);
	if (err < 0)
		err = kb_error_prefix(err, "cannot write the initramfs '%s'", initrd->ptr);
	free(program);
	return err;
}

/* Why a boot that went wrong cannot be believed; NULL when it went right. */
static int explain(struct kb_test_run *run, const char *text, unsigned timeout)
{
	struct kb_buf why = KB_BUF_INIT;
	char *tail = NULL;
	int err;

	run->finished = text && strstr(text, KB_GUEST_DONE);
	if (run->boot.end == KB_BOOT_QEMU_FAILED)
		kb_buf_printf(&why, "qemu failed (exit status %d): %s", run->boot.qemu_status,
			      run->boot.reason ? run->boot.reason : "no message");
	else if (run->boot.end == KB_BOOT_TIMEOUT)
		kb_buf_printf(&why, "the guest hung: no end after %u s", timeout);
	else if (run->boot.panic)
		kb_buf_printf(&why, "the kernel panicked: %s", run->boot.panic);
	else if (!run->finished)
		kb_buf_printf(&why, "the guest did not finish: no '%s' on the console",
			      KB_GUEST_DONE);
	else
		return 0;
	if (!run->boot.panic && (tail = kb_file_tail(run->log, TAIL_LINES)) && *tail)
		kb_buf_printf(&why, "; the console log %s ends:\n%s", run->log, tail);
	else
		kb_buf_printf(&why, "; see the console log %s", run->log);
	free(tail);
	if ((err = kb_buf_check(&why)) < 0) {
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

/*
 * What decides what a boot prints: the kernel (its path names its build),
 * the initramfs's bytes (written the same way every time) and QEMU's whole
 * command line (the kernel's command line in it).
 */
static int boot_inputs(char **out, const struct kb_boot_opts *boot)
{
	struct kb_buf in = KB_BUF_INIT;
	struct stat st;
	char *initrd = NULL, *digest = NULL, *kernel, *qemu = NULL;
	size_t len = 0;
	int err;

	/* the same image however its path is spelt (symlinks, "..") */
	if (stat(boot->kernel, &st) < 0 || !(kernel = realpath(boot->kernel, NULL)))
		return kb_error_set(KB_ENOTFOUND, "no kernel image '%s': %s", boot->kernel,
				    strerror(errno));
	if ((err = kb_read_file(&initrd, &len, boot->initrd)) == 0 &&
	    (err = kb_digest(&digest, initrd, len, "the initramfs")) == 0 &&
	    (err = kb_qemu_command_line(&qemu, boot)) == 0)
		err = kb_buf_printf(&in, "kernel %s %lld %lld\ninitrd %s\nqemu %s\n",
				    kernel, (long long)st.st_size, (long long)st.st_mtime,
				    digest, qemu);
	free(kernel);
	free(initrd);
	free(digest);
	free(qemu);
	if (err < 0) {
		kb_buf_release(&in);
		return err;
	}
	*out = kb_buf_detach(&in);
	return 0;
}

/* An earlier clean boot with the same inputs: its result, and true. */
static bool reuse_boot(struct kb_boot_result *out, const char *stamp, const char *inputs,
		       const char *log)
{
	char *text = NULL;
	size_t len = 0;
	double seconds;
	bool same;

	if (kb_read_file(&text, &len, stamp) < 0) {
		kb_error_clear();
		return false;
	}
	same = !strncmp(text, inputs, strlen(inputs)) &&
	       sscanf(text + strlen(inputs), "seconds %lf", &seconds) == 1 && kb_path_exists(log);
	free(text);
	if (!same)
		return false;
	memset(out, 0, sizeof(*out));
	out->end = KB_BOOT_EXITED;
	out->seconds = seconds;
	return true;
}

static int write_stamp(const char *stamp, const char *inputs, double seconds)
{
	struct kb_buf text = KB_BUF_INIT;
	int err;

	if ((err = kb_buf_printf(&text, "%sseconds %.3f\n", inputs, seconds)) == 0)
		err = kb_write_atomic(stamp, text.ptr);
	kb_buf_release(&text);
	return err;
}

static void boot_opts(struct kb_boot_opts *boot, const struct kb_test_target *target,
		      const struct kb_test_opts *o, const char *initrd, const char *log)
{
	kb_boot_opts_init(boot);
	if (o->qemu)
		boot->qemu = o->qemu;
	boot->kernel = target->image;
	boot->initrd = initrd;
	boot->append = KB_GUEST_MARKER;
	boot->accel = o->accel;
	boot->memory_mb = 1024;
	if (o->timeout)
		boot->timeout = o->timeout;
	boot->log = log;
	boot->ticker = o->ticker;
}

int kb_test_boot(struct kb_test_run *out, const struct kb_test_target *target,
		 const struct kb_test_opts *o)
{
	struct kb_buf initrd = KB_BUF_INIT, log = KB_BUF_INIT, stamp = KB_BUF_INIT;
	struct kb_boot_opts boot;
	char *text = NULL, *inputs = NULL;
	size_t len = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = kb_mkdir_p(target->outdir)) < 0 || (err = make_initrd(&initrd, &out->initrd_reused, target, o)) < 0 ||
	    (err = kb_buf_printf(&log, "%s/console.log", target->outdir)) < 0 ||
	    (err = kb_buf_printf(&stamp, "%s/boot.stamp", target->outdir)) < 0)
		goto done;
	out->log = kb_buf_detach(&log);
	boot_opts(&boot, target, o, initrd.ptr, out->log);
	if ((err = boot_inputs(&inputs, &boot)) < 0)
		goto done;
	/* the stamp goes first: a boot cut short never leaves one behind */
	if (!(out->reused = o->reuse && reuse_boot(&out->boot, stamp.ptr, inputs, out->log)) &&
	    ((unlink(stamp.ptr) < 0 && errno != ENOENT) ||
	     (err = kb_qemu_boot(&out->boot, &boot)) < 0))
		goto done;
	if (kb_read_file(&text, &len, out->log) < 0)
		kb_error_clear();	/* nothing printed: parsed as empty */
	if ((err = kb_ktap_parse(&out->ktap, text ? text : "", text ? len : 0)) < 0 ||
	    (err = explain(out, text, boot.timeout)) < 0 ||
	    (err = write_suites(out, target->outdir)) < 0)
		goto done;
	if (!out->reused && !out->problem)
		err = write_stamp(stamp.ptr, inputs, out->boot.seconds);
done:
	free(text);
	free(inputs);
	kb_buf_release(&initrd);
	kb_buf_release(&log);
	kb_buf_release(&stamp);
	return err;
}
