/*
 * The hunk locator: the input is a patch, a NUL byte, then the file to
 * apply it to (patches may not hold NUL bytes, files may). Every file
 * patch is applied to that file; with no NUL byte the file is empty.
 */
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "fuzz.h"
#include "apply/locate.h"
#include "apply/patch.h"

static void check_lines(const char *buf, size_t len)
{
	struct kb_lines lines = KB_LINES_INIT;
	char *joined = NULL;
	size_t jlen = 0;

	if (kb_lines_split(&lines, buf, len) == 0 &&
	    kb_lines_join(&joined, &jlen, &lines) == 0 &&
	    (jlen != len || memcmp(joined, buf, len) != 0))
		abort();	/* split then join must give the file back */
	free(joined);
	kb_lines_release(&lines);
}

/* Forward apply, then the in-or-applies decision with the reversed patch:
 * an APPLIES result undone by the reverse must give the file back. */
static void apply_file(const struct kb_file_patch *fp, const struct kb_file_patch *rfp,
		       const char *buf, size_t len, const struct kb_locate_opts *opts)
{
	struct kb_hunk_result *results = calloc(fp->nhunks + 1, sizeof(*results));
	struct kb_file_decision d;
	char *out = NULL;
	size_t outlen = 0;

	if (!results)
		return;
	(void)kb_file_apply(&out, &outlen, results, buf, len, fp, opts);
	if (kb_file_decide(&d, results, buf, len, fp, rfp, opts) == 0)
		kb_file_decision_release(&d);
	(void)kb_text_contains(buf, len, out ? out : "", outlen);
	free(out);
	free(results);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	const char *nul = memchr(in, '\0', size);
	size_t plen = nul ? (size_t)(nul - in) : size;
	const char *file = nul ? nul + 1 : "";
	size_t flen = nul ? size - plen - 1 : 0;
	struct kb_locate_opts opts;
	struct kb_patch *patch = NULL, *rev = NULL;

	check_lines(file, flen);
	kb_locate_opts_init(&opts);
	if (kb_patch_parse(&patch, in, plen, "fuzz.patch") == 0 &&
	    kb_patch_reverse(&rev, patch) == 0) {
		for (size_t i = 0; i < patch->nfiles; i++) {
			apply_file(&patch->files[i], &rev->files[i], file, flen, &opts);
			opts.max_fuzz = 0;
			opts.ignore_whitespace = false;
			opts.anchor = false;
			apply_file(&patch->files[i], &rev->files[i], file, flen, &opts);
			kb_locate_opts_init(&opts);
		}
	}
	kb_patch_free(rev);
	kb_patch_free(patch);
	kb_error_clear();
	return 0;
}
