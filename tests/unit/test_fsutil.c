/*
 * Filesystem helpers: temporary names and the sweep of what an interrupted
 * kbackport left (kb_tmp_path), and the work-directory lock (kb_lock_dir).
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "sandbox.h"

/* The pid of a process that has ended (and was reaped). */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

static bool exists(struct sandbox *sb, const char *rel)
{
	struct stat st;
	return lstat(sb_path(sb, rel), &st) == 0;
}

static void test_tmp_path_sweeps_the_dead(void **state)
{
	struct sandbox *sb = *state;
	struct kb_buf tmp = KB_BUF_INIT;
	char dead[64], mine[64], want[700], target[600];
	pid_t pid = dead_pid();

	/* an interrupted unpack: a directory tree of a process that is gone */
	snprintf(dead, sizeof(dead), "root.tmp.%ld/boot/vmlinuz", (long)pid);
	write_file(sb, dead, "half a kernel");
	snprintf(mine, sizeof(mine), "root.tmp.%ld", (long)getpid());
	write_file(sb, mine, "this process's own");
	write_file(sb, "root.tmp.1", "pid 1 lives");
	write_file(sb, "root.tmp.x12", "not a pid");
	write_file(sb, "root.tmp.012", "not a pid either");
	write_file(sb, "root.tmp", "no pid");
	write_file(sb, "rootfs.tmp.999999999", "another name's");
	write_file(sb, "root", "the complete one");
	snprintf(target, sizeof(target), "%s", sb_path(sb, "root"));

	assert_int_equal(kb_tmp_path(&tmp, target), 0);
	snprintf(want, sizeof(want), "%s.tmp.%ld", target, (long)getpid());
	assert_string_equal(tmp.ptr, want);

	snprintf(dead, sizeof(dead), "root.tmp.%ld", (long)pid);
	assert_false(exists(sb, dead));
	assert_true(exists(sb, mine));
	assert_true(exists(sb, "root.tmp.1"));
	assert_true(exists(sb, "root.tmp.x12"));
	assert_true(exists(sb, "root.tmp.012"));
	assert_true(exists(sb, "root.tmp"));
	assert_true(exists(sb, "rootfs.tmp.999999999"));
	assert_true(exists(sb, "root"));
	kb_buf_release(&tmp);
}

static void test_tmp_path_missing_dir(void **state)
{
	struct sandbox *sb = *state;
	struct kb_buf tmp = KB_BUF_INIT;
	char want[600];

	/* nothing to sweep where nothing is yet: the name all the same */
	assert_int_equal(kb_tmp_path(&tmp, sb_path(sb, "no/such/dir/file")), 0);
	snprintf(want, sizeof(want), "%s/no/such/dir/file.tmp.%ld", sb->dir, (long)getpid());
	assert_string_equal(tmp.ptr, want);
	/* a name reused: the buffer is refilled, not appended to */
	assert_int_equal(kb_tmp_path(&tmp, "relative"), 0);
	snprintf(want, sizeof(want), "relative.tmp.%ld", (long)getpid());
	assert_string_equal(tmp.ptr, want);
	kb_buf_release(&tmp);
}

static void test_lock_dir(void **state)
{
	struct sandbox *sb = *state;
	char want[200];
	int fd = -1, fd2 = -1, status;
	pid_t pid;

	assert_int_equal(kb_lock_dir(&fd, sb->dir), 0);
	/* another process: refused, naming this one */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int err = kb_lock_dir(&fd2, sb->dir);

		snprintf(want, sizeof(want),
			 "work directory '%s' is in use by another kbackport (pid %ld): "
			 "wait for it to end",
			 sb->dir, (long)getppid());
		_exit(err == KB_EEXISTS && !strcmp(kb_error_last(), want) ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* released: taken again */
	close(fd);
	assert_int_equal(kb_lock_dir(&fd2, sb->dir), 0);
	close(fd2);
}

/* An entry of a cache last used `age` seconds ago. */
static void cache_entry(struct sandbox *sb, const char *rel, long age)
{
	struct timespec t[2];

	write_file(sb, rel, "an entry\n");
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age;
	t[1] = t[0];
	assert_int_equal(utimensat(AT_FDCWD, sb_path(sb, rel), t, 0), 0);
}

/* The most recently used stay; a use (touch) moves an old entry to the front. */
static void test_cache_prune(void **state)
{
	struct sandbox *sb = *state;
	struct stat before, after;
	size_t removed = 99;

	cache_entry(sb, "c/a.cpio", 500);
	cache_entry(sb, "c/b.cpio", 400);
	cache_entry(sb, "c/c.cpio", 300);
	cache_entry(sb, "c/d.cpio", 200);
	cache_entry(sb, "c/e.cpio.tmp.12345", 900);	/* kb_tmp_path()'s business */
	assert_int_equal(mkdir(sb_path(sb, "c/subdir"), 0755), 0);
	assert_int_equal(stat(sb_path(sb, "c/a.cpio"), &before), 0);
	assert_int_equal(kb_cache_touch(sb_path(sb, "c/a.cpio")), 0);
	/* a use is its access time; what it holds and when it was written stay */
	assert_int_equal(stat(sb_path(sb, "c/a.cpio"), &after), 0);
	assert_int_equal(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
	assert_int_equal(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	assert_true(after.st_atim.tv_sec > before.st_atim.tv_sec + 400);
	assert_int_equal(kb_cache_prune(&removed, sb_path(sb, "c"), 2), 0);
	assert_int_equal(removed, 2);
	assert_true(exists(sb, "c/a.cpio"));
	assert_false(exists(sb, "c/b.cpio"));
	assert_false(exists(sb, "c/c.cpio"));
	assert_true(exists(sb, "c/d.cpio"));
	assert_true(exists(sb, "c/e.cpio.tmp.12345"));
	assert_true(exists(sb, "c/subdir"));
	/* within the bound: nothing to do; no directory yet: nothing either */
	assert_int_equal(kb_cache_prune(&removed, sb_path(sb, "c"), 2), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(kb_cache_prune(&removed, sb_path(sb, "none"), 2), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(kb_cache_touch(sb_path(sb, "c/none")), KB_ERROR);
}

static int setup(void **state)
{
	return (*state = sandbox_new()) ? 0 : -1;
}

static int teardown(void **state)
{
	sandbox_free(*state);
	kb_error_clear();
	return 0;
}

#define SANDBOXED(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SANDBOXED(test_tmp_path_sweeps_the_dead),
		SANDBOXED(test_tmp_path_missing_dir),
		SANDBOXED(test_lock_dir),
		SANDBOXED(test_cache_prune),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
