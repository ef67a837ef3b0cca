/*
 * Whether an x86 bzImage carries the kernel its own build compressed.
 *
 * The bzImage's payload is arch/x86/boot/compressed/vmlinux.bin.<ext>
 * (the lane's vmlinux, compressed), pulled in by piggy.S's .incbin, which
 * names only the file and its size to the compiler. A compiler cache that
 * hashes what the preprocessor sees, not what .incbin reads, can hand back
 * another build's piggy.o when the two payloads are the same size: the
 * lane then boots another lane's kernel, and its verdict is that kernel's.
 * Seen twice (ccache's depend mode, then once not explained); this check
 * turns any such mix-up into a build error, whatever its cause.
 *
 * The setup header (boot protocol 2.08, Linux 2.6.30, on) says where the
 * payload is: payload_offset and payload_length (at 0x248 and 0x24c),
 * counted from the protected-mode code, which starts after the boot
 * sector and setup_sects (0x1f1; 0 means 4) sectors of 512 bytes.
 */
#ifndef KB_PAYLOAD_H
#define KB_PAYLOAD_H

#include <stddef.h>

/*
 * Where the payload of the bzImage `image` (`len` bytes) is: *offset and
 * *size in `image`. KB_EINVALID, said in words, when `image` is not a
 * bzImage ("HdrS" at 0x202), its boot protocol is older than 2.08 (no
 * payload fields), or the fields point outside the file.
 */
int kb_payload_locate(size_t *offset, size_t *size, const char *image, size_t len);

/*
 * The compressed kernel's file name under arch/x86/boot/compressed/ for
 * the build's .config text `config` (CONFIG_KERNEL_GZIP=y: "vmlinux.bin.gz",
 * and so on for BZIP2, LZMA, XZ, LZO, LZ4 and ZSTD), or else for the
 * compression `payload` (`len` bytes) starts with (its magic bytes); NULL
 * when neither says.
 */
const char *kb_payload_file(const char *config, const char *payload, size_t len);

/*
 * Check the build in `obj_dir` (make's O=): its arch/x86/boot/bzImage must
 * carry exactly the bytes of its arch/x86/boot/compressed/vmlinux.bin.<ext>
 * (`config` is the build's .config text). 0 when it does. 0 too, with
 * *note (malloc'ed) saying why, when it cannot be checked (a boot protocol
 * before 2.08, no compressed file to compare with). KB_EINVALID when the
 * payload is another: the message names both files and their sizes.
 * KB_ENOTFOUND when there is no bzImage; KB_ERROR (or KB_ENOMEM) when a
 * file cannot be read (not a regular file, larger than KB_READ_MAX).
 */
int kb_payload_check(char **note, const char *obj_dir, const char *config);

#endif
