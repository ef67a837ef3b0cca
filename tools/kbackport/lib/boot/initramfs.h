/*
 * The initramfs a test kernel boots with: the guest program (guest.h) as
 * /init, busybox, and the closure of the kernel modules it needs.
 */
#ifndef KB_INITRAMFS_H
#define KB_INITRAMFS_H

#include <stdbool.h>

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
	const char *cases;		/* the guest's cases (/kbackport/cases,
					 * cases.h kb_cases_guest_text()), or NULL */
};

/*
 * Write a gzip'ed newc cpio to `out_path` (atomically: a temporary file,
 * then rename) holding /init, /bin/busybox with /bin/sh, /sbin/modprobe,
 * insmod, rmmod and lsmod linked to it (modprobe is what the kernel runs
 * for request_module()), /dev/console (char 5,1), the /proc, /sys, /dev
 * and /tmp mount points, the guest's cases as /kbackport/cases, and the
 * modules:
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

/* Bumped when kb_initramfs_write() writes other bytes for the same inputs. */
#define KB_INITRAMFS_FORMAT 1

/* Entries kb_initramfs_cached() keeps in its directory (the most recently used). */
#define KB_INITRAMFS_CACHE_KEEP 64

/*
 * The cache key of the initramfs `spec` makes, as 64 hex digits and a NUL:
 * the SHA-256 of a text naming every input with its SHA-256: the format
 * (KB_INITRAMFS_FORMAT), the init program, busybox, the cases, the modules asked for,
 * the release, each module file that goes in and every modules.* file of
 * the release. Equal inputs give the same key wherever they are.
 */
int kb_initramfs_key(char key[65], const struct kb_initramfs_spec *spec);

/*
 * The initramfs of `spec`, content-addressed: *out is
 * <cachedir>/<key>.cpio (malloc'ed), written with kb_initramfs_write()
 * when missing (then the directory is pruned to its
 * KB_INITRAMFS_CACHE_KEEP most recently used entries), else only marked
 * used, and *reused set.
 */
int kb_initramfs_cached(char **out, bool *reused, const char *cachedir,
			const struct kb_initramfs_spec *spec);

/*
 * *out gets the kernel release under <modules_root>/lib/modules (malloc'ed)
 * when there is exactly one; none or several is an error.
 */
int kb_modules_release(char **out, const char *modules_root);

#endif
