/*
 * kb_backport() of one fix to one branch of a real repository made with
 * libgit2 in the sandbox: a bare repository with the branch's commit, a
 * branches.yaml and a fix directory (backports/<id>/) written beside it.
 * Exact statuses, refs, commits, blob contents and messages are checked.
 */
#include "unit.h"
#include "repo_fixture.h"
#include "dev_load_fixture.h"

#include "apply/backport.h"
#include "config.h"
#include "util/error.h"
#include "fix.h"
#include "lanes.h"
#include "apply/reproduce.h"

#define FIX_ID "CVE-2011-1019"
#define BACKPORT_REF "refs/heads/backport/" FIX_ID "/stable"
#define SUBJECT_TEXT "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules"

static const char upstream_patch[] =
	"From 8909c9ad8ff03611c9c96c9a92656213e4bb495b Mon Sep 17 00:00:00 2001\n"
	"From: Vasiliy Kulikov <segoon@openwall.com>\n"
	"Date: Wed, 2 Mar 2011 00:33:13 +0300\n"
	"Subject: [PATCH] " SUBJECT_TEXT "\n"
	"\n"
	"Only CAP_SYS_MODULE may load any module.\n"
	"---\n"
	DEV_LOAD_DIFF;

static const char fix_yaml[] =
	"id: " FIX_ID "\n"
	"subject: \"" SUBJECT_TEXT "\"\n"
	"upstream: 8909c9ad8ff03611c9c96c9a92656213e4bb495b\n"
	"patch: upstream.patch\n"
	"vulnerable:\n"
	"  - paths: [net/core/dev.c]\n"
	"    code: |\n"
	"      if (!dev && capable(CAP_NET_ADMIN))\n"
	"              request_module(\"%s\", name);\n"
	"variants:\n"
	"  - name: upstream\n"
	"    patch: upstream.patch\n"
	"    why: as upstream\n";

struct state {
	struct repo_fixture f;		/* the branch's bare repository */
	struct sandbox sb;		/* branches.yaml and backports/ */
	struct kb_config *config;
	struct kb_fix *fix;
	struct kb_backport_opts opts;
	struct kb_result res;
	git_oid tip;			/* refs/heads/stable */
};

static int setup(void **st)
{
	struct state *s = calloc(1, sizeof(*s));
	char *yaml;

	assert_non_null(s);
	git_libgit2_init();
	repo_fixture_init(&s->f);
	assert_int_equal(sandbox_init(&s->sb), 0);
	write_file(&s->sb, "backports/" FIX_ID "/fix.yaml", fix_yaml);
	write_file(&s->sb, "backports/" FIX_ID "/upstream.patch", upstream_patch);
	if (kb_fix_load(&s->fix, sb_path(&s->sb, "backports/" FIX_ID)) < 0)
		fail_msg("%s", kb_error_last());
	assert_true(asprintf(&yaml, "repo: %s\nbranches:\n  - name: stable\n    ref: stable\n",
			     s->f.dir) > 0);
	if (kb_config_parse(&s->config, yaml, strlen(yaml), sb_path(&s->sb, "branches.yaml")) < 0)
		fail_msg("%s", kb_error_last());
	free(yaml);
	kb_backport_opts_init(&s->opts);
	*st = s;
	return 0;
}

static int teardown(void **st)
{
	struct state *s = *st;

	kb_result_release(&s->res);
	kb_config_free(s->config);
	kb_fix_free(s->fix);
	sandbox_release(&s->sb);
	repo_fixture_release(&s->f);
	free(s);
	git_libgit2_shutdown();
	return 0;
}

/* refs/heads/stable: one commit whose tree holds `dev_c` as net/core/dev.c. */
static void make_branch(struct state *s, const char *dev_c)
{
	git_signature *sig;
	git_index *index;
	git_index_entry e;
	git_tree *tree;
	git_oid id;

	assert_int_equal(git_index_new(&index), 0);
	memset(&e, 0, sizeof(e));
	e.mode = GIT_FILEMODE_BLOB;
	e.path = DEV_C;
	assert_int_equal(git_blob_create_from_buffer(&e.id, s->f.repo, dev_c, strlen(dev_c)), 0);
	assert_int_equal(git_index_add(index, &e), 0);
	assert_int_equal(git_index_write_tree_to(&id, index, s->f.repo), 0);
	git_index_free(index);
	assert_int_equal(git_tree_lookup(&tree, s->f.repo, &id), 0);
	assert_int_equal(git_signature_new(&sig, "Stable Maintainer", "stable@example.org",
					   1700000000, 0), 0);
	assert_int_equal(git_commit_create(&s->tip, s->f.repo, "refs/heads/stable", sig, sig,
					   NULL, "stable 1\n", tree, 0, NULL), 0);
	git_signature_free(sig);
	git_tree_free(tree);
}

static void backport(struct state *s)
{
	kb_result_release(&s->res);
	memset(&s->res, 0, sizeof(s->res));
	assert_int_equal(kb_backport(&s->res, &s->config->branches[0], s->fix, &s->opts), 0);
	assert_string_equal(s->res.fix, FIX_ID);
	assert_string_equal(s->res.branch, "stable");
	assert_string_equal(s->res.repo, s->f.dir);
	assert_false(s->res.forced);
	if (!s->config->branches[0].pre_fix)
		assert_null(s->res.pre_fix_ref);
}

static bool has_ref(struct state *s, const char *name)
{
	git_reference *ref = NULL;
	int err = git_reference_lookup(&ref, s->f.repo, name);

	git_reference_free(ref);
	assert_true(err == 0 || err == GIT_ENOTFOUND);
	return err == 0;
}

static void tip_hex(struct state *s, char hex[GIT_OID_HEXSZ + 1])
{
	git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &s->tip);
}

/* The backport commit: on the tip, with the fixed file and the fix's subject. */
static void assert_backport_commit(struct state *s)
{
	git_reference *ref;
	git_commit *commit;
	git_tree *tree;
	git_tree_entry *entry;
	git_blob *blob;

	assert_int_equal(git_reference_lookup(&ref, s->f.repo, BACKPORT_REF), 0);
	assert_string_equal(git_oid_tostr_s(git_reference_target(ref)), s->res.commit);
	assert_int_equal(git_commit_lookup(&commit, s->f.repo, git_reference_target(ref)), 0);
	assert_int_equal(git_commit_parentcount(commit), 1);
	assert_true(git_oid_equal(git_commit_parent_id(commit, 0), &s->tip));
	assert_string_equal(git_commit_summary(commit), SUBJECT_TEXT);
	assert_string_equal(git_commit_author(commit)->name, "Vasiliy Kulikov");
	assert_string_equal(git_commit_author(commit)->email, "segoon@openwall.com");
	assert_int_equal(git_commit_tree(&tree, commit), 0);
	assert_int_equal(git_tree_entry_bypath(&entry, tree, DEV_C), 0);
	assert_int_equal(git_blob_lookup(&blob, s->f.repo, git_tree_entry_id(entry)), 0);
	assert_int_equal(git_blob_rawsize(blob), strlen(fixed));
	assert_memory_equal(git_blob_rawcontent(blob), fixed, strlen(fixed));
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	git_reference_free(ref);
}

static void test_applied(void **st)
{
	struct state *s = *st;
	char tip[GIT_OID_HEXSZ + 1], first[GIT_OID_HEXSZ + 1];

	make_branch(s, original);
	tip_hex(s, tip);
	backport(s);
	assert_string_equal(kb_status_name(s->res.status), "applied");
	assert_int_equal(s->res.status, KB_STATUS_APPLIED);
	assert_string_equal(s->res.variant, "upstream");
	assert_string_equal(s->res.ref, BACKPORT_REF);
	assert_string_equal(s->res.base, tip);
	assert_int_equal(strlen(s->res.commit), GIT_OID_HEXSZ);
	assert_true(s->res.created);
	assert_string_equal(s->res.detail, "applied variant 'upstream'");
	assert_string_equal(s->res.notes, "");
	assert_null(s->res.reproduce);
	assert_int_equal(s->res.nhunks, 1);
	assert_string_equal(s->res.hunks[0].path, DEV_C);
	assert_int_equal(s->res.hunks[0].hunk, 1);
	assert_string_equal(s->res.hunks[0].variant, "upstream");
	assert_string_equal(s->res.hunks[0].status, "applied");
	assert_int_equal(s->res.hunks[0].line, 6);
	assert_int_equal(s->res.hunks[0].offset, 0);
	assert_int_equal(s->res.hunks[0].fuzz, 0);
	assert_null(s->res.hunks[0].anchor);
	assert_backport_commit(s);

	/* again: the same commit, not written anew */
	strcpy(first, s->res.commit);
	backport(s);
	assert_int_equal(s->res.status, KB_STATUS_APPLIED);
	assert_string_equal(s->res.commit, first);
	assert_false(s->res.created);
	assert_string_equal(s->res.detail, "unchanged, already backported with variant 'upstream'");
	assert_backport_commit(s);
}

static void test_dry_run_writes_nothing(void **st)
{
	struct state *s = *st;

	make_branch(s, original);
	s->opts.dry_run = true;
	backport(s);
	assert_int_equal(s->res.status, KB_STATUS_APPLIED);
	assert_string_equal(s->res.variant, "upstream");
	assert_string_equal(s->res.ref, BACKPORT_REF);
	assert_string_equal(s->res.commit, "");
	assert_false(s->res.created);
	assert_string_equal(s->res.detail, "would apply variant 'upstream'");
	assert_false(has_ref(s, BACKPORT_REF));
}

static void test_already_applied(void **st)
{
	struct state *s = *st;

	make_branch(s, fixed);
	backport(s);
	assert_string_equal(kb_status_name(s->res.status), "already-applied");
	assert_int_equal(s->res.status, KB_STATUS_ALREADY_APPLIED);
	assert_string_equal(s->res.variant, "upstream");
	assert_null(s->res.ref);
	assert_string_equal(s->res.commit, "");
	assert_false(s->res.created);
	assert_string_equal(s->res.detail, "the changes of variant 'upstream' are already in 'stable'");
	assert_string_equal(s->res.notes, "hunk 1 of 'net/core/dev.c' is already in, at line 6\n");
	assert_int_equal(s->res.nhunks, 1);
	assert_string_equal(s->res.hunks[0].status, "in");
	assert_false(has_ref(s, BACKPORT_REF));
}

static void test_not_affected(void **st)
{
	struct state *s = *st;

	make_branch(s, "void dev_load(struct net *net, const char *name)\n{\n}\n");
	backport(s);
	assert_string_equal(kb_status_name(s->res.status), "not-affected");
	assert_int_equal(s->res.status, KB_STATUS_NOT_AFFECTED);
	assert_null(s->res.ref);
	assert_string_equal(s->res.commit, "");
	assert_string_equal(s->res.detail, "the vulnerable code is not in 'stable'");
	assert_false(has_ref(s, BACKPORT_REF));
}

/* The context differs and fuzz is off: a conflict that says why. */
/* `res`'s commands to do it by hand, exactly: `first` lines, then from `start`. */
static void expect_reproduce(struct state *s, const struct kb_result *res, const char *first,
			     const char *start)
{
	char *repo = realpath(s->f.dir, NULL), *patch = NULL, *got = NULL, *want = NULL;

	assert_non_null(repo);
	assert_non_null(patch = realpath(sb_path(&s->sb, "backports/" FIX_ID "/upstream.patch"), NULL));
	assert_true(asprintf(&want,
		"%s"
		"git -C %s worktree add %s-" FIX_ID "-stable -b backport/" FIX_ID "/stable %s\n"
		"git -C %s-" FIX_ID "-stable am -3 %s\n"
		"# resolve the conflicts (see the failed hunks), then: git -C %s-" FIX_ID "-stable add <files>\n"
		"# build and test the kernel\n"
		"git -C %s-" FIX_ID "-stable am --continue\n",
		first, repo, repo, start, repo, patch, repo, repo) > 0);
	assert_int_equal(kb_reproduce(&got, &s->config->branches[0], s->fix, res, NULL), 0);
	assert_string_equal(res == &s->res ? res->reproduce : got, want);
	free(got);
	free(want);
	free(patch);
	free(repo);
}

static void test_context_mismatch_conflicts(void **st)
{
	struct state *s = *st;
	static const char moved_on[] =
		"#include <linux/kmod.h>\n"
		"\n"
		"void dev_load(struct net *net, const char *name)\n"
		"{\n"
		"\tstruct net_device *dev;\n"
		"\n"
		"\tdev = __dev_get_by_name(net, name);\n"
		"\tif (!dev && capable(CAP_NET_ADMIN))\n"
		"\t\trequest_module(\"%s\", name);\n"
		"}\n";

	make_branch(s, moved_on);
	s->opts.locate.max_fuzz = 0;
	backport(s);
	assert_string_equal(kb_status_name(s->res.status), "conflict");
	assert_int_equal(s->res.status, KB_STATUS_CONFLICT);
	assert_null(s->res.ref);
	assert_string_equal(s->res.commit, "");
	assert_string_equal(s->res.detail, "variant 'upstream' does not apply: hunk 1 of 'net/core/dev.c' does not apply");
	assert_string_equal(s->res.notes, "hunk 1 of 'net/core/dev.c' does not apply\n");
	expect_reproduce(s, &s->res, "", "stable");
	assert_false(has_ref(s, BACKPORT_REF));
}

/* On a pre-fix lane the work tree starts on the pre-fix commit; a dry run wrote none. */
static void test_reproduce_from_the_pre_fix_commit(void **st)
{
	struct state *s = *st;
	struct kb_result r = { 0 };

	r.variant = "upstream";
	r.pre_fix_ref = BACKPORT_REF ".pre-fix";
	snprintf(r.pre_fix_commit, sizeof(r.pre_fix_commit), "%040d", 1);
	expect_reproduce(s, &r, "", BACKPORT_REF ".pre-fix");
	r.pre_fix_commit[0] = '\0';
	expect_reproduce(s, &r, "# a dry run wrote no pre-fix commit: run kbackport apply without "
			 "--dry-run first\n", BACKPORT_REF ".pre-fix");
}

static void test_missing_ref_is_an_error(void **st)
{
	struct state *s = *st;
	char want[1024];

	backport(s);
	assert_string_equal(kb_status_name(s->res.status), "error");
	assert_int_equal(s->res.status, KB_STATUS_ERROR);
	assert_null(s->res.ref);
	assert_string_equal(s->res.base, "");
	snprintf(want, sizeof(want),
		 "branch 'stable': ref 'stable' not found in '%s': revspec 'stable' not found", s->f.dir);
	assert_string_equal(s->res.detail, want);
	assert_false(has_ref(s, BACKPORT_REF));
}

/*
 * The lanes' kinds and refs, "kind ref" per lane, one line each; then
 * "passed over: why" when a ref was not taken as a lane.
 */
static char *lanes_of(struct state *s)
{
	struct kb_buf out = KB_BUF_INIT;
	struct kb_lane *lanes;
	char *passed_over;
	size_t n, i;

	if (kb_branch_lanes(&lanes, &n, &passed_over, s->f.repo, &s->config->branches[0],
			    FIX_ID) < 0)
		fail_msg("%s", kb_error_last());
	for (i = 0; i < n; i++)
		kb_buf_printf(&out, "%s %s\n", kb_lane_kind_name(lanes[i].kind), lanes[i].ref);
	if (passed_over)
		kb_buf_printf(&out, "passed over: %s\n", passed_over);
	free(passed_over);
	kb_lanes_free(lanes, n);
	return out.ptr ? kb_buf_detach(&out) : strdup("");
}

/*
 * A `pre-fix: true` branch without the fix (the next fix on a branch that
 * carried the last one): nothing to reverse, so no pre-fix commit; the fix
 * goes onto the branch itself, a note says why, and the lanes are as-is
 * and backport. A pre-fix ref that does not sit on the branch (left by an
 * earlier run) is no lane.
 */
static void test_pre_fix_without_the_fix(void **st)
{
	struct state *s = *st;
	char tip[GIT_OID_HEXSZ + 1], want[512], *lanes;
	git_reference *ref = NULL;
	git_oid onto;

	s->config->branches[0].pre_fix = true;
	make_branch(s, original);
	tip_hex(s, tip);
	backport(s);
	assert_int_equal(s->res.status, KB_STATUS_APPLIED);
	assert_string_equal(s->res.base, tip);
	assert_null(s->res.pre_fix_ref);
	assert_null(s->res.pre_fix_variant);
	assert_string_equal(s->res.pre_fix_commit, "");
	assert_string_equal(s->res.notes, "pre-fix: the fix is not in 'stable': the branch "
			    "itself is the state before it, no pre-fix lane\n");
	assert_false(has_ref(s, BACKPORT_REF ".pre-fix"));
	assert_backport_commit(s);
	lanes = lanes_of(s);
	assert_string_equal(lanes, "as-is stable\nbackport " BACKPORT_REF "\n");
	free(lanes);

	/* a stale pre-fix ref: a commit not on the branch's (the tip itself) */
	assert_int_equal(git_reference_create(&ref, s->f.repo, BACKPORT_REF ".pre-fix", &s->tip,
					      0, NULL), 0);
	git_reference_free(ref);
	lanes = lanes_of(s);
	snprintf(want, sizeof(want), "as-is stable\nbackport " BACKPORT_REF "\npassed over: "
		 BACKPORT_REF ".pre-fix at %.12s is stable itself, not a commit on it\n", tip);
	assert_string_equal(lanes, want);
	free(lanes);
	/* one on the branch's commit is a lane (here the backport commit); the
	 * backport ref, that same commit and so not built on it, is not */
	assert_int_equal(git_oid_fromstr(&onto, s->res.commit), 0);
	assert_int_equal(git_reference_create(&ref, s->f.repo, BACKPORT_REF ".pre-fix", &onto,
					      1, NULL), 0);
	git_reference_free(ref);
	lanes = lanes_of(s);
	snprintf(want, sizeof(want), "as-is stable\npre-fix " BACKPORT_REF ".pre-fix\npassed over: "
		 BACKPORT_REF " at %.12s is " BACKPORT_REF ".pre-fix itself, not a commit on it\n",
		 s->res.commit);
	assert_string_equal(lanes, want);
	free(lanes);
}

/* A commit on `parent` adding `path`, written to `refname`; its id in *out. */
static void commit_on(struct state *s, git_oid *out, const char *refname,
		      const git_oid *parent_id, const char *path)
{
	git_signature *sig;
	git_commit *parent;
	git_index *index;
	git_index_entry e;
	git_reference *ref;
	git_tree *tree;
	git_oid id;

	assert_int_equal(git_commit_lookup(&parent, s->f.repo, parent_id), 0);
	assert_int_equal(git_commit_tree(&tree, parent), 0);
	assert_int_equal(git_index_new(&index), 0);
	assert_int_equal(git_index_read_tree(index, tree), 0);
	git_tree_free(tree);
	memset(&e, 0, sizeof(e));
	e.mode = GIT_FILEMODE_BLOB;
	e.path = path;
	assert_int_equal(git_blob_create_from_buffer(&e.id, s->f.repo, "new\n", 4), 0);
	assert_int_equal(git_index_add(index, &e), 0);
	assert_int_equal(git_index_write_tree_to(&id, index, s->f.repo), 0);
	git_index_free(index);
	assert_int_equal(git_tree_lookup(&tree, s->f.repo, &id), 0);
	assert_int_equal(git_signature_new(&sig, "Stable Maintainer", "stable@example.org",
					   1700000100, 0), 0);
	assert_int_equal(git_commit_create(out, s->f.repo, NULL, sig, sig, NULL, "more\n",
					   tree, 1, (const git_commit **)&parent), 0);
	assert_int_equal(git_reference_create(&ref, s->f.repo, refname, out, 1, NULL), 0);
	git_reference_free(ref);
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(parent);
}

/*
 * A backport ref left by an earlier run on a commit the branch has since
 * moved past is not the branch's backport lane: building it would compare
 * the new as-is kernel with an old one. A new apply makes it a lane again,
 * and commits a person adds on top of it keep it one.
 */
static void test_stale_backport_ref_is_no_lane(void **st)
{
	struct state *s = *st;
	char tip[GIT_OID_HEXSZ + 1], want[512], *lanes;
	git_oid mine;

	make_branch(s, original);
	backport(s);
	assert_int_equal(s->res.status, KB_STATUS_APPLIED);
	lanes = lanes_of(s);
	assert_string_equal(lanes, "as-is stable\nbackport " BACKPORT_REF "\n");
	free(lanes);

	commit_on(s, &s->tip, "refs/heads/stable", &s->tip, "README");	/* the branch moves on */
	tip_hex(s, tip);
	lanes = lanes_of(s);
	snprintf(want, sizeof(want), "as-is stable\npassed over: " BACKPORT_REF " at %.12s is not "
		 "built on stable at %.12s\n", s->res.commit, tip);
	assert_string_equal(lanes, want);
	free(lanes);
	assert_true(has_ref(s, BACKPORT_REF));	/* left alone, only not a lane */

	backport(s);
	assert_int_equal(s->res.status, KB_STATUS_APPLIED);
	assert_backport_commit(s);
	lanes = lanes_of(s);
	assert_string_equal(lanes, "as-is stable\nbackport " BACKPORT_REF "\n");
	free(lanes);

	/* a commit of a person's own on the backport (a conflict resolved by
	 * hand, a fix-up): still built on the branch, still the lane */
	assert_int_equal(git_oid_fromstr(&mine, s->res.commit), 0);
	commit_on(s, &mine, BACKPORT_REF, &mine, "FIXUP");
	lanes = lanes_of(s);
	assert_string_equal(lanes, "as-is stable\nbackport " BACKPORT_REF "\n");
	free(lanes);
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_applied),
		T(test_dry_run_writes_nothing),
		T(test_already_applied),
		T(test_not_affected),
		T(test_context_mismatch_conflicts),
		T(test_missing_ref_is_an_error),
		T(test_pre_fix_without_the_fix),
		T(test_reproduce_from_the_pre_fix_commit),
		T(test_stale_backport_ref_is_no_lane),
	};
#undef T

	return sandbox_run_group_tests(tests, NULL, NULL);
}
