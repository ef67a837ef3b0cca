/* kb_lines, kb_locate_hunk(), kb_hunk_apply(), kb_file_apply() and the
 * whitespace-insensitive helpers. Hunks come from kb_patch_parse(). */
#include "unit.h"

#include "util/error.h"
#include "apply/locate.h"
#include "apply/patch.h"

static struct kb_patch *patch_of(const char *diff)
{
	struct kb_patch *patch = NULL;
	int err = kb_patch_parse(&patch, diff, strlen(diff), "t.patch");

	if (err)
		fail_msg("unexpected error %d: %s", err, kb_error_last());
	return patch;
}

static void split(struct kb_lines *lines, const char *text)
{
	assert_int_equal(kb_lines_split(lines, text, strlen(text)), 0);
}

/* "a1\n" ... "a<n>\n" */
static const char lines20[] =
	"a1\na2\na3\na4\na5\na6\na7\na8\na9\na10\n"
	"a11\na12\na13\na14\na15\na16\na17\na18\na19\na20\n";

static const struct kb_locate_opts exact = { 0, false, false, false, false };

/* ---- kb_lines ---- */

static void assert_roundtrip(const char *text, size_t n, bool no_final_newline)
{
	struct kb_lines lines = KB_LINES_INIT;
	char *out = NULL;
	size_t len = 99;

	split(&lines, text);
	assert_int_equal(lines.n, n);
	assert_int_equal(lines.no_final_newline, no_final_newline);
	assert_int_equal(kb_lines_join(&out, &len, &lines), 0);
	assert_string_equal(out, text);
	assert_int_equal(len, strlen(text));
	free(out);
	kb_lines_release(&lines);
	assert_null(lines.v);
	assert_int_equal(lines.n, 0);
}

static void test_lines_split_join(void **state)
{
	struct kb_lines lines = KB_LINES_INIT;

	(void)state;
	assert_roundtrip("", 0, false);
	assert_roundtrip("a\n", 1, false);
	assert_roundtrip("a\nb", 2, true);
	assert_roundtrip("\n\n", 2, false);
	assert_roundtrip("a\n\nb\n", 3, false);
	assert_roundtrip(lines20, 20, false);
	/* CRLF: read as LF lines, joined back with CRLF; mixed endings as is */
	assert_roundtrip("a\r\nb\r\n", 2, false);
	assert_roundtrip("a\r\nb", 2, true);
	assert_roundtrip("a\r\nb\n", 2, false);
	split(&lines, "a\r\nb\r\n");
	assert_true(lines.crlf);
	assert_int_equal(lines.v[0].len, 1);
	split(&lines, "a\r\nb\n");
	assert_false(lines.crlf);
	assert_int_equal(lines.v[0].len, 2);
	split(&lines, "one\n\nthree");
	assert_int_equal(lines.v[0].len, 3);
	assert_memory_equal(lines.v[0].ptr, "one", 3);
	assert_int_equal(lines.v[1].len, 0);
	assert_memory_equal(lines.v[2].ptr, "three", 5);
	/* reuse keeps the allocation and resets the flag */
	split(&lines, "x\n");
	assert_int_equal(lines.n, 1);
	assert_false(lines.no_final_newline);
	kb_lines_release(&lines);
}

/* ---- kb_locate_hunk ---- */

static const char *const h7 =
	"--- a/f\n+++ b/f\n"
	"@@ -4,7 +4,7 @@\n"
	" a4\n a5\n a6\n-a7\n+X\n a8\n a9\n a10\n";

static void locate(struct kb_match *m, int want, const char *file_text,
		   const char *diff, size_t expected, size_t min_line,
		   const struct kb_locate_opts *opts)
{
	struct kb_lines file = KB_LINES_INIT;
	struct kb_patch *p = patch_of(diff);

	split(&file, file_text);
	assert_int_equal(kb_locate_hunk(m, &file, &p->files[0].hunks[0], expected,
					min_line, opts), want);
	kb_lines_release(&file);
	kb_patch_free(p);
}

static void assert_match(const struct kb_match *m, size_t line, long offset,
			 unsigned th, unsigned tt, bool ws)
{
	assert_int_equal(m->line, line);
	assert_int_equal(m->offset, offset);
	assert_int_equal(m->trim_head, th);
	assert_int_equal(m->trim_tail, tt);
	assert_int_equal(m->fuzz, th > tt ? th : tt);
	assert_int_equal(m->whitespace, ws);
}

static void test_locate_exact_and_offsets(void **state)
{
	struct kb_match m;

	(void)state;
	locate(&m, 0, lines20, h7, 3, 0, &exact);
	assert_match(&m, 3, 0, 0, 0, false);
	locate(&m, 0, lines20, h7, 8, 0, &exact);
	assert_match(&m, 3, -5, 0, 0, false);
	locate(&m, 0, lines20, h7, 0, 0, &exact);
	assert_match(&m, 3, 3, 0, 0, false);
	/* beyond the end of the file */
	locate(&m, 0, lines20, h7, 500, 0, &exact);
	assert_match(&m, 3, -497, 0, 0, false);
	locate(&m, KB_ENOTFOUND, lines20, h7, 3, 4, &exact);
	assert_match(&m, 0, 0, 0, 0, false);
}

/* The same lines at 1 and 11: the one nearer to the expected line wins,
 * the later one on a tie (as git apply and GNU patch), and never one
 * before min_line. */
static void test_locate_nearest(void **state)
{
	static const char file[] =
		"x\nb\nc\nd\ne\nx\nx\nx\nx\nx\nx\nb\nc\nd\ne\nx\n";
	static const char diff[] =
		"--- a/f\n+++ b/f\n@@ -2,4 +2,4 @@\n b\n c\n-d\n+D\n e\n";
	struct kb_match m;

	(void)state;
	locate(&m, 0, file, diff, 7, 0, &exact);
	assert_match(&m, 11, 4, 0, 0, false);
	locate(&m, 0, file, diff, 5, 0, &exact);
	assert_match(&m, 1, -4, 0, 0, false);
	locate(&m, 0, file, diff, 6, 0, &exact);	/* tie: 5 either way */
	assert_match(&m, 11, 5, 0, 0, false);
	locate(&m, 0, file, diff, 1, 2, &exact);
	assert_match(&m, 11, 10, 0, 0, false);
	locate(&m, KB_ENOTFOUND, file, diff, 1, 12, &exact);
}

static void test_locate_fuzz(void **state)
{
	struct kb_locate_opts fuzz1 = { 1, false, false, false, false }, fuzz2 = { 2, false, false, false, false };
	struct kb_match m;
	static const char changed_a4[] =
		"a1\na2\na3\nA4\na5\na6\na7\na8\na9\na10\n";
	static const char changed_a4_a5[] =
		"a1\na2\na3\nA4\nA5\na6\na7\na8\na9\nA10\n";
	static const char changed_a9_a10[] =
		"a1\na2\na3\na4\na5\na6\na7\na8\nA9\nA10\n";
	static const char short_context[] =
		"--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a5\n a6\n-a7\n+X\n a8\n";
	struct kb_locate_opts fuzz5 = { 5, false, false, false, false };
	/* no leading context: only the tail can be trimmed */
	static const char tail_only[] =
		"--- a/f\n+++ b/f\n@@ -7,4 +7,4 @@\n-a7\n+X\n a8\n a9\n a10\n";

	(void)state;
	locate(&m, KB_ENOTFOUND, changed_a4, h7, 3, 0, &exact);
	locate(&m, 0, changed_a4, h7, 3, 0, &fuzz1);
	assert_match(&m, 4, 0, 1, 1, false);
	locate(&m, KB_ENOTFOUND, changed_a4_a5, h7, 3, 0, &fuzz1);
	locate(&m, 0, changed_a4_a5, h7, 3, 0, &fuzz2);
	assert_match(&m, 5, 0, 2, 2, false);
	locate(&m, 0, changed_a4_a5, tail_only, 6, 0, &fuzz1);
	assert_match(&m, 6, 0, 0, 1, false);
	locate(&m, KB_ENOTFOUND, changed_a9_a10, tail_only, 6, 0, &fuzz1);
	locate(&m, 0, changed_a9_a10, tail_only, 6, 0, &fuzz2);
	assert_match(&m, 6, 0, 0, 2, false);
	/* trimming stops at the context: 2 lines at the head, 1 at the tail,
	 * and never drops all of it (the block rule judges a bare change) */
	locate(&m, 0, "b5\na6\na7\nb8\n", short_context, 0, 0, &fuzz5);
	assert_match(&m, 1, 0, 1, 1, false);
	locate(&m, KB_ENOTFOUND, "b5\nb6\na7\nb8\n", short_context, 0, 0, &fuzz5);
	locate(&m, KB_ENOTFOUND, "b5\nb6\nb7\nb8\n", short_context, 0, 0, &fuzz5);
}

/* A hunk whose leading context is cut short by the start of the file may
 * only match there. */
static void test_locate_anchored_at_start(void **state)
{
	static const char diff[] =
		"--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n+#include <x.h>\n a\n b\n c\n";
	struct kb_match m;

	(void)state;
	locate(&m, 0, "a\nb\nc\nd\n", diff, 0, 0, NULL);
	assert_match(&m, 0, 0, 0, 0, false);
	locate(&m, KB_ENOTFOUND, "z\na\nb\nc\n", diff, 0, 0, NULL);
}

static void test_locate_whitespace(void **state)
{
	static const char file[] = "{\n\tint  x = 1;  \n  return x;\n}\n";
	static const char diff[] =
		"--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n"
		" {\n-    int x = 1;\n+    int x = 2;\n \treturn x;\n }\n";
	struct kb_locate_opts no_ws = { 2, false, false, false, false };
	struct kb_match m;

	(void)state;
	locate(&m, 0, file, diff, 0, 0, NULL);
	assert_match(&m, 0, 0, 0, 0, true);
	locate(&m, KB_ENOTFOUND, file, diff, 0, 0, &no_ws);
	/* "int x" and "intx" are different lines */
	locate(&m, KB_ENOTFOUND, "{\nintx = 1;\nreturn x;\n}\n", diff, 0, 0, NULL);
}

/* Fuzz 0 whitespace-insensitive beats fuzz 1 exact; exact beats
 * whitespace-insensitive at the same fuzz even when farther away. */
static void test_locate_preference(void **state)
{
	static const char diff[] =
		"--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n p\n-q\n+Q\n r\n";
	struct kb_match m;

	(void)state;
	locate(&m, 0, "x\np \nq\nr\nx\nx\nx\nx\nP\nq\nr\n", diff, 1, 0, NULL);
	assert_match(&m, 1, 0, 0, 0, true);
	locate(&m, 0, "x\np \nq\nr\nx\nx\nx\nx\np\nq\nr\n", diff, 1, 0, NULL);
	assert_match(&m, 8, 7, 0, 0, false);
}

/* Nothing but '+' lines left after trimming: never a match. */
static void test_locate_needs_preimage(void **state)
{
	struct kb_match m;

	(void)state;
	locate(&m, KB_ENOTFOUND, "x\ny\n",
	       "--- a/f\n+++ b/f\n@@ -3,2 +3,3 @@\n a\n+b\n c\n", 2, 0,
	       &(struct kb_locate_opts){ 1, true, false, false, false });
	/* a new file fits only an empty one */
	locate(&m, 0, "", "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+a\n", 0, 0, NULL);
	assert_match(&m, 0, 0, 0, 0, false);
	locate(&m, KB_ENOTFOUND, "a\n", "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+a\n",
	       0, 0, NULL);
}

/* ---- kb_hunk_apply ---- */

static void test_hunk_apply_keeps_file_context(void **state)
{
	static const char text[] = "{\n\tint  x = 1;  \n  return x;\n}\n";
	struct kb_patch *p = patch_of(
		"--- a/f\n+++ b/f\n@@ -1,4 +1,5 @@\n"
		" {\n-    int x = 1;\n+    int x = 2;\n+    x++;\n \treturn x;\n }\n");
	struct kb_lines file = KB_LINES_INIT;
	struct kb_match m;
	size_t end = 0, len;
	char *out = NULL;

	(void)state;
	split(&file, text);
	assert_int_equal(kb_locate_hunk(&m, &file, &p->files[0].hunks[0], 0, 0, NULL), 0);
	assert_true(m.whitespace);
	assert_int_equal(kb_hunk_apply(&file, &p->files[0].hunks[0], &m, &end), 0);
	assert_int_equal(end, 5);
	assert_int_equal(kb_lines_join(&out, &len, &file), 0);
	assert_string_equal(out, "{\n    int x = 2;\n    x++;\n  return x;\n}\n");
	free(out);
	kb_lines_release(&file);
	kb_patch_free(p);
}

/* Lines dropped by fuzz stay as they are in the file. */
static void test_hunk_apply_fuzzed(void **state)
{
	static const char text[] = "a1\na2\na3\nA4\na5\na6\na7\na8\na9\na10\n";
	struct kb_patch *p = patch_of(h7);
	struct kb_lines file = KB_LINES_INIT;
	struct kb_match m;
	size_t end = 0, len;
	char *out = NULL;

	(void)state;
	split(&file, text);
	assert_int_equal(kb_locate_hunk(&m, &file, &p->files[0].hunks[0], 3, 0, NULL), 0);
	assert_match(&m, 4, 0, 1, 1, false);
	assert_int_equal(kb_hunk_apply(&file, &p->files[0].hunks[0], &m, &end), 0);
	assert_int_equal(end, 9);
	assert_int_equal(kb_lines_join(&out, &len, &file), 0);
	assert_string_equal(out, "a1\na2\na3\nA4\na5\na6\nX\na8\na9\na10\n");
	free(out);
	kb_lines_release(&file);
	kb_patch_free(p);
}

/* ---- kb_file_apply ---- */

static int file_apply(char **out, struct kb_hunk_result *r, const char *text,
		      const struct kb_patch *p, const struct kb_locate_opts *opts)
{
	size_t len = 12345;
	int err;

	*out = (char *)1;
	err = kb_file_apply(out, &len, r, text, strlen(text), &p->files[0], opts);
	if (!err)
		assert_int_equal(len, strlen(*out));
	else
		assert_int_equal(len, 0);
	return err;
}

/* Three hunks made against a1..a20; the tree has two lines more at the
 * top, lacks a8 and has an extra y before a17. */
static void test_file_apply_offsets(void **state)
{
	struct kb_patch *p = patch_of(
		"--- a/f\n+++ b/f\n"
		"@@ -2,6 +2,7 @@\n a2\n a3\n a4\n+n1\n a5\n a6\n a7\n"
		"@@ -10,7 +11,6 @@\n a10\n a11\n a12\n-a13\n a14\n a15\n a16\n"
		"@@ -17,4 +17,5 @@\n a17\n a18\n a19\n-a20\n+b20\n+b21\n");
	static const char text[] =
		"x1\nx2\na1\na2\na3\na4\na5\na6\na7\na9\na10\n"
		"a11\na12\na13\na14\na15\na16\ny\na17\na18\na19\na20\n";
	struct kb_hunk_result r[3];
	char *out;

	(void)state;
	assert_int_equal(file_apply(&out, r, text, p, NULL), 0);
	assert_string_equal(out,
		"x1\nx2\na1\na2\na3\na4\nn1\na5\na6\na7\na9\na10\n"
		"a11\na12\na14\na15\na16\ny\na17\na18\na19\nb20\nb21\n");
	assert_int_equal(r[0].status, KB_HUNK_APPLIED);
	assert_match(&r[0].match, 3, 2, 0, 0, false);
	assert_int_equal(r[1].status, KB_HUNK_APPLIED);
	assert_match(&r[1].match, 11, -1, 0, 0, false);
	assert_int_equal(r[2].status, KB_HUNK_APPLIED);
	assert_match(&r[2].match, 18, 1, 0, 0, false);
	free(out);
	kb_patch_free(p);
}

static const char *const fgh_patch =
	"--- a/f.c\n+++ b/f.c\n"
	"@@ -2,3 +2,4 @@\n {\n \tint x = 1;\n+\tx++;\n \treturn x;\n"
	"@@ -7,4 +8,5 @@\n int g(void)\n {\n+\tg_called = 1;\n \treturn 0;\n }\n"
	"@@ -12,4 +14,6 @@\n int h(void)\n {\n+\th_called = 1;\n+\n \treturn 2;\n }\n";

/* ---- kb_file_decide: already in, applies, partly in ---- */

struct decided {
	enum kb_file_state state;
	struct kb_hunk_result r[8];
	char *text;		/* APPLIES: the new file; PRESENT: the file undone */
};

static void decide(struct decided *d, const char *file, const char *diff)
{
	struct kb_patch *p = patch_of(diff), *rev = NULL;
	struct kb_file_decision fd;

	assert_true(p->files[0].nhunks <= 8);
	assert_int_equal(kb_patch_reverse(&rev, p), 0);
	assert_int_equal(kb_file_decide(&fd, d->r, file, strlen(file), &p->files[0],
					&rev->files[0], NULL), 0);
	d->state = fd.state;
	d->text = fd.out ? strdup(fd.out) : fd.undo ? strdup(fd.undo) : NULL;
	kb_file_decision_release(&fd);
	kb_patch_free(rev);
	kb_patch_free(p);
}

#define FGH_UNFIXED \
	"int f(void)\n{\n\tint x = 1;\n\treturn x;\n}\n\n" \
	"int g(void)\n{\n\treturn 0;\n}\n\n" \
	"int h(void)\n{\n\treturn 2;\n}\n"

/* A vendor's copy: other indentation, a blank line lost, one gained. */
static void test_decide_present_with_drift(void **state)
{
	static const char text[] =
		"int f(void)\n{\n    int  x = 1;\n    x++;\n\n    return x;\n}\n\n"
		"int g(void)\n{\n\tg_called = 1;\n\treturn 0;\n}\n\n"
		"int h(void)\n{\n\th_called = 1;\n\treturn 2;\n}\n";
	struct decided d;

	(void)state;
	decide(&d, text, fgh_patch);
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_int_equal(d.r[0].status, KB_HUNK_PRESENT);
	assert_true(d.r[0].match.whitespace);
	assert_int_equal(d.r[2].status, KB_HUNK_PRESENT);
	/* undone, the file keeps its own whitespace around the change */
	assert_string_equal(d.text,
		"int f(void)\n{\n    int  x = 1;\n\n    return x;\n}\n\n"
		"int g(void)\n{\n\treturn 0;\n}\n\n"
		"int h(void)\n{\n\treturn 2;\n}\n");
	free(d.text);
}

/* The vendor moved g() before f(): every hunk is still in, in place. */
static void test_decide_present_reordered(void **state)
{
	static const char fixed[] =
		"int g(void)\n{\n\tg_called = 1;\n\treturn 0;\n}\n\n"
		"int h(void)\n{\n\th_called = 1;\n\n\treturn 2;\n}\n\n"
		"int f(void)\n{\n\tint x = 1;\n\tx++;\n\treturn x;\n}\n";
	static const char unfixed[] =
		"int g(void)\n{\n\treturn 0;\n}\n\n"
		"int h(void)\n{\n\treturn 2;\n}\n\n"
		"int f(void)\n{\n\tint x = 1;\n\treturn x;\n}\n";
	struct decided d;

	(void)state;
	decide(&d, fixed, fgh_patch);
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_string_equal(d.text, unfixed);
	free(d.text);
	decide(&d, unfixed, fgh_patch);
	assert_int_equal(d.state, KB_FILE_APPLIES);
	assert_string_equal(d.text, fixed);
	free(d.text);
}

/* Hunks 1 and 3 are in, hunk 2 is not: partly in, never already in. */
static void test_decide_partial(void **state)
{
	static const char text[] =
		"int f(void)\n{\n    int  x = 1;\n    x++;\n    return x;\n}\n\n"
		"int g(void)\n{\n\treturn 0;\n}\n\n"
		"int h(void)\n{\n\th_called = 1;\n\treturn 2;\n}\n";
	struct decided d;

	(void)state;
	decide(&d, text, fgh_patch);
	assert_int_equal(d.state, KB_FILE_PARTIAL);
	assert_null(d.text);
	assert_int_equal(d.r[0].status, KB_HUNK_PRESENT);
	assert_int_equal(d.r[1].status, KB_HUNK_APPLIED);
	assert_int_equal(d.r[2].status, KB_HUNK_PRESENT);
}

static void test_decide_conflict(void **state)
{
	static const char text[] =
		"int f(void)\n{\n\tint x = 1;\n\treturn x;\n}\n\n"
		"int g(void)\n{\n\treturn 1;\n}\n\n"
		"int h(void)\n{\n\th_called = 1;\n\n\treturn 2;\n}\n";
	struct decided d;

	(void)state;
	decide(&d, text, fgh_patch);
	assert_int_equal(d.state, KB_FILE_FAILED);
	assert_int_equal(d.r[0].status, KB_HUNK_APPLIED);
	assert_int_equal(d.r[1].status, KB_HUNK_FAILED);
	assert_int_equal(d.r[2].status, KB_HUNK_PRESENT);
	decide(&d, "nothing\n", fgh_patch);
	assert_int_equal(d.state, KB_FILE_FAILED);
	assert_int_equal(d.r[0].status, KB_HUNK_FAILED);
	assert_int_equal(d.r[2].status, KB_HUNK_FAILED);
	decide(&d, FGH_UNFIXED, fgh_patch);
	assert_int_equal(d.state, KB_FILE_APPLIES);
	free(d.text);
}

/* Context trimmed by fuzz must not let an applied hunk apply twice; an
 * insertion at the end of a file (no context after it) is in once there. */
static void test_decide_not_twice(void **state)
{
	struct decided d;

	(void)state;
	decide(&d, "x\na\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n x\n a\n+b\n");
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_string_equal(d.text, "x\na\n");
	free(d.text);
	decide(&d, "x\na\nb\nc\n", "--- a/f\n+++ b/f\n@@ -2,2 +2,3 @@\n a\n+b\n c\n");
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_string_equal(d.text, "x\na\nc\n");
	free(d.text);
}

/*
 * The shapes that fooled the old "added lines are somewhere" test, from
 * real stable commits carried into a vendor tree: the fix is not in, and
 * each must apply, never count as already there.
 */
static void test_decide_false_positives(void **state)
{
	static const struct { const char *what, *file, *diff; } cases[] = {
		{ "an added line that is a substring of the line it replaces",
		  "int f(void)\n{\n\tint err = 0;\n\n\tfoo();\n\treturn err;\n}\n",
		  "--- a/f.c\n+++ b/f.c\n@@ -1,6 +1,7 @@\n int f(void)\n {\n-\tint err = 0;\n"
		  "+\tint err;\n \n+\terr = 0;\n \tfoo();\n \treturn err;\n" },
		{ "an added else",
		  "void f(int x)\n{\n\tif (x)\n\t\ta();\n\tb();\n}\n\n"
		  "void g(int x)\n{\n\tif (x)\n\t\ta();\n\telse\n\t\tc();\n}\n",
		  "--- a/f.c\n+++ b/f.c\n@@ -2,4 +2,5 @@ void f(int x)\n {\n \tif (x)\n \t\ta();\n"
		  "+\telse\n \tb();\n" },
		{ "a table row that is also in another table",
		  "static const int ids_a[] = {\n\t{ 0x0001, 1 },\n\t{ 0x0002, 2 },\n};\n\n"
		  "static const int ids_b[] = {\n\t{ 0x0001, 1 },\n\t{ 0x1234, 7 },\n\t{ 0x0003, 3 },\n};\n",
		  "--- a/t.c\n+++ b/t.c\n@@ -1,4 +1,5 @@\n static const int ids_a[] = {\n"
		  " \t{ 0x0001, 1 },\n \t{ 0x0002, 2 },\n+\t{ 0x1234, 7 },\n };\n" },
		{ "lines that exist in another function",
		  "void g(void)\n{\n\trcu_read_lock();\n\tspin_lock_irqsave(&l, fl);\n"
		  "\tposix_acl_release(clone);\n\tuse();\n}\n\n"
		  "void f(void)\n{\n\tuse();\n}\n",
		  "--- a/f.c\n+++ b/f.c\n@@ -9,3 +9,6 @@\n void f(void)\n {\n+\trcu_read_lock();\n"
		  "+\tspin_lock_irqsave(&l, fl);\n+\tposix_acl_release(clone);\n \tuse();\n" },
	};
	struct decided d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		decide(&d, cases[i].file, cases[i].diff);
		if (d.state != KB_FILE_APPLIES)
			fail_msg("%s: state %d, not applies", cases[i].what, d.state);
		assert_int_equal(d.r[0].status, KB_HUNK_APPLIED);
		free(d.text);
	}
}

/* With its context dropped by fuzz, a hunk that fits twice is refused. */
static void test_decide_ambiguous(void **state)
{
	static const char text[] =
		"x1\n{\n\treturn 0;\n}\nx2\n\n"
		"y1\n{\n\treturn 0;\n}\ny2\n";
	struct decided d;

	(void)state;
	decide(&d, text, "--- a/f\n+++ b/f\n@@ -1,5 +1,6 @@\n q1\n {\n \treturn 0;\n+\tnew();\n }\n q2\n");
	assert_int_equal(d.state, KB_FILE_FAILED);
	assert_int_equal(d.r[0].status, KB_HUNK_AMBIGUOUS);
	assert_int_equal(d.r[0].match.line, 1);
	assert_int_equal(d.r[0].match.trim_head, 1);
	assert_int_equal(d.r[0].match.ambiguity, KB_AMBIG_TWICE);
	assert_int_equal(d.r[0].match.other_line, 6);	/* where the hunk would start */
	assert_false(d.r[0].match.other_reverse);
}

/*
 * An insertion whose neighbours moved apart: hung on the side that meets
 * the end of the file, where both sides fit once; refused when one side
 * is found nowhere (the tree lacks what the patch expects beside it).
 */
static void test_decide_anchor(void **state)
{
	static const char *const diff =
		"--- a/h.h\n+++ b/h.h\n@@ -3,6 +3,8 @@\n a\n b\n c\n+\n+#define NEW 1\n"
		" #endif /* K */\n \n #endif /* H */\n";
	struct decided d;

	(void)state;
	decide(&d, "#ifndef H\n#ifdef K\na\nb\nc\n\nmore\nstuff\n#endif /* K */\n\n#endif /* H */\n", diff);
	assert_int_equal(d.state, KB_FILE_APPLIES);
	assert_int_equal(d.r[0].match.anchor, KB_ANCHOR_TRAIL);
	assert_string_equal(d.text, "#ifndef H\n#ifdef K\na\nb\nc\n\nmore\nstuff\n\n#define NEW 1\n"
			    "#endif /* K */\n\n#endif /* H */\n");
	free(d.text);
	decide(&d, "#ifndef H\n#ifdef K\nother\n#endif /* K */\n\n#endif /* H */\n", diff);
	assert_int_equal(d.state, KB_FILE_FAILED);
}

/*
 * An insertion moved elsewhere by a vendor is found by its own lines, if
 * they are at least two non-blank lines and occur once; fuzz never drops
 * all of a hunk's context to find them.
 */
static void test_decide_block(void **state)
{
	static const char *const diff =
		"--- a/h.h\n+++ b/h.h\n@@ -1,4 +1,6 @@\n int a(void);\n int b(void);\n"
		"+#define NEW(x) \\\n+\tOLD(\"new-\" x)\n #if defined(DEBUG)\n #define X\n";
	struct decided d;

	(void)state;
	decide(&d, "int a2(void);\n#define NEW(x)\t\t\\\n\tOLD(\"new-\" x)\n#if defined(OTHER)\n", diff);
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_int_equal(d.r[0].match.anchor, KB_ANCHOR_BLOCK);
	assert_string_equal(d.text, "int a2(void);\n#if defined(OTHER)\n");
	free(d.text);
	/* twice: no telling which copy is the fix's */
	decide(&d, "#define NEW(x) \\\n\tOLD(\"new-\" x)\nint a2(void);\n#define NEW(x) \\\n\tOLD(\"new-\" x)\n", diff);
	assert_int_equal(d.state, KB_FILE_FAILED);
}

/* ---- ambiguity: never in, both places named (issue 25, 3 and 4) ---- */

static const char *const swap_patch =
	"--- a/f\n+++ b/f\n"
	"@@ -1,3 +1,3 @@\n a1\n-X\n+Y\n a3\n"
	"@@ -16,6 +16,7 @@\n b1\n b2\n b3\n b4\n+NEW\n b5\n b6\n";

/*
 * Hunk 1 fits at its own line, and its reverse fits 12 lines further:
 * ambiguous, never in, even though hunk 2 is in. Alone it is ambiguous
 * too; as the second hunk as well. Its reverse strictly nearer its own
 * line than its change is in (git apply -R and GNU patch -R take it).
 */
static void test_decide_ambiguous_never_in(void **state)
{
	static const char file[] =
		"a1\nX\na3\na4\na5\na6\na7\na8\na9\na10\na11\na12\na1\nY\na3\n"
		"b1\nb2\nb3\nb4\nNEW\nb5\nb6\n";
	static const char second[] =
		"b1\nb2\nb3\nb4\nNEW\nb5\nb6\nc8\nc9\nc10\nc11\nc12\nc13\nc14\nc15\nc16\nc17\nc18\nc19\n"
		"a1\nX\na3\nc23\nc24\nc25\nc26\nc27\nc28\nc29\nc30\na1\nY\na3\n";
	static const char *const second_patch =
		"--- a/f\n+++ b/f\n"
		"@@ -1,6 +1,7 @@\n b1\n b2\n b3\n b4\n+NEW\n b5\n b6\n"
		"@@ -19,3 +20,3 @@\n a1\n-X\n+Y\n a3\n";
	static const char nearer_reverse[] =
		"a1\nY\na3\na4\na5\na6\na7\na8\na9\na10\na11\na12\na1\nX\na3\n"
		"b1\nb2\nb3\nb4\nNEW\nb5\nb6\n";
	struct decided d;

	(void)state;
	decide(&d, file, swap_patch);
	assert_int_equal(d.state, KB_FILE_FAILED);
	assert_null(d.text);
	assert_int_equal(d.r[0].status, KB_HUNK_AMBIGUOUS);
	assert_int_equal(d.r[0].match.ambiguity, KB_AMBIG_WAYS);
	assert_int_equal(d.r[0].match.line, 0);
	assert_false(d.r[0].match.reverse);
	assert_int_equal(d.r[0].match.other_line, 12);
	assert_true(d.r[0].match.other_reverse);
	assert_int_equal(d.r[1].status, KB_HUNK_PRESENT);
	decide(&d, file, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a1\n-X\n+Y\n a3\n");
	assert_int_equal(d.state, KB_FILE_AMBIGUOUS);
	assert_int_equal(d.r[0].status, KB_HUNK_AMBIGUOUS);
	decide(&d, second, second_patch);
	assert_int_equal(d.state, KB_FILE_FAILED);
	assert_int_equal(d.r[0].status, KB_HUNK_PRESENT);
	assert_int_equal(d.r[1].status, KB_HUNK_AMBIGUOUS);
	/* in the lines of the tree's file, not of the forward pass's, which
	 * hung hunk 1 on its leading context a second time */
	assert_int_equal(d.r[1].tree_line, 19);
	assert_int_equal(d.r[1].match.other_line, 30);
	assert_true(d.r[1].match.other_reverse);
	decide(&d, nearer_reverse, swap_patch);
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_int_equal(d.r[0].status, KB_HUNK_PRESENT);
	assert_int_equal(d.r[0].match.line, 0);
	free(d.text);
}

/* A reverse that fits twice, the change nowhere: both places in reverse. */
static void test_decide_ambiguous_in_reverse(void **state)
{
	struct decided d;

	(void)state;
	decide(&d, "a1\nY\na3\nz\nz\nz\nz\na1\nY\na3\n",
	       "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n q\n a1\n-X\n+Y\n a3\n q\n");
	assert_int_equal(d.state, KB_FILE_FAILED);
	assert_int_equal(d.r[0].status, KB_HUNK_AMBIGUOUS);
	assert_true(d.r[0].match.reverse);
	assert_true(d.r[0].match.other_reverse);
	assert_int_equal(d.r[0].match.ambiguity, KB_AMBIG_TWICE);
}

/* ---- where git apply puts a hunk (issue 25, 6) ---- */

/*
 * Hunk 1 is found 6 lines down; hunk 2's lines are at its own line + 2
 * and at its own line + 6 (the offset hunk 1 carries): git apply takes the
 * first, GNU patch the second. Two places: ambiguous, both named.
 */
static void test_file_apply_rules_disagree(void **state)
{
	struct kb_patch *p = patch_of(
		"--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n a2\n-a3\n+A3\n a4\n"
		"@@ -10,3 +10,3 @@\n B1\n-B2\n+NEW\n B3\n");
	static const char text[] =
		"v1\nv2\nv3\nv4\nv5\nv6\na1\na2\na3\na4\na5\nB1\nB2\nB3\na9\nB1\nB2\nB3\nc1\nc2\n";
	struct kb_hunk_result r[2];
	char *out;

	(void)state;
	assert_int_equal(file_apply(&out, r, text, p, NULL), KB_ECONFLICT);
	assert_null(out);
	assert_int_equal(r[0].status, KB_HUNK_APPLIED);
	assert_match(&r[0].match, 7, 6, 0, 0, false);
	assert_int_equal(r[1].status, KB_HUNK_AMBIGUOUS);
	assert_int_equal(r[1].match.ambiguity, KB_AMBIG_RULES);
	assert_int_equal(r[1].match.line, 15);
	assert_int_equal(r[1].match.other_line, 11);
	kb_error_clear();
	kb_patch_free(p);
}

/* The results git apply gives, byte for byte (checked with git 2.39). */
static void test_file_apply_as_git_apply(void **state)
{
	static const struct { const char *what, *diff, *file, *want; } cases[] = {
		{ "the same lines 5 lines either way: the later ones",
		  "--- a/f\n+++ b/f\n@@ -10,3 +10,3 @@\n B1\n-B2\n+NEW\n B3\n",
		  "x1\nx2\nx3\nx4\nB1\nB2\nB3\nx8\nx9\nx10\nx11\nx12\nx13\nx14\nB1\nB2\nB3\nx18\n",
		  "x1\nx2\nx3\nx4\nB1\nB2\nB3\nx8\nx9\nx10\nx11\nx12\nx13\nx14\nB1\nNEW\nB3\nx18\n" },
		{ "a hunk placed before the one before it",
		  "--- a/f\n+++ b/f\n@@ -2,3 +2,4 @@\n a2\n-a3\n+A3\n+A3b\n a4\n"
		  "@@ -10,3 +11,3 @@\n B1\n-B2\n+NEW\n B3\n",
		  "p1\np2\nB1\nB2\nB3\np6\np7\np8\np9\np10\na1\na2\na3\na4\na5\na6\n",
		  "p1\np2\nB1\nNEW\nB3\np6\np7\np8\np9\np10\na1\na2\nA3\nA3b\na4\na5\na6\n" },
		{ "both rules at one place",
		  "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n a2\n-a3\n+A3\n a4\n"
		  "@@ -10,3 +10,3 @@\n B1\n-B2\n+NEW\n B3\n",
		  "v1\nv2\nv3\na1\na2\na3\na4\na5\na6\na7\na8\na9\nB1\nB2\nB3\nc1\n",
		  "v1\nv2\nv3\na1\na2\nA3\na4\na5\na6\na7\na8\na9\nB1\nNEW\nB3\nc1\n" },
	};
	struct kb_hunk_result r[2];
	struct kb_patch *p;
	char *out;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = patch_of(cases[i].diff);
		if (file_apply(&out, r, cases[i].file, p, NULL) != 0)
			fail_msg("%s: does not apply", cases[i].what);
		if (strcmp(out, cases[i].want))
			fail_msg("%s: got\n%s", cases[i].what, out);
		free(out);
		kb_patch_free(p);
	}
}

/* ---- rules other than fuzz report no fuzz (issue 25, 18) ---- */

/*
 * Hung on one side, found by its own lines or block by block: the lines
 * left out are no fuzz, which never exceeds max_fuzz; the rule is named.
 * Each side fitting one place, apart, is ambiguous, and said so too.
 */
static void test_locate_rules_are_not_fuzz(void **state)
{
	static const char *const insert =
		"--- a/f\n+++ b/f\n@@ -2,6 +2,7 @@\n a\n b\n c\n+NEW\n d\n e\n f\n";
	struct kb_locate_opts fuzz1 = { 1, true, true, false, false };
	struct kb_match m;

	(void)state;
	locate(&m, KB_EAMBIGUOUS, "z\na\nb\nc\nq\nq\nd\ne\nf\nz\n", insert, 1, 0, NULL);
	assert_int_equal(m.fuzz, 0);
	assert_int_equal(m.anchor, KB_ANCHOR_LEAD);
	assert_int_equal(m.ambiguity, KB_AMBIG_SIDES);
	assert_int_equal(m.line, 1);
	assert_int_equal(m.other_line, 3);
	locate(&m, 0, "z\na\nb\nc\nq\nq\nd\ne\nf\n", insert, 1, 0, &fuzz1);
	assert_int_equal(m.anchor, KB_ANCHOR_TRAIL);
	assert_int_equal(m.fuzz, 0);
	assert_true(m.fuzz <= fuzz1.max_fuzz);
	assert_int_equal(m.trim_head, 3);
	assert_int_equal(m.line, 6);
}

/* ---- block by block (issue 25, 19) ---- */

static const char *const two_changes =
	"--- a/f.c\n+++ b/f.c\n@@ -3,11 +3,11 @@ int f(void)\n"
	" \tint a;\n \tint b;\n \tlock();\n-\ta = old_a();\n+\ta = new_a();\n"
	" \tb = 1;\n \tc = 2;\n \td = 3;\n-\tunlock_old();\n+\tunlock_new();\n"
	" \treturn a;\n }\n \n";

#define F_HEAD "int f(void)\n{\n\tint a;\n\tint b;\n\tlock();\n"
#define F_TAIL "\treturn a;\n}\n\nint g(void)\n{\n\treturn 0;\n}\n"
#define COMMENT "\t/*\n\t * d must be set last:\n\t * see g()\n\t */\n"

/*
 * A later commit put four comment lines between the two changes of one
 * hunk: neither the change nor its reverse fits whole. Placed block by
 * block, it is in; on a tree without it, it applies around the comment.
 */
static void test_decide_blocks(void **state)
{
	static const char fixed[] = F_HEAD "\ta = new_a();\n\tb = 1;\n\tc = 2;\n" COMMENT
		"\td = 3;\n\tunlock_new();\n" F_TAIL;
	static const char unfixed[] = F_HEAD "\ta = old_a();\n\tb = 1;\n\tc = 2;\n" COMMENT
		"\td = 3;\n\tunlock_old();\n" F_TAIL;
	static const char next_to_change[] = F_HEAD "\ta = new_a();\n\tb = 1;\n\tc = 2;\n"
		"\td = 3;\n" COMMENT "\tunlock_new();\n" F_TAIL;
	static const char reindented[] = "int f(void)\n{\n    int a;\n    int b;\n    lock();\n"
		"    a = new_a();\n    b = 1;\n    c = 2;\n" COMMENT "    d = 3;\n    unlock_new();\n"
		"    return a;\n}\n\n";
	struct decided d;

	(void)state;
	decide(&d, fixed, two_changes);
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_int_equal(d.r[0].match.anchor, KB_ANCHOR_BLOCKS);
	assert_int_equal(d.r[0].match.gap, 4);
	assert_int_equal(d.r[0].match.fuzz, 0);
	assert_string_equal(d.text, unfixed);
	free(d.text);
	decide(&d, unfixed, two_changes);
	assert_int_equal(d.state, KB_FILE_APPLIES);
	assert_int_equal(d.r[0].match.anchor, KB_ANCHOR_BLOCKS);
	assert_string_equal(d.text, fixed);
	free(d.text);
	/* the comment right before a changed line: the line undone (or
	 * done) stays where it was, after the comment */
	decide(&d, next_to_change, two_changes);
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_int_equal(d.r[0].match.gap, 4);
	assert_string_equal(d.text, F_HEAD "\ta = old_a();\n\tb = 1;\n\tc = 2;\n\td = 3;\n" COMMENT
			    "\tunlock_old();\n" F_TAIL);
	free(d.text);
	decide(&d, reindented, two_changes);
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_true(d.r[0].match.whitespace);
	free(d.text);
}

/*
 * Where block by block does not go: more than a few foreign lines, lines
 * inside the outer context, a hunk that fits twice, an insertion whose
 * neighbours are apart, a hunk of one change block.
 */
static void test_decide_blocks_limits(void **state)
{
	static const char too_many[] = F_HEAD "\ta = new_a();\n\tb = 1;\n\tc = 2;\n" COMMENT COMMENT
		"\t/* 9 */\n\td = 3;\n\tunlock_new();\n" F_TAIL;
	static const char in_lead[] = "int f(void)\n{\n\tint a;\n\t/* b */\n\tint b;\n\tlock();\n"
		"\ta = new_a();\n\tb = 1;\n\tc = 2;\n" COMMENT "\td = 3;\n\tunlock_new();\n" F_TAIL;
	static const char twice[] = F_HEAD "\ta = new_a();\n\tb = 1;\n\tc = 2;\n" COMMENT
		"\td = 3;\n\tunlock_new();\n\treturn a;\n}\n\n" F_HEAD "\ta = new_a();\n\tb = 1;\n"
		"\tc = 2;\n\t/* again */\n\td = 3;\n\tunlock_new();\n" F_TAIL;
	static const char *const inserts =
		"--- a/f\n+++ b/f\n@@ -1,8 +1,10 @@\n c1\n c2\n c3\n+N1\n c4\n c5\n c6\n+N2\n c7\n c8\n";
	struct decided d;

	(void)state;
	decide(&d, too_many, two_changes);
	assert_int_equal(d.state, KB_FILE_FAILED);
	decide(&d, in_lead, two_changes);
	assert_int_equal(d.state, KB_FILE_FAILED);
	decide(&d, twice, two_changes);
	assert_int_equal(d.state, KB_FILE_FAILED);
	assert_int_equal(d.r[0].status, KB_HUNK_AMBIGUOUS);
	assert_int_equal(d.r[0].match.ambiguity, KB_AMBIG_TWICE);
	/* inserted between c3 and c4, with a foreign line there: no place */
	decide(&d, "x\nc1\nc2\nc3\nF\nc4\nc5\nc6\nc7\nc8\nx\n", inserts);
	assert_int_equal(d.state, KB_FILE_FAILED);
	/* with the foreign line between c4 and c5 it goes */
	decide(&d, "x\nc1\nc2\nc3\nc4\nF\nc5\nc6\nc7\nc8\nx\n", inserts);
	assert_int_equal(d.state, KB_FILE_APPLIES);
	assert_string_equal(d.text, "x\nc1\nc2\nc3\nN1\nc4\nF\nc5\nc6\nN2\nc7\nc8\nx\n");
	free(d.text);
	/* one change block: fuzz's and the anchors' to judge, not this rule */
	decide(&d, "x\nc1\nc2\nc3\nF\nc5\nc6\nx\n",
	       "--- a/f\n+++ b/f\n@@ -1,6 +1,6 @@\n c1\n c2\n c3\n-c4\n+C4\n c5\n c6\n");
	assert_int_equal(d.state, KB_FILE_FAILED);
}

/* ---- a context line fuzz dropped, changed in the tree (issue 25, 20) ---- */

static const char *const unlock_patch =
	"--- a/f.c\n+++ b/f.c\n@@ -3,7 +3,6 @@ void f(struct s *s)\n"
	" \tspin_lock_irq(&s->lock);\n \ta(s);\n \tb(s);\n-\tspin_unlock_irq(&s->lock);\n"
	" \tc(s);\n \td(s);\n \te(s);\n";

/*
 * The first context line stands renamed (a change the fix builds on is
 * missing): fuzz 1 places the hunk, and says which line it dropped. A
 * line that is merely other text, or the same, is no such evidence.
 */
static void test_locate_changed_context(void **state)
{
	struct kb_match m;

	(void)state;
	locate(&m, 0, "void f(struct s *s)\n{\n\tspin_lock(&s->lock);\n\ta(s);\n\tb(s);\n"
	       "\tspin_unlock_irq(&s->lock);\n\tc(s);\n\td(s);\n\te(s);\n}\n", unlock_patch, 2, 0, NULL);
	assert_match(&m, 3, 0, 1, 1, false);
	assert_true(m.changed);
	assert_int_equal(m.changed_hunk_line, 0);
	assert_int_equal(m.changed_file_line, 2);
	/* the trailing side: e(s) became e(s, 0) */
	locate(&m, 0, "void f(struct s *s)\n{\n\tspin_lock_irq(&s->lock);\n\ta(s);\n\tb(s);\n"
	       "\tspin_unlock_irq(&s->lock);\n\tc(s);\n\td(s);\n\te(s, 0);\n}\n", unlock_patch, 2, 0, NULL);
	assert_match(&m, 3, 0, 1, 1, false);
	assert_true(m.changed);
	assert_int_equal(m.changed_hunk_line, 6);
	assert_int_equal(m.changed_file_line, 8);
	/* fuzz 2, two lines changed: the one nearest the change is named */
	locate(&m, 0, "void f(struct s *s)\n{\n\tspin_lock(&s->lock);\n\ta(s, 1);\n\tb(s);\n"
	       "\tspin_unlock_irq(&s->lock);\n\tc(s);\n\td(s);\n\te(s);\n}\n", unlock_patch, 2, 0, NULL);
	assert_match(&m, 4, 0, 2, 2, false);
	assert_true(m.changed);
	assert_int_equal(m.changed_hunk_line, 1);
	assert_int_equal(m.changed_file_line, 3);
	/* an unrelated line in its place, or a brace: nothing to say */
	locate(&m, 0, "void f(struct s *s)\n{\n\tmemset(buf, 0, sizeof(buf));\n\ta(s);\n\tb(s);\n"
	       "\tspin_unlock_irq(&s->lock);\n\tc(s);\n\td(s);\n}\n", unlock_patch, 2, 0, NULL);
	assert_int_equal(m.fuzz, 1);
	assert_false(m.changed);
	/* no fuzz, nothing dropped */
	locate(&m, 0, "void f(struct s *s)\n{\n\tspin_lock_irq(&s->lock);\n\ta(s);\n\tb(s);\n"
	       "\tspin_unlock_irq(&s->lock);\n\tc(s);\n\td(s);\n\te(s);\n}\n", unlock_patch, 2, 0, NULL);
	assert_int_equal(m.fuzz, 0);
	assert_false(m.changed);
}

/*
 * Functions that open alike, the change in some of them only: a hunk
 * whose reverse place an earlier hunk's reverse took (it fits there too)
 * must not apply again, with fuzz, just below its own lines.
 */
#define TWIN(name, fixed) \
	"int " name "(struct t *t)\n{\n\tint p;\n\tint err;\n\n" \
	fixed "\tif (t->data)\n\t\treturn go(t);\n\treturn 0;\n}\n"
#define CHECK "\tif (!allowed(t))\n\t\treturn -EPERM;\n\n"
#define TWIN_HUNK(at) \
	"@@ -" at ",6 +" at ",9 @@\n \tint p;\n \tint err;\n \n+\tif (!allowed(t))\n" \
	"+\t\treturn -EPERM;\n+\n \tif (t->data)\n \t\treturn go(t);\n \treturn 0;\n"

static void test_decide_twins(void **state)
{
	static const char two[] = "--- a/t.c\n+++ b/t.c\n" TWIN_HUNK("3") TWIN_HUNK("13");
	static const char three[] = "--- a/t.c\n+++ b/t.c\n" TWIN_HUNK("3") TWIN_HUNK("13")
		TWIN_HUNK("23");
	struct decided d;

	(void)state;
	/* the second has it: never applied twice there; the first applies to
	 * a() and its reverse fits b() as well */
	decide(&d, TWIN("a", "") "\n" TWIN("b", CHECK), two);
	assert_int_equal(d.state, KB_FILE_FAILED);
	assert_null(d.text);
	assert_int_equal(d.r[0].status, KB_HUNK_AMBIGUOUS);
	assert_int_equal(d.r[0].match.ambiguity, KB_AMBIG_WAYS);
	assert_int_equal(d.r[0].tree_line, 2);
	assert_int_equal(d.r[0].match.other_line, 12);
	assert_int_equal(d.r[1].status, KB_HUNK_PRESENT);
	assert_int_equal(d.r[1].tree_line, 12);
	assert_int_equal(d.r[1].match.fuzz, 0);
	/* the last of three has it */
	decide(&d, TWIN("a", "") "\n" TWIN("b", "") "\n" TWIN("c", CHECK), three);
	assert_int_equal(d.state, KB_FILE_FAILED);
	assert_null(d.text);
	assert_int_equal(d.r[1].status, KB_HUNK_APPLIED);
	assert_int_equal(d.r[2].status, KB_HUNK_PRESENT);
	assert_int_equal(d.r[2].tree_line, 22);
	/* none has it: each gets it once; all have it: in */
	decide(&d, TWIN("a", "") "\n" TWIN("b", ""), two);
	assert_int_equal(d.state, KB_FILE_APPLIES);
	assert_string_equal(d.text, TWIN("a", CHECK) "\n" TWIN("b", CHECK));
	free(d.text);
	decide(&d, TWIN("a", CHECK) "\n" TWIN("b", CHECK) "\n" TWIN("c", CHECK), three);
	assert_int_equal(d.state, KB_FILE_PRESENT);
	assert_string_equal(d.text, TWIN("a", "") "\n" TWIN("b", "") "\n" TWIN("c", ""));
	free(d.text);
}

static void test_file_apply_newlines(void **state)
{
	struct kb_patch *newfile = patch_of(
		"--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n+b\n"
		"\\ No newline at end of file\n");
	struct kb_patch *add_nl = patch_of(
		"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n"
		"\\ No newline at end of file\n+b\n");
	struct kb_patch *mid = patch_of(
		"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n");
	struct kb_patch *drop_last = patch_of(
		"--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n a\n-b\n"
		"\\ No newline at end of file\n");
	struct kb_hunk_result r[1];
	char *out;

	(void)state;
	assert_int_equal(file_apply(&out, r, "", newfile, NULL), 0);
	assert_string_equal(out, "a\nb");
	free(out);
	assert_int_equal(file_apply(&out, r, "a\nb", add_nl, NULL), 0);
	assert_string_equal(out, "a\nb\n");
	free(out);
	assert_int_equal(file_apply(&out, r, "a\nb", mid, NULL), 0);
	assert_string_equal(out, "A\nb");
	free(out);
	assert_int_equal(file_apply(&out, r, "a\nb", drop_last, NULL), 0);
	assert_string_equal(out, "a\n");
	free(out);
	assert_int_equal(file_apply(&out, r, "old\n", newfile, NULL), KB_ECONFLICT);
	kb_patch_free(newfile);
	kb_patch_free(add_nl);
	kb_patch_free(mid);
	kb_patch_free(drop_last);
}

/* ---- kb_text_contains ---- */

#define CONTAINS(h, n) kb_text_contains(h, strlen(h), n, strlen(n))

static void test_text_contains(void **state)
{
	static const char dev_c[] =
		"\tdev = dev_get_by_name_rcu(net, name);\n"
		"\trcu_read_unlock();\n"
		"\n"
		"\tif (!dev && capable(CAP_NET_ADMIN))\n"
		"\t\trequest_module(\"%s\", name);\n";

	(void)state;
	assert_true(CONTAINS(dev_c, ""));
	assert_true(CONTAINS("", ""));
	assert_true(CONTAINS(dev_c, " \n\t\n"));
	assert_false(CONTAINS("", "x"));
	assert_false(CONTAINS(" \n", "x"));
	assert_true(CONTAINS(dev_c, "if (!dev && capable(CAP_NET_ADMIN))\n"
			     "        request_module(\"%s\", name);"));
	/* blank lines are dropped on both sides */
	assert_true(CONTAINS(dev_c, "rcu_read_unlock();\nif (!dev"));
	assert_true(CONTAINS(dev_c, "rcu_read_unlock();\n\n\n  if  (!dev"));
	/* a substring, not whole lines */
	assert_true(CONTAINS(dev_c, "request_module"));
	assert_true(CONTAINS(dev_c, "unlock();\n\tif"));
	assert_false(CONTAINS(dev_c, "if(!dev"));
	assert_false(CONTAINS(dev_c, "request_module(\"netdev-%s\", name);"));
	assert_false(CONTAINS("a\nb\n", "a b"));
	assert_true(CONTAINS("a\t \tb", "a b"));
	assert_false(CONTAINS("ab", "abc"));
	/* lengths are honoured: no NUL needed */
	assert_true(kb_text_contains("abcXYZ", 3, "bcX", 2));
	assert_false(kb_text_contains("abcXYZ", 3, "cX", 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_split_join),
		cmocka_unit_test(test_locate_exact_and_offsets),
		cmocka_unit_test(test_locate_nearest),
		cmocka_unit_test(test_locate_fuzz),
		cmocka_unit_test(test_locate_anchored_at_start),
		cmocka_unit_test(test_locate_whitespace),
		cmocka_unit_test(test_locate_preference),
		cmocka_unit_test(test_locate_needs_preimage),
		cmocka_unit_test(test_hunk_apply_keeps_file_context),
		cmocka_unit_test(test_hunk_apply_fuzzed),
		cmocka_unit_test(test_file_apply_offsets),
		cmocka_unit_test(test_decide_present_with_drift),
		cmocka_unit_test(test_decide_present_reordered),
		cmocka_unit_test(test_decide_partial),
		cmocka_unit_test(test_decide_conflict),
		cmocka_unit_test(test_decide_not_twice),
		cmocka_unit_test(test_decide_false_positives),
		cmocka_unit_test(test_decide_ambiguous),
		cmocka_unit_test(test_decide_anchor),
		cmocka_unit_test(test_decide_block),
		cmocka_unit_test(test_decide_ambiguous_never_in),
		cmocka_unit_test(test_decide_ambiguous_in_reverse),
		cmocka_unit_test(test_file_apply_rules_disagree),
		cmocka_unit_test(test_file_apply_as_git_apply),
		cmocka_unit_test(test_locate_rules_are_not_fuzz),
		cmocka_unit_test(test_decide_blocks),
		cmocka_unit_test(test_decide_blocks_limits),
		cmocka_unit_test(test_decide_twins),
		cmocka_unit_test(test_locate_changed_context),
		cmocka_unit_test(test_file_apply_newlines),
		cmocka_unit_test(test_text_contains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
