/*
 * FAILED-<branch>.txt: for a branch the fix does not apply to, the mail the
 * stable maintainers send the patch's author ("FAILED: patch ... failed to
 * apply to 6.1-stable tree"): the failing hunks, and the exact commands to
 * reproduce the conflict and resolve it by hand. Headers first, ready for
 * `git send-email` or `mutt -H`; non-ASCII header text is RFC 2047 encoded.
 */
#include "report/report.h"
#include "report/report_priv.h"
#include "util/error.h"

#include <string.h>


static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80 || (unsigned char)*s < 0x20)
			return false;
	return true;
}

static int put_base64(struct kb_buf *out, const unsigned char *p, size_t n)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned v;
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i += 3) {
		v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
		    (i + 2 < n ? p[i + 2] : 0);
		err = kb_buf_printf(out, "%c%c%c%c", digits[v >> 18], digits[(v >> 12) & 63],
				    i + 1 < n ? digits[(v >> 6) & 63] : '=', i + 2 < n ? digits[v & 63] : '=');
	}
	return err;
}

/* `s` as is when it is plain ASCII, else RFC 2047 encoded words of whole
 * characters, short enough for a line each, folded. */
static int put_header_text(struct kb_buf *out, const char *s, size_t n)
{
	struct kb_buf utf8 = KB_BUF_INIT;
	const char *p, *end;
	size_t len;
	int err;

	if ((err = report_put_utf8(&utf8, s, n)) < 0 || !utf8.ptr || is_ascii(utf8.ptr)) {
		err = err < 0 ? err : kb_buf_puts(out, utf8.ptr ? utf8.ptr : "");
		kb_buf_release(&utf8);
		return err;
	}
	for (p = utf8.ptr, end = p + utf8.size; p < end && !err; p += len) {
		len = (size_t)(end - p) < 45 ? (size_t)(end - p) : 45;
		while (p + len < end && (p[len] & 0xc0) == 0x80)
			len--;
		if ((err = kb_buf_puts(out, p == utf8.ptr ? "=?UTF-8?B?" : "\n =?UTF-8?B?")) == 0 &&
		    (err = put_base64(out, (const unsigned char *)p, len)) == 0)
			err = kb_buf_puts(out, "?=");
	}
	kb_buf_release(&utf8);
	return err;
}

/* "Name <addr>": the name encoded when it needs it, the address as is. */
static int put_address(struct kb_buf *out, const char *addr)
{
	const char *lt = strchr(addr, '<');
	size_t len;
	int err;

	if (!lt || lt == addr)
		return put_header_text(out, addr, strlen(addr));
	len = (size_t)(lt - addr);
	while (len && addr[len - 1] == ' ')
		len--;
	if ((err = put_header_text(out, addr, len)) < 0 || (err = kb_buf_putc(out, ' ')) < 0)
		return err;
	return kb_buf_puts(out, lt);
}

/* "<addr>" for the text: as written when it has its brackets. */
static int put_bracketed(struct kb_buf *out, const char *addr)
{
	return kb_buf_printf(out, strchr(addr, '<') ? "%s" : "<%s>", addr);
}

static int put_headers(struct kb_buf *out, const struct kb_failed_mail *m)
{
	struct kb_buf subject = KB_BUF_INIT;
	const char *to = m->mail->to ? m->mail->to : m->author;
	size_t i;
	int err = 0;

	if (to && ((err = kb_buf_puts(out, "To: ")) < 0 || (err = put_address(out, to)) < 0 ||
		   (err = kb_buf_putc(out, '\n')) < 0))
		return err;
	for (i = 0; i < m->mail->ncc && !err; i++)
		if ((err = kb_buf_puts(out, i ? ",\n    " : "Cc: ")) == 0)
			err = put_address(out, m->mail->cc[i]);
	if (err < 0 || (m->mail->ncc && (err = kb_buf_putc(out, '\n')) < 0) ||
	    (err = kb_buf_printf(&subject, "FAILED: patch \"%s\" failed to apply to %s tree",
				 m->subject ? m->subject : m->fix, m->mail->tree)) < 0 ||
	    (err = kb_buf_puts(out, "Subject: ")) < 0 ||
	    (err = put_header_text(out, subject.ptr, subject.size)) < 0)
		goto done;
	err = kb_buf_puts(out, "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
			  "Content-Transfer-Encoding: 8bit\n\n");
done:
	kb_buf_release(&subject);
	return err;
}

/* The stable team's paragraph, or a tree's own: where to send a backport. */
static int put_intro(struct kb_buf *out, const struct kb_failed_mail *m)
{
	int err;

	if ((err = kb_buf_printf(out, "The patch below does not apply to the %s tree.\n",
				 m->mail->tree)) < 0 || !m->mail->send_to)
		return err < 0 ? err : kb_buf_putc(out, '\n');
	if (m->mail->stable)
		err = kb_buf_puts(out, "If someone wants it applied there, or to any other stable or longterm\n"
				  "tree, then please email the backport, including the original git commit\n"
				  "id to ");
	else
		err = kb_buf_puts(out, "If someone wants it applied there, then please email the backport,\n"
				  "including the original git commit id, to ");
	if (err < 0 || (err = put_bracketed(out, m->mail->send_to)) < 0)
		return err;
	return kb_buf_puts(out, ".\n\n");
}

static int put_indented(struct kb_buf *out, const char *const *lines)
{
	int err = 0;

	for (; lines && *lines && !err; lines++)
		err = kb_buf_printf(out, "  %s\n", *lines);
	return err;
}

/* The one failing hunk is what the detail line already ends with. */
static bool detail_names_the_hunk(const struct kb_report_apply *a)
{
	size_t d, n;

	if (a->nnotes != 1 || !a->detail)
		return false;
	d = strlen(a->detail);
	n = strlen(a->notes[0]);
	return d >= n && !strcmp(a->detail + d - n, a->notes[0]);
}

static int put_what_failed(struct kb_buf *out, const struct kb_failed_mail *m)
{
	const struct kb_report_apply *a = m->apply;
	int err;

	if ((err = kb_buf_printf(out, "kbackport tried each variant of %s on the branch\n%s",
				 m->fix, m->where)) < 0 ||
	    (err = kb_buf_puts(out, a->detail ? ":\n\n" : ", and none applies.\n")) < 0 ||
	    (a->detail && (err = kb_buf_printf(out, "  %s\n", a->detail)) < 0))
		return err;
	if (a->nnotes && !detail_names_the_hunk(a) &&
	    ((err = kb_buf_puts(out, "\nThe hunks that do not apply:\n\n")) < 0 ||
	     (err = put_indented(out, a->notes)) < 0))
		return err;
	if (!a->nreproduce)
		return 0;
	if ((err = kb_buf_puts(out, "\nTo reproduce the conflict and resolve it by hand, you may use "
			       "the following commands:\n\n")) < 0)
		return err;
	return put_indented(out, a->reproduce);
}

/* A run directory of an older kbackport: no patch kept, name the commit. */
static int put_commit_only(struct kb_buf *out, const struct kb_failed_mail *m)
{
	int err;

	if ((err = kb_buf_printf(out, "commit %s\n", m->upstream)) < 0 ||
	    (m->author && (err = kb_buf_printf(out, "Author: %s\n", m->author)) < 0))
		return err;
	return m->subject ? kb_buf_printf(out, "\n    %s\n", m->subject) : 0;
}

int kb_failed_mail(struct kb_buf *out, const struct kb_failed_mail *m)
{
	int err;

	if ((err = put_headers(out, m)) < 0 || (err = put_intro(out, m)) < 0 ||
	    (err = put_what_failed(out, m)) < 0 ||
	    (m->logs && (err = kb_buf_printf(out, "\n%s\n", m->logs)) < 0))
		return err;
	if (!m->patch && !m->upstream)
		return 0;
	if ((err = kb_buf_puts(out, m->upstream ? "\n------------------ original commit in Linus's tree "
			       "------------------\n\n" : "\n------------------ the patch "
			       "------------------\n\n")) < 0)
		return err;
	return m->patch ? kb_buf_puts(out, m->patch) : put_commit_only(out, m);
}

/* Where the diff starts in a patch file: "diff --git", else "--- " + "+++ ". */
static const char *diff_start(const char *p, const char *end)
{
	const char *nl;

	for (; p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			return NULL;
		if (!strncmp(p, "diff --git ", 11) ||
		    (!strncmp(p, "--- ", 4) && end - nl > 4 && !strncmp(nl + 1, "+++ ", 4)))
			return p;
	}
	return NULL;
}

int kb_failed_patch(struct kb_buf *out, const struct kb_fix *fix, const struct kb_patch *tried,
		    const char *path)
{
	const struct kb_patch *up = fix->patch;
	const char *diff = diff_start(tried->buffer, tried->buffer + tried->size);
	struct kb_buf author = KB_BUF_INIT, subject = KB_BUF_INIT;
	int err;

	if (!diff)
		return kb_error_set(KB_EINVALID, "'%s': no diff to mail", path);
	if ((err = kb_buf_printf(out, "From %s Mon Sep 17 00:00:00 2001\n", fix->upstream ? fix->upstream :
				 "0000000000000000000000000000000000000000")) < 0)
		goto done;
	if (up && up->author_name &&
	    ((err = kb_buf_printf(&author, "%s <%s>", up->author_name,
				  up->author_email ? up->author_email : "")) < 0 ||
	     (err = kb_buf_puts(out, "From: ")) < 0 || (err = put_address(out, author.ptr)) < 0 ||
	     (err = kb_buf_putc(out, '\n')) < 0))
		goto done;
	if ((up && up->date && (err = kb_buf_printf(out, "Date: %s\n", up->date)) < 0) ||
	    (err = kb_buf_printf(&subject, "[PATCH] %s", fix->subject)) < 0 ||
	    (err = kb_buf_puts(out, "Subject: ")) < 0 ||
	    (err = put_header_text(out, subject.ptr, subject.size)) < 0 ||
	    (err = kb_buf_puts(out, "\n\n")) < 0 ||
	    (up && up->body && (err = kb_buf_puts(out, up->body)) < 0) ||
	    (err = kb_buf_puts(out, "---\n")) < 0)
		goto done;
	err = kb_buf_put(out, diff, tried->size - (size_t)(diff - tried->buffer));
done:
	kb_buf_release(&author);
	kb_buf_release(&subject);
	return err;
}

/* A branch of a run directory: its recorded `mail`, else the defaults by its name. */
int kb_report_failed_mail(struct kb_buf *out, const struct kb_report *r,
			  const struct kb_report_branch *b)
{
	struct kb_buf where = KB_BUF_INIT, logs = KB_BUF_INIT, tree = KB_BUF_INIT;
	char *cc[] = { KB_STABLE_LIST, NULL };
	struct kb_mail fallback = { .tree = (char *)b->name };
	struct kb_failed_mail m = {
		.fix = r->fix, .upstream = r->upstream, .subject = r->subject, .author = r->author,
		.mail = b->has_mail ? &b->mail : &fallback, .apply = &b->apply,
		.patch = b->mail_patch,
	};
	const char *version;
	size_t len;
	int err;

	if (!b->has_mail && kb_branch_looks_stable(b->name, b->ref, &version, &len)) {
		if ((err = kb_buf_printf(&tree, "%.*s-stable", (int)len, version)) < 0)
			goto done;
		fallback = (struct kb_mail){ .stable = true, .cc = cc, .ncc = 1, .tree = tree.ptr,
					     .send_to = KB_STABLE_LIST };
	}
	if ((err = kb_buf_puts(&where, b->ref ? b->ref : b->name)) < 0 ||
	    (b->repo && (err = kb_buf_printf(&where, " of %s", b->repo)) < 0) ||
	    (r->run && (err = kb_buf_printf(&logs, "The logs are in %s/ of the run %s.",
					    b->name, r->run)) < 0))
		goto done;
	m.where = where.ptr;
	m.logs = logs.ptr;
	err = kb_failed_mail(out, &m);
done:
	kb_buf_release(&where);
	kb_buf_release(&logs);
	kb_buf_release(&tree);
	return err;
}

int kb_report_failed_name(struct kb_buf *out, const struct kb_report_branch *b)
{
	const char *p;
	int err = kb_buf_puts(out, "FAILED-");

	for (p = b->name; *p && !err; p++)
		err = kb_buf_putc(out, strchr("/\\ :*?\"<>|", *p) || (unsigned char)*p < 0x20 ? '-' : *p);
	return err < 0 ? err : kb_buf_puts(out, ".txt");
}
