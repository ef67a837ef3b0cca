/* JSON values from the library's strings: the one place they are made. */
#include "util/json.h"
#include "util/buf.h"

#include <string.h>

/*
 * File names are bytes, as in git: bytes that are not UTF-8 are written
 * as git quotes them (\351), so that a result is never lost to JSON.
 */
json_t *kb_json_text(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	struct kb_buf b = KB_BUF_INIT;
	size_t i = 0, len;
	json_t *j;

	if ((j = json_stringn(s, n)))
		return j;
	while (i < n) {
		if ((len = kb_utf8_len(p + i, n - i)) && p[i]) {
			kb_buf_put(&b, s + i, len);
		} else {
			kb_buf_printf(&b, "\\%03o", p[i]);
			len = 1;
		}
		i += len;
	}
	j = b.ptr ? json_stringn(b.ptr, b.size) : json_string("");
	kb_buf_release(&b);
	return j;
}

json_t *kb_json_str(const char *s)
{
	return s && *s ? kb_json_text(s, strlen(s)) : json_null();
}

json_t *kb_json_lines(const char *text)
{
	const char *p = text;
	json_t *arr;
	size_t len;

	if (!text)
		return json_null();
	arr = json_array();
	while (*p) {
		len = strcspn(p, "\n");
		json_array_append_new(arr, kb_json_text(p, len));
		p += len + (p[len] == '\n');
	}
	return arr;
}
