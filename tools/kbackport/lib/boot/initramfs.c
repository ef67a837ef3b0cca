#include "boot/initramfs.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/fsutil.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- the kernel release ---- */

static bool is_dir(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The only directory in `dir` (a kernel release under lib/modules). */
static int only_subdir(char **out, const char *dir)
{
	struct kb_dir ents = KB_DIR_INIT;
	size_t i;
	int n = 0, err;

	*out = NULL;
	if ((err = kb_dir_read(&ents, dir, KB_DIR_NO_HIDDEN)) < 0) {
		kb_dir_release(&ents);
		/* any directory that cannot be read: no release found */
		return err == KB_ENOMEM ? err : KB_ENOTFOUND;
	}
	for (i = 0; i < ents.n; i++)
		if (is_dir(dir, ents.names[i]) && n++ == 0)
			*out = kb_strdup(ents.names[i]);
	kb_dir_release(&ents);
	if (n == 1 && *out)
		return 0;
	free(*out);
	*out = NULL;
	return n ? kb_error_set(KB_EINVALID, "'%s' holds %d kernel releases: name one", dir, n) :
		   kb_error_set(KB_ENOTFOUND, "'%s' holds no kernel release", dir);
}

int kb_modules_release(char **out, const char *modules_root)
{
	struct kb_buf dir = KB_BUF_INIT;
	int err;

	*out = NULL;
	if ((err = kb_buf_printf(&dir, "%s/lib/modules", modules_root)) == 0)
		err = only_subdir(out, dir.ptr);
	kb_buf_release(&dir);
	return err;
}

/* ---- the cpio archive ---- */

struct cpio {
	struct archive *a;
	char **dirs;		/* directories written so far */
	size_t ndirs, adirs;
	unsigned ino;
};

static int cpio_header(struct cpio *c, const char *path, mode_t mode, size_t size,
		       const char *symlink, dev_t rdev)
{
	struct archive_entry *ae = archive_entry_new();
	int err = 0;

	KB_ERROR_CHECK_ALLOC(ae);
	archive_entry_set_pathname(ae, path);
	archive_entry_set_mode(ae, mode);
	archive_entry_set_size(ae, (la_int64_t)size);
	archive_entry_set_nlink(ae, S_ISDIR(mode) ? 2 : 1);
	archive_entry_set_ino(ae, ++c->ino);
	if (symlink)
		archive_entry_set_symlink(ae, symlink);
	if (rdev)
		archive_entry_set_rdev(ae, rdev);
	if (archive_write_header(c->a, ae) != ARCHIVE_OK)
		err = kb_error_set(KB_ERROR, "cannot add '%s' to the initramfs: %s", path,
				   archive_error_string(c->a));
	archive_entry_free(ae);
	return err;
}

static bool cpio_has_dir(const struct cpio *c, const char *path, size_t len)
{
	for (size_t i = 0; i < c->ndirs; i++)
		if (strlen(c->dirs[i]) == len && !strncmp(c->dirs[i], path, len))
			return true;
	return false;
}

/* The directory `path` (its first `len` bytes), once, after its parents. */
static int cpio_dir(struct cpio *c, const char *path, size_t len, mode_t perm)
{
	const char *slash;
	char *name;
	int err;

	if (cpio_has_dir(c, path, len))
		return 0;
	for (slash = path; (slash = memchr(slash, '/', len - (size_t)(slash - path))); slash++)
		if ((err = cpio_dir(c, path, (size_t)(slash - path), 0755)) < 0)
			return err;
	if ((err = KB_ARRAY_GROW(c->dirs, c->adirs, c->ndirs + 1)) < 0)
		return err;
	name = kb_strndup(path, len);
	KB_ERROR_CHECK_ALLOC(name);
	c->dirs[c->ndirs++] = name;
	return cpio_header(c, name, S_IFDIR | perm, 0, NULL, 0);
}

/* The directories that hold `path`. */
static int cpio_parents(struct cpio *c, const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? cpio_dir(c, path, (size_t)(slash - path), 0755) : 0;
}

static int cpio_file(struct cpio *c, const char *path, mode_t perm, const char *data,
		     size_t size)
{
	int err;

	if ((err = cpio_parents(c, path)) < 0 ||
	    (err = cpio_header(c, path, S_IFREG | perm, size, NULL, 0)) < 0)
		return err;
	if (size && archive_write_data(c->a, data, size) != (la_ssize_t)size)
		return kb_error_set(KB_ERROR, "cannot write '%s' to the initramfs: %s", path,
				    archive_error_string(c->a));
	return 0;
}

static int cpio_symlink(struct cpio *c, const char *path, const char *target)
{
	int err = cpio_parents(c, path);

	return err < 0 ? err : cpio_header(c, path, S_IFLNK | 0777, 0, target, 0);
}

static int cpio_open(struct cpio *c, const char *path)
{
	c->a = archive_write_new();
	KB_ERROR_CHECK_ALLOC(c->a);
	/*
	 * Not compressed: compressing costs more time than it saves, both on
	 * the host (gzip of Debian's modules took 2.4 s) and in the guest,
	 * which would decompress under TCG.
	 */
	if (archive_write_set_format_cpio_newc(c->a) != ARCHIVE_OK ||
	    archive_write_add_filter_none(c->a) != ARCHIVE_OK ||
	    archive_write_open_filename(c->a, path) != ARCHIVE_OK)
		return kb_error_set(KB_ERROR, "cannot write '%s': %s", path,
				    archive_error_string(c->a));
	return 0;
}

/* Close and free; returns an error when the archive could not be completed. */
static int cpio_close(struct cpio *c, const char *path)
{
	int err = 0;

	if (c->a && archive_write_close(c->a) != ARCHIVE_OK)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path,
				   archive_error_string(c->a));
	if (c->a)
		archive_write_free(c->a);
	for (size_t i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
	free(c->dirs);
	memset(c, 0, sizeof(*c));
	return err;
}

/* ---- programs ---- */

/* An ELF with a program interpreter needs a dynamic loader the initramfs lacks. */
static bool elf_is_dynamic(const char *data, size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
	const Elf32_Ehdr *eh32 = (const Elf32_Ehdr *)data;
	size_t off, entsize, n;

	if (size < sizeof(*eh) || memcmp(data, ELFMAG, SELFMAG))
		return false;
	if (data[EI_CLASS] == ELFCLASS64)
		off = eh->e_phoff, entsize = eh->e_phentsize, n = eh->e_phnum;
	else
		off = eh32->e_phoff, entsize = eh32->e_phentsize, n = eh32->e_phnum;
	for (size_t i = 0; i < n && entsize >= sizeof(Elf32_Word); i++) {
		Elf32_Word type;
		if (off > size || (i + 1) * entsize > size - off)
			break;
		memcpy(&type, data + off + i * entsize, sizeof(type));	/* p_type comes first */
		if (type == PT_INTERP)
			return true;
	}
	return false;
}

static int add_program(struct cpio *c, const char *path, const char *file, const char *hint)
{
	char *data = NULL;
	size_t size = 0;
	int err;

	if (kb_read_file(&data, &size, file) < 0)
		return kb_error_set(KB_ENOTFOUND, "cannot read '%s'%s", file, hint);
	if (elf_is_dynamic(data, size))
		err = kb_error_set(KB_EINVALID, "'%s' is dynamically linked: the initramfs has no "
				   "dynamic loader%s", file, hint);
	else
		err = cpio_file(c, path, 0755, data, size);
	free(data);
	return err;
}

static int add_base(struct cpio *c, const struct kb_initramfs_spec *spec)
{
	static const char *const applets[] = { "bin/sh", "sbin/modprobe", "sbin/insmod",
					       "sbin/rmmod", "sbin/lsmod" };
	static const char *const dirs[] = { "bin", "sbin", "dev", "proc", "sys" };
	const char *busybox = spec->busybox ? spec->busybox : "/bin/busybox";
	int err = 0;
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !err; i++)
		err = cpio_dir(c, dirs[i], strlen(dirs[i]), 0755);
	if (err < 0 || (err = cpio_dir(c, "tmp", 3, 01777)) < 0 ||
	    (err = cpio_header(c, "dev/console", S_IFCHR | 0600, 0, NULL, makedev(5, 1))) < 0 ||
	    (err = add_program(c, "init", spec->init, "")) < 0 ||
	    (err = add_program(c, "bin/busybox", busybox,
			       spec->busybox ? "" : " (Debian's busybox-static)")) < 0)
		return err;
	for (i = 0; i < sizeof(applets) / sizeof(applets[0]) && !err; i++)
		err = cpio_symlink(c, applets[i], "/bin/busybox");
	if (!err && spec->cases &&
	    (err = cpio_dir(c, "kbackport", strlen("kbackport"), 0755)) == 0)
		err = cpio_file(c, "kbackport/cases", 0644, spec->cases, strlen(spec->cases));
	return err;
}

/* ---- the kernel's module index ---- */

struct kmod {
	char name[64];		/* normalized: '-' -> '_' */
	char *path;		/* relative to the release directory (in `dep`) */
	char **deps;		/* paths of what it needs loaded first */
	size_t ndeps;
	bool want;
};

struct pair {
	char *key, *value;
};

struct modindex {
	const char *dir;	/* <root>/lib/modules/<release> */
	const char *release;
	char *dep, *alias, *softdep, *builtin;	/* the files' text, cut up */
	struct kmod *mods;
	size_t nmods;
	struct pair *aliases;	/* pattern -> module */
	size_t naliases;
	struct pair *softdeps;	/* module -> module it wants pre: or post: */
	size_t nsoftdeps;
	char **builtins;	/* paths in modules.builtin */
	size_t nbuiltins;
};

/* "kernel/net/ipv4/ip_gre.ko.xz" or "ip-gre" -> "ip_gre" */
static void modname(char out[64], const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < 63 && base[i] && base[i] != '.'; i++)
		out[i] = base[i] == '-' ? '_' : base[i];
	out[i] = '\0';
}

/* Read <dir>/<name>; a missing file is empty unless `required`. */
static int read_index(char **out, const struct modindex *ix, const char *name, bool required)
{
	struct kb_buf path = KB_BUF_INIT;
	int err;

	if ((err = kb_buf_printf(&path, "%s/%s", ix->dir, name)) < 0)
		return err;
	if (kb_read_file(out, NULL, path.ptr) < 0) {
		*out = NULL;
		err = required ? kb_error_set(KB_ENOTFOUND, "cannot read '%s': run depmod first",
					      path.ptr) :
				 ((*out = kb_strdup("")) ? 0 : kb_error_oom());
	}
	kb_buf_release(&path);
	return err;
}

/* "kernel/a.ko: kernel/b.ko kernel/c.ko" */
static int parse_dep_line(struct modindex *ix, char *line, size_t *alloc)
{
	size_t adeps = 0;
	struct kmod *m;
	char *colon = strchr(line, ':'), *tok, *save;
	int err;

	if (!colon)
		return 0;
	*colon = '\0';
	if ((err = KB_ARRAY_GROW(ix->mods, *alloc, ix->nmods + 1)) < 0)
		return err;
	m = &ix->mods[ix->nmods++];
	memset(m, 0, sizeof(*m));
	m->path = line;
	modname(m->name, line);
	for (tok = strtok_r(colon + 1, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if ((err = KB_ARRAY_GROW(m->deps, adeps, m->ndeps + 1)) < 0)
			return err;
		m->deps[m->ndeps++] = tok;
	}
	return 0;
}

/* "alias PATTERN MODULE" and "softdep MODULE pre: A B post: C" */
static int parse_pairs(struct pair **pairs, size_t *n, char *text, const char *keyword)
{
	char *line, *save, *tok, *tsave, *key;
	size_t alloc = 0;
	int err;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!(tok = strtok_r(line, " \t", &tsave)) || strcmp(tok, keyword) ||
		    !(key = strtok_r(NULL, " \t", &tsave)))
			continue;
		while ((tok = strtok_r(NULL, " \t", &tsave))) {
			if (!strcmp(tok, "pre:") || !strcmp(tok, "post:"))
				continue;
			if ((err = KB_ARRAY_GROW(*pairs, alloc, *n + 1)) < 0)
				return err;
			(*pairs)[*n].key = key;
			(*pairs)[(*n)++].value = tok;
			if (!strcmp(keyword, "alias"))
				break;
		}
	}
	return 0;
}

static int modindex_load(struct modindex *ix)
{
	char *line, *save;
	size_t alloc = 0, abuiltin = 0;
	int err;

	if ((err = read_index(&ix->dep, ix, "modules.dep", true)) < 0 ||
	    (err = read_index(&ix->alias, ix, "modules.alias", false)) < 0 ||
	    (err = read_index(&ix->softdep, ix, "modules.softdep", false)) < 0 ||
	    (err = read_index(&ix->builtin, ix, "modules.builtin", false)) < 0)
		return err;
	for (line = strtok_r(ix->dep, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save))
		err = parse_dep_line(ix, line, &alloc);
	for (line = strtok_r(ix->builtin, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save))
		if (!(err = KB_ARRAY_GROW(ix->builtins, abuiltin, ix->nbuiltins + 1)))
			ix->builtins[ix->nbuiltins++] = line;
	if (!err)
		err = parse_pairs(&ix->aliases, &ix->naliases, ix->alias, "alias");
	if (!err)
		err = parse_pairs(&ix->softdeps, &ix->nsoftdeps, ix->softdep, "softdep");
	return err;
}

static void modindex_release(struct modindex *ix)
{
	for (size_t i = 0; i < ix->nmods; i++)
		free(ix->mods[i].deps);
	free(ix->mods);
	free(ix->aliases);
	free(ix->softdeps);
	free(ix->builtins);
	free(ix->dep);
	free(ix->alias);
	free(ix->softdep);
	free(ix->builtin);
}

static struct kmod *find_by(struct modindex *ix, const char *key, bool by_path)
{
	for (size_t i = 0; i < ix->nmods; i++)
		if (!strcmp(by_path ? ix->mods[i].path : ix->mods[i].name, key))
			return &ix->mods[i];
	return NULL;
}

static bool is_builtin(const struct modindex *ix, const char *name)
{
	char other[64];

	for (size_t i = 0; i < ix->nbuiltins; i++) {
		modname(other, ix->builtins[i]);
		if (!strcmp(other, name))
			return true;
	}
	return false;
}

static int want_name(struct modindex *ix, const char *name, bool required);

/* `m`, what modules.dep says it needs and what its softdeps ask for. */
static int want_module(struct modindex *ix, struct kmod *m)
{
	struct kmod *dep;
	int err = 0;

	if (m->want)
		return 0;
	m->want = true;
	for (size_t i = 0; i < m->ndeps && !err; i++) {
		if (!(dep = find_by(ix, m->deps[i], true)))
			return kb_error_set(KB_EINVALID, "'%s/modules.dep': '%s' needs '%s', which "
					    "has no line of its own", ix->dir, m->path, m->deps[i]);
		err = want_module(ix, dep);
	}
	/* a softdep is a wish: one that names nothing here is not an error */
	for (size_t i = 0; i < ix->nsoftdeps && !err; i++) {
		char key[64];
		modname(key, ix->softdeps[i].key);
		if (!strcmp(key, m->name))
			err = want_name(ix, ix->softdeps[i].value, false);
	}
	return err;
}

/* A module name or an alias (every module it matches, as modprobe may pick any). */
static int want_name(struct modindex *ix, const char *name, bool required)
{
	char norm[64], target[64];
	bool found = false;
	struct kmod *m;
	int err = 0;

	modname(norm, name);
	if ((m = find_by(ix, norm, false)))
		return want_module(ix, m);
	for (size_t i = 0; i < ix->naliases && !err; i++) {
		if (fnmatch(ix->aliases[i].key, name, 0) != 0)
			continue;
		modname(target, ix->aliases[i].value);
		if ((m = find_by(ix, target, false))) {
			found = true;
			err = want_module(ix, m);
		}
	}
	if (err || found || !required || is_builtin(ix, norm))
		return err;
	return kb_error_set(KB_ENOTFOUND, "module '%s' is not in modules.dep, modules.alias or "
			    "modules.builtin of '%s'", name, ix->release);
}

static int select_modules(struct modindex *ix, const char *const *names)
{
	int err = 0;

	if (!names) {
		for (size_t i = 0; i < ix->nmods; i++)
			ix->mods[i].want = true;
		return 0;
	}
	for (; *names && !err; names++)
		err = want_name(ix, *names, true);
	return err;
}

/* ---- modules into the archive ---- */

static const char *const compressions[] = { "xz", "zst", "gz" };

/* At ".ko.xz" and the like (ended by a separator): the length of ".xz"; else 0. */
static size_t compressed_at(const char *ko)
{
	for (size_t i = 0; i < sizeof(compressions) / sizeof(compressions[0]); i++) {
		size_t n = strlen(compressions[i]);
		if (!strncmp(ko, ".ko.", 4) && !strncmp(ko + 4, compressions[i], n) &&
		    strchr(": \t\n", ko[4 + n]))	/* strchr finds the NUL too */
			return n + 1;
	}
	return 0;
}

static size_t compressed_suffix(const char *path)
{
	const char *ko = strstr(path, ".ko.");

	return ko ? compressed_at(ko) : 0;
}

/* Any compression libarchive knows, read as one raw stream. */
static int decompress(struct kb_buf *out, const char *file)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	char chunk[65536];
	la_ssize_t n = 0;
	int err = 0;

	KB_ERROR_CHECK_ALLOC(a);
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_filename(a, file, 1 << 16) != ARCHIVE_OK ||
	    archive_read_next_header(a, &ae) != ARCHIVE_OK)
		n = -1;
	while (n >= 0 && !err && (n = archive_read_data(a, chunk, sizeof(chunk))) > 0)
		err = kb_buf_put(out, chunk, (size_t)n);
	if (!err && n < 0)
		err = kb_error_set(KB_EINVALID, "cannot decompress '%s': %s", file,
				   archive_error_string(a));
	archive_read_free(a);
	return err;
}

static int add_module(struct cpio *c, const struct modindex *ix, const struct kmod *m)
{
	struct kb_buf file = KB_BUF_INIT, name = KB_BUF_INIT, data = KB_BUF_INIT;
	size_t strip = compressed_suffix(m->path), size = 0;
	char *plain = NULL;
	int err;

	if ((err = kb_buf_printf(&file, "%s/%s", ix->dir, m->path)) < 0 ||
	    (err = kb_buf_printf(&name, "lib/modules/%s/%.*s", ix->release,
				 (int)(strlen(m->path) - strip), m->path)) < 0)
		goto done;
	if (strip)
		err = decompress(&data, file.ptr);
	else if (kb_read_file(&plain, &size, file.ptr) < 0)
		err = kb_error_set(KB_ENOTFOUND, "cannot read '%s'", file.ptr);
	if (!err)
		err = strip ? cpio_file(c, name.ptr, 0644, data.ptr, data.size) :
			      cpio_file(c, name.ptr, 0644, plain, size);
done:
	free(plain);
	kb_buf_release(&file);
	kb_buf_release(&name);
	kb_buf_release(&data);
	return err;
}

/* Paths to compressed modules in a text index, as the archive has them: ".ko". */
static int rewrite_paths(struct kb_buf *out, const char *text)
{
	const char *p = text, *ko;

	while ((ko = strstr(p, ".ko."))) {
		kb_buf_put(out, p, (size_t)(ko - p) + 3);
		p = ko + 3 + compressed_at(ko);
	}
	kb_buf_puts(out, p);
	return kb_buf_check(out);
}

static int index_filter(const struct dirent *de)
{
	return !strncmp(de->d_name, "modules.", 8) &&
	       (de->d_type == DT_REG || de->d_type == DT_UNKNOWN);
}

/*
 * Every modules.* file of the release, as depmod wrote it, except that the
 * text ones follow renamed modules and modules.dep.bin, which would still
 * name them compressed, stays out.
 */
static int add_indexes(struct cpio *c, const struct modindex *ix, bool renamed)
{
	struct kb_buf path = KB_BUF_INIT, name = KB_BUF_INIT, text = KB_BUF_INIT;
	struct dirent **list = NULL;
	char *data = NULL;
	size_t size;
	int n, i, err = 0;

	if ((n = scandir(ix->dir, &list, index_filter, alphasort)) < 0)
		return kb_error_set(KB_ERROR, "cannot read '%s': %s", ix->dir, strerror(errno));
	for (i = 0; i < n && !err; i++) {
		const char *file = list[i]->d_name;
		bool binary = strlen(file) > 4 && !strcmp(file + strlen(file) - 4, ".bin");

		if (renamed && !strcmp(file, "modules.dep.bin"))
			continue;
		kb_buf_clear(&path);
		kb_buf_clear(&name);
		kb_buf_clear(&text);
		if ((err = kb_buf_printf(&path, "%s/%s", ix->dir, file)) < 0 ||
		    (err = kb_buf_printf(&name, "lib/modules/%s/%s", ix->release, file)) < 0)
			break;
		if (kb_read_file(&data, &size, path.ptr) < 0) {
			err = kb_error_set(KB_ENOTFOUND, "cannot read '%s'", path.ptr);
			break;
		}
		if (renamed && !binary && !(err = rewrite_paths(&text, data)))
			err = cpio_file(c, name.ptr, 0644, text.ptr, text.size);
		else if (!err)
			err = cpio_file(c, name.ptr, 0644, data, size);
		free(data);
		data = NULL;
	}
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	kb_buf_release(&path);
	kb_buf_release(&name);
	kb_buf_release(&text);
	return err;
}

/* The release's index loaded into `ix` and the modules of `spec` selected. */
static int load_selection(struct modindex *ix, struct kb_buf *dir, char **release,
			  const struct kb_initramfs_spec *spec)
{
	int err;

	*release = NULL;
	if (!spec->release && (err = kb_modules_release(release, spec->modules_root)) < 0)
		return err;
	ix->release = spec->release ? spec->release : *release;
	if ((err = kb_buf_printf(dir, "%s/lib/modules/%s", spec->modules_root, ix->release)) < 0)
		return err;
	ix->dir = dir->ptr;
	if ((err = modindex_load(ix)) < 0)
		return err;
	return select_modules(ix, spec->modules);
}

static int add_modules(struct cpio *c, const struct kb_initramfs_spec *spec)
{
	struct modindex ix = { 0 };
	struct kb_buf dir = KB_BUF_INIT;
	char *release = NULL;
	bool renamed = false;
	int err;

	if ((err = load_selection(&ix, &dir, &release, spec)) < 0)
		goto done;
	for (size_t i = 0; i < ix.nmods && !err; i++) {
		if (!ix.mods[i].want)
			continue;
		renamed |= compressed_suffix(ix.mods[i].path) != 0;
		err = add_module(c, &ix, &ix.mods[i]);
	}
	if (!err)
		err = add_indexes(c, &ix, renamed);
done:
	modindex_release(&ix);
	free(release);
	kb_buf_release(&dir);
	return err;
}

int kb_initramfs_write(const char *out_path, const struct kb_initramfs_spec *spec)
{
	struct kb_buf tmp = KB_BUF_INIT;
	struct cpio c = { 0 };
	int err, closed;

	if (!spec->init)
		return kb_error_set(KB_EINVALID, "an initramfs needs an init program");
	if ((err = kb_tmp_path(&tmp, out_path)) < 0)
		return err;
	if ((err = cpio_open(&c, tmp.ptr)) == 0 && (err = add_base(&c, spec)) == 0 &&
	    spec->modules_root)
		err = add_modules(&c, spec);
	closed = cpio_close(&c, tmp.ptr);
	if (!err && (err = closed) == 0 && rename(tmp.ptr, out_path) < 0)
		err = kb_error_set(KB_ERROR, "cannot rename '%s': %s", tmp.ptr, strerror(errno));
	if (err < 0)
		unlink(tmp.ptr);
	kb_buf_release(&tmp);
	return err;
}

/* ---- the cache ---- */

/* "<what> <name> <sha256 of the file>\n" into `text`. */
static int key_file(struct kb_buf *text, const char *what, const char *name, const char *file)
{
	char hash[65];
	int err;

	if ((err = kb_file_sha256(hash, sizeof(hash), file)) < 0)
		return kb_error_prefix(err, "cannot hash the initramfs input '%s'", file);
	return kb_buf_printf(text, "%s %s %s\n", what, name, hash);
}

static int index_files(struct dirent ***list, const char *dir)
{
	int n = scandir(dir, list, index_filter, alphasort);

	return n < 0 ? kb_error_set(KB_ERROR, "cannot read '%s': %s", dir, strerror(errno)) : n;
}

/* The modules that go in (by their path) and every modules.* file. */
static int key_modules(struct kb_buf *text, const struct kb_initramfs_spec *spec)
{
	struct modindex ix = { 0 };
	struct kb_buf dir = KB_BUF_INIT, file = KB_BUF_INIT;
	struct dirent **list = NULL;
	char *release = NULL;
	int err, n = 0, i;

	if ((err = load_selection(&ix, &dir, &release, spec)) < 0 ||
	    (err = kb_buf_printf(text, "release %s\n", ix.release)) < 0)
		goto done;
	for (size_t m = 0; m < ix.nmods && !err; m++) {
		if (!ix.mods[m].want)
			continue;
		kb_buf_clear(&file);
		if ((err = kb_buf_printf(&file, "%s/%s", ix.dir, ix.mods[m].path)) == 0)
			err = key_file(text, "module", ix.mods[m].path, file.ptr);
	}
	if (err < 0 || (err = n = index_files(&list, ix.dir)) < 0)
		goto done;
	for (i = err = 0; i < n && !err; i++) {
		kb_buf_clear(&file);
		if ((err = kb_buf_printf(&file, "%s/%s", ix.dir, list[i]->d_name)) == 0)
			err = key_file(text, "index", list[i]->d_name, file.ptr);
	}
done:
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	modindex_release(&ix);
	free(release);
	kb_buf_release(&dir);
	kb_buf_release(&file);
	return err;
}

int kb_initramfs_key(char key[65], const struct kb_initramfs_spec *spec)
{
	struct kb_buf text = KB_BUF_INIT;
	const char *const *m;
	char hash[65];
	int err;

	if (!spec->init)
		return kb_error_set(KB_EINVALID, "an initramfs needs an init program");
	/* key_file() and key_modules() read files: checked each */
	kb_buf_printf(&text, "kbackport initramfs %d\n", KB_INITRAMFS_FORMAT);
	if ((err = key_file(&text, "program", "init", spec->init)) < 0 ||
	    (err = key_file(&text, "program", "busybox",
			    spec->busybox ? spec->busybox : "/bin/busybox")) < 0 ||
	    (spec->cases && (err = kb_sha256_hex(hash, spec->cases, strlen(spec->cases))) < 0))
		goto done;
	if (spec->cases)
		kb_buf_printf(&text, "cases %s\n", hash);
	if (spec->modules_root && spec->modules)
		for (m = spec->modules; *m; m++)
			kb_buf_printf(&text, "want %s\n", *m);
	else if (spec->modules_root)
		kb_buf_puts(&text, "want every module\n");
	if ((spec->modules_root && (err = key_modules(&text, spec)) < 0) ||
	    (err = kb_buf_check(&text)) < 0)
		goto done;
	err = kb_sha256_hex(key, text.ptr, text.size);
done:
	kb_buf_release(&text);
	return err;
}

int kb_initramfs_cached(char **out, bool *reused, const char *cachedir,
			const struct kb_initramfs_spec *spec)
{
	struct kb_buf path = KB_BUF_INIT;
	char key[65];
	size_t removed;
	int err;

	*out = NULL;
	*reused = false;
	if ((err = kb_initramfs_key(key, spec)) < 0 ||
	    (err = kb_buf_printf(&path, "%s/%s.cpio", cachedir, key)) < 0)
		goto done;
	if (kb_path_exists(path.ptr)) {
		*reused = true;
		err = kb_cache_touch(path.ptr);
	} else if ((err = kb_mkdir_p(cachedir)) == 0 &&
		   (err = kb_initramfs_write(path.ptr, spec)) == 0 &&
		   kb_cache_prune(&removed, cachedir, KB_INITRAMFS_CACHE_KEEP) < 0) {
		kb_error_clear();	/* a cache a little too large is no failure */
	}
	if (!err)
		*out = kb_buf_detach(&path);
done:
	kb_buf_release(&path);
	return err;
}
