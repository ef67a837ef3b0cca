/*
 * The one place a child process runs: streams, environment, directory,
 * exit codes, kill; the run and capture wrappers and their messages.
 */
#include "unit.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/error.h"
#include "sandbox.h"
#include "util/process.h"

static char *slurp(const char *path)
{
	char *data = NULL;
	size_t len = 0;

	assert_int_equal(kb_read_file(&data, &len, path), 0);
	return data;
}

static void test_run_appends_both_streams_to_log(void **state)
{
	struct sandbox *sb = *state;
	const char *argv[] = { "sh", "-c", "pwd; echo out; echo err >&2; exit 3", NULL };
	char log[600], want[1200], *text;

	snprintf(log, sizeof(log), "%s", sb_path(sb, "log"));
	write_file(sb, "log", "before\n");
	write_file(sb, "sub/x", "");
	assert_int_equal(kb_process_run(argv, sb_path(sb, "sub"), log), 3);
	text = slurp(log);
	snprintf(want, sizeof(want), "before\n%s/sub\nout\nerr\n", sb->dir);
	assert_string_equal(text, want);
	free(text);
}

static void test_run_not_found_and_signal(void **state)
{
	const char *missing[] = { "kbackport-no-such-program", NULL };
	const char *killed[] = { "sh", "-c", "kill -TERM $$", NULL };

	(void)state;
	assert_int_equal(kb_process_run(missing, NULL, NULL), KB_ENOTFOUND);
	assert_string_equal(kb_error_last(), "cannot run 'kbackport-no-such-program': not found");
	assert_int_equal(kb_process_run(killed, NULL, NULL), KB_ERROR);
	assert_string_equal(kb_error_last(), "'sh' was killed by signal 15");
}

static void test_run_logged_ends_with_the_log(void **state)
{
	struct sandbox *sb = *state;
	const char *argv[] = { "sh", "-c", "echo one; echo two; exit 1", NULL };
	char log[600], want[1200];

	snprintf(log, sizeof(log), "%s", sb_path(sb, "log"));
	assert_int_equal(kb_process_run_logged(argv, NULL, log), KB_ERROR);
	snprintf(want, sizeof(want), "'sh' failed (exit 1); the end of '%s':\none\ntwo\n", log);
	assert_string_equal(kb_error_last(), want);
}

static void test_capture_first_line_only_stdout(void **state)
{
	const char *argv[] = { "sh", "-c", "echo first; echo second; echo noise >&2", NULL };
	char *out = NULL;

	(void)state;
	assert_int_equal(kb_process_capture(&out, argv), 0);
	assert_string_equal(out, "first");
	free(out);
}

static void test_process_environment_and_pipe(void **state)
{
	const char *argv[] = { "sh", "-c", "echo \"${KB_A-unset} ${KB_B-unset}\"", NULL };
	const char *unset[] = { "KB_A", NULL }, *set[] = { "KB_B=set", NULL };
	struct kb_process s;
	char buf[64] = "";
	ssize_t n;
	int status;

	(void)state;
	setenv("KB_A", "inherited", 1);
	kb_process_init(&s, argv);
	s.unset_env = unset;
	s.set_env = set;
	s.out = KB_PROCESS_PIPE;
	assert_int_equal(kb_process_start(&s), 0);
	n = read(s.pipe_fd, buf, sizeof(buf) - 1);
	close(s.pipe_fd);
	assert_int_equal(kb_process_wait(&s, &status), 0);
	unsetenv("KB_A");
	assert_true(n > 0);
	assert_string_equal(buf, "unset set\n");
	assert_int_equal(kb_process_exit_code(status), 0);
	assert_int_equal(s.pid, 0);
	assert_string_equal(getenv("KB_B") ? "leaked" : "", "");
}

static void test_process_exec_error_said_and_kill(void **state)
{
	struct sandbox *sb = *state;
	const char *missing[] = { "kbackport-no-such-program", NULL };
	const char *sleeper[] = { "sh", "-c", "sleep 30 & wait", NULL };
	struct kb_process s;
	char path[600], *text;
	int fd, status, i, got = 0;

	snprintf(path, sizeof(path), "%s", sb_path(sb, "err"));
	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) >= 0);
	kb_process_init(&s, missing);
	s.out = fd;
	s.err = KB_PROCESS_AS_OUT;
	s.say_exec_error = true;
	assert_int_equal(kb_process_start(&s), 0);
	assert_int_equal(kb_process_wait(&s, &status), 0);
	close(fd);
	assert_int_equal(kb_process_exit_code(status), 127);
	text = slurp(path);
	assert_string_equal(text, "cannot run 'kbackport-no-such-program': No such file or directory\n");
	free(text);

	kb_process_init(&s, sleeper);
	assert_int_equal(kb_process_start(&s), 0);
	for (i = 0; i < 5 && !got; i++)
		got = kb_process_poll(&s, &status);
	assert_int_equal(got, 0);
	kb_process_kill(&s, &status);
	assert_int_equal(s.pid, 0);
	assert_int_equal(kb_process_exit_code(status), 128 + SIGKILL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_appends_both_streams_to_log,
						sandbox_setup, sandbox_teardown),
		cmocka_unit_test(test_run_not_found_and_signal),
		cmocka_unit_test_setup_teardown(test_run_logged_ends_with_the_log,
						sandbox_setup, sandbox_teardown),
		cmocka_unit_test(test_capture_first_line_only_stdout),
		cmocka_unit_test(test_process_environment_and_pipe),
		cmocka_unit_test_setup_teardown(test_process_exec_error_said_and_kill,
						sandbox_setup, sandbox_teardown),
	};
	return sandbox_run_group_tests(tests, NULL, NULL);
}
