#include "kbuild/payload.h"
#include "kbuild/kconfig.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The setup header's fields (Documentation/x86/boot.rst). */
#define HDR_SETUP_SECTS 0x1f1
#define HDR_MAGIC 0x202
#define HDR_VERSION 0x206
#define HDR_PAYLOAD_OFFSET 0x248
#define HDR_PAYLOAD_LENGTH 0x24c

static uint32_t le16(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return (uint32_t)u[0] | (uint32_t)u[1] << 8;
}

static uint32_t le32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 |
	       (uint32_t)u[3] << 24;
}

int kb_payload_locate(size_t *offset, size_t *size, const char *image, size_t len)
{
	uint32_t version, sects, off, n;
	size_t pm;

	if (len < HDR_PAYLOAD_LENGTH + 4 || memcmp(image + HDR_MAGIC, "HdrS", 4))
		return kb_error_set(KB_EINVALID, "not a bzImage (no \"HdrS\" setup header)");
	version = le16(image + HDR_VERSION);
	if (version < 0x0208)
		return kb_error_set(KB_EINVALID,
				    "boot protocol %u.%02u names no payload (2.08 on does)",
				    version >> 8, version & 0xff);
	sects = (unsigned char)image[HDR_SETUP_SECTS];
	pm = ((size_t)(sects ? sects : 4) + 1) * 512;
	off = le32(image + HDR_PAYLOAD_OFFSET);
	n = le32(image + HDR_PAYLOAD_LENGTH);
	if (pm > len || off > len - pm || n > len - pm - off)
		return kb_error_set(KB_EINVALID,
				    "the payload (%u bytes at %zu) ends past the image's %zu bytes",
				    n, pm + off, len);
	*offset = pm + off;
	*size = n;
	return 0;
}

static const struct {
	const char *option;	/* the .config's CONFIG_KERNEL_<X>=y */
	const char *file;	/* under arch/x86/boot/compressed/ */
	const char *magic;	/* the compressed file's first bytes */
	size_t magic_len;
} compressions[] = {
	{ "CONFIG_KERNEL_GZIP", "vmlinux.bin.gz", "\x1f\x8b", 2 },
	{ "CONFIG_KERNEL_BZIP2", "vmlinux.bin.bz2", "BZh", 3 },
	{ "CONFIG_KERNEL_LZMA", "vmlinux.bin.lzma", "\x5d\x00\x00", 3 },
	{ "CONFIG_KERNEL_XZ", "vmlinux.bin.xz", "\xfd" "7zXZ\x00", 6 },
	{ "CONFIG_KERNEL_LZO", "vmlinux.bin.lzo", "\x89LZO", 4 },
	{ "CONFIG_KERNEL_LZ4", "vmlinux.bin.lz4", "\x02\x21\x4c\x18", 4 },
	{ "CONFIG_KERNEL_ZSTD", "vmlinux.bin.zst", "\x28\xb5\x2f\xfd", 4 },
};

#define NCOMPRESSIONS (sizeof(compressions) / sizeof(*compressions))

const char *kb_payload_file(const char *config, const char *payload, size_t len)
{
	const char *value;
	size_t i, vlen;

	for (i = 0; i < NCOMPRESSIONS; i++) {
		value = kb_config_value(config, compressions[i].option,
					strlen(compressions[i].option), &vlen);
		if (vlen == 1 && *value == 'y')
			return compressions[i].file;
	}
	for (i = 0; i < NCOMPRESSIONS; i++)
		if (len >= compressions[i].magic_len &&
		    !memcmp(payload, compressions[i].magic, compressions[i].magic_len))
			return compressions[i].file;
	return NULL;
}

/* *note = "payload not checked: <why>"; 0, or KB_ENOMEM. */
static int not_checked(char **note, const char *why, const char *what)
{
	struct kb_buf b = KB_BUF_INIT;
	int err = kb_buf_printf(&b, "payload not checked: %s%s", why, what ? what : "");

	*note = err < 0 ? NULL : kb_buf_detach(&b);
	kb_buf_release(&b);
	return err < 0 ? err : 0;
}

int kb_payload_check(char **note, const char *obj_dir, const char *config)
{
	struct kb_buf image_path = KB_BUF_INIT, file_path = KB_BUF_INIT;
	char *image = NULL, *want = NULL;
	size_t len = 0, want_len = 0, off = 0, size = 0;
	const char *file;
	int err;

	*note = NULL;
	if ((err = kb_buf_printf(&image_path, "%s/arch/x86/boot/bzImage", obj_dir)) < 0 ||
	    (err = kb_read_file(&image, &len, image_path.ptr)) < 0)
		goto unreadable;
	if (kb_payload_locate(&off, &size, image, len) < 0) {
		err = not_checked(note, kb_error_last(), NULL);
		goto done;
	}
	if (!(file = kb_payload_file(config, image + off, size))) {
		err = not_checked(note, "neither the .config nor the payload's first "
				  "bytes name its compression", NULL);
		goto done;
	}
	if ((err = kb_buf_printf(&file_path, "%s/arch/x86/boot/compressed/%s", obj_dir,
				 file)) < 0)
		goto done;
	if ((err = kb_read_file(&want, &want_len, file_path.ptr)) == KB_ENOTFOUND) {
		err = not_checked(note, "no file to compare it with: ", file_path.ptr);
		goto done;
	}
	if (err < 0)
		goto unreadable;
	if (want_len != size || memcmp(want, image + off, size))
		err = kb_error_set(KB_EINVALID,
				   "%s carries a compressed kernel of %zu bytes that is not this "
				   "build's %s (%zu bytes): another build's object was linked in "
				   "(a stale arch/x86/boot/compressed/piggy.o?)",
				   image_path.ptr, size, file_path.ptr, want_len);
	goto done;
unreadable:	/* a file that cannot be read is no mismatch (KB_EINVALID) */
	if (err == KB_EINVALID)
		err = KB_ERROR;
done:
	free(image);
	free(want);
	kb_buf_release(&image_path);
	kb_buf_release(&file_path);
	return err;
}
