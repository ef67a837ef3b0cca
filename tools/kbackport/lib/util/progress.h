/*
 * Progress of a long step (a build, a boot) while its child runs: the loop
 * that waits for the child calls a ticker every `interval` seconds, so that
 * a log with no terminal (CI) shows the step is alive. The library only
 * calls; the CLI prints.
 */
#ifndef KB_PROGRESS_H
#define KB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"

/* The default interval between two ticks, in seconds. */
#define KB_PROGRESS_INTERVAL 30

struct kb_tick {
	const char *step;	/* "build", "boot", "download", "import" */
	double seconds;		/* since the step began */
	bool counted;		/* a build: `done` and `total` mean something */
	size_t done;		/* objects compiled so far ("CC" lines) */
	size_t total;		/* expected, from an earlier build; 0: unknown */
	const char *unit;	/* what `done` counts: NULL for a build's
				 * objects (an unknown total shown as "?"),
				 * else "files" and the like (no total shown
				 * when unknown) */
};

struct kb_ticker {
	double interval;	/* seconds between ticks; 0: no ticks */
	void (*tick)(const struct kb_tick *tick, void *payload);
	void *payload;
};

/*
 * Is a tick due at `now` (seconds, any clock)? `*next` holds when the next
 * one is: 0 before the first call, which only sets it. Moves `*next` on
 * when it answers true.
 */
bool kb_ticker_due(const struct kb_ticker *t, double *next, double now);

/*
 * "progress: <who>: <step> <elapsed>[, <done>/<total|?> objects]" with the
 * elapsed time as "45s", "2m30s" or "1h05m"; with a `unit`,
 * "[, <done>[/<total>] <unit>]".
 */
int kb_tick_format(struct kb_buf *out, const char *who, const struct kb_tick *tick);

/*
 * The interval from `text` (KBACKPORT_PROGRESS_INTERVAL): whole seconds,
 * 1 to 86400; NULL or empty gives the default.
 */
int kb_progress_interval(double *out, const char *text);

#endif
