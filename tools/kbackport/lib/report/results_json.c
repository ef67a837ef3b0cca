/* results.json and its pieces, written (see results_json.h). */
#include "report/results_json.h"
#include "report/report_priv.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *pre_fix_json(const struct kb_result *r)
{
	if (!r->pre_fix_ref)
		return json_null();
	return json_pack("{s:s, s:o, s:s}", "ref", r->pre_fix_ref,
			 "commit", kb_json_str(r->pre_fix_commit),
			 "reversed_variant", r->pre_fix_variant);
}

/* A context line fuzz dropped that stands changed at `line` of the tree. */
static json_t *changed_json(const struct kb_placement *p)
{
	if (!p->changed_text)
		return json_null();
	return json_pack("{s:I, s:o}", "line", (json_int_t)p->changed_line,
			 "text", kb_json_text(p->changed_text, strlen(p->changed_text)));
}

/* The commits a failed hunk needs (prereq.h), newest first. */
static json_t *needs_json(const struct kb_prereqs *p)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < p->n; i++)
		json_array_append_new(list, json_pack("{s:s, s:o}", "commit", p->list[i].id,
						      "subject", kb_json_str(p->list[i].subject)));
	return list;
}

/* The hunk's state in the tree (witness.h), or null: not looked at. */
static json_t *tree_json(const struct kb_placement *p)
{
	const struct kb_hunk_witness *w = &p->tree;

	if (!p->has_tree)
		return json_null();
	return json_pack("{s:s, s:s, s:o, s:I, s:b, s:o, s:I, s:I, s:I, s:I, s:I}",
			 "state", kb_tree_state_name(w->state), "fate", kb_hunk_fate_name(w->fate),
			 "line", w->line ? json_integer((json_int_t)w->line) : json_null(),
			 "offset", (json_int_t)w->offset, "near", w->near,
			 "near_line", w->near ? json_integer((json_int_t)w->near_line) : json_null(),
			 "added", (json_int_t)w->added, "kept", (json_int_t)w->kept,
			 "changed", (json_int_t)w->changed, "removed", (json_int_t)w->removed,
			 "back", (json_int_t)w->back);
}

static json_t *hunks_json(const struct kb_result *r)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < r->nhunks; i++) {
		const struct kb_placement *p = &r->hunks[i];
		json_array_append_new(list, json_pack("{s:o, s:I, s:s, s:s, s:o, s:I, s:I, s:b, s:o, s:o, s:o, s:o}",
			"file", kb_json_text(p->path, strlen(p->path)),
			"hunk", (json_int_t)p->hunk, "variant", p->variant, "status", p->status,
			"line", p->line ? json_integer((json_int_t)p->line) : json_null(),
			"offset", (json_int_t)p->offset, "fuzz", (json_int_t)p->fuzz,
			"whitespace", p->whitespace, "anchor", kb_json_str(p->anchor),
			"changed_context", changed_json(p), "needs", needs_json(&p->needs),
			"tree", tree_json(p)));
		if (p->moved)
			json_object_set_new(json_array_get(list, json_array_size(list) - 1), "moved_to",
					    kb_json_text(p->moved, strlen(p->moved)));
	}
	return list;
}

static json_t *history_commit_json(const struct kb_history_commit *c)
{
	if (!c->id[0])
		return json_null();
	return json_pack("{s:s, s:o, s:o, s:o}", "commit", c->id,
			 "subject", kb_json_str(c->subject), "tag", kb_json_str(c->tag),
			 "evidence", kb_json_str(c->evidence));
}

/* What the branch's history says: null when it was not looked at. */
static json_t *history_json(const struct kb_history_answer *h)
{
	json_t *changed;
	size_t i;

	if (!h)
		return json_null();
	changed = json_array();
	for (i = 0; i < h->nchanged; i++)
		json_array_append_new(changed, history_commit_json(&h->changed[i]));
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "state", kb_history_state_name(h->state),
			 "commit", history_commit_json(&h->commit),
			 "variant", kb_json_str(h->variant),
			 "reverted_by", history_commit_json(&h->revert),
			 "changed_by", changed,
			 "undone_by", history_commit_json(&h->undone));
}

json_t *kb_result_json(const struct kb_result *r, const char *patch_hash)
{
	return json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "branch", kb_json_str(r->branch),
			 "status", kb_status_name(r->status),
			 "variant", kb_json_str(r->variant),
			 "base", kb_json_str(r->base),
			 "commit", kb_json_str(r->commit),
			 "ref", kb_json_str(r->ref),
			 "created", r->created,
			 "forced", r->forced,
			 "detail", kb_json_str(r->detail),
			 "notes", kb_json_lines(r->notes ? r->notes : ""),
			 "reproduce", kb_json_lines(r->reproduce ? r->reproduce : ""),
			 "pre_fix", pre_fix_json(r),
			 "hunks", hunks_json(r),
			 "history", history_json(r->history),
			 "patch_hash", kb_json_str(patch_hash));
}

/* A queue's pre-fix lane: null when the branch has none asked for. */
static json_t *queue_pre_fix_json(const struct kb_queue_pre_fix *p)
{
	json_t *reversed = json_array();
	size_t i;

	if (!p->ref && !p->note) {
		json_decref(reversed);
		return json_null();
	}
	for (i = 0; i < p->nreversed; i++)
		json_array_append_new(reversed, json_string(p->reversed[i]));
	return json_pack("{s:o, s:o, s:b, s:o, s:o}", "ref", kb_json_str(p->ref),
			 "commit", kb_json_str(p->commit[0] ? p->commit : NULL),
			 "created", p->created, "reversed", reversed, "note", kb_json_str(p->note));
}

json_t *kb_queue_result_json(const struct kb_queue_result *q, const struct kb_series *series,
			     const char *branch, char *const *mails)
{
	json_t *results = json_array(), *r;
	char hash[65];
	size_t f;

	for (f = 0; !q->error && f < q->nresults; f++) {
		if (kb_fix_patch_hash(hash, series->fixes[f], q->results[f].variant) < 0)
			hash[0] = '\0';
		r = kb_result_json(&q->results[f], hash);
		json_object_set_new(r, "fix", json_string(series->fixes[f]->id));
		json_object_set_new(r, "mail", kb_json_str(mails ? mails[f] : NULL));
		json_array_append_new(results, r);
	}
	return json_pack("{s:s, s:o, s:o, s:b, s:I, s:o, s:o, s:o}",
			 "branch", branch, "ref", kb_json_str(q->ref),
			 "commit", kb_json_str(q->commit), "created", q->created,
			 "applied", (json_int_t)kb_queue_applied(q),
			 "pre_fix", queue_pre_fix_json(&q->pre_fix),
			 "error", kb_json_str(q->error), "results", results);
}

json_t *kb_lane_apply_json(const struct kb_branch_run *b, const struct kb_lane_run *l)
{
	const struct kb_result *res = &b->apply;

	if (!b->applied)
		return json_null();
	switch (l->kind) {
	case KB_LANE_PRE_FIX:
		return json_pack("{s:s, s:o}", "status", kb_status_name(KB_STATUS_REVERSE_APPLIED),
				 "variant", kb_json_str(res->pre_fix_variant));
	case KB_LANE_BACKPORT:
		return json_pack("{s:s, s:o}", "status", "applied", "variant",
				 kb_json_str(res->variant));
	default:
		return json_pack("{s:s, s:o}", "status", kb_status_name(res->status),
				 "variant", res->status == KB_STATUS_ALREADY_APPLIED ?
				 kb_json_str(res->variant) : json_null());
	}
}

/* Does `c` detect the fix the lane was judged for: its fix, or one of the queue's? */
static bool detects(const struct kb_case *c, const struct kb_branch_run *b, const char *fix_id)
{
	if (!c)
		return false;
	return b->series ? kb_case_detects_any(c, b->judged, b->njudged) : kb_case_detects(c, fix_id);
}

static json_t *suite_json(const struct kb_ktap_suite *s, const struct kb_cases *cases,
			  const struct kb_branch_run *b, const char *fix_id)
{
	const struct kb_suite_decl *decl = kb_cases_suite(cases, s->name);
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < s->ncases; i++) {
		const struct kb_ktap_case *kc = &s->cases[i];
		const struct kb_case *c = decl ? kb_suite_case(decl, kc->name) : NULL;
		json_array_append_new(list, json_pack("{s:s, s:s, s:o, s:b, s:o}",
			"name", kc->name, "status", kb_ktap_status_name(kc->status),
			"proves", kb_json_str(c ? c->proves : NULL),
			"detects", detects(c, b, fix_id),
			"diag", kb_json_str(kc->diag)));
	}
	return json_pack("{s:s, s:I, s:I, s:I, s:o, s:o}", "status",
			 kb_ktap_status_name(s->status), "pass", (json_int_t)s->pass,
			 "fail", (json_int_t)s->fail, "skip", (json_int_t)s->skip,
			 "error", kb_json_str(s->error), "cases", list);
}

static json_t *suites_json(const struct kb_branch_run *b, const struct kb_lane_run *l,
			   const struct kb_cases *cases)
{
	const struct kb_lane_test *lt = &l->test;
	json_t *obj = json_object();
	size_t i;

	for (i = 0; lt->booted && i < lt->run.ktap.nsuites; i++)
		json_object_set_new(obj, lt->run.ktap.suites[i].name,
				    suite_json(&lt->run.ktap.suites[i], cases, b, l->fix));
	return obj;
}

static json_t *lane_json(const struct kb_branch_run *b, const struct kb_lane_run *l,
			 const struct kb_cases *cases)
{
	const struct kb_lane_test *lt = &l->test;
	enum kb_build_status build = l->built ? l->build.status : KB_BUILD_SKIPPED;
	char dir[512];
	json_t *o;

	snprintf(dir, sizeof(dir), "%s/%s", b->branch->name, kb_lane_kind_name(l->kind));
	o = json_pack("{s:s, s:o, s:o, s:o, s:s, s:f, s:o, s:s, s:o, s:f, s:b, s:o, s:s}",
			 "kind", kb_lane_kind_name(l->kind),
			 "ref", kb_json_str(l->ref),
			 "commit", kb_json_str(l->commit),
			 "apply", kb_lane_apply_json(b, l),
			 "build", kb_build_status_name(build),
			 "build_seconds", l->built ? l->build.seconds : 0.0,
			 "suites", suites_json(b, l, cases),
			 "verdict", kb_verdict_name(lt->verdict.verdict),
			 "reason", kb_json_lines(lt->verdict.reason ? lt->verdict.reason : ""),
			 "test_seconds", lt->booted ? lt->run.boot.seconds : 0.0,
			 "test_reused", lt->booted && lt->run.reused,
			 "console", lt->booted ? json_string("console.log") : json_null(),
			 "dir", dir);
	json_object_set_new(o, "boot_image", kb_json_str(kb_boot_image_name(l->boot_image)));
	json_object_set_new(o, "boot_note", kb_json_str(l->boot_note));
	json_object_set_new(o, "initramfs_reused", json_boolean(lt->booted && lt->run.initrd_reused));
	return o;
}

json_t *kb_branch_run_json(const struct kb_branch_run *b, const struct kb_cases *cases)
{
	const struct kb_branch *br = b->branch;
	json_t *lanes = json_array(), *o;
	size_t i;

	for (i = 0; i < b->nlanes; i++)
		json_array_append_new(lanes, lane_json(b, &b->lanes[i], cases));
	o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "name", br->name, "verdict", kb_verdict_name(b->verdict),
			 "note", kb_json_str(b->note ? b->note : b->error),
			 "repo", kb_json_str(br->repo),
			 "ref", kb_json_str(br->kernel ? br->kernel : br->ref),
			 "kernel", kb_json_str(br->kernel),
			 "apply", b->applied ? kb_result_json(&b->apply, b->patch_hash) : json_null(),
			 "lanes", lanes);
	/* only a queue's run has the key: a run of one fix reads as before */
	if (o && b->series)
		json_object_set_new(o, "queue", b->queued ?
				    kb_queue_result_json(&b->queue, b->series, br->name, NULL) :
				    json_null());
	return o;
}

int kb_results_save(const char *rundir, json_t *doc)
{
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	struct kb_buf data = KB_BUF_INIT;
	int err;

	if (!text || kb_buf_printf(&data, "%s\n", text) < 0)
		err = kb_error_oom();
	else
		err = report_write_file(rundir, "results.json", data.ptr, data.size);
	kb_buf_release(&data);
	free(text);
	return err;
}
