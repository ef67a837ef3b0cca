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

#include "apply/patch.h"

struct kb_slice {
	const char *ptr;
	size_t len;		/* without the '\n' */
};

/* A file as lines pointing into a buffer the caller keeps alive. */
struct kb_lines {
	struct kb_slice *v;
	size_t n, alloc;
	bool no_final_newline;	/* the last line had no '\n' */
	bool crlf;		/* every line ended in "\r\n": the '\r's are not
				 * in the slices, and join puts them back */
};

#define KB_LINES_INIT { NULL, 0, 0, false, false }

/* Split into lines; a file whose every line ends in CRLF is read as LF
 * lines with `crlf` set. */
int kb_lines_split(struct kb_lines *out, const char *buf, size_t len);
/* Join into a new malloc'ed buffer (NUL-terminated; *len excludes the NUL),
 * with CRLF endings when `crlf` is set. */
int kb_lines_join(char **out, size_t *len, const struct kb_lines *lines);
void kb_lines_release(struct kb_lines *lines);

struct kb_locate_opts {
	unsigned max_fuzz;	/* context lines that may be dropped at each end */
	bool ignore_whitespace;	/* allow a whitespace-insensitive last pass */
	bool anchor;		/* let an insertion hang on one side's context */
	bool block;		/* let a deletion be found by its own lines */
	bool blocks;		/* let a hunk of several change blocks be placed
				 * block by block, foreign lines between them */
};

/* kb_locate_opts with max_fuzz 2, ignore_whitespace, anchor and blocks
 * true, block false (kb_file_decide() sets it for its reverse pass). */
void kb_locate_opts_init(struct kb_locate_opts *opts);

enum kb_anchor {
	KB_ANCHOR_NONE,
	KB_ANCHOR_LEAD,		/* placed after its leading context alone */
	KB_ANCHOR_TRAIL,	/* placed before its trailing context alone */
	KB_ANCHOR_BLOCK,	/* a deletion found by its own lines alone */
	KB_ANCHOR_BLOCKS,	/* placed block by block: each change block with
				 * its context, in order, foreign lines between */
};

/* Why a hunk was not placed although it fits (KB_EAMBIGUOUS). */
enum kb_ambiguity {
	KB_AMBIG_NONE,
	KB_AMBIG_TWICE,		/* its lines fit two places */
	KB_AMBIG_SIDES,		/* each side's context names another place */
	KB_AMBIG_RULES,		/* nearest its own line (git apply's rule) and
				 * nearest the earlier hunks' offset (GNU
				 * patch's) are two places */
	KB_AMBIG_WAYS,		/* the change fits, and so does its reverse,
				 * elsewhere, at the same cost */
};

struct kb_match {
	size_t line;		/* 0-based line where the kept preimage starts */
	long offset;		/* line - trim_head - expected: 0 in place */
	unsigned fuzz;		/* context lines dropped by fuzz (max of both
				 * ends; never above max_fuzz: 0 when placed by
				 * an anchor, its own lines or block by block) */
	unsigned trim_head;	/* leading hunk lines left out of the match */
	unsigned trim_tail;	/* trailing hunk lines left out of the match */
	bool whitespace;	/* matched only when ignoring whitespace */
	bool reverse;		/* kb_file_decide(): found by the reverse pass */
	enum kb_anchor anchor;	/* placed by one side's context only */
	size_t gap;		/* KB_ANCHOR_BLOCKS: foreign lines between blocks */
	/* KB_EAMBIGUOUS: why, and where the second place starts (0-based,
	 * the whole hunk's first line, like line - trim_head) */
	enum kb_ambiguity ambiguity;
	size_t other_line;
	bool other_reverse;	/* the second place is where the reverse fits */
	/* A context line fuzz dropped stands at its place in a changed form
	 * (neither equal nor unrelated): what the fix builds on may differ */
	bool changed;
	size_t changed_hunk_line;	/* 0-based index in the hunk's lines */
	size_t changed_file_line;	/* 0-based line of the file searched */
};

/*
 * Find where `hunk`'s preimage (context and '-' lines) appears in `file`,
 * at or after line `min_line`, nearest to `expected` (0-based). Order of
 * preference: fuzz 0 before fuzz 1 ...; within one fuzz level an exact
 * match before a whitespace-insensitive one; then the smaller |offset|,
 * and for equal |offset| the later line. Only context lines are trimmed;
 * a hunk with no '-' and no context lines left after trimming never matches
 * (except a hunk whose preimage is empty by design: a new file, matched at
 * line 0 of an empty file).
 *
 * A place found with fuzz must be the only one its kept lines fit
 * (whitespace-insensitively) at or after `min_line`; otherwise the answer
 * is KB_EAMBIGUOUS with both lines in *out, never a guess. When no fuzz
 * level fits and opts->blocks is set, a hunk of two or more change blocks
 * is placed block by block (locate_priv.h), when exactly one place fits.
 * Then, when opts->anchor is set, a pure insertion (no '-' lines) is
 * placed next to its whole leading or whole trailing context (at least
 * two non-blank lines) when that side fits exactly one place and the other
 * side does not name a different one; when both sides fit one place
 * each, the side that also meets the file's start or end wins. When
 * opts->block is set, a pure deletion of at least two non-blank lines
 * that no fuzz level places is found by those lines alone, if they occur
 * exactly once (whitespace-insensitively). A fuzz placement notes a
 * dropped context line that stands changed at its place (match->changed).
 *
 * Returns 0, KB_ENOTFOUND or KB_EAMBIGUOUS (no message set), or a negative
 * error (out of memory) with its message.
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
	KB_HUNK_PRESENT,	/* the change is in: its reverse fits better */
	KB_HUNK_FAILED,		/* no place fits */
	KB_HUNK_AMBIGUOUS,	/* more than one place fits: refused */
};

struct kb_hunk_result {
	enum kb_hunk_status status;
	struct kb_match match;	/* APPLIED / PRESENT: where; AMBIGUOUS: the
				 * two places (line, other_line) */
	size_t tree_line;	/* where the hunk's place starts in the file as
				 * it was, before any hunk changed it (match.line
				 * counts the lines earlier hunks of its pass
				 * added); AMBIGUOUS: other_line counts alike */
};

/*
 * Apply every hunk of `fp` to the file in `buf`, in order: hunk i is
 * expected at old_start - 1 + (lines added so far - lines removed so far)
 * + the offsets the previous hunks needed, and searched no earlier than the
 * end of the previous hunk (GNU patch's rule). It is also placed as git
 * apply does, exactly and nearest its own line (new_start - 1), never over
 * lines an earlier hunk wrote; where that rule finds a place and the two
 * disagree, the hunk is AMBIGUOUS (KB_AMBIG_RULES), and where only git
 * apply's rule finds one, it is taken. A strict forward apply: a hunk
 * whose change is already in the file fails like any other
 * (kb_file_decide() tells the two apart). `results` has room for
 * fp->nhunks entries. Returns 0 with the new contents in *out and *outlen
 * (malloc'ed, NUL-terminated) when every hunk applied, KB_ECONFLICT
 * otherwise (results say which; *out is NULL), or another negative error.
 */
int kb_file_apply(char **out, size_t *outlen, struct kb_hunk_result *results,
		  const char *buf, size_t len, const struct kb_file_patch *fp,
		  const struct kb_locate_opts *opts);

/* What one file patch means for one file. */
enum kb_file_state {
	KB_FILE_APPLIES,	/* every hunk applies, none is already in */
	KB_FILE_PRESENT,	/* the change is in: every hunk reverse-applies */
	KB_FILE_PARTIAL,	/* some hunks are in, the others apply */
	KB_FILE_AMBIGUOUS,	/* the change and its reverse fit equally well */
	KB_FILE_FAILED,		/* neither */
};

struct kb_file_decision {
	enum kb_file_state state;
	char *out;		/* APPLIES: the new contents (malloc'ed) */
	size_t outlen;
	char *undo;		/* PRESENT: the contents with the change undone */
	size_t undolen;
	unsigned cost;		/* of the pass that decided: fuzz, anchors and
				 * whitespace tolerance, summed over hunks */
};

/*
 * Is the change of `fwd` in the file, or can it be applied? `rev` is
 * `fwd` reversed (kb_patch_reverse). Both are placed on the whole file
 * exactly as kb_file_apply() places hunks (offset, fuzz, whitespace,
 * anchors): PRESENT when the reverse fits and the forward does not, or
 * fits only at a higher cost; APPLIES the other way round; AMBIGUOUS at
 * equal cost. Per hunk, one that fits both ways as cheaply at two places
 * is AMBIGUOUS (KB_AMBIG_WAYS), unless its reverse is strictly nearer its
 * expected line; an AMBIGUOUS hunk never lets the file be PRESENT. When
 * neither fits whole, each hunk is looked at alone:
 * PARTIAL when every hunk is either in or applicable and both kinds occur.
 * `hunks` (fwd->nhunks entries) gets the per-hunk view: APPLIED hunks with
 * their forward place, PRESENT hunks with the place they were found at.
 * Release with kb_file_decision_release().
 */
int kb_file_decide(struct kb_file_decision *out, struct kb_hunk_result *hunks,
		   const char *buf, size_t len, const struct kb_file_patch *fwd,
		   const struct kb_file_patch *rev, const struct kb_locate_opts *opts);

void kb_file_decision_release(struct kb_file_decision *d);

/*
 * Whitespace-insensitive search, used to detect code shapes: both texts are
 * normalised (each line trimmed, runs of blanks collapsed to one space,
 * blank lines dropped, lines joined with '\n'), then `needle` is searched as
 * a substring of `haystack`. An empty needle is found everywhere.
 */
bool kb_text_contains(const char *haystack, size_t hlen,
		      const char *needle, size_t nlen);

#endif
