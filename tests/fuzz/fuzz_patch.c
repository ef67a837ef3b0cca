/*
 * kb_patch_parse() on arbitrary bytes. A patch that parses has no control
 * character in its subject and author, and is reversed twice: the result
 * must have the same shape (files, hunks, modes) as the original.
 */
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "fuzz.h"
#include "apply/patch.h"

static void check_reverse(const struct kb_patch *patch)
{
	struct kb_patch *rev = NULL, *back = NULL;

	if (kb_patch_reverse(&rev, patch) < 0 || kb_patch_reverse(&back, rev) < 0)
		goto done;
	if (back->nfiles != patch->nfiles)
		abort();
	for (size_t i = 0; i < patch->nfiles; i++) {
		if (back->files[i].nhunks != patch->files[i].nhunks ||
		    back->files[i].old_mode != patch->files[i].old_mode ||
		    back->files[i].new_mode != patch->files[i].new_mode)
			abort();
		(void)kb_file_patch_path(&back->files[i]);
	}
done:
	kb_patch_free(rev);
	kb_patch_free(back);
}

/* No header carries a control character into a commit (patch.c folds them). */
static void check_headers(const struct kb_patch *patch)
{
	const char *const fields[] = { patch->subject, patch->author_name, patch->author_email };

	for (size_t i = 0; i < 3; i++)
		for (const char *s = fields[i]; s && *s; s++)
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_patch *patch = NULL;

	if (kb_patch_parse(&patch, (const char *)data, size, "fuzz.patch") == 0) {
		check_headers(patch);
		check_reverse(patch);
	}
	kb_patch_free(patch);
	kb_error_clear();
	return 0;
}
