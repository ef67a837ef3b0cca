/*
 * Audit of the calls a fix names (its audit: rules) and their capability guards.
 *
 * The scanner is not a C compiler: it builds a "code view" of the text
 * (comments, literal contents and preprocessor lines blanked, offsets
 * unchanged), cuts it into tokens, finds function bodies at file scope and
 * walks their statements with a small recursive-descent parser that knows
 * if/else, loops, blocks and labels. Enough for the shapes request_module()
 * callers take in the kernel; see the report in kb_audit_scan()'s header.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif

#include "audit/audit.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Deeper statement nesting is skipped flat: bounds the recursion. */
#define MAX_NEST 128
/* Capabilities kept per call; more is not a real guard shape. */
#define MAX_CAPS 16

enum tok_type { T_IDENT, T_NUM, T_STR, T_CHR, T_PUNCT };

struct tok {
	size_t off;
	unsigned len;
	enum tok_type type;
};

/* Innermost config symbol from the code at `off` on (see cond_at()). */
struct cond_mark {
	size_t off;
	size_t sym_off;		/* into the original text; sym_len 0: none */
	unsigned sym_len;
	bool neg;
};

/* One #if ... #endif group while the code view is built. */
struct pp_group {
	size_t sym_off;
	unsigned sym_len;
	bool neg;
	bool if0;		/* current branch is "#if 0": blanked at its end */
	bool have_ref;		/* a live branch fixed the group's brace delta */
	long ref_delta;
	long depth0;		/* brace depth before the group */
	size_t branch_start;
};

struct guard {
	size_t a, b;		/* condition tokens [a, b) */
	bool neg;		/* else branch: the condition is false */
};

struct span {
	size_t a, b;
};

struct scan {
	const char *src;
	char *code;
	size_t len;

	/* code view building */
	struct pp_group *groups;
	size_t ngroups, agroups;
	struct cond_mark *marks;
	size_t nmarks, amarks;
	long depth;
	size_t dir_start;
	bool in_dir, line_start;

	struct tok *toks;
	size_t ntoks, atoks;
	size_t *match;		/* bracket partner, ntoks when none */

	/* parser state, per function */
	size_t pos;
	unsigned nest;
	size_t fname;		/* name token, SIZE_MAX when unknown */
	struct guard guards[MAX_NEST + 1];
	size_t nguards;
	struct span *gates;	/* conditions of earlier early-exit ifs */
	size_t ngates, agates;
	bool last_exit;		/* last statement parsed was return/goto */

	const struct kb_audit_rules *rules;

	/* output */
	struct kb_call **calls;
	size_t *n;
	size_t acalls;		/* room in *calls: the caller's *n to begin with */
	const char *path;
	size_t line_off, line_no;
	int err;
};

/* Annotations written like calls around a function's parameter list. */
static const char *const annotations[] = {
	"__attribute__", "__attribute", "__acquires", "__releases",
	"__must_hold", "__cond_acquires", "__cond_releases", "__printf",
	"__scanf", "__section", "__aligned", "__alloc_size", "__realloc_size",
	"__diagnose_as",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static bool in_list(const char *s, size_t len, const char *const *list,
		    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && !memcmp(list[i], s, len))
			return true;
	return false;
}

/* ---- code view ---------------------------------------------------- */

static bool is_ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '$';
}

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

static void blank(struct scan *s, size_t a, size_t b, bool braces_only)
{
	for (; a < b; a++) {
		if (braces_only && s->code[a] != '{' && s->code[a] != '}')
			continue;
		if (s->code[a] != '\n')
			s->code[a] = ' ';
	}
}

/* The first CONFIG_ symbol of an #if expression; "!" before it negates. */
static void expr_symbol(struct pp_group *g, const char *code, size_t a,
			size_t b)
{
	static const char *const wrappers[] = {
		"defined", "IS_ENABLED", "IS_BUILTIN", "IS_MODULE",
		"IS_REACHABLE",
	};
	unsigned bangs = 0;
	size_t e;

	g->sym_len = 0;
	g->neg = false;
	while (a < b) {
		if (!is_ident_start((unsigned char)code[a])) {
			if (code[a] == '!')
				bangs++;
			else if (!isspace((unsigned char)code[a]) &&
				 code[a] != '(')
				bangs = 0;
			a++;
			continue;
		}
		for (e = a; e < b && is_ident_char((unsigned char)code[e]); e++)
			;
		if (e - a > 7 && !memcmp(code + a, "CONFIG_", 7)) {
			g->sym_off = a;
			g->sym_len = (unsigned)(e - a);
			g->neg = bangs % 2;
			return;
		}
		if (!in_list(code + a, e - a, wrappers, ARRAY_SIZE(wrappers)))
			bangs = 0;
		a = e;
	}
}

static bool expr_is_zero(const char *code, size_t a, size_t b)
{
	while (a < b && isspace((unsigned char)code[a]))
		a++;
	while (b > a && isspace((unsigned char)code[b - 1]))
		b--;
	return b == a + 1 && code[a] == '0';
}

/*
 * Alternative branches of one #if group are all in the text, so the brace
 * count would see "if (a) {" and "if (b) {" both. The first live branch
 * decides; a later branch that does not balance its own braces has them
 * blanked, so the parser sees one consistent shape.
 */
static void branch_end(struct scan *s, struct pp_group *g, size_t end)
{
	long delta = s->depth - g->depth0;

	if (g->if0) {
		blank(s, g->branch_start, end, false);
	} else if (!g->have_ref) {
		g->have_ref = true;
		g->ref_delta = delta;
	} else if (delta) {
		blank(s, g->branch_start, end, true);
	}
	g->if0 = false;
	s->depth = g->depth0;
}

/* `word` is "if", "ifdef" or "ifndef"; [a, b) the rest of the line. */
static int push_group(struct scan *s, const char *word, size_t a, size_t b)
{
	struct pp_group *g;
	int err;

	if ((err = KB_ARRAY_GROW(s->groups, s->agroups, s->ngroups + 1)) < 0)
		return err;
	g = &s->groups[s->ngroups++];
	memset(g, 0, sizeof(*g));
	g->depth0 = s->depth;
	g->branch_start = b;
	expr_symbol(g, s->code, a, b);
	if (!strcmp(word, "if"))
		g->if0 = expr_is_zero(s->code, a, b);
	else if (!strcmp(word, "ifndef"))
		g->neg = true;
	return 0;
}

/* `word` is "else", "elif", "elifdef" or "elifndef". */
static void next_branch(struct scan *s, const char *word, size_t a, size_t b)
{
	struct pp_group *g = &s->groups[s->ngroups - 1];

	branch_end(s, g, s->dir_start);
	g->branch_start = b;
	if (!strcmp(word, "else")) {
		g->neg = !g->neg;
	} else {
		expr_symbol(g, s->code, a, b);
		if (!strcmp(word, "elifndef"))
			g->neg = true;
	}
}

static void end_group(struct scan *s)
{
	struct pp_group *g = &s->groups[s->ngroups - 1];

	branch_end(s, g, s->dir_start);
	s->depth = g->depth0 + (g->have_ref ? g->ref_delta : 0);
	s->ngroups--;
}

static int add_mark(struct scan *s, size_t off)
{
	struct cond_mark *m;
	size_t i = s->ngroups;
	int err;

	if ((err = KB_ARRAY_GROW(s->marks, s->amarks, s->nmarks + 1)) < 0)
		return err;
	m = &s->marks[s->nmarks++];
	memset(m, 0, sizeof(*m));
	m->off = off;
	while (i-- > 0) {
		if (s->groups[i].sym_len) {
			m->sym_off = s->groups[i].sym_off;
			m->sym_len = s->groups[i].sym_len;
			m->neg = s->groups[i].neg;
			break;
		}
	}
	return 0;
}

/* Conditional directives update the group stack; all are then blanked. */
static int end_directive(struct scan *s, size_t end)
{
	static const char *const opens[] = { "if", "ifdef", "ifndef" };
	static const char *const elses[] = {
		"else", "elif", "elifdef", "elifndef",
	};
	size_t a = s->dir_start + 1, w;
	char word[16] = "";
	bool cond = true;
	int err = 0;

	while (a < end && isspace((unsigned char)s->code[a]))
		a++;
	for (w = a; w < end && is_ident_char((unsigned char)s->code[w]); w++)
		;
	if (w - a < sizeof(word))
		memcpy(word, s->code + a, w - a);
	if (in_list(word, strlen(word), opens, ARRAY_SIZE(opens)))
		err = push_group(s, word, w, end);
	else if (s->ngroups && in_list(word, strlen(word), elses,
				       ARRAY_SIZE(elses)))
		next_branch(s, word, w, end);
	else if (s->ngroups && !strcmp(word, "endif"))
		end_group(s);
	else
		cond = false;
	if (!err && cond)
		err = add_mark(s, end);
	blank(s, s->dir_start, end, false);
	s->in_dir = false;
	return err;
}

static size_t skip_line_comment(struct scan *s, size_t i)
{
	for (; i < s->len; i++) {
		if (s->src[i] == '\n' && s->src[i - 1] != '\\')
			break;
		if (s->src[i] != '\n')
			s->code[i] = ' ';
		else
			s->code[i] = '\n';
	}
	return i;
}

static size_t skip_block_comment(struct scan *s, size_t i)
{
	size_t start = i;

	for (i += 2; i < s->len; i++) {
		if (s->src[i] == '/' && s->src[i - 1] == '*' && i > start + 2)
			break;
	}
	i = i < s->len ? i + 1 : s->len;
	memset(s->code + start, ' ', i - start);
	for (; start < i; start++)
		if (s->src[start] == '\n')
			s->code[start] = '\n';
	return i;
}

/*
 * Quotes are kept, contents blanked. A backslash before a newline stays so
 * the tokenizer can follow the continuation; an unescaped newline ends a
 * broken literal (an apostrophe in "#error don't") where it stands.
 */
static size_t skip_literal(struct scan *s, size_t i, char q)
{
	s->line_start = false;
	s->code[i++] = q;
	while (i < s->len) {
		char c = s->src[i];

		if (c == '\n')
			return i;
		if (c == q) {
			s->code[i] = q;
			return i + 1;
		}
		s->code[i] = ' ';
		if (c == '\\' && i + 1 < s->len) {
			i++;
			if (s->src[i] == '\r' && i + 1 < s->len &&
			    s->src[i + 1] == '\n')
				s->code[i++] = ' ';
			if (s->src[i] == '\n')
				s->code[i - 1] = '\\';
			s->code[i] = s->src[i] == '\n' ? '\n' : ' ';
		}
		i++;
	}
	return i;
}

static bool continued(const struct scan *s, size_t nl)
{
	if (nl >= 1 && s->src[nl - 1] == '\\')
		return true;
	return nl >= 2 && s->src[nl - 1] == '\r' && s->src[nl - 2] == '\\';
}

static int code_char(struct scan *s, size_t i)
{
	char c = s->src[i];
	int err = 0;

	s->code[i] = c;
	if (c == '\n') {
		if (s->in_dir && !continued(s, i))
			err = end_directive(s, i);
		s->line_start = !s->in_dir;
		return err;
	}
	if (c == '#' && s->line_start && !s->in_dir) {
		s->in_dir = true;
		s->dir_start = i;
	}
	if (!isspace((unsigned char)c))
		s->line_start = false;
	if (!s->in_dir && c == '{')
		s->depth++;
	else if (!s->in_dir && c == '}')
		s->depth--;
	return 0;
}

static int make_code_view(struct scan *s)
{
	size_t i = 0;
	int err = 0;

	s->code = malloc(s->len + 1);
	KB_ERROR_CHECK_ALLOC(s->code);
	s->code[s->len] = '\0';
	s->line_start = true;
	while (i < s->len && !err) {
		char c = s->src[i], d = i + 1 < s->len ? s->src[i + 1] : 0;

		if (c == '/' && d == '/')
			i = skip_line_comment(s, i);
		else if (c == '/' && d == '*')
			i = skip_block_comment(s, i);
		else if (c == '"' || c == '\'')
			i = skip_literal(s, i, c);
		else
			err = code_char(s, i++);
	}
	if (!err && s->in_dir)
		err = end_directive(s, s->len);
	return err;
}

/* ---- tokens ------------------------------------------------------- */

static size_t literal_end(const char *code, size_t len, size_t i)
{
	char q = code[i++];

	while (i < len && code[i] != q && code[i] != '\n') {
		if (code[i] == '\\') {
			i++;
			if (i < len && code[i] == '\r')
				i++;
		}
		i++;
	}
	return i < len && code[i] == q ? i + 1 : i;
}

static unsigned punct_len(const char *p, size_t left)
{
	static const char *const two[] = {
		"->", "&&", "||", "!=", "==", "<=", ">=", "++", "--", "<<",
		">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
	};
	size_t i;

	if (left >= 3 && (!memcmp(p, "...", 3) || !memcmp(p, "<<=", 3) ||
			  !memcmp(p, ">>=", 3)))
		return 3;
	for (i = 0; left >= 2 && i < ARRAY_SIZE(two); i++)
		if (!memcmp(p, two[i], 2))
			return 2;
	return 1;
}

static size_t token_at(const struct scan *s, size_t i, struct tok *t)
{
	const char *c = s->code;
	size_t e = i + 1;

	t->off = i;
	if (is_ident_start((unsigned char)c[i])) {
		t->type = T_IDENT;
		while (e < s->len && is_ident_char((unsigned char)c[e]))
			e++;
	} else if (isdigit((unsigned char)c[i]) ||
		   (c[i] == '.' && isdigit((unsigned char)c[i + 1]))) {
		t->type = T_NUM;
		while (e < s->len && (is_ident_char((unsigned char)c[e]) ||
				      c[e] == '.'))
			e++;
	} else if (c[i] == '"' || c[i] == '\'') {
		t->type = c[i] == '"' ? T_STR : T_CHR;
		e = literal_end(c, s->len, i);
	} else {
		t->type = T_PUNCT;
		e = i + punct_len(c + i, s->len - i);
	}
	t->len = (unsigned)(e - i);
	return e;
}

static int tokenize(struct scan *s)
{
	size_t i = 0;
	int err;

	while (i < s->len) {
		if (isspace((unsigned char)s->code[i]) || !s->code[i]) {
			i++;
			continue;
		}
		if ((err = KB_ARRAY_GROW(s->toks, s->atoks, s->ntoks + 1)) < 0)
			return err;
		i = token_at(s, i, &s->toks[s->ntoks++]);
	}
	return 0;
}

static bool tok_is(const struct scan *s, size_t i, const char *str)
{
	size_t len = strlen(str);

	return i < s->ntoks && s->toks[i].len == len &&
	       !memcmp(s->code + s->toks[i].off, str, len);
}

static bool is_open(const struct scan *s, size_t i)
{
	return tok_is(s, i, "(") || tok_is(s, i, "[") || tok_is(s, i, "{");
}

static bool is_close(const struct scan *s, size_t i)
{
	return tok_is(s, i, ")") || tok_is(s, i, "]") || tok_is(s, i, "}");
}

/* All bracket kinds nest as one: a mismatch costs accuracy, not safety. */
static int match_brackets(struct scan *s)
{
	size_t *stack = NULL, nstack = 0, i;

	if (!(s->match = malloc((s->ntoks + 1) * sizeof(size_t))) ||
	    !(stack = malloc((s->ntoks + 1) * sizeof(size_t)))) {
		free(stack);
		return kb_error_oom();
	}
	for (i = 0; i < s->ntoks; i++) {
		s->match[i] = s->ntoks;
		if (is_open(s, i)) {
			stack[nstack++] = i;
		} else if (is_close(s, i) && nstack) {
			nstack--;
			s->match[stack[nstack]] = i;
			s->match[i] = stack[nstack];
		}
	}
	free(stack);
	return 0;
}

/* Index after the group opened at i, never beyond lim. */
static size_t skip_group(const struct scan *s, size_t i, size_t lim)
{
	size_t m = s->match[i];

	return m < lim ? m + 1 : lim;
}

/* ---- conditions --------------------------------------------------- */

/* A check of the rules, whose last argument is the capability tested. */
static bool is_cap_func(const struct scan *s, size_t i)
{
	return i < s->ntoks && s->toks[i].type == T_IDENT &&
	       in_list(s->code + s->toks[i].off, s->toks[i].len,
		       (const char *const *)s->rules->checks, s->rules->nchecks) &&
	       tok_is(s, i + 1, "(");
}

/* The CAP_ identifier that is the last argument of the check at i. */
static size_t cap_arg(const struct scan *s, size_t i)
{
	size_t open = i + 1, close = s->match[open], j = open + 1, arg = j;

	if (close >= s->ntoks)
		return SIZE_MAX;
	while (j < close) {
		if (tok_is(s, j, ","))
			arg = j + 1;
		j = is_open(s, j) ? skip_group(s, j, close) : j + 1;
	}
	if (close != arg + 1 || s->toks[arg].type != T_IDENT ||
	    s->toks[arg].len < 5 || memcmp(s->code + s->toks[arg].off, "CAP_", 4))
		return SIZE_MAX;
	return arg;
}

struct caps {
	size_t tok[MAX_CAPS];
	size_t n;
};

static bool caps_has(const struct scan *s, const struct caps *c, size_t t)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (s->toks[c->tok[i]].len == s->toks[t].len &&
		    !memcmp(s->code + s->toks[c->tok[i]].off,
			    s->code + s->toks[t].off, s->toks[t].len))
			return true;
	return false;
}

static void caps_add(const struct scan *s, struct caps *c, size_t t)
{
	if (t != SIZE_MAX && c->n < MAX_CAPS && !caps_has(s, c, t))
		c->tok[c->n++] = t;
}

static bool has_top(const struct scan *s, size_t a, size_t b, const char *op)
{
	while (a < b) {
		if (tok_is(s, a, op))
			return true;
		a = is_open(s, a) ? skip_group(s, a, b) : a + 1;
	}
	return false;
}

static void collect(const struct scan *s, size_t a, size_t b, bool truth,
		    struct caps *out, unsigned depth);

static void collect_split(const struct scan *s, size_t a, size_t b,
			  const char *op, bool truth, struct caps *out,
			  unsigned depth)
{
	size_t start = a;

	while (a < b) {
		if (tok_is(s, a, op)) {
			collect(s, start, a, truth, out, depth);
			start = a + 1;
		}
		a = is_open(s, a) ? skip_group(s, a, b) : a + 1;
	}
	collect(s, start, b, truth, out, depth);
}

static void collect_atom(const struct scan *s, size_t a, size_t b, bool truth,
			 struct caps *out, unsigned depth)
{
	for (; a < b && tok_is(s, a, "!"); a++)
		truth = !truth;
	if (a >= b)
		return;
	if (tok_is(s, a, "(") && s->match[a] == b - 1) {
		collect(s, a + 1, b - 1, truth, out, depth);
	} else if ((tok_is(s, a, "likely") || tok_is(s, a, "unlikely")) &&
		   tok_is(s, a + 1, "(") && s->match[a + 1] == b - 1) {
		collect(s, a + 2, b - 1, truth, out, depth);
	} else if (truth && is_cap_func(s, a) && s->match[a + 1] == b - 1) {
		caps_add(s, out, cap_arg(s, a));
	}
}

/*
 * Capabilities that must hold when the condition [a, b) has the value
 * `truth`: the conjuncts of a true "&&" chain, the negated disjuncts of a
 * false "||" chain. Anything else (a true "||", "?:") guarantees nothing.
 * Recursion follows the parentheses of one condition, bounded for
 * machine-made input.
 */
static void collect(const struct scan *s, size_t a, size_t b, bool truth,
		    struct caps *out, unsigned depth)
{
	if (depth > MAX_NEST || has_top(s, a, b, "?"))
		return;
	if (has_top(s, a, b, "||")) {
		if (!truth)
			collect_split(s, a, b, "||", false, out, depth + 1);
	} else if (has_top(s, a, b, "&&")) {
		if (truth)
			collect_split(s, a, b, "&&", true, out, depth + 1);
	} else {
		collect_atom(s, a, b, truth, out, depth + 1);
	}
}

/* Every capability a condition checks, whatever its polarity. */
static void collect_any(const struct scan *s, size_t a, size_t b,
			struct caps *out)
{
	for (; a < b; a++)
		if (is_cap_func(s, a))
			caps_add(s, out, cap_arg(s, a));
}

/* ---- calls -------------------------------------------------------- */

static size_t line_of(struct scan *s, size_t off)
{
	if (off < s->line_off) {
		s->line_off = 0;
		s->line_no = 1;
	}
	for (; s->line_off < off; s->line_off++)
		if (s->src[s->line_off] == '\n')
			s->line_no++;
	return s->line_no;
}

static int cond_at(char **out, const struct scan *s, size_t off)
{
	size_t lo = 0, hi = s->nmarks;
	const struct cond_mark *m;
	struct kb_buf buf = KB_BUF_INIT;
	int err;

	while (lo < hi) {	/* first mark after off */
		size_t mid = lo + (hi - lo) / 2;

		if (s->marks[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !s->marks[lo - 1].sym_len)
		return 0;
	m = &s->marks[lo - 1];
	if (m->neg)
		kb_buf_putc(&buf, '!');
	kb_buf_put(&buf, s->src + m->sym_off, m->sym_len);
	if ((err = kb_buf_check(&buf)) < 0) {
		kb_buf_release(&buf);
		return err;
	}
	*out = kb_buf_detach(&buf);
	return 0;
}

/*
 * The format as written: adjacent literals concatenated, escapes kept.
 * A literal followed by a macro ("nf-" PF) keeps the literal part, which is
 * still the fixed start of the module name.
 */
static int read_format(struct scan *s, struct kb_call *call, size_t open,
		       unsigned argn)
{
	size_t close = s->match[open] < s->ntoks ? s->match[open] : s->ntoks;
	size_t j = open + 1;
	struct kb_buf buf = KB_BUF_INIT;
	int err = 0;

	while (argn && j < close) {
		if (tok_is(s, j, ","))
			argn--;
		j = is_open(s, j) ? skip_group(s, j, close) : j + 1;
	}
	if (argn || j >= close || s->toks[j].type != T_STR)
		return 0;
	for (; j < close && s->toks[j].type == T_STR && !err; j++) {
		const struct tok *t = &s->toks[j];
		size_t end = t->off + t->len;

		if (t->len >= 2 && s->src[end - 1] == '"')
			end--;
		err = kb_buf_put(&buf, s->src + t->off + 1, end - t->off - 1);
	}
	if (!err && !(call->format = kb_buf_detach(&buf)))
		err = kb_error_oom();
	kb_buf_release(&buf);
	return err;
}

/* "%%" is a literal percent; the prefix is the format before the first
 * real conversion, as written. */
static int set_prefix(struct kb_call *call)
{
	const char *f = call->format, *p = f;

	if (!f)
		return 0;
	while (*p && (p[0] != '%' || p[1] == '%'))
		p += p[0] == '%' ? 2 : 1;
	call->bare = p == f && *p == '%';
	call->prefix = kb_strndup(f, (size_t)(p - f));
	KB_ERROR_CHECK_ALLOC(call->prefix);
	return 0;
}

/* Enclosing conditions give DIRECT caps; early-exit gates FUNCTION ones. */
static int set_caps(struct scan *s, struct kb_call *call)
{
	struct caps direct = { .n = 0 }, all;
	size_t i;

	for (i = 0; i < s->nguards; i++)
		collect(s, s->guards[i].a, s->guards[i].b, !s->guards[i].neg,
			&direct, 0);
	all = direct;
	for (i = 0; i < s->ngates; i++)
		collect_any(s, s->gates[i].a, s->gates[i].b, &all);
	call->guard = direct.n ? KB_GUARD_DIRECT :
		      all.n ? KB_GUARD_FUNCTION : KB_GUARD_NONE;
	if (!all.n)
		return 0;
	call->caps = calloc(all.n, sizeof(char *));
	KB_ERROR_CHECK_ALLOC(call->caps);
	for (i = 0; i < all.n; i++, call->ncaps++)
		if (!(call->caps[i] = kb_strndup(s->code + s->toks[all.tok[i]].off,
						 s->toks[all.tok[i]].len)))
			return kb_error_oom();
	return 0;
}

static void call_release(struct kb_call *call)
{
	size_t i;

	free(call->path);
	free(call->function);
	free(call->callee);
	free(call->format);
	free(call->prefix);
	for (i = 0; i < call->ncaps; i++)
		free(call->caps[i]);
	free(call->caps);
	free(call->conditional);
}

static const struct kb_audit_callee *find_callee(const struct kb_audit_rules *rules,
						  const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < rules->ncallees; i++)
		if (strlen(rules->callees[i].name) == len &&
		    !memcmp(rules->callees[i].name, name, len))
			return &rules->callees[i];
	return NULL;
}

static int fill_call(struct scan *s, struct kb_call *call, size_t i)
{
	const struct tok *t = &s->toks[i], *f;
	int err;

	call->line = line_of(s, t->off);
	if ((s->path && !(call->path = kb_strdup(s->path))) ||
	    !(call->callee = kb_strndup(s->code + t->off, t->len)))
		return kb_error_oom();
	if (s->fname != SIZE_MAX) {
		f = &s->toks[s->fname];
		call->function = kb_strndup(s->code + f->off, f->len);
		KB_ERROR_CHECK_ALLOC(call->function);
	}
	/* __request_module(wait, fmt, ...) has the format second */
	if ((err = read_format(s, call, i + 1,
			       find_callee(s->rules, s->code + t->off, t->len)->format_arg)) < 0 ||
	    (err = set_prefix(call)) < 0 || (err = set_caps(s, call)) < 0)
		return err;
	return cond_at(&call->conditional, s, t->off);
}

static void add_call(struct scan *s, size_t i)
{
	struct kb_call call;
	int err;

	memset(&call, 0, sizeof(call));
	if ((err = fill_call(s, &call, i)) < 0 ||
	    (err = KB_ARRAY_GROW(*s->calls, s->acalls, *s->n + 1)) < 0) {
		call_release(&call);
		s->err = err;
		return;
	}
	(*s->calls)[(*s->n)++] = call;
}

static bool is_callee(const struct scan *s, size_t i)
{
	const struct tok *t = &s->toks[i];

	if (t->type != T_IDENT || !tok_is(s, i + 1, "(") ||
	    !find_callee(s->rules, s->code + t->off, t->len))
		return false;
	/* ops->request_module() is another function; "int x(" declares */
	return !(i && (tok_is(s, i - 1, ".") || tok_is(s, i - 1, "->") ||
		       tok_is(s, i - 1, "int") || tok_is(s, i - 1, "void")));
}

static void scan_calls(struct scan *s, size_t a, size_t b)
{
	for (; a < b && !s->err; a++)
		if (is_callee(s, a))
			add_call(s, a);
}

/* ---- statements --------------------------------------------------- */

static void parse_stmt(struct scan *s, size_t lim);

static void parse_block(struct scan *s, size_t lim)
{
	size_t end = s->match[s->pos] < lim ? s->match[s->pos] : lim;

	s->pos++;
	s->last_exit = false;
	while (s->pos < end && !s->err)
		parse_stmt(s, end);
	s->pos = end < lim ? end + 1 : lim;
}

static void push_guard(struct scan *s, size_t a, size_t b, bool neg)
{
	s->guards[s->nguards].a = a;
	s->guards[s->nguards].b = b;
	s->guards[s->nguards].neg = neg;
	s->nguards++;
}

/* Reads "( cond )" at pos; false when it is not there. */
static bool paren_cond(struct scan *s, size_t lim, size_t *a, size_t *b)
{
	if (!tok_is(s, s->pos, "(") || s->pos >= lim) {
		s->last_exit = false;
		return false;
	}
	*a = s->pos + 1;
	*b = s->match[s->pos] < lim ? s->match[s->pos] : lim;
	scan_calls(s, *a, *b);
	s->pos = *b < lim ? *b + 1 : lim;
	return true;
}

static void add_gate(struct scan *s, size_t a, size_t b)
{
	if (KB_ARRAY_GROW(s->gates, s->agates, s->ngates + 1) < 0) {
		s->err = kb_error_oom();
		return;
	}
	s->gates[s->ngates].a = a;
	s->gates[s->ngates].b = b;
	s->ngates++;
}

/*
 * An if whose body ends in return or goto is a gate for the code after it
 * (comedi_open's "if (!capable(..) && ..) { ..; return -ENODEV; }"). A body
 * that falls through, as the fixed dev_load's "if (no_module &&
 * capable(CAP_NET_ADMIN)) no_module = request_module(..)", gates nothing.
 */
static void parse_if(struct scan *s, size_t lim)
{
	size_t a, b;

	s->pos++;
	if (!paren_cond(s, lim, &a, &b))
		return;
	push_guard(s, a, b, false);
	parse_stmt(s, lim);
	s->nguards--;
	if (s->last_exit)
		add_gate(s, a, b);
	if (tok_is(s, s->pos, "else") && s->pos < lim) {
		s->pos++;
		push_guard(s, a, b, true);
		parse_stmt(s, lim);
		s->nguards--;
	}
	s->last_exit = false;
}

static void parse_loop(struct scan *s, size_t lim, bool guards)
{
	size_t a, b;

	s->pos++;
	if (!paren_cond(s, lim, &a, &b))
		return;
	if (guards)
		push_guard(s, a, b, false);
	parse_stmt(s, lim);
	if (guards)
		s->nguards--;
	s->last_exit = false;
}

static void parse_do(struct scan *s, size_t lim)
{
	size_t a, b;

	s->pos++;
	parse_stmt(s, lim);
	if (tok_is(s, s->pos, "while") && s->pos < lim) {
		s->pos++;
		if (paren_cond(s, lim, &a, &b) && tok_is(s, s->pos, ";") &&
		    s->pos < lim)
			s->pos++;
	}
	s->last_exit = false;
}

/*
 * Expression statements and declarations, up to ";". A statement that is
 * "NAME(...) {" is a loop macro (list_for_each_entry): its block is
 * parsed as statements.
 */
static void parse_simple(struct scan *s, size_t lim)
{
	size_t start = s->pos, i = start, next;

	while (i < lim && !tok_is(s, i, ";")) {
		next = is_open(s, i) ? skip_group(s, i, lim) : i + 1;
		if (i == start + 1 && s->toks[start].type == T_IDENT &&
		    tok_is(s, i, "(") && next < lim && tok_is(s, next, "{")) {
			scan_calls(s, start, next);
			s->pos = next;
			parse_stmt(s, lim);
			s->last_exit = false;
			return;
		}
		i = next;
	}
	scan_calls(s, start, i);
	s->last_exit = tok_is(s, start, "return") || tok_is(s, start, "goto");
	s->pos = i < lim ? i + 1 : lim;
}

static void parse_label(struct scan *s, size_t lim)
{
	size_t i = s->pos;

	while (i < lim && !tok_is(s, i, ":"))
		i = is_open(s, i) ? skip_group(s, i, lim) : i + 1;
	s->pos = i < lim ? i + 1 : lim;
	parse_stmt(s, lim);
}

static void parse_else(struct scan *s, size_t lim)
{
	s->pos++;
	parse_stmt(s, lim);
}

static void parse_stmt(struct scan *s, size_t lim)
{
	size_t p = s->pos;

	if (p >= lim || s->err)
		return;
	if (s->nest >= MAX_NEST) {
		parse_simple(s, lim);
		return;
	}
	s->nest++;
	if (tok_is(s, p, "{"))
		parse_block(s, lim);
	else if (tok_is(s, p, "if"))
		parse_if(s, lim);
	else if (tok_is(s, p, "while") || tok_is(s, p, "for"))
		parse_loop(s, lim, true);
	else if (tok_is(s, p, "switch"))
		parse_loop(s, lim, false);
	else if (tok_is(s, p, "do"))
		parse_do(s, lim);
	else if (tok_is(s, p, "else"))	/* stray, after #ifdef'd code */
		parse_else(s, lim);
	else if (tok_is(s, p, "case") || tok_is(s, p, "default") ||
		 (s->toks[p].type == T_IDENT && tok_is(s, p + 1, ":")))
		parse_label(s, lim);
	else
		parse_simple(s, lim);
	s->nest--;
}

/* ---- file scope --------------------------------------------------- */

/*
 * The last NAME(...) of the declaration that is not an annotation:
 * "static int __init foo(void)", "void foo(void) __releases(x)",
 * "SYSCALL_DEFINE2(...)".
 */
static size_t function_name(const struct scan *s, size_t a, size_t b)
{
	size_t name = SIZE_MAX;

	while (a < b) {
		if (s->toks[a].type == T_IDENT && tok_is(s, a + 1, "(")) {
			if (!in_list(s->code + s->toks[a].off, s->toks[a].len,
				     annotations, ARRAY_SIZE(annotations)))
				name = a;
			a = skip_group(s, a + 1, b);
		} else {
			a = is_open(s, a) ? skip_group(s, a, b) : a + 1;
		}
	}
	return name;
}

static void parse_function(struct scan *s, size_t decl, size_t brace)
{
	s->fname = function_name(s, decl, brace);
	s->ngates = 0;
	s->nguards = 0;
	s->nest = 0;
	s->pos = brace;
	parse_block(s, s->ntoks);
}

/* Only function bodies hold calls: prototypes and initializers do not. */
static void parse_file(struct scan *s)
{
	size_t i = 0, decl = 0;

	while (i < s->ntoks && !s->err) {
		if (tok_is(s, i, "{")) {
			if (i > decl && tok_is(s, i - 1, ")")) {
				parse_function(s, decl, i);
				i = s->pos;
			} else {
				i = skip_group(s, i, s->ntoks);
			}
			decl = i;
		} else if (tok_is(s, i, "(") || tok_is(s, i, "[")) {
			i = skip_group(s, i, s->ntoks);
		} else {
			i++;
			if (tok_is(s, i - 1, ";") || tok_is(s, i - 1, "}"))
				decl = i;
		}
	}
}

static void scan_release(struct scan *s)
{
	free(s->code);
	free(s->groups);
	free(s->marks);
	free(s->toks);
	free(s->match);
	free(s->gates);
}

/* Files that name no callee are not tokenized. */
static bool names_callee(const struct kb_audit_rules *rules, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < rules->ncallees; i++)
		if (memmem(buf, len, rules->callees[i].name, strlen(rules->callees[i].name)))
			return true;
	return false;
}

int kb_audit_scan(struct kb_call **calls, size_t *n, const struct kb_audit_rules *rules,
		  const char *path, const char *buf, size_t len)
{
	struct scan s;
	size_t n0 = *n;
	int err;

	if (!len || !names_callee(rules, buf, len))
		return 0;
	memset(&s, 0, sizeof(s));
	s.rules = rules;
	s.src = buf;
	s.len = len;
	s.calls = calls;
	s.n = n;
	s.acalls = *n;
	s.path = path;
	s.line_no = 1;
	if ((err = make_code_view(&s)) < 0 || (err = tokenize(&s)) < 0 ||
	    (err = match_brackets(&s)) < 0)
		goto done;
	parse_file(&s);
	err = s.err;
done:
	if (err < 0) {
		while (*n > n0)
			call_release(&(*calls)[--*n]);
		kb_error_prefix(err, "cannot scan '%s'", path ? path : "<buffer>");
	}
	scan_release(&s);
	return err;
}

bool kb_call_guarded(const struct kb_call *call, const struct kb_audit_rules *rules)
{
	size_t i;

	for (i = 0; i < call->ncaps; i++)
		if (!strcmp(call->caps[i], rules->capability))
			return true;
	return false;
}

bool kb_call_flagged(const struct kb_call *call, const struct kb_audit_rules *rules)
{
	if ((rules->flag_format == KB_AUDIT_BARE && !call->bare) ||
	    (rules->flag_format == KB_AUDIT_PREFIX && call->bare))
		return false;
	if (rules->flag_guard != KB_GUARD_NONE && call->guard != rules->flag_guard)
		return false;
	if (rules->flag_prefix && (!call->prefix || strcmp(call->prefix, rules->flag_prefix)))
		return false;
	return kb_call_guarded(call, rules);
}

void kb_calls_free(struct kb_call *calls, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		call_release(&calls[i]);
	free(calls);
}

/* ---- trees and the blob cache ------------------------------------- */

struct cache_slot {
	git_oid oid;
	bool used;
	struct kb_call *calls;	/* path NULL: filled in on each hit */
	size_t n;
};

/* Open addressing, linear probing; blob ids are already uniform. */
struct kb_audit_cache {
	struct cache_slot *slots;
	size_t nslots;		/* a power of two, or 0 */
	size_t count;
	size_t hits;
};

int kb_audit_cache_new(struct kb_audit_cache **out)
{
	*out = calloc(1, sizeof(**out));
	KB_ERROR_CHECK_ALLOC(*out);
	return 0;
}

void kb_audit_cache_free(struct kb_audit_cache *cache)
{
	size_t i;

	if (!cache)
		return;
	for (i = 0; i < cache->nslots; i++)
		if (cache->slots[i].used)
			kb_calls_free(cache->slots[i].calls, cache->slots[i].n);
	free(cache->slots);
	free(cache);
}

size_t kb_audit_cache_hits(const struct kb_audit_cache *cache)
{
	return cache ? cache->hits : 0;
}

static struct cache_slot *cache_slot(struct cache_slot *slots, size_t nslots,
				     const git_oid *oid)
{
	size_t h;

	memcpy(&h, oid->id, sizeof(h));
	for (h &= nslots - 1; slots[h].used; h = (h + 1) & (nslots - 1))
		if (git_oid_equal(&slots[h].oid, oid))
			break;
	return &slots[h];
}

static int cache_grow(struct kb_audit_cache *cache)
{
	size_t nslots = cache->nslots ? cache->nslots * 2 : 1024, i;
	struct cache_slot *slots;

	slots = calloc(nslots, sizeof(*slots));
	KB_ERROR_CHECK_ALLOC(slots);
	for (i = 0; i < cache->nslots; i++)
		if (cache->slots[i].used)
			*cache_slot(slots, nslots, &cache->slots[i].oid) =
				cache->slots[i];
	free(cache->slots);
	cache->slots = slots;
	cache->nslots = nslots;
	return 0;
}

static struct cache_slot *cache_find(struct kb_audit_cache *cache,
				     const git_oid *oid)
{
	struct cache_slot *slot;

	if (!cache->nslots)
		return NULL;
	slot = cache_slot(cache->slots, cache->nslots, oid);
	return slot->used ? slot : NULL;
}

/* Takes `calls` in every case. */
static int cache_add(struct kb_audit_cache *cache, const git_oid *oid,
		     struct kb_call *calls, size_t n)
{
	struct cache_slot *slot;
	int err;

	if ((cache->count + 1) * 2 > cache->nslots &&
	    (err = cache_grow(cache)) < 0) {
		kb_calls_free(calls, n);
		return err;
	}
	slot = cache_slot(cache->slots, cache->nslots, oid);
	git_oid_cpy(&slot->oid, oid);
	slot->used = true;
	slot->calls = calls;
	slot->n = n;
	cache->count++;
	return 0;
}

static int call_copy(struct kb_call *dst, const struct kb_call *src,
		     const char *path)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	dst->line = src->line;
	dst->bare = src->bare;
	dst->guard = src->guard;
	if (!(dst->path = kb_strdup(path)) ||
	    (src->function && !(dst->function = kb_strdup(src->function))) ||
	    !(dst->callee = kb_strdup(src->callee)) ||
	    (src->format && !(dst->format = kb_strdup(src->format))) ||
	    (src->prefix && !(dst->prefix = kb_strdup(src->prefix))) ||
	    (src->conditional &&
	     !(dst->conditional = kb_strdup(src->conditional))) ||
	    (src->ncaps && !(dst->caps = calloc(src->ncaps, sizeof(char *)))))
		return kb_error_oom();
	for (i = 0; i < src->ncaps; i++, dst->ncaps++)
		KB_ERROR_CHECK_ALLOC(dst->caps[i] = kb_strdup(src->caps[i]));
	return 0;
}

struct walk {
	git_repository *repo;
	const char *const *prefixes;
	size_t nprefixes;
	const struct kb_audit_rules *rules;
	struct kb_audit_cache *cache;
	struct kb_call *calls;	/* this walk's results */
	size_t n, alloc;
	struct kb_buf path;
	int err;
};

static int walk_append(struct walk *w, const struct kb_call *calls, size_t n,
		       const char *path)
{
	size_t i;
	int err;

	if ((err = KB_ARRAY_GROW(w->calls, w->alloc, w->n + n)) < 0)
		return err;
	for (i = 0; i < n; i++) {
		err = call_copy(&w->calls[w->n], &calls[i], path);
		w->n++;		/* a partial copy is freed with the rest */
		if (err < 0)
			return err;
	}
	return 0;
}

/* A blob not seen before: read, scan, remember. */
static int scan_blob(struct walk *w, const git_oid *oid, const char *path)
{
	struct kb_call *found = NULL;
	size_t nfound = 0;
	git_blob *blob = NULL;
	int err;

	if ((err = git_blob_lookup(&blob, w->repo, oid)) < 0) {
		err = kb_error_git(err, "cannot read '%s'", path);
		goto done;
	}
	if (!git_blob_is_binary(blob) &&
	    (err = kb_audit_scan(&found, &nfound, w->rules, NULL,
				 git_blob_rawcontent(blob),
				 (size_t)git_blob_rawsize(blob))) < 0)
		goto done;
	err = walk_append(w, found, nfound, path);
	if (w->cache && err == 0) {
		err = cache_add(w->cache, oid, found, nfound);
		found = NULL;
		nfound = 0;
	}
done:
	kb_calls_free(found, nfound);
	git_blob_free(blob);
	return err;
}

static int visit_blob(struct walk *w, const git_oid *oid, const char *path)
{
	struct cache_slot *slot;

	if (w->cache && (slot = cache_find(w->cache, oid))) {
		w->cache->hits++;
		return walk_append(w, slot->calls, slot->n, path);
	}
	return scan_blob(w, oid, path);
}

/* A file must start with a prefix; a directory ("net/") must be able to
 * hold such a file: one of the two starts with the other. */
static bool wanted(const struct walk *w, const char *path, bool dir)
{
	size_t i, plen = strlen(path);

	if (!w->nprefixes)
		return true;
	for (i = 0; i < w->nprefixes; i++) {
		size_t len = strlen(w->prefixes[i]);

		if (dir && len > plen)
			len = plen;
		if (!strncmp(path, w->prefixes[i], len))
			return true;
	}
	return false;
}

static bool is_c_file(const char *path)
{
	size_t len = strlen(path);

	return len > 2 && !strcmp(path + len - 2, ".c");
}

/* Subtrees no prefix can reach are skipped (1), not walked. */
static int walk_cb(const char *root, const git_tree_entry *entry, void *data)
{
	struct walk *w = data;
	git_object_t type = git_tree_entry_type(entry);
	int err;

	kb_buf_clear(&w->path);
	kb_buf_puts(&w->path, root);
	kb_buf_puts(&w->path, git_tree_entry_name(entry));
	if (type == GIT_OBJECT_TREE)
		kb_buf_putc(&w->path, '/');
	if ((err = kb_buf_check(&w->path)) < 0)
		goto done;
	if (type == GIT_OBJECT_TREE)
		return wanted(w, w->path.ptr, true) ? 0 : 1;
	if (type != GIT_OBJECT_BLOB ||
	    git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK ||
	    !is_c_file(w->path.ptr) || !wanted(w, w->path.ptr, false))
		return 0;
	err = visit_blob(w, git_tree_entry_id(entry), w->path.ptr);
done:
	if (err < 0) {
		w->err = err;
		return -1;
	}
	return 0;
}

static int cmp_call_ptr(const void *a, const void *b)
{
	const struct kb_call *x = *(const struct kb_call *const *)a;
	const struct kb_call *y = *(const struct kb_call *const *)b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x < y ? -1 : x > y;	/* stable: calls on one line */
}

/* Moves the walk's results, sorted, to the end of *calls. */
static int append_sorted(struct kb_call **calls, size_t *n, struct walk *w)
{
	struct kb_call **order = NULL, *p;
	size_t i;
	int err = 0;

	if (!w->n)
		return 0;
	if (!(order = malloc(w->n * sizeof(*order))) ||
	    !(p = realloc(*calls, (*n + w->n) * sizeof(*p)))) {
		err = kb_error_oom();
		goto done;
	}
	*calls = p;
	for (i = 0; i < w->n; i++)
		order[i] = &w->calls[i];
	if (w->n > 1)
		qsort(order, w->n, sizeof(*order), cmp_call_ptr);
	for (i = 0; i < w->n; i++)
		p[(*n)++] = *order[i];
	free(w->calls);
	w->calls = NULL;
	w->n = 0;
done:
	free(order);
	return err;
}

int kb_audit_tree(struct kb_call **calls, size_t *n, git_repository *repo,
		  git_tree *tree, const char *const *prefixes, size_t nprefixes,
		  const struct kb_audit_rules *rules, struct kb_audit_cache *cache)
{
	struct walk w;
	int err;

	memset(&w, 0, sizeof(w));
	w.repo = repo;
	w.prefixes = prefixes;
	w.nprefixes = nprefixes;
	w.rules = rules;
	w.cache = cache;
	if ((err = git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &w)) < 0) {
		err = w.err ? w.err : kb_error_git(err, "cannot walk tree");
		goto done;
	}
	err = append_sorted(calls, n, &w);
done:
	kb_calls_free(w.calls, w.n);
	kb_buf_release(&w.path);
	return err;
}
