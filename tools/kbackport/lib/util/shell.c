#include "util/shell.h"
#include "util/error.h"

#include <stdbool.h>
#include <string.h>

static const char safe[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Does `word` need "$(printf ...)": a control byte, or bytes not UTF-8? */
static bool needs_printf(const char *word)
{
	const unsigned char *p = (const unsigned char *)word;
	size_t n = strlen(word), len;

	while (n) {
		if (is_control(*p) || !(len = kb_utf8_len(p, n)))
			return true;
		p += len;
		n -= len;
	}
	return false;
}

static int put_printf(struct kb_buf *out, const char *word)
{
	const unsigned char *p = (const unsigned char *)word;
	size_t n = strlen(word), len;

	kb_buf_puts(out, "\"$(printf '");
	while (n) {
		len = is_control(*p) ? 0 : kb_utf8_len(p, n);
		if (!len)
			kb_buf_printf(out, "\\%03o", *p);
		else if (*p == '\\' || *p == '%')
			kb_buf_printf(out, "%c%c", *p, *p);
		else if (*p == '\'')
			kb_buf_puts(out, "'\\''");
		else
			kb_buf_put(out, (const char *)p, len);
		len = len ? len : 1;
		p += len;
		n -= len;
	}
	kb_buf_puts(out, "')\"");
	return kb_buf_check(out);
}

int kb_sh_quote(struct kb_buf *out, const char *word)
{
	const char *p;

	if (*word && !word[strspn(word, safe)])
		return kb_buf_puts(out, word);
	if (needs_printf(word))
		return put_printf(out, word);
	kb_buf_putc(out, '\'');
	for (p = word; *p; p++)
		if (*p == '\'')
			kb_buf_puts(out, "'\\''");
		else
			kb_buf_putc(out, *p);
	kb_buf_putc(out, '\'');
	return kb_buf_check(out);
}

int kb_sh_words(struct kb_buf *out, const char *const *words)
{
	size_t i;

	for (i = 0; words[i]; i++) {
		if (i)
			kb_buf_putc(out, ' ');
		kb_sh_quote(out, words[i]);
	}
	return kb_buf_check(out);
}

int kb_sh_command(struct kb_buf *out, const char *const *words)
{
	kb_sh_words(out, words);
	kb_buf_putc(out, '\n');
	return kb_buf_check(out);
}
