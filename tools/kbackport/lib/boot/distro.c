#include "boot/distro.h"
#include "util/buf.h"
#include "util/deb.h"
#include "util/error.h"
#include "util/fsutil.h"
#include "boot/initramfs.h"
#include "util/process.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct apt_package {
	char *version;
	char *arch;
	char *first_dep;	/* the first package of Depends:, without version */
};

static void apt_package_release(struct apt_package *p)
{
	free(p->version);
	free(p->arch);
	free(p->first_dep);
	memset(p, 0, sizeof(*p));
}

/* The value of "Name: value" in apt-cache's output (malloc'ed), or NULL. */
static char *field(const char *text, const char *name)
{
	size_t len = strlen(name);
	const char *p = text;

	while (p) {
		if (!strncmp(p, name, len) && p[len] == ':') {
			p += len + 1;
			p += strspn(p, " ");
			return kb_strndup(p, strcspn(p, "\n"));
		}
		if ((p = strchr(p, '\n')))
			p++;
	}
	return NULL;
}

/* `apt-cache show` of the archive's candidate version, read into `p`. */
static int apt_show(struct apt_package *p, const char *package, const char *downloads)
{
	const char *argv[] = { "apt-cache", "show", "--no-all-versions", package, NULL };
	struct kb_buf out = KB_BUF_INIT;
	char *text = NULL, *deps = NULL;
	int err;

	memset(p, 0, sizeof(*p));
	if ((err = kb_buf_printf(&out, "%s/%s.apt-show", downloads, package)) < 0)
		return err;
	unlink(out.ptr);
	if ((err = kb_process_run_logged(argv, NULL, out.ptr)) < 0 ||
	    (err = kb_read_file(&text, NULL, out.ptr)) < 0)
		goto done;
	p->version = field(text, "Version");
	p->arch = field(text, "Architecture");
	if ((deps = field(text, "Depends")))
		p->first_dep = kb_strndup(deps, strcspn(deps, " ,|("));
	if (!p->version || !p->arch)
		err = kb_error_set(KB_ENOTFOUND, "apt-cache knows no package '%s' (see '%s'; "
				   "apt-get update?)", package, out.ptr);
done:
	if (err < 0)
		apt_package_release(p);
	free(text);
	free(deps);
	kb_buf_release(&out);
	return err;
}

/* Follow metapackages (linux-image-amd64 -> linux-image-6.1.0-57-amd64). */
static int resolve_image(char **name, struct apt_package *p, const char *package,
			 const char *downloads)
{
	int err, hops;

	*name = NULL;
	*name = kb_strdup(package);
	KB_ERROR_CHECK_ALLOC(*name);
	for (hops = 0; hops < 4; hops++) {
		if ((err = apt_show(p, *name, downloads)) < 0)
			return err;
		if (!p->first_dep || strncmp(p->first_dep, "linux-image-", 12))
			return 0;
		free(*name);
		*name = p->first_dep;
		p->first_dep = NULL;
		apt_package_release(p);
	}
	return kb_error_set(KB_EINVALID, "'%s' leads to too many linux-image metapackages",
			    package);
}

/* Where lib/modules is: the top, or usr/ for a package that ships /usr/lib/modules. */
static int find_modules_root(char **out, const char *root)
{
	struct kb_buf path = KB_BUF_INIT;
	int err;

	*out = NULL;
	if ((err = kb_buf_printf(&path, "%s/lib/modules", root)) < 0)
		return err;
	if (!kb_path_exists(path.ptr)) {
		kb_buf_clear(&path);
		if ((err = kb_buf_printf(&path, "%s/usr/lib/modules", root)) < 0)
			return err;
		if (!kb_path_exists(path.ptr)) {
			kb_buf_release(&path);
			return kb_error_set(KB_ENOTFOUND, "'%s' holds no lib/modules", root);
		}
		path.size -= strlen("/lib/modules");
	} else {
		path.size = strlen(root);
	}
	path.ptr[path.size] = '\0';
	*out = kb_buf_detach(&path);
	return 0;
}

/* dpkg-deb -x and depmod into a temporary directory, then rename: <root> is always complete. */
static int unpack(const char *root, const char *deb, const char *log,
		  const struct kb_ticker *ticker)
{
	struct kb_buf tmp = KB_BUF_INIT;
	char *mods = NULL, *release = NULL;
	int err;

	if ((err = kb_tmp_path(&tmp, root)) < 0 ||
	    (err = kb_remove_tree(tmp.ptr)) < 0 ||
	    (err = kb_deb_unpack(deb, tmp.ptr, log, ticker)) < 0 ||
	    (err = find_modules_root(&mods, tmp.ptr)) < 0 ||
	    (err = kb_modules_release(&release, mods)) < 0)
		goto done;
	{
		const char *argv[] = { "depmod", "-b", mods, release, NULL };
		if ((err = kb_process_run_logged(argv, NULL, log)) < 0)
			goto done;
	}
	/* another kbackport may have unpacked the same package meanwhile */
	if (rename(tmp.ptr, root) < 0 && !kb_path_exists(root))
		err = kb_error_set(KB_ERROR, "cannot rename '%s': %s", tmp.ptr, strerror(errno));
done:
	if (tmp.ptr && kb_path_exists(tmp.ptr))
		kb_remove_tree(tmp.ptr);
	free(mods);
	free(release);
	kb_buf_release(&tmp);
	return err;
}

static int describe(struct kb_distro_kernel *out, const char *root)
{
	struct kb_buf path = KB_BUF_INIT;
	int err;

	if ((err = find_modules_root(&out->modules_root, root)) < 0 ||
	    (err = kb_modules_release(&out->release, out->modules_root)) < 0 ||
	    (err = kb_buf_printf(&path, "%s/boot/vmlinuz-%s", root, out->release)) < 0)
		goto done;
	if (!kb_path_exists(path.ptr)) {
		err = kb_error_set(KB_ENOTFOUND, "'%s' has no kernel image '%s'", root, path.ptr);
		goto done;
	}
	out->image = kb_buf_detach(&path);
done:
	kb_buf_release(&path);
	return err;
}

int kb_distro_kernel_fetch(struct kb_distro_kernel *out, const char *package,
			   const char *downloads, const struct kb_ticker *ticker)
{
	struct kb_buf log = KB_BUF_INIT, root = KB_BUF_INIT;
	struct apt_package p = { 0 };
	char *deb = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = kb_mkdir_p(downloads)) < 0 ||
	    (err = kb_buf_printf(&log, "%s/apt.log", downloads)) < 0 ||
	    (err = resolve_image(&out->package, &p, package, downloads)) < 0)
		goto done;
	if (!(out->version = kb_strdup(p.version)) ||
	    (err = kb_buf_printf(&root, "%s/%s_%s", downloads, out->package, p.version)) < 0) {
		err = kb_error_oom();
		goto done;
	}
	if (!kb_path_exists(root.ptr) &&
	    ((err = kb_deb_download(&deb, out->package, p.version, p.arch, downloads,
					     log.ptr, ticker)) < 0 ||
	     (err = unpack(root.ptr, deb, log.ptr, ticker)) < 0))
		goto done;
	err = describe(out, root.ptr);
done:
	if (err < 0)
		err = kb_error_prefix(err, "kernel package '%s'", package);
	apt_package_release(&p);
	free(deb);
	kb_buf_release(&log);
	kb_buf_release(&root);
	if (err < 0)
		kb_distro_kernel_release(out);
	return err;
}

void kb_distro_kernel_release(struct kb_distro_kernel *kernel)
{
	free(kernel->package);
	free(kernel->version);
	free(kernel->release);
	free(kernel->image);
	free(kernel->modules_root);
	memset(kernel, 0, sizeof(*kernel));
}
