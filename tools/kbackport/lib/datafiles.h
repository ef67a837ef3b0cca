/*
 * kbackport's own data: every file it reads at run time that is not given
 * on the command line, as paths relative to the data directory (the source
 * tree for build/kbackport, $(PREFIX)/share/kbackport once installed). The
 * one table: the commands look their files up through it, and `make install`
 * installs exactly what it lists (tools/list-data.c prints it).
 */
#ifndef KB_DATAFILES_H
#define KB_DATAFILES_H

#include "util/buf.h"

enum kb_data_id {
	KB_DATA_GUEST,		/* test, run: the guest program's source */
	KB_DATA_FRAGMENT,	/* build, test, run: the config fragment */
	KB_DATA_COMPAT,		/* build, test, run: the build compatibility rules */
	KB_DATA_COMPAT_MERGE,	/* a file the build rules add (read beside the rules) */
	KB_DATA_FIXES,		/* the fixes and their tests (cases, kernel config
				 * lines, KUnit suites: fixtests.h) */
	KB_DATA_COUNT
};

struct kb_data_file {
	const char *path;	/* relative; ends in '/' for a whole directory */
	const char *what;	/* for messages: "the build compatibility rules" */
};

extern const struct kb_data_file kb_data_files[KB_DATA_COUNT];

/*
 * The data file `id`: beside the branches file (under `config_dir`) when it
 * is there, else under `datadir`. Neither is KB_ENOTFOUND with a message
 * naming both paths, never a path to a file that is not there.
 */
int kb_data_path(struct kb_buf *out, enum kb_data_id id, const char *config_dir,
		 const char *datadir);

#endif
