/*
 * Reports of a run directory: reports/<run-id>/ as `kbackport run` writes
 * it (results.json at the top, one directory per lane with its logs), read
 * into a model, and the files people and CI tools read written from it:
 *
 *   <lane dir>/junit.xml      JUnit XML: the apply, build and test stages and
 *                             every KTAP case of the lane
 *   summary.md, summary.html  the branch x stage matrix with links to the
 *                             logs, then per branch its reasons and notes
 *   kcidb.json                KCIDB I/O schema v4 (see kcidb.h)
 *   FAILED-<branch>.txt       per conflicting branch, a mail to the fix's
 *                             author in the stable maintainers' style
 *
 * and several run directories of one fix merged into one. Everything here
 * returns errors (error.h) and prints nothing.
 */
#ifndef KB_REPORT_H
#define KB_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "apply/backport.h"
#include "util/buf.h"
#include "kbuild/build.h"
#include "boot/ktap.h"
#include "lanes.h"
#include "boot/verdict.h"

/* The results.json schema this code reads and writes. */
#define KB_REPORT_SCHEMA 1

/*
 * The model. Strings are borrowed from the parsed document (`doc`), NULL
 * when the field is missing or null; status words are checked against the
 * contract's enumerations when loaded and kept as enums: the words are
 * only at the edges (kb_*_name() when written, kb_*_parse() when read).
 */
struct kb_report_case {
	const char *name;
	enum kb_ktap_status status;	/* pass, fail, skip, error */
	const char *proves;
	const char *diag;
	bool detects;		/* a failure shows the fix is missing */
};

struct kb_report_suite {
	const char *name;
	enum kb_ktap_status status;	/* pass, fail, skip, error */
	long long pass, fail, skip;	/* 0 to 10^9 each, checked when loaded */
	struct kb_report_case *cases;
	size_t ncases;
};

struct kb_report_apply {
	bool present;		/* false: no apply stage recorded */
	enum kb_status status;	/* applied, already-applied, not-affected,
				 * conflict, partial, error, reverse-applied */
	const char *variant;
	const char *detail;
	const char *patch_hash;	/* sha256 of the variant's patch file */
	const char *base;	/* the commit the backport sits on */
	const char **notes;	/* NULL-terminated; failing hunks, offsets... */
	size_t nnotes;
	const char **reproduce;	/* NULL-terminated shell commands */
	size_t nreproduce;
};

struct kb_report_lane {
	enum kb_lane_kind kind;	/* as-is, pre-fix, backport */
	const char *ref;
	const char *commit;
	const char *base;	/* optional: the commit a backport sits on */
	const char *config;	/* optional: the build's configuration name */
	struct kb_report_apply apply;
	bool has_build;		/* false: no build stage recorded */
	enum kb_build_status build;	/* pass, fail, cached, skipped */
	double build_seconds;	/* < 0 when unknown */
	struct kb_report_suite *suites;
	size_t nsuites;
	enum kb_verdict verdict;	/* fixed, vulnerable, regression, error, skipped */
	const char **reason;	/* NULL-terminated */
	size_t nreason;
	double test_seconds;	/* < 0 when unknown */
	const char *boot_image;	/* a distribution kernel: "pvh-vmlinux" or
				 * "bzimage"; NULL for a lane kbackport built */
	const char *boot_note;	/* why the bzImage was booted, or NULL */
	const char *dir;	/* relative to the run directory, checked safe */
	char **files;		/* the files found in dir, sorted; owned */
	size_t nfiles;
	bool baseline;		/* the lane shows the bug when the fix works:
				 * pre-fix, or as-is before a backport lane */
};

/* One fix of a queue on a branch (a run --queue). */
struct kb_report_queued {
	const char *fix;
	struct kb_report_apply apply;	/* its status, variant, detail, notes... */
	const char *mail;	/* its FAILED mail, relative to the run, or NULL */
};

struct kb_report_queue {
	bool present;		/* false: not a queue's run */
	const char *ref;	/* refs/heads/backport/queue/<queue>/<branch> */
	const char *commit;	/* its commit, NULL when nothing applied */
	const char *error;	/* the queue could not start or end on the branch */
	struct kb_report_queued *fixes;	/* in the series' order */
	size_t nfixes;
};

struct kb_report_branch {
	const char *name;
	enum kb_verdict verdict;	/* verified, fixed, not-affected, vulnerable,
					 * conflict, regression, error, skipped */
	const char *note;
	const char *repo;
	const char *ref;
	struct kb_report_apply apply;
	struct kb_report_queue queue;	/* a queue's run: every fix's status */
	bool has_mail;		/* "mail" recorded: a branch that needs a hand */
	struct kb_mail mail;	/* its recipients and tree (cc owned, strings borrowed) */
	const char *mail_patch;	/* the patch tried, in mail form, or NULL */
	struct kb_report_lane *lanes;
	size_t nlanes;
	char **files;		/* regular files directly in <name>/; owned */
	size_t nfiles;
};

struct kb_report {
	char *dir;		/* the run directory */
	json_t *doc;		/* results.json */
	const char *run, *fix, *upstream, *subject, *author;
	const char *started, *finished, *host;
	const char *queue;	/* a queue's run: its name ("fix" is "queue/<name>") */
	const char **queue_fixes;	/* its fix ids in order, NULL-terminated */
	size_t nqueue_fixes;
	struct kb_report_branch *branches;
	size_t nbranches;
};

/*
 * Read and check `rundir`/results.json, and list the files of each lane
 * directory. A message names the file and the field that is wrong
 * ("'r/results.json': branches[1].lanes[0]: 'verdict' is 'fine', not one of
 * ..."): KB_ENOTFOUND when the file is missing, KB_EINVALID when malformed.
 * A lane without "dir" gets the contract's "<branch>/<kind>".
 */
int kb_report_load(struct kb_report **out, const char *rundir);
void kb_report_free(struct kb_report *report);

/* Branch verdicts that need nobody's attention: verified, fixed,
 * not-affected, skipped. */
bool kb_report_verdict_ok(enum kb_verdict branch_verdict);

/*
 * The branches that need a person (their verdict not kb_report_verdict_ok()),
 * in the report's order: what every summary names at its top. *out is
 * malloc'ed (*n entries, pointing into `report`); KB_ENOMEM.
 */
int kb_report_attention(const struct kb_report_branch ***out, size_t *n,
			const struct kb_report *report);

/* ---- the writers, each into a buffer (or a JSON document) ---- */

/* junit.xml of one lane. */
int kb_report_junit(struct kb_buf *out, const struct kb_report *report,
		    const struct kb_report_branch *branch, const struct kb_report_lane *lane);
/* summary.md */
int kb_report_markdown(struct kb_buf *out, const struct kb_report *report);
/* summary.html: one self-contained page. */
int kb_report_html(struct kb_buf *out, const struct kb_report *report);
/* Does an apply stage need a person: "conflict" or "partial" (none: no)? */
bool kb_report_needs_hand(const struct kb_report_apply *apply);

/*
 * A FAILED mail, in the stable team's form: headers (To, Cc, Subject
 * "FAILED: patch \"<subject>\" failed to apply to <tree> tree"; non-ASCII
 * text RFC 2047 encoded), where to send a backport, what failed and the
 * commands to resolve it by hand, then the patch tried in mail form.
 */
struct kb_failed_mail {
	const char *fix;	/* the fix's id */
	const char *upstream;	/* its upstream commit, or NULL */
	const char *subject;	/* NULL: the fix's id */
	const char *author;	/* "Name <addr>", or NULL */
	const struct kb_mail *mail;	/* to (NULL: the author), cc, tree, send-to */
	const char *where;	/* what it was tried on: "<ref> of <repo>" */
	const struct kb_report_apply *apply;	/* detail, notes, reproduce */
	const char *logs;	/* a line about the logs, or NULL */
	const char *patch;	/* kb_failed_patch(), or NULL (then the commit's id) */
};
int kb_failed_mail(struct kb_buf *out, const struct kb_failed_mail *mail);

/*
 * The patch `tried` of `fix` (a variant's, or the fix's own; read from
 * `path`) as `git format-patch` mails it: "From <upstream> Mon Sep 17
 * 00:00:00 2001", From:, Date: and the body of the fix's own patch,
 * Subject: "[PATCH] <subject>", "---", then `tried` from its first diff
 * line to its end, byte for byte.
 */
int kb_failed_patch(struct kb_buf *out, const struct kb_fix *fix, const struct kb_patch *tried,
		    const char *path);

/*
 * A mail into `dir`/`rel` (directories made as needed), through a
 * temporary file and a rename; `dir`, each component of `rel` and the file
 * itself must not be symbolic links (KB_EINVALID naming it: never followed).
 */
int kb_report_write_mail(const char *dir, const char *rel, const char *data, size_t len);

/* FAILED-<branch>.txt of a branch whose apply status needs a person. */
int kb_report_failed_mail(struct kb_buf *out, const struct kb_report *report,
			  const struct kb_report_branch *branch);
/* "FAILED-<branch>.txt", with characters unsafe in a file name as '-'. */
int kb_report_failed_name(struct kb_buf *out, const struct kb_report_branch *branch);

struct kb_report_opts {
	/* Where the run directory will be published (http://host/reports/
	 * <run>): KCIDB log URLs are made absolute with it. NULL: relative to
	 * the run directory. */
	const char *base_url;
};

/*
 * Write every file above into the run directory (each replaced whole,
 * through a temporary file and a rename). *written (may be NULL) gets the
 * paths written, relative to the run directory, NULL-terminated; free
 * with kb_report_strv_free().
 */
int kb_report_write(const struct kb_report *report, const struct kb_report_opts *opts,
		    char ***written);
void kb_report_strv_free(char **v);

/*
 * Merge the run directories `dirs` (one fix, usually one branch each, from
 * CI jobs on different machines) into a new run directory: its
 * results.json has every branch, in the order of `dirs`, and each lane
 * directory and each branch's own files are copied. A branch found more
 * than once is kept once when its entries are the same; otherwise the
 * entry from the run that finished last wins ("finished", else "started")
 * and a note says which was dropped; the same time is an error. Runs of
 * different fixes are an error.
 *
 * The new run's id is "<last finish, 20261203T075210Z>-m<4 hex of the
 * merged run ids>", so merging the same runs again gives the same id. It
 * goes to `output`, or when NULL to `reports`/<id>; an existing non-empty
 * directory is an error. Its results.json has the contract's fields (host:
 * the runs' hosts, started: the first start, finished: the last end) and
 * "merged": {"from": [{run, dir, host, started, finished, branches}],
 * "notes": [...]}. *out is the merged run, loaded; *notes (may be NULL)
 * gets the notes, NULL-terminated (kb_report_strv_free()).
 */
struct kb_report_merge_opts {
	const char *const *dirs;
	size_t ndirs;
	const char *output;
	const char *reports;
};

int kb_report_merge(struct kb_report **out, char ***notes, const struct kb_report_merge_opts *opts);

#endif
