/*
 * Words for sh (kb_sh_quote): the exact quoting of plain and hostile words,
 * and every one read back by a real sh as the same bytes, with nothing run;
 * the absolute, normalised paths the commands name (kb_path_absolute) and
 * the work tree they make (kb_reproduce_dir).
 */
#include "unit.h"

#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fsutil.h"
#include "apply/reproduce.h"
#include "sandbox.h"
#include "util/shell.h"

static char *quoted(const char *word)
{
	struct kb_buf out = KB_BUF_INIT;

	assert_int_equal(kb_sh_quote(&out, word), 0);
	return kb_buf_detach(&out);
}

static void expect_quote(const char *word, const char *want)
{
	char *got = quoted(word);

	assert_string_equal(got, want);
	free(got);
}

static void test_quote_exact(void **state)
{
	(void)state;
	/* plain words stay as they are, for people to read */
	expect_quote("backport/CVE-2011-1019/4.19.y", "backport/CVE-2011-1019/4.19.y");
	expect_quote("/srv/linux.git", "/srv/linux.git");
	expect_quote("-3", "-3");
	expect_quote("https://git.example.org/net-next.git", "https://git.example.org/net-next.git");
	expect_quote("a=b,c:d@e%f+g", "a=b,c:d@e%f+g");
	/* everything else in single quotes, a quote as '\'' */
	expect_quote("", "''");
	expect_quote("/srv/my repos/linux", "'/srv/my repos/linux'");
	expect_quote("/srv/$(touch pwned)", "'/srv/$(touch pwned)'");
	expect_quote("/srv/`touch pwned`", "'/srv/`touch pwned`'");
	expect_quote("/srv/it's", "'/srv/it'\\''s'");
	expect_quote("v1;touch${IFS}pwned", "'v1;touch${IFS}pwned'");
	expect_quote("a|b&c>d<e", "'a|b&c>d<e'");
	expect_quote("~root", "'~root'");
	expect_quote("#comment", "'#comment'");
	expect_quote("*?[x]{a,b}!", "'*?[x]{a,b}!'");
	expect_quote("back\\slash \"dq\"", "'back\\slash \"dq\"'");
	expect_quote("/srv/caf\xc3\xa9", "'/srv/caf\xc3\xa9'");	/* UTF-8 kept */
	/* a control byte or a byte that is not UTF-8: printf, on one line */
	expect_quote("a\nb", "\"$(printf 'a\\012b')\"");
	expect_quote("a\tb", "\"$(printf 'a\\011b')\"");
	expect_quote("a\rb\x7f", "\"$(printf 'a\\015b\\177')\"");
	expect_quote("caf\xe9 100% it's a\\b\n",
		     "\"$(printf 'caf\\351 100%% it'\\''s a\\\\b\\012')\"");
}

/* What sh makes of `text` as the arguments of printf '[%s]': in `out`. */
static void sh_words(struct sandbox *sb, const char *text, struct kb_buf *out)
{
	char cmd[4096];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "cd '%s' && sh -c \"$(cat script)\"", sb_path(sb, "."));
	write_file(sb, "script", text);
	assert_non_null(p = popen(cmd, "r"));
	kb_buf_clear(out);
	assert_int_equal(kb_buf_grow(out, 8192), 0);
	n = fread(out->ptr, 1, 8192, p);
	out->size = n;
	out->ptr[n] = '\0';
	assert_int_equal(pclose(p), 0);
}

static void test_quote_read_back_by_sh(void **state)
{
	static const char *const words[] = {
		"plain", "", "with space", "$(touch pwned)", "`touch pwned`", "it's", "''",
		"x;touch pwned", "a && touch pwned", "$HOME", "${IFS}", "\\", "\\n", "%s%d",
		"\"", "'\\''", "a\nb", "a\n\ntouch pwned\n.", "\ttab", "\r", "\x1b[31m",
		"caf\xc3\xa9", "caf\xe9", "\xff\xfe", "!", "~", "#", "-n", "*", NULL,
	};
	struct sandbox *sb = *state;
	struct kb_buf script = KB_BUF_INIT, want = KB_BUF_INIT, got = KB_BUF_INIT;
	char all[255];
	size_t i;

	/* every byte but NUL in one word, too */
	for (i = 0; i < sizeof(all) - 1; i++)
		all[i] = (char)(i + 1);
	all[sizeof(all) - 1] = '\0';
	for (i = 0; i <= sizeof(words) / sizeof(*words) - 1; i++) {
		const char *w = words[i] ? words[i] : all;
		kb_buf_clear(&script);
		kb_buf_clear(&want);
		assert_int_equal(kb_buf_puts(&script, "printf '[%s]' "), 0);
		assert_int_equal(kb_sh_quote(&script, w), 0);
		assert_null(strchr(script.ptr, '\n'));	/* one line, whatever the word */
		kb_buf_printf(&want, "[%s]", w);
		sh_words(sb, script.ptr, &got);
		assert_int_equal(got.size, want.size);
		assert_memory_equal(got.ptr, want.ptr, want.size);
	}
	assert_int_equal(access(sb_path(sb, "pwned"), F_OK), -1);	/* nothing ran */
	kb_buf_release(&script);
	kb_buf_release(&want);
	kb_buf_release(&got);
}

static void test_command_words(void **state)
{
	const char *words[] = { "git", "-C", "/srv/a b", "worktree", "add", "x;y", NULL };
	struct kb_buf out = KB_BUF_INIT;

	(void)state;
	assert_int_equal(kb_sh_command(&out, words), 0);
	assert_string_equal(out.ptr, "git -C '/srv/a b' worktree add 'x;y'\n");
	kb_buf_release(&out);
}

static void expect_absolute(const char *path, const char *want)
{
	char *got = NULL;

	assert_int_equal(kb_path_absolute(&got, path), 0);
	assert_string_equal(got, want);
	free(got);
}

static void test_path_absolute(void **state)
{
	struct sandbox *sb = *state;
	char cwd[4096], want[4200];

	/* paths that are not there: by their words */
	expect_absolute("/nowhere/x/work/../repo.git", "/nowhere/x/repo.git");
	expect_absolute("/nowhere//x/./y/", "/nowhere/x/y");
	expect_absolute("/nowhere/../../..", "/");
	expect_absolute("/nowhere/a b/$(x)/..", "/nowhere/a b");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/no-such/repo.git", strcmp(cwd, "/") ? cwd : "");
	expect_absolute("no-such/x/../repo.git", want);
	/* paths that are: as realpath() says, links resolved */
	char real_dir[4096];

	write_file(sb, "real/file", "x");
	snprintf(real_dir, sizeof(real_dir), "%s", sb_path(sb, "real"));
	assert_int_equal(symlink(real_dir, sb_path(sb, "link")), 0);
	snprintf(want, sizeof(want), "%s", sb_path(sb, "real/file"));
	{
		char *real = realpath(want, NULL);
		char path[4200];
		snprintf(path, sizeof(path), "%s/../link/./file", sb_path(sb, "real"));
		expect_absolute(path, real);
		free(real);
	}
}

static void expect_dir(const char *repo, const char *want)
{
	char *got = NULL;

	assert_int_equal(kb_reproduce_dir(&got, repo, "CVE-2011-1019", "4.19.y"), 0);
	assert_string_equal(got, want);
	free(got);
}

static void test_reproduce_dir(void **state)
{
	(void)state;
	expect_dir("/nowhere/repos/linux", "/nowhere/repos/linux-CVE-2011-1019-4.19.y");
	expect_dir("/nowhere/repos/vendor.git", "/nowhere/repos/vendor-CVE-2011-1019-4.19.y");
	expect_dir("/nowhere/repos/linux/.git", "/nowhere/repos/linux-CVE-2011-1019-4.19.y");
	expect_dir("/nowhere/x/work/../repos/a b.git/", "/nowhere/x/repos/a b-CVE-2011-1019-4.19.y");
	expect_dir("/nowhere/.git", "/nowhere-CVE-2011-1019-4.19.y");
	expect_dir("/.git", "/.git-CVE-2011-1019-4.19.y");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote_exact),
		cmocka_unit_test_setup_teardown(test_quote_read_back_by_sh, sandbox_setup, sandbox_teardown),
		cmocka_unit_test(test_command_words),
		cmocka_unit_test_setup_teardown(test_path_absolute, sandbox_setup, sandbox_teardown),
		cmocka_unit_test(test_reproduce_dir),
	};
	return sandbox_run_group_tests(tests, NULL, NULL);
}
