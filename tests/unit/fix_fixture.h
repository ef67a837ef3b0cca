/*
 * Test helper: a one-patch fix written into a sandbox (fix.yaml and its
 * upstream.patch), for the tests that load fixes from directories
 * (test_fixset.c, test_session.c). Include after sandbox.h.
 */
#ifndef KB_FIX_FIXTURE_H
#define KB_FIX_FIXTURE_H

static const char patch_text[] =
	"From 8909c9ad8ff03611c9c96c9a92656213e4bb495b Mon Sep 17 00:00:00 2001\n"
	"From: Vasiliy Kulikov <segoon@openwall.com>\n"
	"Date: Wed, 2 Mar 2011 00:33:13 +0300\n"
	"Subject: [PATCH] net: a fix\n"
	"\n"
	"body...\n"
	"---\n"
	"diff --git a/net/core/dev.c b/net/core/dev.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/net/core/dev.c\n"
	"+++ b/net/core/dev.c\n"
	"@@ -1,3 +1,3 @@\n"
	" void dev_load(struct net *net, const char *name)\n"
	"-\tif (!dev && capable(CAP_NET_ADMIN))\n"
	"+\tif (!dev && capable(CAP_SYS_MODULE))\n"
	" \t\trequest_module(\"%s\", name);\n";

/* A fix `id` under `rel` (relative to the sandbox): fix.yaml and its patch. */
static void make_fix(struct sandbox *sb, const char *rel, const char *id)
{
	char path[256], yaml[512];

	snprintf(yaml, sizeof(yaml),
		 "id: %s\nsubject: \"net: a fix\"\n"
		 "upstream: 8909c9ad8ff03611c9c96c9a92656213e4bb495b\npatch: upstream.patch\n", id);
	snprintf(path, sizeof(path), "%s/fix.yaml", rel);
	write_file(sb, path, yaml);
	snprintf(path, sizeof(path), "%s/upstream.patch", rel);
	write_file(sb, path, patch_text);
}

#endif
