/* Shared by the subcommands: exit codes, loading, printing errors. */
#ifndef KB_CLI_H
#define KB_CLI_H

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/buf.h"
#include "util/closest.h"
#include "config.h"
#include "datafiles.h"
#include "boot/fixtests.h"
#include "fix.h"
#include "fixset.h"
#include "session.h"

enum {
	EXIT_OK = 0,		/* nothing needs attention */
	EXIT_ATTENTION = 1,	/* a conflict, an error, a finding */
	EXIT_USAGE = 2,		/* bad options or input files */
};

int cmd_apply(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_ktap(int argc, char **argv);
int cmd_fix(int argc, char **argv);
int cmd_ci_matrix(int argc, char **argv);
int cmd_prune(int argc, char **argv);

/* `git describe` of the source at build time (build/gen/version.c). */
extern const char kb_version[];

/*
 * `s` as it may be printed on a terminal, in `out` (whose string is
 * returned): control characters (C0 but those in `keep`, DEL, C1) and
 * bytes that are no UTF-8 written as git quotes them ("\033", "\351").
 */
const char *cli_quote(struct kb_buf *out, const char *s, const char *keep);

/* "error: <message>" on stderr, the message cli_quote()d (keeping '\n', '\t'). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_error() with kb_error_last() as the message. */
void cli_error_last(void);

/*
 * Append `s` to the list `*v` of `*n` strings (room for `*alloc`), kept
 * NULL-terminated: the values of a repeatable option. Returns 0, or
 * EXIT_USAGE when out of memory.
 */
int cli_strv_add(const char ***v, size_t *n, size_t *alloc, const char *s);

/*
 * getopt_long() returned '?' (main sets opterr to 0): the bad option as
 * git says it ("error: unknown option 'brnach'", "hint: did you mean
 * '--branch'?", or "error: option '--branch' needs a value"), then the
 * synopsis of `usage` (its lines up to the first blank one). EXIT_USAGE.
 */
int cli_bad_option(char **argv, const struct option *longopts, const char *usage);

/* ---- the terminal (term.c) ---- */

/* --color[=WHEN]: auto (the default), always (no WHEN) or never; EXIT_USAGE otherwise. */
int cli_color_option(const char *when);
/*
 * Whether stdout gets colour: as --color said, else on a terminal (or the
 * pager on one) unless $NO_COLOR is set and not empty or $TERM is dumb.
 */
bool cli_color(void);
/* A status or verdict name on stdout, in its colour when cli_color(), padded to `width`. */
void cli_put_word(const char *word, int width);
/*
 * On a terminal, stdout from here on goes through $KBACKPORT_PAGER, else
 * $PAGER, else less (with LESS=FRX unless set, as git: it quits when the
 * output fits); "cat" or an empty one means none. cli_pager_finish(),
 * after stdout is closed, waits for the pager to end.
 */
void cli_pager_start(void);
void cli_pager_finish(void);

/* ---- one option table per command (opts.c) ---- */

/*
 * An option of a command, written once: getopt_long() gets its long name
 * and code (and -<letter> when `letter`), --help its line.
 */
struct cli_opt {
	int code;		/* getopt's value: the letter, or a number above 255 */
	bool letter;		/* -<code> works too */
	const char *name;	/* --<name> */
	int has_arg;		/* no_argument, required_argument, optional_argument */
	const char *arg;	/* shown after the name ("FILE"; "[=WHEN]" for an optional one), or NULL */
	const char *help;	/* its lines, '\n' between them */
};

/*
 * A command's --help: `head` (the synopsis, a blank line, what it does, a
 * blank line), then each option of `opts` (ended by an entry without a
 * name) with its help from `column` on, then `tail`. `posix`: options stop
 * at the first argument (getopt's "+").
 */
struct cli_usage {
	const char *head;
	const struct cli_opt *opts;
	int column;
	const char *tail;
	bool posix;
};

/* getopt_long() over the options of `u`. */
int cli_getopt(int argc, char **argv, const struct cli_usage *u);
/* cli_bad_option() with the options and the synopsis of `u`. */
int cli_usage_bad_option(char **argv, const struct cli_usage *u);
/* The whole --help of `u`. */
void cli_usage_print(FILE *out, const struct cli_usage *u);

/* After getopt: an argument left over is a usage error (EXIT_USAGE). */
int cli_no_arguments(int argc, char **argv);

#include "util/json.h"

/* --branch values; NULL-terminated list of names given on the command line. */
struct cli_branches {
	const char **names;
	size_t n, alloc;
};

int cli_branches_add(struct cli_branches *b, const char *name);
void cli_branches_release(struct cli_branches *b);

/*
 * What apply, build, test and run are pointed at: --config, --fix (a
 * repeatable list), --branch (repeatable), and --workdir; each command's
 * option table has them with its own help, codes 'c', 'f', 'b', 'w'.
 */
struct cli_target {
	const char *config;
	const char **fixes;
	size_t nfixes, afixes;
	struct cli_branches branches;
	const char *workdir;
};

/* getopt's code of --color (no short option) */
#define CLI_OPT_COLOR 0x100

/* --config, --fix and --branch as apply, build and test have them (cli_opt entries) */
#define CLI_OPTS_TARGET \
	{ 'c', true, "config", required_argument, "FILE", \
	  "branches file (default: $KBACKPORT_CONFIG, else the\n" \
	  "nearest branches.yaml from here upward)" }, \
	{ 'f', true, "fix", required_argument, "DIR|ID", \
	  "a fix directory, a directory of fixes, a fix id\n" \
	  "under backports/ beside the config, or a patch or\n" \
	  "mbox file (a one-off fix, no directory made); repeatable\n" \
	  "(default: every fix under backports/ beside the config)" }, \
	{ 'b', true, "branch", required_argument, "NAME", \
	  "only this branch; repeatable (default: all)" }

/* --color[=WHEN] colouring `what` ("statuses", "verdicts"), a cli_opt entry */
#define CLI_OPT_COLOR_ENTRY(what) \
	{ CLI_OPT_COLOR, false, "color", optional_argument, "[=WHEN]", \
	  "colour the " what ": auto (on a terminal, not with\n" \
	  "NO_COLOR set), always, never" }

/* -h/--help, as every command has it, and the end of a table. */
#define CLI_OPT_HELP_ENTRY \
	{ 'h', true, "help", no_argument, NULL, "this text" }
#define CLI_OPT_END \
	{ 0, false, NULL, 0, NULL, NULL }

/*
 * The config a command works on: `path` (--config) when given, else
 * $KBACKPORT_CONFIG, else the first branches.yaml from the current
 * directory upward, as git finds its directory. Not found: an error that
 * says where it looked and how to name one.
 */
int cli_config_load(struct kb_config **out, const char *path);

/*
 * The session options of `t` (--config, --fix, --branch, --workdir) and
 * kbackport's data directory (as cli_data_path() finds it); the command
 * sets the steps it needs besides.
 */
void cli_session_opts(struct kb_session_opts *out, const struct cli_target *t);

/*
 * kb_session_open(), then on stderr its notes (a named branch left out)
 * and its error, as every command prints them. `s` is to be released
 * (kb_session_release()) either way.
 */
int cli_session_open(struct kb_session *s, const struct kb_session_opts *opts);

/* Take option `c` ('c', 'f', 'b', 'w' or CLI_OPT_COLOR) of getopt: 0, or EXIT_USAGE. */
int cli_target_option(struct cli_target *t, int c, const char *arg);
void cli_target_release(struct cli_target *t);

/*
 * A number from 1 to `max` for `option` ("--jobs"): 0, or EXIT_USAGE with
 * "<option> wants <what> from 1 to <max>, not '<arg>'" (what: "a number",
 * "seconds").
 */
int cli_parse_number(unsigned *out, const char *arg, const char *option,
		     const char *what, long max);

/*
 * --jobs not given: $KBACKPORT_JOBS when set (a number from 1 to 1024, or
 * a usage error naming it), else *jobs stays 0 (as many as the machine
 * has cores).
 */
int cli_jobs_default(unsigned *jobs);
/* --accel tcg|auto: *automatic is whether it is auto; EXIT_USAGE otherwise. */
int cli_parse_accel(bool *automatic, const char *arg);

/*
 * The branches with a repository to work on (apply, audit, build): every
 * such branch of `config`, or those named, in the config's order. Unknown
 * names are an error; a distribution kernel branch (`kernel:`) is left
 * out, with a note on stderr when it was named.
 */
int cli_select(const struct kb_branch ***out, size_t *n,
	       const struct kb_config *config, const struct cli_branches *names);
/* The same, distribution kernel branches included (test). */
int cli_select_all(const struct kb_branch ***out, size_t *n,
		   const struct kb_config *config, const struct cli_branches *names);



/*
 * kbackport's own data file `id` (datafiles.h): beside the config when
 * there, else in $KBACKPORT_DATADIR, else in KB_DATADIR (the source tree
 * kbackport was built from, or $(PREFIX)/share/kbackport once installed).
 * Missing from both is an error naming the file.
 */
int cli_data_path(struct kb_buf *out, const struct kb_config *config, enum kb_data_id id);



/* Each line of `text` (NULL: none) on stdout, after `indent`. */
void cli_print_indented(const char *text, const char *indent);


#include "util/progress.h"

/*
 * The seconds between two progress lines of a long step: 0 with --quiet,
 * else KBACKPORT_PROGRESS_INTERVAL or 30. 0, or EXIT_USAGE when the
 * variable is not a number of seconds.
 */
int cli_progress_interval(double *out, bool quiet);

/*
 * "progress: <branch> <lane>: <step> <elapsed>[, <n>/<total> objects]" on
 * stderr ("<branch>:" alone when `lane` is NULL or empty: a download);
 * on a terminal, the live line is cleared first.
 */
void cli_print_tick(const char *branch, const char *lane, const struct kb_tick *tick);

/*
 * A command that works through `total` `unit`s ("branches"), each counted
 * with kb_work_step() once finished: an interruption then says on stderr
 * how far it got, "interrupted after 12 of 40 branches; the 12 refs written
 * are complete; <kept>; run it again to continue" (the refs when `refs`:
 * those kbackport wrote, counted as written; `kept` NULL: none said).
 * `unit` and `kept` are static strings.
 */
void cli_interruptible(const char *unit, long total, bool refs, const char *kept);

/*
 * From the signal handler (async-signal-safe): what cli_interruptible()
 * set up says how far the command got, and the identity note if due.
 */
void cli_interrupted(void);

/*
 * "note: no user.name/user.email in git config; commits are by <name>
 * <email>" on stderr when a commit was written by a guessed identity
 * (kb_committer_guessed()); once per command. Async-signal-safe.
 */
void cli_identity_note(void);

#endif
