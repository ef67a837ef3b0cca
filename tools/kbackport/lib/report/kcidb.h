/*
 * kcidb.json: a run in the KCIDB I/O format, schema v4 (kcidb.c says which
 * fields, patterns and enumerations, and how a run maps onto them).
 */
#ifndef KB_KCIDB_H
#define KB_KCIDB_H

#include <jansson.h>
#include <stddef.h>

#include "report/report.h"

#define KB_KCIDB_MAJOR 4
#define KB_KCIDB_MINOR 0
#define KB_KCIDB_ORIGIN "kbackport"

/*
 * The document of `report`: one checkout per lane (and one, not valid, for
 * a branch the fix does not apply to), one build per built lane, one test
 * per KTAP case. Log URLs are relative to the run directory, or under
 * `base_url` when given.
 */
int kb_kcidb_report(json_t **out, const struct kb_report *report, const char *base_url);

/* SHA-256 of `data` as 64 lowercase hex digits. */
void kb_kcidb_sha256_hex(char out[65], const void *data, size_t len);

/*
 * KCIDB's patchset hash of the patches whose SHA-256 (hex) are `hashes`:
 * the SHA-256 of their hashes, each followed by a newline, in order
 * (`sha256sum *.patch | cut -c-64 | sha256sum | cut -c-64`).
 */
void kb_kcidb_patchset_hash(char out[65], const char *const *hashes, size_t n);

#endif
