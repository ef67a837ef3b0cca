/*
 * The small net/core/dev.c that test_apply and test_backport carry the fix
 * into: its dev_load() before and after, and the fix's diff between them.
 */
#ifndef DEV_LOAD_FIXTURE_H
#define DEV_LOAD_FIXTURE_H

#define DEV_C "net/core/dev.c"

static const char original[] =
	"#include <linux/kmod.h>\n"
	"\n"
	"void dev_load(struct net *net, const char *name)\n"
	"{\n"
	"\tstruct net_device *dev;\n"
	"\n"
	"\tdev = dev_get_by_name(net, name);\n"
	"\tif (!dev && capable(CAP_NET_ADMIN))\n"
	"\t\trequest_module(\"%s\", name);\n"
	"}\n";

static const char fixed[] =
	"#include <linux/kmod.h>\n"
	"\n"
	"void dev_load(struct net *net, const char *name)\n"
	"{\n"
	"\tstruct net_device *dev;\n"
	"\n"
	"\tdev = dev_get_by_name(net, name);\n"
	"\tif (!dev && capable(CAP_SYS_MODULE))\n"
	"\t\trequest_module(\"%s\", name);\n"
	"}\n";

/* original -> fixed, as git diff writes it */
#define DEV_LOAD_DIFF \
	"diff --git a/net/core/dev.c b/net/core/dev.c\n" \
	"--- a/net/core/dev.c\n" \
	"+++ b/net/core/dev.c\n" \
	"@@ -6,5 +6,5 @@ void dev_load(struct net *net, const char *name)\n" \
	" \n" \
	" \tdev = dev_get_by_name(net, name);\n" \
	"-\tif (!dev && capable(CAP_NET_ADMIN))\n" \
	"+\tif (!dev && capable(CAP_SYS_MODULE))\n" \
	" \t\trequest_module(\"%s\", name);\n" \
	" }\n"

#endif
