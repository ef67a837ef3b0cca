/*
 * kbackport run: apply -> build -> test -> report for every selected branch,
 * one run directory under reports/ with results.json and everything a
 * person or a CI system reads (see README.md, "Reports").
 */
#include "backport.h"
#include "buf.h"
#include "build.h"
#include "cli.h"
#include "distro.h"
#include "error.h"
#include "fsutil.h"
#include "lanes.h"
#include "repo.h"
#include "report.h"
#include "testrun.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
"usage: kbackport run [--config FILE] [--fix DIR] [--branch NAME]...\n"
"                     [--workdir DIR] [--reports DIR] [--jobs N]\n"
"                     [--accel tcg|auto] [--timeout SECONDS]\n"
"\n"
"The whole pipeline for one fix, every selected branch of branches.yaml:\n"
"apply (the backport commit, and the pre-fix lane where asked for), build\n"
"each lane's kernel, test it in QEMU, then write a report. Stages whose\n"
"inputs did not change are not redone: a backport already made is reused, a\n"
"lane already built is cached, a boot of the same kernel and initramfs is\n"
"read again from its log.\n"
"\n"
"The report goes to <reports>/<run-id>/ (older runs are kept, <reports>/latest\n"
"points at the newest): results.json, summary.md, summary.html, kcidb.json,\n"
"FAILED-<branch>.txt for a branch the fix does not apply to, and per lane\n"
"<branch>/<lane>/ with apply.json, backport.patch (pre-fix.patch for the\n"
"pre-fix lane), build.log, console.log, one .ktap per suite and junit.xml.\n"
"\n"
"  -c, --config FILE     branches file (default: ./branches.yaml)\n"
"  -f, --fix DIR         the fix directory (default: the one fix under\n"
"                        backports/ beside the config)\n"
"  -b, --branch NAME     only this branch; repeatable (default: all)\n"
"  -w, --workdir DIR     sources, builds and boots (default: work/ beside\n"
"                        the config)\n"
"  -r, --reports DIR     where run directories go (default: reports/ beside\n"
"                        the config)\n"
"  -j, --jobs N          make -jN (default: the number of CPUs)\n"
"      --accel tcg|auto  as for kbackport test (default: tcg)\n"
"  -t, --timeout SECS    per boot (default: 120)\n"
"  -h, --help            this text\n"
"\n"
"One kbackport at a time works in a work directory: a second one started\n"
"meanwhile refuses, naming the first one's pid. ^C or a kill stops the make\n"
"or QEMU running; the next run picks up cleanly (half-done builds, boots and\n"
"reports are never trusted).\n"
"\n"
"Branch verdicts: verified, fixed, not-affected, vulnerable, conflict,\n"
"regression, error, skipped. Exit status: 0 when every branch is verified,\n"
"fixed, not-affected or skipped; 1 when one is vulnerable, in conflict,\n"
"regressed or in error; 2 for usage.\n";

struct run_cli {
	struct cli_target t;
	const char *reports;
	unsigned jobs;
	bool accel_auto;
	unsigned timeout;
};

/* Everything one run shares. */
struct runner {
	const struct kb_config *config;
	const struct kb_fix *fix;
	struct kb_backport_opts backport;
	struct kb_build_opts build;
	struct kb_tester tester;
	char *rundir;		/* <reports>/<id> */
	int lock_fd;		/* <workdir>/kbackport.lock, held for the run */
	char id[64];
	struct timespec start;
	bool tty;
	const char *now;	/* "6.1.y as-is": what runs now, for progress */
	json_t *branches;	/* results.json's "branches" */
};

static int parse_options(struct run_cli *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_TARGET_OPTIONS,
		{ "workdir", required_argument, NULL, 'w' },
		{ "reports", required_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "accel", required_argument, NULL, 'A' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:f:b:w:r:j:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': case 'f': case 'b': case 'w':
			if (cli_target_option(&o->t, c, optarg))
				return EXIT_USAGE;
			break;
		case 'r': o->reports = optarg; break;
		case 'j':
			if (cli_parse_number(&o->jobs, optarg, "--jobs", "a number", 1024))
				return EXIT_USAGE;
			break;
		case 'A':
			if (cli_parse_accel(&o->accel_auto, optarg))
				return EXIT_USAGE;
			break;
		case 't':
			if (cli_parse_number(&o->timeout, optarg, "--timeout", "seconds", 3600))
				return EXIT_USAGE;
			break;
		case 'h': cli_help(usage); return -1;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	return cli_no_arguments(argc, argv);
}

/* ---- progress: one line per finished step, a live line while building ---- */

static double elapsed(const struct runner *r)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - r->start.tv_sec) +
	       (double)(now.tv_nsec - r->start.tv_nsec) / 1e9;
}

static void step(struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step(struct runner *r, const char *fmt, ...)
{
	va_list ap;

	if (r->tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "[%6.1fs] ", elapsed(r));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void build_progress(const char *line, void *payload)
{
	struct runner *r = payload;

	if (!r->tty)
		return;
	fprintf(stderr, "\r\033[K[%6.1fs] %s: build: %.60s", elapsed(r), r->now, line);
	fflush(stderr);
}

/* ---- files of a lane ---- */

static int lane_dir(struct kb_buf *out, const struct runner *r, const char *branch,
		    const char *lane)
{
	out->size = 0;
	if (kb_buf_printf(out, "%s/%s/%s", r->rundir, branch, lane) < 0)
		return KB_ENOMEM;
	return kb_mkdir_p(out->ptr);
}

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

	if (kb_buf_printf(&path, "%s/%s", dir, name) < 0)
		err = KB_ENOMEM;
	else if (json_dump_file(doc, path.ptr, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path.ptr, strerror(errno));
	kb_buf_release(&path);
	return err;
}

/* The lane's commit as `git format-patch` writes it: ready to mail. */
static int write_patch(const char *dir, const char *name, git_repository *repo,
		       const git_oid *commit)
{
	git_commit *c = NULL;
	git_buf mail = GIT_BUF_INIT;
	struct kb_buf path = KB_BUF_INIT;
	FILE *fp = NULL;
	int err;

	if ((err = git_commit_lookup(&c, repo, commit)) < 0 ||
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

/* ---- results.json pieces ---- */

static json_t *apply_json(const struct kb_result *res, const char *patch_hash)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "status", kb_status_name(res->status),
			 "variant", cli_json_str(res->variant),
			 "detail", cli_json_str(res->detail),
			 "commit", cli_json_str(res->commit),
			 "ref", cli_json_str(res->ref),
			 "notes", cli_json_lines(res->notes ? res->notes : ""),
			 "reproduce", cli_json_lines(res->reproduce ? res->reproduce : ""),
			 "patch_hash", cli_json_str(patch_hash));
}

/* What the lane's tree is, as far as the fix goes. */
static json_t *lane_apply_json(enum kb_lane_kind kind, const struct kb_result *res)
{
	switch (kind) {
	case KB_LANE_PRE_FIX:
		return json_pack("{s:s, s:o}", "status", "reverse-applied",
				 "variant", cli_json_str(res->pre_fix_variant));
	case KB_LANE_BACKPORT:
		return json_pack("{s:s, s:o}", "status", "applied", "variant",
				 cli_json_str(res->variant));
	default:
		return json_pack("{s:s, s:o}", "status", kb_status_name(res->status),
				 "variant", res->status == KB_STATUS_ALREADY_APPLIED ?
				 cli_json_str(res->variant) : json_null());
	}
}

static json_t *suite_json(const struct kb_ktap_suite *s, const struct kb_cases *cases,
			  const char *fix_id)
{
	const struct kb_suite_decl *decl = kb_cases_suite(cases, s->name);
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < s->ncases; i++) {
		const struct kb_ktap_case *kc = &s->cases[i];
		const struct kb_case *c = decl ? kb_suite_case(decl, kc->name) : NULL;
		json_array_append_new(list, json_pack("{s:s, s:s, s:o, s:b, s:o}",
			"name", kc->name, "status", kb_ktap_status_name(kc->status),
			"proves", cli_json_str(c ? c->proves : NULL),
			"detects", c && kb_case_detects(c, fix_id),
			"diag", cli_json_str(kc->diag)));
	}
	return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o}", "status",
			 kb_ktap_status_name(s->status), "pass", (json_int_t)s->pass,
			 "fail", (json_int_t)s->fail, "skip", (json_int_t)s->skip,
			 "error", cli_json_str(s->error), "cases", list);
}

static json_t *suites_json(const struct kb_lane_test *lt, const struct kb_cases *cases,
			   const char *fix_id)
{
	json_t *obj = json_object();
	size_t i;

	for (i = 0; lt->booted && i < lt->run.ktap.nsuites; i++)
		json_object_set_new(obj, lt->run.ktap.suites[i].name,
				    suite_json(&lt->run.ktap.suites[i], cases, fix_id));
	return obj;
}

/* ---- one lane: build, test, keep the files ---- */

struct lane_ctx {
	const struct kb_branch *branch;
	const struct kb_result *res;	/* NULL for a distribution kernel */
	git_repository *repo;
	const struct kb_lane *lane;	/* NULL for a distribution kernel */
	enum kb_lane_kind kind;
	const char *ref, *commit;
	struct kb_buf dir;
};

/* Build the lane; a failed or skipped build leaves `lt` with the verdict. */
static int build_lane(struct runner *r, struct lane_ctx *l, struct kb_build_result *built,
		      struct kb_lane_test *lt)
{
	int err;

	r->build.payload = r;
	if ((err = kb_build_lane(built, l->repo, l->branch, l->lane, &r->build)) < 0)
		return err;
	step(r, "%s: build: %s%s%s (%.1f s)", r->now, kb_build_status_name(built->status),
	     built->shared_with ? ", from " : "", built->shared_with ? built->shared_with : "",
	     built->seconds);
	if ((err = keep_file(l->dir.ptr, "build.log", built->log)) < 0)
		return err;
	if (built->status == KB_BUILD_SKIPPED) {
		memset(lt, 0, sizeof(*lt));
		lt->verdict.verdict = KB_VERDICT_SKIPPED;
		return (lt->verdict.reason = kb_strdup(built->reason ? built->reason : "not built"))
			? 0 : KB_ENOMEM;
	}
	if (built->status == KB_BUILD_FAIL)
		return kb_lane_test_error(lt, built->reason ? built->reason : "the build failed");
	return 0;
}

static int test_lane(struct runner *r, struct lane_ctx *l, struct kb_test_target *target,
		     bool with_kunit, struct kb_lane_test *lt)
{
	struct kb_buf outdir = KB_BUF_INIT;
	size_t i;
	int err;

	if ((err = kb_buf_printf(&outdir, "%s/test/%s/%s/%s", r->build.workdir, r->fix->id,
				 l->branch->name, kb_lane_kind_name(l->kind))) < 0)
		return err;
	target->outdir = outdir.ptr;
	err = kb_tester_lane(lt, &r->tester, target, with_kunit, r->fix->id);
	if (!err)
		step(r, "%s: test: %s (%.1f s%s)", r->now, kb_verdict_name(lt->verdict.verdict),
		     lt->run.boot.seconds, lt->run.reused ? ", the same boot as before" : "");
	if (!err && lt->booted)
		err = keep_file(l->dir.ptr, "console.log", lt->run.log);
	for (i = 0; !err && lt->booted && i < lt->run.ktap.nsuites; i++) {
		struct kb_buf name = KB_BUF_INIT, from = KB_BUF_INIT;
		if ((err = kb_buf_printf(&name, "%s.ktap", lt->run.ktap.suites[i].name)) == 0 &&
		    (err = kb_buf_printf(&from, "%s/%s", outdir.ptr, name.ptr)) == 0)
			err = keep_file(l->dir.ptr, name.ptr, from.ptr);
		kb_buf_release(&name);
		kb_buf_release(&from);
	}
	kb_buf_release(&outdir);
	return err;
}

static json_t *lane_json(const struct runner *r, const struct lane_ctx *l,
			 const struct kb_build_result *built, const struct kb_lane_test *lt)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", l->branch->name, kb_lane_kind_name(l->kind));
	return json_pack("{s:s, s:o, s:o, s:o, s:s, s:f, s:o, s:s, s:o, s:f, s:b, s:o, s:s}",
			 "kind", kb_lane_kind_name(l->kind),
			 "ref", cli_json_str(l->ref),
			 "commit", cli_json_str(l->commit),
			 "apply", l->res ? lane_apply_json(l->kind, l->res) : json_null(),
			 "build", kb_build_status_name(built->status),
			 "build_seconds", built->seconds,
			 "suites", suites_json(lt, r->tester.cases, r->fix->id),
			 "verdict", kb_verdict_name(lt->verdict.verdict),
			 "reason", cli_json_lines(lt->verdict.reason ? lt->verdict.reason : ""),
			 "test_seconds", lt->booted ? lt->run.boot.seconds : 0.0,
			 "test_reused", lt->booted && lt->run.reused,
			 "console", lt->booted ? json_string("console.log") : json_null(),
			 "dir", dir);
}

/* Build and test one lane of a git branch; append its JSON to `lanes`. */
static int run_lane(struct runner *r, struct lane_ctx *l, json_t *lanes,
		    enum kb_verdict *verdict)
{
	struct kb_build_result built;
	struct kb_lane_test lt;
	struct kb_test_target target;
	char now[256];
	int err;

	json_t *apply;

	memset(&built, 0, sizeof(built));
	memset(&lt, 0, sizeof(lt));
	snprintf(now, sizeof(now), "%s %s", l->branch->name, kb_lane_kind_name(l->kind));
	r->now = now;
	apply = json_pack("{s:o, s:o}", "lane", lane_apply_json(l->kind, l->res),
			  "branch", apply_json(l->res, NULL));
	if ((err = lane_dir(&l->dir, r, l->branch->name, kb_lane_kind_name(l->kind))) < 0 ||
	    (err = apply ? write_json(l->dir.ptr, "apply.json", apply) : KB_ENOMEM) < 0)
		goto done;
	if (l->kind != KB_LANE_AS_IS &&
	    (err = write_patch(l->dir.ptr, l->kind == KB_LANE_BACKPORT ? "backport.patch" :
			       "pre-fix.patch", l->repo, &l->lane->commit)) < 0)
		goto done;
	if ((err = build_lane(r, l, &built, &lt)) < 0)
		goto done;
	if (built.status == KB_BUILD_PASS || built.status == KB_BUILD_CACHED) {
		memset(&target, 0, sizeof(target));
		target.image = built.image;
		target.modules_root = built.staging_dir;
		if ((err = test_lane(r, l, &target, r->build.overlay != NULL, &lt)) < 0)
			goto done;
	}
	*verdict = lt.verdict.verdict;
	json_array_append_new(lanes, lane_json(r, l, &built, &lt));
done:
	json_decref(apply);
	kb_build_result_release(&built);
	kb_lane_test_release(&lt);
	return err;
}

/* ---- one branch ---- */

static enum kb_verdict apply_verdict(enum kb_status status, enum kb_verdict tested)
{
	switch (status) {
	case KB_STATUS_CONFLICT:
	case KB_STATUS_PARTIAL: return KB_VERDICT_CONFLICT;
	case KB_STATUS_ERROR: return KB_VERDICT_ERROR;
	case KB_STATUS_NOT_AFFECTED:
		return tested == KB_VERDICT_ERROR || tested == KB_VERDICT_REGRESSION ?
		       tested : KB_VERDICT_NOT_AFFECTED;
	default: return tested;
	}
}

static int patch_hash(char *out, size_t size, const struct kb_fix *fix, const char *variant)
{
	const struct kb_variant *v = variant ? kb_fix_variant(fix, variant) : NULL;

	out[0] = '\0';
	return v ? kb_file_sha256(out, size, v->patch_path) : 0;
}

struct branch_out {
	json_t *lanes;
	struct kb_lane_outcome outcome[4];
	size_t n;
	char *note;
};

static int run_git_lanes(struct runner *r, const struct kb_branch *b, const struct kb_result *res,
			 struct branch_out *bo)
{
	git_repository *repo = NULL;
	git_commit *tip = NULL;
	struct kb_lane *lanes = NULL;
	size_t nlanes = 0, i;
	char commit[GIT_OID_HEXSZ + 1];
	int err = 0;

	if (kb_branch_open(&repo, &tip, b) < 0 ||
	    kb_branch_lanes(&lanes, &nlanes, repo, b, r->fix->id) < 0) {
		step(r, "%s: %s", b->name, kb_error_last());
		goto done;
	}
	for (i = 0; i < nlanes && i < 4 && !err; i++) {
		struct lane_ctx l = { b, res, repo, &lanes[i], lanes[i].kind, lanes[i].ref, commit,
				      KB_BUF_INIT };
		git_oid_tostr(commit, sizeof(commit), &lanes[i].commit);
		bo->outcome[bo->n].kind = lanes[i].kind;
		err = run_lane(r, &l, bo->lanes, &bo->outcome[bo->n].verdict);
		bo->n++;
		kb_buf_release(&l.dir);
	}
done:
	kb_lanes_free(lanes, nlanes);
	git_commit_free(tip);
	git_repository_free(repo);
	return err;
}

static int run_distro(struct runner *r, const struct kb_branch *b, struct branch_out *bo)
{
	struct kb_distro_kernel kernel;
	struct kb_buf downloads = KB_BUF_INIT, dir = KB_BUF_INIT;
	struct kb_build_result none;
	struct kb_lane_test lt;
	struct kb_test_target target;
	struct lane_ctx l = { b, NULL, NULL, NULL, KB_LANE_AS_IS, b->kernel, NULL, KB_BUF_INIT };
	char now[256];
	int err;

	memset(&kernel, 0, sizeof(kernel));
	memset(&none, 0, sizeof(none));
	memset(&lt, 0, sizeof(lt));
	none.status = KB_BUILD_SKIPPED;
	snprintf(now, sizeof(now), "%s as-is", b->name);
	r->now = now;
	if ((err = kb_buf_printf(&downloads, "%s/downloads", r->build.workdir)) < 0 ||
	    (err = lane_dir(&l.dir, r, b->name, "as-is")) < 0)
		goto done;
	if (kb_distro_kernel_fetch(&kernel, b->kernel, downloads.ptr) < 0) {
		err = kb_lane_test_error(&lt, kb_error_last());
	} else {
		step(r, "%s: kernel package %s %s", b->name, kernel.package, kernel.version);
		l.commit = kernel.version;
		memset(&target, 0, sizeof(target));
		target.image = kernel.image;
		target.modules_root = kernel.modules_root;
		target.modules = (const char *const *)r->tester.distro_modules;
		err = test_lane(r, &l, &target, false, &lt);
	}
	if (!err) {
		bo->outcome[0].kind = KB_LANE_AS_IS;
		bo->outcome[0].verdict = lt.verdict.verdict;
		bo->n = 1;
		json_array_append_new(bo->lanes, lane_json(r, &l, &none, &lt));
	}
done:
	kb_lane_test_release(&lt);
	kb_distro_kernel_release(&kernel);
	kb_buf_release(&downloads);
	kb_buf_release(&dir);
	kb_buf_release(&l.dir);
	return err;
}

static int run_branch(struct runner *r, const struct kb_branch *b, enum kb_verdict *verdict)
{
	struct branch_out bo = { json_array(), { { 0, 0 } }, 0, NULL };
	struct kb_result res;
	char hash[65] = "";
	enum kb_verdict tested = KB_VERDICT_SKIPPED;
	json_t *apply = json_null();
	int err = 0;

	memset(&res, 0, sizeof(res));
	if (b->kernel) {
		err = run_distro(r, b, &bo);
	} else {
		r->now = b->name;
		if ((err = kb_backport(&res, b, r->fix, &r->backport)) < 0)
			goto done;
		step(r, "%s: apply: %s%s%s", b->name, kb_status_name(res.status),
		     res.variant ? ", variant " : "", res.variant ? res.variant : "");
		if ((err = patch_hash(hash, sizeof(hash), r->fix, res.variant)) < 0)
			goto done;
		json_decref(apply);
		apply = apply_json(&res, hash[0] ? hash : NULL);
		if (res.status != KB_STATUS_ERROR)
			err = run_git_lanes(r, b, &res, &bo);
	}
	if (err < 0)
		goto done;
	if (bo.n && (err = kb_branch_verdict(&tested, &bo.note, bo.outcome, bo.n, r->fix->id)) < 0)
		goto done;
	*verdict = b->kernel ? tested : apply_verdict(res.status, tested);
	if (!b->kernel && res.status == KB_STATUS_ERROR)
		*verdict = KB_VERDICT_ERROR;
	step(r, "%s: %s%s%s", b->name, kb_verdict_name(*verdict), bo.note ? ": " : "",
	     bo.note ? bo.note : "");
	json_array_append_new(r->branches, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:O, s:O}",
		"name", b->name, "verdict", kb_verdict_name(*verdict),
		"note", cli_json_str(bo.note),
		"repo", cli_json_str(b->repo), "ref", cli_json_str(b->kernel ? b->kernel : b->ref),
		"kernel", cli_json_str(b->kernel), "apply", apply, "lanes", bo.lanes));
done:
	json_decref(apply);
	json_decref(bo.lanes);
	free(bo.note);
	kb_result_release(&res);
	return err;
}

/* ---- the run directory ---- */

static void iso_time(char *out, size_t size, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * A new <reports>/<id>: the UTC time and 4 random hex digits, so that runs
 * of the same second on different machines (CI jobs whose reports are
 * merged into one directory) never share an id.
 */
static int make_rundir(struct runner *r, const char *reports)
{
	struct kb_buf dir = KB_BUF_INIT;
	time_t now = time(NULL);
	unsigned short rnd = 0;
	struct tm tm;
	char stamp[32];
	unsigned n;
	FILE *fp;
	int err;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if ((fp = fopen("/dev/urandom", "rb"))) {
		if (fread(&rnd, sizeof(rnd), 1, fp) != 1)
			rnd = (unsigned short)getpid();
		fclose(fp);
	}
	if ((err = kb_mkdir_p(reports)) < 0)
		return err;
	for (n = 0; n < 16; n++) {
		dir.size = 0;
		snprintf(r->id, sizeof(r->id), "%s-%04x", stamp, (unsigned)(rnd + n) & 0xffff);
		if ((err = kb_buf_printf(&dir, "%s/%s", reports, r->id)) < 0)
			break;
		if (mkdir(dir.ptr, 0755) == 0) {
			r->rundir = kb_buf_detach(&dir);
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

/* <reports>/latest -> <id>, replaced atomically. */
static int point_latest(const struct runner *r, const char *reports)
{
	struct kb_buf tmp = KB_BUF_INIT, latest = KB_BUF_INIT;
	int err = 0;

	if (kb_buf_printf(&tmp, "%s/.latest.%ld", reports, (long)getpid()) < 0 ||
	    kb_buf_printf(&latest, "%s/latest", reports) < 0)
		err = KB_ENOMEM;
	else if (unlink(tmp.ptr), symlink(r->id, tmp.ptr) < 0 || rename(tmp.ptr, latest.ptr) < 0)
		err = kb_error_set(KB_ERROR, "cannot point '%s' at '%s': %s", latest.ptr, r->id,
				   strerror(errno));
	kb_buf_release(&tmp);
	kb_buf_release(&latest);
	return err;
}

static int write_results(struct runner *r, time_t started)
{
	char start[32], end[32], host[256] = "";
	const struct kb_patch *p = r->fix->patch;
	struct kb_buf author = KB_BUF_INIT;
	json_t *doc;
	int err;

	iso_time(start, sizeof(start), started);
	iso_time(end, sizeof(end), time(NULL));
	gethostname(host, sizeof(host) - 1);
	if (p && p->author_name &&
	    kb_buf_printf(&author, "%s <%s>", p->author_name, p->author_email ? p->author_email : "") < 0)
		return KB_ENOMEM;
	doc = json_pack("{s:i, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:O}",
			"schema", 1, "run", r->id, "fix", r->fix->id,
			"upstream", r->fix->upstream, "subject", r->fix->subject,
			"author", cli_json_str(author.ptr), "started", start, "finished", end,
			"host", host, "branches", r->branches);
	err = doc ? write_json(r->rundir, "results.json", doc) : KB_ENOMEM;
	json_decref(doc);
	kb_buf_release(&author);
	return err;
}

static int write_report(const char *rundir)
{
	struct kb_report *report = NULL;
	struct kb_report_opts opts;
	int err;

	memset(&opts, 0, sizeof(opts));
	if ((err = kb_report_load(&report, rundir)) == 0)
		err = kb_report_write(report, &opts, NULL);
	kb_report_free(report);
	return err;
}

/* ---- the run ---- */

static int pick_fix(const struct kb_fix **out, struct kb_fix **fixes, size_t n)
{
	if (n == 1) {
		*out = fixes[0];
		return 0;
	}
	return kb_error_set(KB_EINVALID, "%zu fixes found: a run is about one fix, name it with --fix DIR",
			    n);
}

static int run_all(struct runner *r, const struct kb_branch **branches, size_t n, int *rc)
{
	enum kb_verdict v;
	size_t i;
	int err = 0;

	*rc = EXIT_OK;
	for (i = 0; i < n && !err; i++) {
		v = KB_VERDICT_ERROR;
		err = run_branch(r, branches[i], &v);
		if (v != KB_VERDICT_VERIFIED && v != KB_VERDICT_FIXED && v != KB_VERDICT_SKIPPED &&
		    v != KB_VERDICT_NOT_AFFECTED)
			*rc = EXIT_ATTENTION;
	}
	return err;
}

struct run_paths {
	struct cli_build_paths build;
	struct kb_buf reports, cases, guest;
};

static int setup(struct runner *r, struct run_cli *o, struct run_paths *p,
		 const struct kb_config *config)
{
	struct kb_test_opts topts;
	const char *overlay = NULL, *fragment = NULL;
	int err;

	if ((err = cli_build_paths(&p->build, config, &o->t.workdir, &fragment, &overlay, false)) < 0 ||
	    (err = cli_data_path(&p->cases, config, "tests/cases.yaml")) < 0 ||
	    (err = cli_data_path(&p->guest, config, "tests/qemu/guest.c")) < 0)
		return err;
	if (!o->reports && (err = kb_buf_printf(&p->reports, "%s/reports", config->dir)) == 0)
		o->reports = p->reports.ptr;
	kb_backport_opts_init(&r->backport);
	kb_build_opts_init(&r->build);
	r->build.workdir = o->t.workdir;
	r->build.fragment = fragment;
	r->build.overlay = overlay;
	r->build.jobs = o->jobs;
	r->build.progress = build_progress;
	kb_test_opts_init(&topts);
	topts.workdir = o->t.workdir;
	topts.guest_source = p->guest.ptr;
	topts.timeout = o->timeout;
	topts.reuse = true;
	/* a bad --reports is found before the work directory is touched */
	if (err || (err = make_rundir(r, o->reports)) < 0)
		return err;
	if ((err = kb_lock_dir(&r->lock_fd, o->t.workdir)) < 0 ||
	    (err = kb_tester_init(&r->tester, &topts, p->cases.ptr, o->accel_auto)) < 0)
		rmdir(r->rundir);
	return err;
}

static int run(struct run_cli *o)
{
	const struct kb_branch **branches = NULL;
	struct kb_config *config = NULL;
	struct kb_fix **fixes = NULL;
	struct run_paths p = { { KB_BUF_INIT, KB_BUF_INIT, KB_BUF_INIT }, KB_BUF_INIT,
			       KB_BUF_INIT, KB_BUF_INIT };
	struct runner r;
	size_t nbranches = 0, nfixes = 0;
	time_t started = time(NULL);
	int rc = EXIT_USAGE, err;

	memset(&r, 0, sizeof(r));
	r.lock_fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &r.start);
	r.tty = isatty(STDERR_FILENO);
	if (kb_config_load(&config, o->t.config) < 0 ||
	    cli_select_all(&branches, &nbranches, config, &o->t.branches) < 0 ||
	    cli_load_fixes(&fixes, &nfixes, o->t.fixes, o->t.nfixes, config) < 0 ||
	    pick_fix(&r.fix, fixes, nfixes) < 0 || setup(&r, o, &p, config) < 0) {
		cli_error_last();
		goto done;
	}
	r.config = config;
	r.branches = json_array();
	step(&r, "run %s: %s on %zu branch%s, report in %s", r.id, r.fix->id, nbranches,
	     nbranches == 1 ? "" : "es", r.rundir);
	if ((err = run_all(&r, branches, nbranches, &rc)) < 0 ||
	    (err = write_results(&r, started)) < 0 || (err = write_report(r.rundir)) < 0 ||
	    (err = point_latest(&r, o->reports)) < 0) {
		cli_error_last();
		rc = EXIT_ATTENTION;
		goto done;
	}
	if (r.tester.accel_note)
		printf("note: %s\n", r.tester.accel_note);
	printf("report: %s/summary.html\n", r.rundir);
done:
	json_decref(r.branches);
	kb_tester_release(&r.tester);
	if (r.lock_fd >= 0)
		close(r.lock_fd);
	free(r.rundir);
	kb_fix_free_all(fixes, nfixes);
	free(branches);
	kb_config_free(config);
	cli_build_paths_release(&p.build);
	kb_buf_release(&p.reports);
	kb_buf_release(&p.cases);
	kb_buf_release(&p.guest);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli o = { .t.config = "branches.yaml" };
	int rc;

	if ((rc = parse_options(&o, argc, argv)) == 0)
		rc = run(&o);
	else if (rc < 0)
		rc = EXIT_OK;
	cli_target_release(&o.t);
	return rc;
}
