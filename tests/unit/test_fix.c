/* backports/<id>/ loading: fix.yaml schema, patches, errors, load_all. */
#include "unit.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "fix.h"
#include "fix_patch.h"
#include "sandbox.h"

#define FIX_ID "CVE-2011-1019"
#define SUBJECT_TEXT "net: don't allow CAP_NET_ADMIN to load non-netdev kernel modules"

static const char diff_text[] = FIX_PATCH_DIFF;
static const char mail_text[] = FIX_PATCH_MAIL(SUBJECT_TEXT);

/* The lines of a minimal valid fix.yaml, to compose variations from. */
#define ID "id: " FIX_ID "\n"
#define SUBJECT "subject: \"" SUBJECT_TEXT "\"\n"
#define UPSTREAM "upstream: 8909c9ad8ff03611c9c96c9a92656213e4bb495b\n"
#define PATCH "patch: upstream.patch\n"
#define VARIANT(name) \
	"  - name: " name "\n" \
	"    patch: upstream.patch\n" \
	"    why: as upstream\n"

struct fix_sandbox {
	struct sandbox sb;
	const char *dir;	/* sb.dir */
	char backports[128];	/* dir/backports */
	char fix[192];		/* dir/backports/FIX_ID */
};

static int setup(void **state)
{
	struct fix_sandbox *s = calloc(1, sizeof(*s));

	if (!s || sandbox_init(&s->sb) < 0) {
		free(s);
		return -1;
	}
	s->dir = s->sb.dir;
	snprintf(s->backports, sizeof(s->backports), "%s/backports", s->dir);
	snprintf(s->fix, sizeof(s->fix), "%s/%s", s->backports, FIX_ID);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct fix_sandbox *s = *state;

	sandbox_release(&s->sb);
	free(s);
	return 0;
}

/* Write `text` to `path`, creating the directories on the way. */
static void write_path(const char *path, const char *text)
{
	char dir[512], *slash;
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
		*slash = '/';
	}
	assert_non_null(fp = fopen(path, "w"));
	assert_true(fputs(text, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
}

static void write_in(const char *dir, const char *rel, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	write_path(path, text);
}

/* A fix directory: fix.yaml as given, the upstream patch and one variant patch. */
static void make_fix(const char *dir, const char *yaml)
{
	char patch[2048];

	snprintf(patch, sizeof(patch), "%s%s", mail_text, diff_text);
	write_in(dir, "fix.yaml", yaml);
	write_in(dir, "upstream.patch", patch);
	write_in(dir, "variants/2.6.32.patch", diff_text);
}

static void expect_error(void **state, const char *yaml, int code,
			 const char *message)
{
	struct fix_sandbox *s = *state;
	struct kb_fix *fix = (void *)1;
	char expected[1024];

	make_fix(s->fix, yaml);
	kb_error_clear();
	assert_int_equal(kb_fix_load(&fix, s->fix), code);
	assert_null(fix);
	snprintf(expected, sizeof(expected), "%s/fix.yaml:%s", s->fix, message);
	assert_string_equal(kb_error_last(), expected);
}

static const char valid_yaml[] =
	"# a fix with every field\n"
	ID SUBJECT UPSTREAM
	"cve: CVE-2011-1019\n"
	"introduced-by: a8f80e8ff94ecba629542d9b4b5f5a8ee3eb565c\n"
	"upstream-repo: https://git.example.org/pub/linux.git\n"
	PATCH
	"vulnerable:\n"
	"  - paths: [net/core/dev.c, net/core/dev_ioctl.c]\n"
	"    code: |\n"
	"      if (!dev && capable(CAP_NET_ADMIN))\n"
	"              request_module(\"%s\", name);\n"
	"variants:\n"
	"  - name: upstream\n"
	"    patch: upstream.patch\n"
	"    why: \"2.6.37+: as upstream\"\n"
	"    when:\n"
	"      - file: net/core/dev.c\n"
	"        contains: \"dev = dev_get_by_name_rcu(net, name);\"\n"
	"      - file: net/ipv4/ipip.c\n"
	"        lacks: 'MODULE_ALIAS(\"tunl0\");'\n"
	"      - file: net/core/dev_ioctl.c\n"
	"        exists: false\n"
	"      - {file: net/core/dev.c, exists: true}\n"
	"  - name: \"2.6.32\"\n"
	"    patch: variants/2.6.32.patch\n"
	"    why: \"2.6.32.y: dev_base_lock\"\n"
	"    note: >-\n"
	"      2.6.32: dev_load uses\n"
	"      dev_base_lock here\n"
	"    when: ~\n";

static void check_variants(const struct fix_sandbox *s, const struct kb_fix *fix)
{
	const struct kb_variant *v = &fix->variants[0];
	char path[512];

	assert_int_equal(fix->nvariants, 2);
	assert_string_equal(v->name, "upstream");
	assert_string_equal(v->why, "2.6.37+: as upstream");
	assert_null(v->note);
	snprintf(path, sizeof(path), "%s/upstream.patch", s->fix);
	assert_string_equal(v->patch_path, path);
	assert_string_equal(v->patch->subject, SUBJECT_TEXT);
	assert_int_equal(v->nwhen, 4);
	assert_int_equal(v->when[0].kind, KB_COND_CONTAINS);
	assert_string_equal(v->when[0].path, "net/core/dev.c");
	assert_string_equal(v->when[0].text, "dev = dev_get_by_name_rcu(net, name);");
	assert_int_equal(v->when[1].kind, KB_COND_LACKS);
	assert_string_equal(v->when[1].text, "MODULE_ALIAS(\"tunl0\");");
	assert_int_equal(v->when[2].kind, KB_COND_MISSING);
	assert_string_equal(v->when[2].path, "net/core/dev_ioctl.c");
	assert_null(v->when[2].text);
	assert_int_equal(v->when[3].kind, KB_COND_EXISTS);
	assert_null(v->when[3].text);

	v = &fix->variants[1];
	assert_string_equal(v->name, "2.6.32");
	assert_string_equal(v->note, "2.6.32: dev_load uses dev_base_lock here");
	snprintf(path, sizeof(path), "%s/variants/2.6.32.patch", s->fix);
	assert_string_equal(v->patch_path, path);
	assert_null(v->patch->subject);
	assert_int_equal(v->patch->nfiles, 1);
	assert_int_equal(v->nwhen, 0);

	assert_ptr_equal(kb_fix_variant(fix, "2.6.32"), &fix->variants[1]);
	assert_null(kb_fix_variant(fix, "2.6.33"));
}

static void test_valid(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix *fix = NULL;

	make_fix(s->fix, valid_yaml);
	assert_int_equal(kb_fix_load(&fix, s->fix), 0);
	assert_string_equal(fix->id, FIX_ID);
	assert_string_equal(fix->dir, s->fix);
	assert_string_equal(fix->subject, SUBJECT_TEXT);
	assert_string_equal(fix->upstream, "8909c9ad8ff03611c9c96c9a92656213e4bb495b");
	assert_string_equal(fix->cve, "CVE-2011-1019");
	assert_string_equal(fix->introduced_by, "a8f80e8ff94ecba629542d9b4b5f5a8ee3eb565c");
	assert_string_equal(fix->upstream_repo, "https://git.example.org/pub/linux.git");
	assert_string_equal(fix->patch->author_name, "Vasiliy Kulikov");
	assert_string_equal(fix->patch->subject, SUBJECT_TEXT);
	assert_int_equal(fix->nvulnerable, 1);
	assert_int_equal(fix->vulnerable[0].npaths, 2);
	assert_string_equal(fix->vulnerable[0].paths[1], "net/core/dev_ioctl.c");
	assert_string_equal(fix->vulnerable[0].code,
			    "if (!dev && capable(CAP_NET_ADMIN))\n"
			    "        request_module(\"%s\", name);\n");
	check_variants(s, fix);
	kb_fix_free(fix);
}

/* Optional fields left out, and a directory given with a trailing slash. */
static void test_minimal(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix *fix = NULL;
	char dir[256];

	make_fix(s->fix, ID SUBJECT UPSTREAM PATCH "cve: ~\nvariants:\n" VARIANT("upstream"));
	snprintf(dir, sizeof(dir), "%s/", s->fix);
	assert_int_equal(kb_fix_load(&fix, dir), 0);
	assert_string_equal(fix->dir, s->fix);
	assert_null(fix->cve);
	assert_null(fix->introduced_by);
	assert_null(fix->upstream_repo);	/* the reproduce commands use mainline */
	assert_int_equal(fix->nvulnerable, 0);
	assert_int_equal(fix->nvariants, 1);
	assert_int_equal(fix->variants[0].nwhen, 0);
	kb_fix_free(fix);
}

static void test_id_mismatch(void **state)
{
	expect_error(state,
		     "id: CVE-2011-1018\n" SUBJECT UPSTREAM PATCH "variants:\n" VARIANT("upstream"),
		     KB_EINVALID,
		     "1:5: id 'CVE-2011-1018' does not match the directory name '" FIX_ID "'");
}

/* refs/heads/backport/queue/ holds the queues' refs: no fix may be named so. */
static void test_id_queue_reserved(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix *fix = (void *)1;
	const char *const ids[] = { "queue", "Queue" };
	char dir[256], yaml[512], want[512];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", s->backports, ids[i]);
		snprintf(yaml, sizeof(yaml), "id: %s\n" SUBJECT UPSTREAM PATCH "variants:\n"
			 VARIANT("upstream"), ids[i]);
		make_fix(dir, yaml);
		assert_int_equal(kb_fix_load(&fix, dir), KB_EINVALID);
		assert_null(fix);
		snprintf(want, sizeof(want), "%s/fix.yaml:1:5: '%s' cannot be a fix id: "
			 "refs/heads/backport/queue/ holds the queues' refs", dir, ids[i]);
		assert_string_equal(kb_error_last(), want);
	}
	assert_true(kb_fix_id_reserved("QUEUE"));
	assert_false(kb_fix_id_reserved("queue-6.1"));
	assert_false(kb_fix_id_reserved("queues"));
}

static void test_bad_sha(void **state)
{
	expect_error(state,
		     ID SUBJECT "upstream: 8909C9AD8FF03611C9C96C9A92656213E4BB495B\n"
		     PATCH "variants:\n" VARIANT("upstream"),
		     KB_EINVALID,
		     "3:11: 'upstream' must be a full commit id (40 lowercase hex "
		     "digits), not '8909C9AD8FF03611C9C96C9A92656213E4BB495B'");
}

static void test_short_introduced_by(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM "introduced-by: a8f80e8ff94e\n"
		     PATCH "variants:\n" VARIANT("upstream"),
		     KB_EINVALID,
		     "4:16: 'introduced-by' must be a full commit id (40 lowercase "
		     "hex digits), not 'a8f80e8ff94e'");
}

/* It is copied into shell commands: one word, nothing the shell expands. */
static void test_bad_upstream_repo(void **state)
{
	static const char *const bad[] = { "\"a b\"", "\"x;rm -rf /\"", "\"$(id)\"" };
	char yaml[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(yaml, sizeof(yaml), ID SUBJECT UPSTREAM "upstream-repo: %s\n", bad[i]);
		expect_error(state, yaml, KB_EINVALID,
			     "4:16: 'upstream-repo' must be a URL or path without spaces or "
			     "shell characters");
	}
}

static void test_subject_mismatch(void **state)
{
	expect_error(state,
		     ID "subject: \"net: don't allow CAP_NET_ADMIN to load modules\"\n"
		     UPSTREAM PATCH "variants:\n" VARIANT("upstream"),
		     KB_EINVALID,
		     "2:10: subject does not match the Subject of 'upstream.patch'");
}

static void test_missing_patch(void **state)
{
	struct fix_sandbox *s = *state;
	char message[512];

	snprintf(message, sizeof(message),
		 "4:8: cannot open '%s/missing.patch': No such file or directory",
		 s->fix);
	expect_error(state,
		     ID SUBJECT UPSTREAM "patch: missing.patch\nvariants:\n" VARIANT("upstream"),
		     KB_ENOTFOUND, message);
}

static void test_patch_dotdot(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM "patch: variants/../../upstream.patch\n"
		     "variants:\n" VARIANT("upstream"),
		     KB_EINVALID,
		     "4:8: path 'variants/../../upstream.patch' must be relative "
		     "to the fix directory, without '..'");
}

static void test_patch_absolute(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM PATCH "variants:\n"
		     "  - name: upstream\n"
		     "    patch: /etc/passwd\n"
		     "    why: no\n",
		     KB_EINVALID,
		     "7:12: path '/etc/passwd' must be relative to the fix "
		     "directory, without '..'");
}

static void test_duplicate_variant(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM PATCH "variants:\n"
		     VARIANT("upstream") VARIANT("\"2.6.32\"") VARIANT("upstream"),
		     KB_EINVALID,
		     "12:11: duplicate variant name 'upstream' (first at line 6)");
}

static void test_when_contains_and_lacks(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM PATCH "variants:\n" VARIANT("upstream")
		     "    when:\n"
		     "      - file: net/core/dev.c\n"
		     "        contains: a\n"
		     "        lacks: b\n",
		     KB_EINVALID,
		     "12:16: when entry has both 'contains' and 'lacks' (expected "
		     "exactly one of contains, lacks, exists)");
}

static void test_when_without_test(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM PATCH "variants:\n" VARIANT("upstream")
		     "    when:\n"
		     "      - file: net/core/dev.c\n",
		     KB_EINVALID,
		     "10:9: when entry has none of 'contains', 'lacks', 'exists'");
}

static void test_when_exists_not_bool(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM PATCH "variants:\n" VARIANT("upstream")
		     "    when:\n"
		     "      - {file: net/core/dev.c, exists: maybe}\n",
		     KB_EINVALID, "10:40: 'exists' must be true or false");
}

static void test_no_variants(void **state)
{
	expect_error(state, ID SUBJECT UPSTREAM PATCH "variants: []\n",
		     KB_EINVALID, "5:11: 'variants' is empty");
}

/* Without variants, the fix's own patch is its one variant. */
static void test_variants_missing(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix *fix = NULL;

	make_fix(s->fix, ID SUBJECT UPSTREAM PATCH);
	if (kb_fix_load(&fix, s->fix) < 0)
		fail_msg("%s", kb_error_last());

	assert_int_equal(fix->nvariants, 1);
	assert_string_equal(fix->variants[0].name, "patch");
	assert_int_equal(fix->variants[0].nwhen, 0);
	assert_int_equal(fix->variants[0].patch->nfiles, fix->patch->nfiles);
	assert_int_equal(fix->variants[0].reverse->nfiles, fix->patch->nfiles);
	kb_fix_free(fix);
}

static void test_variant_without_why(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM PATCH "variants:\n"
		     "  - name: upstream\n"
		     "    patch: upstream.patch\n",
		     KB_EINVALID, "6:5: variant has no 'why'");
}

static void test_unknown_variant_key(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM PATCH "variants:\n" VARIANT("upstream")
		     "    notes: x\n",
		     KB_EINVALID,
		     "9:5: unknown key 'notes' in variant (expected name, patch, "
		     "why, note, when)\nhint: did you mean 'note'?");
}

static void test_vulnerable_without_paths(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM PATCH
		     "vulnerable:\n"
		     "  - paths: []\n"
		     "    code: x\n"
		     "variants:\n" VARIANT("upstream"),
		     KB_EINVALID, "6:12: 'paths' is empty");
}

static void test_vulnerable_scalar(void **state)
{
	expect_error(state,
		     ID SUBJECT UPSTREAM PATCH "vulnerable: yes\nvariants:\n" VARIANT("upstream"),
		     KB_EINVALID, "5:13: 'vulnerable' must be a sequence, not a string");
}

static void test_missing_fix_yaml(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix *fix = (void *)1;

	assert_int_equal(kb_fix_load(&fix, s->fix), KB_ENOTFOUND);
	assert_null(fix);
	assert_non_null(strstr(kb_error_last(), "/fix.yaml"));
}

/* A second fix whose id sorts first; directories without fix.yaml skipped. */
static void test_load_all(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix **fixes = NULL;
	char dir[256];
	size_t n = 0;

	make_fix(s->fix, valid_yaml);
	snprintf(dir, sizeof(dir), "%s/CVE-2010-0001", s->backports);
	make_fix(dir, "id: CVE-2010-0001\n" SUBJECT UPSTREAM PATCH
		 "variants:\n" VARIANT("upstream"));
	write_in(s->backports, "notes/README", "not a fix\n");
	write_in(s->backports, "README", "not a fix either\n");

	assert_int_equal(kb_fix_load_all(&fixes, &n, s->backports), 0);
	assert_int_equal(n, 2);
	assert_string_equal(fixes[0]->id, "CVE-2010-0001");
	assert_string_equal(fixes[1]->id, FIX_ID);
	kb_fix_free_all(fixes, n);
}

static void test_load_all_stops_on_error(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix **fixes = (void *)1;
	char dir[256];
	size_t n = 7;

	make_fix(s->fix, valid_yaml);
	snprintf(dir, sizeof(dir), "%s/CVE-2010-0001", s->backports);
	make_fix(dir, "id: CVE-2010-0002\n");
	assert_int_equal(kb_fix_load_all(&fixes, &n, s->backports), KB_EINVALID);
	assert_null(fixes);
	assert_int_equal(n, 0);
	assert_non_null(strstr(kb_error_last(), "does not match the directory name"));
}

static void test_load_all_empty(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix **fixes = (void *)1;
	char expected[256];
	size_t n = 7;

	assert_int_equal(kb_fix_load_all(&fixes, &n, s->backports), KB_ENOTFOUND);
	snprintf(expected, sizeof(expected), "no fixes under '%s'", s->backports);
	assert_string_equal(kb_error_last(), expected);
	assert_null(fixes);
	assert_int_equal(n, 0);

	write_in(s->backports, "notes/README", "not a fix\n");
	assert_int_equal(kb_fix_load_all(&fixes, &n, s->backports), KB_ENOTFOUND);
	assert_string_equal(kb_error_last(), expected);
}

/* ---- audit: what `kbackport audit` looks for is the fix's data ---- */

#define BASE ID SUBJECT UPSTREAM PATCH "variants:\n" VARIANT("upstream")

static void test_audit_rules(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix *fix = NULL;
	const struct kb_audit_rules *r;

	make_fix(s->fix, BASE
		 "audit:\n"
		 "  callees:\n"
		 "    - request_module\n"
		 "    - {name: __request_module, format-arg: 2}\n"
		 "  checks: [capable, ns_capable]\n"
		 "  capability: CAP_NET_ADMIN\n"
		 "  flag: {format: prefix, guard: function, prefix: tcp_}\n"
		 "  message: \"the pattern\"\n");
	assert_int_equal(kb_fix_load(&fix, s->fix), 0);
	assert_non_null(r = fix->audit);
	assert_int_equal(r->ncallees, 2);
	assert_string_equal(r->callees[0].name, "request_module");
	assert_int_equal(r->callees[0].format_arg, 0);
	assert_string_equal(r->callees[1].name, "__request_module");
	assert_int_equal(r->callees[1].format_arg, 1);
	assert_int_equal(r->nchecks, 2);
	assert_string_equal(r->checks[1], "ns_capable");
	assert_string_equal(r->capability, "CAP_NET_ADMIN");
	assert_int_equal(r->flag_format, KB_AUDIT_PREFIX);
	assert_int_equal(r->flag_guard, KB_GUARD_FUNCTION);
	assert_string_equal(r->flag_prefix, "tcp_");
	assert_string_equal(r->message, "the pattern");
	assert_string_equal(r->key, "cve_2011_1019_pattern");
	kb_fix_free(fix);
}

/* No flag: a bare format under a direct check; no audit: section, no rules. */
static void test_audit_defaults(void **state)
{
	struct fix_sandbox *s = *state;
	struct kb_fix *fix = NULL;

	make_fix(s->fix, BASE "audit:\n  callees: [f]\n  checks: [capable]\n"
		 "  capability: CAP_SYS_ADMIN\n  message: m\n");
	assert_int_equal(kb_fix_load(&fix, s->fix), 0);
	assert_int_equal(fix->audit->flag_format, KB_AUDIT_BARE);
	assert_int_equal(fix->audit->flag_guard, KB_GUARD_DIRECT);
	assert_null(fix->audit->flag_prefix);
	kb_fix_free(fix);
	make_fix(s->fix, BASE);
	assert_int_equal(kb_fix_load(&fix, s->fix), 0);
	assert_null(fix->audit);
	kb_fix_free(fix);
}

#define RULES_REST "  checks: [capable]\n  capability: CAP_NET_ADMIN\n  message: m\n"

static void test_audit_no_capability(void **state)
{
	expect_error(state, BASE "audit:\n  callees: [f]\n  checks: [capable]\n  message: m\n",
		     KB_EINVALID, "10:3: audit has no 'capability'");
}

static void test_audit_unknown_key(void **state)
{
	expect_error(state, BASE "audit:\n  callee: [f]\n" RULES_REST,
		     KB_EINVALID, "10:3: unknown key 'callee' in audit (expected callees, checks, capability, flag, message)\n"
		     "hint: did you mean 'callees'?");
}

static void test_audit_empty_callees(void **state)
{
	expect_error(state, BASE "audit:\n  callees: []\n" RULES_REST,
		     KB_EINVALID, "10:12: 'callees' is empty");
}

static void test_audit_callee_without_name(void **state)
{
	expect_error(state, BASE "audit:\n  callees: [{format-arg: 2}]\n" RULES_REST,
		     KB_EINVALID, "10:13: callee has no 'name'");
}

static void test_audit_bad_format_arg(void **state)
{
	expect_error(state, BASE "audit:\n  callees: [{name: f, format-arg: 0x1}]\n" RULES_REST,
		     KB_EINVALID, "10:35: format-arg wants a number from 1 to 16, not '0x1'");
}

static void test_audit_bad_flag(void **state)
{
	expect_error(state, BASE "audit:\n  callees: [f]\n" RULES_REST "  flag: {format: naked}\n",
		     KB_EINVALID, "14:18: flag format must be any, bare or prefix, not 'naked'");
}

static void test_audit_bad_capability(void **state)
{
	expect_error(state, BASE "audit:\n  callees: [f]\n  checks: [capable]\n"
		     "  capability: NET_ADMIN\n  message: m\n",
		     KB_EINVALID, "12:15: capability 'NET_ADMIN' does not start with CAP_");
}

static void test_audit_not_a_mapping(void **state)
{
	expect_error(state, BASE "audit: [request_module]\n", KB_EINVALID, "9:8: audit must be a mapping, not a sequence");
}

#define SANDBOXED(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		SANDBOXED(test_valid),
		SANDBOXED(test_minimal),
		SANDBOXED(test_id_mismatch),
		SANDBOXED(test_id_queue_reserved),
		SANDBOXED(test_bad_sha),
		SANDBOXED(test_short_introduced_by),
		SANDBOXED(test_bad_upstream_repo),
		SANDBOXED(test_subject_mismatch),
		SANDBOXED(test_missing_patch),
		SANDBOXED(test_patch_dotdot),
		SANDBOXED(test_patch_absolute),
		SANDBOXED(test_duplicate_variant),
		SANDBOXED(test_when_contains_and_lacks),
		SANDBOXED(test_when_without_test),
		SANDBOXED(test_when_exists_not_bool),
		SANDBOXED(test_no_variants),
		SANDBOXED(test_variants_missing),
		SANDBOXED(test_variant_without_why),
		SANDBOXED(test_unknown_variant_key),
		SANDBOXED(test_vulnerable_without_paths),
		SANDBOXED(test_vulnerable_scalar),
		SANDBOXED(test_missing_fix_yaml),
		SANDBOXED(test_load_all),
		SANDBOXED(test_load_all_stops_on_error),
		SANDBOXED(test_load_all_empty),
		SANDBOXED(test_audit_rules),
		SANDBOXED(test_audit_defaults),
		SANDBOXED(test_audit_no_capability),
		SANDBOXED(test_audit_unknown_key),
		SANDBOXED(test_audit_empty_callees),
		SANDBOXED(test_audit_callee_without_name),
		SANDBOXED(test_audit_bad_format_arg),
		SANDBOXED(test_audit_bad_flag),
		SANDBOXED(test_audit_bad_capability),
		SANDBOXED(test_audit_not_a_mapping),
	};

	return sandbox_run_group_tests(tests, NULL, NULL);
}
