/*
 * The terminal, as git treats it: colour on a terminal only (--color,
 * NO_COLOR, TERM=dumb), and long output through a pager.
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { COLOR_AUTO = -1, COLOR_NEVER = 0, COLOR_ALWAYS = 1 };
static int color_mode = COLOR_AUTO;
static int color_decided = -1;
static pid_t pager_pid = -1;

int cli_color_option(const char *when)
{
	if (!when || !strcmp(when, "always"))
		color_mode = COLOR_ALWAYS;
	else if (!strcmp(when, "never"))
		color_mode = COLOR_NEVER;
	else if (!strcmp(when, "auto"))
		color_mode = COLOR_AUTO;
	else {
		cli_error("--color wants auto, always or never, not '%s'", when);
		return EXIT_USAGE;
	}
	color_decided = -1;
	return 0;
}

static bool on_terminal(void)
{
	const char *term = getenv("TERM");

	return (isatty(STDOUT_FILENO) || pager_pid > 0) && !(term && !strcmp(term, "dumb"));
}

bool cli_color(void)
{
	const char *no_color;

	if (color_decided >= 0)
		return color_decided;
	if (color_mode != COLOR_AUTO)
		color_decided = color_mode;
	else {
		no_color = getenv("NO_COLOR");
		color_decided = on_terminal() && !(no_color && *no_color);
	}
	return color_decided;
}

/* The colour of a status or verdict name: "" for those shown plain. */
static const char *word_color(const char *word)
{
	static const struct { const char *word, *color; } colors[] = {
		{ "applied", "\033[32m" }, { "already-applied", "\033[32m" },
		{ "fixed", "\033[32m" }, { "pass", "\033[32m" }, { "cached", "\033[32m" },
		{ "fail", "\033[31m" }, { "verified", "\033[1;32m" },
		{ "conflict", "\033[31m" }, { "error", "\033[1;31m" },
		{ "vulnerable", "\033[1;31m" }, { "regression", "\033[1;31m" },
		{ "partial", "\033[33m" }, { "reverse-applied", "\033[33m" },
		{ "reverted", "\033[33m" },
		{ "untested", "\033[33m" }, { "skipped", "\033[33m" },
	};
	size_t i;

	for (i = 0; i < sizeof(colors) / sizeof(colors[0]); i++)
		if (!strcmp(word, colors[i].word))
			return colors[i].color;
	return "";
}

void cli_put_word(const char *word, int width)
{
	const char *color = cli_color() ? word_color(word) : "";
	int len = (int)strlen(word);

	printf("%s%s%s", color, word, *color ? "\033[m" : "");
	if (width > len)
		printf("%*s", width - len, "");
}

/* $KBACKPORT_PAGER, else $PAGER, else less; NULL for none ("cat", ""). */
static const char *pager_command(void)
{
	const char *pager = getenv("KBACKPORT_PAGER");

	if (!pager)
		pager = getenv("PAGER");
	if (!pager)
		pager = "less";
	return *pager && strcmp(pager, "cat") ? pager : NULL;
}

void cli_pager_start(void)
{
	const char *pager;
	int fds[2];
	pid_t pid;

	if (pager_pid > 0 || !isatty(STDOUT_FILENO) || !(pager = pager_command()))
		return;
	fflush(stdout);
	if (pipe(fds) < 0)
		return;
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		/* as git: quit when it fits, keep colours, leave the screen */
		setenv("LESS", "FRX", 0);
		setenv("LV", "-c", 0);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		fprintf(stderr, "error: cannot run pager '%s': %s\n", pager, strerror(errno));
		_exit(127);
	}
	cli_color();	/* decided while stdout is still the terminal */
	dup2(fds[1], STDOUT_FILENO);
	close(fds[0]);
	close(fds[1]);
	pager_pid = pid;
}

void cli_pager_finish(void)
{
	int status;

	if (pager_pid <= 0)
		return;
	close(STDOUT_FILENO);	/* the pager's end of input (safe in a signal handler) */
	while (waitpid(pager_pid, &status, 0) < 0 && errno == EINTR)
		;
	pager_pid = -1;
}
