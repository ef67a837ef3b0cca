/*
 * How a boot ends (kb_qemu_boot), with a stand-in for qemu-system-x86_64
 * written by each test: exit, failure, a program that is not there, a hang.
 */
#include "unit.h"

#include <stdio.h>
#include <sys/stat.h>

#include "boot/qemu.h"
#include "sandbox.h"

/* A fake QEMU running `body` (sh), $serial being the console log. */
static const char *fake_qemu(struct sandbox *sb, const char *body)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = -serial ] && serial=${2#file:}; "
		 "shift; done\n%s\n", body);
	write_file(sb, "qemu", text);
	assert_int_equal(chmod(sb_path(sb, "qemu"), 0755), 0);
	return sb_path(sb, "qemu");
}

static void boot(struct sandbox *sb, struct kb_boot_result *r, const char *qemu, unsigned timeout)
{
	struct kb_boot_opts o;
	char qemu_path[600], log[600];

	snprintf(qemu_path, sizeof(qemu_path), "%s", qemu);
	snprintf(log, sizeof(log), "%s", sb_path(sb, "console.log"));
	kb_boot_opts_init(&o);
	o.qemu = qemu_path;
	o.kernel = "bzImage";
	o.log = log;
	o.timeout = timeout;
	assert_int_equal(kb_qemu_boot(r, &o), 0);
}

static void test_exit_with_panic(void **state)
{
	struct sandbox *sb = *state;
	struct kb_boot_result r;

	boot(sb, &r, fake_qemu(sb, "echo 'Kernel panic - not syncing: VFS: no root' >> \"$serial\""),
	     10);
	assert_int_equal(r.end, KB_BOOT_EXITED);
	assert_string_equal(r.panic, "Kernel panic - not syncing: VFS: no root");
	assert_null(r.reason);
	kb_boot_result_release(&r);
}

static void test_qemu_fails(void **state)
{
	struct sandbox *sb = *state;
	struct kb_boot_result r;

	boot(sb, &r, fake_qemu(sb, "echo 'qemu: no such accelerator' >&2; exit 3"), 10);
	assert_int_equal(r.end, KB_BOOT_QEMU_FAILED);
	assert_int_equal(r.qemu_status, 3);
	assert_string_equal(r.reason, "qemu: no such accelerator\n");
	assert_null(r.panic);
	kb_boot_result_release(&r);
}

static void test_qemu_missing(void **state)
{
	struct sandbox *sb = *state;
	struct kb_boot_result r;
	char missing[600], want[700];

	snprintf(missing, sizeof(missing), "%s", sb_path(sb, "no-qemu"));
	boot(sb, &r, missing, 10);
	assert_int_equal(r.end, KB_BOOT_QEMU_FAILED);
	assert_int_equal(r.qemu_status, 127);
	snprintf(want, sizeof(want), "cannot run '%s': No such file or directory\n", missing);
	assert_string_equal(r.reason, want);
	kb_boot_result_release(&r);
}

static void test_hang_killed_at_timeout(void **state)
{
	struct sandbox *sb = *state;
	struct kb_boot_result r;

	boot(sb, &r, fake_qemu(sb, "echo booting >> \"$serial\"; sleep 30 & wait"), 1);
	assert_int_equal(r.end, KB_BOOT_TIMEOUT);
	assert_true(r.seconds >= 1 && r.seconds < 10);
	assert_null(r.panic);
	assert_null(r.reason);
	kb_boot_result_release(&r);
}

/* The record of a boot's inputs: every argument, the kernel's command line too. */
static void test_command_line(void **state)
{
	struct kb_boot_opts o;
	char *line = NULL;

	(void)state;
	kb_boot_opts_init(&o);
	o.kernel = "/k/bzImage";
	o.initrd = "/k/initrd.cpio";
	o.append = "kbackport.marker";
	o.memory_mb = 1024;
	o.log = "/k/console.log";
	assert_int_equal(kb_qemu_command_line(&line, &o), 0);
	assert_string_equal(line, "qemu-system-x86_64 -accel tcg -cpu max -m 1024 -nodefaults "
			    "-display none -no-reboot -serial file:/k/console.log -kernel /k/bzImage "
			    "-initrd /k/initrd.cpio -append console=ttyS0 panic=-1 no_timer_check "
			    "kbackport.marker");
	free(line);
	o.initrd = NULL;
	o.append = NULL;
	o.accel = KB_ACCEL_KVM;
	assert_int_equal(kb_qemu_command_line(&line, &o), 0);
	assert_string_equal(line, "qemu-system-x86_64 -accel kvm -cpu host -m 1024 -nodefaults "
			    "-display none -no-reboot -serial file:/k/console.log -kernel /k/bzImage "
			    "-append console=ttyS0 panic=-1 no_timer_check");
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_line),
		cmocka_unit_test_setup_teardown(test_exit_with_panic, sandbox_setup, sandbox_teardown),
		cmocka_unit_test_setup_teardown(test_qemu_fails, sandbox_setup, sandbox_teardown),
		cmocka_unit_test_setup_teardown(test_qemu_missing, sandbox_setup, sandbox_teardown),
		cmocka_unit_test_setup_teardown(test_hang_killed_at_timeout, sandbox_setup,
						sandbox_teardown),
	};
	return sandbox_run_group_tests(tests, NULL, NULL);
}
