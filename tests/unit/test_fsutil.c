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
#include <unistd.h>

#include "buf.h"
#include "error.h"
#include "fsutil.h"
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
