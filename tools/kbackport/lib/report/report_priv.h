/* Shared by the report writers (report_*.c, kcidb.c); not public. */
#ifndef KB_REPORT_PRIV_H
#define KB_REPORT_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "report/report.h"

/*
 * `s` for XML and HTML text and attribute values: & < > " ' as entities;
 * characters XML 1.0 forbids (control characters but tab and newline) and
 * bytes that are not UTF-8 as U+FFFD. NULL puts nothing.
 */
int report_put_xml(struct kb_buf *out, const char *s);
int report_put_xmln(struct kb_buf *out, const char *s, size_t len);

/* `s` with bytes that are not UTF-8 as U+FFFD (for JSON strings). */
int report_put_utf8(struct kb_buf *out, const char *s, size_t len);

/* A relative path as a URL: every byte but [A-Za-z0-9-._~/] %-encoded. */
int report_put_url(struct kb_buf *out, const char *path);

/* Markdown: free text with \ ` * _ [ ] < > | & ~ # escaped; a code span
 * (with | escaped, for table cells). */
int report_put_md(struct kb_buf *out, const char *s);
int report_put_md_code(struct kb_buf *out, const char *s);

/* The first line of `s` (up to the newline), or `dflt` when empty. */
int report_put_first_line(struct kb_buf *out, const char *s, const char *dflt);

/* Does the lane's (or the branch's) directory hold the file `name`? */
bool report_has_file(char *const *files, size_t n, const char *name);

/* The apply result that concerns a lane: its own, else its branch's. */
const struct kb_report_apply *report_lane_apply(const struct kb_report_branch *b,
						const struct kb_report_lane *l);

/* "vulnerable", or "vulnerable (baseline)" when it is what a baseline
 * lane should show. */
const char *report_lane_verdict_text(const struct kb_report_lane *l);

/* ", booted as PVH vmlinux" or ", booted as bzImage" for a distribution
 * kernel's lane; nothing for a lane kbackport built. */
int report_put_boot_image(struct kb_buf *out, const struct kb_report_lane *l);

/* The test cell: "kbackport_dev_load 3/6, kbackport_caps 5/6", or "-". */
int report_put_suite_counts(struct kb_buf *out, const struct kb_report_lane *l);

/* The apply cell: "applied (3.9)", "conflict", or "-". */
int report_put_apply_cell(struct kb_buf *out, const struct kb_report_apply *a);

/*
 * A queue's run, fix `f` of the queue on branch `b`: the matrix cell
 * ("applied (3.9)", "conflict", "error" when the queue did not run there,
 * "skipped" for a branch nothing is applied to), and why it was not
 * applied ("" when it was): its status and detail, "skipped: " before it
 * when the fix is not in the queue's tip.
 */
int report_put_queued_cell(struct kb_buf *out, const struct kb_report_branch *b, size_t f);
int report_put_queued_why(struct kb_buf *out, const struct kb_report_branch *b, size_t f);

/* A failure that is expected: a detecting case failing on a baseline lane. */
bool report_case_expected_failure(const struct kb_report_lane *l, const struct kb_report_case *c);

/* Free a NULL-terminated list of strings (and the list). */
void report_strv_free(char **v);
/* Append a copy of `s` to the NULL-terminated list `*v` of `*n` (room for `*alloc`). */
int report_strv_add(char ***v, size_t *n, size_t *alloc, const char *s);

/*
 * Run directories may come from elsewhere (CI artifacts): a symbolic link
 * in one is never followed, for reading or for writing. This fails with
 * KB_EINVALID ("'<path>' is a symbolic link: ...") when a component of
 * `rel` under `dir` is a link; a missing component ends the check.
 */
int report_check_links(const char *dir, const char *rel);
/* That error for `path`. */
int report_link_error(const char *path);

/* Write `data` to `dir`/`rel` through a temporary file and a rename,
 * creating `rel`'s directories; refused when a part of `rel` is a link. */
int report_write_file(const char *dir, const char *rel, const char *data, size_t len);

#endif
