/* What a commit message says: the upstream commits it names, what it reverts. */
#include "apply/history.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Hex digits at `p`, 7 to 40 of them, not inside a longer word: their count, or 0. */
static size_t hex_run(const char *p)
{
	size_t n = 0;

	while (isxdigit((unsigned char)p[n]))
		n++;
	if (n < 7 || n > 40 || isalnum((unsigned char)p[n]) || p[n] == '_')
		return 0;
	return n;
}

static void hex_copy(char out[GIT_OID_HEXSZ + 1], const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)p[i]);
	out[n] = '\0';
}

/* Skip blanks (not newlines when `lines` is false). */
static const char *skip_ws(const char *p, bool lines)
{
	while (*p == ' ' || *p == '\t' || (lines && *p == '\n'))
		p++;
	return p;
}

/* `word` (any case) at `p`: the text after it, or NULL. */
static const char *after(const char *p, const char *word)
{
	size_t n = strlen(word);

	return strncasecmp(p, word, n) ? NULL : p + n;
}

/* The rest of the line at `p` holds nothing but blanks. */
static bool line_ends(const char *p)
{
	p = skip_ws(p, false);
	return !*p || *p == '\n';
}

/*
 * The forms: a line's start, then the sha, then what must follow it
 * (NULL: anything). `next_line`: the sha may be on the next line.
 */
static const struct ref_form {
	const char *prefix;
	const char *suffix;
	const char *form;
	bool next_line;
} forms[] = {
	{ "commit ", " upstream", "commit <sha> upstream", false },
	{ "commit: ", " upstream", "Commit: <sha> upstream", false },
	{ "upstream commit: ", NULL, "Upstream commit: <sha>", false },
	{ "upstream commit ", NULL, "Upstream commit <sha>", false },
	{ "[ upstream commit ", NULL, "[ Upstream commit <sha> ]", false },
	{ "[upstream commit ", NULL, "[ Upstream commit <sha> ]", false },
	{ "(cherry picked from commit ", NULL, "(cherry picked from commit <sha>)", false },
	{ "(cherry-picked from commit ", NULL, "(cherry picked from commit <sha>)", false },
	{ "cherry picked from commit ", NULL, "(cherry picked from commit <sha>)", false },
	{ "(backported from commit ", NULL, "(backported from commit <sha>)", false },
	{ "backported from commit ", NULL, "(backported from commit <sha>)", false },
	{ "this is a backport of upstream commit:", NULL,
	  "This is a backport of upstream commit: <sha>", true },
	{ "this is a backport of upstream commit ", NULL,
	  "This is a backport of upstream commit: <sha>", true },
	{ "based on commit ", " upstream", "Based on commit <sha> upstream", false },
};

/* The line at `p` ends with the word "upstream" (a reference wrapped after it). */
static bool ends_upstream(const char *line, const char *next)
{
	const char *end = next - 1;	/* the newline */

	while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end - line >= 8 && !strncasecmp(end - 8, "upstream", 8) &&
	       (end - line == 8 || !isalnum((unsigned char)end[-9]));
}

/*
 * A reference in the line at `line`: its form, the sha in `hex`; or NULL.
 * "commit <sha>" alone on its line names the commit only where a stable
 * message names it (`lone`: the first line of the body, or after a line
 * ending in "upstream"): elsewhere it is a commit quoted, "introduced by\n
 * commit <sha>\n". "Upstream commit <sha>" without a colon must end its
 * line, for the same reason.
 */
static const char *line_ref(char hex[GIT_OID_HEXSZ + 1], const char *line, bool lone)
{
	const char *p, *end;
	size_t i, n;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (!(p = after(line, forms[i].prefix)))
			continue;
		p = skip_ws(p, forms[i].next_line);
		if (!(n = hex_run(p)))
			continue;
		end = p + n;
		if (i == 0 && !after(end, forms[i].suffix)) {
			/* "commit <sha>" alone on its line */
			if (!lone || !line_ends(end))
				continue;
			hex_copy(hex, p, n);
			return "commit <sha>";
		}
		if (forms[i].suffix && !after(end, forms[i].suffix))
			continue;
		if (!strcmp(forms[i].prefix, "upstream commit ") &&
		    !line_ends(*end == '.' ? end + 1 : end))
			continue;
		hex_copy(hex, p, n);
		return forms[i].form;
	}
	return NULL;
}

int kb_history_message_refs(struct kb_history_ref **out, size_t *n, const char *message)
{
	struct kb_history_ref *list = NULL;
	const char *line, *next, *prev = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	const char *form;
	size_t count = 0, alloc = 0;
	int para = 0;		/* 0: the subject, 1: the blank lines after it, 2: the body */
	bool first_body = false;

	*out = NULL;
	*n = 0;
	for (line = message; line && *line; prev = line, line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : NULL;
		first_body = false;
		if (line_ends(line)) {
			if (para == 0)
				para = 1;
		} else if (para == 1) {
			para = 2;
			first_body = true;
		}
		if (!(form = line_ref(hex, line, first_body ||
				      (prev && ends_upstream(prev, line)))))
			continue;
		if (KB_ARRAY_GROW(list, alloc, count + 1) < 0) {
			free(list);
			return KB_ENOMEM;
		}
		memcpy(list[count].hex, hex, sizeof(hex));
		list[count++].form = form;
	}
	*out = list;
	*n = count;
	return 0;
}

/* The shas a message reverts, as found. */
struct shas {
	char **v;
	size_t n, alloc;
};

/* Skip a parenthesis at `p` (nested ones too), collecting "commit <sha>" inside. */
static const char *skip_paren(const char *p, struct shas *shas, int *err);

static int add_sha(struct shas *shas, const char *p, size_t len)
{
	char *s;
	int err;

	if ((err = KB_ARRAY_GROW(shas->v, shas->alloc, shas->n + 1)) < 0)
		return err;
	s = malloc(GIT_OID_HEXSZ + 1);
	KB_ERROR_CHECK_ALLOC(s);
	hex_copy(s, p, len);
	shas->v[shas->n++] = s;
	return 0;
}

static const char *skip_paren(const char *p, struct shas *shas, int *err)
{
	int depth = 0;
	size_t len;

	for (; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return p + 1;
		else if (*p == '\n' && p[1] == '\n')
			return p;	/* a paragraph ends: no closing parenthesis */
		else if (!strncasecmp(p, "commit ", 7) && (len = hex_run(p + 7)) &&
			 (*err = add_sha(shas, p + 7, len)) < 0)
			return p;
	}
	return p;
}

/* The word `word` (any case) at `p`, followed by a blank or a newline: the text after it. */
static const char *word_at(const char *p, const char *word)
{
	const char *q = after(p, word);

	return q && (*q == ' ' || *q == '\t' || *q == '\n') ? q : NULL;
}

/* The words that may stand between "revert" and a sha, or between shas. */
static const char *skip_filler(const char *p)
{
	static const char *const words[] = {
		"commits", "commit", "stable", "upstream", "the", "and", "patch",
	};
	const char *q;
	size_t i;
	bool again = true;

	while (again) {
		again = false;
		p = skip_ws(p, true);
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if ((q = word_at(p, words[i]))) {
				p = q;
				again = true;
				break;
			}
		if (*p == ',') {
			p++;
			again = true;
		}
	}
	return p;
}

/* The shas named after one "revert" word at `p`. */
static int revert_chain(const char *p, struct shas *shas)
{
	size_t len;
	int err = 0;

	for (;;) {
		p = skip_filler(p);
		if (!(len = hex_run(p)))
			return 0;
		if ((err = add_sha(shas, p, len)) < 0)
			return err;
		p = skip_ws(p + len, true);
		if (*p == '(') {
			p = skip_paren(p, shas, &err);
			if (err < 0)
				return err;
		}
		p = skip_ws(p, true);
		if (*p != ',' && !word_at(p, "and"))
			return 0;
	}
}

static int quoted_subject(char **subject, const char *message)
{
	const char *end = message + strcspn(message, "\n"), *p, *q;
	char quote;

	for (p = message; p + 8 <= end; p++) {
		if (strncasecmp(p, "revert ", 7) || (p > message && isalnum((unsigned char)p[-1])))
			continue;
		quote = p[7];
		if (quote != '"' && quote != '\'')
			continue;
		for (q = end - 1; q > p + 8 && *q != quote; q--)
			;
		if (q <= p + 8)
			continue;
		*subject = kb_strndup(p + 8, (size_t)(q - (p + 8)));
		KB_ERROR_CHECK_ALLOC(*subject);
		return 0;
	}
	return 0;
}

int kb_history_message_reverts(char ***shas, size_t *nshas, char **subject,
			       const char *message)
{
	static const char *const words[] = { "reverts ", "reverted ", "reverting ", "revert " };
	struct shas found = { 0 };
	const char *p;
	size_t i;
	int err = 0;

	*shas = NULL;
	*nshas = 0;
	*subject = NULL;
	for (p = message; *p && err == 0; p++) {
		if (p > message && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (after(p, words[i])) {
				err = revert_chain(p + strlen(words[i]), &found);
				break;
			}
	}
	if (err == 0)
		err = quoted_subject(subject, message);
	if (err < 0) {
		for (i = 0; i < found.n; i++)
			free(found.v[i]);
		free(found.v);
		return err;
	}
	*shas = found.v;
	*nshas = found.n;
	return 0;
}
