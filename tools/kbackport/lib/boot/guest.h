/*
 * The program a test kernel boots into: data/guest/guest.c, the capability
 * checks, printing KTAP; /init of the initramfs (initramfs.h).
 *
 *   <workdir>/guest/<key>/kbackport-guest    the compiled guest program;
 *                                            key = hash of (source, `cc
 *                                            --version`, flags)
 */
#ifndef KB_GUEST_H
#define KB_GUEST_H

/*
 * The kernel command line word without which the guest program refuses to
 * run (as it does anywhere but as PID 1).
 */
#define KB_GUEST_MARKER "kbackport.guest=1"
/* The guest's last line before it reboots: without it, the run is not whole. */
#define KB_GUEST_DONE "kbackport-guest: done"

/*
 * Compile the guest program `source` with the system C compiler (cc
 * -static) into <workdir>/guest/<key>/kbackport-guest, or reuse it when
 * that exists. *out_path gets its path (malloc'ed). A compiler error comes
 * back in the message with the end of the compiler's output.
 */
int kb_guest_program(char **out_path, const char *source, const char *workdir);

#endif
