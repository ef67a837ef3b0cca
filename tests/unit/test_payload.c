/*
 * Whether a bzImage carries its own build's compressed kernel
 * (kbuild/payload.h), on bzImage-like files made here: a setup header with
 * the boot protocol's payload fields, then the protected-mode part. The
 * real kernels' images are checked by every build of tests/e2e, and a
 * stale piggy.o in tests/integration/t_build.sh (the fake kernel).
 */
#include "unit.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "util/error.h"
#include "kbuild/payload.h"
#include "sandbox.h"

#define GZ "\x1f\x8b\x08\x00 a gzip'ed kernel"

struct image {
	char data[4096];
	size_t len;
};

static void put32(char *p, uint32_t v)
{
	p[0] = (char)(v & 0xff);
	p[1] = (char)(v >> 8 & 0xff);
	p[2] = (char)(v >> 16 & 0xff);
	p[3] = (char)(v >> 24 & 0xff);
}

/* A bzImage of protocol `version`, `sects` setup sectors, `payload` at
 * `offset` in the protected-mode part, which ends `tail` bytes after it. */
static struct image make_image(unsigned version, unsigned char sects, const char *payload,
			       size_t len, size_t offset, size_t tail)
{
	struct image im;
	size_t pm = ((size_t)(sects ? sects : 4) + 1) * 512;

	memset(&im, 0, sizeof(im));
	im.data[0x1f1] = (char)sects;
	memcpy(im.data + 0x202, "HdrS", 4);
	im.data[0x206] = (char)(version & 0xff);
	im.data[0x207] = (char)(version >> 8);
	put32(im.data + 0x248, (uint32_t)offset);
	put32(im.data + 0x24c, (uint32_t)len);
	memset(im.data + pm, 'x', offset);
	memcpy(im.data + pm + offset, payload, len);
	im.len = pm + offset + len + tail;
	assert_true(im.len <= sizeof(im.data));
	return im;
}

static void put(struct sandbox *sb, const char *rel, const char *data, size_t len)
{
	FILE *f;

	write_file(sb, rel, "");	/* its directories */
	assert_non_null(f = fopen(sb_path(sb, rel), "w"));
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_locate(void **state)
{
	struct image im = make_image(0x020f, 1, GZ, sizeof(GZ) - 1, 100, 50);
	size_t off = 0, size = 0;

	(void)state;
	assert_int_equal(kb_payload_locate(&off, &size, im.data, im.len), 0);
	assert_int_equal(off, 1024 + 100);
	assert_int_equal(size, sizeof(GZ) - 1);
	assert_memory_equal(im.data + off, GZ, size);
}

/* setup_sects 0 means 4: the protected-mode part starts at 2560 */
static void test_locate_zero_sects(void **state)
{
	struct image im = make_image(0x0208, 0, GZ, sizeof(GZ) - 1, 0, 0);
	size_t off = 0, size = 0;

	(void)state;
	assert_int_equal(kb_payload_locate(&off, &size, im.data, im.len), 0);
	assert_int_equal(off, 2560);
}

static void test_locate_refused(void **state)
{
	struct image old = make_image(0x0207, 1, GZ, sizeof(GZ) - 1, 0, 0);
	struct image past = make_image(0x020f, 1, GZ, sizeof(GZ) - 1, 0, 0);
	struct image none = old;
	size_t off, size;

	(void)state;
	assert_int_equal(kb_payload_locate(&off, &size, old.data, old.len), KB_EINVALID);
	assert_string_equal(kb_error_last(), "boot protocol 2.07 names no payload (2.08 on does)");
	/* the length field one byte longer than the file */
	put32(past.data + 0x24c, (uint32_t)(sizeof(GZ)));
	assert_int_equal(kb_payload_locate(&off, &size, past.data, past.len), KB_EINVALID);
	assert_string_equal(kb_error_last(), "the payload (22 bytes at 1024) ends past the image's 1045 bytes");
	memcpy(none.data + 0x202, "HdrX", 4);
	assert_int_equal(kb_payload_locate(&off, &size, none.data, none.len), KB_EINVALID);
	assert_string_equal(kb_error_last(), "not a bzImage (no \"HdrS\" setup header)");
	/* shorter than the header */
	assert_int_equal(kb_payload_locate(&off, &size, none.data, 0x250), KB_EINVALID);
}

/* The .config names the compression; else the payload's magic bytes do. */
static void test_file(void **state)
{
	(void)state;
	assert_string_equal(kb_payload_file("CONFIG_X=y\nCONFIG_KERNEL_XZ=y\n", GZ, 4),
			    "vmlinux.bin.xz");
	assert_string_equal(kb_payload_file("CONFIG_KERNEL_ZSTD=y", GZ, 4), "vmlinux.bin.zst");
	/* a line that only contains the option, or sets it to n, is not it */
	assert_string_equal(kb_payload_file("# CONFIG_KERNEL_XZ=y is wrong\nCONFIG_KERNEL_XZ=yes\n",
					    GZ, 4), "vmlinux.bin.gz");
	assert_string_equal(kb_payload_file("", "\xfd" "7zXZ\0", 6), "vmlinux.bin.xz");
	assert_string_equal(kb_payload_file(NULL, "BZh91AY", 7), "vmlinux.bin.bz2");
	assert_null(kb_payload_file("", "plain", 5));
	assert_null(kb_payload_file("", "\x1f", 1));
}

static void test_check(void **state)
{
	struct sandbox *sb = *state;
	struct image im = make_image(0x020f, 1, GZ, sizeof(GZ) - 1, 16, 16);
	char *note = (char *)1, want[4096];

	put(sb, "arch/x86/boot/bzImage", im.data, im.len);
	put(sb, "arch/x86/boot/compressed/vmlinux.bin.gz", GZ, sizeof(GZ) - 1);
	assert_int_equal(kb_payload_check(&note, sb->dir, "CONFIG_KERNEL_GZIP=y\n"), 0);
	assert_null(note);

	/* another build's payload, the same size */
	put(sb, "arch/x86/boot/compressed/vmlinux.bin.gz", "\x1f\x8b\x08\x00 A gzip'ed kernel",
	    sizeof(GZ) - 1);
	assert_int_equal(kb_payload_check(&note, sb->dir, "CONFIG_KERNEL_GZIP=y\n"), KB_EINVALID);
	snprintf(want, sizeof(want),
		 "%s/arch/x86/boot/bzImage carries a compressed kernel of 21 bytes that is not "
		 "this build's %s/arch/x86/boot/compressed/vmlinux.bin.gz (21 bytes): another "
		 "build's object was linked in (a stale arch/x86/boot/compressed/piggy.o?)",
		 sb->dir, sb->dir);
	assert_string_equal(kb_error_last(), want);
	assert_null(note);

	/* a longer one that starts with the same bytes is another too */
	put(sb, "arch/x86/boot/compressed/vmlinux.bin.gz", GZ "!", sizeof(GZ));
	assert_int_equal(kb_payload_check(&note, sb->dir, ""), KB_EINVALID);

	/* a compressed file that cannot be read is an error, not a mismatch */
	assert_int_equal(mkdir(sb_path(sb, "arch/x86/boot/compressed/vmlinux.bin.lz4"), 0755), 0);
	assert_int_equal(kb_payload_check(&note, sb->dir, "CONFIG_KERNEL_LZ4=y\n"), KB_ERROR);
	assert_null(note);

	/* the .config says xz: there is no vmlinux.bin.xz to compare with */
	assert_int_equal(kb_payload_check(&note, sb->dir, "CONFIG_KERNEL_XZ=y\n"), 0);
	snprintf(want, sizeof(want), "payload not checked: no file to compare it with: "
		 "%s/arch/x86/boot/compressed/vmlinux.bin.xz", sb->dir);
	assert_string_equal(note, want);
	free(note);
}

static void test_check_cannot(void **state)
{
	struct sandbox *sb = *state;
	struct image old = make_image(0x0207, 1, GZ, sizeof(GZ) - 1, 0, 0);
	struct image plain = make_image(0x020f, 1, "plain", 5, 0, 0);
	char *note = NULL;

	assert_int_equal(kb_payload_check(&note, sb->dir, ""), KB_ENOTFOUND);
	assert_null(note);
	put(sb, "arch/x86/boot/bzImage", old.data, old.len);
	assert_int_equal(kb_payload_check(&note, sb->dir, ""), 0);
	assert_string_equal(note, "payload not checked: boot protocol 2.07 names no payload "
			    "(2.08 on does)");
	free(note);
	put(sb, "arch/x86/boot/bzImage", plain.data, plain.len);
	assert_int_equal(kb_payload_check(&note, sb->dir, ""), 0);
	assert_string_equal(note, "payload not checked: neither the .config nor the payload's "
			    "first bytes name its compression");
	free(note);
}

static int setup(void **state)
{
	return (*state = sandbox_new()) ? 0 : -1;
}

static int teardown(void **state)
{
	sandbox_free(*state);
	return 0;
}

#define SANDBOXED(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_locate_zero_sects),
		cmocka_unit_test(test_locate_refused),
		cmocka_unit_test(test_file),
		SANDBOXED(test_check),
		SANDBOXED(test_check_cannot),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
