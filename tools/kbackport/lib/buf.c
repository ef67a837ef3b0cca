#include "buf.h"
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kb_buf_grow(struct kb_buf *buf, size_t extra)
{
	size_t need = buf->size + extra + 1, nsize;
	char *p;

	if (need <= buf->asize)
		return 0;
	nsize = buf->asize ? buf->asize : 64;
	while (nsize < need)
		nsize *= 2;
	if (!(p = realloc(buf->ptr, nsize)))
		return kb_error_set(KB_ENOMEM, "out of memory");
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

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return kb_error_set(KB_ERROR, "bad format string");
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

	if (!p)
		p = calloc(1, 1);
	buf->ptr = NULL;
	buf->size = buf->asize = 0;
	return p;
}

void kb_buf_clear(struct kb_buf *buf)
{
	buf->size = 0;
	if (buf->ptr)
		buf->ptr[0] = '\0';
}

void kb_buf_release(struct kb_buf *buf)
{
	free(buf->ptr);
	buf->ptr = NULL;
	buf->size = buf->asize = 0;
}

int kb_read_file(char **out, size_t *len, const char *path)
{
	struct kb_buf buf = KB_BUF_INIT;
	char chunk[65536];
	FILE *fp;
	size_t n;
	int err = 0;

	*out = NULL;
	if (!(fp = fopen(path, "rb")))
		return kb_error_set(errno == ENOENT ? KB_ENOTFOUND : KB_ERROR,
				   "cannot open '%s': %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		if ((err = kb_buf_put(&buf, chunk, n)) < 0)
			goto done;
	if (ferror(fp)) {
		err = kb_error_set(KB_ERROR, "cannot read '%s'", path);
		goto done;
	}
	if (len)
		*len = buf.size;
	*out = kb_buf_detach(&buf);
done:
	fclose(fp);
	kb_buf_release(&buf);
	return err;
}

char *kb_strdup(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	if (!(p = strdup(s)))
		kb_error_set(KB_ENOMEM, "out of memory");
	return p;
}

char *kb_strndup(const char *s, size_t n)
{
	char *p;

	if (!s)
		return NULL;
	if (!(p = strndup(s, n)))
		kb_error_set(KB_ENOMEM, "out of memory");
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
