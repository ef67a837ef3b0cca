/* Running other programs (apt-get, dpkg-deb, make) from the library. */
#ifndef KB_RUN_H
#define KB_RUN_H

#include "util/progress.h"

/*
 * Run argv[0] (searched in PATH) with `argv`, in `cwd` (NULL: here), its
 * standard output and error appended to `log` (NULL: discarded), standard
 * input from /dev/null. Returns the exit status (0..255), or a negative
 * code when it could not be started or was killed by a signal (with a
 * message naming the program).
 */
int kb_run(const char *const argv[], const char *cwd, const char *log);

/*
 * kb_run() calling `ticker` (may be NULL) every interval while the program
 * runs, with a tick of `step` ("download") and the seconds since it began.
 */
int kb_run_ticked(const char *const argv[], const char *cwd, const char *log,
		  const struct kb_ticker *ticker, const char *step);

/*
 * Like kb_run() with a `log`, and a non-zero exit is an error too: its
 * message names the program and ends with the last lines of `log`.
 */
int kb_run_logged(const char *const argv[], const char *cwd, const char *log);

/* kb_run_logged() with ticks, as kb_run_ticked(). */
int kb_run_logged_ticked(const char *const argv[], const char *cwd, const char *log,
			 const struct kb_ticker *ticker, const char *step);

/*
 * Like kb_run() without a log; the first line of standard output goes to
 * *out (malloc'ed, without the newline; "" when none).
 */
int kb_run_capture(char **out, const char *const argv[]);

/* The last `lines` lines of the file at `path` (malloc'ed; "" if unreadable). */
char *kb_file_tail(const char *path, unsigned lines);

#endif
