/*
 * Testing one lane's kernel: an initramfs with the guest program and the
 * kernel's modules, one boot under QEMU, the console's KTAP parsed. Both
 * suites run in that one boot: the kernel's built-in KUnit suite before
 * /init, then the guest's capability suite. What the results mean for a
 * fix is verdict.h's business; this module says what was seen, and
 * whether the boot went far enough to be believed.
 *
 *   <outdir>/guest-cases      the guest's cases, as the initramfs has
 *                             them (checked by the guest program first)
 *   <outdir>/initrd.cpio      the initramfs booted: a hard link to
 *                             <workdir>/initramfs/<key>.cpio, written only
 *                             when no earlier boot had the same inputs
 *                             (kb_initramfs_cached())
 *   <outdir>/console.log      everything the serial console printed
 *   <outdir>/console.log.qemu QEMU's own messages
 *   <outdir>/<suite>.ktap     each suite's KTAP, alone
 *   <outdir>/boot.stamp       the inputs of the last clean boot and how
 *                             long it took (written last)
 */
#ifndef KB_TEST_H
#define KB_TEST_H

#include <stdbool.h>

#include "boot/ktap.h"
#include "boot/qemu.h"

struct kb_test_opts {
	const char *workdir;	/* the guest program is compiled under it, the
				 * initramfs cached there; NULL: written afresh */
	const char *guest_source;	/* data/guest/guest.c */
	const char *guest_program;	/* a ready static /init instead, or NULL */
	const char *qemu;	/* NULL: qemu-system-x86_64 */
	enum kb_accel accel;
	unsigned timeout;	/* seconds per boot; 0: 120 */
	bool reuse;		/* an earlier clean boot of the same kernel,
				 * initramfs and command line is read again
				 * from its log instead of booting */
	struct kb_ticker ticker;	/* while a boot runs (qemu.h) */
};

struct kb_test_target {
	const char *image;	/* bzImage / vmlinuz */
	const char *modules_root;	/* holds lib/modules/<release>/, or NULL */
	const char *const *modules;	/* NULL: every module; else these and
					 * their dependencies */
	const char *guest_cases;	/* the guest's cases (cases.h
					 * kb_cases_guest_text()), or NULL */
	const char *outdir;	/* created when missing */
};

struct kb_test_run {
	struct kb_boot_result boot;
	struct kb_ktap_result ktap;
	char *log;		/* the console log */
	bool finished;		/* the guest said it was done */
	bool reused;		/* read from an earlier boot's log (see reuse) */
	bool initrd_reused;	/* the initramfs came from the cache */
	char *problem;		/* why this boot cannot be believed, or NULL:
				 * QEMU failed, a timeout, a panic, or a guest
				 * that never finished */
};

void kb_test_opts_init(struct kb_test_opts *opts);

/*
 * Boot `target` and read its console. A boot that went wrong is a result
 * (see `problem`); returns a negative code only when the initramfs cannot
 * be made, a file cannot be written, or memory runs out.
 */
int kb_test_boot(struct kb_test_run *out, const struct kb_test_target *target,
		 const struct kb_test_opts *opts);

void kb_test_run_release(struct kb_test_run *run);

#endif
