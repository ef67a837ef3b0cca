/*
 * Words for POSIX sh: the commands kbackport prints for people to paste
 * (a conflict's "to resolve it by hand") hold paths, refs and ids that
 * come from data, and pasting them must run nothing but the command.
 */
#ifndef KB_SHELL_H
#define KB_SHELL_H

#include "util/buf.h"

/*
 * Append `word` to `out` as one sh word that means exactly `word`:
 *
 *   - as it is when every byte is one of A-Z a-z 0-9 _ @ % + = : , . / -
 *     (and it is not empty): "backport/CVE-2011-1019/4.19.y";
 *   - else in single quotes, a quote written '\'': 'a b', 'it'\''s';
 *   - else, when it holds a control character (a newline, a tab, ...) or
 *     bytes that are not UTF-8, as "$(printf '...')" with those bytes as
 *     octal escapes: the word stays on one line of valid UTF-8, so that
 *     indenting the commands, a mail or a JSON string keep it intact (a
 *     newline at the very end is lost to the command substitution).
 */
int kb_sh_quote(struct kb_buf *out, const char *word);

/* Append each word of the NULL-terminated `words`, quoted, blank-separated. */
int kb_sh_words(struct kb_buf *out, const char *const *words);
/* The same, then a newline: one command line. */
int kb_sh_command(struct kb_buf *out, const char *const *words);

#endif
