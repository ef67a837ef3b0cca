/*
 * FAILED-<branch>.txt: for a branch the fix does not apply to, the mail the
 * stable maintainers send the patch's author ("FAILED: patch ... failed to
 * apply to 6.1-stable tree"): the failing hunks, and the exact commands to
 * reproduce the conflict and resolve it by hand. Headers first, ready for
 * `git send-email` or `mutt -H`; non-ASCII header text is RFC 2047 encoded.
 */
#include "report.h"
#include "report_priv.h"
#include "error.h"

#include <string.h>

#define STABLE_LIST "stable@vger.kernel.org"

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

static int put_headers(struct kb_buf *out, const struct kb_report *r, const struct kb_report_branch *b)
{
	struct kb_buf subject = KB_BUF_INIT;
	int err;

	if (r->author && ((err = kb_buf_puts(out, "To: ")) < 0 || (err = put_address(out, r->author)) < 0 ||
			  (err = kb_buf_putc(out, '\n')) < 0))
		return err;
	if ((err = kb_buf_puts(out, "Cc: " STABLE_LIST "\n")) < 0 ||
	    (err = kb_buf_printf(&subject, "FAILED: patch \"%s\" failed to apply to %s stable tree",
				 r->subject ? r->subject : r->fix, b->name)) < 0 ||
	    (err = kb_buf_puts(out, "Subject: ")) < 0 ||
	    (err = put_header_text(out, subject.ptr, subject.size)) < 0)
		goto done;
	err = kb_buf_puts(out, "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
			  "Content-Transfer-Encoding: 8bit\n\n");
done:
	kb_buf_release(&subject);
	return err;
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

static int put_what_failed(struct kb_buf *out, const struct kb_report *r,
			   const struct kb_report_branch *b)
{
	const struct kb_report_apply *a = &b->apply;
	int err;

	if ((err = kb_buf_printf(out, "kbackport tried each variant of %s on the branch\n", r->fix)) < 0 ||
	    (err = kb_buf_puts(out, b->ref ? b->ref : b->name)) < 0 ||
	    (b->repo && (err = kb_buf_printf(out, " of %s", b->repo)) < 0) ||
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

int kb_report_failed_mail(struct kb_buf *out, const struct kb_report *r,
			  const struct kb_report_branch *b)
{
	int err;

	if ((err = put_headers(out, r, b)) < 0 ||
	    (err = kb_buf_printf(out, "The patch below does not apply to the %s stable tree.\n"
				 "If someone wants it applied there, or to any other stable or longterm\n"
				 "tree, then please email the backport, including the original git commit\n"
				 "id to <" STABLE_LIST ">.\n\n", b->name)) < 0 ||
	    (err = put_what_failed(out, r, b)) < 0 ||
	    (r->run && (err = kb_buf_printf(out, "\nThe logs are in %s/ of the run %s.\n",
					     b->name, r->run)) < 0))
		return err;
	if (!r->upstream)
		return 0;
	if ((err = kb_buf_printf(out, "\n------------------ original commit in Linus's tree "
				 "------------------\n\ncommit %s\n", r->upstream)) < 0 ||
	    (r->author && (err = kb_buf_printf(out, "Author: %s\n", r->author)) < 0))
		return err;
	return r->subject ? kb_buf_printf(out, "\n    %s\n", r->subject) : 0;
}

int kb_report_failed_name(struct kb_buf *out, const struct kb_report_branch *b)
{
	const char *p;
	int err = kb_buf_puts(out, "FAILED-");

	for (p = b->name; *p && !err; p++)
		err = kb_buf_putc(out, strchr("/\\ :*?\"<>|", *p) || (unsigned char)*p < 0x20 ? '-' : *p);
	return err < 0 ? err : kb_buf_puts(out, ".txt");
}
