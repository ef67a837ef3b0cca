/*
 * Unified diffs in git format-patch / mbox form -> files and hunks.
 *
 * A patch is the mail (From/Date/Subject headers, body up to the "---"
 * line) followed by "diff --git" sections. Plain diffs without mail headers
 * parse too; their author/subject/body stay NULL.
 */
#ifndef KB_PATCH_H
#define KB_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kb_line_type {
	KB_LINE_CONTEXT = ' ',
	KB_LINE_DEL = '-',
	KB_LINE_ADD = '+',
};

struct kb_line {
	enum kb_line_type type;
	const char *text;	/* into kb_patch.buffer, without the type char */
	size_t len;		/* without the '\n' */
	bool no_newline;	/* followed by "\ No newline at end of file" */
};

struct kb_hunk {
	size_t old_start, old_lines;	/* as in "@@ -old_start,old_lines" */
	size_t new_start, new_lines;
	char *section;			/* text after the second "@@", or "" */
	struct kb_line *lines;
	size_t nlines;
	size_t source_line;		/* 1-based line of "@@" in the patch */
};

struct kb_file_patch {
	char *old_path;		/* without "a/"; NULL for /dev/null (new file) */
	char *new_path;		/* without "b/"; NULL for /dev/null (deleted) */
	char old_id[41];	/* abbreviated blob id from "index", or "" */
	char new_id[41];
	/*
	 * Modes as git writes them: 0100644, 0100755 or 0120000 (a symlink,
	 * whose blob is its target). old_mode from "old mode" or "deleted file
	 * mode", new_mode from "new mode" or "new file mode"; a file whose mode
	 * does not change has its "index" line's mode in both. 0: the patch
	 * does not say (a plain diff).
	 */
	unsigned old_mode, new_mode;
	struct kb_hunk *hunks;
	size_t nhunks;
	size_t source_line;	/* 1-based line of "diff --git" */
};

struct kb_patch {
	char *from_commit;	/* sha from the "From <sha> Mon Sep 17" line, or NULL */
	char *author_name;	/* "Vasiliy Kulikov", or NULL */
	char *author_email;	/* "segoon@openwall.com", or NULL */
	char *date;		/* the Date: header as written, or NULL */
	int64_t time;		/* seconds since the epoch (UTC) from Date: */
	int tz_offset;		/* minutes east of UTC from Date:, e.g. +0300 -> 180 */
	char *subject;		/* "[PATCH ...]" prefix removed, folded lines joined */
	char *body;		/* message body, trailing blank lines removed, ends
				 * with '\n' when not empty; "" when no body */
	struct kb_file_patch *files;
	size_t nfiles;
	char *buffer;		/* owned copy of the input; kb_line.text points here */
	size_t size;
};

/*
 * Parse `len` bytes at `buf`. `origin` names the input in error messages
 * ("backports/X/upstream.patch:12: hunk header is malformed"). Errors are
 * KB_EINVALID: no diff at all, malformed "@@" header, hunk shorter or longer
 * than its header says, binary patches, CRLF line endings, NUL bytes, paths
 * that are absolute or contain a ".." component, modes other than a regular
 * file's, an executable's or a symlink's (a submodule), a file whose type
 * changes (a mode change from a file to a symlink, or a file deleted and
 * created again). A file diff without hunks is one that changes only the
 * mode, or creates or deletes an empty file.
 */
int kb_patch_parse(struct kb_patch **out, const char *buf, size_t len,
		   const char *origin);

/* Read and parse a file; `path` is used as origin. */
int kb_patch_load(struct kb_patch **out, const char *path);

void kb_patch_free(struct kb_patch *patch);

/*
 * A patch that undoes `patch`: '+' and '-' lines swapped, old and new sides
 * (paths, blob ids, modes, line ranges) exchanged. The mail fields are copied.
 * Used to reconstruct a branch's state before a fix it already carries.
 */
int kb_patch_reverse(struct kb_patch **out, const struct kb_patch *patch);

/* The file patch's path in the tree: new_path, or old_path when deleted. */
const char *kb_file_patch_path(const struct kb_file_patch *fp);

/*
 * Parse an RFC 2822 date ("Wed, 2 Mar 2011 00:33:13 +0300", weekday
 * optional) into seconds since the epoch and a zone offset in minutes.
 */
int kb_parse_date(int64_t *time, int *tz_offset, const char *date);

#endif
