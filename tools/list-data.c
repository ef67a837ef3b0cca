/*
 * list-data: print kbackport's data table (tools/kbackport/lib/datafiles.c),
 * one path a line, relative to the data directory; a directory ends in '/'.
 * `make install` installs exactly these (tools/install.sh).
 */
#include "datafiles.h"

#include <stdio.h>

int main(void)
{
	size_t i;

	for (i = 0; i < KB_DATA_COUNT; i++)
		if (printf("%s\n", kb_data_files[i].path) < 0)
			return 1;
	return fflush(stdout) == 0 ? 0 : 1;
}
