/*
 * Debian's linux-source-X.Y packages (import.h): the package installed or
 * downloaded and unpacked (util/deb.h), its tarball imported as one commit
 * on stable/X.Y.y by the shared importer (importer.h).
 */
#include "import/import.h"
#include "import/importer.h"
#include "util/buf.h"
#include "util/deb.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "util/process.h"

#include <stdlib.h>
#include <string.h>

/* ---- the package ---- */

int kb_debsrc_branch(char **out, const char *package)
{
	static const char prefix[] = "linux-source-";
	struct kb_buf name = KB_BUF_INIT;

	*out = NULL;
	if (strncmp(package, prefix, sizeof(prefix) - 1) || !package[sizeof(prefix) - 1] ||
	    strspn(package + sizeof(prefix) - 1, "0123456789.") !=
		    strlen(package + sizeof(prefix) - 1))
		return kb_error_set(KB_EINVALID, "'%s' is not a kernel source package (linux-source-X.Y)",
				    package);
	if (kb_buf_printf(&name, "stable/%s.y", package + sizeof(prefix) - 1) < 0)
		return kb_error_oom();
	*out = kb_buf_detach(&name);
	return 0;
}

static int installed_version(char **out, const char *package)
{
	const char *argv[] = { "dpkg-query", "-W", "-f=${db:Status-Status} ${Version}",
			       package, NULL };
	char *line = NULL;
	int rc;

	*out = NULL;
	if ((rc = kb_process_capture(&line, argv)) < 0)
		return rc;
	if (rc == 0 && !strncmp(line, "installed ", 10) && !(*out = kb_strdup(line + 10)))
		rc = kb_error_oom();
	free(line);
	return rc < 0 ? rc : 0;
}

static int apt(const char *const argv[], const char *cwd, const char *log,
	       const char *what, const struct kb_ticker *ticker, const char *step)
{
	char *tail;
	int rc = kb_process_run_ticked(argv, cwd, log, ticker, step);

	if (rc == 0 || rc < 0)
		return rc;
	tail = kb_file_tail(log, 5);
	rc = kb_error_set(KB_ERROR, "%s failed (exit %d); the end of '%s':\n%s", what, rc,
			  log, tail ? tail : "");
	free(tail);
	return rc;
}

static int install(const char *package, const char *log, const struct kb_ticker *ticker)
{
	const char *argv[] = { "apt-get", "-o", "DPkg::Lock::Timeout=300", "install",
			       "-y", "-q", "--no-install-recommends", package, NULL };

	setenv("DEBIAN_FRONTEND", "noninteractive", 1);
	return apt(argv, NULL, log, "apt-get install", ticker, "install");
}

/* apt-get download PACKAGE=VERSION, then unpack the .deb in `dir` (deb.h). */
static int download(char **tarball, const char *package, const char *version,
		    const char *dir, const char *log, const struct kb_ticker *ticker)
{
	struct kb_buf unpacked = KB_BUF_INIT, tar = KB_BUF_INIT;
	const char *series = package + strlen("linux-source-");
	char *deb = NULL;
	int err;

	if ((err = kb_buf_printf(&unpacked, "%s/%s_%s", dir, package, version)) < 0 ||
	    (err = kb_buf_printf(&tar, "%s/usr/src/linux-source-%s.tar.xz", unpacked.ptr, series)) < 0)
		goto done;
	if (!kb_path_exists(tar.ptr) &&
	    ((err = kb_deb_download(&deb, package, version, "all", dir, log, ticker)) < 0 ||
	     (err = kb_deb_unpack(deb, unpacked.ptr, log, ticker)) < 0))
		goto done;
	if (!kb_path_exists(tar.ptr))
		err = kb_error_set(KB_ENOTFOUND, "the package '%s' holds no '%s'", deb ? deb : package,
				   tar.ptr + unpacked.size + 1);
	else
		*tarball = kb_buf_detach(&tar);
done:
	free(deb);
	kb_buf_release(&unpacked);
	kb_buf_release(&tar);
	return err;
}

int kb_debsrc_fetch(struct kb_debsrc *out, const char *package,
		    const char *version, const char *downloads,
		    const struct kb_ticker *ticker)
{
	struct kb_buf log = KB_BUF_INIT, tar = KB_BUF_INIT;
	char *installed = NULL, *branch = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = kb_debsrc_branch(&branch, package)) < 0)
		return err;
	free(branch);
	if ((err = kb_mkdir_p(downloads)) < 0)
		return err;
	if (kb_buf_printf(&log, "%s/apt.log", downloads) < 0) {
		err = kb_error_oom();
		goto done;
	}
	if ((err = installed_version(&installed, package)) < 0)
		goto done;
	if (!installed && !version) {
		if ((err = install(package, log.ptr, ticker)) < 0 ||
		    (err = installed_version(&installed, package)) < 0)
			goto done;
		if (!installed) {
			err = kb_error_set(KB_ERROR, "'%s' is still not installed after apt-get install", package);
			goto done;
		}
	}
	if (!(out->package = kb_strdup(package)) ||
	    !(out->series = kb_strdup(package + strlen("linux-source-")))) {
		err = kb_error_oom();
		goto done;
	}
	if (installed && (!version || !strcmp(version, installed))) {
		out->version = installed;
		installed = NULL;
		if (kb_buf_printf(&tar, "/usr/src/%s.tar.xz", package) < 0)
			err = kb_error_oom();
		else
			out->tarball = kb_buf_detach(&tar);
	} else if (!(out->version = kb_strdup(version)))
		err = kb_error_oom();
	else
		err = download(&out->tarball, package, version, downloads, log.ptr, ticker);
done:
	free(installed);
	kb_buf_release(&log);
	kb_buf_release(&tar);
	if (err < 0)
		kb_debsrc_release(out);
	return err;
}

void kb_debsrc_release(struct kb_debsrc *src)
{
	free(src->package);
	free(src->version);
	free(src->series);
	free(src->tarball);
	memset(src, 0, sizeof(*src));
}

/* ---- the import ---- */

/* The first-parent history of `tip` already has a commit titled `title`. */
static int find_title(git_oid *found, git_repository *repo, const git_oid *tip,
		      const char *title)
{
	git_commit *c = NULL, *parent;
	const char *summary;
	int hit = 0;

	if (git_commit_lookup(&c, repo, tip) < 0)
		return 0;
	while (c && !hit) {
		summary = git_commit_summary(c);
		if (summary && !strcmp(summary, title)) {
			git_oid_cpy(found, git_commit_id(c));
			hit = 1;
		}
		parent = NULL;
		if (git_commit_parentcount(c) > 0)
			git_commit_parent(&parent, c, 0);
		git_commit_free(c);
		c = parent;
	}
	git_commit_free(c);
	return hit;
}

int kb_import_tarball(struct kb_import_result *out, git_repository *repo,
		      const char *branch, const char *tarball, const char *title,
		      const char *body, const struct kb_import_opts *opts)
{
	struct importer im = IMPORTER_INIT(repo, opts, tarball, false);
	struct kb_buf refname = KB_BUF_INIT, message = KB_BUF_INIT;
	git_commit *parent = NULL;
	git_oid tree;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = importer_refname(&refname, branch)) < 0 ||
	    (err = importer_tip(&parent, repo, refname.ptr)) < 0)
		goto done;
	if (parent && find_title(&out->commit, repo, git_commit_id(parent), title))
		goto done;	/* nothing read or written */
	if (kb_buf_printf(&message, "%s\n\n%s", title, body ? body : "") < 0) {
		err = kb_error_oom();
		goto done;
	}
	if ((err = importer_read_tarball(&im, tarball)) < 0 ||
	    (err = importer_check_paths(&im)) < 0 ||
	    (err = importer_write_tree(&tree, repo, im.entries, 0, im.n, 0)) < 0 ||
	    (err = importer_commit(&out->commit, repo, refname.ptr, &tree, parent,
				   message.ptr)) < 0)
		goto done;
	out->created = true;
	out->files = im.n;
done:
	importer_release(&im);
	kb_buf_release(&refname);
	kb_buf_release(&message);
	git_commit_free(parent);
	return err;
}
