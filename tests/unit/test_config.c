/* branches.yaml loading: the schema, path resolution and every error message. */
#include "unit.h"

#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

#include "config.h"
#include "util/error.h"
#include "sandbox.h"

struct config_sandbox {
	struct sandbox sb;
	const char *dir;	/* sb.dir */
	char path[512];		/* dir/branches.yaml */
};

static int setup(void **state)
{
	struct config_sandbox *s = calloc(1, sizeof(*s));

	if (!s || sandbox_init(&s->sb) < 0) {
		free(s);
		return -1;
	}
	s->dir = s->sb.dir;
	snprintf(s->path, sizeof(s->path), "%s/branches.yaml", s->dir);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct config_sandbox *s = *state;

	sandbox_release(&s->sb);
	free(s);
	return 0;
}

static void write_config(const struct config_sandbox *s, const char *text)
{
	FILE *fp = fopen(s->path, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

/* Load `text` and expect KB_EINVALID with "<path>:<where_and_message>". */
static void expect_error(void **state, const char *text, const char *message)
{
	struct config_sandbox *s = *state;
	struct kb_config *config = (void *)1;
	char expected[1024];

	write_config(s, text);
	kb_error_clear();
	assert_int_equal(kb_config_load(&config, s->path), KB_EINVALID);
	assert_null(config);
	snprintf(expected, sizeof(expected), "%s:%s", s->path, message);
	assert_string_equal(kb_error_last(), expected);
}

static char *joined(const struct config_sandbox *s, const char *rel)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", s->dir, rel);
	return buf;
}

static const char valid_yaml[] =
	"# every field, both variant forms, default and own repos\n"
	"repo: linux\n"
	"branches:\n"
	"  - name: 2.6.32.y\n"
	"    ref: linux-2.6.32.y\n"
	"    variant: 2.6.32\n"
	"    arch: i386\n"
	"    config: tests/kernel.config\n"
	"    build: false\n"
	"    build-skip-reason: \"gcc 12 cannot build 2.6.x\"\n"
	"  - name: \"3.9\"\n"
	"    ref: refs/tags/v3.9\n"
	"    repo: /srv/linux-3.9\n"
	"    variant:\n"
	"      CVE-2011-1019: \"3.9\"\n"
	"      CVE-2000-0001: upstream\n"
	"  - name: main\n"
	"    ref: 0123456789abcdef0123456789abcdef01234567\n"
	"    repo: ../other\n"
	"    arch: ~\n"
	"    variant: null\n";

static void test_valid(void **state)
{
	struct config_sandbox *s = *state;
	struct kb_config *config = NULL;
	const struct kb_branch *b;

	write_config(s, valid_yaml);
	assert_int_equal(kb_config_load(&config, s->path), 0);
	assert_string_equal(config->path, s->path);
	assert_string_equal(config->dir, s->dir);
	assert_string_equal(config->repo, joined(s, "linux"));
	assert_int_equal(config->nbranches, 3);

	b = &config->branches[0];
	assert_string_equal(b->name, "2.6.32.y");
	assert_string_equal(b->ref, "linux-2.6.32.y");
	assert_string_equal(b->repo, joined(s, "linux"));
	assert_string_equal(b->arch, "i386");
	assert_string_equal(b->config, joined(s, "tests/kernel.config"));
	assert_false(b->build);
	assert_string_equal(b->build_skip_reason, "gcc 12 cannot build 2.6.x");
	assert_int_equal(b->line, 4);
	assert_int_equal(b->column, 5);
	assert_int_equal(b->nvariants, 1);
	assert_null(b->variants[0].fix);
	assert_string_equal(kb_branch_variant(b, "CVE-2011-1019"), "2.6.32");
	assert_string_equal(kb_branch_variant(b, "anything"), "2.6.32");

	b = &config->branches[1];
	assert_string_equal(b->name, "3.9");
	assert_string_equal(b->ref, "refs/tags/v3.9");
	assert_string_equal(b->repo, "/srv/linux-3.9");
	assert_string_equal(b->arch, "x86_64");
	assert_null(b->config);
	assert_true(b->build);
	assert_null(b->build_skip_reason);
	assert_int_equal(b->nvariants, 2);
	assert_string_equal(kb_branch_variant(b, "CVE-2011-1019"), "3.9");
	assert_string_equal(kb_branch_variant(b, "CVE-2000-0001"), "upstream");
	assert_null(kb_branch_variant(b, "CVE-1999-0002"));

	b = &config->branches[2];
	assert_string_equal(b->repo, joined(s, "../other"));
	assert_string_equal(b->arch, "x86_64");
	assert_int_equal(b->nvariants, 0);
	assert_null(kb_branch_variant(b, "CVE-2011-1019"));

	assert_ptr_equal(kb_config_branch(config, "main"), &config->branches[2]);
	assert_null(kb_config_branch(config, "mai"));
	kb_config_free(config);
}

/* A relative file name: paths are relative to it, made absolute. */
static void test_parse_without_dir(void **state)
{
	static const char text[] =
		"repo: linux\nbranches:\n  - {name: a, ref: b}\n";
	struct kb_config *config = NULL;
	char *cwd = getcwd(NULL, 0), expect[4096];

	(void)state;
	assert_int_equal(kb_config_parse(&config, text, strlen(text),
					 "branches.yaml"), 0);
	assert_string_equal(config->dir, cwd);
	snprintf(expect, sizeof(expect), "%s/linux", cwd);
	assert_string_equal(config->branches[0].repo, expect);
	kb_config_free(config);
	assert_int_equal(kb_config_parse(&config, text, strlen(text),
					 "./sub/branches.yaml"), 0);
	snprintf(expect, sizeof(expect), "%s/sub", cwd);
	assert_string_equal(config->dir, expect);
	kb_config_free(config);
	free(cwd);
}

/* Per-fix choices win over the catch-all, whatever the order. */
static void test_variant_lookup(void **state)
{
	struct kb_variant_choice choices[] = {
		{ .fix = NULL, .variant = "all" }, { .fix = "CVE-1", .variant = "one" },
	};
	struct kb_branch b = { .variants = choices, .nvariants = 2 };

	(void)state;
	assert_string_equal(kb_branch_variant(&b, "CVE-1"), "one");
	assert_string_equal(kb_branch_variant(&b, "CVE-2"), "all");
}

static void test_unknown_branch_key(void **state)
{
	expect_error(state,
		     "repo: linux\n"
		     "branches:\n"
		     "  - name: 2.6.32.y\n"
		     "    refs: linux-2.6.32.y\n",
		     "4:5: unknown key 'refs' in branch (expected name, ref, repo, "
		     "variant, arch, config, build, build-skip-reason, pre-fix, skip-if-missing, kernel, mail)\n"
		     "hint: did you mean 'ref'?");
}

static void test_unknown_top_key(void **state)
{
	expect_error(state,
		     "repo: linux\n"
		     "branch:\n"
		     "  - name: a\n",
		     "2:1: unknown key 'branch' in top level (expected repo, mail, branches)\n"
		     "hint: did you mean 'branches'?");
}

static void test_build_not_bool(void **state)
{
	expect_error(state,
		     "repo: linux\n"
		     "branches:\n"
		     "  - name: a\n"
		     "    ref: b\n"
		     "    build: \"no\"\n",
		     "5:12: 'build' must be true or false");
}

static void test_branches_not_sequence(void **state)
{
	expect_error(state,
		     "repo: linux\n"
		     "branches:\n"
		     "  name: a\n"
		     "  ref: b\n",
		     "3:3: 'branches' must be a sequence of branches, not a mapping");
}

static void test_branches_empty(void **state)
{
	expect_error(state, "repo: linux\nbranches: []\n",
		     "2:11: 'branches' is empty");
}

static void test_branch_not_mapping(void **state)
{
	expect_error(state, "repo: linux\nbranches:\n  - 2.6.32.y\n",
		     "3:5: each branch must be a mapping, not a string");
}

static void test_ref_not_string(void **state)
{
	expect_error(state, "repo: linux\nbranches:\n  - name: a\n    ref: [b]\n",
		     "4:10: 'ref' must be a string, not a sequence");
}

static void test_variant_sequence(void **state)
{
	expect_error(state,
		     "repo: linux\nbranches:\n  - name: a\n    ref: b\n"
		     "    variant: [x]\n",
		     "5:14: 'variant' must be a variant name or a mapping of fix id "
		     "to variant name, not a sequence");
}

static void test_missing_name(void **state)
{
	expect_error(state, "repo: linux\nbranches:\n  - ref: b\n",
		     "3:5: branch has no 'name'");
}

static void test_missing_ref(void **state)
{
	expect_error(state, "repo: linux\nbranches:\n  - name: a\n    ref: ~\n",
		     "3:5: branch has no 'ref'");
}

static void test_duplicate_name(void **state)
{
	expect_error(state,
		     "repo: linux\n"
		     "branches:\n"
		     "  - name: 2.6.32.y\n"
		     "    ref: a\n"
		     "  - name: 2.6.32.y\n"
		     "    ref: b\n",
		     "5:11: duplicate branch name '2.6.32.y' (first at line 3)");
}

/* x.pre-fix is the ref name of x's pre-fix lane: the two would overwrite
 * each other's ref on every run. */
static void test_pre_fix_lane_collision(void **state)
{
	expect_error(state,
		     "repo: linux\n"
		     "branches:\n"
		     "  - name: x\n"
		     "    ref: a\n"
		     "    pre-fix: true\n"
		     "  - name: x.pre-fix\n"
		     "    ref: b\n",
		     "6:5: branch 'x.pre-fix' has the name of the pre-fix lane of branch 'x' "
		     "(line 3): both would write refs/heads/backport/<fix>/x.pre-fix");
	/* either order */
	expect_error(state,
		     "repo: linux\n"
		     "branches:\n"
		     "  - {name: x.pre-fix, ref: b}\n"
		     "  - {name: x, ref: a, pre-fix: true}\n",
		     "3:5: branch 'x.pre-fix' has the name of the pre-fix lane of branch 'x' "
		     "(line 4): both would write refs/heads/backport/<fix>/x.pre-fix");
}

/* Without a pre-fix lane on x, x.pre-fix is just a name. */
static void test_pre_fix_name_without_lane(void **state)
{
	struct config_sandbox *s = *state;
	struct kb_config *config = NULL;

	write_config(s, "repo: linux\nbranches:\n  - {name: x, ref: a}\n"
		     "  - {name: x.pre-fix, ref: b}\n");
	assert_int_equal(kb_config_load(&config, s->path), 0);
	assert_int_equal(config->nbranches, 2);
	kb_config_free(config);
}

static void test_invalid_name(void **state)
{
	expect_error(state, "repo: linux\nbranches:\n  - name: a..b\n    ref: b\n",
		     "3:11: invalid branch name 'a..b' (must be usable as one "
		     "component of a git ref name)");
}

static void test_name_with_slash(void **state)
{
	expect_error(state, "repo: linux\nbranches:\n  - name: a/b\n    ref: b\n",
		     "3:11: invalid branch name 'a/b' (must be usable as one "
		     "component of a git ref name)");
}

static void test_no_repo(void **state)
{
	expect_error(state, "branches:\n  - name: a\n    ref: b\n",
		     "2:5: branch 'a' has no 'repo' and there is no top-level 'repo'");
}

static void test_duplicate_key(void **state)
{
	expect_error(state,
		     "repo: linux\nbranches:\n  - name: a\n    ref: b\n    ref: c\n",
		     "5:5: duplicate key 'ref' (first at line 4)");
}

static void test_top_not_mapping(void **state)
{
	expect_error(state, "- a\n- b\n",
		     "1:1: top level must be a mapping with 'repo' and 'branches', "
		     "not a sequence");
}

static void test_syntax_error(void **state)
{
	struct config_sandbox *s = *state;
	struct kb_config *config = NULL;
	const char *msg;

	write_config(s, "repo: linux\nbranches:\n  - name: a\n   ref: b\n");
	assert_int_equal(kb_config_load(&config, s->path), KB_EINVALID);
	assert_null(config);
	msg = kb_error_last();
	assert_int_equal(strncmp(msg, s->path, strlen(s->path)), 0);
	assert_non_null(strstr(msg + strlen(s->path), ":4:4: "));
}

static void test_empty_file(void **state)
{
	expect_error(state, "",
		     "1:1: file is empty (expected a mapping with 'repo' and 'branches')");
}

static void test_missing_file(void **state)
{
	struct config_sandbox *s = *state;
	struct kb_config *config = (void *)1;

	assert_int_equal(kb_config_load(&config, s->path), KB_ENOTFOUND);
	assert_null(config);
	assert_non_null(strstr(kb_error_last(), s->path));
}

/* A distribution kernel branch: no ref, no repo, never built. */
static void test_kernel_branch(void **state)
{
	struct config_sandbox *s = *state;
	struct kb_config *config = NULL;
	const struct kb_branch *b;

	write_config(s, "branches:\n  - name: debian-6.1\n    kernel: linux-image-amd64\n");
	assert_int_equal(kb_config_load(&config, s->path), 0);
	b = kb_config_branch(config, "debian-6.1");
	assert_non_null(b);
	assert_string_equal(b->kernel, "linux-image-amd64");
	assert_null(b->ref);
	assert_null(b->repo);
	assert_false(b->build);
	assert_string_equal(b->arch, "x86_64");
	kb_config_free(config);
}

static void test_kernel_branch_with_ref(void **state)
{
	expect_error(state,
		     "repo: linux\nbranches:\n  - name: deb\n    kernel: linux-image-amd64\n"
		     "    ref: master\n",
		     "3:5: branch 'deb' boots the kernel package 'linux-image-amd64': "
		     "'ref' does not apply to it");
}

static void test_kernel_branch_with_pre_fix(void **state)
{
	expect_error(state,
		     "branches:\n  - name: deb\n    kernel: linux-image-amd64\n"
		     "    pre-fix: true\n",
		     "2:5: branch 'deb' boots the kernel package 'linux-image-amd64': "
		     "'pre-fix' does not apply to it");
}

/* mail: a branch's own, the top level's for what it does not say, stable's only without any. */
static void test_mail(void **state)
{
	struct config_sandbox *s = *state;
	struct kb_config *config = NULL;
	const struct kb_branch *b;

	write_config(s, "repo: linux\nbranches:\n"
		     "  - {name: 4.19.y, ref: linux-4.19.y}\n"
		     "  - {name: vendor, ref: refs/heads/linux-2.6.32.y}\n"
		     "  - {name: acme, ref: acme-5.10}\n"
		     "  - name: own\n    ref: x\n    mail:\n      to: \"K <k@acme>\"\n"
		     "      cc: [a@acme, \"B <b@acme>\"]\n      tree: ACME vendor 5.10\n"
		     "      send-to: backports@acme\n");
	assert_int_equal(kb_config_load(&config, s->path), 0);
	b = kb_config_branch(config, "4.19.y");
	assert_true(b->mail.stable);
	assert_string_equal(b->mail.tree, "4.19-stable");
	assert_int_equal(b->mail.ncc, 1);
	assert_string_equal(b->mail.cc[0], "stable@vger.kernel.org");
	assert_string_equal(b->mail.send_to, "stable@vger.kernel.org");
	assert_null(b->mail.to);
	b = kb_config_branch(config, "vendor");		/* by its ref's last component */
	assert_string_equal(b->mail.tree, "2.6.32-stable");
	b = kb_config_branch(config, "acme");
	assert_false(b->mail.stable);
	assert_string_equal(b->mail.tree, "acme");
	assert_int_equal(b->mail.ncc, 0);
	assert_null(b->mail.send_to);
	b = kb_config_branch(config, "own");
	assert_false(b->mail.stable);
	assert_string_equal(b->mail.to, "K <k@acme>");
	assert_int_equal(b->mail.ncc, 2);
	assert_string_equal(b->mail.cc[1], "B <b@acme>");
	assert_null(b->mail.cc[2]);
	assert_string_equal(b->mail.tree, "ACME vendor 5.10");
	assert_string_equal(b->mail.send_to, "backports@acme");
	kb_config_free(config);

	/* a top-level mail: replaces the stable defaults everywhere; a branch's keys win */
	write_config(s, "repo: linux\nmail: {cc: l@acme, send-to: s@acme}\nbranches:\n"
		     "  - {name: 4.19.y, ref: linux-4.19.y}\n"
		     "  - {name: b, ref: b, mail: {tree: B tree, cc: [c@acme]}}\n");
	assert_int_equal(kb_config_load(&config, s->path), 0);
	b = kb_config_branch(config, "4.19.y");
	assert_false(b->mail.stable);
	assert_string_equal(b->mail.tree, "4.19.y");
	assert_int_equal(b->mail.ncc, 1);
	assert_string_equal(b->mail.cc[0], "l@acme");
	assert_string_equal(b->mail.send_to, "s@acme");
	b = kb_config_branch(config, "b");
	assert_string_equal(b->mail.tree, "B tree");
	assert_int_equal(b->mail.ncc, 1);
	assert_string_equal(b->mail.cc[0], "c@acme");
	assert_string_equal(b->mail.send_to, "s@acme");
	kb_config_free(config);
}

static void test_mail_errors(void **state)
{
	expect_error(state, "repo: r\nbranches:\n  - name: a\n    ref: a\n    mail:\n      bcc: x\n",
		     "6:7: unknown key 'bcc' in mail (expected to, cc, tree, send-to)\n"
		     "hint: did you mean 'cc'?");
	expect_error(state, "repo: r\nbranches:\n  - name: a\n    ref: a\n    mail:\n      reply-to: x\n",
		     "6:7: unknown key 'reply-to' in mail (expected to, cc, tree, send-to)");
	expect_error(state, "repo: r\nmail: x@y\nbranches:\n  - {name: a, ref: a}\n",
		     "2:7: 'mail' must be a mapping (to, cc, tree, send-to), not a string");
	expect_error(state, "repo: r\nbranches:\n  - {name: a, ref: a, mail: {cc: {x: y}}}\n",
		     "3:34: 'mail.cc' must be a sequence of addresses, not a mapping");
	expect_error(state, "repo: r\nbranches:\n  - {name: a, ref: a, mail: {to: \"x\\nBcc: y\"}}\n",
		     "3:34: 'mail.to' must be one line without control characters");
	expect_error(state, "repo: r\nbranches:\n  - {name: a, ref: a, mail: {cc: [a, \"b\\r\"]}}\n",
		     "3:38: 'mail.cc' must be one line without control characters");
	expect_error(state, "branches:\n  - name: deb\n    kernel: linux-image-amd64\n"
		     "    mail: {tree: x}\n",
		     "2:5: branch 'deb' boots the kernel package 'linux-image-amd64': "
		     "'mail' does not apply to it");
}

#define SANDBOXED(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SANDBOXED(test_valid),
		cmocka_unit_test(test_parse_without_dir),
		cmocka_unit_test(test_variant_lookup),
		SANDBOXED(test_unknown_branch_key),
		SANDBOXED(test_unknown_top_key),
		SANDBOXED(test_mail),
		SANDBOXED(test_mail_errors),
		SANDBOXED(test_build_not_bool),
		SANDBOXED(test_branches_not_sequence),
		SANDBOXED(test_branches_empty),
		SANDBOXED(test_branch_not_mapping),
		SANDBOXED(test_ref_not_string),
		SANDBOXED(test_variant_sequence),
		SANDBOXED(test_missing_name),
		SANDBOXED(test_missing_ref),
		SANDBOXED(test_duplicate_name),
		SANDBOXED(test_pre_fix_lane_collision),
		SANDBOXED(test_pre_fix_name_without_lane),
		SANDBOXED(test_invalid_name),
		SANDBOXED(test_name_with_slash),
		SANDBOXED(test_no_repo),
		SANDBOXED(test_duplicate_key),
		SANDBOXED(test_top_not_mapping),
		SANDBOXED(test_syntax_error),
		SANDBOXED(test_empty_file),
		SANDBOXED(test_missing_file),
		SANDBOXED(test_kernel_branch),
		SANDBOXED(test_kernel_branch_with_ref),
		SANDBOXED(test_kernel_branch_with_pre_fix),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
