#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a failed buffer points at: it reads as "", it is never freed. */
static char buf_oom[1];

bool kb_buf_oom(const struct kb_buf *buf)
{
	return buf->ptr == buf_oom;
}

int kb_buf_check(const struct kb_buf *buf)
{
	return kb_buf_oom(buf) ? kb_error_oom() : 0;
}

/* Drop the text and make the buffer failed; returns the error to pass up. */
static int buf_fail(struct kb_buf *buf, int err)
{
	if (!kb_buf_oom(buf))
		free(buf->ptr);
	buf->ptr = buf_oom;
	buf->size = buf->asize = 0;
	return err;
}

void kb_buf_carry_oom(struct kb_buf *buf, const struct kb_buf *scratch)
{
	if (kb_buf_oom(scratch))
		buf_fail(buf, 0);
}

int kb_buf_grow(struct kb_buf *buf, size_t extra)
{
	size_t need, nsize;
	char *p;

	if (kb_buf_oom(buf))
		return kb_error_oom();
	if (extra >= SIZE_MAX - buf->size)
		return buf_fail(buf, kb_error_oom());
	need = buf->size + extra + 1;
	if (need <= buf->asize)
		return 0;
	nsize = buf->asize ? buf->asize : 64;
	while (nsize < need)
		nsize = nsize > SIZE_MAX / 2 ? need : nsize * 2;
	if (!(p = realloc(buf->ptr, nsize)))
		return buf_fail(buf, kb_error_oom());
	buf->ptr = p;
	buf->asize = nsize;
	return 0;
}

int kb_buf_put(struct kb_buf *buf, const char *data, size_t len)
{
	int err;

	if ((err = kb_buf_grow(buf, len)) < 0)
		return err;
	if (len)
		memcpy(buf->ptr + buf->size, data, len);
	buf->size += len;
	buf->ptr[buf->size] = '\0';
	return 0;
}

int kb_buf_puts(struct kb_buf *buf, const char *str)
{
	return kb_buf_put(buf, str, strlen(str));
}

int kb_buf_putc(struct kb_buf *buf, char c)
{
	return kb_buf_put(buf, &c, 1);
}

int kb_buf_printf(struct kb_buf *buf, const char *fmt, ...)
{
	va_list ap;
	int n, err;

	if (kb_buf_oom(buf))
		return kb_error_oom();
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return buf_fail(buf, kb_error_set(KB_ERROR, "bad format string"));
	if ((err = kb_buf_grow(buf, (size_t)n)) < 0)
		return err;
	va_start(ap, fmt);
	vsnprintf(buf->ptr + buf->size, (size_t)n + 1, fmt, ap);
	va_end(ap);
	buf->size += (size_t)n;
	return 0;
}

char *kb_buf_detach(struct kb_buf *buf)
{
	char *p = buf->ptr;

	if (kb_buf_oom(buf)) {
		kb_error_oom();
		return NULL;
	}
	if (!p && !(p = calloc(1, 1)))
		kb_error_oom();
	buf->ptr = NULL;
	buf->size = buf->asize = 0;
	return p;
}

void kb_buf_clear(struct kb_buf *buf)
{
	buf->size = 0;
	if (buf->ptr && !kb_buf_oom(buf))
		buf->ptr[0] = '\0';
}

void kb_buf_release(struct kb_buf *buf)
{
	if (!kb_buf_oom(buf))
		free(buf->ptr);
	buf->ptr = NULL;
	buf->size = buf->asize = 0;
}

static int too_big(const char *name)
{
	return kb_error_set(KB_EINVALID, "cannot read '%s': larger than %d MiB", name,
			    KB_READ_MAX >> 20);
}

int kb_read_fd(char **out, size_t *len, int fd, const char *name)
{
	struct kb_buf buf = KB_BUF_INIT;
	char chunk[65536];
	ssize_t n;
	int err = 0;

	*out = NULL;
	while (!err && (n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = kb_error_set(KB_ERROR, "cannot read '%s': %s", name, strerror(errno));
		else if (buf.size + (size_t)n > KB_READ_MAX)
			err = too_big(name);
		else
			err = kb_buf_put(&buf, chunk, (size_t)n);
	}
	if (!err) {
		if (len)
			*len = buf.size;
		*out = kb_buf_detach(&buf);
	}
	kb_buf_release(&buf);
	return err;
}

int kb_check_regular(int fd, const char *name)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return kb_error_set(KB_ERROR, "cannot read '%s': %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return kb_error_set(KB_EINVALID, "cannot read '%s': not a regular file", name);
	if (st.st_size > KB_READ_MAX)
		return too_big(name);
	return 0;
}

/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused). */
int kb_read_file(char **out, size_t *len, const char *path)
{
	int fd, err;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return kb_error_set(errno == ENOENT ? KB_ENOTFOUND : KB_ERROR,
				    "cannot open '%s': %s", path, strerror(errno));
	if ((err = kb_check_regular(fd, path)) == 0)
		err = kb_read_fd(out, len, fd, path);
	close(fd);
	return err;
}

char *kb_strdup(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	if (!(p = strdup(s)))
		kb_error_oom();
	return p;
}

char *kb_strndup(const char *s, size_t n)
{
	char *p;

	if (!s)
		return NULL;
	if (!(p = strndup(s, n)))
		kb_error_oom();
	return p;
}

size_t kb_utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}
