/* Which ref names are kbackport's (kb_prune_parse): the shapes its writers give. */
#include "unit.h"

#include <git2.h>

#include "config.h"
#include "apply/prune.h"

static const char yaml[] =
	"repo: linux\n"
	"branches:\n"
	"  - {name: 2.6.32.y, ref: linux-2.6.32.y}\n"
	"  - {name: shipped, ref: shipped, pre-fix: true}\n"
	"  - {name: x, ref: x}\n"
	"  - {name: x.pre-fix, ref: y}\n"
	"  - {name: debian, kernel: linux-image-amd64}\n";

static int setup(void **state)
{
	struct kb_config *config = NULL;

	git_libgit2_init();
	if (kb_config_parse(&config, yaml, strlen(yaml), "branches.yaml") < 0)
		return -1;
	*state = config;
	return 0;
}

static int teardown(void **state)
{
	kb_config_free(*state);
	git_libgit2_shutdown();
	return 0;
}

/* `refname` is kbackport's: of `kind`, fix or queue `id`, branch `branch`. */
static void expect(const struct kb_config *config, const char *refname,
		   enum kb_prune_kind kind, const char *id, const char *branch)
{
	struct kb_prune_name who;
	bool queue = kind == KB_PRUNE_QUEUE || kind == KB_PRUNE_QUEUE_PRE_FIX;

	assert_int_equal(kb_prune_parse(&who, refname, config), 1);
	assert_int_equal(who.kind, kind);
	assert_string_equal(queue ? who.queue : who.fix, id);
	assert_null(queue ? who.fix : who.queue);
	assert_string_equal(who.branch->name, branch);
	kb_prune_name_release(&who);
}

static void not_ours(const struct kb_config *config, const char *refname)
{
	struct kb_prune_name who;

	assert_int_equal(kb_prune_parse(&who, refname, config), 0);
	assert_null(who.fix);
	assert_null(who.queue);
}

static void test_shapes(void **state)
{
	const struct kb_config *c = *state;

	expect(c, "refs/heads/backport/CVE-2011-1019/2.6.32.y", KB_PRUNE_BACKPORT,
	       "CVE-2011-1019", "2.6.32.y");
	expect(c, "refs/heads/backport/CVE-2011-1019/shipped.pre-fix", KB_PRUNE_PRE_FIX,
	       "CVE-2011-1019", "shipped");
	/* a pre-fix ref of a branch that has no pre-fix lane today is still its */
	expect(c, "refs/heads/backport/F/2.6.32.y.pre-fix", KB_PRUNE_PRE_FIX, "F", "2.6.32.y");
	expect(c, "refs/heads/backport/queue/stable/2.6.32.y", KB_PRUNE_QUEUE, "stable",
	       "2.6.32.y");
	expect(c, "refs/heads/backport/queue/stable/shipped.pre-fix", KB_PRUNE_QUEUE_PRE_FIX,
	       "stable", "shipped");
}

/* A branch named "x.pre-fix" beside x (without a pre-fix lane): its own name wins. */
static void test_branch_named_pre_fix(void **state)
{
	const struct kb_config *c = *state;

	expect(c, "refs/heads/backport/F/x.pre-fix", KB_PRUNE_BACKPORT, "F", "x.pre-fix");
	expect(c, "refs/heads/backport/F/x", KB_PRUNE_BACKPORT, "F", "x");
	expect(c, "refs/heads/backport/queue/q/x.pre-fix", KB_PRUNE_QUEUE, "q", "x.pre-fix");
}

static void test_not_ours(void **state)
{
	const struct kb_config *c = *state;

	not_ours(c, "refs/heads/backport");
	not_ours(c, "refs/heads/backport-foo");
	not_ours(c, "refs/heads/backportx/F/2.6.32.y");
	not_ours(c, "refs/heads/backport/2.6.32.y");		/* one component */
	not_ours(c, "refs/heads/backport/F/topic");		/* no such branch */
	not_ours(c, "refs/heads/backport/F/debian");		/* a kernel package */
	not_ours(c, "refs/heads/backport/F/G/2.6.32.y");	/* a fix id is one component */
	not_ours(c, "refs/heads/backport/queue/2.6.32.y");	/* no fix is named queue */
	not_ours(c, "refs/heads/backport/Queue/2.6.32.y");
	not_ours(c, "refs/heads/backport/queue/a/b/2.6.32.y");
	not_ours(c, "refs/heads/backport/F/2.6.32.y.pre-fix.pre-fix");
	not_ours(c, "refs/heads/backport/F/.pre-fix");
	not_ours(c, "refs/heads/backport//2.6.32.y");
	not_ours(c, "refs/remotes/origin/backport/F/2.6.32.y");
	not_ours(c, "refs/tags/backport/F/2.6.32.y");
	not_ours(c, "refs/heads/other/backport/F/2.6.32.y");
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(kb_prune_kind_name(KB_PRUNE_BACKPORT), "backport");
	assert_string_equal(kb_prune_kind_name(KB_PRUNE_PRE_FIX), "pre-fix");
	assert_string_equal(kb_prune_kind_name(KB_PRUNE_QUEUE), "queue");
	assert_string_equal(kb_prune_kind_name(KB_PRUNE_QUEUE_PRE_FIX), "queue-pre-fix");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_branch_named_pre_fix),
		cmocka_unit_test(test_not_ours),
		cmocka_unit_test(test_kind_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
