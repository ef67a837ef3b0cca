/*
 * What a test kernel boots into: the guest program (tests/qemu/guest.c, the
 * capability checks, printing KTAP), the initramfs that holds it with
 * busybox and the kernel's modules, and Debian's own kernel as a known
 * fixed one to boot it with.
 *
 *   <workdir>/guest/<key>/kbackport-guest    the compiled guest program;
 *                                            key = hash of (source, `cc
 *                                            --version`, flags)
 *   <downloads>/<package>_<version>_<arch>.deb       Debian's kernel package
 *   <downloads>/<package>_<version>/                 unpacked, with depmod's
 *                                                    output added
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

struct kb_initramfs_spec {
	const char *init;		/* required: /init, the guest program */
	const char *busybox;		/* a static busybox; NULL: /bin/busybox
					 * (Debian's busybox-static) */
	const char *modules_root;	/* holds lib/modules/<release>/ with
					 * depmod's output; NULL: no modules */
	const char *release;		/* NULL: the only one under lib/modules */
	const char *const *modules;	/* NULL: every module; else a
					 * NULL-terminated list of module names or
					 * aliases whose closure goes in */
};

/*
 * Write a gzip'ed newc cpio to `out_path` (atomically: a temporary file,
 * then rename) holding /init, /bin/busybox with /bin/sh, /sbin/modprobe,
 * insmod, rmmod and lsmod linked to it (modprobe is what the kernel runs
 * for request_module()), /dev/console (char 5,1), the /proc, /sys, /dev
 * and /tmp mount points, and the modules:
 *
 * - the closure of spec->modules follows modules.dep and the pre: and
 *   post: lists of modules.softdep (libcrc32c needs crc32c), resolving
 *   names through modules.alias; names built into the kernel
 *   (modules.builtin) need nothing; any other unknown name is an error;
 * - the index files (modules.dep, modules.alias, ...) go in as depmod
 *   wrote them, so busybox modprobe resolves "netdev-sit0" to sit;
 * - compressed modules (.ko.xz, .ko.zst, .ko.gz) go in decompressed as
 *   .ko, the paths in the text index files rewritten to match and
 *   modules.dep.bin left out (busybox reads the text files): busybox 1.35
 *   cannot load .ko.zst at all, Debian's loads .ko.xz only because it was
 *   built with xz, and the kernel decompresses only when asked to.
 *
 * A dynamically linked ELF given as init or busybox is refused: there is
 * no dynamic loader in the initramfs.
 */
int kb_initramfs_write(const char *out_path, const struct kb_initramfs_spec *spec);

struct kb_distro_kernel {
	char *package;		/* "linux-image-6.1.0-57-amd64" */
	char *version;		/* its Debian version: "6.1.192-3" */
	char *release;		/* `uname -r` of the kernel: "6.1.0-57-amd64" */
	char *image;		/* .../boot/vmlinuz-<release> in the unpacked tree */
	char *modules_root;	/* holds lib/modules/<release>/, depmod run */
};

/*
 * Debian's kernel `package` ("linux-image-amd64": a metapackage is
 * followed to the linux-image-<release> it depends on, at the version
 * apt-cache shows) fetched with `apt-get download` into `downloads`,
 * unpacked with dpkg-deb -x and indexed with `depmod -b` (the package
 * ships no modules.dep). A .deb or an unpacked tree already there is
 * reused; a newer version in apt's lists is fetched next to it.
 * `apt-cache show` output is kept as <downloads>/<package>.apt-show, other
 * programs' output goes to <downloads>/apt.log; on failure the message
 * carries its tail.
 */
int kb_distro_kernel_fetch(struct kb_distro_kernel *out, const char *package,
			   const char *downloads);
void kb_distro_kernel_release(struct kb_distro_kernel *kernel);

#endif
