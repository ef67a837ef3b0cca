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

/*
 * The writers here append without checking: a failed append leaves `out`
 * failed (util/buf.h), and each public function checks it once at the end.
 */
static void put_base64(struct kb_buf *out, const unsigned char *p, size_t n)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned v;
	size_t i;

	for (i = 0; i < n; i += 3) {
		v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
		    (i + 2 < n ? p[i + 2] : 0);
		kb_buf_printf(out, "%c%c%c%c", digits[v >> 18], digits[(v >> 12) & 63],
			      i + 1 < n ? digits[(v >> 6) & 63] : '=', i + 2 < n ? digits[v & 63] : '=');
	}
}

/* `s` as is when it is plain ASCII, else RFC 2047 encoded words of whole
 * characters, short enough for a line each, folded. */
static void put_header_text(struct kb_buf *out, const char *s, size_t n)
{
	struct kb_buf utf8 = KB_BUF_INIT;
	const char *p, *end;
	size_t len;

	report_put_utf8(&utf8, s, n);
	kb_buf_carry_oom(out, &utf8);
	if (!utf8.ptr || is_ascii(utf8.ptr)) {
		kb_buf_puts(out, utf8.ptr ? utf8.ptr : "");
		kb_buf_release(&utf8);
		return;
	}
	for (p = utf8.ptr, end = p + utf8.size; p < end; p += len) {
		len = (size_t)(end - p) < 45 ? (size_t)(end - p) : 45;
		while (p + len < end && (p[len] & 0xc0) == 0x80)
			len--;
		kb_buf_puts(out, p == utf8.ptr ? "=?UTF-8?B?" : "\n =?UTF-8?B?");
		put_base64(out, (const unsigned char *)p, len);
		kb_buf_puts(out, "?=");
	}
	kb_buf_release(&utf8);
}

/* "Name <addr>": the name encoded when it needs it, the address as is. */
static void put_address(struct kb_buf *out, const char *addr)
{
	const char *lt = strchr(addr, '<');
	size_t len;

	if (!lt || lt == addr) {
		put_header_text(out, addr, strlen(addr));
		return;
	}
	len = (size_t)(lt - addr);
	while (len && addr[len - 1] == ' ')
		len--;
	put_header_text(out, addr, len);
	kb_buf_putc(out, ' ');
	kb_buf_puts(out, lt);
}

/* The fix was reverted on the branch: a decision to ask for, not a backport. */
static bool reverted(const struct kb_failed_mail *m)
{
	return m->apply && m->apply->present && m->apply->status == KB_STATUS_REVERTED;
}

/* "<addr>" for the text: as written when it has its brackets. */
static void put_bracketed(struct kb_buf *out, const char *addr)
{
	kb_buf_printf(out, strchr(addr, '<') ? "%s" : "<%s>", addr);
}

static void put_headers(struct kb_buf *out, const struct kb_failed_mail *m)
{
	struct kb_buf subject = KB_BUF_INIT;
	const char *to = m->mail->to ? m->mail->to : m->author;
	size_t i;

	if (to) {
		kb_buf_puts(out, "To: ");
		put_address(out, to);
		kb_buf_putc(out, '\n');
	}
	for (i = 0; i < m->mail->ncc; i++) {
		kb_buf_puts(out, i ? ",\n    " : "Cc: ");
		put_address(out, m->mail->cc[i]);
	}
	if (m->mail->ncc)
		kb_buf_putc(out, '\n');
	if (reverted(m))
		kb_buf_printf(&subject, "REVERTED: patch \"%s\" was reverted in the %s tree",
			      m->subject ? m->subject : m->fix, m->mail->tree);
	else
		kb_buf_printf(&subject, "FAILED: patch \"%s\" failed to apply to %s tree",
			      m->subject ? m->subject : m->fix, m->mail->tree);
	kb_buf_carry_oom(out, &subject);
	kb_buf_puts(out, "Subject: ");
	put_header_text(out, subject.ptr, subject.size);
	kb_buf_puts(out, "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
		    "Content-Transfer-Encoding: 8bit\n\n");
	kb_buf_release(&subject);
}

/* The stable team's paragraph, or a tree's own: where to send a backport. */
static void put_intro(struct kb_buf *out, const struct kb_failed_mail *m)
{
	if (reverted(m)) {
		kb_buf_printf(out, "The patch below was brought into the %s tree and reverted since;\n"
			      "it is not applied again unless someone decides it should be\n"
			      "(kbackport apply --reapply).\n\n", m->mail->tree);
		return;
	}
	kb_buf_printf(out, "The patch below does not apply to the %s tree.\n", m->mail->tree);
	if (!m->mail->send_to) {
		kb_buf_putc(out, '\n');
		return;
	}
	if (m->mail->stable)
		kb_buf_puts(out, "If someone wants it applied there, or to any other stable or longterm\n"
			    "tree, then please email the backport, including the original git commit\n"
			    "id to ");
	else
		kb_buf_puts(out, "If someone wants it applied there, then please email the backport,\n"
			    "including the original git commit id, to ");
	put_bracketed(out, m->mail->send_to);
	kb_buf_puts(out, ".\n\n");
}

static void put_indented(struct kb_buf *out, const char *const *lines)
{
	for (; lines && *lines; lines++)
		kb_buf_printf(out, "  %s\n", *lines);
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

static void put_what_failed(struct kb_buf *out, const struct kb_failed_mail *m)
{
	const struct kb_report_apply *a = m->apply;

	if (reverted(m)) {
		kb_buf_printf(out, "kbackport read the history of the branch %s:\n\n  %s\n", m->where,
			      a->detail ? a->detail : "reverted");
		if (a->nnotes) {
			kb_buf_putc(out, '\n');
			put_indented(out, a->notes);
		}
		return;
	}

	kb_buf_printf(out, "kbackport tried each variant of %s on the branch\n%s", m->fix, m->where);
	kb_buf_puts(out, a->detail ? ":\n\n" : ", and none applies.\n");
	if (a->detail)
		kb_buf_printf(out, "  %s\n", a->detail);
	if (a->nnotes && !detail_names_the_hunk(a)) {
		kb_buf_puts(out, "\nThe hunks that do not apply:\n\n");
		put_indented(out, a->notes);
	}
	if (!a->nreproduce)
		return;
	kb_buf_puts(out, "\nTo reproduce the conflict and resolve it by hand, you may use "
		    "the following commands:\n\n");
	put_indented(out, a->reproduce);
}

/* A run directory of an older kbackport: no patch kept, name the commit. */
static void put_commit_only(struct kb_buf *out, const struct kb_failed_mail *m)
{
	kb_buf_printf(out, "commit %s\n", m->upstream);
	if (m->author)
		kb_buf_printf(out, "Author: %s\n", m->author);
	if (m->subject)
		kb_buf_printf(out, "\n    %s\n", m->subject);
}

int kb_failed_mail(struct kb_buf *out, const struct kb_failed_mail *m)
{
	put_headers(out, m);
	put_intro(out, m);
	put_what_failed(out, m);
	if (m->logs)
		kb_buf_printf(out, "\n%s\n", m->logs);
	if (m->patch || m->upstream) {
		kb_buf_puts(out, m->upstream ? "\n------------------ original commit in Linus's tree "
			    "------------------\n\n" : "\n------------------ the patch "
			    "------------------\n\n");
		if (m->patch)
			kb_buf_puts(out, m->patch);
		else
			put_commit_only(out, m);
	}
	return kb_buf_check(out);
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

	if (!diff)
		return kb_error_set(KB_EINVALID, "'%s': no diff to mail", path);
	kb_buf_printf(out, "From %s Mon Sep 17 00:00:00 2001\n", fix->upstream ? fix->upstream :
		      "0000000000000000000000000000000000000000");
	if (up && up->author_name) {
		kb_buf_printf(&author, "%s <%s>", up->author_name,
			      up->author_email ? up->author_email : "");
		kb_buf_carry_oom(out, &author);
		kb_buf_puts(out, "From: ");
		put_address(out, author.ptr);
		kb_buf_putc(out, '\n');
	}
	if (up && up->date)
		kb_buf_printf(out, "Date: %s\n", up->date);
	kb_buf_printf(&subject, "[PATCH] %s", fix->subject);
	kb_buf_carry_oom(out, &subject);
	kb_buf_puts(out, "Subject: ");
	put_header_text(out, subject.ptr, subject.size);
	kb_buf_puts(out, "\n\n");
	if (up && up->body)
		kb_buf_puts(out, up->body);
	kb_buf_puts(out, "---\n");
	kb_buf_put(out, diff, tried->size - (size_t)(diff - tried->buffer));
	kb_buf_release(&author);
	kb_buf_release(&subject);
	return kb_buf_check(out);
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
		kb_buf_printf(&tree, "%.*s-stable", (int)len, version);
		fallback = (struct kb_mail){ .stable = true, .cc = cc, .ncc = 1, .tree = tree.ptr,
					     .send_to = KB_STABLE_LIST };
	}
	kb_buf_puts(&where, b->ref ? b->ref : b->name);
	if (b->repo)
		kb_buf_printf(&where, " of %s", b->repo);
	if (r->run)
		kb_buf_printf(&logs, "The logs are in %s/ of the run %s.", b->name, r->run);
	kb_buf_carry_oom(out, &tree);
	kb_buf_carry_oom(out, &where);
	kb_buf_carry_oom(out, &logs);
	m.where = where.ptr;
	m.logs = logs.ptr;
	err = kb_failed_mail(out, &m);
	kb_buf_release(&where);
	kb_buf_release(&logs);
	kb_buf_release(&tree);
	return err;
}

int kb_report_failed_name(struct kb_buf *out, const struct kb_report_branch *b)
{
	const char *p;

	kb_buf_puts(out, "FAILED-");
	for (p = b->name; *p; p++)
		kb_buf_putc(out, strchr("/\\ :*?\"<>|", *p) || (unsigned char)*p < 0x20 ? '-' : *p);
	kb_buf_puts(out, ".txt");
	return kb_buf_check(out);
}
