/*
 * Build rules for old trees (compat.h): which rules of the repository's
 * data/kernel/compat/rules hold for trees shaped like a 2.6.x era and like
 * 6.1 (chosen by contents alone), what applying them gives, and the rules
 * file's errors with their file:line.
 */
#include "unit.h"
#include "repo_fixture.h"

#include "kbuild/compat.h"
#include "util/error.h"

#define RULES "data/kernel/compat/rules"

/* The rules of RULES, in order. */
static const char *const names[] = {
	"compiler-gcc12", "timeconst-perl", "decompressor-no-sse", "vdso-link-emulation",
	"old-compiler-defaults", "kconfig-tinyconfig", "kconfig-merge-config",
	"kconfig-olddefconfig-short", "kconfig-olddefconfig-long", "module-reloc-plt32",
	"kbuild-cmd-pound",
};
#define NRULES (sizeof(names) / sizeof(names[0]))

/* the files of a v2.6.32 tree the rules look at (excerpts) */
static const char *const old_tree[][2] = {
	{ "Makefile", "KBUILD_CFLAGS   := -Wall -Wundef -fno-strict-aliasing -fno-common\n" },
	{ "include/linux/compiler-gcc.h", "#define gcc_header(x) _gcc_header(x)\n#include gcc_header(__GNUC__)\n" },
	{ "include/linux/compiler-gcc4.h", "/* gcc 4 */\n" },
	{ "kernel/timeconst.pl", "\tif (!defined(@val)) {\n" },
	{ "arch/x86/boot/compressed/Makefile", "KBUILD_CFLAGS := -m$(BITS) -D__KERNEL__ $(LINUX_INCLUDE) -O2\n" },
	{ "arch/x86/vdso/Makefile", "VDSO_LDFLAGS_vdso.lds = -m elf_x86_64 -Wl,-soname=linux-vdso.so.1 \\\n" },
	{ "scripts/kconfig/Makefile", "allnoconfig: $(obj)/conf\n\t$< -n $(Kconfig)\n" },
	{ "scripts/kconfig/conf.c", "\twhile ((opt = getopt(ac, av, \"osdD:nmyrh\")) != -1) {\n" },
	{ "arch/x86/kernel/module.c", "\t\tcase R_X86_64_PC32:\n\t\t\tval -= (u64)loc;\n" },
	{ "scripts/Kbuild.include", "make-cmd = $(subst \\#,\\\\\\#,$(subst $$,$$$$,$(call escsq,$(cmd_$(1)))))\n" },
	{ NULL, NULL },
};

/* the same files as 6.1 has them */
static const char *const new_tree[][2] = {
	{ "Makefile", "KBUILD_CFLAGS += -fno-PIE\n" },
	{ "include/linux/compiler-gcc.h", "#define GCC_VERSION (__GNUC__ * 10000)\n" },
	{ "arch/x86/boot/compressed/Makefile", "KBUILD_CFLAGS := -m$(BITS) -O2\nKBUILD_CFLAGS += -mno-mmx -mno-sse\n" },
	{ "arch/x86/entry/vdso/Makefile", "VDSO_LDFLAGS_vdso.lds = -m elf_x86_64 -soname linux-vdso.so.1\n" },
	{ "scripts/kconfig/Makefile", "tinyconfig:\nolddefconfig:\nallnoconfig:\n" },
	{ "scripts/kconfig/merge_config.sh", "#!/bin/sh\n" },
	{ "scripts/kconfig/conf.c", "\t{\"defconfig\",     required_argument, NULL, defconfig},\n" },
	{ "arch/x86/kernel/module.c", "\t\tcase R_X86_64_PC32:\n\t\tcase R_X86_64_PLT32:\n" },
	{ "scripts/Kbuild.include", "pound := \\#\nmake-cmd = $(call escsq,$(subst $(pound),$$(pound),$(subst $$,$$$$,$(cmd_$(1)))))\n" },
	{ NULL, NULL },
};

struct fixture {
	struct repo_fixture repo;
	struct kb_compat *rules;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	repo_fixture_init(&f->repo);
	assert_int_equal(kb_compat_load(&f->rules, RULES), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kb_compat_free(f->rules);
	repo_fixture_release(&f->repo);
	free(f);
	return 0;
}

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

/* The names of the rules that hold for `tree`, blank-separated. */
static char *selected(struct fixture *f, const git_oid *tree)
{
	struct kb_buf out = KB_BUF_INIT;
	bool holds[NRULES];
	size_t i;

	assert_int_equal(kb_compat_select(holds, f->repo.repo, tree, f->rules), 0);
	for (i = 0; i < NRULES; i++)
		if (holds[i])
			kb_buf_printf(&out, "%s%s", out.size ? " " : "", names[i]);
	return kb_buf_detach(&out);
}

static char *file_of(git_repository *repo, const git_oid *tree_id, const char *path,
		     git_filemode_t *mode)
{
	git_tree *tree;
	git_tree_entry *e;
	git_blob *blob;
	char *text;

	assert_int_equal(git_tree_lookup(&tree, repo, tree_id), 0);
	assert_int_equal(git_tree_entry_bypath(&e, tree, path), 0);
	assert_int_equal(git_blob_lookup(&blob, repo, git_tree_entry_id(e)), 0);
	text = kb_strndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	if (mode)
		*mode = git_tree_entry_filemode(e);
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return text;
}

static void test_the_rules_file(void **state)
{
	struct fixture *f = *state;
	size_t i;

	assert_int_equal(f->rules->n, NRULES);
	for (i = 0; i < NRULES; i++)
		assert_string_equal(f->rules->rules[i].name, names[i]);
}

static void test_old_tree_selects_by_contents(void **state)
{
	struct fixture *f = *state;
	git_oid tree;
	char *got;

	make_tree(&tree, f->repo.repo, old_tree);
	got = selected(f, &tree);
	assert_string_equal(got, "compiler-gcc12 timeconst-perl decompressor-no-sse "
			    "vdso-link-emulation old-compiler-defaults kconfig-tinyconfig "
			    "kconfig-merge-config kconfig-olddefconfig-short module-reloc-plt32 "
			    "kbuild-cmd-pound");
	free(got);
}

static void test_new_tree_selects_nothing(void **state)
{
	struct fixture *f = *state;
	git_oid tree;
	char *got;

	make_tree(&tree, f->repo.repo, new_tree);
	got = selected(f, &tree);
	assert_string_equal(got, "");
	free(got);
}

/* 2.6.36's conf takes --defconfig=FILE: the long-option rule instead */
static void test_long_option_conf(void **state)
{
	struct fixture *f = *state;
	const char *const tree_files[][2] = {
		{ "scripts/kconfig/Makefile", "allnoconfig: $(obj)/conf\n" },
		{ "scripts/kconfig/conf.c", "\t{\"defconfig\",       optional_argument, NULL, defconfig},\n" },
		{ NULL, NULL },
	};
	git_oid tree;
	char *got;

	make_tree(&tree, f->repo.repo, tree_files);
	got = selected(f, &tree);
	assert_string_equal(got, "kconfig-tinyconfig kconfig-merge-config kconfig-olddefconfig-long");
	free(got);
}

static void test_apply(void **state)
{
	struct fixture *f = *state;
	struct kb_compat_result r;
	git_filemode_t mode;
	git_oid tree;
	char *text;

	make_tree(&tree, f->repo.repo, old_tree);
	assert_int_equal(kb_compat_apply(&r, f->repo.repo, &tree, f->rules), 0);
	assert_false(git_oid_equal(&r.tree, &tree));
	assert_string_equal(r.cc_flags, "-fno-pie -no-pie -fcommon -fgnu89-inline");
	assert_non_null(strstr(r.log, "compat rule 'timeconst-perl' (" RULES ":19): replace kernel/timeconst.pl\n"));
	assert_string_equal(text = file_of(f->repo.repo, &r.tree, "include/linux/compiler-gcc12.h", NULL),
			    "/* gcc 4 */\n");
	free(text);
	assert_string_equal(text = file_of(f->repo.repo, &r.tree, "kernel/timeconst.pl", NULL),
			    "\tif (!@val) {\n");
	free(text);
	assert_string_equal(text = file_of(f->repo.repo, &r.tree, "arch/x86/boot/compressed/Makefile", NULL),
			    "KBUILD_CFLAGS := -m$(BITS) -D__KERNEL__ $(LINUX_INCLUDE) -O2\n"
			    "KBUILD_CFLAGS += -mno-mmx -mno-sse -mno-sse2\n");
	free(text);
	assert_string_equal(text = file_of(f->repo.repo, &r.tree, "scripts/kconfig/Makefile", NULL),
			    "allnoconfig: $(obj)/conf\n\t$< -n $(Kconfig)\n"
			    "\n# kbackport: tinyconfig before Linux 3.17\nPHONY += tinyconfig\ntinyconfig: allnoconfig\n"
			    "\n# kbackport: olddefconfig before Linux 3.7\nPHONY += olddefconfig\n"
			    "olddefconfig: $(obj)/conf\n\t$< -D .config $(Kconfig)\n");
	free(text);
	assert_string_equal(text = file_of(f->repo.repo, &r.tree, "arch/x86/kernel/module.c", NULL),
			    "\t\tcase R_X86_64_PC32:\n\t\tcase R_X86_64_PLT32:\n\t\t\tval -= (u64)loc;\n");
	free(text);
	assert_string_equal(text = file_of(f->repo.repo, &r.tree, "scripts/Kbuild.include", NULL),
			    "make-cmd = $(subst $(pound),$$(pound),$(subst $$,$$$$,$(call escsq,$(cmd_$(1)))))\n"
			    "\n# kbackport: the # of a command, for make 4.3 as later kernels have it\n"
			    "pound := \\#\n");
	free(text);
	text = file_of(f->repo.repo, &r.tree, "scripts/kconfig/merge_config.sh", &mode);
	assert_int_equal(mode, GIT_FILEMODE_BLOB_EXECUTABLE);
	assert_non_null(strstr(text, "merge_config.sh - Takes a list of config fragment values"));
	free(text);
	/* applied once: only the flags still hold, the tree needs nothing more */
	text = selected(f, &r.tree);
	assert_string_equal(text, "old-compiler-defaults");
	free(text);
	kb_compat_result_release(&r);
}

static void test_new_tree_unchanged(void **state)
{
	struct fixture *f = *state;
	struct kb_compat_result r;
	git_oid tree;

	make_tree(&tree, f->repo.repo, new_tree);
	assert_int_equal(kb_compat_apply(&r, f->repo.repo, &tree, f->rules), 0);
	assert_true(git_oid_equal(&r.tree, &tree));
	assert_null(r.cc_flags);
	assert_null(r.log);
	kb_compat_result_release(&r);
}

/* rules: `text` written to <repo dir>/rules, loaded; its error message */
static const char *load_error(struct fixture *f, const char *text)
{
	static char message[512];
	struct kb_compat *c = NULL;
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/rules", f->repo.dir);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(kb_compat_load(&c, path), KB_EINVALID);
	assert_null(c);
	snprintf(message, sizeof(message), "%s", kb_error_last() + strlen(f->repo.dir) + 1);
	return message;
}

static void test_bad_rules(void **state)
{
	struct fixture *f = *state;

	assert_string_equal(load_error(f, "rule a\n\texists x\n\tfrobnicate x\n"),
			    "rules:3: unknown word 'frobnicate'");
	assert_string_equal(load_error(f, "exists x\n"), "rules:1: 'exists' before any rule");
	assert_string_equal(load_error(f, "rule a\n\treplace x \"y\"\n"),
			    "rules:2: 'replace' takes 3 arguments, not 2");
	assert_string_equal(load_error(f, "# c\nrule a\n\tcontains x \"y\n"),
			    "rules:3: a quote is not closed");
	assert_string_equal(load_error(f, "rule a\n\texists x\n\tcc-flags -y\n\nrule b\n\tcc-flags -x\n"),
			    "rules:5: rule 'b' needs a condition and an action");
	assert_string_equal(load_error(f, "rule\n"), "rules:1: 'rule' takes a name");
}

static void test_failed_action(void **state)
{
	struct fixture *f = *state;
	const char *const tree_files[][2] = { { "Makefile", "all:\n" }, { NULL, NULL } };
	struct kb_compat_result r;
	struct kb_compat *c;
	char path[128];
	git_oid tree;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/rules", f->repo.dir);
	assert_non_null(fp = fopen(path, "w"));
	fputs("rule fix-all\n\texists Makefile\n\treplace Makefile \"none:\" \"x:\"\n", fp);
	fclose(fp);
	assert_int_equal(kb_compat_load(&c, path), 0);
	make_tree(&tree, f->repo.repo, tree_files);
	assert_int_equal(kb_compat_apply(&r, f->repo.repo, &tree, c), KB_ENOTFOUND);
	assert_non_null(strstr(kb_error_last(), "/rules:1): line 3: 'Makefile' has no 'none:'"));
	assert_non_null(strstr(kb_error_last(), "build rule 'fix-all' ("));
	kb_compat_result_release(&r);
	kb_compat_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_the_rules_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_tree_selects_by_contents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_tree_selects_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_option_conf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_tree_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_action, setup, teardown),
	};
	int rc;

	git_libgit2_init();
	rc = sandbox_run_group_tests_name("compat", tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
