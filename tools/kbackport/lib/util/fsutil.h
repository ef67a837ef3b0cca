/*
 * Small filesystem helpers for the stages that write to disk: they return
 * 0 or a negative kb error code with a message, as the rest of the library.
 */
#ifndef KB_FSUTIL_H
#define KB_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Whether `path` names something (stat(): a symlink by what it points to). */
bool kb_path_exists(const char *path);

/*
 * `path` as an absolute path with no "." or ".." component and no "//":
 * realpath() when it resolves, else (a path that is not there) made
 * absolute against the current directory and normalised by its words.
 */
int kb_path_absolute(char **out, const char *path);

/* `path` and whichever of its parents are missing (mode 0755), as mkdir -p. */
int kb_mkdir_p(const char *path);

/* `path` and everything below it, as rm -rf: nothing there is no error. */
int kb_remove_tree(const char *path);

/*
 * `len` bytes of `data` into a temporary beside `path` (kb_tmp_path()),
 * flushed to disk, then renamed to `path`: a reader finds the old file or
 * the whole new one, never a part.
 */
int kb_write_file_atomic(const char *path, const char *data, size_t len);
/* The same for the string `text`. */
int kb_write_atomic(const char *path, const char *text);

/*
 * The temporary name "<path>.tmp.<pid>" for a file or directory this process
 * writes and then renames to `path`, in `tmp`. First, whatever an interrupted
 * kbackport left beside `path` is removed: every "<path>.tmp.<pid>" whose
 * process is gone (a killed Debian package unpack leaves ~470 MB).
 */
struct kb_buf;
int kb_tmp_path(struct kb_buf *tmp, const char *path);

/*
 * *out gets the hex SHA-1 of `len` bytes at `data` (malloc'ed): git's blob
 * hash serves as a plain digest. `what` names the data in the message when
 * hashing fails ("cannot hash <what>").
 */
int kb_digest(char **out, const char *data, size_t len, const char *what);

/* Copy the file `from` to `to` (created or truncated, mode 0644). */
int kb_copy_file(const char *to, const char *from);

/* The last `lines` lines of the file at `path` (malloc'ed; "" if unreadable). */
char *kb_file_tail(const char *path, unsigned lines);

/* The SHA-256 of `len` bytes at `data` as 64 hex digits and a NUL. */
int kb_sha256_hex(char out[65], const void *data, size_t len);

/*
 * The SHA-256 of the file at `path` as 64 hex digits and a NUL in `out`
 * (`size` >= 65): what KCIDB's patchset_hash is made of.
 */
int kb_file_sha256(char *out, size_t size, const char *path);

/*
 * A content-addressed cache directory (work/pvh/, work/initramfs/): an
 * entry's access time is when it was last used (its modification time
 * stays when it was written: a boot's inputs name the kernel by it).
 * kb_cache_touch() marks `path` used now; kb_cache_prune() removes the regular files of
 * `dir` beyond the `keep` most recently used (temporaries "*.tmp.<pid>"
 * are kb_tmp_path()'s business and left alone). Pruning is best effort:
 * a file that cannot be removed stays, and *removed counts the others.
 */
int kb_cache_touch(const char *path);
int kb_cache_prune(size_t *removed, const char *dir, size_t keep);

/*
 * Take <dir>/kbackport.lock (created when missing) for this process, so two
 * kbackport commands never work in one work directory at once: *fd holds
 * the lock until closed (or the process ends). When another process holds
 * it: KB_EEXISTS, "work directory '<dir>' is in use by another kbackport
 * (pid N)".
 */
int kb_lock_dir(int *fd, const char *dir);

#endif
