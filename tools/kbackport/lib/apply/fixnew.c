#include "apply/fixnew.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"
#include "fix.h"
#include "util/fsutil.h"
#include "apply/patch.h"

#include <ctype.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static bool is_sha(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return n == 40;
}

/* The 40-hex id following `prefix` on some line of `text`, or NULL. */
static char *sha_after(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);

	while ((p = strstr(p, prefix))) {
		bool line_start = p == text || p[-1] == '\n';
		p += n;
		if (line_start && is_sha(p, 40) && !isxdigit((unsigned char)p[40]))
			return kb_strndup(p, 40);
	}
	return NULL;
}

/* The upstream commit a message names, as stable and git cherry-pick -x write it. */
static char *upstream_of(const char *body)
{
	static const char *const prefixes[] = {
		"commit ", "[ Upstream commit ", "(cherry picked from commit ",
	};
	char *sha = NULL;
	size_t i;

	for (i = 0; i < 3 && !sha; i++)
		sha = sha_after(body, prefixes[i]);
	return sha;
}

/*
 * The upstream commit of a DEP-3 header block (Debian's patches): the
 * first 40-hex id of an "Origin:" line before the first blank line
 * ("Origin: https://git.kernel.org/linus/<sha>", "Origin: upstream, <url>").
 */
static char *origin_header(const char *text)
{
	const char *line, *end, *p;

	for (line = text; *line && *line != '\n'; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		if (strncasecmp(line, "Origin:", 7))
			continue;
		for (p = line + 7; p + 40 <= end; p++)
			if ((p == line || !isxdigit((unsigned char)p[-1])) && is_sha(p, 40) &&
			    !isxdigit((unsigned char)p[40]))
				return kb_strndup(p, 40);
	}
	return NULL;
}

/* The first "CVE-YYYY-NNNN" (four or more digits) in `text`, or NULL. */
static char *cve_in(const char *text)
{
	const char *p = text;
	size_t n;

	while (text && (p = strstr(p, "CVE-"))) {
		p += 4;
		for (n = 0; isdigit((unsigned char)p[n]); n++)
			;
		if (n != 4 || p[4] != '-')
			continue;
		for (n = 5; isdigit((unsigned char)p[n]); n++)
			;
		if (n >= 9)
			return kb_strndup(p - 4, n + 4);
	}
	return NULL;
}

static bool valid_cve(const char *s)
{
	char *found = cve_in(s);
	bool ok = found && !strcmp(found, s);

	free(found);
	return ok;
}

/* A directory and ref name: letters, digits, '.', '_', '-'; no leading '.'. */
static bool valid_id(const char *id)
{
	const char *p;

	if (!*id || *id == '.' || *id == '-' || strlen(id) > 100)
		return false;
	for (p = id; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return false;
	return !strstr(id, "..") && strcmp(id + strlen(id) - 1, ".");
}

/* "net: don't allow X" -> "net-don-t-allow-x", at most 60 characters. */
static char *slug(const char *subject)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *p;

	for (p = subject; *p && b.size < 60; p++) {
		if (isalnum((unsigned char)*p))
			kb_buf_putc(&b, (char)tolower((unsigned char)*p));
		else if (b.size && b.ptr[b.size - 1] != '-')
			kb_buf_putc(&b, '-');
	}
	if (*p && b.size && b.ptr[b.size - 1] != '-' && memchr(b.ptr, '-', b.size)) {
		/* cut at the last word boundary rather than inside a word */
		while (b.ptr[b.size - 1] != '-')
			b.ptr[--b.size] = '\0';
	}
	while (b.size && b.ptr[b.size - 1] == '-')
		b.ptr[--b.size] = '\0';
	return b.size ? kb_buf_detach(&b) : (kb_buf_release(&b), NULL);
}

static bool is_utf8(const char *s)
{
	size_t n = strlen(s), len;

	for (; n; s += len, n -= len)
		if (!(len = kb_utf8_len((const unsigned char *)s, n)))
			return false;
	return true;
}

static int set(char **field, const char *value)
{
	if (value && !(*field = kb_strdup(value)))
		return kb_error_oom();
	return 0;
}

static int fill(struct kb_fix_draft *d, const struct kb_patch *patch, const char *origin,
		const struct kb_fix_draft_opts *opts)
{
	const char *body = patch->body ? patch->body : "";
	int err;

	if (!patch->subject || !*patch->subject)
		return kb_error_set(KB_EINVALID, "%s: the patch has no Subject", origin);
	/* fix.yaml is UTF-8; encoded words were converted, raw bytes cannot be */
	if (!is_utf8(patch->subject))
		return kb_error_set(KB_EINVALID, "%s: the Subject is not UTF-8 and names no charset "
				    "(as an RFC 2047 encoded word would)", origin);
	if ((err = set(&d->subject, patch->subject)) < 0 || (err = set(&d->upstream, opts->upstream)) < 0)
		return err;
	if (!d->upstream && !(d->upstream = upstream_of(body)) &&
	    !(d->upstream = origin_header(d->patch)))
		err = set(&d->upstream, patch->from_commit);
	if (err < 0)
		return err;
	/* none named (a distribution's own patch, as many of Debian's): a fix without one */
	if (d->upstream && !is_sha(d->upstream, strlen(d->upstream)))
		return kb_error_set(KB_EINVALID, "%s: the upstream commit must be 40 lowercase hex digits",
				    origin);
	if ((err = set(&d->cve, opts->cve)) < 0)
		return err;
	if (!d->cve && !(d->cve = cve_in(patch->subject)))
		d->cve = cve_in(body);
	if (d->cve && !valid_cve(d->cve))
		return kb_error_set(KB_EINVALID, "%s: '%s' is not a CVE id (CVE-YYYY-NNNN)", origin, d->cve);
	if ((err = set(&d->id, opts->id ? opts->id : d->cve)) < 0)
		return err;
	if (!d->id && !(d->id = slug(d->subject)))
		return kb_error_set(KB_EINVALID, "%s: no id can be made of the subject: give one with --id",
				    origin);
	if (!valid_id(d->id))
		return kb_error_set(KB_EINVALID, "%s: '%s' cannot be a fix id (letters, digits, '.', '_', '-')",
				    origin, d->id);
	if (kb_fix_id_reserved(d->id))
		return kb_error_set(KB_EINVALID, "%s: '%s' cannot be a fix id: %s%s", origin, d->id,
				    KB_FIX_ID_RESERVED_WHY, opts->id ? "" : " (give another with --id)");
	return 0;
}

int kb_fix_draft_new(struct kb_fix_draft **out, const char *buf, size_t len,
		     const char *origin, const struct kb_fix_draft_opts *opts)
{
	struct kb_fix_draft *d = NULL;
	struct kb_patch *patch = NULL;
	int err;

	*out = NULL;
	if ((err = kb_patch_parse(&patch, buf, len, origin)) < 0)
		return err;
	if (!(d = calloc(1, sizeof(*d))) || !(d->patch = kb_strndup(buf, len)) ||
	    !(d->origin = kb_strdup(origin))) {
		err = kb_error_oom();
		goto done;
	}
	d->len = len;
	if ((err = fill(d, patch, origin, opts)) < 0)
		goto done;
	*out = d;
	d = NULL;
done:
	kb_fix_draft_free(d);
	kb_patch_free(patch);
	return err;
}

/* A draft from `commit`'s own patch, as git format-patch makes it. */
static int draft_from_commit(struct kb_fix_draft **out, git_commit *commit, const char *origin,
			     const struct kb_fix_draft_opts *opts)
{
	git_buf mail = GIT_BUF_INIT;
	git_email_create_options eo;
	int err;

	*out = NULL;
	/* as git format-patch, without rename detection (patches here have none) */
	memset(&eo, 0, sizeof(eo));
	eo.version = GIT_EMAIL_CREATE_OPTIONS_VERSION;
	eo.flags = GIT_EMAIL_CREATE_OMIT_NUMBERS | GIT_EMAIL_CREATE_NO_RENAMES;
	git_diff_options_init(&eo.diff_opts, GIT_DIFF_OPTIONS_VERSION);
	git_diff_find_options_init(&eo.diff_find_opts, GIT_DIFF_FIND_OPTIONS_VERSION);
	if ((err = git_email_create_from_commit(&mail, commit, &eo)) < 0)
		err = kb_error_git(err, "cannot make a patch of %s", origin);
	else
		err = kb_fix_draft_new(out, mail.ptr, mail.size, origin, opts);
	git_buf_dispose(&mail);
	return err;
}

/* The drafts made so far, in the order asked. */
struct drafts {
	struct kb_fix_draft **v;
	size_t n, alloc;
};

static int drafts_push(struct drafts *all, struct kb_fix_draft *d)
{
	int err;

	if ((err = KB_ARRAY_GROW(all->v, all->alloc, all->n + 1)) < 0) {
		kb_fix_draft_free(d);
		return err;
	}
	all->v[all->n++] = d;
	return 0;
}

/* Every commit of `range` (A..B), oldest first, merges left out, as git format-patch. */
static int drafts_from_range(struct drafts *all, git_repository *repo,
			     const char *repo_path, const char *range,
			     const struct kb_fix_draft_opts *opts)
{
	struct kb_buf origin = KB_BUF_INIT;
	git_revwalk *walk = NULL;
	git_commit *commit = NULL;
	struct kb_fix_draft *d;
	size_t before = all->n;
	git_oid oid;
	int err;

	if ((err = git_revwalk_new(&walk, repo)) < 0 ||
	    (err = git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE)) < 0 ||
	    (err = git_revwalk_push_range(walk, range)) < 0) {
		err = kb_error_git(err, "'%s' is not a range of commits of '%s'", range, repo_path);
		goto done;
	}
	while (!err && (err = git_revwalk_next(&oid, walk)) == 0) {
		if ((err = git_commit_lookup(&commit, repo, &oid)) < 0) {
			err = kb_error_git(err, "cannot read commit %s", git_oid_tostr_s(&oid));
			break;
		}
		if (git_commit_parentcount(commit) <= 1) {
			kb_buf_clear(&origin);
			if ((err = kb_buf_printf(&origin, "%s %.12s (in %s)", repo_path,
						 git_oid_tostr_s(&oid), range)) == 0 &&
			    (err = draft_from_commit(&d, commit, origin.ptr, opts)) == 0)
				err = drafts_push(all, d);
		}
		git_commit_free(commit);
		commit = NULL;
	}
	if (err == GIT_ITEROVER)
		err = 0;
	if (!err && all->n == before)
		err = kb_error_set(KB_EINVALID, "'%s' holds no commit to make a fix of", range);
done:
	git_revwalk_free(walk);
	kb_buf_release(&origin);
	return err;
}

int kb_fix_drafts_from_commits(struct kb_fix_draft ***out, size_t *n, const char *repo_path,
			       const char *const *revs, size_t nrevs,
			       const struct kb_fix_draft_opts *opts)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_commit *commit = NULL;
	struct kb_buf origin = KB_BUF_INIT;
	struct kb_fix_draft *d;
	struct drafts all = { 0 };
	size_t i;
	int err;

	*out = NULL;
	*n = 0;
	if ((err = git_repository_open_ext(&repo, repo_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) < 0) {
		err = kb_error_git(err, "cannot open repository '%s'", repo_path);
		goto done;
	}
	for (i = 0; i < nrevs && !err; i++) {
		if (strstr(revs[i], "..")) {
			err = drafts_from_range(&all, repo, repo_path, revs[i], opts);
			continue;
		}
		if ((err = git_revparse_single(&obj, repo, revs[i])) < 0 ||
		    (err = git_object_peel((git_object **)&commit, obj, GIT_OBJECT_COMMIT)) < 0) {
			err = kb_error_git(err, "'%s' is not a commit of '%s'", revs[i], repo_path);
		} else if (git_commit_parentcount(commit) > 1) {
			err = kb_error_set(KB_EINVALID, "'%s' is a merge: make a fix of one of its commits",
					   revs[i]);
		} else {
			kb_buf_clear(&origin);
			if ((err = kb_buf_printf(&origin, "%s %s", repo_path, revs[i])) == 0 &&
			    (err = draft_from_commit(&d, commit, origin.ptr, opts)) == 0)
				err = drafts_push(&all, d);
		}
		git_commit_free(commit);
		commit = NULL;
		git_object_free(obj);
		obj = NULL;
	}
done:
	if (err < 0) {
		for (i = 0; i < all.n; i++)
			kb_fix_draft_free(all.v[i]);
		free(all.v);
	} else {
		*out = all.v;
		*n = all.n;
	}
	git_repository_free(repo);
	kb_buf_release(&origin);
	return err;
}

int kb_fix_draft_from_commit(struct kb_fix_draft **out, const char *repo_path,
			     const char *rev, const struct kb_fix_draft_opts *opts)
{
	struct kb_fix_draft **v = NULL;
	size_t n = 0, i;
	int err;

	*out = NULL;
	if ((err = kb_fix_drafts_from_commits(&v, &n, repo_path, &rev, 1, opts)) < 0)
		return err;
	if (n == 1)
		*out = v[0];
	else
		err = kb_error_set(KB_EINVALID, "'%s' is %zu commits, not one", rev, n);
	for (i = 0; err < 0 && i < n; i++)
		kb_fix_draft_free(v[i]);
	free(v);
	return err;
}

/* "From <token> <more>": an mbox separator line (not "From: ..."). */
static bool is_separator(const char *line, size_t n)
{
	const char *sp;

	if (n < 7 || memcmp(line, "From ", 5) || line[5] == ' ')
		return false;
	sp = memchr(line + 5, ' ', n - 5);
	return sp && sp + 1 < line + n;
}

static int push(size_t **starts, size_t *n, size_t *cap, size_t at)
{
	int err;

	if ((err = KB_ARRAY_GROW(*starts, *cap, *n + 1)) < 0)
		return err;
	(*starts)[(*n)++] = at;
	return 0;
}

static bool all_blank(const char *s, size_t n)
{
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return n == 0;
}

int kb_mbox_split(size_t **starts, size_t **lens, size_t *n, const char *buf, size_t len)
{
	size_t at, next, cap = 0, i, kept = 0;
	bool prev_blank = true;
	const char *nl;
	int err;

	*starts = *lens = NULL;
	*n = 0;
	if ((err = push(starts, n, &cap, 0)) < 0)
		return err;
	for (at = 0; at < len; at = next) {
		nl = memchr(buf + at, '\n', len - at);
		next = nl ? (size_t)(nl - buf) + 1 : len;
		if (at && prev_blank && is_separator(buf + at, next - at) &&
		    (err = push(starts, n, &cap, at)) < 0)
			return err;
		prev_blank = next - at == 1;
	}
	*lens = calloc(*n, sizeof(**lens));
	KB_ERROR_CHECK_ALLOC(*lens);
	for (i = 0; i < *n; i++) {
		size_t end = i + 1 < *n ? (*starts)[i + 1] : len;
		if (all_blank(buf + (*starts)[i], end - (*starts)[i]))
			continue;	/* blank lines before the first mail */
		(*starts)[kept] = (*starts)[i];
		(*lens)[kept++] = end - (*starts)[i];
	}
	*n = kept;
	return 0;
}

/* A YAML double-quoted scalar: control characters (C0, DEL, C1) escaped. */
static void quoted(struct kb_buf *b, const char *s)
{
	const unsigned char *u;

	kb_buf_putc(b, '"');
	for (; *s; s++) {
		u = (const unsigned char *)s;
		if (*s == '"' || *s == '\\')
			kb_buf_printf(b, "\\%c", *s);
		else if (*u < 0x20 || *u == 0x7f)
			kb_buf_printf(b, "\\x%02x", *u);
		else if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] < 0xa0)
			kb_buf_printf(b, "\\x%02x", *++s & 0xff);	/* U+0080..U+009F */
		else
			kb_buf_putc(b, *s);
	}
	kb_buf_putc(b, '"');
}

char *kb_fix_draft_yaml(const struct kb_fix_draft *d)
{
	struct kb_buf b = KB_BUF_INIT;

	kb_buf_puts(&b, "# Made by kbackport fix new. Without variants, the patch itself is the\n"
			"# fix's one variant; add variants (and `vulnerable:`) as the fix needs.\n");
	kb_buf_printf(&b, "id: %s\nsubject: ", d->id);
	quoted(&b, d->subject);
	kb_buf_putc(&b, '\n');
	if (d->upstream)
		kb_buf_printf(&b, "upstream: %s\n", d->upstream);
	if (d->cve)
		kb_buf_printf(&b, "cve: %s\n", d->cve);
	kb_buf_puts(&b, "patch: fix.patch\n");
	return kb_buf_detach(&b);
}

static int write_in(const char *dir, const char *name, const char *data, size_t len)
{
	struct kb_buf path = KB_BUF_INIT;
	int err;

	if ((err = kb_buf_printf(&path, "%s/%s", dir, name)) == 0)
		err = kb_write_file_atomic(path.ptr, data, len);
	kb_buf_release(&path);
	return err;
}

int kb_fix_draft_write(char **dir, const struct kb_fix_draft *d, const char *backports)
{
	struct kb_buf final = KB_BUF_INIT, tmp = KB_BUF_INIT;
	char *yaml = NULL;
	int err;

	*dir = NULL;
	if ((err = kb_buf_printf(&final, "%s/%s", backports, d->id)) < 0)
		goto done;
	if (kb_path_exists(final.ptr)) {
		err = kb_error_set(KB_EEXISTS, "fix '%s' exists already: '%s'", d->id, final.ptr);
		goto done;
	}
	if (!(yaml = kb_fix_draft_yaml(d))) {
		err = kb_error_oom();
		goto done;
	}
	if ((err = kb_mkdir_p(backports)) < 0 || (err = kb_tmp_path(&tmp, final.ptr)) < 0)
		goto done;
	if (mkdir(tmp.ptr, 0777) < 0) {
		err = kb_error_set(KB_ERROR, "cannot create '%s': %m", tmp.ptr);
		goto done;
	}
	if ((err = write_in(tmp.ptr, "fix.patch", d->patch, d->len)) < 0 ||
	    (err = write_in(tmp.ptr, "fix.yaml", yaml, strlen(yaml))) < 0)
		goto done;
	/* rename(2) of a directory onto a missing name: a fix whole or not at all */
	if (rename(tmp.ptr, final.ptr) < 0) {
		err = kb_error_set(KB_ERROR, "cannot create '%s': %m", final.ptr);
		goto done;
	}
	*dir = kb_buf_detach(&final);
done:
	if (err < 0 && tmp.ptr)
		kb_remove_tree(tmp.ptr);
	kb_buf_release(&final);
	kb_buf_release(&tmp);
	free(yaml);
	return err;
}

/* The last error with each "<from>/" in it said as "<to>/". */
static int error_moved(int err, const char *from, const char *to)
{
	struct kb_buf msg = KB_BUF_INIT;
	const char *p = kb_error_last(), *at;
	size_t n = strlen(from);

	while ((at = strstr(p, from)) && at[n] == '/') {
		kb_buf_put(&msg, p, (size_t)(at - p));
		kb_buf_puts(&msg, to);
		p = at + n;
	}
	kb_buf_puts(&msg, p);
	err = kb_error_set(err, "%s", msg.ptr ? msg.ptr : "out of memory");
	kb_buf_release(&msg);
	return err;
}

int kb_fix_draft_check(const struct kb_fix_draft *d, const char *origin, const char *backports)
{
	struct kb_buf tmp = KB_BUF_INIT;
	const char *base = getenv("TMPDIR");
	struct kb_fix *fix = NULL;
	char *dir = NULL;
	int err;

	if ((err = kb_buf_printf(&tmp, "%s/kbackport-fix.XXXXXX", base && *base ? base : "/tmp")) < 0)
		return err;
	if (!mkdtemp(tmp.ptr)) {
		err = kb_error_set(KB_ERROR, "cannot create '%s': %m", tmp.ptr);
		kb_buf_release(&tmp);
		return err;
	}
	if ((err = kb_fix_draft_write(&dir, d, tmp.ptr)) == 0 && (err = kb_fix_load(&fix, dir)) < 0) {
		err = error_moved(KB_EINVALID, tmp.ptr, backports);
		kb_error_prefix(err, "%s: the fix would not load", origin);
	}
	kb_fix_free(fix);
	free(dir);
	kb_remove_tree(tmp.ptr);
	kb_buf_release(&tmp);
	return err;
}

int kb_fix_draft_to_fix(struct kb_fix **out, const struct kb_fix_draft *d, const char *dir)
{
	struct kb_fix *fix;
	struct kb_variant *v;
	int err = 0;

	*out = NULL;
	if (!(fix = calloc(1, sizeof(*fix))) || !(fix->variants = v = calloc(1, sizeof(*v)))) {
		free(fix);
		return kb_error_oom();
	}
	fix->nvariants = 1;
	if (set(&fix->id, d->id) < 0 || set(&fix->dir, dir) < 0 || set(&fix->subject, d->subject) < 0 ||
	    set(&fix->upstream, d->upstream) < 0 || set(&fix->cve, d->cve) < 0 ||
	    set(&v->name, "patch") < 0 || set(&v->why, "the fix's own patch") < 0 ||
	    set(&v->patch_path, dir) < 0 || set(&fix->patch_path, dir) < 0)
		err = kb_error_oom();
	if (!err && (err = kb_patch_parse(&fix->patch, d->patch, d->len, dir)) == 0 &&
	    (err = kb_patch_reverse(&fix->reverse, fix->patch)) == 0 &&
	    (err = kb_patch_parse(&v->patch, d->patch, d->len, dir)) == 0)
		err = kb_patch_reverse(&v->reverse, v->patch);
	if (err < 0) {
		kb_fix_free(fix);
		return err;
	}
	*out = fix;
	return 0;
}

void kb_fix_draft_free(struct kb_fix_draft *d)
{
	if (!d)
		return;
	free(d->id);
	free(d->subject);
	free(d->upstream);
	free(d->cve);
	free(d->patch);
	free(d->origin);
	free(d);
}
