/* What the report writers share: escaping, the cells of the matrix, files. */
#include "report/report_priv.h"
#include "util/array.h"
#include "util/error.h"
#include "util/fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * The length of the UTF-8 sequence at `s` (at most `n` bytes) that XML
 * allows too, 0 if none: no U+FFFE or U+FFFF.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = kb_utf8_len(s, n);

	if (len == 3 && s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
		return 0;
	return len;
}

static const char *xml_entity(unsigned char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	case '\t': case '\n': return NULL;
	case '\r': return "&#13;";
	default: return c < 0x20 || c == 0x7f ? "\xef\xbf\xbd" : NULL;
	}
}

/*
 * These append without checking each call: a failed append leaves `out`
 * failed (util/buf.h); each returns kb_buf_check(out) for a caller that
 * checks every call.
 */
int report_put_xmln(struct kb_buf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	const char *ent;
	size_t i = 0, len;

	while (i < n && !kb_buf_oom(out)) {
		if ((ent = xml_entity(p[i]))) {
			kb_buf_puts(out, ent);
			i++;
		} else if ((len = utf8_len(p + i, n - i))) {
			kb_buf_put(out, s + i, len);
			i += len;
		} else {
			kb_buf_puts(out, "\xef\xbf\xbd");
			i++;
		}
	}
	return kb_buf_check(out);
}

int report_put_utf8(struct kb_buf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n && !kb_buf_oom(out)) {
		if ((len = utf8_len(p + i, n - i)) && p[i]) {
			kb_buf_put(out, s + i, len);
			i += len;
		} else {
			kb_buf_puts(out, "\xef\xbf\xbd");
			i++;
		}
	}
	return kb_buf_check(out);
}

int report_put_xml(struct kb_buf *out, const char *s)
{
	return s ? report_put_xmln(out, s, strlen(s)) : 0;
}

int report_put_url(struct kb_buf *out, const char *path)
{
	const unsigned char *p = (const unsigned char *)path;

	for (; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			kb_buf_putc(out, (char)*p);
		else
			kb_buf_printf(out, "%%%02X", *p);
	return kb_buf_check(out);
}

int report_put_md(struct kb_buf *out, const char *s)
{
	for (; s && *s; s++)
		if (strchr("\\`*_[]<>|&~#", *s))
			kb_buf_printf(out, "\\%c", *s);
		else
			kb_buf_putc(out, *s == '\n' ? ' ' : *s);
	return kb_buf_check(out);
}

/* Enough backticks around `s` that none inside ends the span. */
int report_put_md_code(struct kb_buf *out, const char *s)
{
	size_t run = 0, longest = 0, i;
	const char *p;

	for (p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (i = 0; i <= longest; i++)
		kb_buf_putc(out, '`');
	if (*s == '`' || longest)
		kb_buf_putc(out, ' ');
	for (p = s; *p; p++)
		if (*p == '|')
			kb_buf_puts(out, "\\|");
		else
			kb_buf_putc(out, *p == '\n' ? ' ' : *p);
	if (longest)
		kb_buf_putc(out, ' ');
	for (i = 0; i <= longest; i++)
		kb_buf_putc(out, '`');
	return kb_buf_check(out);
}

int report_put_first_line(struct kb_buf *out, const char *s, const char *dflt)
{
	if (!s || !*s)
		return kb_buf_puts(out, dflt);
	return kb_buf_put(out, s, strcspn(s, "\n"));
}

bool report_has_file(char *const *files, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(files[i], name))
			return true;
	return false;
}

const struct kb_report_apply *report_lane_apply(const struct kb_report_branch *b,
						const struct kb_report_lane *l)
{
	return l && l->apply.present ? &l->apply : &b->apply;
}

const char *report_lane_verdict_text(const struct kb_report_lane *l)
{
	if (l->baseline && l->verdict == KB_VERDICT_VULNERABLE)
		return "vulnerable (baseline)";
	return kb_verdict_name(l->verdict);
}

int report_put_boot_image(struct kb_buf *out, const struct kb_report_lane *l)
{
	if (!l->boot_image)
		return 0;
	return kb_buf_printf(out, ", booted as %s",
			     !strcmp(l->boot_image, "pvh-vmlinux") ? "PVH vmlinux" : "bzImage");
}

int report_put_suite_counts(struct kb_buf *out, const struct kb_report_lane *l)
{
	size_t i;

	if (!l->nsuites)
		return kb_buf_puts(out, "-");
	for (i = 0; i < l->nsuites; i++) {
		const struct kb_report_suite *s = &l->suites[i];
		kb_buf_printf(out, "%s%s %lld/%lld", i ? ", " : "", s->name, s->pass,
			      s->pass + s->fail + s->skip);
		if (s->skip)
			kb_buf_printf(out, " (%lld skipped)", s->skip);
		if (s->status == KB_KTAP_ERROR)
			kb_buf_puts(out, " (broken)");
	}
	return kb_buf_check(out);
}

int report_put_apply_cell(struct kb_buf *out, const struct kb_report_apply *a)
{
	if (!a->present)
		return kb_buf_puts(out, "-");
	if (a->variant && (a->status == KB_STATUS_APPLIED || a->status == KB_STATUS_ALREADY_APPLIED ||
			   a->status == KB_STATUS_REVERSE_APPLIED))
		return kb_buf_printf(out, "%s (%s)", kb_status_name(a->status), a->variant);
	return kb_buf_puts(out, kb_status_name(a->status));
}

int report_put_queued_cell(struct kb_buf *out, const struct kb_report_branch *b, size_t f)
{
	if (b->queue.error)
		return kb_buf_puts(out, "error");
	if (!b->queue.present || f >= b->queue.nfixes)
		return kb_buf_puts(out, "skipped");
	return report_put_apply_cell(out, &b->queue.fixes[f].apply);
}

int report_put_queued_why(struct kb_buf *out, const struct kb_report_branch *b, size_t f)
{
	const struct kb_report_apply *a;

	if (b->queue.error)
		return kb_buf_printf(out, "error, skipped: the queue did not run: %s", b->queue.error);
	if (!b->queue.present || f >= b->queue.nfixes)	/* skip-if-missing says why */
		return kb_buf_printf(out, "skipped: %s", b->note ? b->note :
				     "nothing is applied to a distribution kernel");
	a = &b->queue.fixes[f].apply;
	if (a->status == KB_STATUS_APPLIED)
		return 0;
	return kb_buf_printf(out, "%s, %s%s", kb_status_name(a->status),
			     a->status == KB_STATUS_ALREADY_APPLIED ? "in the branch already: " :
			     a->status == KB_STATUS_NOT_AFFECTED ? "not needed: " : "skipped: ",
			     a->detail ? a->detail : "");
}

bool report_case_expected_failure(const struct kb_report_lane *l, const struct kb_report_case *c)
{
	return l->baseline && c->detects && c->status == KB_KTAP_FAIL;
}

void report_strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void kb_report_strv_free(char **v)
{
	report_strv_free(v);
}

int report_strv_add(char ***v, size_t *n, size_t *alloc, const char *s)
{
	int err;

	if ((err = KB_ARRAY_GROW(*v, *alloc, *n + 2)) < 0)
		return err;
	(*v)[*n] = kb_strdup(s);
	KB_ERROR_CHECK_ALLOC((*v)[*n]);
	(*v)[++*n] = NULL;
	return 0;
}

int report_link_error(const char *path)
{
	return kb_error_set(KB_EINVALID, "'%s' is a symbolic link: kbackport does not follow "
			    "links in a run directory", path);
}

/* Any of `dir`/`rel`'s components below `dir` a link: an error ending in `why`. */
static int check_links(const char *dir, const char *rel, const char *why)
{
	struct kb_buf path = KB_BUF_INIT;
	struct stat st;
	const char *p = rel;
	size_t len;
	int err = kb_buf_puts(&path, dir);

	while (!err && *p) {
		len = strcspn(p, "/");
		if ((err = kb_buf_printf(&path, "/%.*s", (int)len, p)) < 0)
			break;
		p += len + (p[len] == '/');
		if (lstat(path.ptr, &st) < 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				err = kb_error_set(KB_ERROR, "cannot read '%s': %s", path.ptr,
						   strerror(errno));
			break;
		}
		if (S_ISLNK(st.st_mode))
			err = kb_error_set(KB_EINVALID, "'%s' is a symbolic link: %s", path.ptr, why);
	}
	kb_buf_release(&path);
	return err;
}

int report_check_links(const char *dir, const char *rel)
{
	return check_links(dir, rel, "kbackport does not follow links in a run directory");
}

int report_write_file(const char *dir, const char *rel, const char *data, size_t len)
{
	struct kb_buf path = KB_BUF_INIT;
	char *slash;
	int err;

	if ((err = report_check_links(dir, rel)) < 0 ||
	    (err = kb_buf_printf(&path, "%s/%s", dir, rel)) < 0)
		goto done;
	if ((slash = strrchr(path.ptr, '/'))) {
		*slash = '\0';
		err = kb_mkdir_p(path.ptr);
		*slash = '/';
		if (err < 0)
			goto done;
	}
	err = kb_write_file_atomic(path.ptr, data, len);
done:
	kb_buf_release(&path);
	return err;
}

#define NO_MAIL_THROUGH_LINKS "kbackport does not write mails through links"

int kb_report_write_mail(const char *dir, const char *rel, const char *data, size_t len)
{
	struct stat st;
	int err;

	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		return kb_error_set(KB_EINVALID, "'%s' is a symbolic link: " NO_MAIL_THROUGH_LINKS, dir);
	if ((err = check_links(dir, rel, NO_MAIL_THROUGH_LINKS)) < 0)
		return err;
	return report_write_file(dir, rel, data, len);
}
