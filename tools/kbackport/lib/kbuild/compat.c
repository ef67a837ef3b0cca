#include "kbuild/compat.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
	const char *word;
	enum kb_compat_op op;
	unsigned nargs;
	bool condition;
} ops[] = {
	{ "exists", KB_COMPAT_EXISTS, 1, true },
	{ "absent", KB_COMPAT_ABSENT, 1, true },
	{ "contains", KB_COMPAT_CONTAINS, 2, true },
	{ "lacks", KB_COMPAT_LACKS, 2, true },
	{ "copy", KB_COMPAT_COPY, 2, false },
	{ "add", KB_COMPAT_ADD, 2, false },
	{ "replace", KB_COMPAT_REPLACE, 3, false },
	{ "append", KB_COMPAT_APPEND, 2, false },
	{ "cc-flags", KB_COMPAT_CC_FLAGS, 1, false },
};

/* ---- reading the rules ---- */

static void step_release(struct kb_compat_step *s)
{
	free(s->arg[0]);
	free(s->arg[1]);
	free(s->arg[2]);
	free(s->data);
}

void kb_compat_free(struct kb_compat *compat)
{
	size_t i, j;

	if (!compat)
		return;
	for (i = 0; i < compat->n; i++) {
		struct kb_compat_rule *r = &compat->rules[i];
		for (j = 0; j < r->nwhen; j++)
			step_release(&r->when[j]);
		for (j = 0; j < r->nactions; j++)
			step_release(&r->actions[j]);
		free(r->when);
		free(r->actions);
		free(r->name);
	}
	free(compat->rules);
	free(compat->path);
	free(compat);
}

/* The next word of *p (quoted or not), malloc'ed in *out; NULL at the end. */
static int next_word(char **out, const char **p)
{
	struct kb_buf w = KB_BUF_INIT;
	const char *s = *p + strspn(*p, " \t");
	char c;
	int err = 0;

	*out = NULL;
	if (!*s || *s == '\n') {
		*p = s;
		return 0;
	}
	if (*s != '"') {
		size_t n = strcspn(s, " \t\n");
		*out = kb_strndup(s, n);
		*p = s + n;
		return *out ? 0 : kb_error_oom();
	}
	for (s++; !err && *s && *s != '"' && *s != '\n'; s++) {
		c = *s;
		if (c == '\\' && s[1] && s[1] != '\n') {
			c = *++s;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		}
		err = kb_buf_put(&w, &c, 1);
	}
	if (!err && *s != '"')
		err = KB_EINVALID;	/* no closing quote */
	if (!err && !w.ptr)
		err = kb_buf_puts(&w, "");
	*p = *s ? s + 1 : s;
	if (err)
		kb_buf_release(&w);
	else
		*out = kb_buf_detach(&w);
	return err;
}

static int read_add_file(struct kb_compat_step *s, const char *rules_path)
{
	const char *slash = strrchr(rules_path, '/');
	struct kb_buf file = KB_BUF_INIT;
	struct stat st;
	int err;

	if (kb_buf_printf(&file, "%.*s%s", slash ? (int)(slash - rules_path + 1) : 0,
			  rules_path, s->arg[1]) < 0)
		return kb_error_oom();
	if ((err = kb_read_file(&s->data, &s->len, file.ptr)) < 0)
		err = kb_error_prefix(err, "%s:%u: cannot read '%s'", rules_path, s->line,
				      file.ptr);
	else if (stat(file.ptr, &st) == 0)
		s->executable = (st.st_mode & 0111) != 0;
	kb_buf_release(&file);
	return err;
}

static int add_step(struct kb_compat_rule *r, unsigned op, char **words, unsigned line,
		    const char *path)
{
	struct kb_compat_step **v = ops[op].condition ? &r->when : &r->actions, *s;
	size_t *n = ops[op].condition ? &r->nwhen : &r->nactions;
	size_t *alloc = ops[op].condition ? &r->awhen : &r->aactions;
	unsigned i;
	int err;

	if ((err = KB_ARRAY_GROW(*v, *alloc, *n + 1)) < 0)
		return err;
	s = memset(&(*v)[(*n)++], 0, sizeof(*s));
	s->op = ops[op].op;
	s->line = line;
	for (i = 0; i < ops[op].nargs; i++) {
		s->arg[i] = words[i + 1];
		words[i + 1] = NULL;
	}
	return s->op == KB_COMPAT_ADD ? read_add_file(s, path) : 0;
}

/* One line: "rule NAME" starts a rule, anything else is a step of it. */
static int parse_line(struct kb_compat *c, const char *text, unsigned line)
{
	char *words[5] = { NULL };
	unsigned n = 0, op;
	int err = 0;

	while (!err && n < 5 && (err = next_word(&words[n], &text)) == 0 && words[n])
		n++;
	if (err == KB_EINVALID)
		err = kb_error_set(err, "%s:%u: a quote is not closed", c->path, line);
	else if (!err && n == 5)
		err = kb_error_set(KB_EINVALID, "%s:%u: too many words", c->path, line);
	if (err || n == 0)
		goto done;
	if (!strcmp(words[0], "rule")) {
		struct kb_compat_rule *r;
		if (n != 2) {
			err = kb_error_set(KB_EINVALID, "%s:%u: 'rule' takes a name", c->path, line);
			goto done;
		}
		if ((err = KB_ARRAY_GROW(c->rules, c->alloc, c->n + 1)) < 0)
			goto done;
		r = memset(&c->rules[c->n++], 0, sizeof(*r));
		r->name = words[1];
		r->line = line;
		words[1] = NULL;
		goto done;
	}
	for (op = 0; op < sizeof(ops) / sizeof(ops[0]) && strcmp(ops[op].word, words[0]); op++)
		;
	if (op == sizeof(ops) / sizeof(ops[0]))
		err = kb_error_set(KB_EINVALID, "%s:%u: unknown word '%s'", c->path, line, words[0]);
	else if (!c->n)
		err = kb_error_set(KB_EINVALID, "%s:%u: '%s' before any rule", c->path, line,
				   words[0]);
	else if (n - 1 != ops[op].nargs)
		err = kb_error_set(KB_EINVALID, "%s:%u: '%s' takes %u arguments, not %u", c->path,
				   line, words[0], ops[op].nargs, n - 1);
	else
		err = add_step(&c->rules[c->n - 1], op, words, line, c->path);
done:
	while (n-- > 0)
		free(words[n]);
	return err;
}

static int check_rules(const struct kb_compat *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!c->rules[i].nwhen || !c->rules[i].nactions)
			return kb_error_set(KB_EINVALID, "%s:%u: rule '%s' needs a condition and "
					    "an action", c->path, c->rules[i].line, c->rules[i].name);
	return 0;
}

int kb_compat_load(struct kb_compat **out, const char *path)
{
	struct kb_compat *c = calloc(1, sizeof(*c));
	char *text = NULL, *p, *nl;
	unsigned line = 0;
	int err;

	*out = NULL;
	if (!c || !(c->path = kb_strdup(path))) {
		free(c);
		return kb_error_oom();
	}
	if ((err = kb_read_file(&text, NULL, path)) < 0) {
		err = kb_error_prefix(err, "cannot read build rules '%s'", path);
		goto done;
	}
	for (p = text; !err && p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		line++;
		if (p[strspn(p, " \t")] != '#')
			err = parse_line(c, p, line);
	}
	if (!err)
		err = check_rules(c);
done:
	free(text);
	if (err < 0)
		kb_compat_free(c);
	else
		*out = c;
	return err;
}

/* ---- trees ---- */

/* The blob at `path` of `tree` (malloc'ed, NUL-terminated); 1 when there is none. */
static int read_blob(char **out, size_t *len, git_filemode_t *mode, git_repository *repo,
		     const git_oid *tree_id, const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int err;

	*out = NULL;
	if ((err = git_tree_lookup(&tree, repo, tree_id)) < 0) {
		err = kb_error_git(err, "cannot read tree");
		goto done;
	}
	if (git_tree_entry_bypath(&e, tree, path) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		err = 1;
		goto done;
	}
	if ((err = git_blob_lookup(&blob, repo, git_tree_entry_id(e))) < 0) {
		err = kb_error_git(err, "cannot read '%s'", path);
		goto done;
	}
	*len = (size_t)git_blob_rawsize(blob);
	if (mode)
		*mode = git_tree_entry_filemode(e);
	if (!(*out = kb_strndup(git_blob_rawcontent(blob), *len)))
		err = kb_error_oom();
done:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return err;
}

static int holds(bool *out, const struct kb_compat_step *s, git_repository *repo,
		 const git_oid *tree)
{
	char *data = NULL;
	size_t len = 0;
	int err = read_blob(&data, &len, NULL, repo, tree, s->arg[0]);

	if (err < 0)
		return err;
	switch (s->op) {
	case KB_COMPAT_EXISTS: *out = err == 0; break;
	case KB_COMPAT_ABSENT: *out = err == 1; break;
	case KB_COMPAT_CONTAINS: *out = err == 0 && strstr(data, s->arg[1]); break;
	case KB_COMPAT_LACKS: *out = err == 0 && !strstr(data, s->arg[1]); break;
	default: *out = false; break;
	}
	free(data);
	return 0;
}

int kb_compat_select(bool *out, git_repository *repo, const git_oid *tree,
		     const struct kb_compat *compat)
{
	size_t i, j;
	int err = 0;

	for (i = 0; i < compat->n; i++) {
		const struct kb_compat_rule *r = &compat->rules[i];
		out[i] = true;
		for (j = 0; j < r->nwhen && out[i]; j++)
			if ((err = holds(&out[i], &r->when[j], repo, tree)) < 0)
				return err;
	}
	return 0;
}

/* `tree` with `path` set to `data`: the new tree in *tree. */
static int put(git_oid *tree, git_repository *repo, const char *path, const char *data,
	       size_t len, git_filemode_t mode)
{
	git_tree_update up;
	git_tree *base = NULL;
	int err;

	memset(&up, 0, sizeof(up));
	up.action = GIT_TREE_UPDATE_UPSERT;
	up.filemode = mode;
	up.path = path;
	if ((err = git_blob_create_from_buffer(&up.id, repo, data, len)) < 0 ||
	    (err = git_tree_lookup(&base, repo, tree)) < 0 ||
	    (err = git_tree_create_updated(tree, repo, base, 1, &up)) < 0)
		err = kb_error_git(err, "cannot write '%s'", path);
	git_tree_free(base);
	return err;
}

/* Every OLD of `data` made NEW, into `out`; how many there were. */
static size_t replace_all(struct kb_buf *out, const char *data, const char *old,
			  const char *new)
{
	const char *p = data, *hit;
	size_t n = 0;

	while (*old && (hit = strstr(p, old))) {
		kb_buf_put(out, p, (size_t)(hit - p));
		kb_buf_puts(out, new);
		p = hit + strlen(old);
		n++;
	}
	kb_buf_puts(out, p);
	return n;
}

static int act(git_oid *tree, struct kb_buf *cc, const struct kb_compat_step *s,
	       git_repository *repo)
{
	struct kb_buf text = KB_BUF_INIT;
	git_filemode_t mode = GIT_FILEMODE_BLOB;
	char *data = NULL;
	size_t len = 0;
	int err = 0;

	if (s->op == KB_COMPAT_CC_FLAGS)
		return kb_buf_printf(cc, "%s%s", cc->size ? " " : "", s->arg[0]);
	if (s->op == KB_COMPAT_ADD)
		return put(tree, repo, s->arg[0], s->data, s->len,
			   s->executable ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB);
	if ((err = read_blob(&data, &len, &mode, repo, tree, s->arg[0])) != 0) {
		if (err == 1)
			err = kb_error_set(KB_ENOTFOUND, "line %u: no file '%s'", s->line, s->arg[0]);
		return err;
	}
	if (s->op == KB_COMPAT_COPY)
		err = put(tree, repo, s->arg[1], data, len, mode);
	else if (s->op == KB_COMPAT_APPEND) {
		kb_buf_put(&text, data, len);
		kb_buf_puts(&text, s->arg[1]);
		if ((err = kb_buf_check(&text)) == 0)
			err = put(tree, repo, s->arg[0], text.ptr, text.size, mode);
	} else if (!replace_all(&text, data, s->arg[1], s->arg[2]))
		err = kb_error_set(KB_ENOTFOUND, "line %u: '%s' has no '%s'", s->line, s->arg[0],
				   s->arg[1]);
	else
		err = put(tree, repo, s->arg[0], text.ptr, text.size, mode);
	free(data);
	kb_buf_release(&text);
	return err;
}

static int describe(struct kb_buf *log, const struct kb_compat *c,
		    const struct kb_compat_rule *r)
{
	static const char *const verbs[] = {
		[KB_COMPAT_COPY] = "copy", [KB_COMPAT_ADD] = "add", [KB_COMPAT_REPLACE] = "replace",
		[KB_COMPAT_APPEND] = "append to", [KB_COMPAT_CC_FLAGS] = "CC +=",
	};
	size_t i;

	kb_buf_printf(log, "compat rule '%s' (%s:%u):", r->name, c->path, r->line);
	for (i = 0; i < r->nactions; i++)
		kb_buf_printf(log, "%s %s %s", i ? ";" : "", verbs[r->actions[i].op],
			      r->actions[i].arg[0]);
	return kb_buf_puts(log, "\n");
}

int kb_compat_apply(struct kb_compat_result *out, git_repository *repo,
		    const git_oid *tree, const struct kb_compat *compat)
{
	struct kb_buf cc = KB_BUF_INIT, log = KB_BUF_INIT;
	bool *on = calloc(compat->n + 1, sizeof(*on));
	size_t i, j;
	int err;

	memset(out, 0, sizeof(*out));
	git_oid_cpy(&out->tree, tree);
	KB_ERROR_CHECK_ALLOC(on);
	err = kb_compat_select(on, repo, tree, compat);
	for (i = 0; i < compat->n && !err; i++) {
		const struct kb_compat_rule *r = &compat->rules[i];
		for (j = 0; j < r->nactions && on[i] && !err; j++)
			if ((err = act(&out->tree, &cc, &r->actions[j], repo)) < 0)
				err = kb_error_prefix(err, "build rule '%s' (%s:%u)", r->name,
						      compat->path, r->line);
		if (!err && on[i])
			err = describe(&log, compat, r);
	}
	if (!err) {
		out->cc_flags = cc.size ? kb_buf_detach(&cc) : NULL;
		out->log = log.size ? kb_buf_detach(&log) : NULL;
	}
	free(on);
	kb_buf_release(&cc);
	kb_buf_release(&log);
	return err;
}

void kb_compat_result_release(struct kb_compat_result *result)
{
	free(result->cc_flags);
	free(result->log);
	memset(result, 0, sizeof(*result));
}
