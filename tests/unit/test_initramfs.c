/*
 * The initramfs writer on a fake modules tree made here (module files hold
 * text: the writer never looks inside one), read back with libarchive.
 * Debian's kernel (kb_distro_kernel_fetch) needs the archive: it is proved
 * by booting it, see tests/fixtures/ktap/caps-debian.log.
 */
#include "unit.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/error.h"
#include "boot/initramfs.h"
#include "sandbox.h"

#define RELEASE "6.1.0-test"

struct entry {
	char *path;
	mode_t mode;
	dev_t rdev;
	char *symlink;
	char *data;
	size_t size;
};

struct listing {
	struct entry e[256];
	size_t n;
};

/* `text` compressed as a single raw stream, as kmod's .ko.xz and .ko.zst are. */
static void write_compressed(struct sandbox *sb, const char *rel, const char *text,
			     int (*add_filter)(struct archive *))
{
	struct archive *a = archive_write_new();
	struct archive_entry *ae = archive_entry_new();

	write_file(sb, rel, "");
	assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
	assert_int_equal(add_filter(a), ARCHIVE_OK);
	assert_true(archive_write_set_filter_option(a, NULL, "compression-level", "1") >=
		    ARCHIVE_WARN);	/* xz's default level needs ~100 MB */
	assert_int_equal(archive_write_open_filename(a, sb_path(sb, rel)), ARCHIVE_OK);
	archive_entry_set_pathname(ae, "module");
	archive_entry_set_mode(ae, AE_IFREG | 0644);
	archive_entry_set_size(ae, (la_int64_t)strlen(text));
	assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, text, strlen(text)), (la_ssize_t)strlen(text));
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_entry_free(ae);
	archive_write_free(a);
}

#define MOD "modules/lib/modules/" RELEASE "/"

/*
 * xfs needs libcrc32c (modules.dep), which wants crc32c first (softdep),
 * which two modules provide (alias), one of them compressed with zstd;
 * sit, compressed with xz, is reached through its netdev- alias; unrelated
 * must stay out of a closure.
 */
static void make_modules(struct sandbox *sb)
{
	write_file(sb, MOD "kernel/fs/xfs/xfs.ko", "xfs module\n");
	write_file(sb, MOD "kernel/lib/libcrc32c.ko", "libcrc32c module\n");
	write_file(sb, MOD "kernel/crypto/crc32c_generic.ko", "crc32c_generic module\n");
	write_compressed(sb, MOD "kernel/arch/x86/crypto/crc32c-intel.ko.zst",
			 "crc32c-intel module\n", archive_write_add_filter_zstd);
	write_compressed(sb, MOD "kernel/net/ipv6/sit.ko.xz", "sit module\n",
			 archive_write_add_filter_xz);
	write_file(sb, MOD "kernel/net/ipv4/tunnel4.ko", "tunnel4 module\n");
	write_file(sb, MOD "kernel/net/ipv4/ip_tunnel.ko", "ip_tunnel module\n");
	write_file(sb, MOD "kernel/drivers/misc/unrelated.ko", "unrelated module\n");
	write_file(sb, MOD "modules.dep",
		   "kernel/fs/xfs/xfs.ko: kernel/lib/libcrc32c.ko\n"
		   "kernel/lib/libcrc32c.ko:\n"
		   "kernel/crypto/crc32c_generic.ko:\n"
		   "kernel/arch/x86/crypto/crc32c-intel.ko.zst:\n"
		   "kernel/net/ipv6/sit.ko.xz: kernel/net/ipv4/tunnel4.ko kernel/net/ipv4/ip_tunnel.ko\n"
		   "kernel/net/ipv4/tunnel4.ko:\n"
		   "kernel/net/ipv4/ip_tunnel.ko:\n"
		   "kernel/drivers/misc/unrelated.ko:\n");
	write_file(sb, MOD "modules.alias",
		   "# Aliases extracted from modules themselves.\n"
		   "alias crypto-crc32c crc32c_generic\n"
		   "alias crc32c crc32c_generic\n"
		   "alias crypto-crc32c crc32c_intel\n"
		   "alias crc32c crc32c_intel\n"
		   "alias netdev-sit0 sit\n"
		   "alias pci:v00008086d*sv*sd*bc*sc*i* unrelated\n");
	write_file(sb, MOD "modules.softdep",
		   "# Soft dependencies extracted from modules themselves.\n"
		   "softdep libcrc32c pre: crc32c\n");
	write_file(sb, MOD "modules.builtin", "kernel/net/ipv6/ipv6.ko\n");
	write_file(sb, MOD "modules.dep.bin", "binary index naming .ko.xz paths\n");
	write_file(sb, MOD "modules.alias.bin", "binary alias index\n");
}

static int setup(void **state)
{
	struct sandbox *sb = sandbox_new();

	if (!sb)
		return -1;
	write_file(sb, "init", "#!/bin/sh\necho the guest\n");
	write_file(sb, "busybox", "a static busybox\n");
	make_modules(sb);
	*state = sb;
	return 0;
}

static int teardown(void **state)
{
	sandbox_free(*state);
	return 0;
}

/* ---- reading the archive back ---- */

static void read_listing(struct listing *l, const char *path)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;

	l->n = 0;
	archive_read_support_format_cpio(a);
	assert_int_equal(archive_read_open_filename(a, path, 65536), ARCHIVE_OK);
	while (archive_read_next_header(a, &ae) == ARCHIVE_OK) {
		struct entry *e = &l->e[l->n++];
		la_int64_t size = archive_entry_size(ae);

		assert_true(l->n < sizeof(l->e) / sizeof(l->e[0]));
		e->path = strdup(archive_entry_pathname(ae));
		e->mode = archive_entry_mode(ae);
		e->rdev = archive_entry_rdev(ae);
		e->symlink = archive_entry_symlink(ae) ? strdup(archive_entry_symlink(ae)) : NULL;
		e->size = (size_t)size;
		e->data = calloc(1, e->size + 1);
		if (size && S_ISREG(e->mode))	/* a symlink's size is its target's */
			assert_int_equal(archive_read_data(a, e->data, e->size), size);
		assert_int_equal(archive_entry_uid(ae), 0);
	}
	assert_int_equal(archive_format(a), ARCHIVE_FORMAT_CPIO_SVR4_NOCRC);	/* newc */
	assert_int_equal(archive_filter_code(a, 0), ARCHIVE_FILTER_NONE);	/* not compressed */
	archive_read_free(a);
}

static void listing_release(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->e[i].path);
		free(l->e[i].symlink);
		free(l->e[i].data);
	}
	l->n = 0;
}

static const struct entry *find(const struct listing *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->e[i].path, path))
			return &l->e[i];
	return NULL;
}

static size_t count_prefix(const struct listing *l, const char *prefix, const char *suffix)
{
	size_t n = 0, len;

	for (size_t i = 0; i < l->n; i++) {
		len = strlen(l->e[i].path);
		n += !strncmp(l->e[i].path, prefix, strlen(prefix)) &&
		     len >= strlen(suffix) && !strcmp(l->e[i].path + len - strlen(suffix), suffix);
	}
	return n;
}

static void assert_file(const struct listing *l, const char *path, mode_t mode, const char *data)
{
	const struct entry *e = find(l, path);

	if (!e)
		fail_msg("'%s' is not in the archive", path);
	assert_int_equal(e->mode, mode);
	assert_string_equal(e->data, data);
}

/* The kernel's unpacker creates no parents: a directory comes before what it holds. */
static void assert_parents_first(const struct listing *l)
{
	char parent[512], *slash;

	for (size_t i = 0; i < l->n; i++) {
		snprintf(parent, sizeof(parent), "%s", l->e[i].path);
		if (!(slash = strrchr(parent, '/')))
			continue;
		*slash = '\0';
		for (size_t j = 0; j <= i; j++) {
			if (j == i)
				fail_msg("'%s' comes before its directory '%s'", l->e[i].path, parent);
			if (!strcmp(l->e[j].path, parent)) {
				assert_true(S_ISDIR(l->e[j].mode));
				break;
			}
		}
	}
}

static int write_initramfs(struct sandbox *sb, struct listing *l, const char *const *modules,
			   bool with_modules)
{
	char init[512], busybox[512], root[512], out[512];
	struct kb_initramfs_spec spec = { .init = init, .busybox = busybox, .modules = modules };
	int err;

	snprintf(init, sizeof(init), "%s/init", sb->dir);
	snprintf(busybox, sizeof(busybox), "%s/busybox", sb->dir);
	snprintf(root, sizeof(root), "%s/modules", sb->dir);
	snprintf(out, sizeof(out), "%s/initrd.cpio", sb->dir);
	spec.modules_root = with_modules ? root : NULL;
	if ((err = kb_initramfs_write(out, &spec)) == 0)
		read_listing(l, out);
	return err;
}

/* ---- the tests ---- */

static void test_base_entries(void **state)
{
	static const char *const applets[] = { "bin/sh", "sbin/modprobe", "sbin/insmod",
					       "sbin/rmmod", "sbin/lsmod" };
	struct listing l;
	const struct entry *e;

	assert_int_equal(write_initramfs(*state, &l, NULL, false), 0);
	assert_file(&l, "init", S_IFREG | 0755, "#!/bin/sh\necho the guest\n");
	assert_file(&l, "bin/busybox", S_IFREG | 0755, "a static busybox\n");
	for (size_t i = 0; i < sizeof(applets) / sizeof(applets[0]); i++) {
		assert_non_null(e = find(&l, applets[i]));
		assert_int_equal(e->mode, S_IFLNK | 0777);
		assert_string_equal(e->symlink, "/bin/busybox");
	}
	assert_non_null(e = find(&l, "dev/console"));
	assert_int_equal(e->mode, S_IFCHR | 0600);
	assert_int_equal(major(e->rdev), 5);
	assert_int_equal(minor(e->rdev), 1);
	assert_non_null(e = find(&l, "tmp"));
	assert_int_equal(e->mode, S_IFDIR | 01777);
	assert_non_null(e = find(&l, "proc"));
	assert_int_equal(e->mode, S_IFDIR | 0755);
	assert_non_null(find(&l, "sys"));
	assert_non_null(find(&l, "dev"));
	assert_null(find(&l, "lib"));
	assert_parents_first(&l);
	listing_release(&l);
}

static void test_closure(void **state)
{
	const char *const modules[] = { "xfs", "netdev-sit0", "ipv6", NULL };
	struct listing l;
	const struct entry *e;

	assert_int_equal(write_initramfs(*state, &l, modules, true), 0);
#define K "lib/modules/" RELEASE "/kernel/"
	assert_file(&l, K "fs/xfs/xfs.ko", S_IFREG | 0644, "xfs module\n");
	assert_file(&l, K "lib/libcrc32c.ko", S_IFREG | 0644, "libcrc32c module\n");
	/* the softdep's alias matches both providers */
	assert_file(&l, K "crypto/crc32c_generic.ko", S_IFREG | 0644, "crc32c_generic module\n");
	assert_file(&l, K "arch/x86/crypto/crc32c-intel.ko", S_IFREG | 0644,
		    "crc32c-intel module\n");
	assert_file(&l, K "net/ipv6/sit.ko", S_IFREG | 0644, "sit module\n");
	assert_file(&l, K "net/ipv4/tunnel4.ko", S_IFREG | 0644, "tunnel4 module\n");
	assert_file(&l, K "net/ipv4/ip_tunnel.ko", S_IFREG | 0644, "ip_tunnel module\n");
	assert_int_equal(count_prefix(&l, "lib/modules/", ".ko"), 7);
	assert_null(find(&l, K "drivers/misc/unrelated.ko"));
	assert_int_equal(count_prefix(&l, "lib/modules/", ".zst") +
			 count_prefix(&l, "lib/modules/", ".xz"), 0);
#undef K
	/* the index: paths follow the decompressed names, the rest unchanged */
	assert_non_null(e = find(&l, "lib/modules/" RELEASE "/modules.dep"));
	assert_non_null(strstr(e->data, "\nkernel/arch/x86/crypto/crc32c-intel.ko:\n"
				       "kernel/net/ipv6/sit.ko: kernel/net/ipv4/tunnel4.ko "));
	assert_null(strstr(e->data, ".ko."));
	assert_non_null(strstr(e->data, "kernel/drivers/misc/unrelated.ko:\n"));
	assert_non_null(e = find(&l, "lib/modules/" RELEASE "/modules.alias"));
	assert_non_null(strstr(e->data, "alias netdev-sit0 sit\n"));
	assert_file(&l, "lib/modules/" RELEASE "/modules.softdep", S_IFREG | 0644,
		    "# Soft dependencies extracted from modules themselves.\n"
		    "softdep libcrc32c pre: crc32c\n");
	assert_file(&l, "lib/modules/" RELEASE "/modules.alias.bin", S_IFREG | 0644,
		    "binary alias index\n");
	assert_null(find(&l, "lib/modules/" RELEASE "/modules.dep.bin"));
	assert_non_null(find(&l, "lib/modules/" RELEASE "/modules.builtin"));
	assert_parents_first(&l);
	listing_release(&l);
}

static void test_all_modules(void **state)
{
	struct listing l;

	assert_int_equal(write_initramfs(*state, &l, NULL, true), 0);
	assert_int_equal(count_prefix(&l, "lib/modules/", ".ko"), 8);
	assert_file(&l, "lib/modules/" RELEASE "/kernel/drivers/misc/unrelated.ko",
		    S_IFREG | 0644, "unrelated module\n");
	listing_release(&l);
}

/*
 * A name matched by an alias pattern; nothing compressed in the closure, so
 * the index goes in exactly as depmod wrote it.
 */
static void test_alias_pattern_index_unchanged(void **state)
{
	const char *const modules[] = { "pci:v00008086d00001234sv00000000sd00000000bc02sc00i00",
					NULL };
	struct listing l;
	const struct entry *e;

	assert_int_equal(write_initramfs(*state, &l, modules, true), 0);
	assert_int_equal(count_prefix(&l, "lib/modules/", ".ko"), 1);
	assert_non_null(find(&l, "lib/modules/" RELEASE "/kernel/drivers/misc/unrelated.ko"));
	assert_non_null(e = find(&l, "lib/modules/" RELEASE "/modules.dep"));
	assert_non_null(strstr(e->data, "kernel/net/ipv6/sit.ko.xz: kernel/net/ipv4/tunnel4.ko"));
	assert_file(&l, "lib/modules/" RELEASE "/modules.dep.bin", S_IFREG | 0644,
		    "binary index naming .ko.xz paths\n");
	listing_release(&l);
}

static void test_unknown_module(void **state)
{
	struct sandbox *sb = *state;
	const char *const modules[] = { "xfs", "no_such_module", NULL };
	struct listing l;

	assert_int_equal(write_initramfs(sb, &l, modules, true), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "'no_such_module'"));
	assert_non_null(strstr(kb_error_last(), RELEASE));
	/* nothing left behind: no output, no temporary file */
	assert_int_equal(access(sb_path(sb, "initrd.cpio"), F_OK), -1);
	assert_false(has_temporary(sb->dir));
}

static void test_no_modules_dep(void **state)
{
	struct sandbox *sb = *state;
	struct listing l;

	assert_int_equal(unlink(sb_path(sb, MOD "modules.dep")), 0);
	assert_int_equal(write_initramfs(sb, &l, NULL, true), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "run depmod first"));
}

static void test_two_releases(void **state)
{
	struct sandbox *sb = *state;
	struct listing l;

	assert_int_equal(mkdir(sb_path(sb, "modules/lib/modules/6.12.0-test"), 0755), 0);
	assert_int_equal(write_initramfs(sb, &l, NULL, true), KB_EINVALID);
	assert_non_null(strstr(kb_error_last(), "holds 2 kernel releases"));
}

/* /bin/sh is dynamically linked on Debian: it could not run in the initramfs. */
static void test_dynamic_init_refused(void **state)
{
	struct sandbox *sb = *state;
	struct kb_initramfs_spec spec = { .init = "/bin/sh" };
	char out[512];

	snprintf(out, sizeof(out), "%s/initrd.cpio", sb->dir);
	assert_int_equal(kb_initramfs_write(out, &spec), KB_EINVALID);
	assert_non_null(strstr(kb_error_last(), "'/bin/sh' is dynamically linked"));
	assert_int_equal(access(out, F_OK), -1);
}

/* ---- the cache ---- */

static void spec_of(struct sandbox *sb, struct kb_initramfs_spec *spec, char paths[3][512],
		    const char *const *modules)
{
	snprintf(paths[0], 512, "%s/init", sb->dir);
	snprintf(paths[1], 512, "%s/busybox", sb->dir);
	snprintf(paths[2], 512, "%s/modules", sb->dir);
	memset(spec, 0, sizeof(*spec));
	spec->init = paths[0];
	spec->busybox = paths[1];
	spec->modules_root = paths[2];
	spec->modules = modules;
}

static void key_of(char key[65], struct sandbox *sb, const char *const *modules)
{
	struct kb_initramfs_spec spec;
	char paths[3][512];

	spec_of(sb, &spec, paths, modules);
	assert_int_equal(kb_initramfs_key(key, &spec), 0);
	assert_int_equal(strlen(key), 64);
}

/* The key follows every input: a module in the closure, an index file, init, the list. */
static void test_key_follows_inputs(void **state)
{
	const char *const xfs[] = { "xfs", NULL }, *const sit[] = { "netdev-sit0", NULL };
	struct sandbox *sb = *state;
	char first[65], again[65], other[65];

	key_of(first, sb, xfs);
	key_of(again, sb, xfs);
	assert_string_equal(first, again);
	key_of(other, sb, sit);
	assert_string_not_equal(first, other);
	/* a module outside the closure changes nothing */
	write_file(sb, MOD "kernel/drivers/misc/unrelated.ko", "unrelated, rebuilt\n");
	key_of(again, sb, xfs);
	assert_string_equal(first, again);
	/* one inside does, and so does its way back */
	write_file(sb, MOD "kernel/lib/libcrc32c.ko", "libcrc32c, rebuilt\n");
	key_of(other, sb, xfs);
	assert_string_not_equal(first, other);
	write_file(sb, MOD "kernel/lib/libcrc32c.ko", "libcrc32c module\n");
	key_of(again, sb, xfs);
	assert_string_equal(first, again);
	/* any modules.* file, binary ones too */
	write_file(sb, MOD "modules.alias.bin", "another binary alias index\n");
	key_of(other, sb, xfs);
	assert_string_not_equal(first, other);
	write_file(sb, MOD "modules.alias.bin", "binary alias index\n");
	/* the guest program */
	write_file(sb, "init", "#!/bin/sh\necho another guest\n");
	key_of(other, sb, xfs);
	assert_string_not_equal(first, other);
	/* every module of the release (NULL) is another list than any named one */
	write_file(sb, "init", "#!/bin/sh\necho the guest\n");
	key_of(again, sb, xfs);
	assert_string_equal(first, again);
	key_of(other, sb, NULL);
	assert_string_not_equal(first, other);
}

static void test_key_missing_input(void **state)
{
	struct sandbox *sb = *state;
	struct kb_initramfs_spec spec;
	char paths[3][512], key[65];

	spec_of(sb, &spec, paths, NULL);
	assert_int_equal(unlink(sb_path(sb, MOD "kernel/net/ipv4/tunnel4.ko")), 0);
	assert_int_equal(kb_initramfs_key(key, &spec), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "kernel/net/ipv4/tunnel4.ko'"));
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *data = calloc(1, 1 << 20);

	assert_non_null(f);
	assert_true(fread(data, 1, (1 << 20) - 1, f) > 0);
	fclose(f);
	return data;
}

/* Equal inputs: the same file, written once; other inputs: another file. */
static void test_cached_reused(void **state)
{
	const char *const xfs[] = { "xfs", NULL };
	struct sandbox *sb = *state;
	struct kb_initramfs_spec spec;
	char paths[3][512], cache[512], key[65], want[700], direct[512];
	char *first = NULL, *again = NULL, *other = NULL, *a, *b;
	struct stat st1, st2;
	bool reused = true;

	spec_of(sb, &spec, paths, xfs);
	snprintf(cache, sizeof(cache), "%s/work/initramfs", sb->dir);
	assert_int_equal(kb_initramfs_cached(&first, &reused, cache, &spec), 0);
	assert_false(reused);
	assert_int_equal(kb_initramfs_key(key, &spec), 0);
	snprintf(want, sizeof(want), "%s/%s.cpio", cache, key);
	assert_string_equal(first, want);
	/* the bytes kb_initramfs_write() writes */
	snprintf(direct, sizeof(direct), "%s/direct.cpio", sb->dir);
	assert_int_equal(kb_initramfs_write(direct, &spec), 0);
	a = read_all(first);
	b = read_all(direct);
	assert_memory_equal(a, b, 1 << 19);
	free(a);
	free(b);

	assert_int_equal(stat(first, &st1), 0);
	assert_int_equal(kb_initramfs_cached(&again, &reused, cache, &spec), 0);
	assert_true(reused);
	assert_string_equal(first, again);
	assert_int_equal(stat(again, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);	/* not written again */

	write_file(sb, MOD "kernel/fs/xfs/xfs.ko", "xfs, rebuilt\n");
	assert_int_equal(kb_initramfs_cached(&other, &reused, cache, &spec), 0);
	assert_false(reused);
	assert_string_not_equal(first, other);
	assert_true(access(first, F_OK) == 0 && access(other, F_OK) == 0);
	assert_false(has_temporary(cache));
	free(first);
	free(again);
	free(other);
}

/* A failed write leaves nothing in the cache, so a later call does not find half a file. */
static void test_cached_failure(void **state)
{
	const char *const modules[] = { "no_such_module", NULL };
	struct sandbox *sb = *state;
	struct kb_initramfs_spec spec;
	char paths[3][512], cache[512], *out = NULL;
	bool reused;

	spec_of(sb, &spec, paths, modules);
	snprintf(cache, sizeof(cache), "%s/work/initramfs", sb->dir);
	assert_int_equal(kb_initramfs_cached(&out, &reused, cache, &spec), KB_ENOTFOUND);
	assert_null(out);
	assert_false(has_temporary(cache));
}

#define SANDBOXED(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SANDBOXED(test_base_entries),
		SANDBOXED(test_closure),
		SANDBOXED(test_all_modules),
		SANDBOXED(test_alias_pattern_index_unchanged),
		SANDBOXED(test_unknown_module),
		SANDBOXED(test_no_modules_dep),
		SANDBOXED(test_two_releases),
		SANDBOXED(test_dynamic_init_refused),
		SANDBOXED(test_key_follows_inputs),
		SANDBOXED(test_key_missing_input),
		SANDBOXED(test_cached_reused),
		SANDBOXED(test_cached_failure),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
