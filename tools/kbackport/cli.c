#include "cli.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/interrupt.h"
#include "util/closest.h"
#include "apply/commit.h"
#include "util/error.h"
#include "repo.h"
#include "apply/series.h"
#include "session.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_quote(struct kb_buf *out, const char *s, const char *keep)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), len, i;

	kb_buf_clear(out);
	for (; n; p += len, n -= len) {
		len = kb_utf8_len(p, n);
		if ((len == 1 && *p < 0x20 && !strchr(keep, *p)) || *p == 0x7f ||
		    (len == 2 && p[0] == 0xc2 && p[1] < 0xa0) || !len) {
			len = len ? len : 1;
			for (i = 0; i < len; i++)
				kb_buf_printf(out, "\\%03o", p[i]);
		} else {
			kb_buf_put(out, (const char *)p, len);
		}
	}
	return out->ptr ? out->ptr : "";
}

void cli_error(const char *fmt, ...)
{
	struct kb_buf quoted = KB_BUF_INIT;
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* messages name files, subjects and refs: nothing in them may drive the terminal */
	fprintf(stderr, "error: %s\n", msg ? cli_quote(&quoted, msg, "\n\t") : "out of memory");
	free(msg);
	kb_buf_release(&quoted);
}

void cli_error_last(void)
{
	cli_error("%s", kb_error_last());
}

int cli_strv_add(const char ***v, size_t *n, size_t *alloc, const char *s)
{
	if (KB_ARRAY_GROW(*v, *alloc, *n + 2) < 0) {
		cli_error("out of memory");
		return EXIT_USAGE;
	}
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
	return 0;
}

int cli_no_arguments(int argc, char **argv)
{
	if (optind >= argc)
		return 0;
	cli_error("unexpected argument '%s'", argv[optind]);
	return EXIT_USAGE;
}

int cli_branches_add(struct cli_branches *b, const char *name)
{
	return cli_strv_add(&b->names, &b->n, &b->alloc, name);
}

void cli_branches_release(struct cli_branches *b)
{
	free(b->names);
	b->names = NULL;
	b->n = b->alloc = 0;
}

int cli_target_option(struct cli_target *t, int c, const char *arg)
{
	switch (c) {
	case 'c': t->config = arg; return 0;
	case 'f': return cli_strv_add(&t->fixes, &t->nfixes, &t->afixes, arg);
	case 'b': return cli_branches_add(&t->branches, arg) < 0 ? EXIT_USAGE : 0;
	case 'w': t->workdir = arg; return 0;
	case CLI_OPT_COLOR: return cli_color_option(arg);
	default: return EXIT_USAGE;
	}
}

void cli_target_release(struct cli_target *t)
{
	free(t->fixes);
	t->fixes = NULL;
	t->nfixes = t->afixes = 0;
	cli_branches_release(&t->branches);
}

/* The usage's synopsis: its lines up to the first blank one. */
static void put_synopsis(const char *usage)
{
	const char *end = strstr(usage, "\n\n");

	fprintf(stderr, "%.*s\n", end ? (int)(end - usage) : (int)strlen(usage), usage);
}

int cli_bad_option(char **argv, const struct option *longopts, const char *usage)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const char **names = NULL;
	const char *near;
	struct kb_buf word = KB_BUF_INIT;
	size_t n = 0, i;

	if (optopt && strncmp(arg, "--", 2)) {
		/* a letter the command knows (its long option's val) wants a value */
		for (i = 0; longopts[i].name; i++)
			if (longopts[i].val == optopt && longopts[i].has_arg == required_argument)
				break;
		if (longopts[i].name)
			cli_error("option '-%c' (--%s) needs a value", optopt, longopts[i].name);
		else
			cli_error("unknown switch '%c'", optopt);
	} else if (optopt) {
		cli_error("option '%s' needs a value", arg);
	} else {
		const char *name = arg;

		while (*name == '-')
			name++;
		kb_buf_put(&word, name, strcspn(name, "="));
		cli_error("unknown option '%s'", word.ptr ? word.ptr : "");
		for (i = 0; longopts[i].name; i++)
			n++;
		if ((names = calloc(n + 1, sizeof(*names)))) {
			for (i = 0; i < n; i++)
				names[i] = longopts[i].name;
			if (word.ptr && (near = kb_closest(word.ptr, names, n)))
				fprintf(stderr, "hint: did you mean '--%s'?\n", near);
		}
		free(names);
	}
	kb_buf_release(&word);
	put_synopsis(usage);
	return EXIT_USAGE;
}

int cli_config_load(struct kb_config **out, const char *path)
{
	return kb_config_find(out, path);
}

int cli_parse_number(unsigned *out, const char *arg, const char *option,
		     const char *what, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (*end || end == arg || errno || n < 1 || n > max) {
		cli_error("%s wants %s from 1 to %ld, not '%s'", option, what, max, arg);
		return EXIT_USAGE;
	}
	*out = (unsigned)n;
	return 0;
}

int cli_jobs_default(unsigned *jobs)
{
	const char *env = getenv("KBACKPORT_JOBS");

	if (*jobs || !env || !*env)
		return 0;
	return cli_parse_number(jobs, env, "KBACKPORT_JOBS", "a number", 1024);
}

int cli_parse_accel(bool *automatic, const char *arg)
{
	if (!strcmp(arg, "tcg") || !strcmp(arg, "auto")) {
		*automatic = !strcmp(arg, "auto");
		return 0;
	}
	cli_error("--accel is 'tcg' or 'auto', not '%s'", arg);
	return EXIT_USAGE;
}

static int select_branches(const struct kb_branch ***out, size_t *n,
			   const struct kb_config *config, const struct cli_branches *names,
			   bool with_kernels)
{
	char *notes = NULL;
	int err = kb_branches_select(out, n, &notes, config, names->names, names->n, with_kernels);

	if (notes)
		fputs(notes, stderr);
	free(notes);
	return err;
}

int cli_select(const struct kb_branch ***out, size_t *n,
	       const struct kb_config *config, const struct cli_branches *names)
{
	return select_branches(out, n, config, names, false);
}

int cli_select_all(const struct kb_branch ***out, size_t *n,
		   const struct kb_config *config, const struct cli_branches *names)
{
	return select_branches(out, n, config, names, true);
}

/* $KBACKPORT_DATADIR, else the one kbackport was built for */
static const char *data_dir(void)
{
	const char *datadir = getenv("KBACKPORT_DATADIR");

	return datadir ? datadir : KB_DATADIR;
}

int cli_data_path(struct kb_buf *out, const struct kb_config *config, enum kb_data_id id)
{
	return kb_data_path(out, id, config->dir, data_dir());
}

void cli_session_opts(struct kb_session_opts *out, const struct cli_target *t)
{
	memset(out, 0, sizeof(*out));
	out->config = t->config;
	out->fixes = t->fixes;
	out->nfixes = t->nfixes;
	out->branches = t->branches.names;
	out->nbranches = t->branches.n;
	out->workdir = t->workdir;
	out->datadir = data_dir();
}

int cli_session_open(struct kb_session *s, const struct kb_session_opts *opts)
{
	int err = kb_session_open(s, opts);

	if (s->notes)
		fputs(s->notes, stderr);
	if (err < 0)
		cli_error_last();
	return err;
}

void cli_print_indented(const char *text, const char *indent)
{
	const char *p = text;
	size_t len;

	while (p && *p) {
		len = strcspn(p, "\n");
		printf("%s%.*s\n", indent, (int)len, p);
		p += len + (p[len] == '\n');
	}
}

int cli_progress_interval(double *out, bool quiet)
{
	*out = 0;
	if (quiet)
		return 0;
	if (kb_progress_interval(out, getenv("KBACKPORT_PROGRESS_INTERVAL")) < 0) {
		cli_error_last();
		return EXIT_USAGE;
	}
	return 0;
}

void cli_print_tick(const char *branch, const char *lane, const struct kb_tick *tick)
{
	struct kb_buf who = KB_BUF_INIT, line = KB_BUF_INIT;

	if ((lane && *lane ? kb_buf_printf(&who, "%s %s", branch, lane) :
			     kb_buf_puts(&who, branch)) == 0 &&
	    kb_tick_format(&line, who.ptr, tick) == 0)
		fprintf(stderr, "%s%s\n", isatty(STDERR_FILENO) ? "\r\033[K" : "", line.ptr);
	fflush(stderr);
	kb_buf_release(&who);
	kb_buf_release(&line);
}

/* ---- interruptions: said from a signal handler, so write(2) only ---- */

static const char *volatile interrupt_unit;
static const char *volatile interrupt_kept;
static volatile sig_atomic_t interrupt_refs, interrupt_tty, identity_said;

void cli_interruptible(const char *unit, long total, bool refs, const char *kept)
{
	interrupt_unit = unit;
	interrupt_kept = kept;
	interrupt_refs = refs;
	interrupt_tty = isatty(STDERR_FILENO);
	kb_work_start(total);
}

static void say(const char *s)
{
	size_t n = strlen(s);
	ssize_t w;

	while (n && ((w = write(STDERR_FILENO, s, n)) > 0 || (w < 0 && errno == EINTR)))
		if (w > 0) {
			s += w;
			n -= (size_t)w;
		}
}

static void say_number(long n)
{
	char digits[24], *p = digits + sizeof(digits) - 1;

	*p = '\0';
	if (n < 0)
		n = 0;
	do
		*--p = (char)('0' + n % 10);
	while ((n /= 10) && p > digits);
	say(p);
}

static void say_refs(long refs)
{
	if (refs == 0) {
		say("; no ref was written");
		return;
	}
	say("; the ");
	say_number(refs);
	say(refs == 1 ? " ref written is complete" : " refs written are complete");
}

void cli_interrupted(void)
{
	struct kb_work w;

	kb_work_get(&w);
	if (w.total >= 0 && interrupt_unit) {
		/* after the terminal's "^C", on a line of its own */
		say(interrupt_tty ? "\ninterrupted after " : "interrupted after ");
		say_number(w.done);
		say(" of ");
		say_number(w.total);
		say(" ");
		say(interrupt_unit);
		if (interrupt_refs)
			say_refs(w.refs);
		if (interrupt_kept) {
			say("; ");
			say(interrupt_kept);
		}
		say("; run it again to continue\n");
	}
	cli_identity_note();
}

void cli_identity_note(void)
{
	const char *name, *email;

	if (identity_said || !kb_committer_guessed(&name, &email))
		return;
	identity_said = 1;
	say("note: no user.name/user.email in git config; commits are by ");
	say(name);
	say(" <");
	say(email);
	say(">\n");
}
