/*
 * File modes: "old mode"/"new mode", "new file mode", "deleted file mode"
 * and the "index" line's mode parsed (kb_patch_parse), refused when they
 * are no file's (a submodule, a type change), and checked against trees
 * made with libgit2 as content is (kb_apply_patch): a mode change applies
 * where the file has the old mode, is in where it has the new one, and the
 * written tree carries the mode git apply would give.
 */
#include "unit.h"
#include "repo_fixture.h"

#include "apply/apply.h"
#include "util/error.h"
#include "apply/patch.h"
#include "kbuild/source.h"

/* ---- parsing ---- */

static struct kb_patch *parse_ok(const char *text)
{
	struct kb_patch *p = NULL;

	if (kb_patch_parse(&p, text, strlen(text), "t.patch") < 0)
		fail_msg("parse failed: %s", kb_error_last());
	return p;
}

static void assert_file(const struct kb_file_patch *f, const char *old_path,
			const char *new_path, unsigned old_mode, unsigned new_mode,
			size_t nhunks)
{
	if (old_path)
		assert_string_equal(f->old_path, old_path);
	else
		assert_null(f->old_path);
	if (new_path)
		assert_string_equal(f->new_path, new_path);
	else
		assert_null(f->new_path);
	assert_int_equal(f->old_mode, old_mode);
	assert_int_equal(f->new_mode, new_mode);
	assert_int_equal(f->nhunks, nhunks);
}

static const char modes_patch[] =
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
	"From: A U Thor <author@example.org>\n"
	"Date: Wed, 2 Mar 2011 00:33:13 +0300\n"
	"Subject: [PATCH] modes\n"
	"\n"
	"---\n"
	"diff --git a/run.sh b/run.sh\n"
	"old mode 100644\n"
	"new mode 100755\n"
	"diff --git a/tool.sh b/tool.sh\n"
	"old mode 100755\n"
	"new mode 100644\n"
	"index 3aa8a2e..e0de02a\n"
	"--- a/tool.sh\n"
	"+++ b/tool.sh\n"
	"@@ -1,2 +1,2 @@\n"
	" x\n"
	"-y\n"
	"+Y\n"
	"diff --git a/link b/link\n"
	"new file mode 120000\n"
	"index 0000000..2793d03\n"
	"--- /dev/null\n"
	"+++ b/link\n"
	"@@ -0,0 +1 @@\n"
	"+run.sh\n"
	"\\ No newline at end of file\n"
	"diff --git a/empty.sh b/empty.sh\n"
	"new file mode 100755\n"
	"index 0000000..e69de29\n"
	"diff --git a/dir/gone b/dir/gone\n"
	"deleted file mode 100644\n"
	"index e69de29..0000000\n"
	"diff --git a/exec.sh b/exec.sh\n"
	"index 3aa8a2e..e0de02a 100755\n"
	"--- a/exec.sh\n"
	"+++ b/exec.sh\n"
	"@@ -1 +1 @@\n"
	"-x\n"
	"+X\n"
	"diff --git a/old b/old\n"
	"old mode 100664\n"
	"new mode 100755\n"
	"-- \n"
	"2.39.5\n";

static void test_parse_modes(void **state)
{
	struct kb_patch *p = parse_ok(modes_patch);

	(void)state;
	assert_int_equal(p->nfiles, 7);
	/* no "---"/"+++" lines: the path of the "diff --git" line */
	assert_file(&p->files[0], "run.sh", "run.sh", 0100644, 0100755, 0);
	assert_file(&p->files[1], "tool.sh", "tool.sh", 0100755, 0100644, 1);
	assert_file(&p->files[2], NULL, "link", 0, 0120000, 1);
	assert_true(p->files[2].hunks[0].lines[0].no_newline);
	assert_file(&p->files[3], NULL, "empty.sh", 0, 0100755, 0);
	assert_file(&p->files[4], "dir/gone", NULL, 0100644, 0, 0);
	/* the index line's mode: the file's, before and after */
	assert_file(&p->files[5], "exec.sh", "exec.sh", 0100755, 0100755, 1);
	/* as git keeps a regular file: 100644 or 100755 */
	assert_file(&p->files[6], "old", "old", 0100644, 0100755, 0);
	assert_int_equal(p->files[6].source_line, 41);
	kb_patch_free(p);
}

static void test_reverse_swaps_modes(void **state)
{
	struct kb_patch *p = parse_ok(modes_patch), *r = NULL;

	(void)state;
	assert_int_equal(kb_patch_reverse(&r, p), 0);
	assert_file(&r->files[0], "run.sh", "run.sh", 0100755, 0100644, 0);
	assert_file(&r->files[1], "tool.sh", "tool.sh", 0100644, 0100755, 1);
	assert_file(&r->files[2], "link", NULL, 0120000, 0, 1);
	assert_file(&r->files[3], "empty.sh", NULL, 0100755, 0, 0);
	assert_file(&r->files[4], NULL, "dir/gone", 0, 0100644, 0);
	kb_patch_free(r);
	kb_patch_free(p);
}

/* A plain diff says no mode: 0, the tree's is kept. */
static void test_plain_diff_has_no_mode(void **state)
{
	struct kb_patch *p = parse_ok("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n");

	(void)state;
	assert_file(&p->files[0], "f", "f", 0, 0, 1);
	kb_patch_free(p);
}

struct bad {
	const char *text;
	const char *message;
};

static const struct bad bad_modes[] = {
	{ "diff --git a/sub b/sub\nnew file mode 160000\nindex 0000000..29f0d34\n"
	  "--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n"
	  "+Subproject commit 29f0d34527eaac61ac1c2a187541decbad0fd62c\n",
	  "t.patch:2: 'sub' is a submodule (mode 160000): submodules are not supported" },
	{ "diff --git a/lib/sub b/lib/sub\nindex 29f0d34..3aa8a2e 160000\n--- a/lib/sub\n"
	  "+++ b/lib/sub\n@@ -1 +1 @@\n-Subproject commit 29f0d34\n+Subproject commit 3aa8a2e\n",
	  "t.patch:2: 'lib/sub' is a submodule (mode 160000): submodules are not supported" },
	{ "diff --git a/sub b/sub\ndeleted file mode 160000\nindex 29f0d34..0000000\n",
	  "t.patch:2: 'sub' is a submodule (mode 160000): submodules are not supported" },
	{ "diff --git a/d b/d\nold mode 040000\nnew mode 100644\n",
	  "t.patch:2: 'd': mode 040000 is not supported (only files, executables and symlinks)" },
	{ "diff --git a/f b/f\nold mode 100644\nnew mode 100x55\n",
	  "t.patch:3: malformed mode line" },
	{ "diff --git a/f b/f\nnew file mode \n", "t.patch:2: malformed mode line" },
	{ "diff --git a/f b/f\nindex 1234567..89abcde 1006440\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:2: malformed index line" },
	/* git apply refuses a type change in one section too */
	{ "diff --git a/f b/f\nold mode 100644\nnew mode 120000\n",
	  "t.patch:1: 'f': the file's type changes (mode 100644 to 120000): not supported" },
	{ "diff --git a/l b/l\nold mode 120000\nnew mode 100755\n--- a/l\n+++ b/l\n"
	  "@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:1: 'l': the file's type changes (mode 120000 to 100755): not supported" },
	/* as git writes a type change: the file deleted, then created */
	{ "diff --git a/g b/g\ndeleted file mode 100644\nindex 587be6b..0000000\n"
	  "--- a/g\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
	  "diff --git a/g b/g\nnew file mode 120000\nindex 0000000..2793d03\n"
	  "--- /dev/null\n+++ b/g\n@@ -0,0 +1 @@\n+f.sh\n\\ No newline at end of file\n",
	  "t.patch:8: 'g' is deleted and created again (mode 100644 to 120000): "
	  "file type changes are not supported" },
	/* nothing changes: no hunks is no patch */
	{ "diff --git a/f b/f\nold mode 100755\nnew mode 100755\n", "t.patch:1: no hunks for 'f'" },
	{ "diff --git a/f b/f\nnew mode 100755\n", "t.patch:1: no hunks for 'f'" },
};

static void test_mode_rejections(void **state)
{
	struct kb_patch *p;
	size_t i;
	int err;

	(void)state;
	for (i = 0; i < sizeof(bad_modes) / sizeof(bad_modes[0]); i++) {
		p = (struct kb_patch *)1;
		kb_error_clear();
		err = kb_patch_parse(&p, bad_modes[i].text, strlen(bad_modes[i].text), "t.patch");
		if (err != KB_EINVALID || strcmp(kb_error_last(), bad_modes[i].message))
			fail_msg("case %zu: got %d '%s', want '%s'", i, err, kb_error_last(),
				 bad_modes[i].message);
		assert_null(p);
	}
}

/* ---- against trees ---- */

struct entry {
	const char *path;
	unsigned mode;
	const char *data;
};

struct state {
	struct repo_fixture f;
	struct kb_patch *patch, *reverse;
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
	*st = s;
	return 0;
}

static void release(struct state *s)
{
	kb_apply_release(&s->apply);
	kb_source_free(s->src);
	git_tree_free(s->tree);
	kb_patch_free(s->reverse);
	kb_patch_free(s->patch);
	s->src = NULL;
	s->tree = NULL;
	s->patch = s->reverse = NULL;
}

static int teardown(void **st)
{
	struct state *s = *st;

	release(s);
	repo_fixture_release(&s->f);
	free(s);
	git_libgit2_shutdown();
	return 0;
}

/* A tree of `entries` (ended by a NULL path). */
static git_tree *make_tree(git_repository *repo, const struct entry *entries)
{
	git_index *index;
	git_index_entry e;
	git_tree *tree;
	git_oid id;

	assert_int_equal(git_index_new(&index), 0);
	for (; entries->path; entries++) {
		memset(&e, 0, sizeof(e));
		e.mode = entries->mode;
		e.path = entries->path;
		assert_int_equal(git_blob_create_from_buffer(&e.id, repo, entries->data,
							     strlen(entries->data)), 0);
		assert_int_equal(git_index_add(index, &e), 0);
	}
	assert_int_equal(git_index_write_tree_to(&id, index, repo), 0);
	git_index_free(index);
	assert_int_equal(git_tree_lookup(&tree, repo, &id), 0);
	return tree;
}

/* kb_apply_patch() of `diff` on a tree of `entries`: the state it returns. */
static enum kb_file_state apply_to(struct state *s, const char *diff, const struct entry *entries)
{
	struct kb_locate_opts opts;

	release(s);
	kb_locate_opts_init(&opts);
	s->patch = parse_ok(diff);
	assert_int_equal(kb_patch_reverse(&s->reverse, s->patch), 0);
	s->tree = make_tree(s->f.repo, entries);
	assert_int_equal(kb_source_new(&s->src, s->f.repo, s->tree), 0);
	assert_int_equal(kb_apply_patch(&s->apply, s->src, s->patch, s->reverse, &opts), 0);
	return s->apply.state;
}

/* The tree written from the outputs (or the undo outputs) holds exactly `want`. */
static void assert_tree(struct state *s, bool undo, const struct entry *want)
{
	git_tree *expected = make_tree(s->f.repo, want);
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
	git_oid id;

	assert_int_equal(kb_apply_write_tree(&id, s->f.repo, s->tree, &s->apply, undo), 0);
	git_oid_tostr(a, sizeof(a), git_tree_id(expected));
	git_oid_tostr(b, sizeof(b), &id);
	if (strcmp(a, b))
		fail_msg("%s tree %s, want %s (the repository %s)", undo ? "undo" : "applied", b, a,
			 s->f.dir);
	assert_string_equal(b, a);
	git_tree_free(expected);
}

static void assert_error(const struct kb_apply *apply, size_t file, const char *want)
{
	assert_int_equal(apply->files[file].state, KB_FILE_FAILED);
	assert_non_null(apply->files[file].error);
	assert_string_equal(apply->files[file].error, want);
	assert_null(apply->files[file].hunks);
}

#define REG 0100644
#define EXE 0100755
#define LNK 0120000

static const char mode_only[] = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";

static void test_mode_only(void **st)
{
	struct state *s = *st;
	const struct entry before[] = { { "run.sh", REG, "a\n" }, { "t", REG, "t\n" }, { NULL, 0, NULL } };
	const struct entry after[] = { { "run.sh", EXE, "a\n" }, { "t", REG, "t\n" }, { NULL, 0, NULL } };

	assert_int_equal(apply_to(s, mode_only, before), KB_FILE_APPLIES);
	assert_tree(s, false, after);
	assert_null(s->apply.files[0].hunks);
	/* the file already executable: the change is in, and undone it is not */
	assert_int_equal(apply_to(s, mode_only, after), KB_FILE_PRESENT);
	assert_tree(s, true, before);
	/* no file to change */
	assert_int_equal(apply_to(s, mode_only, before + 1), KB_FILE_FAILED);
	assert_string_equal(s->apply.files[0].error, "no file 'run.sh' in the tree");
}

static const char mode_and_content[] =
	"diff --git a/tool.sh b/tool.sh\nold mode 100755\nnew mode 100644\nindex 3aa8a2e..e0de02a\n"
	"--- a/tool.sh\n+++ b/tool.sh\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n";

static void test_mode_and_content(void **st)
{
	struct state *s = *st;
	const struct entry before[] = { { "tool.sh", EXE, "x\ny\nz\n" }, { NULL, 0, NULL } };
	const struct entry after[] = { { "tool.sh", REG, "x\nY\nz\n" }, { NULL, 0, NULL } };
	const struct entry old_mode_new_content[] = { { "tool.sh", EXE, "x\nY\nz\n" }, { NULL, 0, NULL } };
	const struct entry new_mode_old_content[] = { { "tool.sh", REG, "x\ny\nz\n" }, { NULL, 0, NULL } };

	assert_int_equal(apply_to(s, mode_and_content, before), KB_FILE_APPLIES);
	assert_tree(s, false, after);
	assert_int_equal(apply_to(s, mode_and_content, after), KB_FILE_PRESENT);
	assert_tree(s, true, before);
	/* the content would apply, but the mode is not the patch's old one */
	assert_int_equal(apply_to(s, mode_and_content, new_mode_old_content), KB_FILE_FAILED);
	assert_error(&s->apply, 0, "mode 100644 in the tree, the patch expects 100755");
	/* the content is in, the mode change is not: never "already in" */
	assert_int_equal(apply_to(s, mode_and_content, old_mode_new_content), KB_FILE_FAILED);
	assert_error(&s->apply, 0, "in, but with mode 100755, not the patch's 100644");
	{
		char *text = kb_apply_describe(&s->apply, true);
		assert_string_equal(text, "'tool.sh': in, but with mode 100755, not the patch's 100644\n");
		free(text);
	}
}

/* A content change whose index line names a mode keeps the tree's, as git apply does. */
static void test_index_mode_kept(void **st)
{
	struct state *s = *st;
	const struct entry before[] = { { "f", REG, "a\n" }, { NULL, 0, NULL } };
	const struct entry after[] = { { "f", REG, "b\n" }, { NULL, 0, NULL } };
	const struct entry exe_before[] = { { "f", EXE, "a\n" }, { NULL, 0, NULL } };
	const struct entry exe_after[] = { { "f", EXE, "b\n" }, { NULL, 0, NULL } };
	static const char diff[] = "diff --git a/f b/f\nindex 1234567..89abcde 100755\n"
				   "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n";

	assert_int_equal(apply_to(s, diff, before), KB_FILE_APPLIES);
	assert_tree(s, false, after);
	assert_int_equal(apply_to(s, diff, exe_before), KB_FILE_APPLIES);
	assert_tree(s, false, exe_after);
	assert_int_equal(apply_to(s, diff, exe_after), KB_FILE_PRESENT);
	assert_tree(s, true, exe_before);
}

static const char new_exec[] =
	"diff --git a/bin/run b/bin/run\nnew file mode 100755\nindex 0000000..1a24852\n"
	"--- /dev/null\n+++ b/bin/run\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+exit 0\n";

static void test_new_executable(void **st)
{
	struct state *s = *st;
	const struct entry before[] = { { "t", REG, "t\n" }, { NULL, 0, NULL } };
	const struct entry after[] = { { "bin/run", EXE, "#!/bin/sh\nexit 0\n" }, { "t", REG, "t\n" },
				       { NULL, 0, NULL } };
	const struct entry not_exec[] = { { "bin/run", REG, "#!/bin/sh\nexit 0\n" }, { "t", REG, "t\n" },
					  { NULL, 0, NULL } };

	assert_int_equal(apply_to(s, new_exec, before), KB_FILE_APPLIES);
	assert_tree(s, false, after);
	assert_int_equal(apply_to(s, new_exec, after), KB_FILE_PRESENT);
	assert_tree(s, true, before);
	assert_int_equal(apply_to(s, new_exec, not_exec), KB_FILE_FAILED);
	assert_error(&s->apply, 0, "in, but with mode 100644, not the patch's 100755");
}

static const char new_link[] =
	"diff --git a/link b/link\nnew file mode 120000\nindex 0000000..2793d03\n"
	"--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+run.sh\n\\ No newline at end of file\n";

static void test_new_symlink(void **st)
{
	struct state *s = *st;
	const struct entry before[] = { { "run.sh", REG, "a\n" }, { NULL, 0, NULL } };
	const struct entry after[] = { { "link", LNK, "run.sh" }, { "run.sh", REG, "a\n" },
				       { NULL, 0, NULL } };
	const struct entry elsewhere[] = { { "link", LNK, "other" }, { "run.sh", REG, "a\n" },
					   { NULL, 0, NULL } };
	const struct entry a_file[] = { { "link", REG, "run.sh" }, { "run.sh", REG, "a\n" },
					{ NULL, 0, NULL } };
	struct kb_locate_opts opts;

	assert_int_equal(apply_to(s, new_link, before), KB_FILE_APPLIES);
	assert_tree(s, false, after);
	assert_int_equal(apply_to(s, new_link, after), KB_FILE_PRESENT);
	assert_tree(s, true, before);
	assert_int_equal(apply_to(s, new_link, elsewhere), KB_FILE_FAILED);
	assert_string_equal(s->apply.files[0].error, "'link' already exists");
	/* a regular file where the patch makes a symlink is not the patch's file */
	kb_locate_opts_init(&opts);
	release(s);
	s->patch = parse_ok(new_link);
	assert_int_equal(kb_patch_reverse(&s->reverse, s->patch), 0);
	s->tree = make_tree(s->f.repo, a_file);
	assert_int_equal(kb_source_new(&s->src, s->f.repo, s->tree), 0);
	assert_int_equal(kb_apply_patch(&s->apply, s->src, s->patch, s->reverse, &opts), KB_EINVALID);
	assert_string_equal(kb_error_last(), "'link' is not a symlink (mode 100644)");
}

static void test_symlink_target_and_deletion(void **st)
{
	struct state *s = *st;
	static const char retarget[] =
		"diff --git a/link b/link\nindex 2793d03..e69de29 120000\n--- a/link\n+++ b/link\n"
		"@@ -1 +1 @@\n-run.sh\n\\ No newline at end of file\n+tool.sh\n"
		"\\ No newline at end of file\n";
	static const char unlink[] =
		"diff --git a/link b/link\ndeleted file mode 120000\nindex 2793d03..0000000\n"
		"--- a/link\n+++ /dev/null\n@@ -1 +0,0 @@\n-run.sh\n\\ No newline at end of file\n";
	const struct entry before[] = { { "link", LNK, "run.sh" }, { NULL, 0, NULL } };
	const struct entry after[] = { { "link", LNK, "tool.sh" }, { NULL, 0, NULL } };
	const struct entry gone[] = { { "t", REG, "t\n" }, { NULL, 0, NULL } };
	const struct entry with_t[] = { { "link", LNK, "run.sh" }, { "t", REG, "t\n" }, { NULL, 0, NULL } };

	assert_int_equal(apply_to(s, retarget, before), KB_FILE_APPLIES);
	assert_tree(s, false, after);
	assert_int_equal(apply_to(s, retarget, after), KB_FILE_PRESENT);
	assert_tree(s, true, before);
	assert_int_equal(apply_to(s, unlink, with_t), KB_FILE_APPLIES);
	assert_tree(s, false, gone);
	assert_int_equal(apply_to(s, unlink, gone), KB_FILE_PRESENT);
	assert_tree(s, true, with_t);
}

static const char delete_exec[] =
	"diff --git a/tool.sh b/tool.sh\ndeleted file mode 100755\nindex 3aa8a2e..0000000\n"
	"--- a/tool.sh\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n";

/* The deletion of an executable: only where it is one. */
static void test_deleted_file_mode_checked(void **st)
{
	struct state *s = *st;
	const struct entry exe[] = { { "t", REG, "t\n" }, { "tool.sh", EXE, "x\ny\n" }, { NULL, 0, NULL } };
	const struct entry reg[] = { { "t", REG, "t\n" }, { "tool.sh", REG, "x\ny\n" }, { NULL, 0, NULL } };
	const struct entry gone[] = { { "t", REG, "t\n" }, { NULL, 0, NULL } };

	assert_int_equal(apply_to(s, delete_exec, exe), KB_FILE_APPLIES);
	assert_tree(s, false, gone);
	assert_int_equal(apply_to(s, delete_exec, gone), KB_FILE_PRESENT);
	assert_tree(s, true, exe);
	assert_int_equal(apply_to(s, delete_exec, reg), KB_FILE_FAILED);
	assert_error(&s->apply, 0, "mode 100644 in the tree, the patch expects 100755");
}

static void test_empty_files(void **st)
{
	struct state *s = *st;
	static const char create[] = "diff --git a/e.sh b/e.sh\nnew file mode 100755\nindex 0000000..e69de29\n";
	static const char delete[] = "diff --git a/e b/e\ndeleted file mode 100644\nindex e69de29..0000000\n";
	const struct entry none[] = { { "t", REG, "t\n" }, { NULL, 0, NULL } };
	const struct entry made[] = { { "e.sh", EXE, "" }, { "t", REG, "t\n" }, { NULL, 0, NULL } };
	const struct entry full[] = { { "e.sh", EXE, "x\n" }, { "t", REG, "t\n" }, { NULL, 0, NULL } };
	const struct entry empty[] = { { "e", REG, "" }, { "t", REG, "t\n" }, { NULL, 0, NULL } };
	const struct entry not_empty[] = { { "e", REG, "x\n" }, { "t", REG, "t\n" }, { NULL, 0, NULL } };

	assert_int_equal(apply_to(s, create, none), KB_FILE_APPLIES);
	assert_tree(s, false, made);
	assert_int_equal(apply_to(s, create, made), KB_FILE_PRESENT);
	assert_tree(s, true, none);
	assert_int_equal(apply_to(s, create, full), KB_FILE_FAILED);
	assert_string_equal(s->apply.files[0].error, "'e.sh' already exists");
	assert_int_equal(apply_to(s, delete, empty), KB_FILE_APPLIES);
	assert_tree(s, false, none);
	assert_int_equal(apply_to(s, delete, none), KB_FILE_PRESENT);
	assert_tree(s, true, empty);
	assert_int_equal(apply_to(s, delete, not_empty), KB_FILE_FAILED);
	assert_string_equal(s->apply.files[0].error, "not empty: the patch deletes an empty file");
}

/* A symlink where the patch edits a regular file stays an error. */
static void test_symlink_where_a_file_is_expected(void **st)
{
	struct state *s = *st;
	const struct entry linked[] = { { "run.sh", LNK, "a\n" }, { NULL, 0, NULL } };
	struct kb_locate_opts opts;

	kb_locate_opts_init(&opts);
	release(s);
	s->patch = parse_ok(mode_only);
	assert_int_equal(kb_patch_reverse(&s->reverse, s->patch), 0);
	s->tree = make_tree(s->f.repo, linked);
	assert_int_equal(kb_source_new(&s->src, s->f.repo, s->tree), 0);
	assert_int_equal(kb_apply_patch(&s->apply, s->src, s->patch, s->reverse, &opts), KB_EINVALID);
	assert_string_equal(kb_error_last(), "'run.sh' is not a regular file (mode 120000)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_modes),
		cmocka_unit_test(test_reverse_swaps_modes),
		cmocka_unit_test(test_plain_diff_has_no_mode),
		cmocka_unit_test(test_mode_rejections),
		cmocka_unit_test_setup_teardown(test_mode_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mode_and_content, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_mode_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_executable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_target_and_deletion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_file_mode_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_where_a_file_is_expected, setup, teardown),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
