/*
 * Small helpers over libyaml's document API, shared by the loaders of
 * branches.yaml and backports/<id>/fix.yaml. Every error names the file,
 * line and column ("branches.yaml:4:5: ...", 1-based).
 */
#ifndef KB_KBYAML_H
#define KB_KBYAML_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

struct kb_yaml {
	yaml_document_t doc;
	bool loaded;
	const char *origin;	/* file name used in messages (not owned) */
};

/* Parse one document; syntax errors carry libyaml's problem and position. */
int kb_yaml_load(struct kb_yaml *y, const char *buf, size_t len,
		 const char *origin);
void kb_yaml_release(struct kb_yaml *y);

yaml_node_t *kb_yaml_root(struct kb_yaml *y);
yaml_node_t *kb_yaml_node(struct kb_yaml *y, int index);

/* Record "origin:line:col: <message>" for `node` and return `code`. */
int kb_yaml_error(struct kb_yaml *y, const yaml_node_t *node, int code,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A scalar's value (NUL-terminated, owned by the document), or an error. */
int kb_yaml_string(const char **out, struct kb_yaml *y, yaml_node_t *node,
		   const char *what);
/* true/false/yes/no/on/off. */
int kb_yaml_bool(bool *out, struct kb_yaml *y, yaml_node_t *node,
		 const char *what);
/* The scalar is the null value (~, null, or empty and plain). */
bool kb_yaml_is_null(const yaml_node_t *node);

/* "a mapping", "a sequence", "null" or "a string", for messages. */
const char *kb_yaml_kind(const yaml_node_t *node);

/* A non-empty string scalar, copied into *out. */
int kb_yaml_dup_string(char **out, struct kb_yaml *y, yaml_node_t *value,
		       const char *what);

/*
 * One key of a mapping and what to do with its value: `ctx` is the
 * loader's own state, `obj` the object being filled.
 */
struct kb_yaml_key {
	const char *key;
	int (*add)(void *ctx, void *obj, yaml_node_t *value);
};

/*
 * The one loop of the loaders (as kmod's config parser): every key of
 * `map` goes to its handler in `keys`; unknown keys are errors that list
 * the expected ones; a null value means "not given" and is skipped.
 * `where` names the mapping in messages ("branch", "variant").
 */
int kb_yaml_dispatch(struct kb_yaml *y, yaml_node_t *map, const char *where,
		     const struct kb_yaml_key *keys, size_t nkeys, void *ctx,
		     void *obj);

#endif
