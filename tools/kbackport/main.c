/*
 * kbackport: carry an upstream kernel fix into stable branches.
 * One table of subcommands; each lives in cmd_<name>.c.
 */
#include "cli.h"
#include "util/process.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <signal.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	bool page;	/* on a terminal, through the pager */
};

static const struct command commands[] = {
	{ "import", cmd_import, "Import Debian's kernel source packages as stable branches", false },
	{ "apply", cmd_apply, "Apply a fix's right variant to each branch, as backport commits", true },
	{ "audit", cmd_audit, "List the calls a fix's audit: rules name, and their guards", true },
	{ "build", cmd_build, "Build each branch's kernel lanes (as-is, backport) out of tree", false },
	{ "test", cmd_test, "Boot each built lane with the shared tests; verdicts per lane and branch", false },
	{ "run", cmd_run, "Apply, build, test and report: one run, per-branch verdicts", false },
	{ "report", cmd_report, "Write a run's reports (HTML, Markdown, JUnit, KCIDB), or merge runs", false },
	{ "ci-matrix", cmd_ci_matrix, "Print a CI fan-out: a job per branch running kbackport run, then a merge", false },
	{ "ktap", cmd_ktap, "Show the KTAP test results a console log holds, per suite and case", true },
	{ "fix", cmd_fix, "Make a fix directory from a patch, an mbox or a commit (fix new)", false },
	{ "prune", cmd_prune, "Delete kbackport's own refs: by fix, queue or branch, or stale ones", false },
};

static void usage(FILE *out)
{
	size_t i;

	fputs("usage: kbackport [-C DIR] [--color[=WHEN]] [--no-pager] <command> [<options>]\n\n"
	      "commands:\n", out);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fputs("\n  -C DIR          run as if started in DIR (repeatable, as git's -C)\n"
	      "  --color[=WHEN]  colour the statuses: auto (on a terminal, not with\n"
	      "                  NO_COLOR set), always, never\n"
	      "  --no-pager      apply, audit and ktap print on the terminal, not\n"
	      "                  through $KBACKPORT_PAGER, $PAGER or less\n"
	      "\n'kbackport <command> --help' (or 'kbackport help <command>') describes a command;\n"
	      "'kbackport --version' (or 'kbackport version') prints the version.\n", out);
}

/*
 * ^C, kill, a closed terminal: stop the programs kbackport started (make,
 * QEMU, each in a group of its own), say how far the command got
 * (cli_interruptible()), then die of the signal as usual: the shell sees
 * 128 + the signal's number, 130 for ^C.
 * What was half-done is never trusted later: builds, boots and refs are
 * only marked complete (stamp, rename, ref update) at their very end.
 */
static void on_signal(int sig)
{
	kb_processes_kill(SIGTERM);
	cli_interrupted();
	cli_pager_finish();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void stop_children_on_signals(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* one at a time: a second ^C waits for the first to be said */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* under nohup, a closed terminal is not an interruption */
	if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * A standard descriptor the caller closed (>&-) would be the next file
 * kbackport opens, and what was meant for stdout would land in it: each
 * gets /dev/null, as git does. Returns whether stdout was closed: then
 * nothing written to it reaches anyone, and that is an error at the end.
 */
static bool sanitize_stdfds(void)
{
	bool closed = fcntl(STDOUT_FILENO, F_GETFD) < 0;
	int fd;

	while ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0 && fd <= STDERR_FILENO)
		fcntl(fd, F_SETFD, 0);
	if (fd > STDERR_FILENO)
		close(fd);
	return closed;
}

/*
 * What was written to stdout must have reached it, as git checks after a
 * command (ENOSPC, EIO, a closed descriptor): otherwise exit 1 with the
 * reason, whatever the command said.
 */
static int close_stdout(int rc, bool closed)
{
	int err = 0;

	errno = 0;
	if (closed)
		err = EBADF;
	else if (fflush(stdout) != 0)
		err = errno ? errno : EIO;
	else if (ferror(stdout))
		err = EIO;	/* an earlier write failed; its errno is gone */
	if (fclose(stdout) != 0 && !err && !closed)
		err = errno ? errno : EIO;
	if (!err)
		return rc;
	cli_error("cannot write to standard output: %s", strerror(err));
	return rc == EXIT_OK ? EXIT_ATTENTION : rc;
}

/*
 * The options before the command, as git's: -C DIR (each relative to the
 * one before), --color[=WHEN], --no-pager. Returns how many arguments they
 * took, or -1 after saying what was wrong.
 */
static int global_options(int argc, char **argv, bool *no_pager)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i];

		if (!strcmp(a, "-C")) {
			if (i + 1 >= argc) {
				cli_error("option '-C' needs a directory");
				return -1;
			}
			if (*argv[i + 1] && chdir(argv[i + 1]) < 0) {
				cli_error("cannot change to '%s': %s", argv[i + 1], strerror(errno));
				return -1;
			}
			i += 2;
		} else if (!strcmp(a, "--color") || !strncmp(a, "--color=", 8)) {
			if (cli_color_option(a[7] ? a + 8 : NULL))
				return -1;
			i++;
		} else if (!strcmp(a, "--no-pager")) {
			*no_pager = true;
			i++;
		} else {
			break;
		}
	}
	return i - 1;
}

static int run_command(int argc, char **argv)
{
	bool no_pager = false;
	size_t i;
	int rc, shift;

	if ((shift = global_options(argc, argv, &no_pager)) < 0)
		return EXIT_USAGE;
	if (shift) {
		argv[shift] = argv[0];
		argv += shift;
		argc -= shift;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* `kbackport help apply` is `kbackport apply --help`, as in git */
		char *help[] = { argv[0], argv[2], "--help", NULL };

		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return run_command(3, help);
		argv[1] = argv[2];	/* "'x' is not a kbackport command", below */
	} else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
		   !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		int major, minor, rev;

		git_libgit2_version(&major, &minor, &rev);
		printf("kbackport %s (libgit2 %d.%d.%d)\n", kb_version, major, minor, rev);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		git_libgit2_init();
		opterr = 0;	/* cli_bad_option() says it, as git does */
		/*
		 * Trees over 4 KiB (drivers/, drivers/net/, ...) are not kept in
		 * libgit2's object cache by default: a history walk would parse
		 * them again for every commit.
		 */
		git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)1 << 20);
		/* as git: an object's id is checked by fsck, not on every read */
		git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
		stop_children_on_signals();
		if (commands[i].page && !no_pager)
			cli_pager_start();
		rc = commands[i].fn(argc - 1, argv + 1);
		cli_identity_note();
		git_libgit2_shutdown();
		return rc;
	}
	cli_error("'%s' is not a kbackport command", argv[1]);
	{
		const char *names[sizeof(commands) / sizeof(commands[0])];
		const char *near;

		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			names[i] = commands[i].name;
		if ((near = kb_closest(argv[1], names, i)))
			fprintf(stderr, "hint: did you mean '%s'?\n", near);
	}
	fputs("See 'kbackport --help'.\n", stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	bool closed = sanitize_stdfds();
	int rc = close_stdout(run_command(argc, argv), closed);

	cli_pager_finish();
	return rc;
}
