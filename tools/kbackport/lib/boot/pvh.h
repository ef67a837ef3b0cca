/*
 * A distribution kernel's vmlinux, booted through PVH instead of its
 * bzImage. Under TCG the emulated CPU spends seconds decompressing an xz
 * bzImage; the host does it once with liblzma, and QEMU (7.2+) loads the
 * ELF straight at the entry named by its Xen PVH note
 * (XEN_ELFNOTE_PHYS32_ENTRY), which kernels with CONFIG_PVH=y carry.
 *
 *   <cachedir>/<sha256 of the bzImage>.vmlinux   the extracted ELF
 *   <cachedir>/<sha256 of the bzImage>.no-pvh    why it cannot be used
 *
 * Both are written atomically (temporary + rename): a reader finds the
 * whole file or none. A file's modification time is its last use; after
 * writing one, the directory keeps its KB_PVH_CACHE_KEEP most recently
 * used files (kb_cache_prune()): a vmlinux is 66 MB.
 */
#ifndef KB_PVH_H
#define KB_PVH_H

#include <stdbool.h>
#include <stddef.h>

/* XEN_ELFNOTE_PHYS32_ENTRY: the 32-bit physical entry point of PVH. */
#define KB_PVH_NOTE_TYPE 18

/* Files the cache directory keeps (vmlinux images and no-pvh answers). */
#define KB_PVH_CACHE_KEEP 4

/*
 * The ELF image in the xz payload of `bzimage` (`len` bytes): the first xz
 * stream (magic FD 37 7A 58 5A 00) that decompresses whole, with its BCJ
 * filter, to an ELF file. *out is malloc'ed. KB_ENOTFOUND when there is no
 * xz stream, KB_EINVALID when none decompresses or the result is no ELF.
 */
int kb_pvh_extract(char **out, size_t *out_len, const char *bzimage, size_t len);

/* Whether the ELF64 `elf` has a "Xen" note of type KB_PVH_NOTE_TYPE in a
 * PT_NOTE segment (what QEMU looks for). */
bool kb_pvh_has_entry(const char *elf, size_t len);

/*
 * The image to boot `bzimage` through PVH: *out is the cached vmlinux
 * path, extracted on the first call for this bzImage's bytes. When it
 * cannot be used (no xz payload, a payload that does not decompress, no
 * PVH note) *out is NULL and *why says why, so the bzImage is booted;
 * that answer is cached too. Both are malloc'ed. Returns a negative code
 * only when `bzimage` cannot be read, the cache cannot be written or
 * memory runs out.
 */
int kb_pvh_image(char **out, char **why, const char *bzimage, const char *cachedir);

#endif
