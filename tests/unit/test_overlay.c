/*
 * The overlay: a directory added to a tree in memory, its objects written to
 * a store of their own. The repository's object directory must not gain a
 * file, and a later handle (a later run) must find the overlaid tree again.
 */
#include "unit.h"
#include "repo_fixture.h"

#include "util/error.h"
#include "kbuild/overlay.h"

struct fixture {
	struct repo_fixture repo;
	char odb[128];		/* the separate object store */
	char overlay[128];	/* the overlay directory */
	git_repository *own;	/* writes into odb */
};

static int counted;

static int count_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path; (void)st; (void)ftw;
	counted += flag == FTW_F;
	return 0;
}

/* Files under `dir`: loose objects, packs, their indexes. */
static int count_files(const char *dir)
{
	counted = 0;
	nftw(dir, count_entry, 16, FTW_PHYS);
	return counted;
}

static void write_mode_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* A tree of { path, content } pairs, written to the repository itself. */
static void make_tree(git_oid *out, git_repository *repo, const char *const (*files)[2])
{
	git_index *index;
	git_index_entry e;

	assert_int_equal(git_index_new(&index), 0);
	for (; (*files)[0]; files++) {
		memset(&e, 0, sizeof(e));
		e.path = (*files)[0];
		e.mode = GIT_FILEMODE_BLOB;
		assert_int_equal(git_blob_create_from_buffer(&e.id, repo, (*files)[1],
							     strlen((*files)[1])), 0);
		assert_int_equal(git_index_add(index, &e), 0);
	}
	assert_int_equal(git_index_write_tree_to(out, index, repo), 0);
	git_index_free(index);
}

static const char *const kernel[][2] = {
	{ "Makefile", "obj-y += net/\n" },
	{ "net/Makefile", "obj-$(CONFIG_NET) += core/\n" },
	{ "net/core/dev_ioctl.c", "void dev_load(void) {}\n" },
	{ NULL, NULL },
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	repo_fixture_init(&f->repo);
	snprintf(f->odb, sizeof(f->odb), "%s/odb", f->repo.dir);
	snprintf(f->overlay, sizeof(f->overlay), "%s/kunit", f->repo.dir);
	assert_int_equal(mkdir(f->odb, 0755), 0);
	assert_int_equal(mkdir(f->overlay, 0755), 0);
	write_mode_file(f->overlay, "Kbuild", "obj-y += t_kunit.o\n", 0644);
	write_mode_file(f->overlay, "t_kunit.c", "/* a suite */\n", 0644);
	write_mode_file(f->overlay, ".t_kunit.c.swp", "editor junk", 0644);
	assert_int_equal(kb_overlay_repo_open(&f->own, f->repo.repo, f->odb), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	git_repository_free(f->own);
	repo_fixture_release(&f->repo);
	free(f);
	return 0;
}

/* The content of `path` in tree `id`, read through `repo`; NULL if absent. */
static char *file_at(git_repository *repo, const git_oid *id, const char *path,
		     git_filemode_t *mode)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	char *text = NULL;

	assert_int_equal(git_tree_lookup(&tree, repo, id), 0);
	if (git_tree_entry_bypath(&e, tree, path) == 0 &&
	    git_blob_lookup(&blob, repo, git_tree_entry_id(e)) == 0) {
		text = strndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
		if (mode)
			*mode = git_tree_entry_filemode(e);
	}
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return text;
}

static void assert_file(git_repository *repo, const git_oid *id, const char *path,
			const char *want)
{
	char *text = file_at(repo, id, path, NULL);

	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
}

/* The fixture's suite as the one overlay, named "fix_a". */
static int overlay_one(git_oid *out, struct fixture *f, const git_oid *base, const char *dir)
{
	const struct kb_overlay_dir one = { "fix_a", dir };

	return kb_overlay_tree(out, f->own, base, &one, 1);
}

static void test_overlay_added(void **state)
{
	struct fixture *f = *state;
	git_oid base, built, again;
	git_filemode_t mode;
	char *text;

	make_tree(&base, f->repo.repo, kernel);
	assert_int_equal(overlay_one(&built, f, &base, f->overlay), 0);
	assert_false(git_oid_equal(&base, &built));
	assert_file(f->own, &built, "net/kbackport_kunit/Kbuild",
		    "# SPDX-License-Identifier: GPL-2.0\n"
		    "# kbackport: the KUnit suites of the fixes under test\nobj-y += fix_a/\n");
	assert_file(f->own, &built, "net/kbackport_kunit/fix_a/Kbuild", "obj-y += t_kunit.o\n");
	assert_file(f->own, &built, "net/kbackport_kunit/fix_a/t_kunit.c", "/* a suite */\n");
	assert_file(f->own, &built, "net/Makefile",
		    "obj-$(CONFIG_NET) += core/\nobj-$(CONFIG_KUNIT)\t\t+= kbackport_kunit/\n");
	assert_file(f->own, &built, "net/core/dev_ioctl.c", "void dev_load(void) {}\n");
	assert_file(f->own, &built, "Makefile", "obj-y += net/\n");
	text = file_at(f->own, &built, "net/kbackport_kunit/fix_a/t_kunit.c", &mode);
	assert_int_equal(mode, GIT_FILEMODE_BLOB);
	free(text);
	assert_null(file_at(f->own, &built, "net/kbackport_kunit/fix_a/.t_kunit.c.swp", NULL));

	/* the same inputs, the same tree */
	assert_int_equal(overlay_one(&again, f, &base, f->overlay), 0);
	assert_true(git_oid_equal(&built, &again));
}

static void test_nothing_written_to_repository(void **state)
{
	struct fixture *f = *state;
	char objects[128];
	git_repository *later = NULL;
	git_tree *tree = NULL;
	git_oid base, built;
	int before;

	make_tree(&base, f->repo.repo, kernel);
	snprintf(objects, sizeof(objects), "%s/objects", f->repo.dir);
	before = count_files(objects);
	assert_int_equal(count_files(f->odb), 0);

	assert_int_equal(overlay_one(&built, f, &base, f->overlay), 0);
	assert_int_equal(count_files(objects), before);
	/* two files, two Kbuild files, net/Makefile, and the trees fix_a,
	 * kbackport_kunit, net and / */
	assert_int_equal(count_files(f->odb), 8);

	/* the repository's own handles do not see the overlaid tree... */
	assert_int_equal(git_tree_lookup(&tree, f->repo.repo, &built), GIT_ENOTFOUND);
	/* ...a later run's handle does, and it still reads the repository */
	assert_int_equal(kb_overlay_repo_open(&later, f->repo.repo, f->odb), 0);
	assert_int_equal(git_tree_lookup(&tree, later, &built), 0);
	git_tree_free(tree);
	assert_int_equal(git_tree_lookup(&tree, later, &base), 0);
	git_tree_free(tree);
	git_repository_free(later);
	assert_int_equal(count_files(objects), before);
}

static void test_makefile_without_final_newline(void **state)
{
	struct fixture *f = *state;
	const char *const files[][2] = {
		{ "net/Makefile", "obj-y += core/" },
		{ NULL, NULL },
	};
	git_filemode_t mode = 0;
	git_oid base, built;

	make_tree(&base, f->repo.repo, files);
	write_mode_file(f->overlay, "run.sh", "#!/bin/sh\n", 0755);
	assert_int_equal(overlay_one(&built, f, &base, f->overlay), 0);
	assert_file(f->own, &built, "net/Makefile",
		    "obj-y += core/\nobj-$(CONFIG_KUNIT)\t\t+= kbackport_kunit/\n");
	free(file_at(f->own, &built, "net/kbackport_kunit/fix_a/run.sh", &mode));
	assert_int_equal(mode, GIT_FILEMODE_BLOB_EXECUTABLE);
}

static void test_tree_without_net_makefile(void **state)
{
	struct fixture *f = *state;
	const char *const files[][2] = {
		{ "net/core/dev.c", "int x;\n" },
		{ NULL, NULL },
	};
	git_oid base, built;

	make_tree(&base, f->repo.repo, files);
	assert_int_equal(overlay_one(&built, f, &base, f->overlay), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "has no 'net/Makefile'"));
}

static void test_tree_with_the_overlay_already(void **state)
{
	struct fixture *f = *state;
	const char *const files[][2] = {
		{ "net/Makefile", "obj-y += kbackport_kunit/\n" },
		{ "net/kbackport_kunit/old.c", "int old;\n" },
		{ NULL, NULL },
	};
	git_oid base, built;

	make_tree(&base, f->repo.repo, files);
	assert_int_equal(overlay_one(&built, f, &base, f->overlay), KB_EEXISTS);
	assert_non_null(strstr(kb_error_last(), "already has 'net/kbackport_kunit'"));
}

static void test_bad_overlay_directories(void **state)
{
	struct fixture *f = *state;
	char dir[160];
	git_oid base, built;

	make_tree(&base, f->repo.repo, kernel);
	snprintf(dir, sizeof(dir), "%s/missing", f->repo.dir);
	assert_int_equal(overlay_one(&built, f, &base, dir), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "cannot read overlay directory"));

	snprintf(dir, sizeof(dir), "%s/empty", f->repo.dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(overlay_one(&built, f, &base, dir), KB_EINVALID);
	assert_non_null(strstr(kb_error_last(), "has no file"));

	snprintf(dir, sizeof(dir), "%s/sub", f->overlay);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(overlay_one(&built, f, &base, f->overlay), KB_EINVALID);
	assert_non_null(strstr(kb_error_last(), "'sub' is not a regular file"));
}

/* Several fixes' suites: each in its own directory, one Kbuild naming them. */
static void test_several_suites(void **state)
{
	struct fixture *f = *state;
	char second[160];
	struct kb_overlay_dir dirs[2] = { { "CVE_2011_1019", f->overlay }, { "other", second } };
	git_oid base, built;

	make_tree(&base, f->repo.repo, kernel);
	snprintf(second, sizeof(second), "%s/second", f->repo.dir);
	assert_int_equal(mkdir(second, 0755), 0);
	write_mode_file(second, "Kbuild", "obj-y += other.o\n", 0644);
	write_mode_file(second, "other.c", "int other;\n", 0644);
	assert_int_equal(kb_overlay_tree(&built, f->own, &base, dirs, 2), 0);
	assert_file(f->own, &built, "net/kbackport_kunit/Kbuild",
		    "# SPDX-License-Identifier: GPL-2.0\n"
		    "# kbackport: the KUnit suites of the fixes under test\n"
		    "obj-y += CVE_2011_1019/\nobj-y += other/\n");
	assert_file(f->own, &built, "net/kbackport_kunit/CVE_2011_1019/t_kunit.c", "/* a suite */\n");
	assert_file(f->own, &built, "net/kbackport_kunit/other/other.c", "int other;\n");
	/* a name that is no make target, or two suites of one name */
	dirs[1].name = "no-dash";
	assert_int_equal(kb_overlay_tree(&built, f->own, &base, dirs, 2), KB_EINVALID);
	assert_string_equal(kb_error_last(),
			    "overlay name 'no-dash': letters, digits and '_' only");
	dirs[1].name = "CVE_2011_1019";
	assert_int_equal(kb_overlay_tree(&built, f->own, &base, dirs, 2), KB_EINVALID);
	assert_non_null(strstr(kb_error_last(), "have one name 'CVE_2011_1019'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_overlay_added, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_written_to_repository, setup, teardown),
		cmocka_unit_test_setup_teardown(test_makefile_without_final_newline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tree_without_net_makefile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tree_with_the_overlay_already, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_overlay_directories, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several_suites, setup, teardown),
	};
	int rc;

	git_libgit2_init();
	rc = sandbox_run_group_tests_name("overlay", tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
