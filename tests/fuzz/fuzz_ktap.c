/*
 * kb_ktap_parse() on arbitrary console logs, then every suite rebuilt as
 * its own KTAP document, which must parse again.
 */
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "fuzz.h"
#include "boot/ktap.h"

static void check_suite(const struct kb_ktap_result *r, const struct kb_ktap_suite *s)
{
	struct kb_ktap_result again = { 0 };
	char *doc = NULL;

	(void)kb_ktap_status_name(s->status);
	if (s->pass + s->fail + s->skip > s->ncases)
		abort();
	if (kb_ktap_find_suite(r, s->name) == NULL)
		abort();
	if (kb_ktap_suite_document(&doc, r, s->name) == 0)
		(void)kb_ktap_parse(&again, doc, strlen(doc));
	kb_ktap_result_release(&again);
	free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_ktap_result r = { 0 };

	if (kb_ktap_parse(&r, (const char *)data, size) == 0)
		for (size_t i = 0; i < r.nsuites; i++)
			check_suite(&r, &r.suites[i]);
	kb_ktap_result_release(&r);
	kb_error_clear();
	return 0;
}
