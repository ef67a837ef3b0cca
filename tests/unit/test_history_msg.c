/*
 * What a commit message says to the history index: the upstream commits it
 * names (each form at the start of a line, the sha quoted elsewhere not a
 * reference), and what it reverts.
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "apply/history.h"

#define SHA "22bacca48a1755f79b7e0f192ddb9fbb7fc6e64e"

/* The references of `message`, "form=sha" joined by ';'. */
static char *refs_of(const char *message)
{
	struct kb_history_ref *refs = NULL;
	size_t n = 0, i;
	char *out = calloc(1, 4096);

	assert_non_null(out);
	assert_int_equal(kb_history_message_refs(&refs, &n, message), 0);
	for (i = 0; i < n; i++) {
		if (i)
			strcat(out, ";");
		strcat(out, refs[i].form);
		strcat(out, "=");
		strcat(out, refs[i].hex);
	}
	free(refs);
	return out;
}

static void expect_refs(const char *message, const char *want)
{
	char *got = refs_of(message);

	assert_string_equal(got, want);
	free(got);
}

static void test_forms(void **state)
{
	(void)state;
	expect_refs("epoll: x\n\ncommit " SHA " upstream.\n\nbody\n", "commit <sha> upstream=" SHA);
	expect_refs("x\n\ncommit " SHA " upstream\n", "commit <sha> upstream=" SHA);
	expect_refs("x\n\ncommit " SHA " upstream (as of v2.6.34-git13)\n",
		    "commit <sha> upstream=" SHA);
	expect_refs("x\n\nCommit: 22BACCA48A17 upstream\n", "Commit: <sha> upstream=22bacca48a17");
	expect_refs("x\n\nUpstream commit: " SHA "\n", "Upstream commit: <sha>=" SHA);
	expect_refs("x\n\n[ Upstream commit " SHA " ]\n", "[ Upstream commit <sha> ]=" SHA);
	expect_refs("x\n\nbody\n(cherry picked from commit " SHA ")\n",
		    "(cherry picked from commit <sha>)=" SHA);
	expect_refs("x\n\n(Cherry-picked from commit " SHA ")\n",
		    "(cherry picked from commit <sha>)=" SHA);
	expect_refs("x\n\n(backported from commit " SHA ")\n", "(backported from commit <sha>)=" SHA);
	expect_refs("x\n\nThis is a backport of upstream commit:\n" SHA "\n",
		    "This is a backport of upstream commit: <sha>=" SHA);
	expect_refs("x\n\nBased on commit " SHA " upstream, but done differently.\n",
		    "Based on commit <sha> upstream=" SHA);
}

/* "commit <sha>" alone: the body's first line, or after "upstream"; quoted elsewhere. */
static void test_commit_alone(void **state)
{
	(void)state;
	expect_refs("x\n\ncommit " SHA "\n\nbody\n", "commit <sha>=" SHA);
	expect_refs("x\n\nThis one liner is part of upstream\ncommit " SHA "\nAuthor: A\n",
		    "commit <sha>=" SHA);
	expect_refs("x\n\nThe bug was introduced by\ncommit " SHA "\n(\"y: z\").\n", "");
	expect_refs("x\n\nUpstream commit " SHA " did it another way.\n", "");
	expect_refs("x\n\nUpstream commit " SHA ".\n", "Upstream commit <sha>=" SHA);
}

/* Only at the start of a line: messages quote other commits. */
static void test_quoted(void **state)
{
	(void)state;
	expect_refs("x\n\nThis undoes what commit " SHA " upstream did.\n", "");
	expect_refs("x\n\nsee (cherry picked from commit " SHA ")\n", "");
	expect_refs("x\n\ncommit 22bacca upstream.\n", "commit <sha> upstream=22bacca");
	expect_refs("x\n\ncommit 22bac upstream.\n", "");
}

static void expect_reverts(const char *message, const char *want_shas, const char *want_subject)
{
	char **shas = NULL, *subject = NULL, got[1024] = "";
	size_t n = 0, i;

	assert_int_equal(kb_history_message_reverts(&shas, &n, &subject, message), 0);
	for (i = 0; i < n; i++) {
		if (i)
			strcat(got, ";");
		strcat(got, shas[i]);
		free(shas[i]);
	}
	free(shas);
	assert_string_equal(got, want_shas);
	if (want_subject)
		assert_string_equal(subject, want_subject);
	else
		assert_null(subject);
	free(subject);
}

static void test_reverts(void **state)
{
	(void)state;
	expect_reverts("Revert \"tty: fix race in tty_fasync\"\n\nThis reverts commit 703625118069f9f8960d356676662d3db5a9d116.\n",
		       "703625118069f9f8960d356676662d3db5a9d116", "tty: fix race in tty_fasync");
	expect_reverts("Fix race in tty_fasync() properly\n\nThis reverts commit 7036251180 (tty: fix race in\n"
		       "tty_fasync) and commit b04da8bfdfbb (fnctl: f_modown should call\n"
		       "write_lock_irqsave/restore) that tried to fix up some of the fallout.\n",
		       "7036251180;b04da8bfdfbb", NULL);
	expect_reverts("USB: ftdi_sio: revert \"USB: ftdi_sio: fix DTR/RTS\"\n\nbody\n", "",
		       "USB: ftdi_sio: fix DTR/RTS");
	expect_reverts("x: y\n\nrevert stable 1234567890ab, it broke z\n", "1234567890ab", NULL);
	expect_reverts("x: y\n\nNothing reverted here; irreverting 1234567890ab is a word.\n", "", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_commit_alone),
		cmocka_unit_test(test_quoted),
		cmocka_unit_test(test_reverts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
