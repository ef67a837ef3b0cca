#include "util/fsutil.h"
#include "util/array.h"
#include "util/buf.h"
#include "util/dir.h"
#include "util/error.h"
#include "util/process.h"

#include <errno.h>
#include <signal.h>
#include <sys/file.h>
#include <fcntl.h>
#include <git2.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Drop "." and "//", and ".." with the component before it, in place. */
static void normalise(char *abs)
{
	char *in = abs, *out = abs;
	size_t len;

	while (*in) {
		while (*in == '/')
			in++;
		len = strcspn(in, "/");
		if (!len || (len == 1 && in[0] == '.')) {
			in += len;
			continue;
		}
		if (len == 2 && in[0] == '.' && in[1] == '.') {
			while (out > abs && *--out != '/')
				;
			in += len;
			continue;
		}
		*out++ = '/';
		memmove(out, in, len);
		out += len;
		in += len;
	}
	if (out == abs)
		*out++ = '/';
	*out = '\0';
}

int kb_path_absolute(char **out, const char *path)
{
	struct kb_buf abs = KB_BUF_INIT;
	char *cwd = NULL;
	int err = 0;

	if ((*out = realpath(path, NULL)))
		return 0;
	if (path[0] != '/' && !(cwd = getcwd(NULL, 0)))
		return kb_error_set(KB_ERROR, "cannot get the current directory: %s",
				    strerror(errno));
	if ((err = kb_buf_printf(&abs, "%s/%s", cwd ? cwd : "", path)) == 0) {
		normalise(abs.ptr);
		*out = kb_buf_detach(&abs);
	}
	free(cwd);
	return err;
}

bool kb_path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int kb_mkdir_p(const char *path)
{
	char *copy = kb_strdup(path), *p;
	int err = 0;

	KB_ERROR_CHECK_ALLOC(copy);
	/* from the first byte after a leading '/': mkdir("") would fail */
	for (p = copy + (*copy == '/'); !err; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			err = kb_error_set(KB_ERROR, "cannot create '%s': %s", copy, strerror(errno));
		if (!(*p = c))
			break;
	}
	free(copy);
	return err;
}

int kb_remove_tree(const char *path)
{
	const char *argv[] = { "rm", "-rf", "--", path, NULL };

	return kb_process_run(argv, NULL, NULL) == 0 ? 0 :
	       kb_error_set(KB_ERROR, "cannot remove '%s'", path);
}

/* The pid of "<base>.tmp.<pid>" in `name`, or 0 when `name` is not one. */
static pid_t tmp_pid(const char *name, const char *base, size_t baselen)
{
	const char *p;
	char *end;
	long pid;

	if (strncmp(name, base, baselen) || strncmp(name + baselen, ".tmp.", 5))
		return 0;
	p = name + baselen + 5;
	if (*p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	return (*end || errno || pid > INT32_MAX) ? 0 : (pid_t)pid;
}

int kb_tmp_path(struct kb_buf *tmp, const char *path)
{
	struct kb_buf dir = KB_BUF_INIT, stale = KB_BUF_INIT;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t baselen = strlen(base), i;
	struct kb_dir ents = KB_DIR_INIT;
	pid_t pid;
	int err;

	kb_buf_clear(tmp);
	/* nothing there yet (or unreadable): nothing to sweep */
	kb_buf_printf(tmp, "%s.tmp.%ld", path, (long)getpid());
	kb_buf_put(&dir, path, slash ? (size_t)(slash - path) + 1 : 0);
	kb_buf_puts(&dir, ".");
	if ((err = kb_buf_check(tmp)) < 0 || (err = kb_buf_check(&dir)) < 0 ||
	    (err = kb_dir_read(&ents, dir.ptr, KB_DIR_UNREADABLE_OK)) < 0)
		goto done;
	for (i = 0; i < ents.n; i++) {
		if (!(pid = tmp_pid(ents.names[i], base, baselen)) || pid == getpid() ||
		    kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		kb_buf_clear(&stale);
		if ((err = kb_buf_printf(&stale, "%s/%s", dir.ptr, ents.names[i])) < 0 ||
		    (err = kb_remove_tree(stale.ptr)) < 0)
			goto done;
	}
done:
	kb_dir_release(&ents);
	kb_buf_release(&dir);
	kb_buf_release(&stale);
	return err;
}

static int write_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len) {
		if ((n = write(fd, data, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int kb_write_file_atomic(const char *path, const char *data, size_t len)
{
	struct kb_buf tmp = KB_BUF_INIT;
	int fd = -1, err;

	if ((err = kb_tmp_path(&tmp, path)) < 0)
		return err;
	if ((fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0 ||
	    write_all(fd, data, len) < 0 || fsync(fd) < 0)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0 && close(fd) < 0 && !err)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path, strerror(errno));
	if (!err && rename(tmp.ptr, path) < 0)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path, strerror(errno));
	if (err < 0)
		unlink(tmp.ptr);
	kb_buf_release(&tmp);
	return err;
}

int kb_write_atomic(const char *path, const char *text)
{
	return kb_write_file_atomic(path, text, strlen(text));
}

int kb_digest(char **out, const char *data, size_t len, const char *what)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_oid id;

	*out = NULL;
	if (git_odb_hash(&id, data ? data : "", len, GIT_OBJECT_BLOB) < 0)
		return kb_error_git(KB_ERROR, "cannot hash %s", what);
	git_oid_tostr(hex, sizeof(hex), &id);
	return (*out = kb_strdup(hex)) ? 0 : kb_error_oom();
}

int kb_copy_file(const char *to, const char *from)
{
	char chunk[65536];
	FILE *in = NULL, *out = NULL;
	size_t n;
	int err = 0;

	if (!(in = fopen(from, "rb"))) {
		err = kb_error_set(KB_ENOTFOUND, "cannot read '%s': %s", from, strerror(errno));
		goto done;
	}
	if (!(out = fopen(to, "wb"))) {
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", to, strerror(errno));
		goto done;
	}
	while (!err && (n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		if (fwrite(chunk, 1, n, out) != n)
			err = kb_error_set(KB_ERROR, "cannot write '%s': %s", to, strerror(errno));
	if (!err && ferror(in))
		err = kb_error_set(KB_ERROR, "cannot read '%s': %s", from, strerror(errno));
done:
	if (out && fclose(out) != 0 && !err)
		err = kb_error_set(KB_ERROR, "cannot write '%s': %s", to, strerror(errno));
	if (in)
		fclose(in);
	return err;
}

char *kb_file_tail(const char *path, unsigned lines)
{
	char *data = NULL, *p, *tail;
	size_t len = 0;
	unsigned seen = 0;

	if (kb_read_file(&data, &len, path) < 0)
		return kb_strdup("");
	p = data + len;
	if (p > data && p[-1] == '\n')
		p--;
	while (p > data && seen < lines)
		if (*--p == '\n')
			seen++;
	if (*p == '\n')
		p++;
	tail = kb_strdup(p);
	free(data);
	return tail;
}

int kb_sha256_hex(char out[65], const void *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;

	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return kb_error_set(KB_ERROR, "cannot compute a SHA-256");
	for (i = 0; i < mdlen; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int kb_file_sha256(char *out, size_t size, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	int err;

	if (size < 65)
		return kb_error_set(KB_EINVALID, "no room for a SHA-256");
	if ((err = kb_read_file(&data, &len, path)) < 0)
		return err;
	if ((err = kb_sha256_hex(out, data, len)) < 0)
		err = kb_error_set(KB_ERROR, "cannot hash '%s'", path);
	free(data);
	return err;
}

int kb_lock_dir(int *fd, const char *dir)
{
	struct kb_buf path = KB_BUF_INIT;
	char pid[32] = "";
	ssize_t n;
	int err;

	*fd = -1;
	if ((err = kb_mkdir_p(dir)) < 0 || (err = kb_buf_printf(&path, "%s/kbackport.lock", dir)) < 0)
		goto done;
	if ((*fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		err = kb_error_set(KB_ERROR, "cannot open '%s': %s", path.ptr, strerror(errno));
		goto done;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0) {
		snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if (ftruncate(*fd, 0) < 0 || pwrite(*fd, pid, strlen(pid), 0) < 0)
			err = kb_error_set(KB_ERROR, "cannot write '%s': %s", path.ptr, strerror(errno));
		goto done;
	}
	if (errno == EWOULDBLOCK) {
		n = pread(*fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		err = kb_error_set(KB_EEXISTS, "work directory '%s' is in use by another kbackport "
				   "(pid %s): wait for it to end", dir, *pid ? pid : "unknown");
	} else {
		err = kb_error_set(KB_ERROR, "cannot lock '%s': %s", path.ptr, strerror(errno));
	}
	close(*fd);
	*fd = -1;
done:
	kb_buf_release(&path);
	return err;
}

int kb_cache_touch(const char *path)
{
	/* the access time only: the modification time is the entry's own
	 * (a boot's record of its kernel names it) */
	const struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };

	if (utimensat(AT_FDCWD, path, t, 0) < 0)
		return kb_error_set(KB_ERROR, "cannot touch '%s': %s", path, strerror(errno));
	return 0;
}

struct cache_entry {
	char *name;
	struct timespec used;
};

/* The most recently used first; equal times by name, so the order is stable. */
static int newest_first(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? 1 : -1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The regular files of `dir` (not temporaries) with their times, in `*out`. */
static int cache_list(struct cache_entry **out, size_t *n, const char *dir)
{
	struct kb_buf path = KB_BUF_INIT;
	struct kb_dir ents = KB_DIR_INIT;
	struct cache_entry *list = NULL;
	size_t alloc = 0, i;
	struct stat st;
	int err;

	*n = 0;
	if ((err = kb_dir_read(&ents, dir, KB_DIR_NO_HIDDEN | KB_DIR_MISSING_OK)) < 0)
		goto done;
	for (i = 0; i < ents.n; i++) {
		kb_buf_clear(&path);
		if ((err = kb_buf_printf(&path, "%s/%s", dir, ents.names[i])) < 0)
			goto done;
		if (strstr(ents.names[i], ".tmp.") || lstat(path.ptr, &st) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if ((err = KB_ARRAY_GROW(list, alloc, *n + 1)) < 0)
			goto done;
		/* the name moves from ents to the list */
		list[*n].name = ents.names[i];
		ents.names[i] = NULL;
		list[(*n)++].used = st.st_atim;
	}
done:
	if (err < 0) {
		while (*n)
			free(list[--*n].name);
		free(list);
		list = NULL;
	}
	*out = list;
	kb_dir_release(&ents);
	kb_buf_release(&path);
	return err;
}

int kb_cache_prune(size_t *removed, const char *dir, size_t keep)
{
	struct kb_buf path = KB_BUF_INIT;
	struct cache_entry *list = NULL;
	size_t n = 0, i;
	int err;

	*removed = 0;
	if ((err = cache_list(&list, &n, dir)) == 0) {
		if (n > 1)
			qsort(list, n, sizeof(*list), newest_first);
		for (i = keep; i < n && !err; i++) {
			kb_buf_clear(&path);
			if ((err = kb_buf_printf(&path, "%s/%s", dir, list[i].name)) == 0 &&
			    unlink(path.ptr) == 0)
				++*removed;
		}
	}
	for (i = 0; i < n; i++)
		free(list[i].name);
	free(list);
	kb_buf_release(&path);
	return err;
}
