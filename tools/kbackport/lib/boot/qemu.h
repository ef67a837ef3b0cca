/*
 * Booting a test kernel in QEMU and keeping what its console printed.
 *
 * The guest's serial console is written to a log file; QEMU's own messages
 * go to <log>.qemu. A boot ends when QEMU exits (the guest rebooted or
 * powered off: QEMU runs with -no-reboot, and panic=-1 turns a panic into a
 * reboot) or when the timeout kills it. What the guest proved is read from
 * the log afterwards (KTAP); this module only says how the boot ended.
 */
#ifndef KB_QEMU_H
#define KB_QEMU_H

#include <stdbool.h>

#include "util/progress.h"

enum kb_accel {
	KB_ACCEL_TCG,		/* software emulation: slow, works everywhere */
	KB_ACCEL_KVM,		/* only once a probe boot proved it works */
};

struct kb_boot_opts {
	const char *qemu;	/* default "qemu-system-x86_64" */
	const char *kernel;	/* required: bzImage / vmlinuz */
	const char *initrd;	/* or NULL */
	const char *append;	/* added after "console=ttyS0 panic=-1 no_timer_check" */
	enum kb_accel accel;
	unsigned memory_mb;	/* default 512 */
	unsigned timeout;	/* seconds; default 120 */
	const char *log;	/* required: the console log, truncated first */
	struct kb_ticker ticker;	/* ticks of step "boot" while QEMU runs */
};

enum kb_boot_end {
	KB_BOOT_EXITED,		/* QEMU exited by itself */
	KB_BOOT_TIMEOUT,	/* killed at the timeout: the guest hung */
	KB_BOOT_QEMU_FAILED,	/* QEMU exited non-zero or could not start */
};

struct kb_boot_result {
	enum kb_boot_end end;
	int qemu_status;	/* QEMU's exit status when it exited */
	double seconds;		/* wall time of the boot */
	char *panic;		/* the "Kernel panic - ..." line, or NULL */
	char *reason;		/* QEMU_FAILED: the tail of QEMU's messages */
};

void kb_boot_opts_init(struct kb_boot_opts *opts);

/*
 * Boot, wait for QEMU to end (or kill it at the timeout), then look for a
 * panic in the log. A boot that merely ended badly is a result, not an
 * error; returns a negative code only when the log cannot be written or
 * memory runs out.
 */
int kb_qemu_boot(struct kb_boot_result *out, const struct kb_boot_opts *opts);

void kb_boot_result_release(struct kb_boot_result *result);

/*
 * The command line kb_qemu_boot() runs for `opts`, its arguments joined by
 * spaces (for the record of a boot's inputs, not for a shell).
 */
int kb_qemu_command_line(char **out, const struct kb_boot_opts *opts);

/* "exited", "timeout", "qemu-failed". */
const char *kb_boot_end_name(enum kb_boot_end end);
/* "tcg", "kvm". */
const char *kb_accel_name(enum kb_accel accel);

#endif
