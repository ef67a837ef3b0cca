/* kbackport fix new: a fix directory made from a patch, an mbox or a commit. */
#include "util/array.h"
#include "util/buf.h"
#include "cli.h"
#include "util/error.h"
#include "fix.h"
#include "apply/fixnew.h"
#include "util/fsutil.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_MBOX = 256, OPT_COMMIT, OPT_ID, OPT_CVE, OPT_UPSTREAM };

static const struct cli_opt options[] = {
	{ 'o', true, "backports", required_argument, "DIR",
	  "where fixes go (default: ./backports)" },
	{ OPT_MBOX, false, "from-mbox", required_argument, "FILE",
	  "every mail of FILE (- for standard input)" },
	{ OPT_COMMIT, false, "from-commit", required_argument, "REPO REV|A..B...",
	  "commits of the repository REPO: each REV, each\n"
	  "commit of each range A..B" },
	{ OPT_ID, false, "id", required_argument, "ID",
	  "the fix's id (one patch only)" },
	{ OPT_CVE, false, "cve", required_argument, "CVE",
	  "the fix's CVE (one patch only)" },
	{ OPT_UPSTREAM, false, "upstream", required_argument, "SHA",
	  "the upstream commit (one patch only)" },
	{ 'n', true, "dry-run", no_argument, NULL,
	  "print what would be written, write nothing" },
	CLI_OPT_HELP_ENTRY,
	CLI_OPT_END,
};

static const struct cli_usage usage = {
	.head =
	"usage: kbackport fix new [--backports DIR] [--id ID] [--cve CVE] [--upstream SHA]\n"
	"                         [--dry-run] PATCH...\n"
	"       kbackport fix new [...] --from-mbox FILE\n"
	"       kbackport fix new [...] --from-commit REPO REV|A..B...\n"
	"\n"
	"Make a fix directory, DIR/<id>/ with fix.yaml and fix.patch, from each\n"
	"patch: a git format-patch file or a mail-style patch (From:, Subject:,\n"
	"Date: headers, as Debian's DEP-3 patches have), every mail of an mbox\n"
	"(one fix each), or commits of a repository (a range A..B: each of its\n"
	"commits, oldest first, merges left out, as git format-patch A..B). The\n"
	"fix has no variants: its own patch is its one variant until you add some\n"
	"(see kbackport-fix.yaml(5), docs/fix.yaml.md).\n"
	"\n"
	"The upstream commit is --upstream, else the one the message names (\"commit\n"
	"<sha> upstream.\", \"[ Upstream commit <sha> ]\", \"(cherry picked from\n"
	"commit <sha>)\"), else a DEP-3 Origin: header's commit id, else the patch's\n"
	"own commit (\"From <sha>\"); a patch naming none (a distribution's own\n"
	"change) makes a fix without one, applied as git am would. The id is --id, else the CVE\n"
	"(--cve, or the first CVE-YYYY-N in the subject or message), else the\n"
	"subject made a name; 'queue' is no fix id. Headers are taken as git\n"
	"mailinfo takes them: encoded words converted to UTF-8 from their charset,\n"
	"line breaks and other control characters folded into spaces. Every patch\n"
	"is checked first (loaded as apply would load its fix): an id that exists\n"
	"in DIR, two patches with one id, a header in an unknown charset are\n"
	"refused before anything is written.\n"
	"\n",
	.opts = options,
	.column = 27,
	.tail =
	"\n"
	"Exit status: 0 when every fix was written, 1 when writing failed, 2 for\n"
	"usage and bad input (nothing is written then).\n",
	.posix = true,
};

struct fix_new_opts {
	const char *backports, *mbox, *repo;
	struct kb_fix_draft_opts draft;
	bool dry_run;
	char **patches;
	size_t npatches;
};

static int parse_options(struct fix_new_opts *o, int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(argc, argv, &usage)) != -1) {
		switch (c) {
		case 'o': o->backports = optarg; break;
		case OPT_MBOX: o->mbox = optarg; break;
		case OPT_COMMIT:
			o->repo = optarg;
			if (optind >= argc || argv[optind][0] == '-') {
				cli_error("--from-commit needs a repository and a revision");
				return EXIT_USAGE;
			}
			optind++;	/* its REV... are the arguments left */
			break;
		case OPT_ID: o->draft.id = optarg; break;
		case OPT_CVE: o->draft.cve = optarg; break;
		case OPT_UPSTREAM: o->draft.upstream = optarg; break;
		case 'n': o->dry_run = true; break;
		case 'h': cli_usage_print(stdout, &usage); return -1;
		default: return cli_usage_bad_option(argv, &usage);
		}
	}
	o->patches = argv + optind;
	o->npatches = (size_t)(argc - optind);
	if (o->repo) {	/* the revisions: the one after REPO, then the rest */
		o->patches = argv + optind - 1;
		o->npatches++;
		if (o->mbox) {
			cli_error("give patch files, --from-mbox or --from-commit, not several");
			cli_usage_print(stderr, &usage);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (!!o->mbox + !!o->npatches != 1) {
		cli_error(o->npatches || o->mbox || o->repo ?
			  "give patch files, --from-mbox or --from-commit, not several" :
			  "no patch given");
		cli_usage_print(stderr, &usage);
		return EXIT_USAGE;
	}
	return 0;
}

struct drafts {
	struct kb_fix_draft **v;
	char **origins;
	size_t n, alloc, aorigins;
};

static void drafts_release(struct drafts *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		kb_fix_draft_free(d->v[i]);
		free(d->origins[i]);
	}
	free(d->v);
	free(d->origins);
}

static int drafts_add(struct drafts *d, struct kb_fix_draft *draft, const char *origin)
{
	int err;

	if ((err = KB_ARRAY_GROW(d->v, d->alloc, d->n + 1)) < 0 ||
	    (err = KB_ARRAY_GROW(d->origins, d->aorigins, d->n + 1)) < 0) {
		kb_fix_draft_free(draft);
		return err;
	}
	d->v[d->n] = draft;
	KB_ERROR_CHECK_ALLOC(d->origins[d->n++] = kb_strdup(origin));
	return 0;
}

/* Every mail of an mbox, "FILE (mail N)" in messages. */
static int from_mbox(struct drafts *d, const char *file, const struct kb_fix_draft_opts *opts)
{
	struct kb_buf origin = KB_BUF_INIT;
	size_t *starts = NULL, *lens = NULL, n = 0, i;
	char *buf = NULL;
	size_t len = 0;
	int err;

	if ((err = kb_read_file(&buf, &len, file)) < 0 ||
	    (err = kb_mbox_split(&starts, &lens, &n, buf, len)) < 0)
		goto done;
	if (!n)
		err = kb_error_set(KB_EINVALID, "%s: no mail in the mbox", file);
	for (i = 0; i < n && !err; i++) {
		struct kb_fix_draft *draft = NULL;
		kb_buf_clear(&origin);
		kb_buf_printf(&origin, n > 1 ? "%s (mail %zu)" : "%s", file, i + 1);
		if ((err = kb_fix_draft_new(&draft, buf + starts[i], lens[i], origin.ptr, opts)) == 0)
			err = drafts_add(d, draft, origin.ptr);
	}
done:
	free(starts);
	free(lens);
	free(buf);
	kb_buf_release(&origin);
	return err;
}

static int from_file(struct drafts *d, const char *file, const struct kb_fix_draft_opts *opts)
{
	struct kb_fix_draft *draft = NULL;
	char *buf = NULL;
	size_t len = 0;
	int err;

	if ((err = kb_read_file(&buf, &len, file)) == 0 &&
	    (err = kb_fix_draft_new(&draft, buf, len, file, opts)) == 0)
		err = drafts_add(d, draft, file);
	free(buf);
	return err;
}

static int collect(struct drafts *d, const struct fix_new_opts *o)
{
	size_t i;
	int err = 0;

	if (o->mbox)
		return from_mbox(d, o->mbox, &o->draft);
	if (o->repo) {
		struct kb_fix_draft **v = NULL;
		size_t n = 0;

		if ((err = kb_fix_drafts_from_commits(&v, &n, o->repo, (const char *const *)o->patches,
						      o->npatches, &o->draft)) < 0)
			return err;
		for (i = 0; i < n; i++)
			if (!err)
				err = drafts_add(d, v[i], v[i]->origin);
			else
				kb_fix_draft_free(v[i]);
		free(v);
		return err;
	}
	for (i = 0; i < o->npatches && !err; i++)
		err = from_file(d, o->patches[i], &o->draft);
	return err;
}

/* Nothing is written unless every fix can be: ids unique and free. */
static int check_ids(const struct drafts *d, const char *backports)
{
	struct kb_buf path = KB_BUF_INIT;
	size_t i, j;
	int err = 0;

	for (i = 0; i < d->n && !err; i++) {
		for (j = 0; j < i && !err; j++)
			if (!strcmp(d->v[i]->id, d->v[j]->id))
				err = kb_error_set(KB_EINVALID, "two patches with one id '%s': %s and %s",
						   d->v[i]->id, d->origins[j], d->origins[i]);
		kb_buf_clear(&path);
		kb_buf_printf(&path, "%s/%s", backports, d->v[i]->id);
		if (!err && kb_path_exists(path.ptr))
			err = kb_error_set(KB_EEXISTS, "%s: fix '%s' exists already: '%s'",
					   d->origins[i], d->v[i]->id, path.ptr);
	}
	kb_buf_release(&path);
	return err;
}

static void print_dry_run(const struct kb_fix_draft *draft, const char *backports)
{
	struct kb_buf dir = KB_BUF_INIT, quoted = KB_BUF_INIT;
	char *yaml = kb_fix_draft_yaml(draft);

	kb_buf_printf(&dir, "%s/%s", backports, draft->id);
	cli_quote(&quoted, dir.ptr ? dir.ptr : "", "");
	printf("would create %s/fix.patch (%zu bytes) and %s/fix.yaml:\n",
	       quoted.ptr ? quoted.ptr : "", draft->len, quoted.ptr ? quoted.ptr : "");
	cli_print_indented(yaml ? cli_quote(&quoted, yaml, "\n") : "", "  ");
	free(yaml);
	kb_buf_release(&dir);
	kb_buf_release(&quoted);
}

/* Write one fix and load it back as apply would: a fix that does not load is removed. */
static int write_one(const struct kb_fix_draft *draft, const char *backports)
{
	struct kb_fix *fix = NULL;
	char *dir = NULL;
	int err;

	if ((err = kb_fix_draft_write(&dir, draft, backports)) < 0)
		return err;
	if ((err = kb_fix_load(&fix, dir)) < 0) {
		kb_remove_tree(dir);
		kb_error_prefix(err, "the new fix does not load, removed");
	} else {
		struct kb_buf qdir = KB_BUF_INIT, qsubject = KB_BUF_INIT;
		/* the subject is the mail's: no control character reaches the terminal */
		printf("created %s/: %s\n", cli_quote(&qdir, dir, ""),
		       cli_quote(&qsubject, draft->subject, ""));
		kb_buf_release(&qdir);
		kb_buf_release(&qsubject);
	}
	kb_fix_free(fix);
	free(dir);
	return err;
}

static int fix_new(int argc, char **argv)
{
	struct fix_new_opts o = { .backports = "backports" };
	struct drafts d = { 0 };
	size_t i;
	int rc;

	if ((rc = parse_options(&o, argc, argv)) != 0)
		return rc < 0 ? EXIT_OK : rc;
	rc = EXIT_USAGE;
	if (collect(&d, &o) < 0) {
		cli_error_last();
		goto done;
	}
	if (d.n > 1 && (o.draft.id || o.draft.cve || o.draft.upstream)) {
		cli_error("--id, --cve and --upstream name one fix, but there are %zu patches", d.n);
		goto done;
	}
	if (check_ids(&d, o.backports) < 0) {
		cli_error_last();
		goto done;
	}
	/* every fix as apply would load it, before any is written */
	for (i = 0; i < d.n; i++)
		if (kb_fix_draft_check(d.v[i], d.origins[i], o.backports) < 0) {
			cli_error_last();
			goto done;
		}
	rc = EXIT_OK;
	for (i = 0; i < d.n; i++) {
		if (o.dry_run) {
			print_dry_run(d.v[i], o.backports);
		} else if (write_one(d.v[i], o.backports) < 0) {
			cli_error_last();
			rc = EXIT_ATTENTION;
		}
	}
done:
	drafts_release(&d);
	return rc;
}

int cmd_fix(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "new"))
		return fix_new(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_usage_print(stdout, &usage);
		return EXIT_OK;
	}
	cli_error(argc >= 2 ? "unknown fix command '%s'" : "no fix command given%s",
		  argc >= 2 ? argv[1] : "");
	cli_usage_print(stderr, &usage);
	return EXIT_USAGE;
}
