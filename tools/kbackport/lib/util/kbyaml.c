/*
 * Small helpers over libyaml's document API. libyaml marks are 0-based;
 * every message here is 1-based, as editors count.
 */
#include "util/kbyaml.h"
#include "util/closest.h"
#include "util/buf.h"
#include "util/error.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static size_t line_of(const yaml_mark_t *mark)
{
	return mark->line + 1;
}

static size_t column_of(const yaml_mark_t *mark)
{
	return mark->column + 1;
}

/* Reader errors (bad UTF-8, control characters) carry only a byte offset. */
static void offset_position(size_t *line, size_t *col, const char *buf,
			    size_t len, size_t offset)
{
	size_t i;

	*line = *col = 1;
	for (i = 0; i < offset && i < len; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int syntax_error(const yaml_parser_t *parser, const char *buf,
			size_t len, const char *origin)
{
	const char *problem = parser->problem ? parser->problem : "cannot parse";
	size_t line, col;

	if (parser->error == YAML_MEMORY_ERROR)
		return kb_error_oom();
	if (parser->error == YAML_READER_ERROR) {
		offset_position(&line, &col, buf, len, parser->problem_offset);
		return kb_error_set(KB_EINVALID, "%s:%zu:%zu: %s", origin,
				    line, col, problem);
	}
	if (parser->context)
		return kb_error_set(KB_EINVALID, "%s:%zu:%zu: %s (%s at line %zu)",
				    origin, line_of(&parser->problem_mark),
				    column_of(&parser->problem_mark), problem,
				    parser->context,
				    line_of(&parser->context_mark));
	return kb_error_set(KB_EINVALID, "%s:%zu:%zu: %s", origin,
			    line_of(&parser->problem_mark),
			    column_of(&parser->problem_mark), problem);
}

static bool same_scalar(const yaml_node_t *a, const yaml_node_t *b)
{
	return a->type == YAML_SCALAR_NODE && b->type == YAML_SCALAR_NODE &&
	       a->data.scalar.length == b->data.scalar.length &&
	       !memcmp(a->data.scalar.value, b->data.scalar.value,
		       a->data.scalar.length);
}

/* libyaml accepts duplicate keys, YAML does not; the second would win silently. */
static int check_mapping_keys(struct kb_yaml *y, yaml_node_t *map)
{
	yaml_node_pair_t *p, *q;
	yaml_node_t *k, *first;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		k = kb_yaml_node(y, p->key);
		for (q = map->data.mapping.pairs.start; q < p; q++) {
			first = kb_yaml_node(y, q->key);
			if (k && first && same_scalar(k, first))
				return kb_yaml_error(y, k, KB_EINVALID,
						     "duplicate key '%s' (first at line %zu)",
						     (const char *)k->data.scalar.value,
						     line_of(&first->start_mark));
		}
	}
	return 0;
}

static int check_duplicate_keys(struct kb_yaml *y)
{
	yaml_node_t *node;
	int err = 0;

	for (node = y->doc.nodes.start; node < y->doc.nodes.top && !err; node++)
		if (node->type == YAML_MAPPING_NODE)
			err = check_mapping_keys(y, node);
	return err;
}

/* A second document would be ignored: say so instead. */
static int check_single_document(struct kb_yaml *y, yaml_parser_t *parser,
				 const char *buf, size_t len)
{
	yaml_document_t next;
	yaml_node_t *root;
	int err = 0;

	if (!yaml_parser_load(parser, &next))
		return syntax_error(parser, buf, len, y->origin);
	if ((root = yaml_document_get_root_node(&next)) != NULL)
		err = kb_yaml_error(y, root, KB_EINVALID,
				    "more than one YAML document");
	yaml_document_delete(&next);
	return err;
}

int kb_yaml_load(struct kb_yaml *y, const char *buf, size_t len,
		 const char *origin)
{
	yaml_parser_t parser;
	int err = 0;

	memset(y, 0, sizeof(*y));
	y->origin = origin;
	KB_ERROR_CHECK_ALLOC(yaml_parser_initialize(&parser));
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &y->doc)) {
		err = syntax_error(&parser, buf, len, origin);
		goto done;
	}
	y->loaded = true;
	if ((err = check_single_document(y, &parser, buf, len)) < 0 ||
	    (err = check_duplicate_keys(y)) < 0)
		goto done;
done:
	yaml_parser_delete(&parser);
	if (err < 0)
		kb_yaml_release(y);
	return err;
}

void kb_yaml_release(struct kb_yaml *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	y->loaded = false;
}

yaml_node_t *kb_yaml_root(struct kb_yaml *y)
{
	return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *kb_yaml_node(struct kb_yaml *y, int index)
{
	return y->loaded ? yaml_document_get_node(&y->doc, index) : NULL;
}

int kb_yaml_error(struct kb_yaml *y, const yaml_node_t *node, int code,
		  const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!node)
		return kb_error_set(code, "%s: %s", y->origin, msg);
	return kb_error_set(code, "%s:%zu:%zu: %s", y->origin,
			    line_of(&node->start_mark),
			    column_of(&node->start_mark), msg);
}

static const char *type_name(const yaml_node_t *node)
{
	if (node->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (node->type == YAML_SEQUENCE_NODE)
		return "a sequence";
	return "null";
}

int kb_yaml_string(const char **out, struct kb_yaml *y, yaml_node_t *node,
		   const char *what)
{
	*out = NULL;
	if (node->type != YAML_SCALAR_NODE || kb_yaml_is_null(node))
		return kb_yaml_error(y, node, KB_EINVALID,
				     "'%s' must be a string, not %s", what,
				     type_name(node));
	if (strlen((const char *)node->data.scalar.value) != node->data.scalar.length)
		return kb_yaml_error(y, node, KB_EINVALID,
				     "'%s' contains a NUL character", what);
	*out = (const char *)node->data.scalar.value;
	return 0;
}

/* Only plain scalars: a quoted "false" is a string, and reads as a mistake. */
int kb_yaml_bool(bool *out, struct kb_yaml *y, yaml_node_t *node,
		 const char *what)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	const char *v;
	size_t i;

	if (node->type == YAML_SCALAR_NODE &&
	    node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		v = (const char *)node->data.scalar.value;
		for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
			if (!strcasecmp(v, yes[i]) || !strcasecmp(v, no[i])) {
				*out = !strcasecmp(v, yes[i]);
				return 0;
			}
		}
	}
	return kb_yaml_error(y, node, KB_EINVALID, "'%s' must be true or false",
			     what);
}

bool kb_yaml_is_null(const yaml_node_t *node)
{
	const char *v;

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)node->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

const char *kb_yaml_kind(const yaml_node_t *node)
{
	if (node->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (node->type == YAML_SEQUENCE_NODE)
		return "a sequence";
	return kb_yaml_is_null(node) ? "null" : "a string";
}

int kb_yaml_dup_string(char **out, struct kb_yaml *y, yaml_node_t *value,
		       const char *what)
{
	const char *s;
	int err;

	if ((err = kb_yaml_string(&s, y, value, what)) < 0)
		return err;
	if (!*s)
		return kb_yaml_error(y, value, KB_EINVALID, "'%s' must not be empty", what);
	*out = kb_strdup(s);
	KB_ERROR_CHECK_ALLOC(*out);
	return 0;
}

static int unknown_key(struct kb_yaml *y, yaml_node_t *key, const char *where,
		       const struct kb_yaml_key *keys, size_t nkeys)
{
	struct kb_buf expected = KB_BUF_INIT, hint = KB_BUF_INIT;
	const char **names = calloc(nkeys + 1, sizeof(*names));
	const char *word = (const char *)key->data.scalar.value, *near;
	size_t i;
	int err = names ? 0 : kb_error_oom();

	for (i = 0; i < nkeys && !err; i++) {
		names[i] = keys[i].key;
		kb_buf_printf(&expected, "%s%s", i ? ", " : "", keys[i].key);
	}
	/* as git: a key close to one it knows is named on a line of its own */
	if (!err && (near = kb_closest(word, names, nkeys)))
		kb_buf_printf(&hint, "\nhint: did you mean '%s'?", near);
	if (!err && (err = kb_buf_check(&expected)) == 0 && (err = kb_buf_check(&hint)) == 0)
		err = kb_yaml_error(y, key, KB_EINVALID,
				    "unknown key '%s' in %s (expected %s)%s",
				    word, where, expected.ptr, hint.size ? hint.ptr : "");
	kb_buf_release(&expected);
	kb_buf_release(&hint);
	free(names);
	return err;
}

static const struct kb_yaml_key *find_key(const struct kb_yaml_key *keys,
					  size_t nkeys, const char *key)
{
	size_t i;

	for (i = 0; i < nkeys; i++)
		if (!strcmp(keys[i].key, key))
			return &keys[i];
	return NULL;
}

int kb_yaml_dispatch(struct kb_yaml *y, yaml_node_t *map, const char *where,
		     const struct kb_yaml_key *keys, size_t nkeys, void *ctx,
		     void *obj)
{
	const struct kb_yaml_key *h;
	yaml_node_pair_t *pair;
	yaml_node_t *k, *v;
	int err = 0;

	if (map->type != YAML_MAPPING_NODE)
		return kb_yaml_error(y, map, KB_EINVALID, "%s must be a mapping, not %s",
				     where, kb_yaml_kind(map));
	for (pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top && !err; pair++) {
		k = kb_yaml_node(y, pair->key);
		v = kb_yaml_node(y, pair->value);
		if (k->type != YAML_SCALAR_NODE)
			return kb_yaml_error(y, k, KB_EINVALID, "keys in %s must be strings",
					     where);
		if (!(h = find_key(keys, nkeys, (const char *)k->data.scalar.value)))
			return unknown_key(y, k, where, keys, nkeys);
		if (!kb_yaml_is_null(v))
			err = h->add(ctx, obj, v);
	}
	return err;
}
