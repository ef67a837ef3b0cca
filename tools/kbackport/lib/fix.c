/*
 * backports/<id>/ -> struct kb_fix.
 *
 * Same shape as config.c: one loop per mapping dispatching each key to an
 * add_* helper, required keys and cross-checks once the mapping is read.
 * Every patch is loaded here, so a fix that loads is a fix whose patches
 * all parse: later stages never meet a broken patch file.
 */
#include "fix.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/kbyaml.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct loader {
	struct kb_yaml y;
	struct kb_fix *fix;
	yaml_node_t *subject;	/* nodes kept for messages after the loop */
	yaml_node_t *patch;
	yaml_node_t *variants;
	yaml_node_t *audit;	/* read once the id is known */
};

/* The `when` entry being read: which test set its kind, for "both" errors. */
struct when_entry {
	struct kb_cond *cond;
	const char *test;
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static size_t count_items(const yaml_node_t *seq)
{
	return (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

static bool has_dotdot(const char *path)
{
	const char *p = path;
	size_t len;

	while (*p) {
		len = strcspn(p, "/");
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += len;
		p += strspn(p, "/");
	}
	return false;
}

/* Paths inside a fix or a tree: never outside it. */
static int dup_relative(char **out, struct loader *l, yaml_node_t *value,
			const char *what, const char *base)
{
	int err;

	if ((err = kb_yaml_dup_string(out, &l->y, value, what)) < 0)
		return err;
	if ((*out)[0] == '/' || has_dotdot(*out))
		return kb_yaml_error(&l->y, value, KB_EINVALID,
				     "path '%s' must be relative to %s, without '..'",
				     *out, base);
	return 0;
}

static int dup_sha(char **out, struct loader *l, yaml_node_t *value,
		   const char *what)
{
	int err;

	if ((err = kb_yaml_dup_string(out, &l->y, value, what)) < 0)
		return err;
	if (strlen(*out) != 40 || strspn(*out, "0123456789abcdef") != 40)
		return kb_yaml_error(&l->y, value, KB_EINVALID,
				     "'%s' must be a full commit id (40 lowercase hex digits), not '%s'",
				     what, *out);
	return 0;
}

/* `seq` must be a non-empty sequence; *n gets its length. */
static int check_items(size_t *n, struct loader *l, yaml_node_t *seq,
		       const char *what)
{
	if (seq->type != YAML_SEQUENCE_NODE)
		return kb_yaml_error(&l->y, seq, KB_EINVALID,
				     "'%s' must be a sequence, not %s", what, kb_yaml_kind(seq));
	if (!(*n = count_items(seq)))
		return kb_yaml_error(&l->y, seq, KB_EINVALID, "'%s' is empty", what);
	return 0;
}

/* A missing patch is a mistake in fix.yaml: say where it is named. */
static int load_patch(struct kb_patch **out, char **resolved, struct loader *l,
		      yaml_node_t *value)
{
	struct kb_buf path = KB_BUF_INIT;
	char *rel = NULL;
	int err;

	if ((err = dup_relative(&rel, l, value, "patch", "the fix directory")) < 0 ||
	    (err = kb_buf_printf(&path, "%s/%s", l->fix->dir, rel)) < 0)
		goto done;
	if ((err = kb_patch_load(out, path.ptr)) == KB_ENOTFOUND)
		kb_error_prefix(err, "%s:%zu:%zu", l->y.origin,
				value->start_mark.line + 1, value->start_mark.column + 1);
	if (!err && resolved && !(*resolved = kb_buf_detach(&path)))
		err = kb_error_oom();
done:
	free(rel);
	kb_buf_release(&path);
	return err;
}

/* ---- when: conditions of a variant ---- */

static int add_when_file(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct when_entry *e = obj;

	return dup_relative(&e->cond->path, l, value, "file", "the tree");
}

static int set_test(struct loader *l, struct when_entry *e, yaml_node_t *value,
		    const char *test, enum kb_cond_kind cond_kind)
{
	if (e->test)
		return kb_yaml_error(&l->y, value, KB_EINVALID,
				     "when entry has both '%s' and '%s' (expected exactly one of contains, lacks, exists)",
				     e->test, test);
	e->test = test;
	e->cond->kind = cond_kind;
	return 0;
}

static int add_when_contains(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct when_entry *e = obj;
	int err;

	if ((err = set_test(l, e, value, "contains", KB_COND_CONTAINS)) < 0)
		return err;
	return kb_yaml_dup_string(&e->cond->text, &l->y, value, "contains");
}

static int add_when_lacks(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct when_entry *e = obj;
	int err;

	if ((err = set_test(l, e, value, "lacks", KB_COND_LACKS)) < 0)
		return err;
	return kb_yaml_dup_string(&e->cond->text, &l->y, value, "lacks");
}

static int add_when_exists(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct when_entry *e = obj;
	bool exists;
	int err;

	if ((err = kb_yaml_bool(&exists, &l->y, value, "exists")) < 0)
		return err;
	return set_test(l, e, value, "exists",
			exists ? KB_COND_EXISTS : KB_COND_MISSING);
}

static const struct kb_yaml_key when_keys[] = {
	{ "file", add_when_file },
	{ "contains", add_when_contains },
	{ "lacks", add_when_lacks },
	{ "exists", add_when_exists },
};

static int add_cond(struct loader *l, struct kb_variant *v, yaml_node_t *map)
{
	struct when_entry e = { &v->when[v->nwhen++], NULL };
	int err;

	if ((err = kb_yaml_dispatch(&l->y, map, "when entry", when_keys, ARRAY_SIZE(when_keys), l, &e)) < 0)
		return err;
	if (!e.cond->path)
		return kb_yaml_error(&l->y, map, KB_EINVALID, "when entry has no 'file'");
	if (!e.test)
		return kb_yaml_error(&l->y, map, KB_EINVALID,
				     "when entry has none of 'contains', 'lacks', 'exists'");
	return 0;
}

/* ---- variants ---- */

static int add_variant_name(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_variant *v = obj, *first = l->fix->variants;
	yaml_node_t *first_node;
	size_t i;
	int err;

	if ((err = kb_yaml_dup_string(&v->name, &l->y, value, "name")) < 0)
		return err;
	for (i = 0; &first[i] < v; i++) {
		if (strcmp(first[i].name, v->name))
			continue;
		first_node = kb_yaml_node(&l->y, l->variants->data.sequence.items.start[i]);
		return kb_yaml_error(&l->y, value, KB_EINVALID,
				     "duplicate variant name '%s' (first at line %zu)",
				     v->name, first_node->start_mark.line + 1);
	}
	return 0;
}

static int add_variant_patch(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_variant *v = obj;

	return load_patch(&v->patch, &v->patch_path, l, value);
}

static int add_variant_why(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	return kb_yaml_dup_string(&((struct kb_variant *)obj)->why, &l->y, value, "why");
}

static int add_variant_note(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	return kb_yaml_dup_string(&((struct kb_variant *)obj)->note, &l->y, value, "note");
}

static int add_variant_when(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_variant *v = obj;
	yaml_node_item_t *item;
	size_t n;
	int err = 0;

	/* An empty list is allowed: no conditions, like leaving `when` out. */
	if (value->type == YAML_SEQUENCE_NODE && !count_items(value))
		return 0;
	if ((err = check_items(&n, l, value, "when")) < 0)
		return err;
	v->when = calloc(n, sizeof(*v->when));
	KB_ERROR_CHECK_ALLOC(v->when);
	for (item = value->data.sequence.items.start;
	     item < value->data.sequence.items.top && !err; item++)
		err = add_cond(l, v, kb_yaml_node(&l->y, *item));
	return err;
}

static const struct kb_yaml_key variant_keys[] = {
	{ "name", add_variant_name },
	{ "patch", add_variant_patch },
	{ "why", add_variant_why },
	{ "note", add_variant_note },
	{ "when", add_variant_when },
};

static int add_variant(struct loader *l, yaml_node_t *map)
{
	struct kb_variant *v = &l->fix->variants[l->fix->nvariants++];
	const char *missing = NULL;
	int err;

	if ((err = kb_yaml_dispatch(&l->y, map, "variant", variant_keys, ARRAY_SIZE(variant_keys), l, v)) < 0)
		return err;
	if (!v->name)
		missing = "name";
	else if (!v->patch)
		missing = "patch";
	else if (!v->why)
		missing = "why";
	if (missing)
		return kb_yaml_error(&l->y, map, KB_EINVALID, "variant has no '%s'", missing);
	return kb_patch_reverse(&v->reverse, v->patch);
}

static int add_variants(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_fix *fix = obj;
	yaml_node_item_t *item;
	size_t n;
	int err;

	l->variants = value;
	if ((err = check_items(&n, l, value, "variants")) < 0)
		return err;
	fix->variants = calloc(n, sizeof(*fix->variants));
	KB_ERROR_CHECK_ALLOC(fix->variants);
	for (item = value->data.sequence.items.start;
	     item < value->data.sequence.items.top && !err; item++)
		err = add_variant(l, kb_yaml_node(&l->y, *item));
	return err;
}

/* ---- vulnerable: code shapes that make a tree affected ---- */

static int add_marker_paths(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_marker *m = obj;
	yaml_node_item_t *item;
	size_t n;
	int err;

	if ((err = check_items(&n, l, value, "paths")) < 0)
		return err;
	m->paths = calloc(n, sizeof(*m->paths));
	KB_ERROR_CHECK_ALLOC(m->paths);
	for (item = value->data.sequence.items.start;
	     item < value->data.sequence.items.top && !err; item++)
		err = dup_relative(&m->paths[m->npaths++], l,
				   kb_yaml_node(&l->y, *item), "paths", "the tree");
	return err;
}

static int add_marker_code(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	return kb_yaml_dup_string(&((struct kb_marker *)obj)->code, &l->y, value, "code");
}

static const struct kb_yaml_key marker_keys[] = {
	{ "paths", add_marker_paths },
	{ "code", add_marker_code },
};

static int add_marker(struct loader *l, yaml_node_t *map)
{
	struct kb_marker *m = &l->fix->vulnerable[l->fix->nvulnerable++];
	int err;

	if ((err = kb_yaml_dispatch(&l->y, map, "vulnerable entry", marker_keys,
			    ARRAY_SIZE(marker_keys), l, m)) < 0)
		return err;
	if (!m->paths)
		return kb_yaml_error(&l->y, map, KB_EINVALID, "vulnerable entry has no 'paths'");
	if (!m->code)
		return kb_yaml_error(&l->y, map, KB_EINVALID, "vulnerable entry has no 'code'");
	return 0;
}

static int add_vulnerable(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_fix *fix = obj;
	yaml_node_item_t *item;
	size_t n;
	int err;

	if ((err = check_items(&n, l, value, "vulnerable")) < 0)
		return err;
	fix->vulnerable = calloc(n, sizeof(*fix->vulnerable));
	KB_ERROR_CHECK_ALLOC(fix->vulnerable);
	for (item = value->data.sequence.items.start;
	     item < value->data.sequence.items.top && !err; item++)
		err = add_marker(l, kb_yaml_node(&l->y, *item));
	return err;
}

/* ---- the fix itself ---- */

static int add_id(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_fix *fix = obj;
	const char *slash = strrchr(fix->dir, '/');
	const char *base = slash ? slash + 1 : fix->dir;
	int err;

	if ((err = kb_yaml_dup_string(&fix->id, &l->y, value, "id")) < 0)
		return err;
	if (strcmp(fix->id, base))
		return kb_yaml_error(&l->y, value, KB_EINVALID,
				     "id '%s' does not match the directory name '%s'",
				     fix->id, base);
	if (kb_fix_id_reserved(fix->id))
		return kb_yaml_error(&l->y, value, KB_EINVALID, "'%s' cannot be a fix id: %s",
				     fix->id, KB_FIX_ID_RESERVED_WHY);
	return 0;
}

static int add_subject(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	l->subject = value;
	return kb_yaml_dup_string(&((struct kb_fix *)obj)->subject, &l->y, value, "subject");
}

static int add_upstream(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	return dup_sha(&((struct kb_fix *)obj)->upstream, l, value, "upstream");
}

/* It goes into shell commands to copy: one word, nothing the shell expands. */
static int add_upstream_repo(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	char **repo = &((struct kb_fix *)obj)->upstream_repo;
	int err;

	if ((err = kb_yaml_dup_string(repo, &l->y, value, "upstream-repo")) < 0)
		return err;
	if (*repo && (*repo)[strcspn(*repo, " \t\n'\"\\`$;&|<>()*?[]{}~#!")])
		return kb_yaml_error(&l->y, value, KB_EINVALID,
				     "'upstream-repo' must be a URL or path without spaces or "
				     "shell characters");
	return 0;
}

static int add_cve(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	return kb_yaml_dup_string(&((struct kb_fix *)obj)->cve, &l->y, value, "cve");
}

static int add_introduced_by(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	return dup_sha(&((struct kb_fix *)obj)->introduced_by, l, value, "introduced-by");
}

static int add_reapply(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	return kb_yaml_bool(&((struct kb_fix *)obj)->reapply, &l->y, value, "reapply");
}

static int add_patch(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_fix *fix = obj;
	int err;

	l->patch = value;
	if ((err = load_patch(&fix->patch, &fix->patch_path, l, value)) < 0)
		return err;
	return kb_patch_reverse(&fix->reverse, fix->patch);
}

static int add_audit(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;

	(void)obj;
	l->audit = value;
	return 0;
}

/* `tests:` a directory relative to the fix's, with a cases.yaml. */
static int add_tests(void *ctx, void *obj, yaml_node_t *value)
{
	struct loader *l = ctx;
	struct kb_fix *fix = obj;
	struct kb_buf path = KB_BUF_INIT;
	char *rel = NULL;
	int err;

	if ((err = kb_yaml_dup_string(&rel, &l->y, value, "tests")) < 0)
		goto done;
	if (rel[0] == '/') {
		err = kb_yaml_error(&l->y, value, KB_EINVALID,
				    "'tests' must be relative to the fix's directory, not '%s'", rel);
		goto done;
	}
	if ((err = kb_buf_printf(&path, "%s/%s/cases.yaml", fix->dir, rel)) < 0)
		goto done;
	if (!kb_path_exists(path.ptr)) {
		err = kb_yaml_error(&l->y, value, KB_ENOTFOUND,
				    "'tests': no cases.yaml in '%s/%s'", fix->dir, rel);
		goto done;
	}
	path.size -= strlen("/cases.yaml");
	path.ptr[path.size] = '\0';
	fix->tests_dir = kb_buf_detach(&path);
done:
	free(rel);
	kb_buf_release(&path);
	return err;
}

/* No `tests:`: the fix's own tests/ when it has a cases.yaml. */
static int default_tests(struct kb_fix *fix)
{
	struct kb_buf path = KB_BUF_INIT;
	int err;

	if (fix->tests_dir)
		return 0;
	if ((err = kb_buf_printf(&path, "%s/tests/cases.yaml", fix->dir)) == 0 &&
	    kb_path_exists(path.ptr)) {
		path.size -= strlen("/cases.yaml");
		path.ptr[path.size] = '\0';
		fix->tests_dir = kb_buf_detach(&path);
	}
	kb_buf_release(&path);
	return err;
}

static const struct kb_yaml_key fix_keys[] = {
	{ "tests", add_tests },
	{ "id", add_id },
	{ "subject", add_subject },
	{ "upstream", add_upstream },
	{ "upstream-repo", add_upstream_repo },
	{ "cve", add_cve },
	{ "introduced-by", add_introduced_by },
	{ "reapply", add_reapply },
	{ "patch", add_patch },
	{ "vulnerable", add_vulnerable },
	{ "variants", add_variants },
	{ "audit", add_audit },
};

static const char *first_missing(const struct kb_fix *fix)
{
	if (!fix->id)
		return "id";
	if (!fix->subject)
		return "subject";
	if (!fix->patch)
		return "patch";
	return NULL;
}

/*
 * A fix without `variants:` has one: its own patch, named "patch", with
 * no conditions (a second copy of the patch, so each is freed once).
 */
static int own_patch_variant(struct loader *l)
{
	struct kb_variant *v;
	int err;

	if (l->fix->variants)
		return 0;
	l->fix->variants = v = calloc(1, sizeof(*v));
	KB_ERROR_CHECK_ALLOC(l->fix->variants);
	l->fix->nvariants = 1;
	if (!(v->name = kb_strdup("patch")) || !(v->why = kb_strdup("the fix's own patch")))
		return kb_error_oom();
	if ((err = load_patch(&v->patch, &v->patch_path, l, l->patch)) < 0)
		return err;
	return kb_patch_reverse(&v->reverse, v->patch);
}

/* The commit message is built from the patch: fix.yaml must not disagree. */
static int check_subject(struct loader *l)
{
	const char *patch_subject = l->fix->patch->subject;

	if (patch_subject && !strcmp(patch_subject, l->fix->subject))
		return 0;
	return kb_yaml_error(&l->y, l->subject, KB_EINVALID,
			     "subject does not match the Subject of '%s'",
			     (const char *)l->patch->data.scalar.value);
}

static int parse_root(struct loader *l)
{
	yaml_node_t *root = kb_yaml_root(&l->y);
	const char *missing;
	int err;

	if (!root)
		return kb_error_set(KB_EINVALID, "%s:1:1: file is empty", l->y.origin);
	if ((err = kb_yaml_dispatch(&l->y, root, "fix", fix_keys, ARRAY_SIZE(fix_keys), l, l->fix)) < 0)
		return err;
	if ((missing = first_missing(l->fix)))
		return kb_yaml_error(&l->y, root, KB_EINVALID, "fix has no '%s'", missing);
	if ((err = check_subject(l)) < 0)
		return err;
	if (l->audit &&
	    (err = kb_audit_rules_load(&l->fix->audit, &l->y, l->audit, l->fix->id)) < 0)
		return err;
	if ((err = default_tests(l->fix)) < 0)
		return err;
	return own_patch_variant(l);
}

/* "backports/X/" and "backports/X" are the same fix. */
static char *dir_without_slashes(const char *dir)
{
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	return kb_strndup(dir, len);
}

int kb_fix_load(struct kb_fix **out, const char *dir)
{
	struct loader l = { .fix = NULL };
	struct kb_buf path = KB_BUF_INIT;
	char *buf = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	if (!(l.fix = calloc(1, sizeof(*l.fix))) ||
	    !(l.fix->dir = dir_without_slashes(dir))) {
		err = kb_error_oom();
		goto done;
	}
	if ((err = kb_buf_printf(&path, "%s/fix.yaml", l.fix->dir)) < 0 ||
	    (err = kb_read_file(&buf, &len, path.ptr)) < 0 ||
	    (err = kb_yaml_load(&l.y, buf, len, path.ptr)) < 0 ||
	    (err = parse_root(&l)) < 0)
		goto done;
	*out = l.fix;
	l.fix = NULL;
done:
	kb_yaml_release(&l.y);
	kb_fix_free(l.fix);
	kb_buf_release(&path);
	free(buf);
	return err;
}

int kb_fix_patch_hash(char out[65], const struct kb_fix *fix, const char *variant)
{
	const struct kb_variant *v = variant ? kb_fix_variant(fix, variant) : NULL;

	out[0] = '\0';
	return v ? kb_file_sha256(out, 65, v->patch_path) : 0;
}

/* ---- every fix of a directory ---- */

bool kb_is_fix_dir(const char *dir)
{
	struct kb_buf path = KB_BUF_INIT;
	struct stat st;
	bool is;

	is = kb_buf_printf(&path, "%s/fix.yaml", dir) == 0 &&
	     stat(path.ptr, &st) == 0 && S_ISREG(st.st_mode);
	kb_buf_release(&path);
	return is;
}

static bool is_fix_dir(const char *backports_dir, const char *name)
{
	struct kb_buf path = KB_BUF_INIT;
	bool is;

	is = name[0] != '.' && kb_buf_printf(&path, "%s/%s", backports_dir, name) == 0 &&
	     kb_is_fix_dir(path.ptr);
	kb_buf_release(&path);
	return is;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int push_name(char ***names, size_t *n, size_t *alloc, const char *name)
{
	int err;

	if ((err = KB_ARRAY_GROW(*names, *alloc, *n + 1)) < 0)
		return err;
	(*names)[*n] = kb_strdup(name);
	KB_ERROR_CHECK_ALLOC((*names)[*n]);
	(*n)++;
	return 0;
}

/* Directory names, sorted: an id equals its directory name. */
static int list_fix_dirs(char ***out, size_t *n, const char *backports_dir)
{
	struct kb_dir ents = KB_DIR_INIT;
	size_t i;
	int err;

	*out = NULL;
	*n = 0;
	err = kb_dir_read(&ents, backports_dir, KB_DIR_NO_HIDDEN | KB_DIR_UNREADABLE_OK);
	/* the fixes' names stay in ents.names, moved to its front */
	for (i = 0; !err && i < ents.n; i++) {
		if (is_fix_dir(backports_dir, ents.names[i]))
			ents.names[(*n)++] = ents.names[i];
		else
			free(ents.names[i]);
	}
	if (err) {
		kb_dir_release(&ents);
		*n = 0;
	} else {
		*out = ents.names;
	}
	return err;
}

static int find_dirs(char ***out, size_t *n, size_t *alloc, const char *dir, int depth)
{
	struct kb_buf sub = KB_BUF_INIT;
	struct kb_dir ents = KB_DIR_INIT;
	struct stat st;
	size_t i;
	int err;

	if (kb_is_fix_dir(dir))
		return push_name(out, n, alloc, dir);
	if (depth == 0)
		return 0;
	err = kb_dir_read(&ents, dir, KB_DIR_NO_HIDDEN | KB_DIR_UNREADABLE_OK);
	for (i = 0; !err && i < ents.n; i++) {
		kb_buf_clear(&sub);
		if ((err = kb_buf_printf(&sub, "%s/%s", dir, ents.names[i])) == 0 &&
		    stat(sub.ptr, &st) == 0 && S_ISDIR(st.st_mode))
			err = find_dirs(out, n, alloc, sub.ptr, depth - 1);
	}
	kb_dir_release(&ents);
	kb_buf_release(&sub);
	return err;
}

int kb_fix_find_dirs(char ***out, size_t *n, const char *root)
{
	size_t alloc = 0;
	int err;

	*out = NULL;
	*n = 0;
	if ((err = find_dirs(out, n, &alloc, root, 4)) < 0) {
		free_names(*out, *n);
		*out = NULL;
		*n = 0;
	} else if (*n) {
		qsort(*out, *n, sizeof(**out), compare_names);
	}
	return err;
}

int kb_fix_load_all(struct kb_fix ***out, size_t *n, const char *backports_dir)
{
	struct kb_buf dir = KB_BUF_INIT;
	struct kb_fix **fixes = NULL;
	char **names = NULL;
	size_t nnames = 0, i;
	int err;

	*out = NULL;
	*n = 0;
	if ((err = list_fix_dirs(&names, &nnames, backports_dir)) < 0)
		goto done;
	if (!nnames) {
		err = kb_error_set(KB_ENOTFOUND, "no fixes under '%s'", backports_dir);
		goto done;
	}
	if (!(fixes = calloc(nnames, sizeof(*fixes)))) {
		err = kb_error_oom();
		goto done;
	}
	for (i = 0; i < nnames && !err; i++) {
		kb_buf_clear(&dir);
		if ((err = kb_buf_printf(&dir, "%s/%s", backports_dir, names[i])) == 0)
			err = kb_fix_load(&fixes[i], dir.ptr);
	}
	if (err < 0)
		goto done;
	*out = fixes;
	*n = nnames;
	fixes = NULL;
done:
	kb_fix_free_all(fixes, nnames);
	free_names(names, nnames);
	kb_buf_release(&dir);
	return err;
}

/* ---- freeing and lookup ---- */

static void variant_release(struct kb_variant *v)
{
	size_t i;

	for (i = 0; i < v->nwhen; i++) {
		free(v->when[i].path);
		free(v->when[i].text);
	}
	free(v->when);
	free(v->name);
	free(v->why);
	free(v->note);
	free(v->patch_path);
	kb_patch_free(v->patch);
	kb_patch_free(v->reverse);
}

static void marker_release(struct kb_marker *m)
{
	size_t i;

	for (i = 0; i < m->npaths; i++)
		free(m->paths[i]);
	free(m->paths);
	free(m->code);
}

void kb_fix_free(struct kb_fix *fix)
{
	size_t i;

	if (!fix)
		return;
	for (i = 0; i < fix->nvariants; i++)
		variant_release(&fix->variants[i]);
	for (i = 0; i < fix->nvulnerable; i++)
		marker_release(&fix->vulnerable[i]);
	free(fix->variants);
	free(fix->vulnerable);
	kb_audit_rules_free(fix->audit);
	free(fix->id);
	free(fix->dir);
	free(fix->patch_path);
	free(fix->subject);
	free(fix->upstream);
	free(fix->upstream_repo);
	free(fix->cve);
	free(fix->tests_dir);
	free(fix->introduced_by);
	kb_patch_free(fix->patch);
	kb_patch_free(fix->reverse);
	free(fix);
}

bool kb_fix_id_reserved(const char *id)
{
	return !strcasecmp(id, "queue");
}

void kb_fix_free_all(struct kb_fix **fixes, size_t n)
{
	size_t i;

	if (!fixes)
		return;
	for (i = 0; i < n; i++)
		kb_fix_free(fixes[i]);
	free(fixes);
}

const struct kb_variant *kb_fix_variant(const struct kb_fix *fix,
					const char *name)
{
	size_t i;

	for (i = 0; i < fix->nvariants; i++)
		if (!strcmp(fix->variants[i].name, name))
			return &fix->variants[i];
	return NULL;
}
