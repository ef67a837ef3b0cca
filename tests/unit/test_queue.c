/*
 * Queues (kb_queue_apply, kb_queue_open/step/finish) on a bare repository
 * made with libgit2 in the sandbox, and a series of two patch files: a
 * re-run at another committer date takes the queue's commits (nothing
 * written, created false); a queue another writer wrote meanwhile, with
 * its own commits, is found and named; a branch moved on gets a new
 * chain on its new commit; the ref moves only from what was seen there.
 */
#include "unit.h"
#include "repo_fixture.h"

#include "apply/backport.h"
#include "apply/commit.h"
#include "config.h"
#include "util/error.h"
#include "fix.h"
#include "apply/queue.h"
#include "apply/series.h"

#define REF "refs/heads/backport/queue/q/stable"

static const char f_c[] = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";

static const char shout_two[] =
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
	"From: A U Thor <author@example.org>\n"
	"Date: Wed, 2 Mar 2011 00:33:13 +0300\n"
	"Subject: [PATCH] f: shout two\n"
	"\n"
	"Two is louder.\n"
	"---\n"
	"diff --git a/f.c b/f.c\n"
	"--- a/f.c\n"
	"+++ b/f.c\n"
	"@@ -1,3 +1,3 @@\n"
	" one\n"
	"-two\n"
	"+TWO\n"
	" three\n";

static const char shout_four[] =
	"From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
	"From: A U Thor <author@example.org>\n"
	"Date: Thu, 3 Mar 2011 10:00:00 +0000\n"
	"Subject: [PATCH] f: shout four\n"
	"\n"
	"Four too.\n"
	"---\n"
	"diff --git a/f.c b/f.c\n"
	"--- a/f.c\n"
	"+++ b/f.c\n"
	"@@ -3,3 +3,3 @@\n"
	" three\n"
	"-four\n"
	"+FOUR\n"
	" five\n";

static const char shout_six[] =
	"From 3333333333333333333333333333333333333333 Mon Sep 17 00:00:00 2001\n"
	"From: A U Thor <author@example.org>\n"
	"Date: Fri, 4 Mar 2011 10:00:00 +0000\n"
	"Subject: [PATCH] f: shout six\n"
	"\n"
	"---\n"
	"diff --git a/f.c b/f.c\n"
	"--- a/f.c\n"
	"+++ b/f.c\n"
	"@@ -5,3 +5,3 @@\n"
	" five\n"
	"-six\n"
	"+SIX\n"
	" seven\n";

struct state {
	struct repo_fixture f;		/* the branch's bare repository */
	struct sandbox sb;		/* the series and its patches */
	struct kb_config *config;
	struct kb_series series;
	struct kb_backport_opts opts;
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
	write_file(&s->sb, "two.patch", shout_two);
	write_file(&s->sb, "four.patch", shout_four);
	write_file(&s->sb, "six.patch", shout_six);
	write_file(&s->sb, "q.series", "two.patch\nfour.patch\nsix.patch\n");
	if (kb_series_load(&s->series, sb_path(&s->sb, "q.series")) < 0)
		fail_msg("%s", kb_error_last());
	assert_true(asprintf(&yaml, "repo: %s\nbranches:\n  - name: stable\n    ref: stable\n",
			     s->f.dir) > 0);
	if (kb_config_parse(&s->config, yaml, strlen(yaml), sb_path(&s->sb, "branches.yaml")) < 0)
		fail_msg("%s", kb_error_last());
	free(yaml);
	kb_backport_opts_init(&s->opts);
	setenv("GIT_COMMITTER_NAME", "Greg Stable", 1);
	setenv("GIT_COMMITTER_EMAIL", "greg@example.org", 1);
	*st = s;
	return 0;
}

static int teardown(void **st)
{
	struct state *s = *st;

	unsetenv("GIT_COMMITTER_NAME");
	unsetenv("GIT_COMMITTER_EMAIL");
	unsetenv("GIT_COMMITTER_DATE");
	kb_series_release(&s->series);
	kb_config_free(s->config);
	sandbox_release(&s->sb);
	repo_fixture_release(&s->f);
	free(s);
	git_libgit2_shutdown();
	return 0;
}

/* refs/heads/stable: a commit holding f.c, on `parent` (none when NULL). */
static void make_branch(struct state *s, const git_oid *parent, const char *msg)
{
	git_commit *p = NULL;
	git_signature *sig;
	git_index *index;
	git_index_entry e;
	git_tree *tree;
	git_oid id;

	assert_int_equal(git_index_new(&index), 0);
	memset(&e, 0, sizeof(e));
	e.mode = GIT_FILEMODE_BLOB;
	e.path = "f.c";
	assert_int_equal(git_blob_create_from_buffer(&e.id, s->f.repo, f_c, strlen(f_c)), 0);
	assert_int_equal(git_index_add(index, &e), 0);
	assert_int_equal(git_index_write_tree_to(&id, index, s->f.repo), 0);
	git_index_free(index);
	assert_int_equal(git_tree_lookup(&tree, s->f.repo, &id), 0);
	assert_int_equal(git_signature_new(&sig, "Stable Maintainer", "stable@example.org",
					   1700000000, 0), 0);
	if (parent)
		assert_int_equal(git_commit_lookup(&p, s->f.repo, parent), 0);
	assert_int_equal(git_commit_create(&s->tip, s->f.repo, "refs/heads/stable", sig, sig,
					   NULL, msg, tree, p ? 1 : 0, (const git_commit **)&p), 0);
	git_commit_free(p);
	git_signature_free(sig);
	git_tree_free(tree);
}

static void queue_at(struct state *s, struct kb_queue_result *out, const char *date)
{
	setenv("GIT_COMMITTER_DATE", date, 1);
	assert_int_equal(kb_queue_apply(out, &s->config->branches[0], &s->series, "q", &s->opts), 0);
	if (out->error)
		fail_msg("%s", out->error);
	assert_int_equal(out->nresults, 3);
	assert_int_equal(out->results[0].status, KB_STATUS_APPLIED);
	assert_int_equal(out->results[1].status, KB_STATUS_APPLIED);
	assert_int_equal(out->results[2].status, KB_STATUS_APPLIED);
	assert_string_equal(out->ref, REF);
}

static void ref_hex(struct state *s, char hex[GIT_OID_HEXSZ + 1])
{
	git_oid id;

	assert_int_equal(git_reference_name_to_id(&id, s->f.repo, REF), 0);
	git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &id);
}

static size_t counted;

static int count_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)st;
	(void)ftw;
	counted += flag == FTW_F;
	return 0;
}

/* Files in the object store: no new object means none more. */
static size_t objects(struct state *s)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/objects", s->f.dir);
	counted = 0;
	assert_int_equal(nftw(path, count_file, 16, FTW_PHYS), 0);
	return counted;
}

static void assert_same_queue(const struct kb_queue_result *a, const struct kb_queue_result *b)
{
	size_t i;

	assert_string_equal(a->commit, b->commit);
	for (i = 0; i < a->nresults; i++) {
		assert_string_equal(a->results[i].commit, b->results[i].commit);
		assert_string_equal(a->results[i].base, b->results[i].base);
	}
}

static void test_rerun_at_another_date(void **st)
{
	struct state *s = *st;
	struct kb_queue_result first, again;
	char tip[GIT_OID_HEXSZ + 1], ref[GIT_OID_HEXSZ + 1];
	size_t nobj;

	make_branch(s, NULL, "stable 1\n");
	git_oid_tostr(tip, sizeof(tip), &s->tip);
	queue_at(s, &first, "1700000000 +0000");
	assert_true(first.created);
	assert_true(first.results[0].created && first.results[1].created);
	/* a base is the last queue commit written before the fix was looked at */
	assert_string_equal(first.results[0].base, tip);
	assert_string_equal(first.results[1].base, tip);
	assert_string_equal(first.results[2].base, first.results[0].commit);
	assert_string_equal(first.results[2].commit, first.commit);
	assert_string_equal(first.results[0].detail, "applied variant 'patch'");
	ref_hex(s, ref);
	assert_string_equal(ref, first.commit);
	nobj = objects(s);

	queue_at(s, &again, "1800000000 +0200");
	assert_false(again.created);
	assert_same_queue(&first, &again);
	assert_false(again.results[0].created);
	assert_false(again.results[1].created);
	assert_false(again.results[2].created);
	assert_string_equal(again.results[0].detail,
			    "unchanged, already backported with variant 'patch'");
	assert_string_equal(again.results[2].detail,
			    "unchanged, already backported with variant 'patch'");
	ref_hex(s, ref);
	assert_string_equal(ref, first.commit);
	assert_int_equal(objects(s), nobj);
	kb_queue_result_release(&again);

	/* a dry run finds it too, and writes nothing */
	s->opts.dry_run = true;
	queue_at(s, &again, "1900000000 +0000");
	assert_false(again.created);
	assert_false(again.results[0].created);
	assert_int_equal(objects(s), nobj);
	kb_queue_result_release(&again);
	kb_queue_result_release(&first);
}

/* Another kbackport writes the same queue between this one's look and its write. */
static void test_other_writer_meanwhile(void **st)
{
	struct state *s = *st;
	struct kb_queue_result other;
	struct kb_result res[3];
	struct kb_queue *q = NULL;
	char commit[GIT_OID_HEXSZ + 1], ref[GIT_OID_HEXSZ + 1], mine[GIT_OID_HEXSZ + 1];
	bool created = true;
	size_t i;

	make_branch(s, NULL, "stable 1\n");
	setenv("GIT_COMMITTER_DATE", "1700000000 +0000", 1);
	assert_int_equal(kb_queue_open(&q, &s->config->branches[0], "q", 3, false), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(kb_queue_step(&res[i], q, s->series.fixes[i], &s->opts), 0);
	/* this run's own first commit, written when the second fix applied,
	 * the third fix's base */
	memcpy(mine, res[0].commit, sizeof(mine));
	assert_int_equal(strlen(mine), GIT_OID_HEXSZ);
	assert_string_equal(res[2].base, mine);

	queue_at(s, &other, "1700000005 +0100");
	assert_true(other.created);
	assert_string_not_equal(other.results[0].commit, mine);

	assert_int_equal(kb_queue_finish(q, commit, &created), 0);
	assert_false(created);
	assert_string_equal(commit, other.commit);
	ref_hex(s, ref);
	assert_string_equal(ref, other.commit);
	for (i = 0; i < 3; i++) {
		assert_string_equal(res[i].commit, other.results[i].commit);
		assert_string_equal(res[i].base, other.results[i].base);
		assert_false(res[i].created);
		assert_string_equal(res[i].detail,
				    "unchanged, already backported with variant 'patch'");
	}
	kb_queue_free(q);
	for (i = 0; i < 3; i++)
		kb_result_release(&res[i]);
	kb_queue_result_release(&other);
}

/* The branch moved on: a new chain on its new commit, the ref moved. */
static void test_branch_moved(void **st)
{
	struct state *s = *st;
	struct kb_queue_result first, moved;
	git_commit *c;
	git_oid id, old;
	char tip[GIT_OID_HEXSZ + 1];

	make_branch(s, NULL, "stable 1\n");
	queue_at(s, &first, "1700000000 +0000");
	git_oid_cpy(&old, &s->tip);
	make_branch(s, &old, "stable 2\n");
	git_oid_tostr(tip, sizeof(tip), &s->tip);
	queue_at(s, &moved, "1700000000 +0000");
	assert_true(moved.created);
	assert_true(moved.results[0].created);
	assert_string_equal(moved.results[0].base, tip);
	assert_string_not_equal(moved.commit, first.commit);
	assert_int_equal(git_oid_fromstr(&id, moved.results[0].commit), 0);
	assert_int_equal(git_commit_lookup(&c, s->f.repo, &id), 0);
	assert_true(git_oid_equal(git_commit_parent_id(c, 0), &s->tip));
	git_commit_free(c);
	kb_queue_result_release(&moved);
	kb_queue_result_release(&first);
}

/* The compare-and-swap from what the caller saw: a ref changed since is not overwritten. */
static void test_commit_from_what_was_seen(void **st)
{
	struct state *s = *st;
	const char *ref = "refs/heads/backport/x/stable";
	const git_commit *parents[1];
	git_signature *sig;
	git_commit *base;
	git_tree *tree;
	git_oid zero, theirs, id, now;
	bool created = true;

	make_branch(s, NULL, "stable 1\n");
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(git_commit_lookup(&base, s->f.repo, &s->tip), 0);
	assert_int_equal(git_commit_tree(&tree, base), 0);
	assert_int_equal(git_signature_new(&sig, "A U Thor", "author@example.org", 1700000000, 0), 0);
	parents[0] = base;
	/* another writer's commit on the ref since the caller saw none there */
	assert_int_equal(git_commit_create(&theirs, s->f.repo, ref, sig, sig, NULL, "theirs\n",
					   tree, 1, parents), 0);
	assert_int_equal(kb_commit_backport_seen(&id, &created, s->f.repo, ref, base,
						 git_tree_id(tree), "mine\n", sig, sig, &zero),
			 KB_EEXISTS);
	assert_string_equal(kb_error_last(), "'refs/heads/backport/x/stable' was changed by "
			    "another writer meanwhile: not overwritten");
	assert_false(created);
	assert_int_equal(git_reference_name_to_id(&now, s->f.repo, ref), 0);
	assert_true(git_oid_equal(&now, &theirs));
	/* from what it holds: moved */
	assert_int_equal(kb_commit_backport_seen(&id, &created, s->f.repo, ref, base,
						 git_tree_id(tree), "mine\n", sig, sig, &theirs), 0);
	assert_true(created);
	assert_int_equal(git_reference_name_to_id(&now, s->f.repo, ref), 0);
	assert_true(git_oid_equal(&now, &id));
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rerun_at_another_date, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_writer_meanwhile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_branch_moved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_from_what_was_seen, setup, teardown),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
