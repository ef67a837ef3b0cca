/*
 * kcidb.json: the run in KCIDB's I/O format, schema v4.0, from kcidb-io's
 * kcidb_io/schema/v04_00.py (the fields used here are the same up to v4.5,
 * the last v4; declaring 4.0 lets every v4 and v5 kcidb take the file).
 *
 * What the schema asks of what is written here:
 *   top level   required "version" {"major": 4 (const), "minor": 0..4.x};
 *               "checkouts", "builds", "tests" lists; no other property;
 *               no property anywhere may be null (leave it out instead)
 *   origin      ^[a-z0-9_]+$                      here "kbackport"
 *   every id    ^[a-z0-9_]+:.*$  (origin, a colon, unique in the origin)
 *   checkout    required id, origin; no other property than id, origin,
 *               tree_name, git_repository_url ^(https|git)://.*$,
 *               git_commit_hash ^[0-9a-f]{40}$, git_commit_name,
 *               git_repository_branch, patchset_files, patchset_hash
 *               ^$|^[0-9a-f]{64}$ (sha256 over the newline-terminated
 *               sha256 of each patch; "" for none), message_id, comment,
 *               start_time (date-time), contacts, log_url (uri),
 *               log_excerpt (at most 16384 characters), valid (boolean:
 *               false when the patches failed to apply), misc (object)
 *   build       required checkout_id, id, origin; also comment, start_time,
 *               duration (number), architecture ^[a-z0-9_]*$, command,
 *               compiler, input_files, output_files, config_name,
 *               config_url, log_url, log_excerpt, valid, misc
 *   test        required build_id, id, origin; also environment, path
 *               ^[.a-zA-Z0-9_-]*$ (dot-separated), comment, log_url,
 *               log_excerpt, status (FAIL ERROR PASS DONE SKIP; MISS came
 *               in a later minor and is not used), waived (boolean),
 *               start_time, duration, output_files, misc
 *
 * How a run maps onto it:
 *   checkout  one per lane, id "kbackport:<run>:<branch>:<lane>", tree_name
 *             the branch; git_commit_hash the lane's commit, and for a
 *             backport lane the commit it sits on with patchset_hash that
 *             of the variant's patch (apply.patch_hash); a repository that
 *             is a local path goes to misc. A branch the fix does not apply
 *             to (apply "conflict") without a backport lane gets a
 *             "<branch>:backport" checkout with valid false, its failing
 *             hunks as log_excerpt. A queue's run: the backport lane is
 *             the queue's tip on the branch's commit, patchset_hash that of
 *             the fixes applied there in order, misc the queue and every
 *             fix's status ("fixes"); a queue none of whose fixes applied
 *             while some need a hand gets the "<branch>:backport" checkout
 *             with valid false and the same misc.
 *   build     one per lane built (pass, fail, cached: valid unless fail),
 *             architecture x86_64, config_name tinyconfig+kbackport.config
 *             unless the lane says; one, marked prebuilt in misc, for a
 *             lane tested on a kernel kbackport did not build.
 *   test      one per KTAP case, path "<suite>.<case>"; waived on a
 *             baseline lane (pre-fix, or as-is before a backport), whose
 *             failures show the bug the fix removes. A tested lane without
 *             any case gets one test with the empty path: all its tests.
 * Log URLs are relative to the run directory unless a base URL is given
 * (KCIDB wants absolute URLs: pass the place the run is published).
 */
#include "report/kcidb.h"
#include "util/fsutil.h"
#include "report/report_priv.h"
#include "util/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LOG_EXCERPT_MAX 16384

void kb_kcidb_sha256_hex(char out[65], const void *data, size_t len)
{
	if (kb_sha256_hex(out, data, len) < 0)
		out[0] = '\0';	/* libcrypto failed: no hash, which the schema allows */
}

void kb_kcidb_patchset_hash(char out[65], const char *const *hashes, size_t n)
{
	struct kb_buf all = KB_BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		kb_buf_printf(&all, "%s\n", hashes[i]);
	if (kb_buf_oom(&all))
		out[0] = '\0';	/* no hash rather than the hash of a part */
	else
		kb_kcidb_sha256_hex(out, all.ptr ? all.ptr : "", all.size);
	kb_buf_release(&all);
}

/* ---- values ---- */

static bool is_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; s && i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s && strlen(s) == len;
}

static bool is_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* RFC 3339 date-time, as the schema's format wants: 2026-12-03T07:45:00Z. */
static bool is_date_time(const char *s)
{
	const char *p;

	if (!s || strlen(s) < 20 || !is_digits(s, 4) || s[4] != '-' || !is_digits(s + 5, 2) ||
	    s[7] != '-' || !is_digits(s + 8, 2) || (s[10] != 'T' && s[10] != 't') ||
	    !is_digits(s + 11, 2) || s[13] != ':' || !is_digits(s + 14, 2) || s[16] != ':' ||
	    !is_digits(s + 17, 2))
		return false;
	p = s + 19;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p == 'Z' || *p == 'z')
		return !p[1];
	return (*p == '+' || *p == '-') && strlen(p) == 6 && is_digits(p + 1, 2) && p[3] == ':' &&
	       is_digits(p + 4, 2);
}

static bool is_git_url(const char *s)
{
	return s && (!strncmp(s, "https://", 8) || !strncmp(s, "git://", 6));
}

/* Valid UTF-8 of at most LOG_EXCERPT_MAX bytes: the end of `s` is kept. */
static json_t *excerpt(const char *s)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *p;
	json_t *v = NULL;

	if (report_put_utf8(&b, s, strlen(s)) == 0) {
		p = b.ptr ? b.ptr : "";
		if (b.size > LOG_EXCERPT_MAX) {
			p += b.size - LOG_EXCERPT_MAX;
			while ((*p & 0xc0) == 0x80)
				p++;
		}
		v = json_string(p);
	}
	kb_buf_release(&b);
	return v;
}

/* ---- the document ---- */

struct kcidb {
	const struct kb_report *r;
	const char *base_url;
	json_t *checkouts, *builds, *tests;
	struct kb_buf scratch;
};

static json_t *url(struct kcidb *k, const char *dir, const char *file)
{
	struct kb_buf *b = &k->scratch;
	size_t blen;

	kb_buf_clear(b);
	if (k->base_url) {
		blen = strlen(k->base_url);
		while (blen && k->base_url[blen - 1] == '/')
			blen--;
		kb_buf_put(b, k->base_url, blen);
		kb_buf_putc(b, '/');
	}
	report_put_url(b, dir);
	kb_buf_putc(b, '/');
	report_put_url(b, file);
	return kb_buf_oom(b) ? NULL : json_string(b->ptr);
}

static json_t *object_id(struct kcidb *k, const char *branch, const char *lane, const char *more)
{
	return json_sprintf("%s:%s:%s:%s%s%s", KB_KCIDB_ORIGIN, k->r->run, branch, lane,
			    more ? ":" : "", more ? more : "");
}

/* Set `key` unless `value` is NULL (the schema has no nulls). */
static int set(json_t *obj, const char *key, json_t *value)
{
	if (!value)
		return 0;
	return json_object_set_new(obj, key, value) ? kb_error_oom() : 0;
}

static json_t *str(const char *s)
{
	return s ? json_string(s) : NULL;
}

static const char *kind_name(const struct kb_report_lane *l)
{
	return kb_lane_kind_name(l->kind);
}

static const char *strip_heads(const char *ref)
{
	return ref && !strncmp(ref, "refs/heads/", 11) ? ref + 11 : ref;
}

static const struct kb_report_lane *lane_of(const struct kb_report_branch *b,
					    enum kb_lane_kind kind)
{
	size_t i;

	for (i = 0; i < b->nlanes; i++)
		if (b->lanes[i].kind == kind)
			return &b->lanes[i];
	return NULL;
}

/* The commit a backport lane's patch went onto. */
static const char *backport_base(const struct kb_report_branch *b, const struct kb_report_lane *l)
{
	const struct kb_report_lane *other;

	if (is_hex(l->base, 40))
		return l->base;
	if (is_hex(l->apply.base, 40))
		return l->apply.base;
	if (is_hex(b->apply.base, 40))
		return b->apply.base;
	if ((other = lane_of(b, KB_LANE_PRE_FIX)) || (other = lane_of(b, KB_LANE_AS_IS)))
		return is_hex(other->commit, 40) ? other->commit : NULL;
	return NULL;
}

static json_t *patchset_hash(const struct kb_report_apply *a)
{
	const char *one[1];
	char hash[65];

	if (!is_hex(a->patch_hash, 64))
		return NULL;
	one[0] = a->patch_hash;
	kb_kcidb_patchset_hash(hash, one, 1);
	return json_string(hash);
}

/*
 * A queue's tip: the patchset of the fixes applied there, in order ("" when
 * none was); NULL (left out) when one of them has no patch hash.
 */
static json_t *queue_patchset_hash(const struct kb_report_queue *q)
{
	const char **hashes = calloc(q->nfixes + 1, sizeof(*hashes));
	char hash[65];
	size_t i, n = 0;
	bool known = hashes != NULL;

	for (i = 0; i < q->nfixes && known; i++) {
		const struct kb_report_apply *a = &q->fixes[i].apply;
		if (!a->present || a->status != KB_STATUS_APPLIED)
			continue;
		known = is_hex(a->patch_hash, 64);
		hashes[n++] = a->patch_hash;
	}
	if (known && n)
		kb_kcidb_patchset_hash(hash, hashes, n);
	free(hashes);
	return !known ? NULL : json_string(n ? hash : "");
}

/* misc.fixes of a queue's checkout: each fix's status there, in order. */
static json_t *queue_fixes(const struct kb_report_queue *q)
{
	json_t *list = json_array(), *one;
	size_t i;

	for (i = 0; list && i < q->nfixes; i++) {
		const struct kb_report_apply *a = &q->fixes[i].apply;
		one = json_pack("{s:s, s:s}", "fix", q->fixes[i].fix, "status",
				a->present ? kb_status_name(a->status) : "error");
		if (!one || (a->variant && json_object_set_new(one, "variant", json_string(a->variant))) ||
		    json_array_append_new(list, one)) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

/* What a checkout of a queue's run says of the queue in misc. */
static int queue_misc(struct kcidb *k, json_t *misc, const struct kb_report_queue *q)
{
	int err;

	if ((err = set(misc, "queue", str(k->r->queue))) < 0 ||
	    (err = set(misc, "queue_ref", str(q->ref))) < 0)
		return err;
	return json_object_set_new(misc, "fixes", queue_fixes(q)) ?
	       kb_error_oom() : 0;
}

/* id, origin, and what every checkout of branch `b` says; misc is filled
 * by the caller and set last. */
static json_t *checkout_new(struct kcidb *k, const struct kb_report_branch *b, const char *lane,
			    const char *ref)
{
	json_t *c = json_pack("{s:o, s:s, s:s}", "id", object_id(k, b->name, lane, NULL),
			      "origin", KB_KCIDB_ORIGIN, "tree_name", b->name);

	if (!c)
		return NULL;
	/* a distribution kernel has no repository: its ref names a package */
	if ((b->repo && set(c, "git_repository_branch", str(strip_heads(ref ? ref : b->ref))) < 0) ||
	    (is_git_url(b->repo) && set(c, "git_repository_url", json_string(b->repo)) < 0) ||
	    (is_date_time(k->r->started) && set(c, "start_time", json_string(k->r->started)) < 0)) {
		json_decref(c);
		return NULL;
	}
	return c;
}

static json_t *checkout_misc(struct kcidb *k, const struct kb_report_branch *b, const char *lane)
{
	json_t *misc = json_pack("{s:s, s:s, s:s}", "fix", k->r->fix, "branch", b->name, "lane", lane);

	if (misc && b->repo && !is_git_url(b->repo) && set(misc, "repository", json_string(b->repo)) < 0) {
		json_decref(misc);
		return NULL;
	}
	return misc;
}

/* Append checkout `c` with `misc`; both references are taken. */
static int checkout_add(struct kcidb *k, json_t *c, json_t *misc, int err)
{
	if (!err && (!c || !misc))
		err = kb_error_oom();
	if (!err && (json_object_set(c, "misc", misc) || json_array_append(k->checkouts, c)))
		err = kb_error_oom();
	json_decref(c);
	json_decref(misc);
	return err;
}

static int lane_checkout_fields(struct kcidb *k, json_t *c, json_t *misc,
				const struct kb_report_branch *b, const struct kb_report_lane *l)
{
	bool backport = l->kind == KB_LANE_BACKPORT, queue = backport && b->queue.present;
	const struct kb_report_apply *a = backport ? report_lane_apply(b, l) : &l->apply;
	const char *commit = backport ? backport_base(b, l) : (is_hex(l->commit, 40) ? l->commit : NULL);
	int err;

	if ((err = set(c, "git_commit_hash", str(commit))) < 0 ||
	    (err = set(c, "patchset_hash", queue ? queue_patchset_hash(&b->queue) :
					   backport ? patchset_hash(a) : json_string(""))) < 0 ||
	    (queue && (err = queue_misc(k, misc, &b->queue)) < 0) ||
	    (err = set(c, "valid", json_true())) < 0 ||
	    (err = set(c, "comment", json_sprintf("%s, %s lane of %s", k->r->fix, kind_name(l), b->name))) < 0 ||
	    (err = set(misc, "verdict", json_string(kb_verdict_name(l->verdict)))) < 0 ||
	    (err = set(misc, b->repo ? "commit" : "version", str(l->commit))) < 0 ||
	    (!b->repo && (err = set(misc, "package", str(l->ref))) < 0) ||
	    (err = set(misc, "apply_status", a->present ? json_string(kb_status_name(a->status)) :
					   NULL)) < 0 ||
	    (err = set(misc, "variant", str(a->variant))) < 0)
		return err;
	if (backport && report_has_file(l->files, l->nfiles, "backport.patch"))
		return set(misc, "backport_patch", url(k, l->dir, "backport.patch"));
	return 0;
}

static int lane_checkout(struct kcidb *k, const struct kb_report_branch *b,
			 const struct kb_report_lane *l)
{
	json_t *c = checkout_new(k, b, kind_name(l), l->ref), *misc = checkout_misc(k, b, kind_name(l));

	return checkout_add(k, c, misc, c && misc ? lane_checkout_fields(k, c, misc, b, l) : 0);
}

/* Where conflict.txt is: a lane's directory, or the branch's. */
static json_t *conflict_url(struct kcidb *k, const struct kb_report_branch *b)
{
	size_t i;

	for (i = 0; i < b->nlanes; i++)
		if (report_has_file(b->lanes[i].files, b->lanes[i].nfiles, "conflict.txt"))
			return url(k, b->lanes[i].dir, "conflict.txt");
	return report_has_file(b->files, b->nfiles, "conflict.txt") ? url(k, b->name, "conflict.txt") : NULL;
}

static json_t *conflict_excerpt(const struct kb_report_apply *a)
{
	struct kb_buf b = KB_BUF_INIT;
	json_t *v;
	size_t i;

	if (a->detail)
		kb_buf_printf(&b, "%s\n", a->detail);
	for (i = 0; i < a->nnotes; i++)
		kb_buf_printf(&b, "%s\n", a->notes[i]);
	v = kb_buf_oom(&b) ? NULL : excerpt(b.ptr ? b.ptr : "");
	kb_buf_release(&b);
	return v;
}

static int conflict_checkout_fields(struct kcidb *k, json_t *c, json_t *misc,
				    const struct kb_report_branch *b)
{
	const struct kb_report_lane *as_is = lane_of(b, KB_LANE_AS_IS);
	const char *base = is_hex(b->apply.base, 40) ? b->apply.base :
			   as_is && is_hex(as_is->commit, 40) ? as_is->commit : NULL;
	int err;

	if ((err = set(c, "git_commit_hash", str(base))) < 0 ||
	    (err = set(c, "patchset_hash", patchset_hash(&b->apply))) < 0 ||
	    (err = set(c, "valid", json_false())) < 0 ||
	    (err = set(c, "comment", json_sprintf("%s does not apply to %s", k->r->fix, b->name))) < 0 ||
	    (err = set(c, "log_url", conflict_url(k, b))) < 0 ||
	    (err = set(c, "log_excerpt", conflict_excerpt(&b->apply))) < 0)
		return err;
	return set(misc, "apply_status", json_string(kb_status_name(b->apply.status)));
}

/* The backport that could not be made: a checkout that is not valid. */
static int conflict_checkout(struct kcidb *k, const struct kb_report_branch *b)
{
	json_t *c = checkout_new(k, b, "backport", NULL), *misc = checkout_misc(k, b, "backport");

	return checkout_add(k, c, misc, c && misc ? conflict_checkout_fields(k, c, misc, b) : 0);
}

static bool queue_needs_hand(const struct kb_report_queue *q)
{
	size_t i;

	for (i = 0; i < q->nfixes; i++)
		if (kb_report_needs_hand(&q->fixes[i].apply))
			return true;
	return false;
}

static int queue_conflict_fields(struct kcidb *k, json_t *c, json_t *misc,
				 const struct kb_report_branch *b)
{
	const struct kb_report_lane *as_is = lane_of(b, KB_LANE_AS_IS);
	int err;

	if ((err = set(c, "git_commit_hash",
		       str(as_is && is_hex(as_is->commit, 40) ? as_is->commit : NULL))) < 0 ||
	    (err = set(c, "patchset_hash", queue_patchset_hash(&b->queue))) < 0 ||
	    (err = set(c, "valid", json_false())) < 0 ||
	    (err = set(c, "comment", json_sprintf("%s: no fix of it applies to %s", k->r->fix,
						   b->name))) < 0)
		return err;
	return queue_misc(k, misc, &b->queue);
}

/* A queue none of whose fixes could be applied, some of which need a
 * hand: a backport checkout that is not valid, each fix's status in misc. */
static int queue_conflict_checkout(struct kcidb *k, const struct kb_report_branch *b)
{
	json_t *c = checkout_new(k, b, "backport", NULL), *misc = checkout_misc(k, b, "backport");

	return checkout_add(k, c, misc, c && misc ? queue_conflict_fields(k, c, misc, b) : 0);
}

static json_t *build_excerpt(struct kcidb *k, const struct kb_report_lane *l)
{
	char *tail;
	json_t *v;

	kb_buf_clear(&k->scratch);
	if (kb_buf_printf(&k->scratch, "%s/%s/build.log", k->r->dir, l->dir) < 0 ||
	    !(tail = kb_file_tail(k->scratch.ptr, 40)))
		return NULL;
	v = *tail ? excerpt(tail) : NULL;
	free(tail);
	return v;
}

/* A build for lane `l`, or none (*built false) when it was not built nor tested. */
static int lane_build(struct kcidb *k, const struct kb_report_branch *b,
		      const struct kb_report_lane *l, bool *built)
{
	bool real = l->has_build && l->build != KB_BUILD_SKIPPED;
	bool failed = real && l->build == KB_BUILD_FAIL;
	json_t *c, *misc;
	int err;

	if (!(*built = real || l->nsuites))
		return 0;
	c = json_pack("{s:o, s:o, s:s, s:s, s:b, s:{s:s}}", "id", object_id(k, b->name, kind_name(l), NULL),
		      "checkout_id", object_id(k, b->name, kind_name(l), NULL), "origin", KB_KCIDB_ORIGIN,
		      "architecture", "x86_64", "valid", !failed, "misc", "lane", kind_name(l));
	KB_ERROR_CHECK_ALLOC(c);
	misc = json_object_get(c, "misc");
	if ((err = set(c, "config_name", real ? json_string(l->config ? l->config :
							     "tinyconfig+kbackport.config") : NULL)) < 0 ||
	    (l->build_seconds >= 0 && (err = set(c, "duration", json_real(l->build_seconds))) < 0) ||
	    (report_has_file(l->files, l->nfiles, "build.log") &&
	     (err = set(c, "log_url", url(k, l->dir, "build.log"))) < 0) ||
	    (failed && (err = set(c, "log_excerpt", build_excerpt(k, l))) < 0) ||
	    (real && l->build == KB_BUILD_CACHED && (err = set(misc, "cached", json_true())) < 0) ||
	    (!real && (err = set(misc, "prebuilt", json_true())) < 0) ||
	    (!real && (err = set(c, "comment", json_sprintf("%s, not built by kbackport",
							  l->ref ? l->ref : "a prebuilt kernel"))) < 0))
		goto done;
	err = json_array_append(k->builds, c) ? kb_error_oom() : 0;
done:
	json_decref(c);
	return err;
}

static const char *test_status(enum kb_ktap_status status)
{
	static const char *const names[] = {
		[KB_KTAP_PASS] = "PASS", [KB_KTAP_FAIL] = "FAIL", [KB_KTAP_SKIP] = "SKIP",
		[KB_KTAP_ERROR] = "ERROR",
	};
	return names[status];
}

/* "<suite>.<case>" with what the path pattern does not allow as '_'. */
static json_t *test_path(const char *suite, const char *name)
{
	json_t *v = json_sprintf("%s.%s", suite, name);
	char *p, *s;

	if (!v)
		return NULL;
	s = strdup(json_string_value(v));
	json_decref(v);
	if (!s)
		return NULL;
	for (p = s; *p; p++)
		if (!strchr("._-", *p) && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
					     (*p >= '0' && *p <= '9')))
			*p = '_';
	v = json_string(s);
	free(s);
	return v;
}

static json_t *test_log(struct kcidb *k, const struct kb_report_lane *l, const char *suite)
{
	struct kb_buf name = KB_BUF_INIT;
	json_t *v = NULL;

	if (suite && kb_buf_printf(&name, "%s.ktap", suite) == 0 &&
	    report_has_file(l->files, l->nfiles, name.ptr))
		v = url(k, l->dir, name.ptr);
	else if (report_has_file(l->files, l->nfiles, "console.log"))
		v = url(k, l->dir, "console.log");
	kb_buf_release(&name);
	return v;
}

/* One test, before it is made: what differs between a case and a lane. */
struct test_fields {
	json_t *path;		/* references taken by add_test() */
	enum kb_ktap_status status;	/* written as kcidb's word (test_status()) */
	bool waived;
	json_t *comment;
	json_t *excerpt;
	json_t *log;
	json_t *misc;
};

/* set() unless a step before failed (*err); `value` is consumed either way. */
static void set_next(int *err, json_t *obj, const char *key, json_t *value)
{
	if (*err < 0 || !obj) {
		json_decref(value);
		if (!*err)
			*err = kb_error_oom();
		return;
	}
	*err = set(obj, key, value);
}

/* The test of `f` (whose references are consumed) for lane `l`. */
static int add_test(struct kcidb *k, const struct kb_report_branch *b, const struct kb_report_lane *l,
		    struct test_fields *f)
{
	json_t *t = NULL;
	int err = 0;

	if (f->path)
		t = json_pack("{s:o, s:o, s:s, s:O, s:s}",
			      "id", object_id(k, b->name, kind_name(l), json_string_value(f->path)),
			      "build_id", object_id(k, b->name, kind_name(l), NULL), "origin", KB_KCIDB_ORIGIN,
			      "path", f->path, "status", test_status(f->status));
	set_next(&err, t, "waived", f->waived ? json_true() : NULL);
	set_next(&err, t, "comment", f->comment);
	set_next(&err, t, "log_url", f->log);
	set_next(&err, t, "log_excerpt", f->excerpt);
	if (l->baseline)
		set_next(&err, f->misc, "baseline", json_true());
	set_next(&err, t, "misc", f->misc);
	if (!err && json_array_append(k->tests, t))
		err = kb_error_oom();
	json_decref(t);
	json_decref(f->path);
	return err;
}

static int case_test(struct kcidb *k, const struct kb_report_branch *b, const struct kb_report_lane *l,
		     const struct kb_report_suite *s, const struct kb_report_case *c)
{
	struct test_fields f = {
		test_path(s->name, c->name), c->status,
		report_case_expected_failure(l, c), str(c->proves), c->diag ? excerpt(c->diag) : NULL,
		test_log(k, l, s->name), json_pack("{s:s, s:b}", "lane", kind_name(l), "detects", c->detects),
	};

	return add_test(k, b, l, &f);
}

/* A lane tested without a single case: one test for all of it. */
static int lane_summary_test(struct kcidb *k, const struct kb_report_branch *b,
			     const struct kb_report_lane *l)
{
	struct kb_buf reasons = KB_BUF_INIT;
	struct test_fields f = {
		json_string(""), l->verdict == KB_VERDICT_ERROR ? KB_KTAP_ERROR : KB_KTAP_FAIL, false,
		json_sprintf("%s lane: %s", kind_name(l), kb_verdict_name(l->verdict)), NULL,
		test_log(k, l, NULL),
		json_pack("{s:s}", "lane", kind_name(l)),
	};
	size_t i;

	for (i = 0; i < l->nreason; i++)
		kb_buf_printf(&reasons, "%s\n", l->reason[i]);
	if (reasons.size)
		f.excerpt = excerpt(reasons.ptr);
	kb_buf_release(&reasons);
	return add_test(k, b, l, &f);
}

/* A lane that booted (or should have): its cases, or one test saying why
 * there are none. A lane whose build failed was never tested. */
static int lane_tests(struct kcidb *k, const struct kb_report_branch *b, const struct kb_report_lane *l)
{
	size_t i, j;
	int err = 0;

	if (!l->nsuites)
		return l->verdict != KB_VERDICT_SKIPPED && l->verdict != KB_VERDICT_FIXED &&
		       (!l->has_build || l->build != KB_BUILD_FAIL) ? lane_summary_test(k, b, l) : 0;
	for (i = 0; i < l->nsuites && !err; i++)
		for (j = 0; j < l->suites[i].ncases && !err; j++)
			err = case_test(k, b, l, &l->suites[i], &l->suites[i].cases[j]);
	return err;
}

static int branch_objects(struct kcidb *k, const struct kb_report_branch *b)
{
	bool built;
	size_t i;
	int err = 0;

	for (i = 0; i < b->nlanes && !err; i++) {
		if ((err = lane_checkout(k, b, &b->lanes[i])) < 0 ||
		    (err = lane_build(k, b, &b->lanes[i], &built)) < 0)
			break;
		if (built)
			err = lane_tests(k, b, &b->lanes[i]);
	}
	if (!err && kb_report_needs_hand(&b->apply) && !lane_of(b, KB_LANE_BACKPORT))
		err = conflict_checkout(k, b);
	if (!err && b->queue.present && queue_needs_hand(&b->queue) && !lane_of(b, KB_LANE_BACKPORT))
		err = queue_conflict_checkout(k, b);
	return err;
}

int kb_kcidb_report(json_t **out, const struct kb_report *r, const char *base_url)
{
	struct kcidb k = { r, base_url, NULL, NULL, NULL, KB_BUF_INIT };
	json_t *doc = json_pack("{s:{s:i, s:i}, s:[], s:[], s:[]}", "version", "major", KB_KCIDB_MAJOR,
				"minor", KB_KCIDB_MINOR, "checkouts", "builds", "tests");
	size_t i;
	int err = 0;

	*out = NULL;
	KB_ERROR_CHECK_ALLOC(doc);
	k.checkouts = json_object_get(doc, "checkouts");
	k.builds = json_object_get(doc, "builds");
	k.tests = json_object_get(doc, "tests");
	for (i = 0; i < r->nbranches && !err; i++)
		err = branch_objects(&k, &r->branches[i]);
	kb_buf_release(&k.scratch);
	if (err < 0)
		json_decref(doc);
	else
		*out = doc;
	return err;
}
