/*
 * Test helper: a one-patch fix written into a sandbox (fix.yaml and its
 * upstream.patch), for the tests that load fixes from directories
 * (test_fixset.c, test_session.c). Include after sandbox.h.
 */
#ifndef KB_FIX_FIXTURE_H
#define KB_FIX_FIXTURE_H

#include "fix_patch.h"

static const char patch_text[] = FIX_PATCH_MAIL("net: a fix") FIX_PATCH_DIFF;

/* A fix `id` under `rel` (relative to the sandbox): fix.yaml and its patch. */
static void make_fix(struct sandbox *sb, const char *rel, const char *id)
{
	char path[256], yaml[512];

	snprintf(yaml, sizeof(yaml),
		 "id: %s\nsubject: \"net: a fix\"\n"
		 "upstream: 8909c9ad8ff03611c9c96c9a92656213e4bb495b\npatch: upstream.patch\n", id);
	snprintf(path, sizeof(path), "%s/fix.yaml", rel);
	write_file(sb, path, yaml);
	snprintf(path, sizeof(path), "%s/upstream.patch", rel);
	write_file(sb, path, patch_text);
}

#endif
