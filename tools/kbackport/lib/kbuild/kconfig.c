#include "kbuild/kconfig.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct walk {
	git_repository *repo;
	struct kb_kconfig *k;
	size_t alloc;
	int err;
};

static int push(struct walk *w, const char *name, size_t len)
{
	int err;

	if ((err = KB_ARRAY_GROW(w->k->symbols, w->alloc, w->k->n + 1)) < 0)
		return err;
	w->k->symbols[w->k->n] = kb_strndup(name, len);
	KB_ERROR_CHECK_ALLOC(w->k->symbols[w->k->n]);
	w->k->n++;
	return 0;
}

/* "config NAME" / "menuconfig NAME" lines of one Kconfig file. */
static int scan(struct walk *w, const char *text, size_t size)
{
	const char *p = text, *end = text + size, *nl, *name;
	size_t len;
	int err = 0;

	for (; p < end && !err; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		while (p < nl && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(nl - p) > 7 && !strncmp(p, "config", 6) && (p[6] == ' ' || p[6] == '\t'))
			name = p + 7;
		else if ((size_t)(nl - p) > 11 && !strncmp(p, "menuconfig", 10) &&
			 (p[10] == ' ' || p[10] == '\t'))
			name = p + 11;
		else
			continue;
		while (name < nl && (*name == ' ' || *name == '\t'))
			name++;
		for (len = 0; name + len < nl && (isalnum((unsigned char)name[len]) ||
						  name[len] == '_'); len++)
			;
		if (len)
			err = push(w, name, len);
	}
	return err;
}

static int visit(const char *root, const git_tree_entry *entry, void *payload)
{
	struct walk *w = payload;
	git_blob *blob = NULL;

	(void)root;
	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
	    strncmp(git_tree_entry_name(entry), "Kconfig", 7))
		return 0;
	if (git_blob_lookup(&blob, w->repo, git_tree_entry_id(entry)) < 0) {
		w->err = kb_error_git(-1, "cannot read '%s%s'", root, git_tree_entry_name(entry));
		return -1;
	}
	w->err = scan(w, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return w->err < 0 ? -1 : 0;
}

static int compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each once. */
static void sort_unique(struct kb_kconfig *k)
{
	size_t i, n = 0;

	if (k->n > 1)	/* no symbols: no array to sort (qsort wants one) */
		qsort(k->symbols, k->n, sizeof(*k->symbols), compare);
	for (i = 0; i < k->n; i++) {
		if (n && !strcmp(k->symbols[n - 1], k->symbols[i]))
			free(k->symbols[i]);
		else
			k->symbols[n++] = k->symbols[i];
	}
	k->n = n;
}

static int from_tree(struct kb_kconfig *k, git_repository *repo, const git_oid *tree_id)
{
	struct walk w = { repo, k, 0, 0 };
	git_tree *tree = NULL;
	int err;

	if ((err = git_tree_lookup(&tree, repo, tree_id)) < 0)
		return kb_error_git(err, "cannot read the tree to find its Kconfig symbols");
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, visit, &w) < 0 && !w.err)
		w.err = kb_error_git(-1, "cannot walk the tree for its Kconfig files");
	git_tree_free(tree);
	if (!w.err)
		sort_unique(k);
	return w.err;
}

static int from_cache(struct kb_kconfig *k, const char *path)
{
	struct walk w = { NULL, k, 0, 0 };
	char *text = NULL, *p, *nl;
	int err = 0;

	if (kb_read_file(&text, NULL, path) < 0) {
		kb_error_clear();
		return 1;	/* not cached */
	}
	for (p = text; *p && !err; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			break;
		if (nl > p)
			err = push(&w, p, (size_t)(nl - p));
	}
	free(text);
	return err;
}

static int to_cache(const struct kb_kconfig *k, const char *path)
{
	struct kb_buf text = KB_BUF_INIT;
	size_t i;
	int err;

	for (i = 0; i < k->n; i++)
		kb_buf_printf(&text, "%s\n", k->symbols[i]);
	if ((err = kb_buf_check(&text)) == 0)
		err = kb_write_file_atomic(path, text.ptr ? text.ptr : "", text.size);
	kb_buf_release(&text);
	return err;
}

int kb_kconfig_load(struct kb_kconfig *out, git_repository *repo, const git_oid *tree,
		    const char *cache_dir)
{
	struct kb_buf path = KB_BUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	int err = 1;

	memset(out, 0, sizeof(*out));
	git_oid_tostr(hex, sizeof(hex), tree);
	if (cache_dir && (err = kb_buf_printf(&path, "%s/%s", cache_dir, hex)) == 0)
		err = from_cache(out, path.ptr);
	if (err > 0 && (err = from_tree(out, repo, tree)) == 0 && cache_dir &&
	    (err = kb_mkdir_p(cache_dir)) == 0 && to_cache(out, path.ptr) < 0)
		kb_error_clear();	/* a cache not written is no failure */
	kb_buf_release(&path);
	if (err < 0)
		kb_kconfig_release(out);
	return err;
}

void kb_kconfig_release(struct kb_kconfig *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->symbols[i]);
	free(k->symbols);
	memset(k, 0, sizeof(*k));
}

bool kb_kconfig_has(const struct kb_kconfig *k, const char *symbol)
{
	return k->n && bsearch(&symbol, k->symbols, k->n, sizeof(*k->symbols), compare);
}

/* The option a fragment line names, into `name` ("" when none). */
static void option_of(char *name, size_t size, const char *line, size_t len)
{
	const char *p = line;
	size_t n;

	name[0] = '\0';
	if (len > 2 && !strncmp(p, "# ", 2))
		p += 2, len -= 2;
	if (len < 8 || strncmp(p, "CONFIG_", 7))
		return;
	for (n = 7; n < len && (isalnum((unsigned char)p[n]) || p[n] == '_'); n++)
		;
	if (n > 7 && n - 7 < size)
		snprintf(name, size, "%.*s", (int)(n - 7), p + 7);
}

int kb_kconfig_first_unknown(char **out, const struct kb_kconfig *k, const char *fragment)
{
	const char *p = fragment;
	char name[256];
	size_t len;

	*out = NULL;
	for (; p && *p; p += len + (p[len] == '\n')) {
		len = strcspn(p, "\n");
		option_of(name, sizeof(name), p, len);
		if (name[0] && !kb_kconfig_has(k, name)) {
			struct kb_buf b = KB_BUF_INIT;

			if (kb_buf_printf(&b, "CONFIG_%s", name) < 0)
				return kb_error_oom();
			*out = kb_buf_detach(&b);
			return 0;
		}
	}
	return 0;
}

const char *kb_config_value(const char *config, const char *name, size_t len, size_t *vlen)
{
	const char *p = config;
	size_t n;

	for (; p && *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		if (n > len && !strncmp(p, name, len) && p[len] == '=') {
			*vlen = n - len - 1;
			return p + len + 1;
		}
	}
	*vlen = strlen("not set");
	return "not set";
}
