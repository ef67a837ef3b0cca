/*
 * A stand-in /init for testing kbackport test's own error handling: built
 * by tests/e2e/t_harness.sh with -DMODE=... into one static program per way
 * a guest can go wrong, and booted in place of data/guest/guest.c with
 * `kbackport test --guest PROGRAM`. Each must end as `error`, never `fixed`.
 *
 *   MODE_EXIT      /init exits at once: the kernel panics ("Attempted to
 *                  kill init!")
 *   MODE_HANG      /init never ends: only the boot timeout stops QEMU
 *   MODE_GARBLED   KTAP whose suite stops after one of six results, mixed
 *                  with garbage, then a clean "done" and reboot
 *   MODE_ALL_OK    a well-formed suite that passes every case, but without
 *                  the kernel's KUnit suite (a kernel built without the
 *                  overlay must not pass as fixed)
 */
#include <stdio.h>
#include <sys/reboot.h>
#include <unistd.h>

#if !defined(MODE_EXIT) && !defined(MODE_HANG) && !defined(MODE_GARBLED) && !defined(MODE_ALL_OK)
#error "build with -DMODE_EXIT, -DMODE_HANG, -DMODE_GARBLED or -DMODE_ALL_OK"
#endif

int main(void)
{
	if (getpid() != 1) {
		fprintf(stderr, "misbehave: not PID 1 of a test guest\n");
		return 2;
	}
#if defined(MODE_EXIT)
	return 0;
#elif defined(MODE_HANG)
	for (;;)
		pause();
#else
	printf("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: kbackport_caps\n");
	printf("    1..6\n");
#if defined(MODE_GARBLED)
	printf("    ok 1 net_admin_ifflags_module_not_loaded\n");
	printf("    \x01\x02 okay 2 net_admin_ifflags_sit0_loads_sit\n");
	printf("    not ok two all_caps_ifflags_module_loads_it\n");
#else
	printf("    ok 1 net_admin_ifflags_module_not_loaded\n"
	       "    ok 2 net_admin_ifflags_sit0_loads_sit\n"
	       "    ok 3 all_caps_ifflags_module_loads_it\n"
	       "    ok 4 no_caps_ifflags_nothing_loaded\n"
	       "    ok 5 net_admin_tcp_congestion_module_not_loaded\n"
	       "    ok 6 userns_net_admin_ifflags_nothing_loaded\n"
	       "# kbackport_caps: pass:6 fail:0 skip:0 total:6\n"
	       "ok 1 kbackport_caps\n");
#endif
	printf("kbackport-guest: done\n");
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
#endif
}
