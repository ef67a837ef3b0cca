/* A branch's history and a fix: the index of a repository, and the answer (history.h). */
#include "apply/history.h"
#include "apply/locate_priv.h"
#include "apply/witness.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

enum fact_kind { FACT_REF = 1, FACT_REVERT_SHA = 2, FACT_REVERT_SUBJECT = 3 };

/* The forms of kb_history_message_refs(), as stored (an index, not a pointer). */
static const char *const form_names[] = {
	"commit <sha> upstream", "commit <sha>", "Commit: <sha> upstream", "Upstream commit: <sha>",
	"Upstream commit <sha>", "[ Upstream commit <sha> ]", "(cherry picked from commit <sha>)",
	"(backported from commit <sha>)", "This is a backport of upstream commit: <sha>",
	"Based on commit <sha> upstream",
};

struct fact {
	uint32_t commit;
	uint32_t text;		/* offset in the index's text */
	uint16_t len;
	uint8_t kind;
	uint8_t form;
};

struct hcommit {
	git_oid id;
	uint32_t parents, nparents;	/* in the index's parents */
	uint32_t facts, nfacts;		/* in the index's facts */
};

/* A hunk of a commit's diff of one path with no context (lines changed later). */
struct zhunk {
	uint32_t old_start, old_lines, new_lines;
};

struct zhunks {
	struct zhunk *v;
	size_t n;
	bool read;
};

/* The commits that change one path (not merges), and their per-file patch-ids. */
struct path_hist {
	char *path;
	uint32_t covered;	/* the index's first `covered` commits were looked at */
	uint32_t *commits;
	git_oid *hashes;
	size_t n, alloc;
	bool dirty;
	/* in memory, for this run: the hunks of commits[i], read once */
	struct zhunks *hunks;
	size_t nhunks, ahunks;
};

struct reach {
	uint32_t tip;
	uint8_t *bits;
	size_t n;		/* commits it covers: those the index held then */
};

struct index {
	char *repo_path;
	char *dir;		/* <cache>/<hash of repo_path>, or NULL */
	uint64_t stamp;		/* made when the index is made; paths' files carry it */
	struct hcommit *commits;
	size_t ncommits, acommits;
	uint32_t *gen;		/* generation of each commit: 1 + its parents' greatest */
	size_t agen;
	uint32_t *parents;
	size_t nparents, aparents;
	struct fact *facts;
	size_t nfacts, afacts;
	char *text;
	size_t ntext, atext;
	git_oid *roots;
	size_t nroots, aroots;
	uint32_t *table;	/* oid hash -> commit + 1 */
	size_t tsize;
	uint32_t *by_key;	/* FACT_REF / FACT_REVERT_SHA facts sorted by their first 7 hex */
	size_t nby_key, keyed;	/* keyed: facts sorted so far (== nfacts: up to date) */
	uint32_t *subjects;	/* FACT_REVERT_SUBJECT facts */
	size_t nsubjects;
	struct path_hist **paths;
	size_t npaths, apaths;
	struct reach *reach;
	size_t nreach, areach;
	uint32_t *mark;		/* scratch for walks, stamped */
	size_t amark;
	uint32_t mark_stamp;
	uint32_t *tag_of;	/* nearest tag holding each commit, + 1, or 0 */
	size_t ntag_of;		/* the commits tag_of covers */
	char **tags;
	size_t ntags;
	bool dirty;
};

struct kb_history {
	char *cache_dir;
	struct index **repos;
	size_t nrepos, arepos;
	/* kb_history_expect(): the fixes whose paths one walk covers at once */
	const struct kb_fix *const *expect;
	size_t nexpect;
};

const char *kb_history_state_name(enum kb_history_state state)
{
	switch (state) {
	case KB_HISTORY_IN: return "in";
	case KB_HISTORY_REVERTED: return "reverted";
	default: return "not-found";
	}
}

/* ---- the index in memory ---- */

static void path_free(struct path_hist *p)
{
	if (!p)
		return;
	size_t i;

	free(p->path);
	free(p->commits);
	free(p->hashes);
	for (i = 0; i < p->nhunks; i++)
		free(p->hunks[i].v);
	free(p->hunks);
	free(p);
}

/* Room for `need` commits and their hashes: both grow by one count, p->alloc. */
static int path_grow(struct path_hist *p, size_t need)
{
	size_t a = p->alloc;
	int err;

	if ((err = KB_ARRAY_GROW(p->hashes, a, need)) < 0)
		return err;
	return KB_ARRAY_GROW(p->commits, p->alloc, need);
}

static void index_free(struct index *ix)
{
	size_t i;

	if (!ix)
		return;
	free(ix->repo_path);
	free(ix->dir);
	free(ix->commits);
	free(ix->gen);
	free(ix->parents);
	free(ix->facts);
	free(ix->text);
	free(ix->roots);
	free(ix->table);
	free(ix->by_key);
	free(ix->subjects);
	for (i = 0; i < ix->npaths; i++)
		path_free(ix->paths[i]);
	free(ix->paths);
	for (i = 0; i < ix->nreach; i++)
		free(ix->reach[i].bits);
	free(ix->reach);
	free(ix->mark);
	free(ix->tag_of);
	for (i = 0; i < ix->ntags; i++)
		free(ix->tags[i]);
	free(ix->tags);
	free(ix);
}

static size_t oid_hash(const git_oid *id, size_t mask)
{
	uint32_t h;

	memcpy(&h, id->id, sizeof(h));
	return h & mask;
}

static int64_t find_commit(const struct index *ix, const git_oid *id)
{
	size_t i, mask = ix->tsize - 1;

	if (!ix->tsize)
		return -1;
	for (i = oid_hash(id, mask); ix->table[i]; i = (i + 1) & mask)
		if (git_oid_equal(&ix->commits[ix->table[i] - 1].id, id))
			return ix->table[i] - 1;
	return -1;
}

static int table_put(struct index *ix, uint32_t c)
{
	size_t i, mask;

	if ((ix->ncommits + 1) * 2 > ix->tsize) {
		size_t size = ix->tsize ? ix->tsize * 2 : 1024, k;
		uint32_t *t;
		while (size < (ix->ncommits + 1) * 2)
			size *= 2;
		t = calloc(size, sizeof(*t));
		KB_ERROR_CHECK_ALLOC(t);
		free(ix->table);
		ix->table = t;
		ix->tsize = size;
		for (k = 0; k < ix->ncommits; k++)
			if (k != c && (int)table_put(ix, (uint32_t)k) < 0)
				return kb_error_oom();
	}
	mask = ix->tsize - 1;
	for (i = oid_hash(&ix->commits[c].id, mask); ix->table[i]; i = (i + 1) & mask)
		;
	ix->table[i] = c + 1;
	return 0;
}

static int add_fact(struct index *ix, uint32_t c, enum fact_kind kind, uint8_t form,
		    const char *text)
{
	size_t len = strlen(text);
	int err;

	if (len > 0xffff)
		len = 0xffff;
	if ((err = KB_ARRAY_GROW(ix->facts, ix->afacts, ix->nfacts + 1)) < 0 ||
	    (err = KB_ARRAY_GROW(ix->text, ix->atext, ix->ntext + len + 1)) < 0)
		return err;
	ix->facts[ix->nfacts] = (struct fact){ c, (uint32_t)ix->ntext, (uint16_t)len,
					       (uint8_t)kind, form };
	memcpy(ix->text + ix->ntext, text, len);
	ix->text[ix->ntext + len] = '\0';
	ix->ntext += len + 1;
	ix->nfacts++;
	ix->commits[c].nfacts++;
	return 0;
}

static uint8_t form_index(const char *form)
{
	size_t i;

	for (i = 0; i < sizeof(form_names) / sizeof(form_names[0]); i++)
		if (!strcmp(form_names[i], form))
			return (uint8_t)i;
	return 0;
}

/* What the message of commit `c` says, as facts. */
static int message_facts(struct index *ix, uint32_t c, const char *message)
{
	struct kb_history_ref *refs = NULL;
	char **shas = NULL, *subject = NULL;
	size_t nrefs = 0, nshas = 0, i;
	int err;

	ix->commits[c].facts = (uint32_t)ix->nfacts;
	if ((err = kb_history_message_refs(&refs, &nrefs, message)) < 0 ||
	    (err = kb_history_message_reverts(&shas, &nshas, &subject, message)) < 0)
		goto done;
	for (i = 0; i < nrefs && !err; i++)
		err = add_fact(ix, c, FACT_REF, form_index(refs[i].form), refs[i].hex);
	for (i = 0; i < nshas && !err; i++)
		err = add_fact(ix, c, FACT_REVERT_SHA, 0, shas[i]);
	if (!err && subject)
		err = add_fact(ix, c, FACT_REVERT_SUBJECT, 0, subject);
done:
	for (i = 0; i < nshas; i++)
		free(shas[i]);
	free(shas);
	free(subject);
	free(refs);
	return err;
}

static int add_commit(struct index *ix, git_commit *commit)
{
	uint32_t c = (uint32_t)ix->ncommits, g = 0;
	unsigned int i, n = git_commit_parentcount(commit);
	int64_t p;
	int err;

	if ((err = KB_ARRAY_GROW(ix->commits, ix->acommits, ix->ncommits + 1)) < 0 ||
	    (err = KB_ARRAY_GROW(ix->gen, ix->agen, ix->ncommits + 1)) < 0 ||
	    (err = KB_ARRAY_GROW(ix->parents, ix->aparents, ix->nparents + n)) < 0)
		return err;
	memset(&ix->commits[c], 0, sizeof(ix->commits[c]));
	git_oid_cpy(&ix->commits[c].id, git_commit_id(commit));
	ix->commits[c].parents = (uint32_t)ix->nparents;
	for (i = 0; i < n; i++) {
		/* a parent the walk did not reach (a shallow clone) is left out */
		if ((p = find_commit(ix, git_commit_parent_id(commit, i))) < 0)
			continue;
		ix->parents[ix->nparents++] = (uint32_t)p;
		ix->commits[c].nparents++;
		if (ix->gen[p] > g)
			g = ix->gen[p];
	}
	ix->gen[c] = g + 1;
	ix->ncommits++;
	if (table_put(ix, c) < 0)
		return kb_error_oom();
	return message_facts(ix, c, git_commit_message(commit) ? git_commit_message(commit) : "");
}

/* ---- the index on disk ---- */

/*
 * The index holds what history_msg.c read in the messages: a change to what
 * it reads must change this magic, so that older indexes are read again.
 */
#define INDEX_MAGIC "KBHIDX3\n"
#define PATH_MAGIC "KBHPTH1\n"

struct reader {
	const unsigned char *p, *end;
	bool bad;
};

static void rd(struct reader *r, void *out, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, r->p, n);
	r->p += n;
}

static uint32_t rd32(struct reader *r)
{
	uint32_t v;

	rd(r, &v, sizeof(v));
	return v;
}

static int put(struct kb_buf *b, const void *data, size_t n)
{
	return kb_buf_put(b, data, n);
}

static int put32(struct kb_buf *b, uint32_t v)
{
	return put(b, &v, sizeof(v));
}

/* A whole file, any size (an index of a big history can pass KB_READ_MAX). */
static int slurp(unsigned char **out, size_t *len, const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long size;

	*out = NULL;
	if (!f)
		return KB_ENOTFOUND;
	if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
	    !(buf = malloc((size_t)size + 1)) ||
	    fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		fclose(f);
		return KB_ERROR;
	}
	fclose(f);
	*out = buf;
	*len = (size_t)size;
	return 0;
}

static int index_file(struct kb_buf *path, const struct index *ix, const char *name)
{
	kb_buf_clear(path);
	return kb_buf_printf(path, "%s/%s", ix->dir, name);
}

/* Read <dir>/index; anything that does not read back whole is no index. */
static void index_load(struct index *ix)
{
	struct kb_buf path = KB_BUF_INIT;
	struct reader r;
	unsigned char *data = NULL;
	char magic[8];
	uint32_t nc, np, nf, nt, nr, i, k;
	size_t len;

	if (!ix->dir || index_file(&path, ix, "index") < 0 || slurp(&data, &len, path.ptr) < 0)
		goto done;
	r = (struct reader){ data, data + len, false };
	rd(&r, magic, sizeof(magic));
	rd(&r, &ix->stamp, sizeof(ix->stamp));
	nc = rd32(&r), np = rd32(&r), nf = rd32(&r), nt = rd32(&r), nr = rd32(&r);
	if (r.bad || memcmp(magic, INDEX_MAGIC, 8) ||
	    (size_t)(r.end - r.p) != (size_t)nr * GIT_OID_RAWSZ + (size_t)nc * sizeof(struct hcommit) +
				      (size_t)np * 4 + (size_t)nf * sizeof(struct fact) + nt)
		goto bad;
	if (KB_ARRAY_GROW(ix->roots, ix->aroots, (size_t)nr + 1) < 0 ||
	    KB_ARRAY_GROW(ix->commits, ix->acommits, (size_t)nc + 1) < 0 ||
	    KB_ARRAY_GROW(ix->gen, ix->agen, (size_t)nc + 1) < 0 ||
	    KB_ARRAY_GROW(ix->parents, ix->aparents, (size_t)np + 1) < 0 ||
	    KB_ARRAY_GROW(ix->facts, ix->afacts, (size_t)nf + 1) < 0 ||
	    KB_ARRAY_GROW(ix->text, ix->atext, (size_t)nt + 1) < 0)
		goto bad;
	rd(&r, ix->roots, (size_t)nr * GIT_OID_RAWSZ);
	rd(&r, ix->commits, (size_t)nc * sizeof(struct hcommit));
	rd(&r, ix->parents, (size_t)np * 4);
	rd(&r, ix->facts, (size_t)nf * sizeof(struct fact));
	rd(&r, ix->text, nt);
	ix->nroots = nr, ix->ncommits = 0, ix->nparents = np, ix->nfacts = nf, ix->ntext = nt;
	for (i = 0; i < nc; i++) {
		const struct hcommit *c = &ix->commits[i];
		uint32_t g = 0;
		if ((uint64_t)c->parents + c->nparents > np || (uint64_t)c->facts + c->nfacts > nf)
			goto bad;
		for (k = 0; k < c->nparents; k++) {
			if (ix->parents[c->parents + k] >= i)	/* parents come first */
				goto bad;
			if (ix->gen[ix->parents[c->parents + k]] > g)
				g = ix->gen[ix->parents[c->parents + k]];
		}
		ix->gen[i] = g + 1;
		ix->ncommits = i + 1;
		if (table_put(ix, i) < 0)
			goto bad;
	}
	for (i = 0; i < nf; i++)
		if (ix->facts[i].commit >= nc || (uint64_t)ix->facts[i].text + ix->facts[i].len >= nt ||
		    ix->text[ix->facts[i].text + ix->facts[i].len] != '\0')
			goto bad;
	goto done;
bad:
	ix->ncommits = ix->nparents = ix->nfacts = ix->ntext = ix->nroots = 0;
	free(ix->table);
	ix->table = NULL;
	ix->tsize = 0;
	ix->stamp = 0;
done:
	free(data);
	kb_buf_release(&path);
}

static int index_save(struct index *ix)
{
	struct kb_buf b = KB_BUF_INIT, path = KB_BUF_INIT;
	int err;

	if (!ix->dir || !ix->dirty)
		return 0;
	if ((err = put(&b, INDEX_MAGIC, 8)) < 0 || (err = put(&b, &ix->stamp, sizeof(ix->stamp))) < 0 ||
	    (err = put32(&b, (uint32_t)ix->ncommits)) < 0 || (err = put32(&b, (uint32_t)ix->nparents)) < 0 ||
	    (err = put32(&b, (uint32_t)ix->nfacts)) < 0 || (err = put32(&b, (uint32_t)ix->ntext)) < 0 ||
	    (err = put32(&b, (uint32_t)ix->nroots)) < 0 ||
	    (err = put(&b, ix->roots, ix->nroots * GIT_OID_RAWSZ)) < 0 ||
	    (err = put(&b, ix->commits, ix->ncommits * sizeof(struct hcommit))) < 0 ||
	    (err = put(&b, ix->parents, ix->nparents * 4)) < 0 ||
	    (err = put(&b, ix->facts, ix->nfacts * sizeof(struct fact))) < 0 ||
	    (err = put(&b, ix->text, ix->ntext)) < 0 ||
	    (err = kb_mkdir_p(ix->dir)) < 0 || (err = index_file(&path, ix, "index")) < 0 ||
	    (err = kb_write_file_atomic(path.ptr, b.ptr ? b.ptr : "", b.size)) < 0)
		goto done;
	kb_buf_clear(&path);
	if (kb_buf_printf(&path, "%s/repo", ix->dir) == 0 && !kb_path_exists(path.ptr))
		kb_write_atomic(path.ptr, ix->repo_path);
	ix->dirty = false;
done:
	kb_buf_release(&b);
	kb_buf_release(&path);
	return err;
}

static int path_file(struct kb_buf *out, const struct index *ix, const char *path)
{
	char hex[65];
	int err;

	if ((err = kb_sha256_hex(hex, path, strlen(path))) < 0)
		return err;
	kb_buf_clear(out);
	return kb_buf_printf(out, "%s/paths/%.24s", ix->dir, hex);
}

static void path_load(struct path_hist *p, const struct index *ix)
{
	struct kb_buf file = KB_BUF_INIT;
	struct reader r;
	unsigned char *data = NULL;
	char magic[8], *name = NULL;
	uint64_t stamp;
	uint32_t covered, len, n, i;
	size_t size;

	if (!ix->dir || !ix->stamp || path_file(&file, ix, p->path) < 0 ||
	    slurp(&data, &size, file.ptr) < 0)
		goto done;
	r = (struct reader){ data, data + size, false };
	rd(&r, magic, 8);
	rd(&r, &stamp, sizeof(stamp));
	covered = rd32(&r), len = rd32(&r);
	if (r.bad || memcmp(magic, PATH_MAGIC, 8) || stamp != ix->stamp || covered > ix->ncommits ||
	    len != strlen(p->path) || !(name = malloc((size_t)len + 1)))
		goto done;
	rd(&r, name, len);
	n = rd32(&r);
	if (r.bad || memcmp(name, p->path, len) ||
	    (size_t)(r.end - r.p) != (size_t)n * (4 + GIT_OID_RAWSZ) ||
	    path_grow(p, (size_t)n + 1) < 0)
		goto done;
	for (i = 0; i < n; i++) {
		p->commits[i] = rd32(&r);
		rd(&r, p->hashes[i].id, GIT_OID_RAWSZ);
		if (p->commits[i] >= covered || (i && p->commits[i] <= p->commits[i - 1]))
			goto done;
	}
	p->n = n;
	p->covered = covered;
done:
	if (!p->covered)
		p->n = 0;
	free(name);
	free(data);
	kb_buf_release(&file);
}

static int path_save(struct path_hist *p, const struct index *ix)
{
	struct kb_buf b = KB_BUF_INIT, file = KB_BUF_INIT, dir = KB_BUF_INIT;
	size_t i;
	int err;

	if (!ix->dir || !p->dirty)
		return 0;
	if ((err = put(&b, PATH_MAGIC, 8)) < 0 || (err = put(&b, &ix->stamp, sizeof(ix->stamp))) < 0 ||
	    (err = put32(&b, p->covered)) < 0 || (err = put32(&b, (uint32_t)strlen(p->path))) < 0 ||
	    (err = put(&b, p->path, strlen(p->path))) < 0 || (err = put32(&b, (uint32_t)p->n)) < 0)
		goto done;
	for (i = 0; i < p->n && !err; i++)
		if ((err = put32(&b, p->commits[i])) == 0)
			err = put(&b, p->hashes[i].id, GIT_OID_RAWSZ);
	if (err < 0 || (err = kb_buf_printf(&dir, "%s/paths", ix->dir)) < 0 ||
	    (err = kb_mkdir_p(dir.ptr)) < 0 || (err = path_file(&file, ix, p->path)) < 0 ||
	    (err = kb_write_file_atomic(file.ptr, b.ptr, b.size)) < 0)
		goto done;
	p->dirty = false;
done:
	kb_buf_release(&b);
	kb_buf_release(&file);
	kb_buf_release(&dir);
	return err;
}

/* ---- a repository's index, walked ---- */

static int repo_key(char **out, git_repository *repo)
{
	return kb_path_absolute(out, git_repository_path(repo));
}

static int index_open(struct index **out, struct kb_history *h, git_repository *repo)
{
	struct index *ix = NULL;
	char *key = NULL, hex[65];
	size_t i;
	int err;

	if ((err = repo_key(&key, repo)) < 0)
		return err;
	for (i = 0; i < h->nrepos; i++)
		if (!strcmp(h->repos[i]->repo_path, key)) {
			free(key);
			*out = h->repos[i];
			return 0;
		}
	if (!(ix = calloc(1, sizeof(*ix))) ||
	    KB_ARRAY_GROW(h->repos, h->arepos, h->nrepos + 1) < 0) {
		free(ix);
		free(key);
		return kb_error_oom();
	}
	ix->repo_path = key;
	h->repos[h->nrepos++] = ix;
	if (h->cache_dir) {
		struct kb_buf dir = KB_BUF_INIT;
		if ((err = kb_sha256_hex(hex, key, strlen(key))) < 0 ||
		    (err = kb_buf_printf(&dir, "%s/%.16s", h->cache_dir, hex)) < 0)
			return err;
		ix->dir = kb_buf_detach(&dir);
		index_load(ix);
	}
	if (!ix->stamp) {
		ix->stamp = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^
			    ((uint64_t)clock() << 40) ^ (uint64_t)(uintptr_t)ix;
		if (!ix->stamp)
			ix->stamp = 1;
	}
	*out = ix;
	return 0;
}

/* Every commit of `tip` the index does not hold yet, parents first. */
static int index_extend(struct index *ix, git_repository *repo, const git_oid *tip)
{
	git_revwalk *walk = NULL;
	git_commit *commit = NULL;
	git_oid id;
	size_t i, kept = 0;
	int err;

	if (find_commit(ix, tip) >= 0)
		return 0;
	if ((err = git_revwalk_new(&walk, repo)) < 0 ||
	    (err = git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE)) < 0 ||
	    (err = git_revwalk_push(walk, tip)) < 0)
		goto done;
	for (i = 0; i < ix->nroots; i++)	/* a root gone from the repository is dropped */
		if (git_revwalk_hide(walk, &ix->roots[i]) == 0)
			ix->roots[kept++] = ix->roots[i];
	ix->nroots = kept;
	while ((err = git_revwalk_next(&id, walk)) == 0) {
		if (find_commit(ix, &id) >= 0)
			continue;
		if ((err = git_commit_lookup(&commit, repo, &id)) < 0 ||
		    (err = add_commit(ix, commit)) < 0)
			goto done;
		git_commit_free(commit);
		commit = NULL;
	}
	if (err == GIT_ITEROVER)
		err = 0;
	if (!err) {
		if ((err = KB_ARRAY_GROW(ix->roots, ix->aroots, ix->nroots + 1)) < 0)
			goto done;
		git_oid_cpy(&ix->roots[ix->nroots++], tip);
		ix->dirty = true;
	}
done:
	git_commit_free(commit);
	git_revwalk_free(walk);
	if (err < 0 && err != KB_ENOMEM)
		return kb_error_git(err, "cannot walk the history of '%s'", ix->repo_path);
	return err < 0 ? kb_error_oom() : 0;
}

/* The first 7 hex digits as a number: facts are sorted and found by it. */
static uint32_t hex_key(const char *hex)
{
	uint32_t k = 0;
	int i;

	for (i = 0; i < 7; i++)
		k = k << 4 | (uint32_t)(isdigit((unsigned char)hex[i]) ? hex[i] - '0' :
					tolower((unsigned char)hex[i]) - 'a' + 10);
	return k;
}

static const struct index *sort_ix;

static int by_key_cmp(const void *a, const void *b)
{
	uint32_t ka = hex_key(sort_ix->text + sort_ix->facts[*(const uint32_t *)a].text);
	uint32_t kb = hex_key(sort_ix->text + sort_ix->facts[*(const uint32_t *)b].text);

	return ka < kb ? -1 : ka > kb;
}

static int index_keys(struct index *ix)
{
	size_t i;

	if (ix->keyed == ix->nfacts && ix->by_key)
		return 0;
	free(ix->by_key);
	free(ix->subjects);
	ix->nby_key = ix->nsubjects = 0;
	if (!(ix->by_key = malloc((ix->nfacts + 1) * sizeof(*ix->by_key))) ||
	    !(ix->subjects = malloc((ix->nfacts + 1) * sizeof(*ix->subjects))))
		return kb_error_oom();
	for (i = 0; i < ix->nfacts; i++) {
		if (ix->facts[i].kind == FACT_REVERT_SUBJECT)
			ix->subjects[ix->nsubjects++] = (uint32_t)i;
		else
			ix->by_key[ix->nby_key++] = (uint32_t)i;
	}
	sort_ix = ix;
	if (ix->nby_key > 1)
		qsort(ix->by_key, ix->nby_key, sizeof(*ix->by_key), by_key_cmp);
	ix->keyed = ix->nfacts;
	return 0;
}

/* The first fact keyed `key` in by_key. */
static size_t first_keyed(const struct index *ix, uint32_t key)
{
	size_t lo = 0, hi = ix->nby_key;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (hex_key(ix->text + ix->facts[ix->by_key[mid]].text) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Two shas, one perhaps abbreviated: the same commit. */
static bool same_sha(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	return la >= 7 && lb >= 7 && !strncasecmp(a, b, la < lb ? la : lb);
}

/* ---- walks in the index ---- */

static int marks(struct index *ix)
{
	if (ix->amark < ix->ncommits + 1) {
		free(ix->mark);
		ix->mark = calloc(ix->ncommits + 1, sizeof(*ix->mark));
		KB_ERROR_CHECK_ALLOC(ix->mark);
		ix->amark = ix->ncommits + 1;
		ix->mark_stamp = 0;
	}
	if (++ix->mark_stamp == 0) {
		memset(ix->mark, 0, ix->amark * sizeof(*ix->mark));
		ix->mark_stamp = 1;
	}
	return 0;
}

/* The commits `tip` holds, as a bitmap (kept for the run). */
static int reach_of(const struct reach **out, struct index *ix, uint32_t tip)
{
	uint32_t *stack = NULL, c;
	uint8_t *bits;
	size_t i, n = 0;

	for (i = 0; i < ix->nreach; i++)
		if (ix->reach[i].tip == tip) {
			*out = &ix->reach[i];
			return 0;
		}
	if (!(bits = calloc(ix->ncommits / 8 + 1, 1)) ||
	    !(stack = malloc((ix->ncommits + 1) * sizeof(*stack)))) {
		free(bits);
		return kb_error_oom();
	}
	stack[n++] = tip;
	bits[tip / 8] |= (uint8_t)(1u << (tip % 8));
	while (n) {
		const struct hcommit *hc = &ix->commits[stack[--n]];
		for (i = 0; i < hc->nparents; i++) {
			c = ix->parents[hc->parents + i];
			if (bits[c / 8] & (1u << (c % 8)))
				continue;
			bits[c / 8] |= (uint8_t)(1u << (c % 8));
			stack[n++] = c;
		}
	}
	free(stack);
	if (KB_ARRAY_GROW(ix->reach, ix->areach, ix->nreach + 1) < 0) {
		free(bits);
		return KB_ENOMEM;
	}
	ix->reach[ix->nreach++] = (struct reach){ tip, bits, ix->ncommits };
	*out = &ix->reach[ix->nreach - 1];
	return 0;
}

static bool in_bits(const struct reach *r, uint32_t c)
{
	return c < r->n && (r->bits[c / 8] & (1u << (c % 8)));
}

/* Is `a` an ancestor of `d` (or `d` itself)? */
static int ancestor(bool *yes, struct index *ix, uint32_t a, uint32_t d)
{
	uint32_t *stack = NULL, c;
	size_t n = 0, i;
	int err;

	*yes = a == d;
	if (*yes || ix->gen[d] <= ix->gen[a])
		return 0;
	if ((err = marks(ix)) < 0)
		return err;
	stack = malloc((ix->ncommits + 1) * sizeof(*stack));
	KB_ERROR_CHECK_ALLOC(stack);
	stack[n++] = d;
	while (n && !*yes) {
		const struct hcommit *hc = &ix->commits[stack[--n]];
		for (i = 0; i < hc->nparents; i++) {
			c = ix->parents[hc->parents + i];
			if (c == a) {
				*yes = true;
				break;
			}
			if (ix->mark[c] == ix->mark_stamp || ix->gen[c] <= ix->gen[a])
				continue;
			ix->mark[c] = ix->mark_stamp;
			stack[n++] = c;
		}
	}
	free(stack);
	return 0;
}

struct tag_ref {
	uint32_t commit;
	char *name;
};

static const struct index *tag_ix;

static int tag_cmp(const void *a, const void *b)
{
	const struct tag_ref *x = a, *y = b;
	uint32_t gx = tag_ix->gen[x->commit], gy = tag_ix->gen[y->commit];

	return gx != gy ? (gx < gy ? -1 : 1) : strcmp(x->name, y->name);
}

/* Each commit's nearest tag: the tags by generation, each marking what no earlier one holds. */
static int index_tags(struct index *ix, git_repository *repo)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	git_object *obj = NULL;
	struct tag_ref *list = NULL;
	uint32_t *stack = NULL;
	size_t n = 0, alloc = 0, t, sp;
	int64_t c;
	int err;

	if (ix->tag_of && ix->ntag_of == ix->ncommits)
		return 0;
	free(ix->tag_of);
	for (t = 0; t < ix->ntags; t++)
		free(ix->tags[t]);
	free(ix->tags);
	ix->tags = NULL;
	ix->ntags = 0;
	ix->ntag_of = ix->ncommits;
	if (!(ix->tag_of = calloc(ix->ncommits + 1, sizeof(*ix->tag_of))) ||
	    !(stack = malloc((ix->ncommits + 1) * sizeof(*stack))))
		return kb_error_oom();
	if (git_reference_iterator_glob_new(&it, repo, "refs/tags/*") < 0)
		goto done;
	while (git_reference_next(&ref, it) == 0) {
		if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) == 0 &&
		    (c = find_commit(ix, git_object_id(obj))) >= 0 &&
		    KB_ARRAY_GROW(list, alloc, n + 1) == 0 &&
		    (list[n].name = kb_strdup(git_reference_shorthand(ref))))
			list[n++].commit = (uint32_t)c;
		git_object_free(obj);
		obj = NULL;
		git_reference_free(ref);
	}
	tag_ix = ix;
	if (n)	/* list is NULL when no tag is: no qsort of it (UBSan) */
		qsort(list, n, sizeof(*list), tag_cmp);
	if (!(ix->tags = calloc(n + 1, sizeof(*ix->tags))))
		goto done;
	for (t = 0; t < n; t++) {
		ix->tags[ix->ntags++] = list[t].name;
		list[t].name = NULL;
		if (ix->tag_of[list[t].commit])
			continue;
		sp = 0;
		stack[sp++] = list[t].commit;
		ix->tag_of[list[t].commit] = (uint32_t)t + 1;
		while (sp) {
			const struct hcommit *hc = &ix->commits[stack[--sp]];
			size_t i;
			for (i = 0; i < hc->nparents; i++) {
				uint32_t p = ix->parents[hc->parents + i];
				if (ix->tag_of[p])
					continue;
				ix->tag_of[p] = (uint32_t)t + 1;
				stack[sp++] = p;
			}
		}
	}
done:
	err = 0;
	for (t = 0; list && t < n; t++)
		free(list[t].name);
	free(list);
	free(stack);
	git_reference_iterator_free(it);
	return err;
}

/* ---- paths: which commits change them ---- */

static struct path_hist *path_get(struct index *ix, const char *path)
{
	struct path_hist *p;
	size_t i;

	for (i = 0; i < ix->npaths; i++)
		if (!strcmp(ix->paths[i]->path, path))
			return ix->paths[i];
	if (!(p = calloc(1, sizeof(*p))) || !(p->path = kb_strdup(path)) ||
	    KB_ARRAY_GROW(ix->paths, ix->apaths, ix->npaths + 1) < 0) {
		path_free(p);
		return NULL;
	}
	ix->paths[ix->npaths++] = p;
	path_load(p, ix);
	return p;
}

/*
 * May `path` differ between the trees `a` (NULL: none) and `b`? Compared
 * directory by directory from the top, stopping at the first entry both
 * hold alike: a commit that did not touch the path's directory costs no
 * tree read below the top. False only when the path is the same on both
 * sides (or on neither); true may be a directory replaced by a file, which
 * the diff then tells apart.
 */
static int path_differs(bool *differs, git_repository *repo, git_tree *a, git_tree *b,
			const char *path)
{
	git_tree *ta = a, *tb = b, *na = NULL, *nb = NULL;
	const char *p = path;
	char name[256];
	int err = 0;

	*differs = true;
	for (;;) {
		size_t len = strcspn(p, "/");
		const git_tree_entry *ea, *eb;

		if (len >= sizeof(name))
			break;
		memcpy(name, p, len);
		name[len] = '\0';
		ea = ta ? git_tree_entry_byname(ta, name) : NULL;
		eb = git_tree_entry_byname(tb, name);
		if ((!ea && !eb) || (ea && eb && git_oid_equal(git_tree_entry_id(ea),
							     git_tree_entry_id(eb)))) {
			*differs = false;
			break;
		}
		if (!ea || !eb || !p[len] || git_tree_entry_type(ea) != GIT_OBJECT_TREE ||
		    git_tree_entry_type(eb) != GIT_OBJECT_TREE)
			break;
		if ((err = git_tree_lookup(&na, repo, git_tree_entry_id(ea))) < 0 ||
		    (err = git_tree_lookup(&nb, repo, git_tree_entry_id(eb))) < 0)
			break;
		if (ta != a)
			git_tree_free(ta);
		if (tb != b)
			git_tree_free(tb);
		ta = na;
		tb = nb;
		na = nb = NULL;
		p += len + 1;
	}
	git_tree_free(na);
	git_tree_free(nb);
	if (ta != a)
		git_tree_free(ta);
	if (tb != b)
		git_tree_free(tb);
	return err;
}

/* The patch-id of `path` alone, from the tree `a` (or none) to `b`. */
static int file_patchid(git_oid *out, bool *changed, git_repository *repo, git_tree *a,
			git_tree *b, const char *path)
{
	git_diff_options o;
	git_diff *diff = NULL;
	char *ps[1];
	int err;

	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	ps[0] = (char *)path;
	o.pathspec.strings = ps;
	o.pathspec.count = 1;
	o.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	*changed = false;
	if ((err = git_diff_tree_to_tree(&diff, repo, a, b, &o)) < 0)
		return err;
	if (git_diff_num_deltas(diff) > 0) {
		*changed = true;
		err = git_diff_patchid(out, diff, NULL);
	}
	git_diff_free(diff);
	return err;
}

static int path_add(struct path_hist *p, uint32_t c, const git_oid *hash)
{
	int err;

	if ((err = path_grow(p, p->n + 1)) < 0)
		return err;
	p->commits[p->n] = c;
	git_oid_cpy(&p->hashes[p->n++], hash);
	p->dirty = true;
	return 0;
}

/* One commit against its parent, for the paths that have not looked at it. */
static int path_step(struct index *ix, git_repository *repo, uint32_t c,
		     struct path_hist **ps, size_t n)
{
	const struct hcommit *hc = &ix->commits[c];
	git_commit *commit = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	git_oid hash;
	bool changed, differs;
	size_t i;
	int err;

	if (hc->nparents > 1)
		return 0;
	if ((err = git_commit_lookup(&commit, repo, &hc->id)) < 0 ||
	    (hc->nparents && (err = git_commit_parent(&parent, commit, 0)) < 0) ||
	    (err = git_commit_tree(&tree, commit)) < 0 ||
	    (parent && (err = git_commit_tree(&ptree, parent)) < 0))
		goto done;
	for (i = 0; i < n; i++) {
		if (ps[i]->covered > c)
			continue;
		if ((err = path_differs(&differs, repo, ptree, tree, ps[i]->path)) < 0)
			goto done;
		if (!differs)
			continue;
		if ((err = file_patchid(&hash, &changed, repo, ptree, tree, ps[i]->path)) < 0)
			goto done;
		if (changed && (err = path_add(ps[i], c, &hash)) < 0)
			goto done;
	}
done:
	git_tree_free(tree);
	git_tree_free(ptree);
	git_commit_free(parent);
	git_commit_free(commit);
	return err;
}

/* Bring the paths up to the index's commits. */
static int paths_extend(struct index *ix, git_repository *repo, struct path_hist **ps, size_t n)
{
	uint32_t from = (uint32_t)ix->ncommits, c;
	size_t i;
	int err = 0;

	for (i = 0; i < n; i++)
		if (ps[i]->covered < from)
			from = ps[i]->covered;
	for (c = from; c < ix->ncommits && !err; c++)
		err = path_step(ix, repo, c, ps, n);
	if (err < 0)
		return err == KB_ENOMEM ? err :
		       kb_error_git(err, "cannot read the history of '%s'", ix->repo_path);
	for (i = 0; i < n; i++)
		ps[i]->covered = (uint32_t)ix->ncommits;
	return 0;
}

/* Does `c` change `p`? Its per-file patch-id then in *hash, its place in *at. */
static bool path_at(const struct path_hist *p, uint32_t c, git_oid *hash, size_t *at)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->commits[mid] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->n && p->commits[lo] == c) {
		if (hash)
			git_oid_cpy(hash, &p->hashes[lo]);
		if (at)
			*at = lo;
		return true;
	}
	return false;
}

static bool path_has(const struct path_hist *p, uint32_t c, git_oid *hash)
{
	return path_at(p, c, hash, NULL);
}

/* libgit2's patch-id of several files: their per-file ids added as numbers. */
static void patchid_add(git_oid *sum, const git_oid *one)
{
	unsigned short carry = 0;
	int i;

	for (i = 0; i < GIT_OID_RAWSZ; i++) {
		carry += sum->id[i] + one->id[i];
		sum->id[i] = (unsigned char)carry;
		carry >>= 8;
	}
}

/* ---- one fix ---- */

struct event {
	uint32_t commit;
	char *evidence;
	const char *variant;
	bool revert;
};

struct look {
	struct index *ix;
	git_repository *repo;
	const struct kb_fix *fix;
	const struct reach *reach;
	uint32_t tip;
	char **names;		/* the fix's commits: upstream, From, its message's */
	size_t nnames, anames;
	struct path_hist **paths;	/* every file of the fix and its variants */
	size_t npaths, apaths;
	struct event *events;
	size_t nevents, aevents;
	/* the distinctive lines of the fix and its variants (changes_fix_lines()) */
	struct kb_history_line *lines;
	size_t nlines, alines;
	bool lines_read;
};

static void look_release(struct look *l)
{
	size_t i;

	for (i = 0; i < l->nnames; i++)
		free(l->names[i]);
	free(l->names);
	free(l->paths);
	for (i = 0; i < l->nevents; i++)
		free(l->events[i].evidence);
	free(l->events);
	free(l->lines);
}

static bool is_sha_text(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n >= 7 && n <= 40 && !s[n] && strspn(s, "0") != n;
}

static int add_name(struct look *l, const char *hex)
{
	size_t i;
	int err;

	if (!hex || !is_sha_text(hex))
		return 0;
	for (i = 0; i < l->nnames; i++)
		if (same_sha(l->names[i], hex))
			return 0;
	if ((err = KB_ARRAY_GROW(l->names, l->anames, l->nnames + 1)) < 0)
		return err;
	if (!(l->names[l->nnames] = kb_strdup(hex)))
		return kb_error_oom();
	l->nnames++;
	return 0;
}

/* The fix's names: its upstream, its patch's "From <sha>", what its message names. */
static int look_names(struct look *l)
{
	const struct kb_patch *patch = l->fix->patch;
	struct kb_history_ref *refs = NULL;
	struct kb_buf message = KB_BUF_INIT;
	size_t n = 0, i;
	int err;

	if ((err = add_name(l, l->fix->upstream)) < 0 ||
	    (patch && (err = add_name(l, patch->from_commit)) < 0))
		return err;
	if (!patch || !patch->body)
		return 0;
	/* the whole message, as the index reads a commit's: the body's first line is known */
	if ((err = kb_buf_printf(&message, "%s\n\n%s", patch->subject ? patch->subject : "",
				 patch->body)) == 0 &&
	    (err = kb_history_message_refs(&refs, &n, message.ptr)) == 0)
		for (i = 0; i < n && !err; i++)
			err = add_name(l, refs[i].hex);
	free(refs);
	kb_buf_release(&message);
	return err;
}

static int look_path(struct look *l, const char *path)
{
	struct path_hist *p;
	size_t i;

	for (i = 0; i < l->npaths; i++)
		if (!strcmp(l->paths[i]->path, path))
			return 0;
	if (!(p = path_get(l->ix, path)) ||
	    KB_ARRAY_GROW(l->paths, l->apaths, l->npaths + 1) < 0)
		return kb_error_oom();
	l->paths[l->npaths++] = p;
	return 0;
}

static int fix_paths(struct look *l, const struct kb_fix *fix)
{
	size_t v, f;
	int err = 0;

	for (f = 0; fix->patch && f < fix->patch->nfiles && !err; f++)
		err = look_path(l, kb_file_patch_path(&fix->patch->files[f]));
	for (v = 0; v < fix->nvariants && !err; v++)
		for (f = 0; fix->variants[v].patch && f < fix->variants[v].patch->nfiles && !err; f++)
			err = look_path(l, kb_file_patch_path(&fix->variants[v].patch->files[f]));
	return err;
}

/*
 * The fix's paths, brought up to the index. The paths of the fixes
 * expected next (kb_history_expect()) come along: one walk of a long
 * history then serves them all, instead of one walk per fix.
 */
static int look_paths(struct look *l, const struct kb_history *h)
{
	struct look all = { .ix = l->ix };
	size_t i;
	int err;

	if ((err = fix_paths(l, l->fix)) < 0)
		return err;
	for (i = 0; i < l->npaths; i++)
		if (l->paths[i]->covered < l->ix->ncommits)
			break;
	if (i == l->npaths)
		return 0;
	for (i = 0; i < h->nexpect && !err; i++)
		err = fix_paths(&all, h->expect[i]);
	for (i = 0; i < l->npaths && !err; i++)
		err = look_path(&all, l->paths[i]->path);
	if (!err)
		err = paths_extend(l->ix, l->repo, all.paths, all.npaths);
	free(all.paths);
	return err;
}

/* The first of the fix's files that `c` changes, or NULL. */
static const char *touched(const struct look *l, uint32_t c)
{
	size_t i;

	for (i = 0; i < l->npaths; i++)
		if (path_has(l->paths[i], c, NULL))
			return l->paths[i]->path;
	return NULL;
}

static int add_event(struct look *l, uint32_t c, bool revert, const char *variant,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int add_event(struct look *l, uint32_t c, bool revert, const char *variant,
		     const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;
	size_t i;
	int n;

	for (i = 0; i < l->nevents; i++)
		if (l->events[i].commit == c && l->events[i].revert == revert)
			return 0;	/* the first evidence found stays */
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0 || KB_ARRAY_GROW(l->events, l->aevents, l->nevents + 1) < 0) {
		if (n >= 0)
			free(text);
		return kb_error_oom();
	}
	l->events[l->nevents++] = (struct event){ c, text, variant, revert };
	return 0;
}

/* ---- the fix's own lines in a commit's diff ---- */

struct meet {
	const struct kb_history_line *lines;
	size_t n;
	bool undo;	/* look for the change taken back, not made */
	bool met;
};

static int meet_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *line,
		     void *payload)
{
	struct meet *m = payload;
	const char *path = line->origin == GIT_DIFF_LINE_ADDITION ? d->new_file.path : d->old_file.path;
	bool adds = line->origin == GIT_DIFF_LINE_ADDITION;
	struct kb_slice have = { line->content, line->content_len };
	size_t i;

	(void)h;
	if (m->met || (!adds && line->origin != GIT_DIFF_LINE_DELETION))
		return 0;
	while (have.len && (have.ptr[have.len - 1] == '\n' || have.ptr[have.len - 1] == '\r'))
		have.len--;
	for (i = 0; i < m->n && !m->met; i++) {
		const struct kb_history_line *x = &m->lines[i];
		/* made: it adds what the fix added, removes what it removed;
		 * undone: the other way round */
		if ((x->added == adds) != m->undo && !strcmp(x->path, path) &&
		    kb_line_equal(&have, &(struct kb_line){ .text = x->text, .len = x->len }, true))
			m->met = true;
	}
	return 0;
}

/* Commit `c` against its first parent over the fix's files, with no context. */
static int diff_of_commit(git_diff **out, struct look *l, uint32_t c)
{
	git_diff_options o;
	git_commit *commit = NULL, *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	char **ps = NULL;
	size_t i;
	int err;

	*out = NULL;
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	ps = calloc(l->npaths + 1, sizeof(*ps));
	KB_ERROR_CHECK_ALLOC(ps);
	for (i = 0; i < l->npaths; i++)
		ps[i] = l->paths[i]->path;
	o.pathspec.strings = ps;
	o.pathspec.count = l->npaths;
	o.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	o.context_lines = 0;
	o.interhunk_lines = 0;
	if ((err = git_commit_lookup(&commit, l->repo, &l->ix->commits[c].id)) < 0 ||
	    (err = git_commit_tree(&tree, commit)) < 0 ||
	    (git_commit_parentcount(commit) && ((err = git_commit_parent(&parent, commit, 0)) < 0 ||
						(err = git_commit_tree(&ptree, parent)) < 0)))
		goto done;
	err = git_diff_tree_to_tree(out, l->repo, ptree, tree, &o);
done:
	git_tree_free(tree);
	git_tree_free(ptree);
	git_commit_free(parent);
	git_commit_free(commit);
	free(ps);
	if (err < 0 && err != KB_ENOMEM)
		return kb_error_git(err, "cannot diff a commit of '%s'", l->ix->repo_path);
	return err;
}

/* Does commit `c`'s diff over the fix's files make (or, `undo`, take back)
 * one of `lines`? */
static int diff_meets(bool *met, struct look *l, uint32_t c, const struct kb_history_line *lines,
		      size_t n, bool undo)
{
	struct meet m = { lines, n, undo, false };
	git_diff *diff = NULL;
	int err;

	if ((err = diff_of_commit(&diff, l, c)) == 0 &&
	    (err = git_diff_foreach(diff, NULL, NULL, NULL, meet_line, &m)) < 0)
		err = kb_error_git(err, "cannot diff a commit of '%s'", l->ix->repo_path);
	*met = m.met;
	git_diff_free(diff);
	return err;
}

/* The distinctive lines of `patch` (witness.h), added to l->lines. */
static int patch_lines(struct look *l, const struct kb_patch *patch)
{
	size_t f, h, i;
	int err;

	for (f = 0; patch && f < patch->nfiles; f++) {
		const struct kb_file_patch *fp = &patch->files[f];
		for (h = 0; h < fp->nhunks; h++)
			for (i = 0; i < fp->hunks[h].nlines; i++) {
				const struct kb_line *x = &fp->hunks[h].lines[i];
				if (x->type == KB_LINE_CONTEXT || !kb_hunk_line_distinctive(&fp->hunks[h], i))
					continue;
				if ((err = KB_ARRAY_GROW(l->lines, l->alines, l->nlines + 1)) < 0)
					return err;
				l->lines[l->nlines++] = (struct kb_history_line){
					kb_file_patch_path(fp), x->text, x->len, x->type == KB_LINE_ADD };
			}
	}
	return 0;
}

/*
 * A commit counts as evidence only if it changed the lines the fix changes:
 * it adds one the fix adds, or removes one the fix removes (of its patch or
 * of a variant's). A commit that names the fix but only touches its file
 * elsewhere (a comment added) proves nothing.
 */
static int changes_fix_lines(bool *yes, struct look *l, uint32_t c)
{
	size_t v;
	int err = 0;

	if (!l->lines_read) {
		l->lines_read = true;
		err = patch_lines(l, l->fix->patch);
		for (v = 0; v < l->fix->nvariants && !err; v++)
			err = patch_lines(l, l->fix->variants[v].patch);
		if (err < 0)
			return err;
	}
	*yes = !l->nlines;	/* a fix with no such line (a mode change): the files decide */
	if (*yes)
		return 0;
	return diff_meets(yes, l, c, l->lines, l->nlines, false);
}

/* Commits naming one of the fix's commits in a reference form, and changing its files. */
static int ref_events(struct look *l)
{
	const struct index *ix = l->ix;
	size_t i, k;
	int err;

	for (i = 0; i < l->nnames; i++)
		for (k = first_keyed(ix, hex_key(l->names[i])); k < ix->nby_key; k++) {
			const struct fact *f = &ix->facts[ix->by_key[k]];
			const char *hex = ix->text + f->text, *path;
			if (hex_key(hex) != hex_key(l->names[i]))
				break;
			bool lines;
			if (f->kind != FACT_REF || !same_sha(hex, l->names[i]) ||
			    !in_bits(l->reach, f->commit) || !(path = touched(l, f->commit)))
				continue;
			if ((err = changes_fix_lines(&lines, l, f->commit)) < 0)
				return err;
			if (!lines)
				continue;
			if ((err = add_event(l, f->commit, false, NULL,
					     "its message names %.12s ('%s') and it changes %s",
					     l->names[i], form_names[f->form], path)) < 0)
				return err;
		}
	return 0;
}

/* The fix's commit itself in the branch (changing its files, as any evidence). */
static int own_events(struct look *l)
{
	git_oid id;
	int64_t c;
	size_t i;
	int err;

	for (i = 0; i < l->nnames; i++) {
		if (strlen(l->names[i]) != GIT_OID_HEXSZ || git_oid_fromstr(&id, l->names[i]) < 0 ||
		    (c = find_commit(l->ix, &id)) < 0 || !in_bits(l->reach, (uint32_t)c) ||
		    !touched(l, (uint32_t)c))
			continue;
		if ((err = add_event(l, (uint32_t)c, false, NULL,
				     "it is the fix's commit %.12s itself", l->names[i])) < 0)
			return err;
	}
	return 0;
}

/* A patch's patch-id as libgit2 computes it for a commit; false: it has none. */
static bool patch_id(git_oid *out, const struct kb_patch *patch)
{
	git_diff *diff = NULL;
	bool ok;

	ok = patch && patch->buffer && git_diff_from_buffer(&diff, patch->buffer, patch->size) == 0 &&
	     git_diff_num_deltas(diff) > 0 && git_diff_patchid(out, diff, NULL) == 0;
	git_diff_free(diff);
	git_error_clear();
	return ok;
}

static struct path_hist *look_find_path(const struct look *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->npaths; i++)
		if (!strcmp(l->paths[i]->path, path))
			return l->paths[i];
	return NULL;
}

/* Commits of the branch with the patch-id of `patch` over its files. */
static int patchid_events(struct look *l, const struct kb_patch *patch, const char *variant)
{
	struct path_hist *first;
	git_oid want, sum, one;
	size_t i, f;
	int err;

	if (!patch || !patch->nfiles || !patch_id(&want, patch) ||
	    !(first = look_find_path(l, kb_file_patch_path(&patch->files[0]))))
		return 0;
	for (i = 0; i < first->n; i++) {
		uint32_t c = first->commits[i];
		bool all = true;
		if (!in_bits(l->reach, c))
			continue;
		memset(&sum, 0, sizeof(sum));
		for (f = 0; f < patch->nfiles && all; f++) {
			struct path_hist *p = look_find_path(l, kb_file_patch_path(&patch->files[f]));
			if ((all = p && path_has(p, c, &one)))
				patchid_add(&sum, &one);
		}
		if (!all || !git_oid_equal(&sum, &want))
			continue;
		if ((err = variant ?
		     add_event(l, c, false, variant, "it has the patch-id of variant '%s'", variant) :
		     add_event(l, c, false, NULL, "it has the patch-id of the fix's patch")) < 0)
			return err;
	}
	return 0;
}

static int commit_subject(char **out, git_repository *repo, const git_oid *id)
{
	git_commit *c = NULL;
	int err;

	*out = NULL;
	if ((err = git_commit_lookup(&c, repo, id)) < 0)
		return kb_error_git(err, "cannot read commit");
	*out = kb_strdup(git_commit_summary(c) ? git_commit_summary(c) : "");
	git_commit_free(c);
	return *out ? 0 : kb_error_oom();
}

/* A revert event of commit `c` if the branch holds it. */
static int revert_event(struct look *l, const struct fact *f)
{
	if (!in_bits(l->reach, f->commit))
		return 0;
	if (f->kind == FACT_REVERT_SUBJECT)
		return add_event(l, f->commit, true, NULL, "its subject reverts \"%s\"",
				 l->ix->text + f->text);
	return add_event(l, f->commit, true, NULL, "its message says it reverts %.12s",
			 l->ix->text + f->text);
}

/* Revert facts naming `hex` (one of the fix's commits, or an apply event's). */
static int reverts_of(struct look *l, const char *hex)
{
	const struct index *ix = l->ix;
	size_t k;
	int err;

	for (k = first_keyed(ix, hex_key(hex)); k < ix->nby_key; k++) {
		const struct fact *f = &ix->facts[ix->by_key[k]];
		if (hex_key(ix->text + f->text) != hex_key(hex))
			break;
		if (f->kind == FACT_REVERT_SHA && same_sha(ix->text + f->text, hex) &&
		    (err = revert_event(l, f)) < 0)
			return err;
	}
	return 0;
}

/*
 * Commits of the branch that say they revert the fix or one of its apply
 * events (those from `from` on; the fix's own names when `from` is 0).
 */
static int revert_events(struct look *l, size_t from)
{
	const struct index *ix = l->ix;
	size_t napply = l->nevents, i, k;
	char hex[GIT_OID_HEXSZ + 1], **subjects = NULL;
	int err = 0;

	subjects = calloc(napply + 1, sizeof(*subjects));
	KB_ERROR_CHECK_ALLOC(subjects);
	for (i = 0; from == 0 && i < l->nnames && !err; i++)
		err = reverts_of(l, l->names[i]);
	for (i = from; i < napply && !err; i++) {
		const git_oid *id = &ix->commits[l->events[i].commit].id;
		if (l->events[i].revert)
			continue;
		if ((err = reverts_of(l, git_oid_tostr(hex, sizeof(hex), id))) == 0)
			err = commit_subject(&subjects[i], l->repo, id);
	}
	for (i = 0; i < ix->nsubjects && !err; i++) {
		const struct fact *f = &ix->facts[ix->subjects[i]];
		const char *text = ix->text + f->text;
		bool yes = from == 0 && l->fix->subject && !strcmp(text, l->fix->subject);
		for (k = from; k < napply && !yes; k++)
			yes = subjects[k] && !strcmp(text, subjects[k]);
		if (yes)
			err = revert_event(l, f);
	}
	for (i = 0; i < napply; i++)
		free(subjects[i]);
	free(subjects);
	if (err < 0)
		return err;
	/* a commit that reverts the fix does not bring it in */
	for (i = 0; i < l->nevents; i++) {
		if (l->events[i].revert)
			continue;
		for (k = 0; k < l->nevents; k++)
			if (l->events[k].revert && l->events[k].commit == l->events[i].commit)
				break;
		if (k < l->nevents) {
			free(l->events[i].evidence);
			l->events[i] = l->events[--l->nevents];
			i--;
		}
	}
	return 0;
}

/* A commit reverting the revert `r` (fact `f`), changing the fix's files: it brings the fix back. */
static int rerevert_event(struct look *l, const struct fact *f, uint32_t r)
{
	const char *path;
	char hex[GIT_OID_HEXSZ + 1];

	if (f->commit == r || !in_bits(l->reach, f->commit) || !(path = touched(l, f->commit)))
		return 0;
	git_oid_tostr(hex, sizeof(hex), &l->ix->commits[r].id);
	return add_event(l, f->commit, false, NULL,
			 "it reverts %.12s, a revert of the fix, and it changes %s", hex, path);
}

/*
 * The reverts of the fix's reverts bring it back (`Revert "Revert ..."`,
 * "This reverts commit <revert>"); they can be reverted too, a few rounds.
 */
static int rerevert_events(struct look *l)
{
	const struct index *ix = l->ix;
	char hex[GIT_OID_HEXSZ + 1], *subject = NULL;
	size_t round, n, i, k;
	int err = 0;

	for (round = 0; round < 4 && !err; round++) {
		n = l->nevents;
		for (i = 0; i < n && !err; i++) {
			uint32_t r = l->events[i].commit;
			uint32_t key;
			if (!l->events[i].revert)
				continue;
			git_oid_tostr(hex, sizeof(hex), &ix->commits[r].id);
			key = hex_key(hex);
			for (k = first_keyed(ix, key); k < ix->nby_key && !err; k++) {
				const struct fact *f = &ix->facts[ix->by_key[k]];
				if (hex_key(ix->text + f->text) != key)
					break;
				if (f->kind == FACT_REVERT_SHA && same_sha(ix->text + f->text, hex))
					err = rerevert_event(l, f, r);
			}
			if (err || (err = commit_subject(&subject, l->repo, &ix->commits[r].id)) < 0)
				break;
			for (k = 0; k < ix->nsubjects && !err; k++) {
				const struct fact *f = &ix->facts[ix->subjects[k]];
				if (!strcmp(ix->text + f->text, subject))
					err = rerevert_event(l, f, r);
			}
			free(subject);
			subject = NULL;
		}
		if (err || l->nevents == n)
			break;
		err = revert_events(l, n);
	}
	free(subject);
	return err;
}

static int fill_commit(struct kb_history_commit *out, struct look *l, uint32_t c,
		       const char *evidence)
{
	int err;

	git_oid_tostr(out->id, sizeof(out->id), &l->ix->commits[c].id);
	if ((err = commit_subject(&out->subject, l->repo, &l->ix->commits[c].id)) < 0)
		return err;
	if ((err = index_tags(l->ix, l->repo)) < 0)
		return err;
	if (l->ix->tag_of && l->ix->tag_of[c] && !(out->tag = kb_strdup(l->ix->tags[l->ix->tag_of[c] - 1])))
		return kb_error_oom();
	if (evidence && !(out->evidence = kb_strdup(evidence)))
		return kb_error_oom();
	return 0;
}

/*
 * The answer: in, when an apply event has no revert event after it (the
 * newest such); reverted, when every one has (the newest apply and its
 * newest revert); not found, when there is no event.
 */
static int decide(struct kb_history_answer *out, struct look *l)
{
	int64_t best_in = -1, best_rev_apply = -1, best_rev = -1, lone_rev = -1;
	size_t i, k;
	bool after;
	int err;

	for (i = 0; i < l->nevents; i++) {
		const struct event *a = &l->events[i];
		int64_t rev = -1;
		if (a->revert) {
			if (lone_rev < 0 || l->ix->gen[a->commit] > l->ix->gen[l->events[lone_rev].commit])
				lone_rev = (int64_t)i;
			continue;
		}
		for (k = 0; k < l->nevents; k++) {
			if (!l->events[k].revert)
				continue;
			if ((err = ancestor(&after, l->ix, a->commit, l->events[k].commit)) < 0)
				return err;
			if (after && (rev < 0 || l->ix->gen[l->events[k].commit] >
						 l->ix->gen[l->events[rev].commit]))
				rev = (int64_t)k;
		}
		if (rev < 0 && (best_in < 0 || l->ix->gen[a->commit] > l->ix->gen[l->events[best_in].commit]))
			best_in = (int64_t)i;
		if (rev >= 0 && (best_rev_apply < 0 ||
				 l->ix->gen[a->commit] > l->ix->gen[l->events[best_rev_apply].commit])) {
			best_rev_apply = (int64_t)i;
			best_rev = rev;
		}
	}
	if (best_in >= 0) {
		out->state = KB_HISTORY_IN;
		if (l->events[best_in].variant && !(out->variant = kb_strdup(l->events[best_in].variant)))
			return kb_error_oom();
		return fill_commit(&out->commit, l, l->events[best_in].commit, l->events[best_in].evidence);
	}
	if (best_rev_apply < 0 && lone_rev < 0)
		return 0;
	out->state = KB_HISTORY_REVERTED;
	if (best_rev_apply >= 0 &&
	    (err = fill_commit(&out->commit, l, l->events[best_rev_apply].commit,
			       l->events[best_rev_apply].evidence)) < 0)
		return err;
	i = (size_t)(best_rev >= 0 ? best_rev : lone_rev);
	return fill_commit(&out->revert, l, l->events[i].commit, l->events[i].evidence);
}

static int look_open(struct look *l, struct kb_history *h, git_repository *repo,
		     const git_oid *tip, const struct kb_fix *fix)
{
	int64_t t;
	int err;

	memset(l, 0, sizeof(*l));
	l->repo = repo;
	l->fix = fix;
	if ((err = index_open(&l->ix, h, repo)) < 0 || (err = index_extend(l->ix, repo, tip)) < 0)
		return err;
	if ((t = find_commit(l->ix, tip)) < 0)
		return kb_error_set(KB_ERROR, "the history index of '%s' lacks its tip", l->ix->repo_path);
	l->tip = (uint32_t)t;
	if ((err = index_keys(l->ix)) < 0 || (err = reach_of(&l->reach, l->ix, l->tip)) < 0 ||
	    (err = look_names(l)) < 0 || (err = look_paths(l, h)) < 0)
		return err;
	return 0;
}

static void save_all(struct index *ix)
{
	size_t i;

	/* the cache is a cache: a directory that cannot be written leaves it in memory */
	index_save(ix);
	for (i = 0; i < ix->npaths; i++)
		path_save(ix->paths[i], ix);
	kb_error_clear();
}

int kb_history_find(struct kb_history_answer *out, struct kb_history *h,
		    git_repository *repo, const git_oid *tip, const struct kb_fix *fix)
{
	struct look l;
	size_t v;
	int err;

	memset(out, 0, sizeof(*out));
	git_oid_cpy(&out->tip, tip);
	if ((err = look_open(&l, h, repo, tip, fix)) < 0 ||
	    (err = ref_events(&l)) < 0 || (err = own_events(&l)) < 0 ||
	    (err = patchid_events(&l, fix->patch, NULL)) < 0)
		goto done;
	for (v = 0; v < fix->nvariants && !err; v++)
		err = patchid_events(&l, fix->variants[v].patch, fix->variants[v].name);
	if (err < 0 || (err = revert_events(&l, 0)) < 0 || (err = rerevert_events(&l)) < 0 ||
	    (err = decide(out, &l)) < 0)
		goto done;
done:
	if (l.ix)
		save_all(l.ix);
	look_release(&l);
	if (err < 0)
		kb_history_answer_release(out);
	return err;
}

/* ---- lines changed later ---- */

/*
 * The lines a commit added, followed through the later commits as git
 * blame --reverse does on a linear history: a later commit whose hunk
 * removes one of them changed it; the others move with the hunks before
 * them.
 */
struct tracked {
	char *path;
	size_t line;		/* 1-based, in the file as the last commit left it */
	bool gone;
};

struct tracking {
	struct tracked *v;
	size_t n, alloc;
	/* the hunks of the commit being looked at (context 0) */
	struct hunk { char *path; size_t old_start, old_lines, new_lines; } *h;
	size_t nh, ah;
	int err;
};

static void tracking_hunks_clear(struct tracking *t)
{
	size_t i;

	for (i = 0; i < t->nh; i++)
		free(t->h[i].path);
	free(t->h);
	t->h = NULL;
	t->nh = t->ah = 0;
}

static void tracking_release(struct tracking *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	tracking_hunks_clear(t);
}

static int added_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *line,
		      void *payload)
{
	struct tracking *t = payload;
	size_t i;
	bool blank = true;

	(void)h;
	if (line->origin != GIT_DIFF_LINE_ADDITION || line->new_lineno <= 0)
		return 0;
	for (i = 0; i < line->content_len && blank; i++)
		blank = isspace((unsigned char)line->content[i]);
	if (blank)
		return 0;
	if ((t->err = KB_ARRAY_GROW(t->v, t->alloc, t->n + 1)) < 0)
		return -1;
	t->v[t->n] = (struct tracked){ kb_strdup(d->new_file.path), (size_t)line->new_lineno, false };
	if (!t->v[t->n++].path) {
		t->err = kb_error_oom();
		return -1;
	}
	return 0;
}

static int hunk_seen(const git_diff_delta *d, const git_diff_hunk *h, void *payload)
{
	struct tracking *t = payload;

	if ((t->err = KB_ARRAY_GROW(t->h, t->ah, t->nh + 1)) < 0)
		return -1;
	t->h[t->nh] = (struct hunk){ kb_strdup(d->old_file.path), (size_t)h->old_start,
				     (size_t)h->old_lines, (size_t)h->new_lines };
	if (!t->h[t->nh++].path) {
		t->err = kb_error_oom();
		return -1;
	}
	return 0;
}

/* The diff of commit `c` over the fix's files (context 0), into `t`. */
static int commit_diff(struct tracking *t, struct look *l, uint32_t c, bool lines)
{
	git_diff *diff = NULL;
	int err;

	if ((err = diff_of_commit(&diff, l, c)) < 0)
		return err;
	err = lines ? git_diff_foreach(diff, NULL, NULL, NULL, added_line, t) :
		      git_diff_foreach(diff, NULL, NULL, hunk_seen, NULL, t);
	if (t->err)
		err = t->err;
	else if (err < 0)
		err = kb_error_git(err, "cannot diff a commit of '%s'", l->ix->repo_path);
	git_diff_free(diff);
	return err;
}

/* Move the tracked lines through the hunks of one commit: did it change one? */
static bool track_through(struct tracking *t)
{
	bool changed = false;
	size_t i, k;

	for (i = 0; i < t->n; i++) {
		struct tracked *tr = &t->v[i];
		long delta = 0;
		if (tr->gone)
			continue;
		for (k = 0; k < t->nh && !tr->gone; k++) {
			const struct hunk *h = &t->h[k];
			if (strcmp(h->path, tr->path))
				continue;
			if (!h->old_lines) {
				if (tr->line > h->old_start)
					delta += (long)h->new_lines;
			} else if (tr->line >= h->old_start + h->old_lines) {
				delta += (long)h->new_lines - (long)h->old_lines;
			} else if (tr->line >= h->old_start) {
				tr->gone = changed = true;
			}
		}
		if (!tr->gone)
			tr->line = (size_t)((long)tr->line + delta);
	}
	return changed;
}

/* The hunks of `path` in commit `c` (context 0), as a list. */
static int path_diff(struct zhunks *out, struct look *l, uint32_t c, const char *path)
{
	struct tracking t = { 0 };
	struct look one = *l;
	struct path_hist ph = { 0 }, *pp = &ph;
	size_t i;
	int err;

	ph.path = (char *)path;
	one.paths = &pp;
	one.npaths = one.apaths = 1;
	if ((err = commit_diff(&t, &one, c, false)) == 0 && t.nh &&
	    !(out->v = malloc(t.nh * sizeof(*out->v))))
		err = kb_error_oom();
	for (i = 0; err == 0 && i < t.nh; i++)
		out->v[out->n++] = (struct zhunk){ (uint32_t)t.h[i].old_start,
						    (uint32_t)t.h[i].old_lines,
						    (uint32_t)t.h[i].new_lines };
	out->read = err == 0;
	tracking_release(&t);
	return err;
}

/*
 * The hunks of commit `c` over the fix's files into `t`, each path's read
 * once a run: the same later commits come back for every branch and fix.
 */
static int commit_hunks(struct tracking *t, struct look *l, uint32_t c)
{
	size_t i, k, at;
	int err;

	for (i = 0; i < l->npaths; i++) {
		struct path_hist *p = l->paths[i];
		struct zhunks *z;
		if (!path_at(p, c, NULL, &at))
			continue;
		if (at >= p->nhunks) {
			if ((err = KB_ARRAY_GROW(p->hunks, p->ahunks, p->n)) < 0)
				return err;
			memset(p->hunks + p->nhunks, 0, (p->n - p->nhunks) * sizeof(*p->hunks));
			p->nhunks = p->n;
		}
		z = &p->hunks[at];
		if (!z->read && (err = path_diff(z, l, c, p->path)) < 0)
			return err;
		if ((err = KB_ARRAY_GROW(t->h, t->ah, t->nh + z->n + 1)) < 0)
			return err;
		for (k = 0; k < z->n; k++) {
			t->h[t->nh] = (struct hunk){ kb_strdup(p->path), z->v[k].old_start,
						     z->v[k].old_lines, z->v[k].new_lines };
			KB_ERROR_CHECK_ALLOC(t->h[t->nh++].path);
		}
	}
	return 0;
}

/* `alloc`: how many a->changed holds, kept by the caller through its loop. */
static int add_changed(struct kb_history_answer *a, size_t *alloc, struct look *l, uint32_t c)
{
	int err;

	if ((err = KB_ARRAY_GROW(a->changed, *alloc, a->nchanged + 1)) < 0)
		return err;
	memset(&a->changed[a->nchanged], 0, sizeof(*a->changed));
	return fill_commit(&a->changed[a->nchanged++], l, c, NULL);
}

static int uint_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The commits of the branch after `a` changing the fix's files, oldest first. */
static int later_commits(uint32_t **out, size_t *n, struct look *l, uint32_t a)
{
	uint32_t *cands;
	size_t total = 0, i, k, m = 0;
	bool after;
	int err;

	for (i = 0; i < l->npaths; i++)
		total += l->paths[i]->n;
	cands = malloc((total + 1) * sizeof(*cands));
	KB_ERROR_CHECK_ALLOC(cands);
	for (i = 0; i < l->npaths; i++)
		for (k = 0; k < l->paths[i]->n; k++)
			if (l->paths[i]->commits[k] != a && in_bits(l->reach, l->paths[i]->commits[k]))
				cands[m++] = l->paths[i]->commits[k];
	if (m > 1)	/* the index holds parents first */
		qsort(cands, m, sizeof(*cands), uint_cmp);
	for (i = k = 0; i < m; i++) {
		if (k && cands[i] == cands[k - 1])
			continue;
		if ((err = ancestor(&after, l->ix, a, cands[i])) < 0) {
			free(cands);
			return err;
		}
		if (after)
			cands[k++] = cands[i];
	}
	*out = cands;
	*n = k;
	return 0;
}

int kb_history_changed(struct kb_history_answer *answer, struct kb_history *h,
		       git_repository *repo, const struct kb_fix *fix)
{
	struct tracking t = { 0 };
	struct look l;
	uint32_t *later = NULL;
	size_t n = 0, i, alloc = 0;
	git_oid id;
	int64_t a;
	int err;

	if (answer->state != KB_HISTORY_IN || answer->nchanged)
		return 0;
	if ((err = look_open(&l, h, repo, &answer->tip, fix)) < 0)
		goto done;
	if (git_oid_fromstr(&id, answer->commit.id) < 0 || (a = find_commit(l.ix, &id)) < 0)
		goto done;
	if ((err = later_commits(&later, &n, &l, (uint32_t)a)) < 0 ||
	    (err = commit_diff(&t, &l, (uint32_t)a, true)) < 0)
		goto done;
	for (i = 0; i < n && !err; i++) {
		tracking_hunks_clear(&t);
		if ((err = commit_hunks(&t, &l, later[i])) == 0 && track_through(&t))
			err = add_changed(answer, &alloc, &l, later[i]);
	}
done:
	tracking_release(&t);
	free(later);
	if (l.ix)
		save_all(l.ix);
	look_release(&l);
	return err;
}

int kb_history_undone(struct kb_history_commit *out, struct kb_history *h,
		      git_repository *repo, const struct kb_history_answer *answer,
		      const struct kb_fix *fix, const struct kb_history_line *lines, size_t nlines)
{
	struct look l;
	uint32_t *later = NULL;
	size_t n = 0, i;
	git_oid id;
	int64_t a;
	bool met = false;
	int err;

	memset(out, 0, sizeof(*out));
	if (answer->state != KB_HISTORY_IN || !nlines)
		return 0;
	if ((err = look_open(&l, h, repo, &answer->tip, fix)) < 0)
		goto done;
	if (git_oid_fromstr(&id, answer->commit.id) < 0 || (a = find_commit(l.ix, &id)) < 0)
		goto done;
	if ((err = later_commits(&later, &n, &l, (uint32_t)a)) < 0)
		goto done;
	for (i = n; i-- > 0 && !met;)	/* newest first */
		if ((err = diff_meets(&met, &l, later[i], lines, nlines, true)) < 0 ||
		    (met && (err = fill_commit(out, &l, later[i], NULL)) < 0))
			break;
done:
	free(later);
	if (l.ix)
		save_all(l.ix);
	look_release(&l);
	return err;
}

/* Does `path` at commit `c` hold `text`? */
static int blob_holds(bool *yes, struct look *l, uint32_t c, const char *path, const char *text,
		      size_t len)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int err;

	*yes = false;
	if ((err = git_commit_lookup(&commit, l->repo, &l->ix->commits[c].id)) < 0 ||
	    (err = git_commit_tree(&tree, commit)) < 0)
		goto done;
	if ((err = git_tree_entry_bypath(&e, tree, path)) == GIT_ENOTFOUND) {
		err = 0;
		goto done;
	}
	if (err < 0 || git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    (err = git_blob_lookup(&blob, l->repo, git_tree_entry_id(e))) < 0)
		goto done;
	*yes = memmem(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), text, len) != NULL;
done:
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(commit);
	if (err < 0 && err != KB_ENOMEM)
		return kb_error_git(err, "cannot read '%s' in the history of '%s'", path,
				    l->ix->repo_path);
	return err;
}

int kb_history_older_copy(bool *yes, struct kb_history *h, git_repository *repo,
			  const struct kb_history_answer *answer, const struct kb_fix *fix,
			  const char *path, const char *text, size_t len)
{
	struct look l;
	struct path_hist *p = NULL;
	git_oid id;
	int64_t a;
	size_t i, k;
	bool before;
	int err;

	*yes = false;
	if (answer->state != KB_HISTORY_IN || !len)
		return 0;
	if ((err = look_open(&l, h, repo, &answer->tip, fix)) < 0)
		goto done;
	if (git_oid_fromstr(&id, answer->commit.id) < 0 || (a = find_commit(l.ix, &id)) < 0)
		goto done;
	for (i = 0; i < l.npaths && !p; i++)
		if (!strcmp(l.paths[i]->path, path))
			p = l.paths[i];
	for (k = p ? p->n : 0; k-- > 0 && !*yes;) {
		uint32_t c = p->commits[k];
		if (c == (uint32_t)a)
			continue;
		if ((err = ancestor(&before, l.ix, c, (uint32_t)a)) < 0 ||
		    (before && (err = blob_holds(yes, &l, c, path, text, len)) < 0))
			break;
	}
done:
	if (l.ix)
		save_all(l.ix);
	look_release(&l);
	return err;
}

void kb_history_commit_release(struct kb_history_commit *c)
{
	free(c->subject);
	free(c->tag);
	free(c->evidence);
	memset(c, 0, sizeof(*c));
}

void kb_history_answer_release(struct kb_history_answer *a)
{
	size_t i;

	if (!a)
		return;
	kb_history_commit_release(&a->commit);
	kb_history_commit_release(&a->revert);
	kb_history_commit_release(&a->undone);
	for (i = 0; i < a->nchanged; i++)
		kb_history_commit_release(&a->changed[i]);
	free(a->changed);
	free(a->variant);
	memset(a, 0, sizeof(*a));
}

int kb_history_new(struct kb_history **out, const char *cache_dir)
{
	struct kb_history *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (!h || (cache_dir && !(h->cache_dir = kb_strdup(cache_dir)))) {
		free(h);
		return kb_error_oom();
	}
	*out = h;
	return 0;
}

void kb_history_expect(struct kb_history *h, const struct kb_fix *const *fixes, size_t n)
{
	h->expect = fixes;
	h->nexpect = n;
}

void kb_history_free(struct kb_history *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->nrepos; i++)
		index_free(h->repos[i]);
	free(h->repos);
	free(h->cache_dir);
	free(h);
}
