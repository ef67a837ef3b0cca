/*
 * kb_apply_patch() on trees of a real repository made with libgit2 in the
 * sandbox, as libgit2's tests/apply do: the patch is applied, the new tree
 * written, and the exact blob contents, states and hunk placements checked.
 */
#include "unit.h"
#include "repo_fixture.h"
#include "dev_load_fixture.h"

#include "apply/apply.h"
#include "util/error.h"
#include "apply/patch.h"
#include "kbuild/source.h"

static const char fix_diff[] = DEV_LOAD_DIFF;

static const char other_c[] = "int other;\n";

struct state {
	struct repo_fixture f;
	struct kb_patch *patch, *reverse;
	struct kb_locate_opts opts;
	struct kb_apply apply;
	git_tree *tree;
	struct kb_source *src;
};

static int setup(void **st)
{
	struct state *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	git_libgit2_init();
	repo_fixture_init(&s->f);
	assert_int_equal(kb_patch_parse(&s->patch, fix_diff, strlen(fix_diff), "fix.patch"), 0);
	assert_int_equal(kb_patch_reverse(&s->reverse, s->patch), 0);
	kb_locate_opts_init(&s->opts);
	*st = s;
	return 0;
}

static int teardown(void **st)
{
	struct state *s = *st;

	kb_apply_release(&s->apply);
	kb_source_free(s->src);
	git_tree_free(s->tree);
	kb_patch_free(s->reverse);
	kb_patch_free(s->patch);
	repo_fixture_release(&s->f);
	free(s);
	git_libgit2_shutdown();
	return 0;
}

/* A tree of net/core/dev.c holding `dev_c` (none when NULL) and other.c. */
static git_tree *make_tree(git_repository *repo, const char *dev_c)
{
	git_index *index;
	git_index_entry e;
	git_tree *tree;
	git_oid id;

	assert_int_equal(git_index_new(&index), 0);
	memset(&e, 0, sizeof(e));
	e.mode = GIT_FILEMODE_BLOB;
	e.path = "other.c";
	assert_int_equal(git_blob_create_from_buffer(&e.id, repo, other_c, strlen(other_c)), 0);
	assert_int_equal(git_index_add(index, &e), 0);
	if (dev_c) {
		e.path = DEV_C;
		assert_int_equal(git_blob_create_from_buffer(&e.id, repo, dev_c, strlen(dev_c)), 0);
		assert_int_equal(git_index_add(index, &e), 0);
	}
	assert_int_equal(git_index_write_tree_to(&id, index, repo), 0);
	git_index_free(index);
	assert_int_equal(git_tree_lookup(&tree, repo, &id), 0);
	return tree;
}

/* kb_apply_patch() of the fix on a tree with `dev_c` as net/core/dev.c. */
static void apply_to(struct state *s, const char *dev_c)
{
	s->tree = make_tree(s->f.repo, dev_c);
	assert_int_equal(kb_source_new(&s->src, s->f.repo, s->tree), 0);
	assert_int_equal(kb_apply_patch(&s->apply, s->src, s->patch, s->reverse, &s->opts), 0);
	assert_ptr_equal(s->apply.patch, s->patch);
}

/* The blob at `path` in the tree `id` of s->f.repo equals `want`. */
static void assert_blob(struct state *s, const git_oid *id, const char *path, const char *want)
{
	git_tree *tree;
	git_tree_entry *entry;
	git_blob *blob;

	assert_int_equal(git_tree_lookup(&tree, s->f.repo, id), 0);
	assert_int_equal(git_tree_entry_bypath(&entry, tree, path), 0);
	assert_int_equal(git_tree_entry_filemode(entry), GIT_FILEMODE_BLOB);
	assert_int_equal(git_blob_lookup(&blob, s->f.repo, git_tree_entry_id(entry)), 0);
	assert_int_equal(git_blob_rawsize(blob), strlen(want));
	assert_memory_equal(git_blob_rawcontent(blob), want, strlen(want));
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
}

/* The fix applied, written as a tree: `want` in it, other.c untouched. */
static void assert_applied(struct state *s, const char *want)
{
	git_oid id;

	assert_int_equal(s->apply.state, KB_FILE_APPLIES);
	assert_true(s->apply.ok);
	assert_int_equal(s->apply.noutputs, 1);
	assert_string_equal(s->apply.outputs[0].path, DEV_C);
	assert_int_equal(s->apply.outputs[0].mode, GIT_FILEMODE_BLOB);
	assert_int_equal(s->apply.outputs[0].len, strlen(want));
	assert_memory_equal(s->apply.outputs[0].data, want, strlen(want));
	assert_int_equal(s->apply.nundo, 0);
	assert_int_equal(kb_apply_write_tree(&id, s->f.repo, s->tree, &s->apply, false), 0);
	assert_blob(s, &id, DEV_C, want);
	assert_blob(s, &id, "other.c", other_c);
}

static void assert_describe(const struct kb_apply *apply, bool failures_only, const char *want)
{
	char *text = kb_apply_describe(apply, failures_only);

	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
}

static void test_applies_in_place(void **st)
{
	struct state *s = *st;
	const struct kb_file_result *f;

	apply_to(s, original);
	f = &s->apply.files[0];
	assert_applied(s, fixed);
	assert_int_equal(f->state, KB_FILE_APPLIES);
	assert_ptr_equal(f->fp, &s->patch->files[0]);
	assert_ptr_equal(f->used, f->fp);
	assert_null(f->from);
	assert_false(f->merged);
	assert_null(f->error);
	assert_int_equal(f->cost, 0);
	assert_int_equal(f->hunks[0].status, KB_HUNK_APPLIED);
	assert_int_equal(f->hunks[0].match.line, 5);
	assert_int_equal(f->hunks[0].match.offset, 0);
	assert_int_equal(f->hunks[0].match.fuzz, 0);
	assert_describe(&s->apply, false, "");
}

static void test_applies_at_an_offset(void **st)
{
	struct state *s = *st;
	char moved[512], want[512];

	snprintf(moved, sizeof(moved), "/* one */\n/* two */\n/* three */\n%s", original);
	snprintf(want, sizeof(want), "/* one */\n/* two */\n/* three */\n%s", fixed);
	apply_to(s, moved);
	assert_applied(s, want);
	assert_int_equal(s->apply.files[0].hunks[0].status, KB_HUNK_APPLIED);
	assert_int_equal(s->apply.files[0].hunks[0].match.line, 8);
	assert_int_equal(s->apply.files[0].hunks[0].match.offset, 3);
	assert_int_equal(s->apply.files[0].hunks[0].match.fuzz, 0);
	assert_describe(&s->apply, false, "hunk 1 of 'net/core/dev.c' applied at line 9 (offset +3)\n");
}

/* The last context line differs: dropped as fuzz, the file's own kept. */
static void test_applies_with_fuzz(void **st)
{
	struct state *s = *st;
	static const char pre[] =
		"#include <linux/kmod.h>\n"
		"\n"
		"void dev_load(struct net *net, const char *name)\n"
		"{\n"
		"\tstruct net_device *dev;\n"
		"\n"
		"\tdev = dev_get_by_name(net, name);\n"
		"\tif (!dev && capable(CAP_NET_ADMIN))\n"
		"\t\trequest_module(\"%s\", name);\n"
		"\telse\n"
		"\t\tdev_put(dev);\n"
		"}\n";
	static const char post[] =
		"#include <linux/kmod.h>\n"
		"\n"
		"void dev_load(struct net *net, const char *name)\n"
		"{\n"
		"\tstruct net_device *dev;\n"
		"\n"
		"\tdev = dev_get_by_name(net, name);\n"
		"\tif (!dev && capable(CAP_SYS_MODULE))\n"
		"\t\trequest_module(\"%s\", name);\n"
		"\telse\n"
		"\t\tdev_put(dev);\n"
		"}\n";

	apply_to(s, pre);
	assert_applied(s, post);
	assert_int_equal(s->apply.files[0].hunks[0].status, KB_HUNK_APPLIED);
	assert_int_equal(s->apply.files[0].hunks[0].match.line, 6);
	assert_int_equal(s->apply.files[0].hunks[0].match.offset, 0);
	assert_int_equal(s->apply.files[0].hunks[0].match.trim_head, 1);
	assert_int_equal(s->apply.files[0].hunks[0].match.trim_tail, 1);
	assert_int_equal(s->apply.files[0].hunks[0].match.fuzz, 1);
	assert_describe(&s->apply, false, "hunk 1 of 'net/core/dev.c' applied at line 6 (offset +0, fuzz 1)\n");
}

static void test_already_applied(void **st)
{
	struct state *s = *st;
	const struct kb_file_result *f;
	git_oid id;

	apply_to(s, fixed);
	f = &s->apply.files[0];
	assert_int_equal(s->apply.state, KB_FILE_PRESENT);
	assert_false(s->apply.ok);
	assert_int_equal(s->apply.noutputs, 0);
	assert_int_equal(f->state, KB_FILE_PRESENT);
	assert_int_equal(f->hunks[0].status, KB_HUNK_PRESENT);
	/* the change undone gives the original back */
	assert_int_equal(s->apply.nundo, 1);
	assert_string_equal(s->apply.undo[0].path, DEV_C);
	assert_int_equal(s->apply.undo[0].len, strlen(original));
	assert_memory_equal(s->apply.undo[0].data, original, strlen(original));
	assert_int_equal(kb_apply_write_tree(&id, s->f.repo, s->tree, &s->apply, true), 0);
	assert_blob(s, &id, DEV_C, original);
	assert_describe(&s->apply, false, "hunk 1 of 'net/core/dev.c' is already in, at line 6\n");
}

/* The changed line itself differs: neither the fix nor its reverse fits. */
static void test_context_mismatch_conflicts(void **st)
{
	struct state *s = *st;
	const struct kb_file_result *f;
	static const char other[] =
		"#include <linux/kmod.h>\n"
		"\n"
		"void dev_load(struct net *net, const char *name)\n"
		"{\n"
		"\tstruct net_device *dev;\n"
		"\n"
		"\tdev = dev_get_by_name(net, name);\n"
		"\tif (!dev && net_admin_allowed(net))\n"
		"\t\trequest_module(\"%s\", name);\n"
		"}\n";

	apply_to(s, other);
	f = &s->apply.files[0];
	assert_int_equal(s->apply.state, KB_FILE_FAILED);
	assert_false(s->apply.ok);
	assert_int_equal(s->apply.noutputs, 0);
	assert_int_equal(s->apply.nundo, 0);
	assert_int_equal(f->state, KB_FILE_FAILED);
	assert_null(f->error);
	assert_int_equal(f->hunks[0].status, KB_HUNK_FAILED);
	assert_describe(&s->apply, true, "hunk 1 of 'net/core/dev.c' does not apply\n");
}

static void test_missing_file(void **st)
{
	struct state *s = *st;
	const struct kb_file_result *f;

	apply_to(s, NULL);
	f = &s->apply.files[0];
	assert_int_equal(s->apply.state, KB_FILE_FAILED);
	assert_false(s->apply.ok);
	assert_int_equal(s->apply.noutputs, 0);
	assert_int_equal(f->state, KB_FILE_FAILED);
	assert_string_equal(f->error, "no file 'net/core/dev.c' in the tree");
	assert_describe(&s->apply, true, "'net/core/dev.c': no file 'net/core/dev.c' in the tree\n");
}

/* The fix of this test: `diff` in place of the dev_load fix. */
static void use_patch(struct state *s, const char *diff)
{
	kb_patch_free(s->reverse);
	kb_patch_free(s->patch);
	s->patch = s->reverse = NULL;
	assert_int_equal(kb_patch_parse(&s->patch, diff, strlen(diff), "fix.patch"), 0);
	assert_int_equal(kb_patch_reverse(&s->reverse, s->patch), 0);
}

/*
 * Fuzz drops the first context line, which stands renamed in the tree (a
 * change the fix builds on is missing): applied as git apply -3 would,
 * never silently: the line is named in a warning.
 */
static void test_changed_context_warns(void **st)
{
	struct state *s = *st;
	char *warning;
	static const char tree[] =
		"void dev_load(struct net *net, const char *name)\n{\n"
		"\tspin_lock(&dev_lock);\n\ta(name);\n\tb(name);\n"
		"\tspin_unlock_irq(&dev_lock);\n\tc(name);\n\td(name);\n\te(name);\n}\n";

	use_patch(s, "--- a/" DEV_C "\n+++ b/" DEV_C "\n@@ -3,7 +3,6 @@ void dev_load(struct net *net)\n"
		  " \tspin_lock_irq(&dev_lock);\n \ta(name);\n \tb(name);\n"
		  "-\tspin_unlock_irq(&dev_lock);\n \tc(name);\n \td(name);\n \te(name);\n");
	apply_to(s, tree);
	assert_int_equal(s->apply.state, KB_FILE_APPLIES);
	assert_true(s->apply.files[0].hunks[0].match.changed);
	assert_describe(&s->apply, false,
		"hunk 1 of 'net/core/dev.c' applied at line 3 (offset +0, fuzz 1)\n"
		"warning: hunk 1 of 'net/core/dev.c' dropped its context line "
		"'spin_lock_irq(&dev_lock);' by fuzz, and line 3 of the tree holds it changed: "
		"a change this fix builds on may be missing; check the result\n");
	warning = kb_apply_warning(&s->apply);
	assert_string_equal(warning, "hunk 1 of 'net/core/dev.c' dropped its context line "
		"'spin_lock_irq(&dev_lock);' by fuzz, and line 3 of the tree holds it changed: "
		"a change this fix builds on may be missing; check the result");
	free(warning);
}

/* A fix that creates a file: decided once, nothing left behind (under
 * ASan and valgrind the first of two decisions leaked). */
static void test_creates_a_file(void **st)
{
	struct state *s = *st;
	char *warning;

	use_patch(s, "diff --git a/new.c b/new.c\nnew file mode 100644\n--- /dev/null\n"
		  "+++ b/new.c\n@@ -0,0 +1,2 @@\n+int y;\n+int z;\n");
	apply_to(s, original);
	assert_int_equal(s->apply.state, KB_FILE_APPLIES);
	assert_int_equal(s->apply.noutputs, 1);
	assert_string_equal(s->apply.outputs[0].path, "new.c");
	assert_string_equal(s->apply.outputs[0].data, "int y;\nint z;\n");
	warning = kb_apply_warning(&s->apply);
	assert_string_equal(warning, "");
	free(warning);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_applies_in_place),
		T(test_applies_at_an_offset),
		T(test_applies_with_fuzz),
		T(test_already_applied),
		T(test_context_mismatch_conflicts),
		T(test_missing_file),
		T(test_changed_context_warns),
		T(test_creates_a_file),
	};
#undef T

	return sandbox_run_group_tests(tests, NULL, NULL);
}
