/* A run directory filled (see run_dir.h). */
#include "run_dir.h"
#include "buf.h"
#include "error.h"
#include "fsutil.h"
#include "json.h"
#include "repo.h"
#include "report.h"
#include "report_save.h"

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
		return kb_error_set(KB_ENOMEM, "out of memory");
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
		err = kb_error_set(KB_ENOMEM, "out of memory");
	else if (kb_buf_printf(&path, "%s/%s", dir, name) < 0)
		err = KB_ENOMEM;
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
	if (repo && l->kind != KB_LANE_AS_IS &&
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

int kb_run_dir_add(struct kb_run_dir *rd, const struct kb_branch_run *b,
		   const struct kb_cases *cases)
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
	if (!(entry = kb_branch_run_json(b, cases)) || json_array_append_new(rd->branches, entry) < 0)
		return kb_error_set(KB_ENOMEM, "out of memory");
	return 0;
}

/* ---- the end ---- */

static void iso_time(char *out, size_t size, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int write_results(const struct kb_run_dir *rd, const struct kb_fix *fix)
{
	char start[32], end[32], host[256] = "";
	const struct kb_patch *p = fix->patch;
	struct kb_buf author = KB_BUF_INIT;
	json_t *doc;
	int err;

	iso_time(start, sizeof(start), rd->started);
	iso_time(end, sizeof(end), time(NULL));
	gethostname(host, sizeof(host) - 1);
	if (p && p->author_name &&
	    kb_buf_printf(&author, "%s <%s>", p->author_name, p->author_email ? p->author_email : "") < 0)
		return KB_ENOMEM;
	doc = json_pack("{s:i, s:s, s:s, s:o, s:s, s:o, s:s, s:s, s:s, s:O}",
			"schema", KB_REPORT_SCHEMA, "run", rd->id, "fix", fix->id,
			"upstream", kb_json_str(fix->upstream), "subject", fix->subject,
			"author", kb_json_str(author.ptr), "started", start, "finished", end,
			"host", host, "branches", rd->branches);
	err = doc ? kb_results_save(rd->dir, doc) : kb_error_set(KB_ENOMEM, "out of memory");
	json_decref(doc);
	kb_buf_release(&author);
	return err;
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
		err = KB_ENOMEM;
	else if (unlink(tmp.ptr), symlink(rd->id, tmp.ptr) < 0 || rename(tmp.ptr, latest.ptr) < 0)
		err = kb_error_set(KB_ERROR, "cannot point '%s' at '%s': %s", latest.ptr, rd->id,
				   strerror(errno));
	kb_buf_release(&tmp);
	kb_buf_release(&latest);
	return err;
}

int kb_run_dir_finish(struct kb_run_dir *rd, const struct kb_fix *fix)
{
	int err;

	if ((err = write_results(rd, fix)) < 0 || (err = write_report(rd->dir)) < 0)
		return err;
	return point_latest(rd);
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
