/* Unit tests of progress ticks: when one is due and how it reads. */
#include "unit.h"

#include <stdbool.h>

#include "util/buf.h"
#include "util/error.h"
#include "util/progress.h"

static void noop(const struct kb_tick *tick, void *payload)
{
	(void)tick;
	(void)payload;
}

static char *line(const char *who, struct kb_tick tick)
{
	struct kb_buf out = KB_BUF_INIT;

	assert_int_equal(kb_tick_format(&out, who, &tick), 0);
	return kb_buf_detach(&out);
}

static void test_format(void **state)
{
	char *s;

	(void)state;
	s = line("6.1.y as-is", (struct kb_tick){ "build", 150.9, true, 5231, 9000, NULL });
	assert_string_equal(s, "progress: 6.1.y as-is: build 2m30s, 5231/9000 objects");
	free(s);
	s = line("6.1.y backport", (struct kb_tick){ "build", 0.4, true, 0, 0, NULL });
	assert_string_equal(s, "progress: 6.1.y backport: build 0s, 0/? objects");
	free(s);
	s = line("bookworm as-is", (struct kb_tick){ "boot", 59.99, false, 7, 8, NULL });
	assert_string_equal(s, "progress: bookworm as-is: boot 59s");
	free(s);
	s = line("4.19.y pre-fix", (struct kb_tick){ "build", 3600 + 5 * 60 + 59, true, 12, 0, NULL });
	assert_string_equal(s, "progress: 4.19.y pre-fix: build 1h05m, 12/? objects");
	free(s);
	s = line("x", (struct kb_tick){ "boot", 60, false, 0, 0, NULL });
	assert_string_equal(s, "progress: x: boot 1m00s");
	free(s);
	/* an import counts files, its total unknown; a download counts nothing */
	s = line("linux-source-6.1 6.1.192-3", (struct kb_tick){ "import", 95, true, 51234, 0,
								 "files" });
	assert_string_equal(s, "progress: linux-source-6.1 6.1.192-3: import 1m35s, 51234 files");
	free(s);
	s = line("x", (struct kb_tick){ "import", 1, true, 3, 9, "files" });
	assert_string_equal(s, "progress: x: import 1s, 3/9 files");
	free(s);
	s = line("linux-source-6.1=6.1.190-1", (struct kb_tick){ "download", 30, false, 0, 0, NULL });
	assert_string_equal(s, "progress: linux-source-6.1=6.1.190-1: download 30s");
	free(s);
}

static void test_due(void **state)
{
	struct kb_ticker t = { 30, noop, NULL }, off = { 0, noop, NULL };
	double next = 0;

	(void)state;
	assert_false(kb_ticker_due(&t, &next, 2));	/* the first call starts the clock */
	assert_true(next == 32);
	assert_false(kb_ticker_due(&t, &next, 31.9));
	assert_true(kb_ticker_due(&t, &next, 32));
	assert_true(next == 62);
	/* a long stall: one tick, the next one on the steady grid */
	assert_true(kb_ticker_due(&t, &next, 150));
	assert_true(next == 152);
	assert_false(kb_ticker_due(&t, &next, 151));
	next = 0;
	assert_false(kb_ticker_due(&off, &next, 1000));
	assert_false(kb_ticker_due(NULL, &next, 1000));
}

static void test_interval(void **state)
{
	double s = -1;

	(void)state;
	assert_int_equal(kb_progress_interval(&s, NULL), 0);
	assert_true(s == 30);
	assert_int_equal(kb_progress_interval(&s, ""), 0);
	assert_true(s == 30);
	assert_int_equal(kb_progress_interval(&s, "1"), 0);
	assert_true(s == 1);
	assert_int_equal(kb_progress_interval(&s, "86400"), 0);
	assert_true(s == 86400);
	assert_int_equal(kb_progress_interval(&s, "0"), KB_EINVALID);
	assert_string_equal(kb_error_last(), "KBACKPORT_PROGRESS_INTERVAL '0': "
			    "expected whole seconds, 1 to 86400");
	assert_int_equal(kb_progress_interval(&s, "86401"), KB_EINVALID);
	assert_int_equal(kb_progress_interval(&s, "2.5"), KB_EINVALID);
	assert_int_equal(kb_progress_interval(&s, "10s"), KB_EINVALID);
	assert_int_equal(kb_progress_interval(&s, "-5"), KB_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_due),
		cmocka_unit_test(test_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
