/*
 * JSON values of the library's strings, for every JSON the tool writes
 * (apply --json, results.json, build and test --json): file names are
 * bytes, so bytes that are not UTF-8 are written as git quotes them (\351).
 */
#ifndef KB_JSON_H
#define KB_JSON_H

#include <jansson.h>
#include <stddef.h>

/* `n` bytes of `s`, bytes that are not UTF-8 escaped as \351. */
json_t *kb_json_text(const char *s, size_t n);
/* `s`, or null when NULL or empty. */
json_t *kb_json_str(const char *s);
/* The lines of `text` as an array, or null when `text` is NULL. */
json_t *kb_json_lines(const char *text);

#endif
