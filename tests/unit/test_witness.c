/* Each hunk's state in the tree (witness.c), on small real git trees. */
#include "unit.h"
#include "repo_fixture.h"

#include "apply/patch.h"
#include "apply/witness.h"
#include "kbuild/source.h"
#include "util/error.h"

/* foo() rejects a negative x: two lines added after `int v2 = 2;`. */
static const char fix_patch[] =
	"diff --git a/f.c b/f.c\n"
	"--- a/f.c\n"
	"+++ b/f.c\n"
	"@@ -2,6 +2,8 @@ int foo(int x)\n"
	" {\n"
	" \tint v1 = 1;\n"
	" \tint v2 = 2;\n"
	"+\tif (x < 0)\n"
	"+\t\treturn -EINVAL;\n"
	" \tint v3 = 3;\n"
	" \tint v4 = 4;\n"
	" \treturn x;\n";

#define HEAD "int foo(int x)\n{\n\tint v1 = 1;\n\tint v2 = 2;\n"
#define TAIL "\tint v3 = 3;\n\tint v4 = 4;\n\treturn x;\n}\n"

struct state {
	struct repo_fixture f;
	struct kb_patch *patch;
	struct kb_witness w;
};

static int setup(void **st)
{
	struct state *s = calloc(1, sizeof(*s));

	git_libgit2_init();
	repo_fixture_init(&s->f);
	if (kb_patch_parse(&s->patch, fix_patch, strlen(fix_patch), "fix.patch") < 0)
		fail_msg("%s", kb_error_last());
	*st = s;
	return 0;
}

static int teardown(void **st)
{
	struct state *s = *st;

	kb_witness_release(&s->w);
	kb_patch_free(s->patch);
	repo_fixture_release(&s->f);
	free(s);
	git_libgit2_shutdown();
	return 0;
}

/* The witness of the fix on a tree holding `path` with `text` (NULL: empty tree). */
static const struct kb_hunk_witness *look(struct state *s, const char *path, const char *text)
{
	git_treebuilder *tb;
	git_tree *tree;
	struct kb_source *src;
	git_oid blob, id;

	assert_int_equal(git_treebuilder_new(&tb, s->f.repo, NULL), 0);
	if (text) {
		assert_int_equal(git_blob_create_from_buffer(&blob, s->f.repo, text, strlen(text)), 0);
		assert_int_equal(git_treebuilder_insert(NULL, tb, path, &blob, GIT_FILEMODE_BLOB), 0);
	}
	assert_int_equal(git_treebuilder_write(&id, tb), 0);
	git_treebuilder_free(tb);
	assert_int_equal(git_tree_lookup(&tree, s->f.repo, &id), 0);
	assert_int_equal(kb_source_new(&src, s->f.repo, tree), 0);
	kb_witness_release(&s->w);
	assert_int_equal(kb_witness_patch(&s->w, src, s->patch), 0);
	kb_source_free(src);
	git_tree_free(tree);
	assert_int_equal(s->w.n, 1);
	assert_string_equal(s->w.v[0].path, "f.c");
	assert_int_equal(s->w.v[0].hunk, 1);
	return &s->w.v[0];
}

static void test_post_image(void **st)
{
	const struct kb_hunk_witness *w = look(*st, "f.c", HEAD "\tif (x < 0)\n\t\treturn -EINVAL;\n" TAIL);

	assert_int_equal(w->state, KB_TREE_POST);
	assert_int_equal(w->fate, KB_FATE_IN);
	assert_false(w->near);
	assert_int_equal(w->line, 2);
	assert_int_equal(w->offset, 0);
	assert_int_equal(w->added, 2);
	assert_int_equal(w->kept, 2);
}

static void test_pre_image(void **st)
{
	const struct kb_hunk_witness *w = look(*st, "f.c", "/* one */\n/* two */\n" HEAD TAIL);

	assert_int_equal(w->state, KB_TREE_PRE);
	assert_int_equal(w->fate, KB_FATE_GONE);
	assert_int_equal(w->line, 4);
	assert_int_equal(w->offset, 2);
	assert_int_equal(w->kept, 0);
}

/* A later commit reworked one of its lines: neither image, but its lines are there. */
static void test_changed(void **st)
{
	const struct kb_hunk_witness *w = look(*st, "f.c", HEAD "\tif (x < 0)\n\t\treturn -ERANGE;\n" TAIL);

	assert_int_equal(w->state, KB_TREE_NEITHER);
	assert_int_equal(w->fate, KB_FATE_CHANGED);
	assert_int_equal(w->kept, 1);
	assert_int_equal(w->changed, 1);
}

/* Its lines, in order, a few lines from where the hunk expects them: in. */
static void test_near(void **st)
{
	const struct kb_hunk_witness *w = look(*st, "f.c", HEAD "\tint w = 0;\n\tint z = 0;\n"
					       "\tif (x < 0)\n\t\treturn -EINVAL;\n"
					       "\tint y = 1;\n" TAIL);

	assert_int_equal(w->state, KB_TREE_POST);
	assert_true(w->near);
	assert_int_equal(w->fate, KB_FATE_IN);
}

/* Only one of its lines is there, elsewhere: that is no fix. */
static void test_gone(void **st)
{
	const struct kb_hunk_witness *w = look(*st, "f.c", "int foo(int x)\n{\n\tint v1 = 1;\n"
					       "\tint v2 = 2; /* two */\n" TAIL);

	assert_int_equal(w->state, KB_TREE_NEITHER);
	assert_int_equal(w->fate, KB_FATE_GONE);
	assert_int_equal(w->kept, 0);
}

static void test_no_file(void **st)
{
	const struct kb_hunk_witness *w = look(*st, "g.c", "int g;\n");

	assert_int_equal(w->state, KB_TREE_NO_FILE);
	assert_int_equal(w->fate, KB_FATE_LOST);
	assert_int_equal(w->line, 0);
	assert_string_equal(kb_tree_state_name(w->state), "no file");
	assert_string_equal(kb_hunk_fate_name(KB_FATE_CHANGED), "changed");
}

/* A line both removed and added (moved) witnesses nothing; braces never do. */
static void test_distinctive(void **st)
{
	static const char moved[] =
		"diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n"
		"@@ -1,4 +1,4 @@\n"
		" a = 1;\n"
		"-\tcall(a);\n"
		" b = 2;\n"
		"+\tcall(a);\n"
		"+}\n"
		"-x\n";
	struct kb_patch *p = NULL;
	const struct kb_hunk *h;

	(void)st;
	assert_int_equal(kb_patch_parse(&p, moved, strlen(moved), "moved.patch"), 0);
	h = &p->files[0].hunks[0];
	assert_false(kb_hunk_line_distinctive(h, 0));	/* context */
	assert_false(kb_hunk_line_distinctive(h, 1));	/* moved */
	assert_false(kb_hunk_line_distinctive(h, 3));
	assert_false(kb_hunk_line_distinctive(h, 4));	/* a brace */
	assert_false(kb_hunk_line_distinctive(h, 5));	/* too short */
	kb_patch_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_post_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pre_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_near, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_distinctive, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
