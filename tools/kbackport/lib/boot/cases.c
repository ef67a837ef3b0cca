/*
 * tests/cases.yaml -> struct kb_cases, in the shape of config.c: fixed keys
 * through kb_yaml_dispatch, name-keyed mappings (suites, cases) walked here.
 */
#include "boot/cases.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/kbyaml.h"

#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct loader {
	struct kb_yaml y;
	struct kb_cases *cases;
	yaml_node_t *suites;
};

static size_t count_pairs(const yaml_node_t *map)
{
	return (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
}

static int need_mapping(struct loader *l, yaml_node_t *node, const char *what)
{
	if (node->type == YAML_MAPPING_NODE)
		return 0;
	return kb_yaml_error(&l->y, node, KB_EINVALID, "%s must be a mapping, not %s", what,
			     kb_yaml_kind(node));
}

/* ---- one case ---- */

static int add_proves(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	return kb_yaml_dup_string(&((struct kb_case *)obj)->proves, &l->y, value, "proves");
}

/* A list of strings into a NULL-terminated array. */
static int string_list(char ***out, size_t *n, struct loader *l, yaml_node_t *value,
		       const char *key, const char *what)
{
	yaml_node_item_t *item;
	int err;

	if (value->type != YAML_SEQUENCE_NODE)
		return kb_yaml_error(&l->y, value, KB_EINVALID, "'%s' must be a list of %ss, not %s",
				     key, what, kb_yaml_kind(value));
	if (!(*out = calloc((size_t)(value->data.sequence.items.top -
				     value->data.sequence.items.start) + 1, sizeof(char *))))
		return kb_error_oom();
	for (item = value->data.sequence.items.start; item < value->data.sequence.items.top; item++)
		if ((err = kb_yaml_dup_string(&(*out)[(*n)++], &l->y,
					      kb_yaml_node(&l->y, *item), what)) < 0)
			return err;
	return 0;
}

static int add_detects(void *ctx, void *obj, yaml_node_t *value)
{
	struct kb_case *c = obj;
	return string_list(&c->detects, &c->ndetects, ctx, value, "detects", "fix id");
}

/* The guest's words (data/guest/guest.c), with how many words follow each. */
struct verb {
	const char *name;
	unsigned min, max;
};

static const struct verb step_verbs[] = {
	{ "load", 1, 1 }, { "userns", 0, 0 }, { "move", 1, 1 }, { "caps", 1, 1 },
	{ "ifflags", 1, 1 }, { "tcp-congestion", 1, 1 }, { "link-add", 2, 15 },
	{ "link-change", 2, 15 }, { "link-del", 1, 1 },
};

static const struct verb expect_verbs[] = {
	{ "errno", 1, 1 }, { "loaded", 1, 1 }, { "not-loaded", 1, 1 }, { "nothing-new", 0, 0 },
};

/* `line`: a known verb of `verbs` and its number of words, printable words only. */
static int check_words(struct loader *l, yaml_node_t *node, const char *line,
		       const struct verb *verbs, size_t n, const char *what)
{
	size_t len = strcspn(line, " "), i, words = 0;
	const char *p;

	for (p = line; *p; p++)
		if ((unsigned char)*p < 0x21 && *p != ' ')
			return kb_yaml_error(&l->y, node, KB_EINVALID,
					     "%s '%s': only printable words, separated by spaces", what,
					     line);
	for (p = line + len; *(p += strspn(p, " ")); p += strcspn(p, " "))
		words++;
	for (i = 0; i < n; i++)
		if (strlen(verbs[i].name) == len && !strncmp(verbs[i].name, line, len))
			break;
	if (i == n)
		return kb_yaml_error(&l->y, node, KB_EINVALID, "%s '%s': no such %s", what, line,
				     what);
	if (words < verbs[i].min || words > verbs[i].max)
		return kb_yaml_error(&l->y, node, KB_EINVALID,
				     "%s '%s': '%s' takes %u to %u words, not %zu", what, line,
				     verbs[i].name, verbs[i].min, verbs[i].max, words);
	return 0;
}

static int add_steps(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_case *c = obj;
	yaml_node_item_t *item;
	size_t i = 0;
	int err;

	if ((err = string_list(&c->steps, &c->nsteps, l, value, "steps", "step")) < 0)
		return err;
	for (item = value->data.sequence.items.start; item < value->data.sequence.items.top;
	     item++, i++)
		if ((err = check_words(l, kb_yaml_node(&l->y, *item), c->steps[i], step_verbs,
				       ARRAY_SIZE(step_verbs), "step")) < 0)
			return err;
	return 0;
}

static int add_expect(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_case *c = obj;
	int err;

	if ((err = kb_yaml_dup_string(&c->expect, &l->y, value, "expect")) < 0)
		return err;
	return check_words(l, value, c->expect, expect_verbs, ARRAY_SIZE(expect_verbs),
			   "expectation");
}

static const struct kb_yaml_key case_keys[] = {
	{ "proves", add_proves },
	{ "detects", add_detects },
	{ "steps", add_steps },
	{ "expect", add_expect },
};

/* A guest case says what the guest does and expects; a KUnit case cannot. */
static int check_case_kind(struct loader *l, const struct kb_suite_decl *s,
			   const struct kb_case *c, yaml_node_t *map)
{
	if (s->runs == KB_RUNS_GUEST && !c->expect)
		return kb_yaml_error(&l->y, map, KB_EINVALID,
				     "guest case '%s' does not say what it should 'expect'", c->name);
	if (s->runs == KB_RUNS_KUNIT && (c->expect || c->steps))
		return kb_yaml_error(&l->y, map, KB_EINVALID,
				     "KUnit case '%s': 'steps' and 'expect' are for guest cases "
				     "(a KUnit case is C in the suite's source)", c->name);
	return 0;
}

/* Each case of `s` against where the suite runs (known once the suite is read). */
static int check_cases_kind(struct loader *l, const struct kb_suite_decl *s, yaml_node_t *map)
{
	yaml_node_pair_t *pair;
	yaml_node_t *cases = NULL;
	size_t i = 0;
	int err = 0;

	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++)
		if (!strcmp((const char *)kb_yaml_node(&l->y, pair->key)->data.scalar.value, "cases"))
			cases = kb_yaml_node(&l->y, pair->value);
	for (pair = cases->data.mapping.pairs.start;
	     pair < cases->data.mapping.pairs.top && i < s->ncases && !err; pair++, i++)
		err = check_case_kind(l, s, &s->cases[i], kb_yaml_node(&l->y, pair->value));
	return err;
}

static int add_case(struct loader *l, struct kb_suite_decl *s, yaml_node_pair_t *pair)
{
	yaml_node_t *key = kb_yaml_node(&l->y, pair->key), *map = kb_yaml_node(&l->y, pair->value);
	struct kb_case *c = &s->cases[s->ncases];
	int err;

	if ((err = kb_yaml_dup_string(&c->name, &l->y, key, "a case name")) < 0)
		return err;
	s->ncases++;	/* names are unique: the YAML loader rejects duplicate keys */
	if ((err = need_mapping(l, map, "a case")) < 0 ||
	    (err = kb_yaml_dispatch(&l->y, map, "case", case_keys, ARRAY_SIZE(case_keys), l, c)) < 0)
		return err;
	if (!c->proves)
		return kb_yaml_error(&l->y, map, KB_EINVALID,
				     "case '%s' does not say what it 'proves'", c->name);
	return 0;
}

/* ---- one suite ---- */

static int add_runs(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_suite_decl *s = obj;
	const char *v;
	int err;

	if ((err = kb_yaml_string(&v, &l->y, value, "runs")) < 0)
		return err;
	if (!strcmp(v, "kunit"))
		s->runs = KB_RUNS_KUNIT;
	else if (!strcmp(v, "guest"))
		s->runs = KB_RUNS_GUEST;
	else
		return kb_yaml_error(&l->y, value, KB_EINVALID,
				     "'runs' is 'kunit' or 'guest', not '%s'", v);
	return 0;
}

static int add_cases(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_suite_decl *s = obj;
	yaml_node_pair_t *pair;
	int err;

	if ((err = need_mapping(l, value, "'cases'")) < 0)
		return err;
	s->cases = calloc(count_pairs(value) + 1, sizeof(*s->cases));
	KB_ERROR_CHECK_ALLOC(s->cases);
	for (pair = value->data.mapping.pairs.start; pair < value->data.mapping.pairs.top; pair++)
		if ((err = add_case(l, s, pair)) < 0)
			return err;
	return 0;
}

static int add_modules(void *ctx, void *obj, yaml_node_t *value)
{
	struct kb_suite_decl *s = obj;
	return string_list(&s->modules, &s->nmodules, ctx, value, "modules", "module name");
}

static int add_probe(void *ctx, void *obj, yaml_node_t *value)
{
	struct kb_suite_decl *s = obj;
	return string_list(&s->probe, &s->nprobe, ctx, value, "probe", "module name");
}

static const struct kb_yaml_key suite_keys[] = {
	{ "runs", add_runs },
	{ "modules", add_modules },
	{ "probe", add_probe },
	{ "cases", add_cases },
};

static int add_suite(struct loader *l, yaml_node_pair_t *pair)
{
	struct kb_cases *cases = l->cases;
	yaml_node_t *key = kb_yaml_node(&l->y, pair->key), *map = kb_yaml_node(&l->y, pair->value);
	struct kb_suite_decl *s = &cases->suites[cases->nsuites];
	int err;

	s->runs = (enum kb_suite_runs)-1;
	if ((err = kb_yaml_dup_string(&s->name, &l->y, key, "a suite name")) < 0)
		return err;
	cases->nsuites++;
	if ((err = need_mapping(l, map, "a suite")) < 0 ||
	    (err = kb_yaml_dispatch(&l->y, map, "suite", suite_keys, ARRAY_SIZE(suite_keys), l, s)) < 0)
		return err;
	if (s->runs == (enum kb_suite_runs)-1)
		return kb_yaml_error(&l->y, map, KB_EINVALID,
				     "suite '%s' does not say where it 'runs' (kunit or guest)", s->name);
	if (!s->ncases)
		return kb_yaml_error(&l->y, map, KB_EINVALID, "suite '%s' has no 'cases'", s->name);
	return check_cases_kind(l, s, map);
}

static int remember_suites(void *ctx, void *obj, yaml_node_t *value)
{
	(void)obj;
	((struct loader *)ctx)->suites = value;
	return 0;
}

static const struct kb_yaml_key root_keys[] = {
	{ "suites", remember_suites },
};

static int parse_root(struct loader *l)
{
	yaml_node_t *root = kb_yaml_root(&l->y);
	yaml_node_pair_t *pair;
	int err;

	if (!root)
		return kb_error_set(KB_EINVALID, "%s: empty file", l->cases->path);
	if ((err = need_mapping(l, root, "the top level")) < 0 ||
	    (err = kb_yaml_dispatch(&l->y, root, "cases file", root_keys, ARRAY_SIZE(root_keys), l,
				    NULL)) < 0)
		return err;
	if (!l->suites)
		return kb_yaml_error(&l->y, root, KB_EINVALID, "no 'suites'");
	if ((err = need_mapping(l, l->suites, "'suites'")) < 0)
		return err;
	l->cases->suites = calloc(count_pairs(l->suites) + 1, sizeof(*l->cases->suites));
	KB_ERROR_CHECK_ALLOC(l->cases->suites);
	for (pair = l->suites->data.mapping.pairs.start; pair < l->suites->data.mapping.pairs.top;
	     pair++)
		if ((err = add_suite(l, pair)) < 0)
			return err;
	return 0;
}

int kb_cases_parse(struct kb_cases **out, const char *buf, size_t len, const char *path)
{
	struct loader l;
	int err;

	*out = NULL;
	memset(&l, 0, sizeof(l));
	if (!(l.cases = calloc(1, sizeof(*l.cases))) || !(l.cases->path = kb_strdup(path))) {
		err = kb_error_oom();
		goto done;
	}
	if ((err = kb_yaml_load(&l.y, buf, len, path)) < 0 || (err = parse_root(&l)) < 0)
		goto done;
	*out = l.cases;
	l.cases = NULL;
done:
	kb_yaml_release(&l.y);
	kb_cases_free(l.cases);
	return err;
}

int kb_cases_load(struct kb_cases **out, const char *path)
{
	char *buf = NULL;
	size_t len;
	int err;

	*out = NULL;
	if ((err = kb_read_file(&buf, &len, path)) < 0)
		return err;
	err = kb_cases_parse(out, buf, len, path);
	free(buf);
	return err;
}

/* Move the suites of `from` to the end of `into`; `from` keeps no suite. */
static int take_suites(struct kb_cases *into, struct kb_cases *from)
{
	struct kb_suite_decl *s;
	size_t i;

	for (i = 0; i < from->nsuites; i++)
		if (kb_cases_suite(into, from->suites[i].name))
			return kb_error_set(KB_EINVALID, "suite '%s' is in both '%s' and '%s'",
					    from->suites[i].name, into->path, from->path);
	s = realloc(into->suites, (into->nsuites + from->nsuites + 1) * sizeof(*s));
	KB_ERROR_CHECK_ALLOC(s);
	into->suites = s;
	memcpy(s + into->nsuites, from->suites, from->nsuites * sizeof(*s));
	into->nsuites += from->nsuites;
	memset(s + into->nsuites, 0, sizeof(*s));
	from->nsuites = 0;
	return 0;
}

int kb_cases_load_many(struct kb_cases **out, const char *const *paths, size_t n)
{
	struct kb_cases *all = NULL, *one = NULL;
	size_t i;
	int err = 0;

	*out = NULL;
	if (!n)
		return kb_error_set(KB_EINVALID, "no cases file");
	if ((err = kb_cases_load(&all, paths[0])) < 0)
		return err;
	for (i = 1; i < n && !err; i++) {
		if ((err = kb_cases_load(&one, paths[i])) == 0)
			err = take_suites(all, one);
		kb_cases_free(one);
		one = NULL;
	}
	if (err < 0)
		kb_cases_free(all);
	else
		*out = all;
	return err;
}

void kb_cases_free(struct kb_cases *cases)
{
	size_t s, c, d;

	if (!cases)
		return;
	for (s = 0; s < cases->nsuites; s++) {
		struct kb_suite_decl *suite = &cases->suites[s];
		for (c = 0; c < suite->ncases; c++) {
			for (d = 0; d < suite->cases[c].ndetects; d++)
				free(suite->cases[c].detects[d]);
			free(suite->cases[c].detects);
			for (d = 0; d < suite->cases[c].nsteps; d++)
				free(suite->cases[c].steps[d]);
			free(suite->cases[c].steps);
			free(suite->cases[c].expect);
			free(suite->cases[c].name);
			free(suite->cases[c].proves);
		}
		for (c = 0; c < suite->nmodules; c++)
			free(suite->modules[c]);
		free(suite->modules);
		for (c = 0; c < suite->nprobe; c++)
			free(suite->probe[c]);
		free(suite->probe);
		free(suite->cases);
		free(suite->name);
	}
	free(cases->suites);
	free(cases->path);
	free(cases);
}

const struct kb_suite_decl *kb_cases_suite(const struct kb_cases *cases, const char *name)
{
	size_t i;

	for (i = 0; i < cases->nsuites; i++)
		if (cases->suites[i].name && !strcmp(cases->suites[i].name, name))
			return &cases->suites[i];
	return NULL;
}

const struct kb_case *kb_suite_case(const struct kb_suite_decl *suite, const char *name)
{
	size_t i;

	for (i = 0; i < suite->ncases; i++)
		if (suite->cases[i].name && !strcmp(suite->cases[i].name, name))
			return &suite->cases[i];
	return NULL;
}

bool kb_case_detects(const struct kb_case *c, const char *fix_id)
{
	size_t i;

	for (i = 0; i < c->ndetects; i++)
		if (!strcmp(c->detects[i], fix_id))
			return true;
	return false;
}

bool kb_case_detects_any(const struct kb_case *c, const char *const *fix_ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (kb_case_detects(c, fix_ids[i]))
			return true;
	return false;
}

bool kb_cases_detect(const struct kb_cases *cases, const char *fix_id)
{
	size_t s, c;

	for (s = 0; s < cases->nsuites; s++)
		for (c = 0; c < cases->suites[s].ncases; c++)
			if (kb_case_detects(&cases->suites[s].cases[c], fix_id))
				return true;
	return false;
}

static int guest_suite_text(struct kb_buf *out, const struct kb_suite_decl *s)
{
	size_t c, i;

	kb_buf_printf(out, "suite %s\n", s->name);
	for (i = 0; i < s->nprobe; i++)
		kb_buf_printf(out, "%s%s%s", i ? " " : "probe ", s->probe[i],
			      i + 1 == s->nprobe ? "\n" : "");
	for (c = 0; c < s->ncases; c++) {
		const struct kb_case *k = &s->cases[c];

		kb_buf_printf(out, "case %s\n", k->name);
		for (i = 0; i < k->nsteps; i++)
			kb_buf_printf(out, "%s\n", k->steps[i]);
		kb_buf_printf(out, "expect %s\nend\n", k->expect);
	}
	return kb_buf_check(out);
}

int kb_cases_guest_text(char **out, const struct kb_cases *cases)
{
	struct kb_buf text = KB_BUF_INIT;
	size_t s;
	int err;

	*out = NULL;
	kb_buf_puts(&text, "# kbackport guest cases\n");
	for (s = 0; s < cases->nsuites; s++)
		if (cases->suites[s].runs == KB_RUNS_GUEST)
			guest_suite_text(&text, &cases->suites[s]);
	if ((err = kb_buf_check(&text)) == 0)
		*out = kb_buf_detach(&text);
	kb_buf_release(&text);
	return err;
}

const char *kb_suite_runs_name(enum kb_suite_runs runs)
{
	return runs == KB_RUNS_KUNIT ? "kunit" : "guest";
}
