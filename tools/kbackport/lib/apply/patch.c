/*
 * Unified diffs in git format-patch / mbox form -> files and hunks.
 *
 * The parser walks the owned copy of the input line by line: the mail
 * (optional mbox "From <sha>" line, headers, body up to "---"), then file
 * diffs. Hunk line counts decide where a hunk ends, so whatever follows the
 * last hunk (the "-- " signature, a list footer) is skipped, but a hunk line
 * right after a complete hunk is an error: a header that undercounts would
 * otherwise silently drop changes.
 *
 * Paths lose their first component ("a/", "b/"), as with `patch -p1`.
 * Renames and copies are rejected: the apply stage only edits files in place.
 * Modes are kept (a regular file, an executable, a symlink); a section
 * without "---"/"+++" lines (a mode change, an empty file) takes its path
 * from the "diff --git" line.
 */
#include "apply/patch.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct parser {
	const char *origin;
	struct kb_patch *patch;
	const char *pos, *end;	/* the unread rest of patch->buffer */
	const char *line;	/* the current line, without its '\n' */
	size_t len;
	size_t lineno;		/* 1-based number of the current line */
	bool again;		/* next_line() gives the current line again */
	const char *diff_line;	/* the current file's "diff --git" line */
	size_t diff_len;
	bool created, deleted;	/* it said "new file mode" / "deleted file mode" */
	size_t files_alloc, hunks_alloc, lines_alloc;
	char *description;	/* a DEP-3 Description's long text, or NULL */
};

static int fail(const struct parser *p, size_t lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(const struct parser *p, size_t lineno, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kb_error_set(KB_EINVALID, "%s:%zu: %s", p->origin, lineno, msg);
}

/* ---- reading lines ---- */

static bool next_line(struct parser *p)
{
	const char *nl;

	if (p->again) {
		p->again = false;
		return p->line != NULL;
	}
	if (p->pos >= p->end) {
		p->line = NULL;
		p->len = 0;
		return false;
	}
	nl = memchr(p->pos, '\n', (size_t)(p->end - p->pos));
	p->line = p->pos;
	p->len = (size_t)((nl ? nl : p->end) - p->pos);
	p->pos = nl ? nl + 1 : p->end;
	p->lineno++;
	return true;
}

static bool starts(const struct parser *p, const char *prefix)
{
	size_t n = strlen(prefix);

	return p->line && p->len >= n && !memcmp(p->line, prefix, n);
}

static bool line_is(const struct parser *p, const char *s)
{
	return p->line && p->len == strlen(s) && !memcmp(p->line, s, p->len);
}

/* Does the line after the current one start with `prefix`? */
static bool peek_starts(const struct parser *p, const char *prefix)
{
	size_t n = strlen(prefix);

	if (p->again)
		return starts(p, prefix);
	return (size_t)(p->end - p->pos) >= n && !memcmp(p->pos, prefix, n);
}

static bool is_blank(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	return len == 0;
}

/* "From <40 hex> Mon Sep 17 00:00:00 2001", the mbox separator. */
static bool is_mbox_from(const struct parser *p)
{
	size_t i;

	if (!starts(p, "From ") || p->len < 45)
		return false;
	for (i = 5; i < 45; i++)
		if (!isxdigit((unsigned char)p->line[i]))
			return false;
	return p->len == 45 || p->line[45] == ' ';
}

/*
 * Any other mbox separator, "From <sender> <date>" (a mail client's mbox,
 * or one made by concatenating patches): no commit id to take from it.
 */
static bool is_mbox_separator(const struct parser *p)
{
	const char *sp;

	if (!starts(p, "From ") || p->len < 7 || p->line[5] == ' ')
		return false;
	sp = memchr(p->line + 5, ' ', p->len - 5);
	return sp && sp + 1 < p->line + p->len;
}

/* A "--- " line followed by "+++ ": a file diff without "diff --git". */
static bool is_plain_diff_start(const struct parser *p)
{
	return starts(p, "--- ") && peek_starts(p, "+++ ");
}

static bool is_file_start(const struct parser *p)
{
	return starts(p, "diff --git ") || is_plain_diff_start(p);
}

/* ---- RFC 2047 encoded words ("=?UTF-8?q?Ond=C5=99ej?="), as format-patch
 * writes non-ASCII names and subjects. As git mailinfo, the text is
 * converted to UTF-8 (iconv) from the charset each word names, and line
 * breaks and other control characters are folded into spaces. ---- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int b64val(int c)
{
	static const char set[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *s = c ? strchr(set, c) : NULL;

	return s ? (int)(s - set) : -1;
}

static int decode_q(struct kb_buf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '_') {
			kb_buf_putc(out, ' ');
		} else if (s[i] == '=' && i + 2 < len && hexval(s[i + 1]) >= 0 &&
			   hexval(s[i + 2]) >= 0) {
			kb_buf_putc(out, (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2])));
			i += 2;
		} else {
			kb_buf_putc(out, s[i]);
		}
	}
	return kb_buf_check(out);
}

static int decode_b(struct kb_buf *out, const char *s, size_t len)
{
	unsigned acc = 0, bits = 0;
	size_t i;
	int v, err = 0;

	for (i = 0; i < len && !err && (v = b64val(s[i])) >= 0; i++) {
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			err = kb_buf_putc(out, (char)((acc >> bits) & 0xff));
		}
	}
	return err;
}

#define CHARSET_MAX 40

/* A charset as RFC 2047 writes it: a token (no '/', so no iconv suffix). */
static bool is_charset_char(int c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-^_`{|}~", c));
}

struct word {
	char charset[CHARSET_MAX + 1];	/* without RFC 2231's "*language" */
	char enc;			/* 'q' or 'b' */
	const char *text;
	size_t tlen;
};

/* Length of the encoded word at `s`, 0 when there is none. */
static size_t encoded_word(const char *s, struct word *w)
{
	const char *q, *e;
	size_t n;

	if (s[0] != '=' || s[1] != '?' || !(q = strchr(s + 2, '?')) ||
	    !q[1] || q[2] != '?' || !(e = strstr(q + 3, "?=")))
		return 0;
	for (n = 0; s + 2 + n < q && is_charset_char((unsigned char)s[2 + n]); n++)
		;
	if (s + 2 + n != q)
		return 0;
	n = strcspn(s + 2, "*?");
	if (n == 0 || n > CHARSET_MAX)
		return 0;
	memcpy(w->charset, s + 2, n);
	w->charset[n] = '\0';
	w->enc = (char)tolower((unsigned char)q[1]);
	w->text = q + 3;
	w->tlen = (size_t)(e - w->text);
	if ((w->enc != 'q' && w->enc != 'b') || memchr(w->text, ' ', w->tlen))
		return 0;
	return (size_t)(e + 2 - s);
}

/*
 * `len` bytes in `charset` appended to `out` in UTF-8: 0, KB_ENOMEM,
 * KB_ENOTFOUND for a charset iconv does not know, KB_EINVALID for bytes
 * that are not text in it.
 */
static int to_utf8(struct kb_buf *out, const char *in, size_t len, const char *charset)
{
	char chunk[256], *inp = (char *)in, *outp;
	size_t inleft = len, outleft, r;
	iconv_t cd;
	int err = 0;

	if ((cd = iconv_open("UTF-8", charset)) == (iconv_t)-1)
		return KB_ENOTFOUND;
	for (;;) {
		bool last = inleft == 0;	/* no input: ends a stateful charset's shift */

		outp = chunk;
		outleft = sizeof(chunk);
		r = iconv(cd, last ? NULL : &inp, last ? NULL : &inleft, &outp, &outleft);
		if (r == (size_t)-1 && errno != E2BIG) {
			err = KB_EINVALID;
			break;
		}
		if (outp > chunk && (err = kb_buf_put(out, chunk, (size_t)(outp - chunk))) < 0)
			break;
		if (last && r != (size_t)-1)
			break;
	}
	iconv_close(cd);
	return err;
}

struct decoder {
	struct parser *p;
	size_t lineno;		/* the header's first line */
	const char *what;	/* "Subject" */
	struct kb_buf out;	/* the text so far, in UTF-8 */
	struct kb_buf raw;	/* a run of encoded words in `charset`, decoded */
	char charset[CHARSET_MAX + 1];	/* "" when there is no run */
};

/* The run of encoded words converted onto the text (a character may be
 * cut between two words of one charset: they are converted together). */
static int flush_words(struct decoder *d)
{
	int err;

	if (!d->charset[0])
		return 0;
	err = to_utf8(&d->out, d->raw.ptr ? d->raw.ptr : "", d->raw.size, d->charset);
	kb_buf_clear(&d->raw);
	if (err == KB_ENOTFOUND)
		return fail(d->p, d->lineno, "the %s header is in the unknown charset '%s'",
			    d->what, d->charset);
	if (err == KB_EINVALID)
		return fail(d->p, d->lineno, "the %s header is not valid %s text", d->what,
			    d->charset);
	d->charset[0] = '\0';
	return err < 0 ? kb_error_oom() : 0;
}

static int add_word(struct decoder *d, const struct word *w)
{
	int err;

	if (strcasecmp(w->charset, d->charset) && (err = flush_words(d)) < 0)
		return err;
	strcpy(d->charset, w->charset);
	return (w->enc == 'q' ? decode_q : decode_b)(&d->raw, w->text, w->tlen);
}

/* A control character at `s` (C0, DEL, or C1 in UTF-8): its length, else 0. */
static size_t control_len(const unsigned char *s, size_t n)
{
	if (*s < 0x20 || *s == 0x7f)
		return 1;
	return n >= 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f ? 2 : 0;
}

/*
 * As git mailinfo folds a header's line breaks: a run of blanks that holds
 * a line break, a tab or any other control character becomes one space
 * (nothing at either end), so that no header adds lines to a commit or
 * escapes to a terminal. Runs of plain spaces stay as they are.
 */
static void fold_controls(struct kb_buf *b)
{
	unsigned char *s = (unsigned char *)b->ptr;
	size_t r = 0, w = 0, end, n;
	bool control;

	while (r < b->size) {
		for (end = r, control = false; end < b->size; end += n) {
			if (s[end] == ' ')
				n = 1;
			else if ((n = control_len(s + end, b->size - end)))
				control = true;
			else
				break;
		}
		if (end == r) {
			s[w++] = s[r++];
			continue;
		}
		if (!control) {
			memmove(s + w, s + r, end - r);
			w += end - r;
		} else if (w && end < b->size) {
			s[w++] = ' ';
		}
		r = end;
	}
	b->size = w;
	if (b->ptr)
		b->ptr[w] = '\0';
}

/*
 * The header `what` (its first line `lineno`) decoded: encoded words in
 * UTF-8, blanks between two of them gone, control characters folded. An
 * unknown charset, or bytes that are no text in theirs, are KB_EINVALID.
 */
static int decode_header(char **out, struct parser *p, const char *s, size_t lineno,
			 const char *what)
{
	struct decoder d = { p, lineno, what, KB_BUF_INIT, KB_BUF_INIT, "" };
	const char *ws = NULL;
	bool after_word = false;
	struct word w;
	size_t n;
	int err = 0;

	*out = NULL;
	for (; *s && !err; s += n) {
		n = 1;
		if (*s == ' ' || *s == '\t') {
			ws = ws ? ws : s;
			continue;
		}
		/* d.out is checked once at the end; decoding a word may fail apart from it */
		if ((n = encoded_word(s, &w))) {
			if (ws && !after_word)
				kb_buf_put(&d.out, ws, (size_t)(s - ws));
			err = add_word(&d, &w);
			after_word = true;
		} else {
			n = 1;
			if ((err = flush_words(&d)) == 0) {
				if (ws)
					kb_buf_put(&d.out, ws, (size_t)(s - ws));
				kb_buf_putc(&d.out, *s);
			}
			after_word = false;
		}
		ws = NULL;
	}
	if (!err && (err = flush_words(&d)) == 0 && (err = kb_buf_check(&d.out)) == 0) {
		fold_controls(&d.out);
		if (!(*out = kb_buf_detach(&d.out)))
			err = kb_error_oom();
	}
	kb_buf_release(&d.out);
	kb_buf_release(&d.raw);
	return err;
}

/* ---- mail headers ---- */

static size_t header_name_len(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '-'))
		i++;
	return i > 0 && i < len && s[i] == ':' ? i : 0;
}

/* The value of the header on the current line, continuation lines joined
 * with single spaces. Moves to the header's last line. */
static int header_value(char **out, struct parser *p, size_t namelen)
{
	struct kb_buf buf = KB_BUF_INIT;
	const char *s = p->line + namelen + 1;
	size_t n = p->len - namelen - 1;
	int err = 0;

	do {
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n && buf.size)
			err = kb_buf_putc(&buf, ' ');
		if (!err && n)
			err = kb_buf_put(&buf, s, n);
		if (err || !(peek_starts(p, " ") || peek_starts(p, "\t")))
			break;
		next_line(p);
		s = p->line;
		n = p->len;
	} while (1);
	if (!err && !(*out = kb_buf_detach(&buf)))
		err = kb_error_oom();
	kb_buf_release(&buf);
	return err;
}

static bool bracket_is_patch(const char *s, const char *end)
{
	for (; s + 5 <= end; s++)
		if (!strncasecmp(s, "PATCH", 5))
			return true;
	return false;
}

/* Drop leading "[PATCH]", "[PATCH v2 3/5]", "[net PATCH]" groups. Other
 * brackets ("[stable]") are part of the subject. */
static const char *strip_subject_prefix(const char *s)
{
	const char *close;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s != '[' || !(close = strchr(s, ']')) ||
		    !bracket_is_patch(s + 1, close))
			return s;
		s = close + 1;
	}
}

static int set_subject(struct parser *p, const char *value, size_t lineno, const char *what)
{
	struct kb_patch *patch = p->patch;
	char *decoded = NULL;
	int err;

	if ((err = decode_header(&decoded, p, value, lineno, what)) < 0)
		return err;
	free(patch->subject);
	patch->subject = kb_strdup(strip_subject_prefix(decoded));
	free(decoded);
	return patch->subject ? 0 : kb_error_oom();
}

/* "Name <email>", "\"Last, First\" <email>" or a bare address. */
static int set_author(struct parser *p, const char *value, size_t lineno, const char *what)
{
	struct kb_patch *patch = p->patch;
	char *v = NULL;
	const char *lt, *gt, *name, *end;
	int err;

	if ((err = decode_header(&v, p, value, lineno, what)) < 0)
		return err;
	free(patch->author_name);
	free(patch->author_email);
	patch->author_name = patch->author_email = NULL;
	if (!(lt = strrchr(v, '<')) || !(gt = strchr(lt, '>'))) {
		patch->author_email = kb_strdup(v);
		err = patch->author_email ? 0 : kb_error_oom();
		goto done;
	}
	for (name = v, end = lt; name < end && isspace((unsigned char)*name); name++)
		;
	while (end > name && isspace((unsigned char)end[-1]))
		end--;
	if (end - name >= 2 && *name == '"' && end[-1] == '"')
		name++, end--;
	if (!(patch->author_email = kb_strndup(lt + 1, (size_t)(gt - lt - 1))) ||
	    (end > name && !(patch->author_name = kb_strndup(name, (size_t)(end - name)))))
		err = kb_error_oom();
done:
	free(v);
	return err;
}

static int set_date(struct parser *p, char *value, size_t lineno)
{
	struct kb_patch *patch = p->patch;

	free(patch->date);
	patch->date = value;
	if (kb_parse_date(&patch->time, &patch->tz_offset, value) < 0)
		return fail(p, lineno, "malformed date '%s'", value);
	return 0;
}

/*
 * DEP-3's "Description: <summary>" with the long text on continuation lines
 * (" ." an empty line): the summary is the subject unless a Subject header
 * names one, the long text the body unless the mail has one of its own.
 */
static int set_description(struct parser *p, size_t namelen)
{
	struct kb_buf text = KB_BUF_INIT;
	const char *s = p->line + namelen + 1;
	size_t n = p->len - namelen - 1, lineno = p->lineno;
	char *summary;
	int err = 0;

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	summary = kb_strndup(s, n);
	KB_ERROR_CHECK_ALLOC(summary);
	while (peek_starts(p, " ") || peek_starts(p, "\t")) {
		next_line(p);
		s = p->line + 1;
		n = p->len - 1;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n == 1 && *s == '.')
			n = 0;
		kb_buf_put(&text, s, n);
		kb_buf_putc(&text, '\n');
	}
	err = kb_buf_check(&text);
	if (!err && *summary && !p->patch->subject)
		err = set_subject(p, summary, lineno, "Description");
	if (!err && text.size) {
		free(p->description);
		if (!(p->description = kb_buf_detach(&text)))
			err = kb_error_oom();
	}
	free(summary);
	kb_buf_release(&text);
	return err;
}

static int parse_header(struct parser *p, size_t namelen)
{
	const char *name = p->line;
	size_t lineno = p->lineno;
	char *value = NULL;
	int err;

	if (namelen == 11 && !strncasecmp(name, "Description", 11))
		return set_description(p, namelen);
	if ((err = header_value(&value, p, namelen)) < 0)
		return err;
	if (namelen == 4 && !strncasecmp(name, "From", 4))
		err = set_author(p, value, lineno, "From");
	else if (namelen == 6 && !strncasecmp(name, "Author", 6) && !p->patch->author_email)
		err = set_author(p, value, lineno, "Author");	/* DEP-3's alias of From */
	else if (namelen == 7 && !strncasecmp(name, "Subject", 7))
		err = set_subject(p, value, lineno, "Subject");
	else if (namelen == 4 && !strncasecmp(name, "Date", 4))
		return set_date(p, value, lineno);
	else if (namelen == 25 && !strncasecmp(name, "Content-Transfer-Encoding", 25) &&
		 strcasecmp(value, "7bit") && strcasecmp(value, "8bit"))
		err = fail(p, lineno, "content transfer encoding '%s' is not supported",
			   value);
	free(value);
	return err;
}

/* Headers from the current line up to a blank line (consumed) or a line
 * that is no header (left unread). */
static int parse_header_block(struct parser *p)
{
	size_t n;
	int err = 0;

	do {
		if (p->len == 0)
			break;
		if (!(n = header_name_len(p->line, p->len))) {
			p->again = true;
			break;
		}
		if ((err = parse_header(p, n)) < 0)
			break;
	} while (next_line(p));
	return err;
}

/* Is the current line the start of a header block ended by a blank line?
 * A quilt "Index: x" line followed by "====" is not. */
static bool is_mail(struct parser *p)
{
	struct parser saved = *p;
	bool mail = false;

	if (!header_name_len(p->line, p->len))
		return false;
	while (next_line(p)) {
		if (p->len == 0) {
			mail = true;
			break;
		}
		if (!header_name_len(p->line, p->len) &&
		    p->line[0] != ' ' && p->line[0] != '\t')
			break;
	}
	*p = saved;
	return mail;
}

/* git am's in-body headers: "From:", "Date:" or "Subject:" opening the
 * body override the mail's (a patch sent by someone else than its author). */
static int parse_inbody_headers(struct parser *p)
{
	while (next_line(p) && is_blank(p->line, p->len))
		;
	if (starts(p, "From:") || starts(p, "Date:") || starts(p, "Subject:"))
		return parse_header_block(p);
	p->again = true;
	return 0;
}

/* The body ends at "---", at the first file diff, or at a second mail. */
static bool is_body_end(const struct parser *p)
{
	return line_is(p, "---") || is_file_start(p);
}

static int parse_body(struct parser *p)
{
	const char *start = NULL, *end = NULL;
	struct kb_buf buf = KB_BUF_INIT;
	int err = 0;

	while (next_line(p)) {
		if (is_body_end(p)) {
			p->again = !line_is(p, "---");
			break;
		}
		if (is_blank(p->line, p->len))
			continue;
		start = start ? start : p->line;
		end = p->line + p->len;
	}
	if (start) {
		kb_buf_put(&buf, start, (size_t)(end - start));
		kb_buf_putc(&buf, '\n');
	}
	/* no message of its own: DEP-3's long description, trailing blank lines dropped */
	if (!start && p->description) {
		size_t n = strlen(p->description);
		while (n > 1 && p->description[n - 1] == '\n' && p->description[n - 2] == '\n')
			n--;
		if (n > 1)
			kb_buf_put(&buf, p->description, n);
	}
	/* a failed buffer detaches as NULL: the one check */
	if (!(p->patch->body = kb_buf_detach(&buf)))
		err = kb_error_oom();
	kb_buf_release(&buf);
	return err;
}

static int parse_mail(struct parser *p)
{
	int err;

	if (!next_line(p))
		return 0;
	if (is_mbox_from(p)) {
		p->patch->from_commit = kb_strndup(p->line + 5, 40);
		KB_ERROR_CHECK_ALLOC(p->patch->from_commit);
		if (!next_line(p))
			return 0;
	} else if (is_mbox_separator(p) && !next_line(p))
		return 0;
	if (!is_mail(p)) {
		p->again = true;
		return 0;
	}
	if ((err = parse_header_block(p)) < 0 ||
	    (err = parse_inbody_headers(p)) < 0)
		return err;
	return parse_body(p);
}

/* ---- file diffs ---- */

static int check_path(struct parser *p, size_t lineno, const char *raw, size_t len)
{
	const char *s = raw, *end = raw + len, *slash;
	size_t n;

	if (*raw == '/')
		return fail(p, lineno, "absolute path '%.*s' is not allowed",
			    (int)len, raw);
	for (; s <= end; s = slash + 1) {
		if (!(slash = memchr(s, '/', (size_t)(end - s))))
			slash = end;
		n = (size_t)(slash - s);
		if (n == 2 && !memcmp(s, "..", 2))
			return fail(p, lineno, "path '%.*s' leaves the tree",
				    (int)len, raw);
		if (n == 4 && !strncasecmp(s, ".git", 4))
			return fail(p, lineno, "path '%.*s' is inside .git",
				    (int)len, raw);
		if (n == 0)
			return fail(p, lineno, "malformed path '%.*s'",
				    (int)len, raw);
	}
	return 0;
}

/* What to do about a rename: the same change as a deletion and a new file. */
#define NO_RENAMES_HINT "write the patch with 'git format-patch --no-renames', " \
	"or make the fix with 'kbackport fix new --from-commit'"

/* The path on a "--- " or "+++ " line, without its first component;
 * NULL for /dev/null. A tab ends the path (diff -u puts a date there). */
static int parse_path(char **out, struct parser *p)
{
	const char *s = p->line + 4, *tab, *slash;
	size_t len = p->len - 4;
	int err;

	*out = NULL;
	if ((tab = memchr(s, '\t', len)))
		len = (size_t)(tab - s);
	if (len == 9 && !memcmp(s, "/dev/null", 9))
		return 0;
	if (len && *s == '"')
		return fail(p, p->lineno, "quoted paths are not supported");
	if ((err = check_path(p, p->lineno, s, len)) < 0)
		return err;
	if (!(slash = memchr(s, '/', len)))
		return fail(p, p->lineno, "path '%.*s' has no a/ or b/ prefix",
			    (int)len, s);
	len -= (size_t)(slash + 1 - s);
	*out = kb_strndup(slash + 1, len);
	KB_ERROR_CHECK_ALLOC(*out);
	return 0;
}

/* The current line is "--- X"; the next one is "+++ Y". */
static int parse_paths(struct parser *p, struct kb_file_patch *fp)
{
	int err;

	if ((err = parse_path(&fp->old_path, p)) < 0)
		return err;
	if (!next_line(p) || !starts(p, "+++ "))
		return fail(p, p->lineno, "expected a '+++' line");
	if ((err = parse_path(&fp->new_path, p)) < 0)
		return err;
	if (!fp->old_path && !fp->new_path)
		return fail(p, p->lineno, "both paths are /dev/null");
	if (fp->old_path && fp->new_path && strcmp(fp->old_path, fp->new_path))
		return fail(p, p->lineno, "'%s' and '%s' differ: renames are not supported"
			    " (" NO_RENAMES_HINT ")",
			    fp->old_path, fp->new_path);
	return 0;
}

static size_t hex_run(const char *s, const char *end)
{
	const char *q = s;

	while (q < end && isxdigit((unsigned char)*q))
		q++;
	return (size_t)(q - s);
}

static int git_line_name(const char *line, size_t len);

/* The current section's file for messages: X of "diff --git a/X b/X", else
 * the rest of that line. */
static void diff_name(const struct parser *p, const char **name, int *n)
{
	int half = git_line_name(p->diff_line, p->diff_len);

	*name = p->diff_line + (half >= 0 ? 13 : 11);
	*n = half >= 0 ? half : (int)(p->diff_len - 11);
}

/*
 * The octal mode from `s` to `end` ("100644"), canonical as git keeps
 * it: a regular file is 100644 or 100755. A submodule, or any other mode
 * that is no file or symlink, is refused, naming the file.
 */
static int parse_mode(unsigned *mode, struct parser *p, const char *s, const char *end,
		      const char *what)
{
	const char *name;
	unsigned m = 0;
	int n;

	if (s >= end || end - s > 6)
		return fail(p, p->lineno, "malformed %s", what);
	for (; s < end; s++) {
		if (*s < '0' || *s > '7')
			return fail(p, p->lineno, "malformed %s", what);
		m = m * 8 + (unsigned)(*s - '0');
	}
	if ((m & 0170000) == 0100000)
		m = m & 0100 ? 0100755 : 0100644;
	if (m == 0100644 || m == 0100755 || m == 0120000) {
		*mode = m;
		return 0;
	}
	diff_name(p, &name, &n);
	if (m == 0160000)
		return fail(p, p->lineno, "'%.*s' is a submodule (mode 160000): "
			    "submodules are not supported", n, name);
	return fail(p, p->lineno, "'%.*s': mode %06o is not supported (only files, "
		    "executables and symlinks)", n, name, m);
}

/* "old mode 100644" and the like: `skip` is the length of the words. */
static int parse_mode_line(unsigned *mode, struct parser *p, size_t skip)
{
	return parse_mode(mode, p, p->line + skip, p->line + p->len, "mode line");
}

/* "index d971346..71caf7a 100644": the mode, when there, is the file's
 * before and after (no mode line says it changes). */
static int parse_index(struct parser *p, struct kb_file_patch *fp)
{
	const char *s = p->line + 6, *end = p->line + p->len;
	size_t a = hex_run(s, end), b;
	unsigned mode = 0;
	int err;

	if (a < 4 || a > 40 || end - (s + a) < 2 || memcmp(s + a, "..", 2))
		return fail(p, p->lineno, "malformed index line");
	b = hex_run(s + a + 2, end);
	if (b < 4 || b > 40 || (s + a + 2 + b < end && s[a + 2 + b] != ' '))
		return fail(p, p->lineno, "malformed index line");
	if (s + a + 2 + b < end &&
	    (err = parse_mode(&mode, p, s + a + 3 + b, end, "index line")) < 0)
		return err;
	memcpy(fp->old_id, s, a);
	fp->old_id[a] = '\0';
	memcpy(fp->new_id, s + a + 2, b);
	fp->new_id[b] = '\0';
	if (mode && !fp->old_mode && !fp->new_mode)
		fp->old_mode = fp->new_mode = mode;
	return 0;
}

static bool starts_any(const struct parser *p, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (starts(p, *prefixes))
			return true;
	return false;
}

/* The lines between "diff --git" and "---": index, modes, renames. */
static int parse_extended_header(struct parser *p, struct kb_file_patch *fp)
{
	static const char *const renames[] = { "similarity index ",
		"dissimilarity index ", "rename from ", "rename to ", "copy from ",
		"copy to ", NULL };
	int err = 0;

	p->created = p->deleted = false;
	while (!err && next_line(p)) {
		if (starts(p, "index "))
			err = parse_index(p, fp);
		else if (starts(p, "old mode "))
			err = parse_mode_line(&fp->old_mode, p, 9);
		else if (starts(p, "new mode "))
			err = parse_mode_line(&fp->new_mode, p, 9);
		else if (starts(p, "deleted file mode ")) {
			p->deleted = true;
			err = parse_mode_line(&fp->old_mode, p, 18);
		} else if (starts(p, "new file mode ")) {
			p->created = true;
			err = parse_mode_line(&fp->new_mode, p, 14);
		} else if (starts_any(p, renames))
			err = fail(p, p->lineno, "renames and copies are not supported ("
				   NO_RENAMES_HINT ")");
		else if (starts(p, "GIT binary patch") || starts(p, "Binary files "))
			err = fail(p, p->lineno, "binary patches are not supported");
		else if (starts(p, "--- "))
			return parse_paths(p, fp);
		else {
			p->again = true;
			break;
		}
	}
	return err;
}

/* ---- hunks ---- */

static bool parse_num(const char **s, const char *end, size_t *v)
{
	const char *q = *s;

	*v = 0;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		if (*v > (SIZE_MAX - 9) / 10)
			return false;
		*v = *v * 10 + (size_t)(*q - '0');
	}
	if (q == *s)
		return false;
	*s = q;
	return true;
}

/* "-12,5" or "-12" (count 1) */
static bool parse_range(const char **s, const char *end, char sign,
			size_t *start, size_t *count)
{
	if (*s >= end || **s != sign)
		return false;
	(*s)++;
	if (!parse_num(s, end, start))
		return false;
	*count = 1;
	if (*s < end && **s == ',') {
		(*s)++;
		if (!parse_num(s, end, count))
			return false;
	}
	return *start > 0 || *count == 0;
}

/* "@@ -1114,13 +1114,21 @@ section" */
static int parse_hunk_header(struct parser *p, struct kb_hunk *h)
{
	const char *s = p->line + 3, *end = p->line + p->len;

	if (!parse_range(&s, end, '-', &h->old_start, &h->old_lines) ||
	    s >= end || *s++ != ' ' ||
	    !parse_range(&s, end, '+', &h->new_start, &h->new_lines) ||
	    end - s < 3 || memcmp(s, " @@", 3) ||
	    (end - s > 3 && s[3] != ' ') ||
	    (!h->old_lines && !h->new_lines))
		return fail(p, p->lineno, "hunk header is malformed");
	s += end - s > 3 ? 4 : 3;
	h->section = kb_strndup(s, (size_t)(end - s));
	KB_ERROR_CHECK_ALLOC(h->section);
	return 0;
}

static int add_line(struct parser *p, struct kb_hunk *h, enum kb_line_type type,
		    const char *text, size_t len)
{
	int err;

	if ((err = KB_ARRAY_GROW(h->lines, p->lines_alloc, h->nlines + 1)) < 0)
		return err;
	h->lines[h->nlines++] = (struct kb_line){ type, text, len, false };
	return 0;
}

/* "\ No newline at end of file" (the text is localised: only '\' counts) */
static int mark_no_newline(struct parser *p, struct kb_hunk *h)
{
	if (!h->nlines)
		return fail(p, p->lineno, "'\\' line outside a hunk");
	h->lines[h->nlines - 1].no_newline = true;
	return 0;
}

/* One hunk line; `left` are the old and new lines still expected. */
static int hunk_line(struct parser *p, struct kb_hunk *h, size_t left[2])
{
	char c = p->len ? p->line[0] : ' ';
	bool old = c != '+', new = c != '-';

	if (c == '\\')
		return mark_no_newline(p, h);
	if (c != ' ' && c != '-' && c != '+')
		return fail(p, h->source_line,
			    "hunk ends early (%zu old and %zu new lines missing)",
			    left[0], left[1]);
	/* an empty line is a context line whose space a mailer ate */
	if (!p->len && (!left[0] || !left[1]))
		return fail(p, h->source_line,
			    "hunk ends early (%zu old and %zu new lines missing)",
			    left[0], left[1]);
	if ((old && !left[0]) || (new && !left[1]))
		return fail(p, p->lineno, "hunk has extra lines");
	left[0] -= old;
	left[1] -= new;
	return add_line(p, h, (enum kb_line_type)c, p->len ? p->line + 1 : p->line,
			p->len ? p->len - 1 : 0);
}

/* After a complete hunk: its "\ No newline" marker, and no stray hunk
 * lines other than a "-- " signature or the next file's "--- ". */
static int hunk_trailer(struct parser *p, struct kb_hunk *h)
{
	int err;

	if (peek_starts(p, "\\")) {
		next_line(p);
		if ((err = mark_no_newline(p, h)) < 0)
			return err;
	}
	if (!next_line(p))
		return 0;
	if (line_is(p, "-- ") || line_is(p, "--") || is_plain_diff_start(p) ||
	    !(starts(p, " ") || starts(p, "-") || starts(p, "+"))) {
		p->again = true;
		return 0;
	}
	return fail(p, p->lineno, "hunk has extra lines");
}

static int parse_hunk(struct parser *p, struct kb_file_patch *fp)
{
	struct kb_hunk *h;
	size_t left[2];
	int err;

	if ((err = KB_ARRAY_GROW(fp->hunks, p->hunks_alloc, fp->nhunks + 1)) < 0)
		return err;
	h = memset(&fp->hunks[fp->nhunks++], 0, sizeof(*h));
	p->lines_alloc = 0;
	h->source_line = p->lineno;
	if ((err = parse_hunk_header(p, h)) < 0)
		return err;
	left[0] = h->old_lines;
	left[1] = h->new_lines;
	while (left[0] || left[1]) {
		if (!next_line(p))
			return fail(p, h->source_line,
				    "hunk ends early (%zu old and %zu new lines missing)",
				    left[0], left[1]);
		if ((err = hunk_line(p, h, left)) < 0)
			return err;
	}
	return hunk_trailer(p, h);
}

/* Hunks until the next file diff or mail; other lines are skipped. */
static int parse_hunks(struct parser *p, struct kb_file_patch *fp)
{
	int err = 0;

	p->hunks_alloc = 0;
	while (!err && next_line(p)) {
		if (is_file_start(p) || is_mbox_from(p)) {
			p->again = true;
			break;
		}
		if (starts(p, "@@ "))
			err = parse_hunk(p, fp);
	}
	return err;
}

/* The name on a "diff --git a/X b/X" line, for messages about file diffs
 * that have no "---" line; the whole rest of the line when it is not that
 * simple. */
static int git_line_name(const char *line, size_t len)
{
	const char *s = line + 11;
	size_t n = len - 11, half = n >= 5 ? (n - 5) / 2 : 0;

	if (n >= 5 && (n - 5) % 2 == 0 && !memcmp(s, "a/", 2) &&
	    !memcmp(s + 2 + half, " b/", 3) && !memcmp(s + 2, s + 5 + half, half))
		return (int)half;
	return -1;
}

static int no_hunks(struct parser *p, const struct kb_file_patch *fp)
{
	const char *path = kb_file_patch_path(fp), *name;
	int n;

	if (path || !p->diff_line)
		return fail(p, fp->source_line, "no hunks for '%s'", path ? path : "");
	diff_name(p, &name, &n);
	return fail(p, fp->source_line, "no hunks for '%.*s'", n, name);
}

/*
 * A section without "---" and "+++" lines (a mode change, an empty file
 * created or deleted) is about the file of "diff --git a/X b/X".
 */
static int git_line_paths(struct parser *p, struct kb_file_patch *fp)
{
	int n = git_line_name(p->diff_line, p->diff_len), err;

	if (n < 0)
		return 0;	/* no name to trust: no_hunks() says so */
	if ((err = check_path(p, fp->source_line, p->diff_line + 11, (size_t)n + 2)) < 0)
		return err;
	if ((!p->created && !(fp->old_path = kb_strndup(p->diff_line + 13, (size_t)n))) ||
	    (!p->deleted && !(fp->new_path = kb_strndup(p->diff_line + 13, (size_t)n))))
		return kb_error_oom();
	return 0;
}

/* One side's mode for a file on both sides; git keeps a file's type. */
static int check_modes(struct parser *p, struct kb_file_patch *fp)
{
	if (!fp->old_path)
		fp->old_mode = 0;
	else if (!fp->new_path)
		fp->new_mode = 0;
	else if (!fp->old_mode || !fp->new_mode)
		fp->old_mode = fp->new_mode = fp->old_mode | fp->new_mode;
	else if ((fp->old_mode ^ fp->new_mode) & 0170000)
		return fail(p, fp->source_line, "'%s': the file's type changes (mode %06o "
			    "to %06o): not supported", fp->new_path, fp->old_mode,
			    fp->new_mode);
	return 0;
}

/* A section without hunks changes the mode only, or creates or deletes an
 * empty file (git's "new file mode" / "deleted file mode" without hunks). */
static bool whole_file(const struct parser *p, const struct kb_file_patch *fp)
{
	if (!fp->old_path)
		return p->created;
	if (!fp->new_path)
		return p->deleted;
	return fp->old_mode != fp->new_mode;
}

static int check_file(struct parser *p, struct kb_file_patch *fp)
{
	const char *path = kb_file_patch_path(fp);
	int err;

	if (!path && fp->nhunks)
		return fail(p, fp->source_line, "expected '---' and '+++' lines");
	if (path && (err = check_modes(p, fp)) < 0)
		return err;
	if (!path || (!fp->nhunks && !whole_file(p, fp)))
		return no_hunks(p, fp);
	if (!fp->nhunks)
		return 0;
	if (!fp->old_path && (fp->hunks[0].old_lines || fp->nhunks > 1))
		return fail(p, fp->hunks[0].source_line,
			    "new file '%s' has old lines", path);
	if (!fp->new_path && (fp->hunks[0].new_lines || fp->nhunks > 1))
		return fail(p, fp->hunks[0].source_line,
			    "deleted file '%s' has new lines", path);
	return 0;
}

static int parse_file(struct parser *p)
{
	struct kb_patch *patch = p->patch;
	struct kb_file_patch *fp;
	int err;

	if ((err = KB_ARRAY_GROW(patch->files, p->files_alloc, patch->nfiles + 1)) < 0)
		return err;
	fp = memset(&patch->files[patch->nfiles++], 0, sizeof(*fp));
	fp->source_line = p->lineno;
	p->diff_line = starts(p, "diff --git ") ? p->line : NULL;
	p->diff_len = p->len;
	if (p->diff_line)
		err = parse_extended_header(p, fp);
	else
		err = parse_paths(p, fp);
	if (err == 0 && p->diff_line && !fp->old_path && !fp->new_path)
		err = git_line_paths(p, fp);
	if (err < 0 || (err = parse_hunks(p, fp)) < 0)
		return err;
	return check_file(p, fp);
}

/*
 * git writes a file whose type changes (a file that becomes a symlink) as
 * its deletion and its creation, both read against one tree: refused,
 * naming it, rather than taken for a file that is in the way.
 */
static int check_type_changes(struct parser *p)
{
	const struct kb_patch *patch = p->patch;
	size_t i, j;

	for (j = 0; j < patch->nfiles; j++) {
		const struct kb_file_patch *made = &patch->files[j];
		for (i = 0; i < j && !made->old_path; i++) {
			const struct kb_file_patch *gone = &patch->files[i];
			if (!gone->new_path && !strcmp(gone->old_path, made->new_path))
				return fail(p, made->source_line, "'%s' is deleted and created "
					    "again (mode %06o to %06o): file type changes are "
					    "not supported", made->new_path, gone->old_mode,
					    made->new_mode);
		}
	}
	return 0;
}

static int parse_files(struct parser *p)
{
	int err = 0;

	while (!err && next_line(p)) {
		if (is_file_start(p))
			err = parse_file(p);
		else if (is_mbox_from(p) && p->patch->nfiles)
			err = fail(p, p->lineno, "a second mail starts here: "
				   "give one patch per file");
	}
	if (!err && !p->patch->nfiles)
		err = kb_error_set(KB_EINVALID, "%s: no diff found", p->origin);
	return err < 0 ? err : check_type_changes(p);
}

/* NULs and CRLFs are refused before parsing: both would be carried into
 * the tree unnoticed. */
static int check_bytes(const char *buf, size_t len, const char *origin)
{
	size_t i, lineno = 1;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			lineno++;
		else if (buf[i] == '\0')
			return kb_error_set(KB_EINVALID, "%s:%zu: NUL byte in patch",
					    origin, lineno);
		else if (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')
			return kb_error_set(KB_EINVALID,
					    "%s:%zu: CRLF line endings are not supported",
					    origin, lineno);
	}
	return 0;
}

int kb_patch_parse(struct kb_patch **out, const char *buf, size_t len,
		   const char *origin)
{
	struct parser p = { 0 };
	struct kb_patch *patch = NULL;
	int err;

	*out = NULL;
	origin = origin ? origin : "<patch>";
	if ((err = check_bytes(buf, len, origin)) < 0)
		goto done;
	if (!(patch = calloc(1, sizeof(*patch))) ||
	    !(patch->buffer = malloc(len + 1))) {
		err = kb_error_oom();
		goto done;
	}
	if (len)
		memcpy(patch->buffer, buf, len);
	patch->buffer[len] = '\0';
	patch->size = len;
	p.origin = origin;
	p.patch = patch;
	p.pos = patch->buffer;
	p.end = patch->buffer + len;
	if ((err = parse_mail(&p)) < 0 || (err = parse_files(&p)) < 0)
		goto done;
	*out = patch;
	patch = NULL;
done:
	free(p.description);
	kb_patch_free(patch);
	return err;
}

int kb_patch_load(struct kb_patch **out, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if ((err = kb_read_file(&buf, &len, path)) == 0)
		err = kb_patch_parse(out, buf, len, path);
	free(buf);
	return err;
}

static void file_patch_release(struct kb_file_patch *fp)
{
	size_t i;

	for (i = 0; i < fp->nhunks; i++) {
		free(fp->hunks[i].section);
		free(fp->hunks[i].lines);
	}
	free(fp->hunks);
	free(fp->old_path);
	free(fp->new_path);
}

void kb_patch_free(struct kb_patch *patch)
{
	size_t i;

	if (!patch)
		return;
	for (i = 0; i < patch->nfiles; i++)
		file_patch_release(&patch->files[i]);
	free(patch->files);
	free(patch->from_commit);
	free(patch->author_name);
	free(patch->author_email);
	free(patch->date);
	free(patch->subject);
	free(patch->body);
	free(patch->buffer);
	free(patch);
}

const char *kb_file_patch_path(const struct kb_file_patch *fp)
{
	return fp->new_path ? fp->new_path : fp->old_path;
}

/* ---- dates ---- */

static bool date_num(const char **s, int maxdigits, int *v)
{
	int n = 0;

	*v = 0;
	while (n < maxdigits && **s >= '0' && **s <= '9') {
		*v = *v * 10 + (**s - '0');
		(*s)++;
		n++;
	}
	return n > 0;
}

static void skip_blanks(const char **s)
{
	while (**s == ' ' || **s == '\t')
		(*s)++;
}

static bool date_month(const char **s, int *mon)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int i;

	for (i = 0; i < 12; i++)
		if (!strncasecmp(*s, months + 3 * i, 3)) {
			*mon = i;
			*s += 3;
			return true;
		}
	return false;
}

/* "+0300" -> 180; "GMT", "UT", "UTC", "Z" -> 0 */
static bool date_zone(const char **s, int *tz)
{
	static const char *const utc[] = { "GMT", "UTC", "UT", "Z", NULL };
	const char *q = *s;
	int sign, hhmm, i;

	for (i = 0; utc[i]; i++)
		if (!strncasecmp(q, utc[i], strlen(utc[i]))) {
			*tz = 0;
			*s = q + strlen(utc[i]);
			return true;
		}
	if (*q != '+' && *q != '-')
		return false;
	sign = *q++ == '-' ? -1 : 1;
	if (!date_num(&q, 4, &hhmm) || q - *s != 5 || hhmm % 100 >= 60)
		return false;
	*tz = sign * (hhmm / 100 * 60 + hhmm % 100);
	*s = q;
	return true;
}

/* "[Wed, ]2 Mar 2011 00:33:13" */
static bool date_fields(const char **s, struct tm *tm)
{
	const char *q = *s;

	skip_blanks(&q);
	if (isalpha((unsigned char)*q)) {
		while (isalpha((unsigned char)*q))
			q++;
		if (*q == ',')
			q++;
		skip_blanks(&q);
	}
	if (!date_num(&q, 2, &tm->tm_mday) || (skip_blanks(&q), !date_month(&q, &tm->tm_mon)))
		return false;
	skip_blanks(&q);
	if (!date_num(&q, 4, &tm->tm_year) || (skip_blanks(&q), !date_num(&q, 2, &tm->tm_hour)) ||
	    *q++ != ':' || !date_num(&q, 2, &tm->tm_min))
		return false;
	if (*q == ':' && (q++, !date_num(&q, 2, &tm->tm_sec)))
		return false;
	*s = q;
	return true;
}

int kb_parse_date(int64_t *time, int *tz_offset, const char *date)
{
	struct tm tm = { 0 };
	const char *s = date;
	int tz = 0, mday, year;
	time_t t;

	if (!date_fields(&s, &tm) || (skip_blanks(&s), !date_zone(&s, &tz)))
		goto bad;
	skip_blanks(&s);
	if (*s == '(' && (s = strchr(s, ')')))	/* "(MSK)" */
		s++, skip_blanks(&s);
	if (!s || *s)
		goto bad;
	/* two-digit years as RFC 2822 section 4.3 says */
	year = tm.tm_year < 50 ? tm.tm_year + 2000 : tm.tm_year < 1000 ? tm.tm_year + 1900 : tm.tm_year;
	tm.tm_year = year - 1900;
	mday = tm.tm_mday;
	if (tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60 ||
	    (t = timegm(&tm)) == (time_t)-1 || tm.tm_mday != mday)
		goto bad;
	*time = (int64_t)t - (int64_t)tz * 60;
	*tz_offset = tz;
	return 0;
bad:
	return kb_error_set(KB_EINVALID, "malformed date '%s'", date);
}

static void swap_sizes(size_t *a, size_t *b)
{
	size_t t = *a;

	*a = *b;
	*b = t;
}

static int reverse_hunk(struct kb_hunk *to, const struct kb_hunk *from,
			const char *old_base, char *new_base)
{
	size_t i;

	*to = *from;
	swap_sizes(&to->old_start, &to->new_start);
	swap_sizes(&to->old_lines, &to->new_lines);
	to->lines = NULL;
	if (!(to->section = kb_strdup(from->section)) ||
	    !(to->lines = calloc(from->nlines ? from->nlines : 1, sizeof(*to->lines))))
		return kb_error_oom();
	for (i = 0; i < from->nlines; i++) {
		to->lines[i] = from->lines[i];
		to->lines[i].text = new_base + (from->lines[i].text - old_base);
		if (from->lines[i].type == KB_LINE_ADD)
			to->lines[i].type = KB_LINE_DEL;
		else if (from->lines[i].type == KB_LINE_DEL)
			to->lines[i].type = KB_LINE_ADD;
	}
	return 0;
}

static int reverse_file(struct kb_file_patch *to, const struct kb_file_patch *from,
			const char *old_base, char *new_base)
{
	size_t i;
	int err;

	memset(to, 0, sizeof(*to));
	to->source_line = from->source_line;
	memcpy(to->old_id, from->new_id, sizeof(to->old_id));
	memcpy(to->new_id, from->old_id, sizeof(to->new_id));
	to->old_mode = from->new_mode;
	to->new_mode = from->old_mode;
	if ((from->new_path && !(to->old_path = kb_strdup(from->new_path))) ||
	    (from->old_path && !(to->new_path = kb_strdup(from->old_path))) ||
	    !(to->hunks = calloc(from->nhunks ? from->nhunks : 1, sizeof(*to->hunks))))
		return kb_error_oom();
	for (i = 0; i < from->nhunks; i++, to->nhunks++)
		if ((err = reverse_hunk(&to->hunks[i], &from->hunks[i], old_base, new_base)) < 0)
			return err;
	return 0;
}

static int copy_mail(struct kb_patch *to, const struct kb_patch *from)
{
	to->time = from->time;
	to->tz_offset = from->tz_offset;
	to->size = from->size;
	if ((from->from_commit && !(to->from_commit = kb_strdup(from->from_commit))) ||
	    (from->author_name && !(to->author_name = kb_strdup(from->author_name))) ||
	    (from->author_email && !(to->author_email = kb_strdup(from->author_email))) ||
	    (from->date && !(to->date = kb_strdup(from->date))) ||
	    (from->subject && !(to->subject = kb_strdup(from->subject))) ||
	    (from->body && !(to->body = kb_strdup(from->body))) ||
	    !(to->buffer = malloc(from->size + 1)))
		return kb_error_oom();
	memcpy(to->buffer, from->buffer, from->size + 1);
	return 0;
}

int kb_patch_reverse(struct kb_patch **out, const struct kb_patch *patch)
{
	struct kb_patch *rev;
	size_t i;
	int err;

	*out = NULL;
	rev = calloc(1, sizeof(*rev));
	KB_ERROR_CHECK_ALLOC(rev);
	if ((err = copy_mail(rev, patch)) < 0)
		goto done;
	if (!(rev->files = calloc(patch->nfiles ? patch->nfiles : 1, sizeof(*rev->files)))) {
		err = kb_error_oom();
		goto done;
	}
	for (i = 0; i < patch->nfiles; i++, rev->nfiles++)
		if ((err = reverse_file(&rev->files[i], &patch->files[i], patch->buffer,
					rev->buffer)) < 0) {
			rev->nfiles++;
			goto done;
		}
	*out = rev;
	rev = NULL;
done:
	kb_patch_free(rev);
	return err;
}
