/*
 * Series files (apply --queue): entries, comments and blank lines, paths
 * relative to the file, the queue's name, and every error with its line.
 */
#include "unit.h"

#include <stdio.h>

#include "util/error.h"
#include "fix.h"
#include "sandbox.h"
#include "apply/series.h"

/* A mail-style patch with `subject`, upstream commit `sha` (40 hex). */
static void write_patch(struct sandbox *sb, const char *rel, const char *subject,
			const char *sha, const char *file)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "From: A U Thor <author@example.org>\n"
		 "Date: Wed, 2 Mar 2011 10:00:00 +0000\n"
		 "Subject: [PATCH] %s\n\ncommit %s upstream.\n"
		 "---\n"
		 "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,1 +1,1 @@\n-old\n+new\n",
		 subject, sha, file, file, file, file);
	write_file(sb, rel, text);
}

/* backports/<id>/ with a fix.yaml and its patch, no variants. */
static void write_fix_dir(struct sandbox *sb, const char *id)
{
	char rel[256], yaml[512];

	snprintf(rel, sizeof(rel), "backports/%s/fix.patch", id);
	write_patch(sb, rel, "dir: a fix", "1111111111111111111111111111111111111111", "a.c");
	snprintf(rel, sizeof(rel), "backports/%s/fix.yaml", id);
	snprintf(yaml, sizeof(yaml),
		 "id: %s\nsubject: \"dir: a fix\"\n"
		 "upstream: 1111111111111111111111111111111111111111\npatch: fix.patch\n", id);
	write_file(sb, rel, yaml);
}

static void expect_error(struct sandbox *sb, const char *series, const char *message)
{
	struct kb_series s = { 0 };
	char want[1024];

	write_file(sb, "q.series", series);
	assert_int_equal(kb_series_load(&s, sb_path(sb, "q.series")), KB_EINVALID);
	snprintf(want, sizeof(want), message, sb->dir);
	assert_string_equal(kb_error_last(), want);
	assert_null(s.name);
	assert_null(s.fixes);
	assert_int_equal(s.nfixes, 0);
}

static void test_entries_in_order(void **state)
{
	struct sandbox *sb = *state;
	struct kb_series s = { 0 };
	char line[512];

	write_fix_dir(sb, "CVE-2011-0001");
	write_patch(sb, "patches/b.patch", "b: second", "2222222222222222222222222222222222222222", "b.c");
	write_patch(sb, "abs.patch", "c: third", "3333333333333333333333333333333333333333", "c.c");
	snprintf(line, sizeof(line),
		 "# a queue\n"
		 "\n"
		 "  backports/CVE-2011-0001   # a fix directory\n"
		 "patches/b.patch\t\n"
		 "   \n"
		 "%s/abs.patch\n", sb->dir);
	write_file(sb, "queue-6.1.series", line);
	assert_int_equal(kb_series_load(&s, sb_path(sb, "queue-6.1.series")), 0);
	assert_string_equal(s.name, "queue-6.1");
	assert_int_equal(s.nfixes, 3);
	assert_string_equal(s.fixes[0]->id, "CVE-2011-0001");
	assert_string_equal(s.fixes[1]->id, "b-second");
	assert_string_equal(s.fixes[1]->upstream, "2222222222222222222222222222222222222222");
	assert_string_equal(s.fixes[2]->id, "c-third");
	/* a fix without variants: its own patch is its one variant */
	assert_int_equal(s.fixes[1]->nvariants, 1);
	assert_string_equal(s.fixes[1]->variants[0].name, "patch");
	assert_int_equal(s.fixes[1]->variants[0].nwhen, 0);
	kb_series_release(&s);
	assert_null(s.fixes);
}

static void test_name_without_extension(void **state)
{
	struct sandbox *sb = *state;
	struct kb_series s = { 0 };

	write_patch(sb, "p/a.patch", "a: one", "1111111111111111111111111111111111111111", "a.c");
	write_file(sb, "p/series", "a.patch\n");
	assert_int_equal(kb_series_load(&s, sb_path(sb, "p/series")), 0);
	assert_string_equal(s.name, "series");
	assert_int_equal(s.nfixes, 1);
	kb_series_release(&s);
	write_file(sb, "p/.hidden", "a.patch");	/* no final newline */
	assert_int_equal(kb_series_load(&s, sb_path(sb, "p/.hidden")), 0);
	assert_string_equal(s.name, ".hidden");
	assert_int_equal(s.nfixes, 1);
	kb_series_release(&s);
}

static void test_hash_inside_a_name(void **state)
{
	struct sandbox *sb = *state;
	struct kb_series s = { 0 };

	/* '#' starts a comment only at the start or after a blank */
	write_patch(sb, "fix#2.patch", "a: two", "2222222222222222222222222222222222222222", "a.c");
	write_file(sb, "q.series", "fix#2.patch #the second\n");
	assert_int_equal(kb_series_load(&s, sb_path(sb, "q.series")), 0);
	assert_int_equal(s.nfixes, 1);
	assert_string_equal(s.fixes[0]->id, "a-two");
	kb_series_release(&s);
}

static void test_missing_entry(void **state)
{
	struct sandbox *sb = *state;

	write_fix_dir(sb, "CVE-2011-0001");
	expect_error(sb, "backports/CVE-2011-0001\n\nbackports/gone\n",
		     "%s/q.series:3: no fix directory or patch 'backports/gone'");
}

static void test_twice(void **state)
{
	struct sandbox *sb = *state;

	write_patch(sb, "a.patch", "a: one", "1111111111111111111111111111111111111111", "a.c");
	write_patch(sb, "b.patch", "a: one", "2222222222222222222222222222222222222222", "b.c");
	expect_error(sb, "a.patch\nb.patch\n", "%s/q.series:2: fix 'a-one' is in the queue twice");
}

static void test_empty(void **state)
{
	expect_error(*state, "# only comments\n\n  \t\n", "%s/q.series: the series names no fix");
	expect_error(*state, "", "%s/q.series: the series names no fix");
}

static void test_mail_without_patch(void **state)
{
	struct sandbox *sb = *state;
	struct kb_series s = { 0 };
	char want[512];

	write_file(sb, "words.patch", "From: x <x@example.org>\nSubject: [PATCH] words\n\nno diff\n");
	write_file(sb, "q.series", "words.patch\n");
	assert_int_equal(kb_series_load(&s, sb_path(sb, "q.series")), KB_EINVALID);
	snprintf(want, sizeof(want), "%s/q.series:1: ", sb->dir);
	assert_non_null(strstr(kb_error_last(), want));
	assert_non_null(strstr(kb_error_last(), "words.patch"));
	assert_int_equal(s.nfixes, 0);
}

static void test_bad_fix_dir(void **state)
{
	struct sandbox *sb = *state;
	struct kb_series s = { 0 };

	write_file(sb, "backports/broken/fix.yaml", "id: broken\n");
	write_file(sb, "q.series", "backports/broken\n");
	assert_int_equal(kb_series_load(&s, sb_path(sb, "q.series")), KB_EINVALID);
	assert_non_null(strstr(kb_error_last(), "q.series:1: "));
	assert_int_equal(s.nfixes, 0);
}

static void test_missing_series(void **state)
{
	struct sandbox *sb = *state;
	struct kb_series s = { 0 };

	assert_true(kb_series_load(&s, sb_path(sb, "none.series")) < 0);
	assert_non_null(strstr(kb_error_last(), "none.series"));
	assert_null(s.name);
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
		SANDBOXED(test_entries_in_order),
		SANDBOXED(test_name_without_extension),
		SANDBOXED(test_hash_inside_a_name),
		SANDBOXED(test_missing_entry),
		SANDBOXED(test_twice),
		SANDBOXED(test_empty),
		SANDBOXED(test_mail_without_patch),
		SANDBOXED(test_bad_fix_dir),
		SANDBOXED(test_missing_series),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
