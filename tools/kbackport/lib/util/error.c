#include "util/error.h"

#include <git2.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[2048];

static void set_message(const char *fmt, va_list ap)
{
	vsnprintf(last_message, sizeof(last_message), fmt, ap);
}

int kb_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_message(fmt, ap);
	va_end(ap);
	return code;
}

int kb_error_oom(void)
{
	static const char message[] = "out of memory";

	memcpy(last_message, message, sizeof(message));
	return KB_ENOMEM;
}

int kb_error_git(int git_code, const char *fmt, ...)
{
	const git_error *gerr = git_error_last();
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	set_message(fmt, ap);
	va_end(ap);
	len = strlen(last_message);
	if (gerr && gerr->message && len < sizeof(last_message))
		snprintf(last_message + len, sizeof(last_message) - len, ": %s",
			 gerr->message);
	if (git_code == GIT_ENOTFOUND)
		return KB_ENOTFOUND;
	if (git_code == GIT_EEXISTS)
		return KB_EEXISTS;
	return KB_ERROR;
}

int kb_error_prefix(int code, const char *fmt, ...)
{
	char old[sizeof(last_message)];
	size_t len;
	va_list ap;

	memcpy(old, last_message, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(last_message, sizeof(last_message), fmt, ap);
	va_end(ap);
	len = strlen(last_message);
	if (len + 2 < sizeof(last_message)) {
		memcpy(last_message + len, ": ", 3);
		len += 2;
		const char *rest = old[0] ? old : "unknown error";
		size_t n = strlen(rest);
		if (n > sizeof(last_message) - len - 1)
			n = sizeof(last_message) - len - 1;
		memcpy(last_message + len, rest, n);
		last_message[len + n] = '\0';
	}
	return code;
}

const char *kb_error_last(void)
{
	return last_message[0] ? last_message : "unknown error";
}

void kb_error_clear(void)
{
	last_message[0] = '\0';
}
