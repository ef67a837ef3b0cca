/*
 * Run a fuzz target's LLVMFuzzerTestOneInput() on each file given, without
 * libFuzzer: built with the normal compiler and ASan/UBSan by
 * `make fuzz-replay` to replay the regressions and the seed corpora.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	long size;
	int err = -1;

	if (!f)
		goto done;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0)
		goto done;
	/* a private copy of exactly `size` bytes, so ASan sees overreads */
	if (!(data = malloc(size ? (size_t)size : 1)) ||
	    fread(data, 1, (size_t)size, f) != (size_t)size)
		goto done;
	LLVMFuzzerTestOneInput(data, (size_t)size);
	err = 0;
done:
	if (err)
		fprintf(stderr, "error: cannot read '%s'\n", path);
	free(data);
	if (f)
		fclose(f);
	return err;
}

int main(int argc, char **argv)
{
	int st = 0;

	for (int i = 1; i < argc; i++)
		if (replay(argv[i]) < 0)
			st = 1;
	return st;
}
