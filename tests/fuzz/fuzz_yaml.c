/*
 * The YAML loaders that take a buffer: kb_config_parse() (branches.yaml)
 * and kb_cases_parse() (tests/cases.yaml), both on every input. The fix.yaml
 * loader reads a directory and is not fuzzed here.
 */
#include <stdlib.h>

#include <git2.h>

#include "boot/cases.h"
#include "config.h"
#include "util/error.h"
#include "fuzz.h"

static void use_config(const struct kb_config *config)
{
	for (size_t i = 0; i < config->nbranches; i++) {
		const struct kb_branch *b = &config->branches[i];

		if (kb_config_branch(config, b->name) == NULL)
			abort();
		(void)kb_branch_variant(b, "CVE-2011-1019");
	}
}

static void use_cases(const struct kb_cases *cases)
{
	for (size_t i = 0; i < cases->nsuites; i++) {
		const struct kb_suite_decl *s = &cases->suites[i];

		if (kb_cases_suite(cases, s->name) == NULL)
			abort();
		(void)kb_suite_runs_name(s->runs);
		for (size_t j = 0; j < s->ncases; j++) {
			if (kb_suite_case(s, s->cases[j].name) == NULL)
				abort();
			(void)kb_case_detects(&s->cases[j], "CVE-2011-1019");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_config *config = NULL;
	struct kb_cases *cases = NULL;
	static int git_init;

	/*
	 * kb_config_parse() initialises libgit2 and shuts it down again, which
	 * costs most of the time of a run: keep it initialised.
	 */
	if (!git_init)
		git_init = git_libgit2_init();
	if (kb_config_parse(&config, (const char *)data, size, "fuzz/branches.yaml") == 0)
		use_config(config);
	if (kb_cases_parse(&cases, (const char *)data, size, "fuzz/cases.yaml") == 0)
		use_cases(cases);
	kb_config_free(config);
	kb_cases_free(cases);
	kb_error_clear();
	return 0;
}
