/*
 * The fix.yaml loader, kb_fix_load(), which reads a fix directory: each
 * input is written as fix.yaml into one temporary fix directory that holds a
 * copy of CVE-2011-1019's patches (so `patch:` entries can resolve), then
 * loaded. The patches are read from $KB_FUZZ_FIX (default
 * backports/CVE-2011-1019, the fuzzers run from the top of the tree).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"
#include "fix.h"
#include "util/fsutil.h"
#include "fuzz.h"

static const char *const patches[] = {
	"upstream.patch",
	"variants/2.6.32.patch",
	"variants/2.6.33.patch",
	"variants/3.9.patch",
};

static struct kb_buf tmp_root = KB_BUF_INIT;	/* $TMPDIR/kbackport-fuzz-fix.XXXXXX */
static struct kb_buf fix_dir = KB_BUF_INIT;
static struct kb_buf yaml_path = KB_BUF_INIT;

static void remove_tmp(void)
{
	kb_remove_tree(tmp_root.ptr);
	kb_buf_release(&tmp_root);
	kb_buf_release(&fix_dir);
	kb_buf_release(&yaml_path);
}

static void setup(void)
{
	const char *from = getenv("KB_FUZZ_FIX"), *tmpdir = getenv("TMPDIR");
	struct kb_buf src = KB_BUF_INIT, dst = KB_BUF_INIT;

	if (!from)
		from = "backports/CVE-2011-1019";
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	if (kb_buf_printf(&tmp_root, "%s/kbackport-fuzz-fix.XXXXXX", tmpdir) < 0 ||
	    !mkdtemp(tmp_root.ptr))
		abort();
	atexit(remove_tmp);
	if (kb_buf_printf(&fix_dir, "%s/CVE-2011-1019", tmp_root.ptr) < 0 ||
	    kb_buf_printf(&yaml_path, "%s/fix.yaml", fix_dir.ptr) < 0 ||
	    kb_buf_printf(&src, "%s/variants", fix_dir.ptr) < 0 ||
	    kb_mkdir_p(src.ptr) < 0)
		abort();
	for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); i++) {
		kb_buf_clear(&src);
		kb_buf_clear(&dst);
		if (kb_buf_printf(&src, "%s/%s", from, patches[i]) < 0 ||
		    kb_buf_printf(&dst, "%s/%s", fix_dir.ptr, patches[i]) < 0 ||
		    kb_copy_file(dst.ptr, src.ptr) < 0) {
			fprintf(stderr, "fuzz_fix: cannot copy '%s': %s\n", src.ptr, kb_error_last());
			abort();
		}
	}
	kb_buf_release(&src);
	kb_buf_release(&dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_fix *fix = NULL;
	static int ready;
	FILE *f;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (!(f = fopen(yaml_path.ptr, "wb")))
		abort();
	if (fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	if (kb_fix_load(&fix, fix_dir.ptr) == 0) {
		for (size_t i = 0; i < fix->nvariants; i++)
			if (!fix->variants[i].name || !fix->variants[i].patch)
				abort();
	}
	kb_fix_free(fix);
	kb_error_clear();
	return 0;
}
