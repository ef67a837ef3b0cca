/*
 * Test helper: the text of a one-hunk upstream patch (CVE-2011-1019's
 * change to dev_load(), shortened), as macros to compose from: the mail
 * header with a subject of the test's choice, and the diff. Used by
 * fix_fixture.h and test_fix.c.
 */
#ifndef KB_FIX_PATCH_H
#define KB_FIX_PATCH_H

/* A git format-patch mail header, up to and including the "---" line. */
#define FIX_PATCH_MAIL(subject) \
	"From 8909c9ad8ff03611c9c96c9a92656213e4bb495b Mon Sep 17 00:00:00 2001\n" \
	"From: Vasiliy Kulikov <segoon@openwall.com>\n" \
	"Date: Wed, 2 Mar 2011 00:33:13 +0300\n" \
	"Subject: [PATCH] " subject "\n" \
	"\n" \
	"body...\n" \
	"---\n"

/* The diff: one hunk in net/core/dev.c. */
#define FIX_PATCH_DIFF \
	"diff --git a/net/core/dev.c b/net/core/dev.c\n" \
	"index 1111111..2222222 100644\n" \
	"--- a/net/core/dev.c\n" \
	"+++ b/net/core/dev.c\n" \
	"@@ -1,3 +1,3 @@\n" \
	" void dev_load(struct net *net, const char *name)\n" \
	"-\tif (!dev && capable(CAP_NET_ADMIN))\n" \
	"+\tif (!dev && capable(CAP_SYS_MODULE))\n" \
	" \t\trequest_module(\"%s\", name);\n"

#endif
