/* A long step's ticks and how they read (see progress.h). */
#include "util/progress.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>

bool kb_ticker_due(const struct kb_ticker *t, double *next, double now)
{
	if (!t || !t->tick || t->interval <= 0)
		return false;
	if (*next <= 0) {
		*next = now + t->interval;
		return false;
	}
	if (now < *next)
		return false;
	while (*next <= now)
		*next += t->interval;
	return true;
}

static int format_elapsed(struct kb_buf *out, double seconds)
{
	unsigned long s = seconds > 0 ? (unsigned long)seconds : 0;

	if (s < 60)
		return kb_buf_printf(out, "%lus", s);
	if (s < 3600)
		return kb_buf_printf(out, "%lum%02lus", s / 60, s % 60);
	return kb_buf_printf(out, "%luh%02lum", s / 3600, s % 3600 / 60);
}

int kb_tick_format(struct kb_buf *out, const char *who, const struct kb_tick *tick)
{
	kb_buf_printf(out, "progress: %s: %s ", who, tick->step);
	format_elapsed(out, tick->seconds);
	if (!tick->counted)
		return kb_buf_check(out);
	/* the last append returns the buffer's failure, an earlier one's too */
	if (tick->unit && !tick->total)
		return kb_buf_printf(out, ", %zu %s", tick->done, tick->unit);
	if (tick->unit)
		return kb_buf_printf(out, ", %zu/%zu %s", tick->done, tick->total, tick->unit);
	if (tick->total)
		return kb_buf_printf(out, ", %zu/%zu objects", tick->done, tick->total);
	return kb_buf_printf(out, ", %zu/? objects", tick->done);
}

int kb_progress_interval(double *out, const char *text)
{
	char *end;
	long n;

	*out = KB_PROGRESS_INTERVAL;
	if (!text || !*text)
		return 0;
	errno = 0;
	n = strtol(text, &end, 10);
	if (errno || *end || end == text || n < 1 || n > 86400)
		return kb_error_set(KB_EINVALID, "KBACKPORT_PROGRESS_INTERVAL '%s': "
				    "expected whole seconds, 1 to 86400", text);
	*out = (double)n;
	return 0;
}
