/*
 * Each hunk's state in the tree: the ground every answer stands on.
 *
 * History, patch-ids, fuzz and variants are witnesses that propose; the
 * tree's content decides. For every hunk of a patch this module says, from
 * the tree alone, whether its post-image is there (the change is in), its
 * pre-image is there (the change is not), or neither, and how the hunk's
 * own lines stand near its place: the lines it added kept as they are,
 * kept in a changed form, or gone; the lines it removed back or not.
 * backport.c weighs the history's answer against it: a fix the history
 * brought in whose lines the tree shows undone is not in.
 */
#ifndef KB_WITNESS_H
#define KB_WITNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "apply/apply.h"
#include "apply/patch.h"
#include "kbuild/source.h"

enum kb_tree_state {
	KB_TREE_POST,		/* the post-image is there: exactly (a clean
				 * reverse fit), or every line it added (two or
				 * more), in order, near its place and within
				 * its function, none it removed there */
	KB_TREE_PRE,		/* the pre-image is there (a clean forward fit),
				 * the post-image is not */
	KB_TREE_NEITHER,	/* neither image fits cleanly */
	KB_TREE_NO_FILE,	/* the tree has no such file */
};

/* What the hunk's own lines say, for the history to be weighed against. */
enum kb_hunk_fate {
	KB_FATE_IN,		/* KB_TREE_POST */
	KB_FATE_CHANGED,	/* not in as written, but its added lines are
				 * there, as they are or changed (a later
				 * commit reworked them) */
	KB_FATE_GONE,		/* no trace of what it added: what it removed
				 * is back, or it only added and those lines
				 * are gone (the change undone) */
	KB_FATE_LOST,		/* no trace of either side: the code it
				 * changed is not there at all */
};

struct kb_hunk_witness {
	const char *path;		/* borrowed from the patch */
	size_t hunk;			/* 1-based, in its file */
	enum kb_tree_state state;
	enum kb_hunk_fate fate;
	size_t line;			/* 1-based line of the tree where the hunk's
					 * place starts (the image found, or where
					 * it was looked for), 0 when no file */
	size_t span;			/* lines of the tree from `line` that the
					 * hunk's place covers */
	long offset;			/* line - the hunk's own line */
	bool near;			/* POST by its added lines near its place,
					 * not by a clean reverse fit */
	/* the hunk's distinctive lines: '+' lines that are not also '-' or
	 * context lines of it, and the other way round; blank lines and
	 * lines without a word never count */
	size_t added, kept, changed;	/* kept: found as they are, in order;
					 * changed: found in a changed form */
	size_t removed, back;		/* back: found as they are near its place */
	size_t context, context_here;	/* its context lines with a word, and
					 * those found near its place (not
					 * counted for a clean reverse fit) */
	size_t kept_in_function;	/* kept, within the function of its place
					 * (a '}' at a line's start bounds it) */
	size_t near_line;		/* near: 1-based line of the first line it
					 * adds, found there */
};

struct kb_witness {
	struct kb_hunk_witness *v;	/* every hunk looked at, in order */
	size_t n, alloc;
};

#define KB_WITNESS_INIT { NULL, 0, 0 }

/*
 * Each hunk of `fwd` on the tree of `src`, into a new `out`. Returns 0, or
 * a negative error (out of memory, a file that cannot be read: not a
 * missing one). Release with kb_witness_release(), also on error.
 */
int kb_witness_patch(struct kb_witness *out, struct kb_source *src, const struct kb_patch *fwd);

/* The hunks of one file patch, added to `out`. */
int kb_witness_file(struct kb_witness *out, struct kb_source *src,
		    const struct kb_file_patch *fp);
/* The same, the file read at `path` of the tree (a file that moved). */
int kb_witness_file_at(struct kb_witness *out, struct kb_source *src,
		       const struct kb_file_patch *fp, const char *path);

void kb_witness_release(struct kb_witness *w);

/*
 * Line `i` of `h` can witness its hunk: a '+' or '-' line with a word and
 * three characters or more, that no line of another kind in the hunk
 * repeats (a line moved proves nothing).
 */
bool kb_hunk_line_distinctive(const struct kb_hunk *h, size_t i);

/*
 * Fuzz as a witness: a context line that fuzz dropped to place a hunk, and
 * that the tree does not hold anywhere in the file as it is, while it names
 * something the hunk's own change names (a variable, a call): the change
 * the fix builds on is missing, and applying it by fuzz may write wrong
 * code (a bounds check the fix corrects that the tree never had). Blank
 * lines, comments and lines the file holds elsewhere are no such witness.
 */
struct kb_fuzz_gap {
	const char *path;		/* borrowed from the patch */
	size_t file;			/* index in apply->files */
	size_t hunk;			/* 0-based, in its file patch */
	const struct kb_line *line;	/* the dropped context line */
	const char *name;		/* the name it shares with the change
					 * (borrowed, not NUL-terminated: name_len) */
	size_t name_len;
};

/* The fuzz gaps of every applied hunk of `apply` on the tree of `src`
 * (malloc'ed list, *n of them; NULL when none). */
int kb_fuzz_gaps(struct kb_fuzz_gap **out, size_t *n, struct kb_source *src,
		 const struct kb_apply *apply);

/* "post-image", "pre-image", "neither", "no file" */
const char *kb_tree_state_name(enum kb_tree_state state);
/* "in", "changed", "gone", "lost" */
const char *kb_hunk_fate_name(enum kb_hunk_fate fate);

#endif
