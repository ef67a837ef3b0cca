/*
 * A growable byte buffer, always NUL-terminated.
 *
 * A failed append (out of memory) leaves the buffer failed, as libgit2's
 * git_str does: its text is dropped, `ptr` points at a static "", and every
 * later append adds nothing and returns KB_ENOMEM again. A writer may then
 * append without checking each call and check once, with kb_buf_check(),
 * before it uses the text. Checking each call still works.
 */
#ifndef KB_BUF_H
#define KB_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct kb_buf {
	char *ptr;	/* NULL until something is added; a static "" once failed */
	size_t size;	/* bytes used, without the NUL */
	size_t asize;	/* bytes allocated */
};

#define KB_BUF_INIT { NULL, 0, 0 }

/* Each returns 0, or KB_ENOMEM ("out of memory") when the buffer is failed. */
int kb_buf_grow(struct kb_buf *buf, size_t extra);
int kb_buf_put(struct kb_buf *buf, const char *data, size_t len);
int kb_buf_puts(struct kb_buf *buf, const char *str);
int kb_buf_putc(struct kb_buf *buf, char c);
/* A format the C library cannot expand fails the buffer too (KB_ERROR,
 * "bad format string", for this call). */
int kb_buf_printf(struct kb_buf *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Did an append fail? Stays true until kb_buf_release(). */
bool kb_buf_oom(const struct kb_buf *buf);
/* 0, or kb_error_oom() when the buffer failed: the one check at the end. */
int kb_buf_check(const struct kb_buf *buf);
/* Fail `buf` too when `scratch` failed: a writer's text built in a scratch
 * buffer (then escaped into `buf`) must not be lost unsaid. */
void kb_buf_carry_oom(struct kb_buf *buf, const struct kb_buf *scratch);

/*
 * Hand the string to the caller (never NULL: "" when empty); buf is reset.
 * A failed buffer gives NULL (with the error set) and stays failed.
 */
char *kb_buf_detach(struct kb_buf *buf);
/* Empty the text; a failed buffer stays failed. */
void kb_buf_clear(struct kb_buf *buf);
/* Free the text and start again empty (a failed buffer too). */
void kb_buf_release(struct kb_buf *buf);

/*
 * The most any input file may hold: kbackport reads configs, patches,
 * logs and results whole, and a wrong path (/dev/zero) must not eat the
 * machine's memory.
 */
#define KB_READ_MAX (64 << 20)

/*
 * Read a whole regular file; NUL-terminated, size in *len (may be NULL).
 * Anything else (a FIFO, a device: it could block or never end) and a file
 * over KB_READ_MAX are KB_EINVALID: "cannot read '<path>': not a regular
 * file", "...: larger than 64 MiB". A missing file is KB_ENOTFOUND.
 */
int kb_read_file(char **out, size_t *len, const char *path);
/* The same from an open descriptor (standard input, a pipe), up to
 * KB_READ_MAX bytes; `name` names it in messages. */
int kb_read_fd(char **out, size_t *len, int fd, const char *name);
/* KB_EINVALID, as above, unless `fd` is a regular file of KB_READ_MAX
 * bytes at most. */
int kb_check_regular(int fd, const char *name);

/* strdup that records KB_ENOMEM; NULL in gives NULL out with no error. */
char *kb_strdup(const char *s);
char *kb_strndup(const char *s, size_t n);

/*
 * The length of the well-formed UTF-8 sequence at `s` (at most `n` bytes,
 * n >= 1), 0 if there is none: no overlong forms, no surrogates, nothing
 * past U+10FFFF.
 */
size_t kb_utf8_len(const unsigned char *s, size_t n);

#endif
