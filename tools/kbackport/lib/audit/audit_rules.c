/*
 * The `audit:` section of a fix.yaml -> struct kb_audit_rules: what the
 * audit looks for is the fix's data, not kbackport's code. Same shape as
 * fix.c: one dispatch per mapping, required keys checked once it is read.
 */
#include "audit/audit.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/kbyaml.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_FORMAT_ARG 16

struct rules_loader {
	struct kb_yaml *y;
	yaml_node_t *map;
};

/* A sequence of `what` with at least one item: its item count. */
static int check_seq(size_t *n, struct kb_yaml *y, yaml_node_t *seq, const char *what)
{
	if (seq->type != YAML_SEQUENCE_NODE)
		return kb_yaml_error(y, seq, KB_EINVALID, "'%s' must be a sequence, not %s",
				     what, kb_yaml_kind(seq));
	*n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	if (!*n)
		return kb_yaml_error(y, seq, KB_EINVALID, "'%s' is empty", what);
	return 0;
}

static int add_callee_name(void *ctx, void *obj, yaml_node_t *value)
{
	struct rules_loader *l = ctx;

	return kb_yaml_dup_string(&((struct kb_audit_callee *)obj)->name, l->y, value,
				  "callee name");
}

static int add_callee_format_arg(void *ctx, void *obj, yaml_node_t *value)
{
	struct rules_loader *l = ctx;
	const char *text;
	char *end;
	long arg;
	int err;

	if ((err = kb_yaml_string(&text, l->y, value, "format-arg")) < 0)
		return err;
	arg = isdigit((unsigned char)text[0]) ? strtol(text, &end, 10) : 0;
	if (arg < 1 || arg > MAX_FORMAT_ARG || *end)
		return kb_yaml_error(l->y, value, KB_EINVALID,
				     "format-arg wants a number from 1 to %d, not '%s'",
				     MAX_FORMAT_ARG, text);
	((struct kb_audit_callee *)obj)->format_arg = (unsigned)arg - 1;
	return 0;
}

static const struct kb_yaml_key callee_keys[] = {
	{ "name", add_callee_name },
	{ "format-arg", add_callee_format_arg },
};

/* `- request_module` or `- {name: __request_module, format-arg: 2}`. */
static int add_callee(struct rules_loader *l, struct kb_audit_callee *c, yaml_node_t *item)
{
	int err;

	if (item->type == YAML_SCALAR_NODE)
		return kb_yaml_dup_string(&c->name, l->y, item, "callee");
	if ((err = kb_yaml_dispatch(l->y, item, "callee", callee_keys,
				    ARRAY_SIZE(callee_keys), l, c)) < 0)
		return err;
	if (!c->name)
		return kb_yaml_error(l->y, item, KB_EINVALID, "callee has no 'name'");
	return 0;
}

static int add_callees(void *ctx, void *obj, yaml_node_t *value)
{
	struct rules_loader *l = ctx;
	struct kb_audit_rules *r = obj;
	yaml_node_item_t *item;
	size_t n;
	int err;

	if ((err = check_seq(&n, l->y, value, "callees")) < 0)
		return err;
	r->callees = calloc(n, sizeof(*r->callees));
	KB_ERROR_CHECK_ALLOC(r->callees);
	for (item = value->data.sequence.items.start;
	     item < value->data.sequence.items.top; item++)
		if ((err = add_callee(l, &r->callees[r->ncallees++],
				      kb_yaml_node(l->y, *item))) < 0)
			return err;
	return 0;
}

static int add_checks(void *ctx, void *obj, yaml_node_t *value)
{
	struct rules_loader *l = ctx;
	struct kb_audit_rules *r = obj;
	yaml_node_item_t *item;
	size_t n;
	int err;

	if ((err = check_seq(&n, l->y, value, "checks")) < 0)
		return err;
	r->checks = calloc(n, sizeof(*r->checks));
	KB_ERROR_CHECK_ALLOC(r->checks);
	for (item = value->data.sequence.items.start;
	     item < value->data.sequence.items.top; item++)
		if ((err = kb_yaml_dup_string(&r->checks[r->nchecks++], l->y,
					      kb_yaml_node(l->y, *item), "check")) < 0)
			return err;
	return 0;
}

static int add_capability(void *ctx, void *obj, yaml_node_t *value)
{
	struct rules_loader *l = ctx;
	struct kb_audit_rules *r = obj;
	int err;

	if ((err = kb_yaml_dup_string(&r->capability, l->y, value, "capability")) < 0)
		return err;
	if (strncmp(r->capability, "CAP_", 4) || !r->capability[4])
		return kb_yaml_error(l->y, value, KB_EINVALID,
				     "capability '%s' does not start with CAP_", r->capability);
	return 0;
}

/* `value` must be one of `names`: its index. */
static int one_of(int *out, struct kb_yaml *y, yaml_node_t *value, const char *what,
		  const char *const *names, size_t n)
{
	const char *text;
	size_t i;
	int err;

	if ((err = kb_yaml_string(&text, y, value, what)) < 0)
		return err;
	for (i = 0; i < n; i++)
		if (!strcmp(text, names[i])) {
			*out = (int)i;
			return 0;
		}
	return kb_yaml_error(y, value, KB_EINVALID, "%s must be %s, %s or %s, not '%s'",
			     what, names[0], names[1], names[2], text);
}

static int add_flag_format(void *ctx, void *obj, yaml_node_t *value)
{
	static const char *const names[] = { "any", "bare", "prefix" };
	static const enum kb_audit_format kinds[] = {
		KB_AUDIT_ANY_FORMAT, KB_AUDIT_BARE, KB_AUDIT_PREFIX,
	};
	struct rules_loader *l = ctx;
	int i, err;

	if ((err = one_of(&i, l->y, value, "flag format", names, ARRAY_SIZE(names))) == 0)
		((struct kb_audit_rules *)obj)->flag_format = kinds[i];
	return err;
}

static int add_flag_guard(void *ctx, void *obj, yaml_node_t *value)
{
	static const char *const names[] = { "any", "if", "function" };
	static const enum kb_guard_kind kinds[] = {
		KB_GUARD_NONE, KB_GUARD_DIRECT, KB_GUARD_FUNCTION,
	};
	struct rules_loader *l = ctx;
	int i, err;

	if ((err = one_of(&i, l->y, value, "flag guard", names, ARRAY_SIZE(names))) == 0)
		((struct kb_audit_rules *)obj)->flag_guard = kinds[i];
	return err;
}

static int add_flag_prefix(void *ctx, void *obj, yaml_node_t *value)
{
	struct rules_loader *l = ctx;

	return kb_yaml_dup_string(&((struct kb_audit_rules *)obj)->flag_prefix, l->y, value,
				  "flag prefix");
}

static const struct kb_yaml_key flag_keys[] = {
	{ "format", add_flag_format },
	{ "guard", add_flag_guard },
	{ "prefix", add_flag_prefix },
};

static int add_flag(void *ctx, void *obj, yaml_node_t *value)
{
	struct rules_loader *l = ctx;

	return kb_yaml_dispatch(l->y, value, "flag", flag_keys, ARRAY_SIZE(flag_keys), l, obj);
}

static int add_message(void *ctx, void *obj, yaml_node_t *value)
{
	struct rules_loader *l = ctx;

	return kb_yaml_dup_string(&((struct kb_audit_rules *)obj)->message, l->y, value,
				  "message");
}

static const struct kb_yaml_key rules_keys[] = {
	{ "callees", add_callees },
	{ "checks", add_checks },
	{ "capability", add_capability },
	{ "flag", add_flag },
	{ "message", add_message },
};

static const char *first_missing(const struct kb_audit_rules *r)
{
	if (!r->callees)
		return "callees";
	if (!r->checks)
		return "checks";
	if (!r->capability)
		return "capability";
	if (!r->message)
		return "message";
	return NULL;
}

/* "CVE-2011-1019" -> "cve_2011_1019_pattern" */
static char *json_key(const char *id)
{
	struct kb_buf key = KB_BUF_INIT;
	const char *p;

	for (p = id; *p; p++)
		kb_buf_putc(&key, *p == '-' || *p == '.' ? '_' : (char)tolower((unsigned char)*p));
	if (kb_buf_puts(&key, "_pattern") < 0) {
		kb_buf_release(&key);
		return NULL;
	}
	return kb_buf_detach(&key);
}

int kb_audit_rules_load(struct kb_audit_rules **out, struct kb_yaml *y,
			yaml_node_t *map, const char *id)
{
	struct rules_loader l = { y, map };
	struct kb_audit_rules *r;
	const char *missing;
	int err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	KB_ERROR_CHECK_ALLOC(r);
	r->flag_format = KB_AUDIT_BARE;
	r->flag_guard = KB_GUARD_DIRECT;
	if ((err = kb_yaml_dispatch(y, map, "audit", rules_keys, ARRAY_SIZE(rules_keys),
				    &l, r)) < 0)
		goto done;
	if ((missing = first_missing(r))) {
		err = kb_yaml_error(y, map, KB_EINVALID, "audit has no '%s'", missing);
		goto done;
	}
	if (!(r->key = json_key(id)))
		err = kb_error_oom();
done:
	if (err < 0)
		kb_audit_rules_free(r);
	else
		*out = r;
	return err;
}

void kb_audit_rules_free(struct kb_audit_rules *rules)
{
	size_t i;

	if (!rules)
		return;
	for (i = 0; i < rules->ncallees; i++)
		free(rules->callees[i].name);
	free(rules->callees);
	for (i = 0; i < rules->nchecks; i++)
		free(rules->checks[i]);
	free(rules->checks);
	free(rules->capability);
	free(rules->flag_prefix);
	free(rules->message);
	free(rules->key);
	free(rules);
}
