/*
 * Where a hunk fits in a file, and applying it there.
 *
 * libgit2 1.5 matches a hunk only at the line its header names. Like GNU
 * patch, kbackport searches outward from there (offset), then drops up to
 * `max_fuzz` context lines at each end of the hunk (fuzz), then, if allowed,
 * compares lines ignoring whitespace differences.
 */
#ifndef KB_LOCATE_H
#define KB_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#include "patch.h"

struct kb_slice {
	const char *ptr;
	size_t len;		/* without the '\n' */
};

/* A file as lines pointing into a buffer the caller keeps alive. */
struct kb_lines {
	struct kb_slice *v;
	size_t n, alloc;
	bool no_final_newline;	/* the last line had no '\n' */
};

#define KB_LINES_INIT { NULL, 0, 0, false }

int kb_lines_split(struct kb_lines *out, const char *buf, size_t len);
/* Join into a new malloc'ed buffer (NUL-terminated; *len excludes the NUL). */
int kb_lines_join(char **out, size_t *len, const struct kb_lines *lines);
void kb_lines_release(struct kb_lines *lines);

struct kb_locate_opts {
	unsigned max_fuzz;	/* context lines that may be dropped at each end */
	bool ignore_whitespace;	/* allow a whitespace-insensitive last pass */
};

/* kb_locate_opts with max_fuzz 2 and ignore_whitespace true. */
void kb_locate_opts_init(struct kb_locate_opts *opts);

struct kb_match {
	size_t line;		/* 0-based line where the kept preimage starts */
	long offset;		/* line - trim_head - expected: 0 in place */
	unsigned fuzz;		/* context lines dropped (max of both ends) */
	unsigned trim_head;	/* leading hunk lines dropped by fuzz */
	unsigned trim_tail;	/* trailing hunk lines dropped by fuzz */
	bool whitespace;	/* matched only when ignoring whitespace */
};

/*
 * Find where `hunk`'s preimage (context and '-' lines) appears in `file`,
 * at or after line `min_line`, nearest to `expected` (0-based). Order of
 * preference: fuzz 0 before fuzz 1 ...; within one fuzz level an exact
 * match before a whitespace-insensitive one; then the smaller |offset|,
 * and for equal |offset| the earlier line. Only context lines are trimmed;
 * a hunk with no '-' and no context lines left after trimming never matches
 * (except a hunk whose preimage is empty by design: a new file, matched at
 * line 0 of an empty file). Returns 0, or KB_ENOTFOUND (no message set).
 */
int kb_locate_hunk(struct kb_match *out, const struct kb_lines *file,
		   const struct kb_hunk *hunk, size_t expected, size_t min_line,
		   const struct kb_locate_opts *opts);

/*
 * Replace the matched region of `file` with the hunk's postimage (the
 * untrimmed part of context and '+' lines). Context lines keep the file's
 * own text (it may differ in whitespace). `file` then points into both the
 * original buffer and the patch's buffer: keep both alive until joined.
 * *end is set to the first line after the inserted postimage.
 */
int kb_hunk_apply(struct kb_lines *file, const struct kb_hunk *hunk,
		  const struct kb_match *match, size_t *end);

enum kb_hunk_status {
	KB_HUNK_APPLIED,	/* preimage found and replaced */
	KB_HUNK_PRESENT,	/* preimage not found, postimage already there */
	KB_HUNK_FAILED,		/* neither */
};

struct kb_hunk_result {
	enum kb_hunk_status status;
	struct kb_match match;	/* valid when APPLIED */
};

/*
 * Apply every hunk of `fp` to the file in `buf`, in order: hunk i is
 * expected at old_start - 1 + (lines added so far - lines removed so far)
 * + the offsets the previous hunks needed, and searched no earlier than the
 * end of the previous hunk. A hunk whose preimage is missing (not found
 * without fuzz) but whose postimage is found (whitespace-insensitively) is
 * KB_HUNK_PRESENT and skipped. `results` has room for fp->nhunks entries. Returns 0 with the
 * new contents in *out and *outlen (malloc'ed, NUL-terminated) when no hunk
 * failed, KB_ECONFLICT otherwise (results say which; *out is NULL).
 */
int kb_file_apply(char **out, size_t *outlen, struct kb_hunk_result *results,
		  const char *buf, size_t len, const struct kb_file_patch *fp,
		  const struct kb_locate_opts *opts);

/*
 * Whitespace-insensitive search, used to detect code shapes: both texts are
 * normalised (each line trimmed, runs of blanks collapsed to one space,
 * blank lines dropped, lines joined with '\n'), then `needle` is searched as
 * a substring of `haystack`. An empty needle is found everywhere.
 */
bool kb_text_contains(const char *haystack, size_t hlen,
		      const char *needle, size_t nlen);

/*
 * The '+' lines of a hunk as blocks: each maximal run of consecutive '+'
 * lines (blank '+' lines included) joined with '\n'. Used to tell whether
 * a hunk's additions are already in a file. Appends to *blocks (malloc'ed
 * strings), *n updated.
 */
int kb_hunk_added_blocks(char ***blocks, size_t *n, const struct kb_hunk *hunk);

#endif
