/* kb_patch_parse(), kb_patch_load() and kb_parse_date(). */
#include "unit.h"

#include <stdio.h>
#include <unistd.h>

#include "util/error.h"
#include "apply/patch.h"
#include "sandbox.h"

/* include/linux/netdevice.h and net/core/dev.c of the CVE-2011-1019 fix in
 * git format-patch form, plus its net/ipv4/ipip.c hunk and signature. */
static const char seed_patch[] =
	"From 8909c9ad8ff03611c9c96c9a92656213e4bb495b Mon Sep 17 00:00:00 2001\n"
	"From: Vasiliy Kulikov <segoon@openwall.com>\n"
	"Date: Wed, 2 Mar 2011 00:33:13 +0300\n"
	"Subject: [PATCH] net: don't allow CAP_NET_ADMIN to load non-netdev kernel\n"
	" modules\n"
	"\n"
	"Since a8f80e8ff94ecba629542d9b4b5f5a8ee3eb565c any process with\n"
	"CAP_NET_ADMIN may load any module from /lib/modules/.\n"
	"\n"
	"    root@albatros:~# grep Cap /proc/$$/status\n"
	"    CapInh:\t0000000000000000\n"
	"\n"
	"Signed-off-by: Vasiliy Kulikov <segoon@openwall.com>\n"
	"\n"
	"---\n"
	" v2 - use pr_err()\n"
	"\n"
	" include/linux/netdevice.h |    3 +++\n"
	" net/core/dev.c            |   12 ++++++++++--\n"
	" 2 files changed, 13 insertions(+), 2 deletions(-)\n"
	"\n"
	"diff --git a/include/linux/netdevice.h b/include/linux/netdevice.h\n"
	"index d971346..71caf7a 100644\n"
	"--- a/include/linux/netdevice.h\n"
	"+++ b/include/linux/netdevice.h\n"
	"@@ -2392,6 +2392,9 @@ extern int netdev_notice(const struct net_device *dev, const char *format, ...)\n"
	" extern int netdev_info(const struct net_device *dev, const char *format, ...)\n"
	" \t__attribute__ ((format (printf, 2, 3)));\n"
	" \n"
	"+#define MODULE_ALIAS_NETDEV(device) \\\n"
	"+\tMODULE_ALIAS(\"netdev-\" device)\n"
	"+\n"
	" #if defined(DEBUG)\n"
	" #define netdev_dbg(__dev, format, args...)\t\t\t\\\n"
	" \tnetdev_printk(KERN_DEBUG, __dev, format, ##args)\n"
	"diff --git a/net/core/dev.c b/net/core/dev.c\n"
	"index 8ae6631..6561021 100644\n"
	"--- a/net/core/dev.c\n"
	"+++ b/net/core/dev.c\n"
	"@@ -1114,13 +1114,21 @@ EXPORT_SYMBOL(netdev_bonding_change);\n"
	" void dev_load(struct net *net, const char *name)\n"
	" {\n"
	" \tstruct net_device *dev;\n"
	"+\tint no_module;\n"
	" \n"
	" \trcu_read_lock();\n"
	" \tdev = dev_get_by_name_rcu(net, name);\n"
	" \trcu_read_unlock();\n"
	" \n"
	"-\tif (!dev && capable(CAP_NET_ADMIN))\n"
	"-\t\trequest_module(\"%s\", name);\n"
	"+\tno_module = !dev;\n"
	"+\tif (no_module && capable(CAP_NET_ADMIN))\n"
	"+\t\tno_module = request_module(\"netdev-%s\", name);\n"
	"+\tif (no_module && capable(CAP_SYS_MODULE)) {\n"
	"+\t\tif (!request_module(\"%s\", name))\n"
	"+\t\t\tpr_err(\"Loading kernel module for a network device \"\n"
	"+\"with CAP_SYS_MODULE (deprecated).  Use CAP_NET_ADMIN and alias netdev-%s \"\n"
	"+\"instead\\n\", name);\n"
	"+\t}\n"
	" }\n"
	" EXPORT_SYMBOL(dev_load);\n"
	" \n"
	"diff --git a/net/ipv4/ipip.c b/net/ipv4/ipip.c\n"
	"index 988f52f..a5f58e7 100644\n"
	"--- a/net/ipv4/ipip.c\n"
	"+++ b/net/ipv4/ipip.c\n"
	"@@ -913,4 +913,4 @@ static void __exit ipip_fini(void)\n"
	" module_init(ipip_init);\n"
	" module_exit(ipip_fini);\n"
	" MODULE_LICENSE(\"GPL\");\n"
	"-MODULE_ALIAS(\"tunl0\");\n"
	"+MODULE_ALIAS_NETDEV(\"tunl0\");\n"
	"-- \n"
	"1.7.0.4\n"
	"\n";

static struct kb_patch *parse_ok(const char *text)
{
	struct kb_patch *patch = NULL;
	int err = kb_patch_parse(&patch, text, strlen(text), "t.patch");

	if (err)
		fail_msg("unexpected error %d: %s", err, kb_error_last());
	assert_non_null(patch);
	return patch;
}

static void assert_line(const struct kb_line *l, char type, const char *text)
{
	assert_int_equal(l->type, type);
	assert_int_equal(l->len, strlen(text));
	assert_memory_equal(l->text, text, l->len);
}

static void test_seed_headers(void **state)
{
	struct kb_patch *p = parse_ok(seed_patch);

	(void)state;
	assert_string_equal(p->from_commit, "8909c9ad8ff03611c9c96c9a92656213e4bb495b");
	assert_string_equal(p->author_name, "Vasiliy Kulikov");
	assert_string_equal(p->author_email, "segoon@openwall.com");
	assert_string_equal(p->date, "Wed, 2 Mar 2011 00:33:13 +0300");
	assert_int_equal(p->time, 1299015193);
	assert_int_equal(p->tz_offset, 180);
	assert_string_equal(p->subject, "net: don't allow CAP_NET_ADMIN to load "
			    "non-netdev kernel modules");
	assert_string_equal(p->body,
		"Since a8f80e8ff94ecba629542d9b4b5f5a8ee3eb565c any process with\n"
		"CAP_NET_ADMIN may load any module from /lib/modules/.\n"
		"\n"
		"    root@albatros:~# grep Cap /proc/$$/status\n"
		"    CapInh:\t0000000000000000\n"
		"\n"
		"Signed-off-by: Vasiliy Kulikov <segoon@openwall.com>\n");
	assert_int_equal(p->size, strlen(seed_patch));
	assert_string_equal(p->buffer, seed_patch);
	kb_patch_free(p);
}

static void test_seed_files(void **state)
{
	struct kb_patch *p = parse_ok(seed_patch);
	const struct kb_file_patch *f;
	const struct kb_hunk *h;

	(void)state;
	assert_int_equal(p->nfiles, 3);
	f = &p->files[0];
	assert_string_equal(f->old_path, "include/linux/netdevice.h");
	assert_string_equal(f->new_path, "include/linux/netdevice.h");
	assert_string_equal(f->old_id, "d971346");
	assert_string_equal(f->new_id, "71caf7a");
	assert_int_equal(f->source_line, 22);
	assert_int_equal(f->nhunks, 1);
	h = &f->hunks[0];
	assert_int_equal(h->old_start, 2392);
	assert_int_equal(h->old_lines, 6);
	assert_int_equal(h->new_start, 2392);
	assert_int_equal(h->new_lines, 9);
	assert_int_equal(h->source_line, 26);
	assert_string_equal(h->section, "extern int netdev_notice(const struct "
			    "net_device *dev, const char *format, ...)");
	assert_int_equal(h->nlines, 9);
	assert_line(&h->lines[1], ' ', "\t__attribute__ ((format (printf, 2, 3)));");
	assert_line(&h->lines[2], ' ', "");
	assert_line(&h->lines[3], '+', "#define MODULE_ALIAS_NETDEV(device) \\");
	assert_line(&h->lines[8], ' ', "\tnetdev_printk(KERN_DEBUG, __dev, format, ##args)");
	assert_false(h->lines[8].no_newline);

	f = &p->files[1];
	assert_string_equal(kb_file_patch_path(f), "net/core/dev.c");
	assert_string_equal(f->old_id, "8ae6631");
	assert_string_equal(f->new_id, "6561021");
	assert_int_equal(f->source_line, 36);
	h = &f->hunks[0];
	assert_int_equal(h->old_start, 1114);
	assert_int_equal(h->old_lines, 13);
	assert_int_equal(h->new_lines, 21);
	assert_string_equal(h->section, "EXPORT_SYMBOL(netdev_bonding_change);");
	assert_int_equal(h->nlines, 23);
	assert_line(&h->lines[9], '-', "\tif (!dev && capable(CAP_NET_ADMIN))");
	assert_line(&h->lines[17], '+', "\"with CAP_SYS_MODULE (deprecated).  Use "
		    "CAP_NET_ADMIN and alias netdev-%s \"");
	assert_line(&h->lines[22], ' ', "");

	/* the "-- " signature after the last hunk is not part of it */
	f = &p->files[2];
	assert_string_equal(kb_file_patch_path(f), "net/ipv4/ipip.c");
	h = &f->hunks[0];
	assert_int_equal(h->nlines, 5);
	assert_line(&h->lines[3], '-', "MODULE_ALIAS(\"tunl0\");");
	assert_line(&h->lines[4], '+', "MODULE_ALIAS_NETDEV(\"tunl0\");");
	assert_int_equal(h->source_line, 68);
	kb_patch_free(p);
}

#define MINI "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"

static void test_subject_folding_and_prefix(void **state)
{
	struct kb_patch *p = parse_ok(
		"From: A <a@b.c>\n"
		"Subject: [PATCH v2 3/5] [stable] net: fix a\n"
		"  long\n"
		"\tsubject\n"
		"\n"
		"Body.\n"
		"---\n" MINI);

	(void)state;
	assert_string_equal(p->subject, "[stable] net: fix a long subject");
	assert_null(p->from_commit);
	assert_null(p->date);
	assert_int_equal(p->time, 0);
	assert_string_equal(p->body, "Body.\n");
	kb_patch_free(p);
}

static void test_encoded_and_quoted_names(void **state)
{
	struct kb_patch *p = parse_ok(
		"From: =?UTF-8?q?Ond=C5=99ej=20Nov=C3=A1k?= <on@x.cz>\n"
		"Subject: [PATCH] =?UTF-8?q?caf=C3=A9?= =?UTF-8?b?IGZpeA==?= now\n"
		"\n"
		"---\n" MINI);
	struct kb_patch *q = parse_ok(
		"From: \"Kulikov, Vasiliy\" <segoon@openwall.com>\n"
		"Subject: x\n"
		"\n"
		"---\n" MINI);
	struct kb_patch *r = parse_ok("From: bare@example.org\n\n---\n" MINI);

	(void)state;
	assert_string_equal(p->author_name, "Ond\xc5\x99" "ej Nov\xc3\xa1k");
	assert_string_equal(p->author_email, "on@x.cz");
	assert_string_equal(p->subject, "caf\xc3\xa9 fix now");
	assert_string_equal(p->body, "");
	assert_string_equal(q->author_name, "Kulikov, Vasiliy");
	assert_null(r->author_name);
	assert_string_equal(r->author_email, "bare@example.org");
	assert_null(r->subject);
	kb_patch_free(p);
	kb_patch_free(q);
	kb_patch_free(r);
}

/* The Subject of "Subject: <header>" in a mail, decoded. */
static void assert_subject(const char *header, const char *want)
{
	char text[512];
	struct kb_patch *p;

	snprintf(text, sizeof(text), "From: A <a@b.c>\nSubject: %s\n\n---\n" MINI, header);
	p = parse_ok(text);
	if (!p->subject || strcmp(p->subject, want))
		fail_msg("Subject: %s\n  got  '%s'\n  want '%s'", header, p->subject, want);
	kb_patch_free(p);
}

/* As git mailinfo: encoded words are converted to UTF-8 from their charset. */
static void test_encoded_charsets(void **state)
{
	(void)state;
	assert_subject("=?ISO-8859-1?Q?caf=E9?=", "caf\xc3\xa9");
	assert_subject("=?iso-8859-1?q?caf=E9?= fix", "caf\xc3\xa9 fix");
	assert_subject("=?ISO-8859-1?B?Y2Fm6Q==?=", "caf\xc3\xa9");
	assert_subject("=?ISO-8859-15?Q?=A4?=", "\xe2\x82\xac");		/* euro sign */
	assert_subject("=?ISO-8859-2?Q?=A3=F3d=BC?=", "\xc5\x81\xc3\xb3\x64\xc5\xba");	/* Lodz */
	assert_subject("=?windows-1252?Q?=80_=93q=94?=", "\xe2\x82\xac \xe2\x80\x9cq\xe2\x80\x9d");
	assert_subject("=?windows-1251?Q?=CF=F0=E8?=", "\xd0\x9f\xd1\x80\xd0\xb8");
	assert_subject("=?KOI8-R?B?9MXT1A==?=", "\xd0\xa2\xd0\xb5\xd1\x81\xd1\x82");
	assert_subject("=?UTF-8*en?Q?hi?=", "hi");	/* RFC 2231's language */
	assert_subject("=?us-ascii?Q?plain?=", "plain");
	/* a character cut between two words of one charset, and words of two */
	assert_subject("=?UTF-8?B?Y2Fmww==?= =?UTF-8?B?qQ==?=", "caf\xc3\xa9");
	assert_subject("=?UTF-8?Q?a=C3?= =?utf-8?Q?=A9?=", "a\xc3\xa9");
	assert_subject("=?ISO-8859-1?Q?=E9?= =?KOI8-R?Q?=E1?=", "\xc3\xa9\xd0\x90");
	/* not an encoded word: a charset with '/' (iconv's //TRANSLIT) is text */
	assert_subject("=?UTF-8//TRANSLIT?Q?x?=", "=?UTF-8//TRANSLIT?Q?x?=");
}

/*
 * As git mailinfo folds line breaks: a run of blanks holding a control
 * character is one space, none at either end; no header text can add a
 * line (a forged "Signed-off-by:") or reach a terminal as an escape.
 */
static void test_header_controls(void **state)
{
	struct kb_patch *p;

	(void)state;
	assert_subject("=?UTF-8?Q?A=0Aencoding_x?=", "A encoding x");
	assert_subject("=?UTF-8?Q?fix=0A=0ASigned-off-by:_Evil_<e@x>?=",
		       "fix Signed-off-by: Evil <e@x>");
	assert_subject("=?UTF-8?Q?a=0D=0Ab?=", "a b");
	assert_subject("=?UTF-8?Q?a=0Db?=", "a b");
	assert_subject("=?UTF-8?Q?a_=09_b?=", "a b");
	assert_subject("a\tb", "a b");
	assert_subject("=?UTF-8?Q?a=0B=0Cb?=", "a b");
	assert_subject("=?UTF-8?Q?a=00b?=", "a b");
	assert_subject("=?UTF-8?Q?=1B[31mred=1B[0m=07?=", "[31mred [0m");
	assert_subject("=?UTF-8?Q?a=7Fb?=", "a b");
	assert_subject("=?UTF-8?Q?a=C2=85b=C2=9B=C2=9Fc?=", "a b c");
	assert_subject("=?ISO-8859-1?Q?a=85b=9Bc?=", "a b c");	/* C1 in Latin-1 */
	assert_subject("=?UTF-8?B?YQpi?=", "a b");			/* "a\nb" */
	assert_subject("=?UTF-8?Q?=0A=0Aleading_and_trailing=0A?=", "leading and trailing");
	assert_subject("[PATCH] =?UTF-8?Q?=1B?=x", "x");
	/* plain spaces and characters past U+009F stay */
	assert_subject("=?UTF-8?Q?a__b=C2=A0c?=", "a  b\xc2\xa0" "c");
	p = parse_ok("From: =?UTF-8?Q?A=0Aencoding_x?= <a@b.c>\n"
		     "Author: =?UTF-8?Q?not_used?= <n@u>\n"
		     "Subject: x\n\n---\n" MINI);
	assert_string_equal(p->author_name, "A encoding x");
	assert_string_equal(p->author_email, "a@b.c");
	kb_patch_free(p);
	p = parse_ok("From: =?ISO-8859-1?Q?Ren=E9=0D=0Acommitter_x?= <r@b.c>\n\n---\n" MINI);
	assert_string_equal(p->author_name, "Ren\xc3\xa9 committer x");
	kb_patch_free(p);
	p = parse_ok("Description: =?UTF-8?Q?sum=0Amary?=\n\n---\n" MINI);
	assert_string_equal(p->subject, "sum mary");
	kb_patch_free(p);
}

/* An unknown charset, or bytes that are no text in theirs: refused, with the line. */
static void test_encoded_refusals(void **state)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
		{ "From: A <a@b.c>\nSubject: =?x-unknown?Q?caf=E9?=\n\n---\n" MINI,
		  "t.patch:2: the Subject header is in the unknown charset 'x-unknown'" },
		{ "From: =?X-MAC-ROMAN?Q?x?= <a@b.c>\nSubject: s\n\n---\n" MINI,
		  "t.patch:1: the From header is in the unknown charset 'X-MAC-ROMAN'" },
		{ "From: A <a@b.c>\nSubject: a\n =?x-empty?Q?\?=\n\n---\n" MINI,
		  "t.patch:2: the Subject header is in the unknown charset 'x-empty'" },
		{ "From: A <a@b.c>\nSubject: =?UTF-8?Q?caf=E9?=\n\n---\n" MINI,
		  "t.patch:2: the Subject header is not valid UTF-8 text" },
		{ "From: A <a@b.c>\nSubject: =?US-ASCII?Q?caf=E9?=\n\n---\n" MINI,
		  "t.patch:2: the Subject header is not valid US-ASCII text" },
		{ "Description: =?x-unknown?B?eA==?=\n\n---\n" MINI,
		  "t.patch:1: the Description header is in the unknown charset 'x-unknown'" },
		{ "Author: =?UTF-8?B?/w==?= <a@b.c>\n\n---\n" MINI,
		  "t.patch:1: the Author header is not valid UTF-8 text" },
	};
	struct kb_patch *p;
	size_t i;
	int err;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = (struct kb_patch *)1;
		err = kb_patch_parse(&p, bad[i].text, strlen(bad[i].text), "t.patch");
		if (err != KB_EINVALID || strcmp(kb_error_last(), bad[i].message))
			fail_msg("case %zu: got %d '%s', want '%s'", i, err, kb_error_last(),
				 bad[i].message);
		assert_null(p);
	}
}

/* DEP-3 (Debian's patches): Description and Author stand for Subject and From. */
static void test_dep3_headers(void **state)
{
	struct kb_patch *p = parse_ok(
		"Description: net: fix a thing\n"
		" The long text, first paragraph.\n"
		" .\n"
		" Second paragraph.\n"
		"Author: Ben Hutchings <ben@decadent.org.uk>\n"
		"Origin: upstream, https://git.kernel.org/linus/8909c9ad8ff03611c9c96c9a92656213e4bb495b\n"
		"Forwarded: not-needed\n"
		"\n"
		"---\n" MINI);
	/* a Subject and a From win over them, whichever comes first; a message
	 * of the patch's own wins over the long description */
	struct kb_patch *q = parse_ok(
		"From: A <a@b.c>\n"
		"Description: the summary\n"
		" long\n"
		"Subject: the subject\n"
		"Author: B <b@c.d>\n"
		"\n"
		"The body.\n"
		"---\n" MINI);
	struct kb_patch *r = parse_ok("Description: only a summary\n\n---\n" MINI);

	(void)state;
	assert_string_equal(p->subject, "net: fix a thing");
	assert_string_equal(p->author_name, "Ben Hutchings");
	assert_string_equal(p->author_email, "ben@decadent.org.uk");
	assert_string_equal(p->body, "The long text, first paragraph.\n\nSecond paragraph.\n");
	assert_string_equal(q->subject, "the subject");
	assert_string_equal(q->author_name, "A");
	assert_string_equal(q->body, "The body.\n");
	assert_string_equal(r->subject, "only a summary");
	assert_string_equal(r->body, "");
	assert_null(r->author_email);
	kb_patch_free(p);
	kb_patch_free(q);
	kb_patch_free(r);
}

/* git am's in-body headers name the real author. */
static void test_inbody_headers(void **state)
{
	struct kb_patch *p = parse_ok(
		"From: Greg <greg@kroah.com>\n"
		"Date: Mon, 7 Mar 2011 10:00:00 -0800\n"
		"Subject: [PATCH 1/2] wrong subject\n"
		"\n"
		"\n"
		"From: Vasiliy Kulikov <segoon@openwall.com>\n"
		"Subject: right\n"
		" subject\n"
		"\n"
		"  indented first line\n"
		"last line\n"
		"\n"
		"\n"
		"diff --git a/f b/f\n"
		"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n");

	(void)state;
	assert_string_equal(p->author_name, "Vasiliy Kulikov");
	assert_string_equal(p->author_email, "segoon@openwall.com");
	assert_string_equal(p->subject, "right subject");
	assert_string_equal(p->date, "Mon, 7 Mar 2011 10:00:00 -0800");
	assert_int_equal(p->tz_offset, -480);
	assert_string_equal(p->body, "  indented first line\nlast line\n");
	assert_int_equal(p->files[0].source_line, 14);
	kb_patch_free(p);
}

static void test_no_newline_markers(void **state)
{
	struct kb_patch *p = parse_ok(
		"--- a/f\n+++ b/f\n"
		"@@ -1,2 +1,2 @@\n"
		" a\n"
		"-b\n"
		"\\ No newline at end of file\n"
		"+c\n"
		"\\ No newline at end of file\n"
		"--- a/g\n+++ b/g\n"
		"@@ -3 +3,2 @@ int g(void)\n"
		" x\n"
		"+y\n");
	const struct kb_hunk *h = &p->files[0].hunks[0];

	(void)state;
	assert_int_equal(h->nlines, 3);
	assert_false(h->lines[0].no_newline);
	assert_true(h->lines[1].no_newline);
	assert_true(h->lines[2].no_newline);
	assert_line(&h->lines[2], '+', "c");
	assert_int_equal(p->nfiles, 2);
	h = &p->files[1].hunks[0];
	assert_int_equal(h->old_start, 3);
	assert_int_equal(h->old_lines, 1);
	assert_int_equal(h->new_lines, 2);
	assert_string_equal(h->section, "int g(void)");
	assert_false(h->lines[1].no_newline);
	kb_patch_free(p);
}

/* Some mailers eat the space of an empty context line. */
static void test_empty_context_line(void **state)
{
	struct kb_patch *p = parse_ok(
		"--- a/f\n+++ b/f\n"
		"@@ -1,3 +1,3 @@\n"
		" a\n"
		"\n"
		"-b\n"
		"+c\n"
		"\n");
	const struct kb_hunk *h = &p->files[0].hunks[0];

	(void)state;
	assert_int_equal(h->nlines, 4);
	assert_line(&h->lines[1], ' ', "");
	assert_line(&h->lines[3], '+', "c");
	kb_patch_free(p);
}

static void test_new_and_deleted_files(void **state)
{
	struct kb_patch *p = parse_ok(
		"diff --git a/new.c b/new.c\n"
		"new file mode 100644\n"
		"index 0000000..3b18e51\n"
		"--- /dev/null\n"
		"+++ b/new.c\n"
		"@@ -0,0 +1,2 @@\n"
		"+hello\n"
		"+world\n"
		"\\ No newline at end of file\n"
		"diff --git a/old.c b/old.c\n"
		"deleted file mode 100644\n"
		"index 3b18e51..0000000\n"
		"--- a/old.c\n"
		"+++ /dev/null\n"
		"@@ -1,2 +0,0 @@\n"
		"-hello\n"
		"-world\n");
	const struct kb_file_patch *f = &p->files[0];

	(void)state;
	assert_null(p->body);
	assert_null(p->subject);
	assert_null(f->old_path);
	assert_string_equal(f->new_path, "new.c");
	assert_string_equal(kb_file_patch_path(f), "new.c");
	assert_string_equal(f->old_id, "0000000");
	assert_string_equal(f->new_id, "3b18e51");
	assert_int_equal(f->hunks[0].old_start, 0);
	assert_int_equal(f->hunks[0].old_lines, 0);
	assert_int_equal(f->hunks[0].new_start, 1);
	assert_true(f->hunks[0].lines[1].no_newline);
	f = &p->files[1];
	assert_string_equal(f->old_path, "old.c");
	assert_null(f->new_path);
	assert_string_equal(kb_file_patch_path(f), "old.c");
	assert_int_equal(f->hunks[0].new_start, 0);
	assert_int_equal(f->hunks[0].new_lines, 0);
	assert_int_equal(f->source_line, 10);
	kb_patch_free(p);
}

/* diff -u output: no mail, no "diff --git", dates after a tab. */
static void test_plain_diff(void **state)
{
	struct kb_patch *p = parse_ok(
		"Index: linux/net/core/dev.c\n"
		"===================================================\n"
		"diff -u linux.orig/net/core/dev.c linux/net/core/dev.c\n"
		"--- linux.orig/net/core/dev.c\t2011-03-01 10:00:00.000000000 +0300\n"
		"+++ linux/net/core/dev.c\t2011-03-02 00:33:13.000000000 +0300\n"
		"@@ -1,2 +1,2 @@\n"
		"-a\n"
		"+b\n"
		" c\n"
		"--- a/x/y.h\n"
		"+++ b/x/y.h\n"
		"@@ -7 +7 @@\n"
		"-old\n"
		"+new\n");

	(void)state;
	assert_null(p->author_name);
	assert_null(p->body);
	assert_int_equal(p->nfiles, 2);
	assert_string_equal(p->files[0].old_path, "net/core/dev.c");
	assert_string_equal(p->files[0].new_path, "net/core/dev.c");
	assert_string_equal(p->files[0].old_id, "");
	assert_int_equal(p->files[0].source_line, 4);
	assert_int_equal(p->files[0].hunks[0].nlines, 3);
	assert_string_equal(p->files[1].new_path, "x/y.h");
	assert_int_equal(p->files[1].hunks[0].old_start, 7);
	assert_int_equal(p->files[1].hunks[0].old_lines, 1);
	assert_int_equal(p->files[1].hunks[0].source_line, 12);
	kb_patch_free(p);
}

struct bad {
	const char *text;
	const char *message;
};

static const struct bad bad_patches[] = {
	{ "", "t.patch: no diff found" },
	{ "From: A <a@b.c>\nSubject: x\n\nJust words.\n---\n", "t.patch: no diff found" },
	{ "diff --git a/f b/f\nindex 1234567..89abcde 100644\nGIT binary patch\nliteral 5\n",
	  "t.patch:3: binary patches are not supported" },
	{ "diff --git a/f b/f\nindex 1234567..89abcde 100644\n"
	  "Binary files a/f and b/f differ\n",
	  "t.patch:3: binary patches are not supported" },
	{ "--- a/f\n+++ b/f\r\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:2: CRLF line endings are not supported" },
	{ "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:1: absolute path '/etc/passwd' is not allowed" },
	{ "--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:1: path 'a/../etc/passwd' leaves the tree" },
	{ "--- a/f\n+++ b/x/../../f\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:2: path 'b/x/../../f' leaves the tree" },
	{ "--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:1: path 'a/.git/config' is inside .git" },
	{ "--- a//f\n+++ b//f\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:1: malformed path 'a//f'" },
	{ "--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:1: path 'f' has no a/ or b/ prefix" },
	{ "--- \"a/f\\tg\"\n+++ \"b/f\\tg\"\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:1: quoted paths are not supported" },
	{ "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+b\n",
	  "t.patch:2: both paths are /dev/null" },
	{ "--- a/f\n+++ b/g\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:2: 'f' and 'g' differ: renames are not supported (write the patch "
	  "with 'git format-patch --no-renames', or make the fix with 'kbackport fix new "
	  "--from-commit')" },
	{ "diff --git a/f b/g\nsimilarity index 90%\nrename from f\nrename to g\n",
	  "t.patch:2: renames and copies are not supported (write the patch with "
	  "'git format-patch --no-renames', or make the fix with 'kbackport fix new "
	  "--from-commit')" },
	/* a mode change or an empty file needs no hunks (test_modes.c); this
	 * changes nothing */
	{ "diff --git a/f b/f\nold mode 100644\nnew mode 100644\n",
	  "t.patch:1: no hunks for 'f'" },
	{ "diff --git a/e b/e\nindex 1234567..89abcde 100755\n"
	  "diff --git a/f b/f\n" MINI,
	  "t.patch:1: no hunks for 'e'" },
	{ "--- a/f\n+++ b/f\n-- \n2.30.0\n", "t.patch:1: no hunks for 'f'" },
	{ "diff --git a/f b/f\n--- a/f\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:3: expected a '+++' line" },
	{ "diff --git a/f b/f\nindex 12..34 100644\n" MINI,
	  "t.patch:2: malformed index line" },
	{ "--- a/f\n+++ b/f\n@@ -1,2 +1,2\n-a\n+b\n",
	  "t.patch:3: hunk header is malformed" },
	{ "--- a/f\n+++ b/f\n@@ -x +1 @@\n-a\n+b\n",
	  "t.patch:3: hunk header is malformed" },
	{ "--- a/f\n+++ b/f\n@@ -0,1 +1 @@\n-a\n+b\n",
	  "t.patch:3: hunk header is malformed" },
	{ "--- a/f\n+++ b/f\n@@ -1,0 +1,0 @@\n",
	  "t.patch:3: hunk header is malformed" },
	{ "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n",
	  "t.patch:3: hunk ends early (0 old and 1 new lines missing)" },
	{ "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\ndiff --git a/g b/g\n",
	  "t.patch:3: hunk ends early (2 old and 2 new lines missing)" },
	/* an empty line is context only while both sides expect lines */
	{ "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n\n+b\n",
	  "t.patch:3: hunk ends early (0 old and 1 new lines missing)" },
	{ "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n+c\n",
	  "t.patch:6: hunk has extra lines" },
	{ "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n-b\n-c\n+x\n+y\n",
	  "t.patch:6: hunk has extra lines" },
	{ "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n c\n",
	  "t.patch:6: hunk has extra lines" },
	{ "--- a/f\n+++ b/f\n@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n",
	  "t.patch:4: '\\' line outside a hunk" },
	{ "--- /dev/null\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:3: new file 'f' has old lines" },
	{ "--- a/f\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n",
	  "t.patch:3: deleted file 'f' has new lines" },
	{ "From: A <a@b.c>\nDate: yesterday\nSubject: x\n\nBody.\n---\n" MINI,
	  "t.patch:2: malformed date 'yesterday'" },
	{ "From: A <a@b.c>\nContent-Transfer-Encoding: quoted-printable\n\n---\n" MINI,
	  "t.patch:2: content transfer encoding 'quoted-printable' is not supported" },
	{ "From 8909c9ad8ff03611c9c96c9a92656213e4bb495b Mon Sep 17 00:00:00 2001\n"
	  "Subject: one\n\n---\n" MINI
	  "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
	  "Subject: two\n\n---\n" MINI,
	  "t.patch:10: a second mail starts here: give one patch per file" },
};

static void test_rejections(void **state)
{
	struct kb_patch *p;
	size_t i;
	int err;

	(void)state;
	for (i = 0; i < sizeof(bad_patches) / sizeof(bad_patches[0]); i++) {
		p = (struct kb_patch *)1;
		kb_error_clear();
		err = kb_patch_parse(&p, bad_patches[i].text,
				     strlen(bad_patches[i].text), "t.patch");
		if (err != KB_EINVALID || strcmp(kb_error_last(), bad_patches[i].message))
			fail_msg("case %zu: got %d '%s', want '%s'", i, err,
				 kb_error_last(), bad_patches[i].message);
		assert_null(p);
	}
}

static void test_nul_byte(void **state)
{
	static const char text[] = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\0\n+b\n";
	struct kb_patch *p = NULL;

	(void)state;
	assert_int_equal(kb_patch_parse(&p, text, sizeof(text) - 1, "t.patch"),
			 KB_EINVALID);
	assert_string_equal(kb_error_last(), "t.patch:4: NUL byte in patch");
	assert_null(p);
}

static void test_load(void **state)
{
	struct sandbox *sb = *state;
	const char *path = sb_path(sb, "upstream.patch");
	struct kb_patch *p = NULL;
	FILE *fp;

	assert_non_null(fp = fopen(path, "w"));
	fputs(seed_patch, fp);
	fclose(fp);
	assert_int_equal(kb_patch_load(&p, path), 0);
	assert_int_equal(p->nfiles, 3);
	assert_string_equal(p->author_email, "segoon@openwall.com");
	kb_patch_free(p);
	unlink(path);
	assert_int_equal(kb_patch_load(&p, path), KB_ENOTFOUND);
	assert_null(p);
	kb_patch_free(NULL);
}

static void test_parse_date(void **state)
{
	int64_t t = 0;
	int tz = 0;

	(void)state;
	assert_int_equal(kb_parse_date(&t, &tz, "Wed, 2 Mar 2011 00:33:13 +0300"), 0);
	assert_int_equal(t, 1299015193);
	assert_int_equal(tz, 180);
	assert_int_equal(kb_parse_date(&t, &tz, "2 Mar 2011 00:33:13 -0130"), 0);
	assert_int_equal(t, 1299031393);
	assert_int_equal(tz, -90);
	assert_int_equal(kb_parse_date(&t, &tz, "Tue, 01 Jan 2030 12:00 GMT"), 0);
	assert_int_equal(t, 1893499200);
	assert_int_equal(tz, 0);
	assert_int_equal(kb_parse_date(&t, &tz, "Thu, 1 Jan 1970 00:00:00 +0100 (CET)"), 0);
	assert_int_equal(t, -3600);
	assert_int_equal(tz, 60);
	assert_int_equal(kb_parse_date(&t, &tz, "Wed,  2 mar 11 00:33:13 +0300"), 0);
	assert_int_equal(t, 1299015193);
}

static void test_parse_date_bad(void **state)
{
	static const char *const bad[] = { "", "yesterday",
		"Mon, 30 Feb 2011 00:00:00 +0000", "2 Foo 2011 00:00:00 +0000",
		"2 Mar 2011 00:33:13", "2 Mar 2011 24:00:00 +0000",
		"2 Mar 2011 00:33:13 +0360", "2 Mar 2011 00:33:13 +03",
		"2 Mar 2011 00:33:13 +0300 junk", "2 Mar 2011 0033 +0300", NULL };
	int64_t t = 42;
	int tz = 7;
	size_t i;

	(void)state;
	for (i = 0; bad[i]; i++) {
		if (kb_parse_date(&t, &tz, bad[i]) != KB_EINVALID)
			fail_msg("'%s' parsed", bad[i]);
		assert_int_equal(t, 42);
		assert_int_equal(tz, 7);
	}
	assert_string_equal(kb_error_last(), "malformed date '2 Mar 2011 0033 +0300'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_headers),
		cmocka_unit_test(test_seed_files),
		cmocka_unit_test(test_subject_folding_and_prefix),
		cmocka_unit_test(test_encoded_and_quoted_names),
		cmocka_unit_test(test_encoded_charsets),
		cmocka_unit_test(test_header_controls),
		cmocka_unit_test(test_encoded_refusals),
		cmocka_unit_test(test_dep3_headers),
		cmocka_unit_test(test_inbody_headers),
		cmocka_unit_test(test_no_newline_markers),
		cmocka_unit_test(test_empty_context_line),
		cmocka_unit_test(test_new_and_deleted_files),
		cmocka_unit_test(test_plain_diff),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test_setup_teardown(test_load, sandbox_setup, sandbox_teardown),
		cmocka_unit_test(test_parse_date),
		cmocka_unit_test(test_parse_date_bad),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
