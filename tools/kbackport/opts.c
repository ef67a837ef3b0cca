/*
 * One option table per command: the table gives getopt_long() its long and
 * short options and --help its option lines, so an option is written once.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#define MAX_OPTS 64

/* The getopt tables of `u`, built once per table. */
static const struct option *getopt_tables(const struct cli_usage *u, const char **shorts)
{
	static const struct cli_usage *built;
	static struct option longs[MAX_OPTS + 1];
	static char letters[3 * MAX_OPTS + 2];
	const struct cli_opt *o;
	size_t n = 0, at = 0;

	if (built != u) {
		memset(longs, 0, sizeof(longs));
		if (u->posix)
			letters[at++] = '+';
		for (o = u->opts; o->name && n < MAX_OPTS; o++, n++) {
			longs[n] = (struct option){ o->name, o->has_arg, NULL, o->code };
			if (!o->letter)
				continue;
			letters[at++] = (char)o->code;
			if (o->has_arg != no_argument)
				letters[at++] = ':';
			if (o->has_arg == optional_argument)
				letters[at++] = ':';
		}
		letters[at] = '\0';
		built = u;
	}
	*shorts = letters;
	return longs;
}

int cli_getopt(int argc, char **argv, const struct cli_usage *u)
{
	const char *shorts;
	const struct option *longs = getopt_tables(u, &shorts);

	return getopt_long(argc, argv, shorts, longs, NULL);
}

int cli_usage_bad_option(char **argv, const struct cli_usage *u)
{
	const char *shorts;

	return cli_bad_option(argv, getopt_tables(u, &shorts), u->head);
}

/* "  -c, --config FILE" or "      --json", then the help from `column` on. */
static void put_option(FILE *out, const struct cli_opt *o, int column)
{
	const char *line = o->help, *nl;
	int len;

	if (o->letter)
		len = fprintf(out, "  -%c, --%s", o->code, o->name);
	else
		len = fprintf(out, "      --%s", o->name);
	if (o->arg)
		len += fprintf(out, "%s%s", o->arg[0] == '[' ? "" : " ", o->arg);
	if (len + 1 > column) {	/* no room: the help starts on the next line */
		fputc('\n', out);
		len = 0;
	}
	for (; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		fprintf(out, "%*s%.*s\n", column - len, "", nl ? (int)(nl - line) : (int)strlen(line),
			line);
		len = 0;
	}
}

void cli_usage_print(FILE *out, const struct cli_usage *u)
{
	const struct cli_opt *o;

	fputs(u->head, out);
	for (o = u->opts; o->name; o++)
		put_option(out, o, u->column);
	fputs(u->tail, out);
}
