/*
 * The vmlinux of a bzImage for PVH boot, on a bzImage-like file made here:
 * setup bytes, an xz stream compressed as the kernel's build does (x86 BCJ
 * + LZMA2, CRC32) of a small ELF64 with a note segment, trailing bytes.
 * Debian's real kernel is booted through it in tests/e2e/t_kernels_pvh.sh.
 */
#include "unit.h"

#include <elf.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "boot/pvh.h"
#include "sandbox.h"

#define BODY 65536

struct image {
	char *data;
	size_t len;
};

/* An ELF64 with one PT_NOTE segment holding a "Xen" note of `type`, then
 * BODY bytes of machine-code-like filler. */
static struct image make_elf(uint32_t type)
{
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
				       ELFDATA2LSB, EV_CURRENT } };
	Elf64_Phdr ph = { .p_type = PT_NOTE };
	Elf64_Nhdr nh = { .n_namesz = 4, .n_descsz = 8, .n_type = type };
	uint64_t entry = 0x1000850;
	struct image e;
	size_t i, off = sizeof(eh) + sizeof(ph);

	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	ph.p_offset = off;
	ph.p_filesz = sizeof(nh) + 4 + 8;
	e.len = off + ph.p_filesz + BODY;
	assert_non_null(e.data = malloc(e.len));
	memcpy(e.data, &eh, sizeof(eh));
	memcpy(e.data + sizeof(eh), &ph, sizeof(ph));
	memcpy(e.data + off, &nh, sizeof(nh));
	memcpy(e.data + off + sizeof(nh), "Xen", 4);
	memcpy(e.data + off + sizeof(nh) + 4, &entry, 8);
	for (i = 0; i < BODY; i++)	/* calls (E8) with offsets for the BCJ filter */
		e.data[off + ph.p_filesz + i] = (char)(i % 5 == 0 ? 0xe8 : (i * 7) & 0xff);
	return e;
}

/* "setup" bytes, a stray xz magic, the xz stream of `elf`, trailing bytes. */
static struct image make_bzimage(const struct image *elf, bool corrupt)
{
	lzma_options_lzma lz;
	lzma_filter filters[] = { { LZMA_FILTER_X86, NULL }, { LZMA_FILTER_LZMA2, &lz },
				  { LZMA_VLI_UNKNOWN, NULL } };
	static const char setup[] = "MZ setup code \xfd" "7zXZ\0 not a stream here";
	size_t cap = elf->len + 4096, pos = sizeof(setup);
	struct image b;

	assert_false(lzma_lzma_preset(&lz, 6));
	assert_non_null(b.data = malloc(sizeof(setup) + cap + 16));
	memcpy(b.data, setup, sizeof(setup));
	assert_int_equal(lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, NULL,
						   (const uint8_t *)elf->data, elf->len,
						   (uint8_t *)b.data, &pos, sizeof(setup) + cap),
			 LZMA_OK);
	if (corrupt)
		memset(b.data + sizeof(setup) + (pos - sizeof(setup)) / 2, 0x55, 64);
	memcpy(b.data + pos, "\0\0\0\0trailer!", 12);
	b.len = pos + 12;
	return b;
}

static void write_image(struct sandbox *sb, const char *rel, const struct image *img)
{
	FILE *f = fopen(sb_path(sb, rel), "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(img->data, 1, img->len, f), img->len);
	assert_int_equal(fclose(f), 0);
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

/* The ELF comes out byte for byte, past the stray magic in the setup bytes. */
static void test_extract(void **state)
{
	struct image elf = make_elf(KB_PVH_NOTE_TYPE), bz = make_bzimage(&elf, false);
	char *out = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(kb_pvh_extract(&out, &len, bz.data, bz.len), 0);
	assert_int_equal(len, elf.len);
	assert_memory_equal(out, elf.data, elf.len);
	assert_true(kb_pvh_has_entry(out, len));
	free(out);
	free(elf.data);
	free(bz.data);
}

/* A note of another type (17: XEN_ELFNOTE_SUPPORTED_FEATURES) is no entry;
 * a cut ELF or a note running past its segment is not read past. */
static void test_note(void **state)
{
	struct image elf = make_elf(17), good = make_elf(KB_PVH_NOTE_TYPE);
	Elf64_Nhdr nh;

	(void)state;
	assert_false(kb_pvh_has_entry(elf.data, elf.len));
	assert_true(kb_pvh_has_entry(good.data, good.len));
	assert_false(kb_pvh_has_entry(good.data, sizeof(Elf64_Ehdr) + 10));
	memcpy(&nh, good.data + sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), sizeof(nh));
	nh.n_descsz = 4096;
	memcpy(good.data + sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr), &nh, sizeof(nh));
	assert_false(kb_pvh_has_entry(good.data, good.len));
	free(elf.data);
	free(good.data);
}

static void test_corrupt_payload(void **state)
{
	struct image elf = make_elf(KB_PVH_NOTE_TYPE), bz = make_bzimage(&elf, true);
	char *out = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(kb_pvh_extract(&out, &len, bz.data, bz.len), KB_EINVALID);
	assert_null(out);
	assert_non_null(strstr(kb_error_last(), "the xz payload does not decompress"));
	free(elf.data);
	free(bz.data);
}

static void test_no_payload(void **state)
{
	char *out = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(kb_pvh_extract(&out, &len, "MZ no payload", 13), KB_ENOTFOUND);
	assert_string_equal(kb_error_last(), "no xz payload in the image");
	assert_null(out);
}

/* The first call extracts into the cache; the second finds the file there. */
static void test_cache_hit(void **state)
{
	struct sandbox *sb = *state;
	struct image elf = make_elf(KB_PVH_NOTE_TYPE), bz = make_bzimage(&elf, false);
	char *path = NULL, *again = NULL, *why = NULL, *text = NULL, cache[600], want[700];
	char hash[65];
	size_t len = 0;

	write_image(sb, "vmlinuz", &bz);
	snprintf(cache, sizeof(cache), "%s/cache", sb->dir);
	assert_int_equal(kb_pvh_image(&path, &why, sb_path(sb, "vmlinuz"), cache), 0);
	assert_null(why);
	assert_int_equal(kb_sha256_hex(hash, bz.data, bz.len), 0);
	snprintf(want, sizeof(want), "%s/%s.vmlinux", cache, hash);
	assert_string_equal(path, want);
	assert_int_equal(kb_read_file(&text, &len, path), 0);
	assert_int_equal(len, elf.len);
	assert_memory_equal(text, elf.data, elf.len);
	assert_false(has_temporary(cache));
	write_file(sb, path + strlen(sb->dir) + 1, "kept");
	assert_int_equal(kb_pvh_image(&again, &why, sb_path(sb, "vmlinuz"), cache), 0);
	assert_string_equal(again, path);
	free(text);
	assert_int_equal(kb_read_file(&text, NULL, again), 0);
	assert_string_equal(text, "kept");
	free(text);
	free(path);
	free(again);
	free(elf.data);
	free(bz.data);
}

/* No PVH note, a corrupt payload: the bzImage is booted, and the answer is
 * cached beside where the vmlinux would be. */
static void test_fallback(void **state)
{
	struct sandbox *sb = *state;
	struct image plain = make_elf(17), good = make_elf(KB_PVH_NOTE_TYPE);
	struct image bz = make_bzimage(&plain, false), bad = make_bzimage(&good, true);
	char *path = NULL, *why = NULL, *text = NULL, cache[600], note[700], hash[65];

	write_image(sb, "plain", &bz);
	write_image(sb, "bad", &bad);
	snprintf(cache, sizeof(cache), "%s/cache", sb->dir);
	assert_int_equal(kb_pvh_image(&path, &why, sb_path(sb, "plain"), cache), 0);
	assert_null(path);
	assert_string_equal(why, "the kernel has no PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY)");
	assert_int_equal(kb_sha256_hex(hash, bz.data, bz.len), 0);
	snprintf(note, sizeof(note), "%s/%s.no-pvh", cache, hash);
	assert_int_equal(kb_read_file(&text, NULL, note), 0);
	assert_string_equal(text, why);
	free(text);
	free(why);
	assert_int_equal(kb_pvh_image(&path, &why, sb_path(sb, "bad"), cache), 0);
	assert_null(path);
	assert_non_null(strstr(why, "the xz payload does not decompress"));
	assert_false(has_temporary(cache));
	free(why);
	free(plain.data);
	free(good.data);
	free(bz.data);
	free(bad.data);
}

/* Old entries of the cache: a new vmlinux leaves the KB_PVH_CACHE_KEEP most
 * recently used (itself among them); a hit marks its file used (its access
 * time; the modification time stays the image's own). */
static void test_cache_bounded(void **state)
{
	struct sandbox *sb = *state;
	struct image elf = make_elf(KB_PVH_NOTE_TYPE), bz = make_bzimage(&elf, false);
	char *path = NULL, *why = NULL, cache[600], name[128];
	struct timespec t[2];
	struct stat st;
	int i;

	for (i = 1; i <= 6; i++) {
		snprintf(name, sizeof(name), "cache/%064d.vmlinux", i);
		write_file(sb, name, "old\n");
		clock_gettime(CLOCK_REALTIME, &t[0]);
		t[0].tv_sec -= 1000 - i;	/* the last the most recent */
		t[1] = t[0];
		assert_int_equal(utimensat(AT_FDCWD, sb_path(sb, name), t, 0), 0);
	}
	write_image(sb, "vmlinuz", &bz);
	snprintf(cache, sizeof(cache), "%s/cache", sb->dir);
	assert_int_equal(kb_pvh_image(&path, &why, sb_path(sb, "vmlinuz"), cache), 0);
	assert_int_equal(stat(path, &st), 0);
	for (i = 1; i <= 6; i++) {
		snprintf(name, sizeof(name), "cache/%064d.vmlinux", i);
		assert_int_equal(access(sb_path(sb, name), F_OK) == 0, i > 6 - (KB_PVH_CACHE_KEEP - 1));
	}
	/* a hit: its file is the most recently used */
	t[0].tv_sec = t[1].tv_sec = 1000000000;
	t[0].tv_nsec = t[1].tv_nsec = 0;
	assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
	free(path);
	assert_int_equal(kb_pvh_image(&path, &why, sb_path(sb, "vmlinuz"), cache), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_atime > 1000000000);
	assert_int_equal(st.st_mtime, 1000000000);	/* use is the access time only */
	free(path);
	free(elf.data);
	free(bz.data);
}

/* An unreadable bzImage is an error, not a fallback. */
static void test_missing_image(void **state)
{
	struct sandbox *sb = *state;
	char *path = NULL, *why = NULL;

	assert_int_equal(kb_pvh_image(&path, &why, sb_path(sb, "none"), sb->dir), KB_ENOTFOUND);
	assert_null(path);
	assert_null(why);
	assert_non_null(strstr(kb_error_last(), "cannot extract the vmlinux of '"));
}

#define SANDBOXED(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extract),
		cmocka_unit_test(test_note),
		cmocka_unit_test(test_corrupt_payload),
		cmocka_unit_test(test_no_payload),
		SANDBOXED(test_cache_hit),
		SANDBOXED(test_fallback),
		SANDBOXED(test_missing_image),
		SANDBOXED(test_cache_bounded),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
