/* A run directory filled (see run_dir.h). */
#include "run_dir.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/json.h"
#include "repo.h"
#include "report/report.h"
#include "report/report_priv.h"
#include "report/results_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kb_run_dir_create(struct kb_run_dir *rd, const char *reports)
{
	struct kb_buf dir = KB_BUF_INIT;
	unsigned short rnd = 0;
	struct tm tm;
	char stamp[32];
	unsigned n;
	FILE *fp;
	int err;

	memset(rd, 0, sizeof(*rd));
	rd->started = time(NULL);
	gmtime_r(&rd->started, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if ((fp = fopen("/dev/urandom", "rb"))) {
		if (fread(&rnd, sizeof(rnd), 1, fp) != 1)
			rnd = (unsigned short)getpid();
		fclose(fp);
	}
	if (!(rd->reports = kb_strdup(reports)) || !(rd->branches = json_array()))
		return kb_error_oom();
	if ((err = kb_mkdir_p(reports)) < 0)
		return err;
	for (n = 0; n < 16; n++) {
		dir.size = 0;
		snprintf(rd->id, sizeof(rd->id), "%s-%04x", stamp, (unsigned)(rnd + n) & 0xffff);
		if ((err = kb_buf_printf(&dir, "%s/%s", reports, rd->id)) < 0)
			break;
		if (mkdir(dir.ptr, 0755) == 0) {
			rd->dir = kb_buf_detach(&dir);
			return 0;
		}
		if (errno != EEXIST) {
			err = kb_error_set(KB_ERROR, "cannot create '%s': %s", dir.ptr, strerror(errno));
			break;
		}
	}
	kb_buf_release(&dir);
	return err ? err : kb_error_set(KB_EEXISTS, "cannot find a new run id in '%s'", reports);
}

/* ---- a lane's files ---- */

/* Copy `from` to <dir>/<name> when it exists. */
static int keep_file(const char *dir, const char *name, const char *from)
{
	struct kb_buf to = KB_BUF_INIT;
	int err;

	if (!from || access(from, R_OK) < 0)
		return 0;
	if ((err = kb_buf_printf(&to, "%s/%s", dir, name)) == 0)
		err = kb_copy_file(to.ptr, from);
	kb_buf_release(&to);
	return err;
}

static int write_json(const char *dir, const char *name, json_t *doc)
{
	struct kb_buf path = KB_BUF_INIT;
	int err = 0;

	if (!doc)
		err = kb_error_oom();
	else if (kb_buf_printf(&path, "%s/%s", dir, name) < 0)
		err = kb_error_oom();
	else if (json_dump_file(doc, path.ptr, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path.ptr, strerror(errno));
	kb_buf_release(&path);
	return err;
}

/* The lane's commit as `git format-patch` writes it: ready to mail. */
static int write_patch(const char *dir, const char *name, git_repository *repo,
		       const char *commit)
{
	git_commit *c = NULL;
	git_buf mail = GIT_BUF_INIT;
	struct kb_buf path = KB_BUF_INIT;
	git_oid id;
	FILE *fp = NULL;
	int err;

	if ((err = git_oid_fromstr(&id, commit)) < 0 ||
	    (err = git_commit_lookup(&c, repo, &id)) < 0 ||
	    (err = git_email_create_from_commit(&mail, c, NULL)) < 0) {
		err = kb_error_git(err, "cannot write the lane's commit as a patch");
		goto done;
	}
	if ((err = kb_buf_printf(&path, "%s/%s", dir, name)) < 0)
		goto done;
	if (!(fp = fopen(path.ptr, "w")) || fwrite(mail.ptr, 1, mail.size, fp) != mail.size)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path.ptr, strerror(errno));
done:
	if (fp && fclose(fp) != 0 && !err)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path.ptr, strerror(errno));
	git_buf_dispose(&mail);
	git_commit_free(c);
	kb_buf_release(&path);
	return err;
}

static int keep_ktap(const char *dir, const struct kb_lane_run *l)
{
	struct kb_buf name = KB_BUF_INIT, from = KB_BUF_INIT;
	size_t i;
	int err = 0;

	for (i = 0; !err && l->test.booted && i < l->test.run.ktap.nsuites; i++) {
		kb_buf_clear(&name);
		kb_buf_clear(&from);
		if ((err = kb_buf_printf(&name, "%s.ktap", l->test.run.ktap.suites[i].name)) == 0 &&
		    (err = kb_buf_printf(&from, "%s/%s", l->outdir, name.ptr)) == 0)
			err = keep_file(dir, name.ptr, from.ptr);
	}
	kb_buf_release(&name);
	kb_buf_release(&from);
	return err;
}

static int keep_lane(const struct kb_run_dir *rd, const struct kb_branch_run *b,
		     const struct kb_lane_run *l, git_repository *repo)
{
	struct kb_buf dir = KB_BUF_INIT;
	json_t *apply = NULL;
	int err;

	if ((err = kb_buf_printf(&dir, "%s/%s/%s", rd->dir, b->branch->name,
				 kb_lane_kind_name(l->kind))) < 0 ||
	    (err = kb_mkdir_p(dir.ptr)) < 0)
		goto done;
	if (b->applied) {
		apply = json_pack("{s:o, s:o}", "lane", kb_lane_apply_json(b, l),
				  "branch", kb_result_json(&b->apply, NULL));
		if ((err = write_json(dir.ptr, "apply.json", apply)) < 0)
			goto done;
	}
	/* a queue's tip is one commit of many: its mails are not one patch */
	if (repo && l->kind != KB_LANE_AS_IS && !b->queued &&
	    (err = write_patch(dir.ptr, l->kind == KB_LANE_BACKPORT ? "backport.patch" :
			       "pre-fix.patch", repo, l->commit)) < 0)
		goto done;
	if (l->built && (err = keep_file(dir.ptr, "build.log", l->build.log)) < 0)
		goto done;
	if (l->test.booted && (err = keep_file(dir.ptr, "console.log", l->test.run.log)) < 0)
		goto done;
	err = keep_ktap(dir.ptr, l);
done:
	json_decref(apply);
	kb_buf_release(&dir);
	return err;
}

/*
 * <branch>/FAILED-<fix>.txt of each fix of the queue that was skipped on
 * the branch, named in its result's "mail" in `entry`.
 */
static int queue_mails(const struct kb_run_dir *rd, const struct kb_branch_run *b,
		       json_t *entry)
{
	json_t *results = json_object_get(json_object_get(entry, "queue"), "results");
	struct kb_buf mail = KB_BUF_INIT, rel = KB_BUF_INIT;
	size_t f;
	int err = 0;

	for (f = 0; b->queued && f < json_array_size(results) && !err; f++) {
		const struct kb_result *r = &b->queue.results[f];
		if (!kb_status_needs_hand(r->status))
			continue;
		kb_buf_clear(&mail);
		kb_buf_clear(&rel);
		if ((err = kb_result_failed_mail(&mail, r, b->series->fixes[f], b->branch,
						 b->queue_name)) < 0 ||
		    (err = kb_buf_printf(&rel, "%s/FAILED-%s.txt", b->branch->name, r->fix)) < 0 ||
		    (err = report_write_file(rd->dir, rel.ptr, mail.ptr, mail.size)) < 0)
			break;
		err = json_object_set_new(json_array_get(results, f), "mail", json_string(rel.ptr)) ?
		      kb_error_oom() : 0;
	}
	kb_buf_release(&mail);
	kb_buf_release(&rel);
	return err;
}

/*
 * A branch of a one-fix run that needs a hand: "mail", what its FAILED mail
 * says beyond the rest of results.json (recipients, tree, the patch tried),
 * so that `kbackport report` writes the same mail again.
 */
static int add_mail(json_t *entry, const struct kb_branch_run *b, const struct kb_fix *fix)
{
	const struct kb_mail *m = &b->branch->mail;
	struct kb_buf patch = KB_BUF_INIT;
	json_t *cc = json_array(), *o;
	size_t i;
	int err = 0;

	if (!fix || !b->applied ||
	    !kb_status_needs_hand(b->apply.status)) {
		json_decref(cc);
		return 0;
	}
	if ((err = kb_result_failed_patch(&patch, &b->apply, fix)) < 0) {
		json_decref(cc);
		return err;
	}
	for (i = 0; cc && i < m->ncc; i++)
		json_array_append_new(cc, json_string(m->cc[i]));
	o = json_pack("{s:o, s:o, s:s, s:o, s:b, s:o}", "to", kb_json_str(m->to), "cc", cc,
		      "tree", m->tree ? m->tree : b->branch->name, "send_to", kb_json_str(m->send_to),
		      "stable", m->stable, "patch", kb_json_str(patch.ptr));
	if (!o || json_object_set_new(entry, "mail", o) < 0)
		err = kb_error_oom();
	kb_buf_release(&patch);
	return err;
}

int kb_run_dir_add(struct kb_run_dir *rd, const struct kb_branch_run *b,
		   const struct kb_cases *cases, const struct kb_fix *fix)
{
	git_repository *repo = NULL;
	git_commit *tip = NULL;
	json_t *entry;
	size_t i;
	int err = 0;

	for (i = 0; i < b->nlanes && !repo; i++)
		if (b->lanes[i].kind != KB_LANE_AS_IS &&
		    (err = kb_branch_open(&repo, &tip, b->branch)) < 0)
			return err;
	for (i = 0; i < b->nlanes && !err; i++)
		err = keep_lane(rd, b, &b->lanes[i], repo);
	git_commit_free(tip);
	git_repository_free(repo);
	if (err < 0)
		return err;
	entry = kb_branch_run_json(b, cases);
	KB_ERROR_CHECK_ALLOC(entry);
	if ((err = queue_mails(rd, b, entry)) < 0 || (err = add_mail(entry, b, fix)) < 0) {
		json_decref(entry);
		return err;
	}
	if (json_array_append_new(rd->branches, entry) < 0)
		return kb_error_oom();
	return 0;
}

/* ---- the end ---- */

static void iso_time(char *out, size_t size, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* results.json: the run's fields, `what` (fix, upstream, subject, author
 * and for a queue "queue"), then the branches. */
static int write_results(const struct kb_run_dir *rd, json_t *what)
{
	char start[32], end[32], host[256] = "";
	json_t *doc;
	int err;

	iso_time(start, sizeof(start), rd->started);
	iso_time(end, sizeof(end), time(NULL));
	gethostname(host, sizeof(host) - 1);
	doc = json_pack("{s:i, s:s}", "schema", KB_REPORT_SCHEMA, "run", rd->id);
	if (!doc || !what || json_object_update(doc, what) < 0 ||
	    json_object_set_new(doc, "started", json_string(start)) < 0 ||
	    json_object_set_new(doc, "finished", json_string(end)) < 0 ||
	    json_object_set_new(doc, "host", json_string(host)) < 0 ||
	    json_object_set(doc, "branches", rd->branches) < 0)
		err = kb_error_oom();
	else
		err = kb_results_save(rd->dir, doc);
	json_decref(doc);
	return err;
}

/* The fix's fields, its id under `key`. */
static json_t *fix_json(const struct kb_fix *fix, const char *key)
{
	const struct kb_patch *p = fix->patch;
	struct kb_buf author = KB_BUF_INIT;
	json_t *o;

	if (p && p->author_name &&
	    kb_buf_printf(&author, "%s <%s>", p->author_name, p->author_email ? p->author_email : "") < 0)
		return NULL;
	o = json_pack("{s:s, s:o, s:o, s:o}", key, fix->id, "upstream", kb_json_str(fix->upstream),
		      "subject", kb_json_str(fix->subject), "author", kb_json_str(author.ptr));
	kb_buf_release(&author);
	return o;
}

/* A queue's run: "fix" is "queue/<name>", "queue" names its fixes in order. */
static json_t *queue_json(const struct kb_series *series, const char *name)
{
	json_t *fixes = json_array(), *o;
	struct kb_buf id = KB_BUF_INIT, subject = KB_BUF_INIT;
	size_t f;

	for (f = 0; f < series->nfixes; f++)
		json_array_append_new(fixes, fix_json(series->fixes[f], "id"));
	if (kb_buf_printf(&id, "queue/%s", name) < 0 ||
	    kb_buf_printf(&subject, "the queue '%s': %zu fix%s", name, series->nfixes,
			  series->nfixes == 1 ? "" : "es") < 0)
		o = NULL;
	else
		o = json_pack("{s:s, s:n, s:s, s:n, s:{s:s, s:o}}", "fix", id.ptr, "upstream",
			      "subject", subject.ptr, "author", "queue", "name", name,
			      "fixes", fixes);
	kb_buf_release(&id);
	kb_buf_release(&subject);
	return o;
}

static int write_report(const char *dir)
{
	struct kb_report *report = NULL;
	struct kb_report_opts opts;
	int err;

	memset(&opts, 0, sizeof(opts));
	if ((err = kb_report_load(&report, dir)) == 0)
		err = kb_report_write(report, &opts, NULL);
	kb_report_free(report);
	return err;
}

static int point_latest(const struct kb_run_dir *rd)
{
	struct kb_buf tmp = KB_BUF_INIT, latest = KB_BUF_INIT;
	int err = 0;

	if (kb_buf_printf(&tmp, "%s/.latest.%ld", rd->reports, (long)getpid()) < 0 ||
	    kb_buf_printf(&latest, "%s/latest", rd->reports) < 0)
		err = kb_error_oom();
	else if (unlink(tmp.ptr), symlink(rd->id, tmp.ptr) < 0 || rename(tmp.ptr, latest.ptr) < 0)
		err = kb_error_set(KB_ERROR, "cannot point '%s' at '%s': %s", latest.ptr, rd->id,
				   strerror(errno));
	kb_buf_release(&tmp);
	kb_buf_release(&latest);
	return err;
}

static int finish(struct kb_run_dir *rd, json_t *what)
{
	int err;

	err = write_results(rd, what);
	json_decref(what);
	if (err < 0 || (err = write_report(rd->dir)) < 0)
		return err;
	return point_latest(rd);
}

int kb_run_dir_finish(struct kb_run_dir *rd, const struct kb_fix *fix)
{
	return finish(rd, fix_json(fix, "fix"));
}

int kb_run_dir_finish_queue(struct kb_run_dir *rd, const struct kb_series *series,
			    const char *name)
{
	return finish(rd, queue_json(series, name));
}

void kb_run_dir_discard(struct kb_run_dir *rd)
{
	if (rd->dir)
		rmdir(rd->dir);
}

void kb_run_dir_release(struct kb_run_dir *rd)
{
	free(rd->reports);
	free(rd->dir);
	json_decref(rd->branches);
	memset(rd, 0, sizeof(*rd));
}
