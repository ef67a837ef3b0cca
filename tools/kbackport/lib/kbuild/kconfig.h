/*
 * The Kconfig symbols a kernel tree knows: every `config NAME` and
 * `menuconfig NAME` of its Kconfig* files, read from the git tree (no
 * checkout) and cached per tree under <cache_dir>/<tree id>, one name a
 * line, sorted.
 *
 * A fix's tests bring config lines for the test kernel (fixtests.h); on a
 * kernel older than what they test the options do not exist, and those
 * lines are left out there as a whole (build.h): a vxlan test's options
 * have no place in a 2.6.32 kernel.
 */
#ifndef KB_KCONFIG_H
#define KB_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <git2.h>

struct kb_kconfig {
	char **symbols;		/* sorted, without "CONFIG_" */
	size_t n;
};

/* The symbols of `tree` in `repo`, from <cache_dir>/<tree id> when an
 * earlier call wrote it (cache_dir may be NULL: no cache). */
int kb_kconfig_load(struct kb_kconfig *out, git_repository *repo, const git_oid *tree,
		    const char *cache_dir);
void kb_kconfig_release(struct kb_kconfig *k);

bool kb_kconfig_has(const struct kb_kconfig *k, const char *symbol);

/*
 * The first option a config fragment's text names (CONFIG_X=..., "# CONFIG_X
 * is not set") that `k` does not know, as a malloc'ed "CONFIG_X" in *out;
 * NULL when it knows every one.
 */
int kb_kconfig_first_unknown(char **out, const struct kb_kconfig *k, const char *fragment);

/*
 * The value a .config text gives option `name` (`len` bytes, "CONFIG_X"),
 * from its "CONFIG_X=value" line, `*vlen` bytes long; "not set" when it has
 * none.
 */
const char *kb_config_value(const char *config, const char *name, size_t len, size_t *vlen);

#endif
