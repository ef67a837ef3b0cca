/* Stable-style messages, backport ref names and the committer (commit.c). */
#include "unit.h"
#include "repo_fixture.h"

#include "apply/commit.h"
#include "util/error.h"

static const char patch_text[] =
	"From 8909c9ad8ff03611c9c96c9a92656213e4bb495b Mon Sep 17 00:00:00 2001\n"
	"From: Vasiliy Kulikov <segoon@openwall.com>\n"
	"Date: Wed, 2 Mar 2011 00:33:13 +0300\n"
	"Subject: [PATCH] net: don't allow CAP_NET_ADMIN to load non-netdev kernel\n"
	" modules\n"
	"\n"
	"This patch restricts an ability of autoloading modules to netdev modules\n"
	"with explicit aliases.  This fixes CVE-2011-1019.\n"
	"\n"
	"Signed-off-by: Vasiliy Kulikov <segoon@openwall.com>\n"
	"Signed-off-by: David S. Miller <davem@davemloft.net>\n"
	"---\n"
	"diff --git a/net/ipv6/sit.c b/net/ipv6/sit.c\n"
	"--- a/net/ipv6/sit.c\n"
	"+++ b/net/ipv6/sit.c\n"
	"@@ -1,2 +1,2 @@\n"
	" MODULE_LICENSE(\"GPL\");\n"
	"-MODULE_ALIAS(\"sit0\");\n"
	"+MODULE_ALIAS_NETDEV(\"sit0\");\n";

static const char body[] =
	"This patch restricts an ability of autoloading modules to netdev modules\n"
	"with explicit aliases.  This fixes CVE-2011-1019.\n"
	"\n"
	"Signed-off-by: Vasiliy Kulikov <segoon@openwall.com>\n"
	"Signed-off-by: David S. Miller <davem@davemloft.net>\n";

struct state {
	struct kb_patch *patch;
	struct kb_fix fix;
	struct kb_variant variant;
};

static int setup(void **st)
{
	struct state *s = calloc(1, sizeof(*s));

	git_libgit2_init();
	assert_int_equal(kb_patch_parse(&s->patch, patch_text, sizeof(patch_text) - 1, "test"), 0);
	s->fix.id = "CVE-2011-1019";
	s->fix.subject = "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules";
	s->fix.upstream = "8909c9ad8ff03611c9c96c9a92656213e4bb495b";
	s->fix.patch = s->patch;
	s->variant.name = "2.6.32";
	*st = s;
	return 0;
}

static int teardown(void **st)
{
	struct state *s = *st;

	kb_patch_free(s->patch);
	free(s);
	git_libgit2_shutdown();
	return 0;
}

static void test_message_without_note(void **st)
{
	struct state *s = *st;
	char *msg;

	assert_int_equal(kb_commit_message(&msg, &s->fix, &s->variant), 0);
	assert_string_equal(msg,
		"net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules\n"
		"\n"
		"commit 8909c9ad8ff03611c9c96c9a92656213e4bb495b upstream.\n"
		"\n"
		"This patch restricts an ability of autoloading modules to netdev modules\n"
		"with explicit aliases.  This fixes CVE-2011-1019.\n"
		"\n"
		"Signed-off-by: Vasiliy Kulikov <segoon@openwall.com>\n"
		"Signed-off-by: David S. Miller <davem@davemloft.net>\n");
	free(msg);
}

static void test_message_note_wrapped_at_72(void **st)
{
	struct state *s = *st;
	char *msg, *note;
	const char *p;
	size_t len;

	s->variant.note = "2.6.32: dev_load() looks the device up under dev_base_lock; add the\n"
			  "tunl0/gre0 aliases that ipip and ip_gre lack instead of renaming them";
	assert_int_equal(kb_commit_message(&msg, &s->fix, &s->variant), 0);
	assert_non_null(note = strstr(msg, "davem@davemloft.net>\n"));
	note += strlen("davem@davemloft.net>\n");
	assert_string_equal(note,
		"[ 2.6.32: dev_load() looks the device up under dev_base_lock; add the\n"
		"  tunl0/gre0 aliases that ipip and ip_gre lack instead of renaming\n"
		"  them ]\n");
	for (p = msg; *p; p += len + 1) {
		len = strcspn(p, "\n");
		assert_true(len <= 72);
		if (!p[len])
			break;
	}
	free(msg);
}

/* A patch that is itself a stable commit keeps its one upstream line. */
static void test_message_stable_commit(void **st)
{
	static const char *const bodies[] = {
		"commit 3aaba20f26f58843e8f20611e5c0b1c06954310f upstream.\n\nFix it.\n",
		"[ Upstream commit 3aaba20f26f58843e8f20611e5c0b1c06954310f ]\n\nFix it.\n",
	};
	struct state *s = *st;
	char *msg, *saved = s->patch->body, want[256];
	size_t i;

	for (i = 0; i < 2; i++) {
		s->patch->body = (char *)bodies[i];
		assert_int_equal(kb_commit_message(&msg, &s->fix, NULL), 0);
		snprintf(want, sizeof(want), "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules\n\n%s",
			 bodies[i]);
		assert_string_equal(msg, want);
		free(msg);
	}
	/* a sha that is not one, or a line further down, is not the upstream line */
	s->patch->body = "commit 3aaba20f upstream.\n";
	assert_int_equal(kb_commit_message(&msg, &s->fix, NULL), 0);
	assert_non_null(strstr(msg, "commit 8909c9ad8ff03611c9c96c9a92656213e4bb495b upstream.\n\ncommit 3aaba20f"));
	free(msg);
	s->patch->body = saved;
}

static void test_message_no_body(void **st)
{
	struct state *s = *st;
	char *msg, *saved = s->patch->body;

	s->patch->body = "";
	assert_int_equal(kb_commit_message(&msg, &s->fix, NULL), 0);
	assert_string_equal(msg,
		"net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules\n"
		"\n"
		"commit 8909c9ad8ff03611c9c96c9a92656213e4bb495b upstream.\n");
	s->patch->body = saved;
	free(msg);
	assert_string_equal(s->patch->body, body);
}

/* A fix of no upstream commit (a distribution's own patch): as git am writes it. */
static void test_message_no_upstream(void **st)
{
	struct state *s = *st;
	char *msg, *saved = s->fix.upstream, *saved_body = s->patch->body;

	s->fix.upstream = NULL;
	assert_int_equal(kb_commit_message(&msg, &s->fix, NULL), 0);
	assert_non_null(strstr(msg, "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules\n\n"));
	assert_null(strstr(msg, "upstream."));
	free(msg);
	s->patch->body = "";
	assert_int_equal(kb_commit_message(&msg, &s->fix, NULL), 0);
	assert_string_equal(msg, "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules\n");
	free(msg);
	s->patch->body = saved_body;
	s->fix.upstream = saved;
}

static void test_ref_names(void **st)
{
	char *ref;

	(void)st;
	assert_int_equal(kb_backport_ref(&ref, "CVE-2011-1019", "stable/6.1.y"), 0);
	assert_string_equal(ref, "refs/heads/backport/CVE-2011-1019/stable/6.1.y");
	free(ref);
	assert_int_equal(kb_backport_ref(&ref, "CVE-2011-1019", "a..b"), KB_EINVALID);
	assert_null(ref);
	assert_string_equal(kb_error_last(),
		"'refs/heads/backport/CVE-2011-1019/a..b' is not a valid ref name");
	/* the queues' namespace is no fix's */
	ref = (void *)1;
	assert_int_equal(kb_backport_ref(&ref, "queue", "4.19.y"), KB_EINVALID);
	assert_null(ref);
	assert_string_equal(kb_error_last(),
		"'queue' cannot be a fix id: refs/heads/backport/queue/ holds the queues' refs");
}

/* A signature's name or address with a control character: refused, never written. */
static void test_author_control_characters(void **st)
{
	static const char *const names[] = {
		"A\nencoding x", "A\rB", "A\tB", "A\033[31mB", "A\aB", "A\177B",
	};
	struct state *s = *st;
	char *name = s->patch->author_name, *email = s->patch->author_email;
	git_signature *sig = (void *)1;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		s->patch->author_name = (char *)names[i];
		assert_int_equal(kb_commit_author(&sig, &s->fix), KB_EINVALID);
		assert_null(sig);
		assert_non_null(strstr(kb_error_last(), "holds control characters"));
	}
	s->patch->author_name = name;
	s->patch->author_email = "a@b\n.c";
	assert_int_equal(kb_commit_author(&sig, &s->fix), KB_EINVALID);
	assert_string_equal(kb_error_last(), "fix 'CVE-2011-1019': the upstream patch's author "
			    "'Vasiliy Kulikov <a@b\n.c>' holds control characters");
	s->patch->author_email = email;
}

static void test_committer_control_characters(void **st)
{
	struct repo_fixture f;
	git_signature *sig = (void *)1;

	(void)st;
	git_libgit2_init();
	repo_fixture_init(&f);
	setenv("GIT_COMMITTER_NAME", "Greg\nStable", 1);
	setenv("GIT_COMMITTER_EMAIL", "greg@example.org", 1);
	assert_int_equal(kb_committer(&sig, f.repo), KB_EINVALID);
	assert_null(sig);
	assert_string_equal(kb_error_last(), "bad committer 'Greg\nStable <greg@example.org>': "
			    "control characters");
	setenv("GIT_COMMITTER_NAME", "Greg Stable", 1);
	setenv("GIT_COMMITTER_EMAIL", "greg@\033example.org", 1);
	assert_int_equal(kb_committer(&sig, f.repo), KB_EINVALID);
	unsetenv("GIT_COMMITTER_NAME");
	unsetenv("GIT_COMMITTER_EMAIL");
	repo_fixture_release(&f);
	git_libgit2_shutdown();
}

/* A commit of the empty tree to point refs at. */
static void empty_commit(git_oid *id, git_repository *repo)
{
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_oid tree_id;

	assert_int_equal(git_treebuilder_new(&tb, repo, NULL), 0);
	assert_int_equal(git_treebuilder_write(&tree_id, tb), 0);
	assert_int_equal(git_tree_lookup(&tree, repo, &tree_id), 0);
	assert_int_equal(git_signature_new(&sig, "A", "a@b.c", 1262304000, 0), 0);
	assert_int_equal(git_commit_create(id, repo, NULL, sig, sig, NULL, "base\n", tree, 0, NULL), 0);
	git_signature_free(sig);
	git_tree_free(tree);
	git_treebuilder_free(tb);
}

static void set_ref(git_repository *repo, const char *name, const git_oid *id)
{
	git_reference *ref = NULL;

	assert_int_equal(git_reference_create(&ref, repo, name, id, 1, NULL), 0);
	git_reference_free(ref);
}

static void del_ref(git_repository *repo, const char *name)
{
	git_reference *ref = NULL;

	assert_int_equal(git_reference_lookup(&ref, repo, name), 0);
	assert_int_equal(git_reference_delete(ref), 0);
	git_reference_free(ref);
}

/*
 * Git keeps refs as files in folders: a ref named as a folder of the one to
 * write, or refs inside it, are said in words, loose or packed; names that
 * are only string prefixes of each other do not clash.
 */
static void test_ref_namespace(void **st)
{
	static const char *const fine[] = {
		"refs/heads/backport/X/4.19.y",		/* the ref itself: moved */
		"refs/heads/backport/X/4.19.y.pre-fix",
		"refs/heads/backport/X/4.19",
		"refs/heads/backport/X-2/4.19.y",
		"refs/heads/backport/queue/X/4.19.y",	/* a queue named as the fix */
		"refs/heads/backportX",
		"refs/heads/X",
	};
	const char *want = "refs/heads/backport/X/4.19.y";
	struct repo_fixture f;
	git_refdb *refdb = NULL;
	git_commit *base = NULL;
	bool created = true;
	git_oid id, made;
	size_t i;

	(void)st;
	git_libgit2_init();
	repo_fixture_init(&f);
	empty_commit(&id, f.repo);
	for (i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		set_ref(f.repo, fine[i], &id);
	assert_int_equal(kb_ref_check_namespace(f.repo, want), 0);

	del_ref(f.repo, want);
	set_ref(f.repo, "refs/heads/backport/X/4.19.y/old", &id);
	assert_int_equal(kb_ref_check_namespace(f.repo, want), KB_EEXISTS);
	assert_string_equal(kb_error_last(), "cannot write 'refs/heads/backport/X/4.19.y': refs "
			    "exist inside it ('refs/heads/backport/X/4.19.y/old'), and one name "
			    "cannot be both a ref and a folder of refs (rename or delete them)");
	del_ref(f.repo, "refs/heads/backport/X/4.19.y/old");

	/* libgit2 would not make the refs below a ref: those go first */
	for (i = 1; i < sizeof(fine) / sizeof(fine[0]); i++)
		del_ref(f.repo, fine[i]);
	set_ref(f.repo, "refs/heads/backport/X", &id);	/* a user's branch "backport/X" */
	assert_int_equal(kb_ref_check_namespace(f.repo, want), KB_EEXISTS);
	assert_string_equal(kb_error_last(), "cannot write 'refs/heads/backport/X/4.19.y': the ref "
			    "'refs/heads/backport/X' exists, and one name cannot be both a ref and a "
			    "folder of refs (rename or delete 'refs/heads/backport/X')");
	/* the same, packed; and what kb_commit_backport says when it meets one */
	assert_int_equal(git_repository_refdb(&refdb, f.repo), 0);
	assert_int_equal(git_refdb_compress(refdb), 0);
	assert_int_equal(kb_ref_check_namespace(f.repo, want), KB_EEXISTS);
	assert_non_null(strstr(kb_error_last(), "the ref 'refs/heads/backport/X' exists"));
	assert_int_equal(git_commit_lookup(&base, f.repo, &id), 0);
	kb_error_clear();
	assert_true(kb_commit_backport(&made, &created, f.repo, want, base, git_commit_tree_id(base),
				       "m\n", git_commit_author(base), git_commit_author(base)) < 0);
	assert_false(created);
	assert_non_null(strstr(kb_error_last(), "the ref 'refs/heads/backport/X' exists"));
	del_ref(f.repo, "refs/heads/backport/X");

	set_ref(f.repo, "refs/heads/backport", &id);	/* a user's branch "backport" */
	assert_int_equal(kb_ref_check_namespace(f.repo, want), KB_EEXISTS);
	assert_non_null(strstr(kb_error_last(), "the ref 'refs/heads/backport' exists"));
	git_commit_free(base);
	git_refdb_free(refdb);
	repo_fixture_release(&f);
	git_libgit2_shutdown();
}

static void test_author_is_upstreams(void **st)
{
	struct state *s = *st;
	git_signature *sig;

	assert_int_equal(kb_commit_author(&sig, &s->fix), 0);
	assert_string_equal(sig->name, "Vasiliy Kulikov");
	assert_string_equal(sig->email, "segoon@openwall.com");
	assert_int_equal(sig->when.time, 1299015193);
	assert_int_equal(sig->when.offset, 180);
	git_signature_free(sig);
}

static void test_committer_from_environment(void **st)
{
	struct repo_fixture f;
	git_signature *sig;

	(void)st;
	git_libgit2_init();
	repo_fixture_init(&f);
	setenv("GIT_COMMITTER_NAME", "Greg Stable", 1);
	setenv("GIT_COMMITTER_EMAIL", "greg@example.org", 1);
	setenv("GIT_COMMITTER_DATE", "1700000000 -0130", 1);
	assert_int_equal(kb_committer(&sig, f.repo), 0);
	assert_string_equal(sig->name, "Greg Stable");
	assert_string_equal(sig->email, "greg@example.org");
	assert_int_equal(sig->when.time, 1700000000);
	assert_int_equal(sig->when.offset, -90);
	git_signature_free(sig);
	setenv("GIT_COMMITTER_DATE", "yesterday", 1);
	assert_int_equal(kb_committer(&sig, f.repo), KB_EINVALID);
	assert_string_equal(kb_error_last(), "GIT_COMMITTER_DATE 'yesterday' is not '<epoch> <+hhmm>'");
	unsetenv("GIT_COMMITTER_NAME");
	unsetenv("GIT_COMMITTER_EMAIL");
	unsetenv("GIT_COMMITTER_DATE");
	repo_fixture_release(&f);
	git_libgit2_shutdown();
}

/* committer_refuses DATE MESSAGE: GIT_COMMITTER_DATE=DATE is KB_EINVALID */
static void committer_refuses(git_repository *repo, const char *date, const char *message)
{
	git_signature *sig = (void *)1;

	setenv("GIT_COMMITTER_DATE", date, 1);
	assert_int_equal(kb_committer(&sig, repo), KB_EINVALID);
	assert_null(sig);
	assert_string_equal(kb_error_last(), message);
}

/*
 * Only what git writes and git fsck accepts: a time libgit2 1.5 writes
 * whole (it writes 32 bits, unsigned) and a zone of [+-]hhmm with hh < 24
 * and mm < 60, as git's own date parser wants.
 */
static void test_committer_date_range(void **st)
{
	struct repo_fixture f;
	git_signature *sig;

	(void)st;
	git_libgit2_init();
	repo_fixture_init(&f);
	setenv("GIT_COMMITTER_NAME", "Greg Stable", 1);
	setenv("GIT_COMMITTER_EMAIL", "greg@example.org", 1);
	committer_refuses(f.repo, "1700000000 +9999",
			  "GIT_COMMITTER_DATE '1700000000 +9999': time zone '+9999' is out of range "
			  "(hours below 24, minutes below 60)");
	committer_refuses(f.repo, "1700000000 +2400",
			  "GIT_COMMITTER_DATE '1700000000 +2400': time zone '+2400' is out of range "
			  "(hours below 24, minutes below 60)");
	committer_refuses(f.repo, "1700000000 -0060",
			  "GIT_COMMITTER_DATE '1700000000 -0060': time zone '-0060' is out of range "
			  "(hours below 24, minutes below 60)");
	committer_refuses(f.repo, "-1 +0000",
			  "GIT_COMMITTER_DATE '-1 +0000': the time is out of range "
			  "(0 to 4294967295 seconds since 1970)");
	committer_refuses(f.repo, "99999999999999999999 +0000",
			  "GIT_COMMITTER_DATE '99999999999999999999 +0000': the time is out of range "
			  "(0 to 4294967295 seconds since 1970)");
	committer_refuses(f.repo, "4294967296 +0000",
			  "GIT_COMMITTER_DATE '4294967296 +0000': the time is out of range "
			  "(0 to 4294967295 seconds since 1970)");
	committer_refuses(f.repo, "1700000000 +100",
			  "GIT_COMMITTER_DATE '1700000000 +100' is not '<epoch> <+hhmm>'");
	committer_refuses(f.repo, "1700000000 0100",
			  "GIT_COMMITTER_DATE '1700000000 0100' is not '<epoch> <+hhmm>'");
	committer_refuses(f.repo, "+1700000000 +0100",
			  "GIT_COMMITTER_DATE '+1700000000 +0100' is not '<epoch> <+hhmm>'");
	committer_refuses(f.repo, "1700000000 +01000",
			  "GIT_COMMITTER_DATE '1700000000 +01000' is not '<epoch> <+hhmm>'");
	setenv("GIT_COMMITTER_DATE", "4294967295 -2359", 1);
	assert_int_equal(kb_committer(&sig, f.repo), 0);
	assert_int_equal(sig->when.time, 4294967295LL);
	assert_int_equal(sig->when.offset, -(23 * 60 + 59));
	git_signature_free(sig);
	setenv("GIT_COMMITTER_DATE", "@0 +0000", 1);
	assert_int_equal(kb_committer(&sig, f.repo), 0);
	assert_int_equal(sig->when.time, 0);
	git_signature_free(sig);
	unsetenv("GIT_COMMITTER_NAME");
	unsetenv("GIT_COMMITTER_EMAIL");
	unsetenv("GIT_COMMITTER_DATE");
	repo_fixture_release(&f);
	git_libgit2_shutdown();
}

/* The author's date comes from the patch: refused too when git would. */
static void test_author_date_range(void **st)
{
	struct state *s = *st;
	git_signature *sig = (void *)1;
	int64_t time = s->patch->time;

	s->patch->time = 5000000000LL;
	assert_int_equal(kb_commit_author(&sig, &s->fix), KB_EINVALID);
	assert_null(sig);
	assert_string_equal(kb_error_last(), "fix 'CVE-2011-1019': the upstream patch's Date: "
			    "is out of range for a git commit (time 5000000000, time zone +0300)");
	s->patch->time = time;
	s->patch->tz_offset = 24 * 60;
	assert_int_equal(kb_commit_author(&sig, &s->fix), KB_EINVALID);
	assert_string_equal(kb_error_last(), "fix 'CVE-2011-1019': the upstream patch's Date: "
			    "is out of range for a git commit (time 1299015193, time zone +2400)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_message_without_note, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_note_wrapped_at_72, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_stable_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_no_body, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_no_upstream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ref_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_author_is_upstreams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_author_control_characters, setup, teardown),
		cmocka_unit_test(test_committer_control_characters),
		cmocka_unit_test(test_ref_namespace),
		cmocka_unit_test(test_committer_from_environment),
		cmocka_unit_test(test_committer_date_range),
		cmocka_unit_test_setup_teardown(test_author_date_range, setup, teardown),
	};
	return sandbox_run_group_tests_name("commit", tests, NULL, NULL);
}
