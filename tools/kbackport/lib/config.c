/*
 * branches.yaml -> struct kb_config.
 *
 * As in kmod's config parser, one loop walks each mapping and dispatches
 * every key to a small add_* helper through a table; the table also gives
 * the list of expected keys for "unknown key" messages. Nothing is
 * defaulted until a mapping is complete, because keys come in any order.
 */
#include "config.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/kbyaml.h"

#include <errno.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct parser {
	struct kb_yaml y;
	struct kb_config *config;
	yaml_node_t *branches;	/* parsed after the loop: needs the default repo */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Relative paths are relative to the config file, not to the cwd. */
static int dup_path(char **out, struct parser *p, yaml_node_t *value,
		    const char *what)
{
	struct kb_buf buf = KB_BUF_INIT;
	const char *dir = p->config->dir;
	char *s = NULL;
	int err;

	if ((err = kb_yaml_dup_string(&s, &p->y, value, what)) < 0)
		return err;
	if (s[0] == '/') {
		*out = s;
		return 0;
	}
	err = kb_buf_printf(&buf, dir[strlen(dir) - 1] == '/' ? "%s%s" : "%s/%s",
			    dir, s);
	free(s);
	if (err < 0)
		return err;
	*out = kb_buf_detach(&buf);
	return *out ? 0 : kb_error_oom();
}


/* ---- mail: (a branch's or the top level's) ---- */

/* A header's text: one line, no control characters (no forged headers). */
static int dup_header(char **out, struct parser *p, yaml_node_t *value, const char *what)
{
	const unsigned char *c;
	int err;

	if ((err = kb_yaml_dup_string(out, &p->y, value, what)) < 0)
		return err;
	for (c = (const unsigned char *)*out; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return kb_yaml_error(&p->y, value, KB_EINVALID,
					     "'%s' must be one line without control characters", what);
	return 0;
}

static int add_mail_to(void *ctx, void *obj, yaml_node_t *value)
{
	return dup_header(&((struct kb_mail *)obj)->to, ctx, value, "mail.to");
}

static int add_mail_tree(void *ctx, void *obj, yaml_node_t *value)
{
	return dup_header(&((struct kb_mail *)obj)->tree, ctx, value, "mail.tree");
}

static int add_mail_send_to(void *ctx, void *obj, yaml_node_t *value)
{
	return dup_header(&((struct kb_mail *)obj)->send_to, ctx, value, "mail.send-to");
}

/* `cc: [a, b]`, or `cc: a`. */
static int add_mail_cc(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	struct kb_mail *m = obj;
	yaml_node_item_t *item;
	size_t n = 1;
	int err = 0;

	if (value->type == YAML_MAPPING_NODE)
		return kb_yaml_error(&p->y, value, KB_EINVALID,
				     "'mail.cc' must be a sequence of addresses, not a mapping");
	if (value->type == YAML_SEQUENCE_NODE)
		n = (size_t)(value->data.sequence.items.top - value->data.sequence.items.start);
	m->cc = calloc(n + 1, sizeof(*m->cc));
	KB_ERROR_CHECK_ALLOC(m->cc);
	if (value->type == YAML_SCALAR_NODE)
		return dup_header(&m->cc[m->ncc++], p, value, "mail.cc");
	for (item = value->data.sequence.items.start;
	     item < value->data.sequence.items.top && !err; item++)
		err = dup_header(&m->cc[m->ncc++], p, kb_yaml_node(&p->y, *item), "mail.cc");
	return err;
}

static const struct kb_yaml_key mail_keys[] = {
	{ "to", add_mail_to },
	{ "cc", add_mail_cc },
	{ "tree", add_mail_tree },
	{ "send-to", add_mail_send_to },
};

static int add_mail_map(struct parser *p, struct kb_mail *m, yaml_node_t *value)
{
	if (value->type != YAML_MAPPING_NODE)
		return kb_yaml_error(&p->y, value, KB_EINVALID,
				     "'mail' must be a mapping (to, cc, tree, send-to), not %s",
				     kb_yaml_kind(value));
	m->given = true;
	return kb_yaml_dispatch(&p->y, value, "mail", mail_keys, ARRAY_SIZE(mail_keys), p, m);
}

static int add_mail(void *ctx, void *obj, yaml_node_t *value)
{
	return add_mail_map(ctx, &((struct kb_branch *)obj)->mail, value);
}

static void mail_release(struct kb_mail *m)
{
	size_t i;

	for (i = 0; i < m->ncc; i++)
		free(m->cc[i]);
	free(m->cc);
	free(m->to);
	free(m->tree);
	free(m->send_to);
}

/* "4.19.y", "linux-2.6.32.y": the length of "4.19" (after "linux-"), else 0. */
static size_t stable_version(const char *s, const char **start)
{
	size_t len, dots = 0, i;

	if (!strncmp(s, "linux-", 6))
		s += 6;
	*start = s;
	len = strlen(s);
	if (len < 5 || strcmp(s + len - 2, ".y"))
		return 0;
	len -= 2;
	for (i = 0; i < len; i++) {
		if (s[i] == '.' && i && s[i - 1] != '.')
			dots++;
		else if (s[i] < '0' || s[i] > '9')
			return 0;
	}
	return dots && s[len - 1] != '.' ? len : 0;
}

bool kb_branch_looks_stable(const char *name, const char *ref, const char **version, size_t *len)
{
	const char *last = ref ? strrchr(ref, '/') : NULL;

	if (!(*len = stable_version(name, version)) && ref)
		*len = stable_version(last ? last + 1 : ref, version);
	return *len > 0;
}

/* No `mail:` anywhere: the stable team's words for a stable branch. */
static int mail_stable_default(struct kb_branch *b)
{
	struct kb_buf tree = KB_BUF_INIT;
	const char *v;
	size_t len;
	int err;

	if (!kb_branch_looks_stable(b->name, b->ref, &v, &len))
		return 0;
	if ((err = kb_buf_printf(&tree, "%.*s-stable", (int)len, v)) < 0)
		return err;
	b->mail.tree = kb_buf_detach(&tree);
	b->mail.stable = true;
	if (!b->mail.tree || !(b->mail.cc = calloc(2, sizeof(*b->mail.cc))) ||
	    !(b->mail.cc[b->mail.ncc++] = kb_strdup(KB_STABLE_LIST)) ||
	    !(b->mail.send_to = kb_strdup(KB_STABLE_LIST)))
		return kb_error_oom();
	return 0;
}

static int dup_unless_set(char **out, const char *from)
{
	if (*out || !from)
		return 0;
	return (*out = kb_strdup(from)) ? 0 : kb_error_oom();
}

/* The branch's own keys, then the top level's, then the defaults. */
static int finish_mail(struct parser *p, struct kb_branch *b)
{
	const struct kb_mail *top = &p->config->mail;
	size_t i;
	int err;

	if (!b->mail.given && !top->given && (err = mail_stable_default(b)) < 0)
		return err;
	if (top->given && !b->mail.cc && top->ncc) {
		b->mail.cc = calloc(top->ncc + 1, sizeof(*b->mail.cc));
		KB_ERROR_CHECK_ALLOC(b->mail.cc);
		for (i = 0; i < top->ncc; i++)
			KB_ERROR_CHECK_ALLOC(b->mail.cc[b->mail.ncc++] = kb_strdup(top->cc[i]));
	}
	if ((err = dup_unless_set(&b->mail.to, top->to)) < 0 ||
	    (err = dup_unless_set(&b->mail.tree, top->tree)) < 0 ||
	    (err = dup_unless_set(&b->mail.send_to, top->send_to)) < 0)
		return err;
	return dup_unless_set(&b->mail.tree, b->name);
}

/* ---- one branch ---- */

static size_t branch_index(struct parser *p, const struct kb_branch *b)
{
	return (size_t)(b - p->config->branches);
}

/* The name ends up in refs/heads/backport/<fix>/<name> and in file names. */
static int check_name(struct parser *p, struct kb_branch *b, yaml_node_t *value)
{
	struct kb_buf ref = KB_BUF_INIT;
	int valid = 0, err;

	if ((err = kb_buf_printf(&ref, "refs/heads/backport/x/%s", b->name)) < 0)
		return err;
	if ((err = git_reference_name_is_valid(&valid, ref.ptr)) < 0)
		err = kb_error_git(err, "cannot check branch name '%s'", b->name);
	else if (!valid || strchr(b->name, '/'))
		err = kb_yaml_error(&p->y, value, KB_EINVALID,
				    "invalid branch name '%s' (must be usable as one component of a git ref name)",
				    b->name);
	kb_buf_release(&ref);
	return err;
}

static int check_unique(struct parser *p, struct kb_branch *b, yaml_node_t *value)
{
	const struct kb_branch *other;
	size_t i;

	for (i = 0; i < branch_index(p, b); i++) {
		other = &p->config->branches[i];
		if (!strcmp(other->name, b->name))
			return kb_yaml_error(&p->y, value, KB_EINVALID,
					     "duplicate branch name '%s' (first at line %zu)",
					     b->name, other->line);
	}
	return 0;
}

static int add_name(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	struct kb_branch *b = obj;
	int err;

	if ((err = kb_yaml_dup_string(&b->name, &p->y, value, "name")) < 0 ||
	    (err = check_name(p, b, value)) < 0)
		return err;
	return check_unique(p, b, value);
}

static int add_ref(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return kb_yaml_dup_string(&((struct kb_branch *)obj)->ref, &p->y, value, "ref");
}

static int add_repo(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return dup_path(&((struct kb_branch *)obj)->repo, p, value, "repo");
}

static int add_arch(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return kb_yaml_dup_string(&((struct kb_branch *)obj)->arch, &p->y, value, "arch");
}

static int add_config(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return dup_path(&((struct kb_branch *)obj)->config, p, value, "config");
}

static int add_build(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return kb_yaml_bool(&((struct kb_branch *)obj)->build, &p->y, value, "build");
}

static int add_skip_reason(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return kb_yaml_dup_string(&((struct kb_branch *)obj)->build_skip_reason, &p->y, value,
			  "build-skip-reason");
}

static int add_skip_if_missing(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return kb_yaml_dup_string(&((struct kb_branch *)obj)->skip_if_missing, &p->y, value,
				  "skip-if-missing");
}

static int add_pre_fix(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return kb_yaml_bool(&((struct kb_branch *)obj)->pre_fix, &p->y, value, "pre-fix");
}

static int add_kernel(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return kb_yaml_dup_string(&((struct kb_branch *)obj)->kernel, &p->y, value, "kernel");
}

static int add_variant_choice(struct parser *p, struct kb_branch *b,
			      yaml_node_t *fix, yaml_node_t *variant)
{
	struct kb_variant_choice *c = &b->variants[b->nvariants++];
	int err;

	c->line = (fix ? fix : variant)->start_mark.line + 1;
	c->column = (fix ? fix : variant)->start_mark.column + 1;
	if (fix && (err = kb_yaml_dup_string(&c->fix, &p->y, fix, "variant")) < 0)
		return err;
	if (variant->type != YAML_SCALAR_NODE || kb_yaml_is_null(variant))
		return kb_yaml_error(&p->y, variant, KB_EINVALID,
				     "variant for '%s' must be a variant name, not %s",
				     c->fix, kb_yaml_kind(variant));
	return kb_yaml_dup_string(&c->variant, &p->y, variant, "variant");
}

/* `variant: NAME` forces NAME for every fix; `variant: {FIX: NAME}` per fix. */
static int add_variant(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	struct kb_branch *b = obj;
	yaml_node_pair_t *pair;
	size_t n = 1;
	int err = 0;

	if (value->type == YAML_SEQUENCE_NODE)
		return kb_yaml_error(&p->y, value, KB_EINVALID,
				     "'variant' must be a variant name or a mapping of fix id to variant name, not a sequence");
	if (value->type == YAML_MAPPING_NODE)
		n = (size_t)(value->data.mapping.pairs.top - value->data.mapping.pairs.start);
	if (n && !(b->variants = calloc(n, sizeof(*b->variants))))
		return kb_error_oom();
	if (value->type == YAML_SCALAR_NODE)
		return add_variant_choice(p, b, NULL, value);
	for (pair = value->data.mapping.pairs.start;
	     pair < value->data.mapping.pairs.top && !err; pair++)
		err = add_variant_choice(p, b, kb_yaml_node(&p->y, pair->key),
					 kb_yaml_node(&p->y, pair->value));
	return err;
}

static const struct kb_yaml_key branch_keys[] = {
	{ "name", add_name },
	{ "ref", add_ref },
	{ "repo", add_repo },
	{ "variant", add_variant },
	{ "arch", add_arch },
	{ "config", add_config },
	{ "build", add_build },
	{ "build-skip-reason", add_skip_reason },
	{ "pre-fix", add_pre_fix },
	{ "skip-if-missing", add_skip_if_missing },
	{ "kernel", add_kernel },
	{ "mail", add_mail },
};

/* A distribution kernel: booted as shipped, nothing to apply or build. */
static int finish_kernel_branch(struct parser *p, struct kb_branch *b, yaml_node_t *map)
{
	static const char *const git_keys[] = { "ref", "repo", "variant", "config", "pre-fix",
						"skip-if-missing", "mail" };
	bool has[ARRAY_SIZE(git_keys)] = {
		b->ref != NULL, b->repo != NULL, b->nvariants > 0, b->config != NULL, b->pre_fix,
		b->skip_if_missing != NULL, b->mail.given,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(git_keys); i++)
		if (has[i])
			return kb_yaml_error(&p->y, map, KB_EINVALID,
					     "branch '%s' boots the kernel package '%s': "
					     "'%s' does not apply to it", b->name, b->kernel,
					     git_keys[i]);
	b->build = false;
	if (!b->arch && !(b->arch = kb_strdup("x86_64")))
		return kb_error_oom();
	return 0;
}

/* Required keys and defaults, once the whole mapping is known. */
static int finish_branch(struct parser *p, struct kb_branch *b, yaml_node_t *map)
{
	if (!b->name)
		return kb_yaml_error(&p->y, map, KB_EINVALID, "branch has no 'name'");
	if (b->kernel)
		return finish_kernel_branch(p, b, map);
	if (!b->ref)
		return kb_yaml_error(&p->y, map, KB_EINVALID, "branch has no 'ref'");
	if (!b->repo && !p->config->repo)
		return kb_yaml_error(&p->y, map, KB_EINVALID,
				     "branch '%s' has no 'repo' and there is no top-level 'repo'",
				     b->name);
	if (!b->repo && !(b->repo = kb_strdup(p->config->repo)))
		return kb_error_oom();
	if (!b->arch && !(b->arch = kb_strdup("x86_64")))
		return kb_error_oom();
	return finish_mail(p, b);
}

static int add_branch(struct parser *p, yaml_node_t *map)
{
	struct kb_config *config = p->config;
	struct kb_branch *b = &config->branches[config->nbranches++];
	int err;

	b->build = true;
	b->line = map->start_mark.line + 1;
	b->column = map->start_mark.column + 1;
	if (map->type != YAML_MAPPING_NODE)
		return kb_yaml_error(&p->y, map, KB_EINVALID,
				     "each branch must be a mapping, not %s", kb_yaml_kind(map));
	if ((err = kb_yaml_dispatch(&p->y, map, "branch", branch_keys, ARRAY_SIZE(branch_keys), p, b)) < 0)
		return err;
	return finish_branch(p, b, map);
}

/* ---- the whole list ---- */

/* Is `name` "<lane->name>.pre-fix", the ref name of lane's pre-fix lane? */
static bool is_pre_fix_name(const char *name, const struct kb_branch *lane)
{
	size_t len = strlen(lane->name);

	return !strncmp(name, lane->name, len) && !strcmp(name + len, ".pre-fix");
}

/*
 * A branch named "x.pre-fix" would share refs/heads/backport/<fix>/x.pre-fix
 * with the pre-fix lane of branch x, each run moving it back and forth.
 */
static int check_lane_names(struct parser *p)
{
	const struct kb_config *c = p->config;
	const struct kb_branch *b, *lane;
	size_t i, j;

	for (i = 0; i < c->nbranches; i++) {
		b = &c->branches[i];
		for (j = 0; j < c->nbranches && !b->kernel; j++) {
			lane = &c->branches[j];
			if (lane->pre_fix && is_pre_fix_name(b->name, lane))
				return kb_error_set(KB_EINVALID, "%s:%zu:%zu: branch '%s' has the name "
						    "of the pre-fix lane of branch '%s' (line %zu): "
						    "both would write refs/heads/backport/<fix>/%s",
						    p->y.origin, b->line, b->column, b->name,
						    lane->name, lane->line, b->name);
		}
	}
	return 0;
}

/* ---- top level ---- */

static int add_branches(struct parser *p, yaml_node_t *seq)
{
	yaml_node_item_t *item;
	size_t n;
	int err = 0;

	if (seq->type != YAML_SEQUENCE_NODE)
		return kb_yaml_error(&p->y, seq, KB_EINVALID,
				     "'branches' must be a sequence of branches, not %s",
				     kb_yaml_kind(seq));
	if (!(n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start)))
		return kb_yaml_error(&p->y, seq, KB_EINVALID, "'branches' is empty");
	p->config->branches = calloc(n, sizeof(*p->config->branches));
	KB_ERROR_CHECK_ALLOC(p->config->branches);
	for (item = seq->data.sequence.items.start;
	     item < seq->data.sequence.items.top && !err; item++)
		err = add_branch(p, kb_yaml_node(&p->y, *item));
	return err ? err : check_lane_names(p);
}

static int add_default_repo(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	return dup_path(&((struct kb_config *)obj)->repo, p, value, "repo");
}

static int remember_branches(void *ctx, void *obj, yaml_node_t *value)
{
	struct parser *p = ctx;
	(void)obj;
	p->branches = value;
	return 0;
}

static int add_default_mail(void *ctx, void *obj, yaml_node_t *value)
{
	return add_mail_map(ctx, &((struct kb_config *)obj)->mail, value);
}

static const struct kb_yaml_key top_keys[] = {
	{ "repo", add_default_repo },
	{ "mail", add_default_mail },
	{ "branches", remember_branches },
};

static int parse_root(struct parser *p)
{
	yaml_node_t *root = kb_yaml_root(&p->y);
	int err;

	if (!root)
		return kb_error_set(KB_EINVALID,
				    "%s:1:1: file is empty (expected a mapping with 'repo' and 'branches')",
				    p->y.origin);
	if (root->type != YAML_MAPPING_NODE)
		return kb_yaml_error(&p->y, root, KB_EINVALID,
				     "top level must be a mapping with 'repo' and 'branches', not %s",
				     kb_yaml_kind(root));
	if ((err = kb_yaml_dispatch(&p->y, root, "top level", top_keys, ARRAY_SIZE(top_keys), p, p->config)) < 0)
		return err;
	if (!p->branches)
		return kb_yaml_error(&p->y, root, KB_EINVALID, "no 'branches'");
	return add_branches(p, p->branches);
}

/*
 * config->dir is absolute, so that the repository paths derived from it
 * mean the same in messages, in the commands printed for people and to
 * later stages that run elsewhere.
 */
static int set_paths(struct kb_config *config, const char *path)
{
	struct kb_buf dir = KB_BUF_INIT;
	const char *slash;
	char *cwd = NULL;
	int err = 0;

	config->path = kb_strdup(path);
	KB_ERROR_CHECK_ALLOC(config->path);
	while (!strncmp(path, "./", 2))
		path += 2;
	slash = strrchr(path, '/');
	if (path[0] != '/' && !(cwd = getcwd(NULL, 0)))
		return kb_error_set(KB_ERROR, "cannot get the current directory: %s",
				    strerror(errno));
	if (cwd)
		kb_buf_puts(&dir, cwd);
	if (slash)
		kb_buf_printf(&dir, "%s%.*s", cwd ? "/" : "",
			      (int)(slash == path ? 1 : slash - path), path);
	free(cwd);
	if ((err = kb_buf_check(&dir)) < 0)
		return err;
	config->dir = kb_buf_detach(&dir);
	return 0;
}

int kb_config_parse(struct kb_config **out, const char *buf, size_t len,
		    const char *path)
{
	struct parser p = { .config = NULL };
	int err, git_init;

	*out = NULL;
	/* git_reference_name_is_valid() allocates through libgit2. */
	if ((git_init = git_libgit2_init()) < 0)
		return kb_error_git(git_init, "cannot initialise libgit2");
	if (!(p.config = calloc(1, sizeof(*p.config)))) {
		err = kb_error_oom();
		goto done;
	}
	if ((err = set_paths(p.config, path)) < 0 ||
	    (err = kb_yaml_load(&p.y, buf, len, p.config->path)) < 0 ||
	    (err = parse_root(&p)) < 0)
		goto done;
	*out = p.config;
	p.config = NULL;
done:
	kb_yaml_release(&p.y);
	kb_config_free(p.config);
	git_libgit2_shutdown();
	return err;
}

int kb_config_load(struct kb_config **out, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if ((err = kb_read_file(&buf, &len, path)) == 0)
		err = kb_config_parse(out, buf, len, path);
	free(buf);
	return err;
}

static void branch_release(struct kb_branch *b)
{
	size_t i;

	for (i = 0; i < b->nvariants; i++) {
		free(b->variants[i].fix);
		free(b->variants[i].variant);
	}
	free(b->variants);
	free(b->name);
	free(b->ref);
	free(b->repo);
	free(b->arch);
	free(b->config);
	free(b->build_skip_reason);
	free(b->skip_if_missing);
	free(b->kernel);
	mail_release(&b->mail);
}

void kb_config_free(struct kb_config *config)
{
	size_t i;

	if (!config)
		return;
	for (i = 0; i < config->nbranches; i++)
		branch_release(&config->branches[i]);
	free(config->branches);
	free(config->path);
	free(config->dir);
	free(config->repo);
	mail_release(&config->mail);
	free(config);
}

const struct kb_branch *kb_config_branch(const struct kb_config *config,
					 const char *name)
{
	size_t i;

	for (i = 0; i < config->nbranches; i++)
		if (!strcmp(config->branches[i].name, name))
			return &config->branches[i];
	return NULL;
}

const char *kb_branch_variant(const struct kb_branch *branch,
			      const char *fix_id)
{
	const char *all = NULL;
	size_t i;

	for (i = 0; i < branch->nvariants; i++) {
		if (!branch->variants[i].fix)
			all = branch->variants[i].variant;
		else if (fix_id && !strcmp(branch->variants[i].fix, fix_id))
			return branch->variants[i].variant;
	}
	return all;
}
