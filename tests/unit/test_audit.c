/*
 * Unit tests of the request_module() audit: the scanner on the shapes the
 * CVE-2011-1019 callers took across kernel eras, and kb_audit_tree() on a
 * real temporary repository.
 *
 * The sources below are written for these tests in the kernel's style; the
 * number before each line is its line number in the source.
 */
#include "unit.h"

#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include <git2.h>

#include "audit/audit.h"
#include "fix.h"
#include "sandbox.h"

/* What to look for comes from the fix, as for `kbackport audit`. */
static struct kb_fix *fix;
static const struct kb_audit_rules *rules;

/* 2.6.32 net/core/dev.c: any module, with CAP_NET_ADMIN only. */
static const char dev_2632[] =
/*  1 */ "/**\n"
/*  2 */ " *\tdev_load\t- load a network module\n"
/*  3 */ " *\t@net: the applicable net namespace\n"
/*  4 */ " *\t@name: name of interface\n"
/*  5 */ " *\n"
/*  6 */ " *\tIf a network interface is not present and the process has\n"
/*  7 */ " *\tsuitable privileges this function loads the module, with\n"
/*  8 */ " *\trequest_module(\"x\") in this comment not being a call.\n"
/*  9 */ " */\n"
/* 10 */ "\n"
/* 11 */ "void dev_load(struct net *net, const char *name)\n"
/* 12 */ "{\n"
/* 13 */ "\tstruct net_device *dev;\n"
/* 14 */ "\n"
/* 15 */ "\tread_lock(&dev_base_lock);\n"
/* 16 */ "\tdev = __dev_get_by_name(net, name);\n"
/* 17 */ "\tread_unlock(&dev_base_lock);\n"
/* 18 */ "\n"
/* 19 */ "\tif (!dev && capable(CAP_NET_ADMIN))\n"
/* 20 */ "\t\trequest_module(\"%s\", name);\n"
/* 21 */ "}\n"
/* 22 */ "EXPORT_SYMBOL(dev_load);\n";

/* 2.6.38 net/core/dev.c, the upstream fix with its deprecation message. */
static const char dev_fixed[] =
/*  1 */ "void dev_load(struct net *net, const char *name)\n"
/*  2 */ "{\n"
/*  3 */ "\tstruct net_device *dev;\n"
/*  4 */ "\tint no_module;\n"
/*  5 */ "\n"
/*  6 */ "\trcu_read_lock();\n"
/*  7 */ "\tdev = dev_get_by_name_rcu(net, name);\n"
/*  8 */ "\trcu_read_unlock();\n"
/*  9 */ "\n"
/* 10 */ "\tno_module = !dev;\n"
/* 11 */ "\tif (no_module && capable(CAP_NET_ADMIN))\n"
/* 12 */ "\t\tno_module = request_module(\"netdev-%s\", name);\n"
/* 13 */ "\tif (no_module && capable(CAP_SYS_MODULE)) {\n"
/* 14 */ "\t\tif (!request_module(\"%s\", name))\n"
/* 15 */ "\t\t\tpr_err(\"Loading kernel module for a network device \"\n"
/* 16 */ "\"with CAP_SYS_MODULE (deprecated).  Use CAP_NET_ADMIN and alias netdev-%s \"\n"
/* 17 */ "\"instead\\n\", name);\n"
/* 18 */ "\t}\n"
/* 19 */ "}\n";

/* 6.1 net/core/dev_ioctl.c: the fix without the message. */
static const char dev_61[] =
/*  1 */ "void dev_load(struct net *net, const char *name)\n"
/*  2 */ "{\n"
/*  3 */ "\tstruct net_device *dev;\n"
/*  4 */ "\tint no_module;\n"
/*  5 */ "\n"
/*  6 */ "\trcu_read_lock();\n"
/*  7 */ "\tdev = dev_get_by_name_rcu(net, name);\n"
/*  8 */ "\trcu_read_unlock();\n"
/*  9 */ "\n"
/* 10 */ "\tno_module = !dev;\n"
/* 11 */ "\tif (no_module && capable(CAP_NET_ADMIN))\n"
/* 12 */ "\t\tno_module = request_module(\"netdev-%s\", name);\n"
/* 13 */ "\tif (no_module && capable(CAP_SYS_MODULE))\n"
/* 14 */ "\t\trequest_module(\"%s\", name);\n"
/* 15 */ "}\n"
/* 16 */ "EXPORT_SYMBOL(dev_load);\n";

/* 2.6.32 net/ipv4/tcp_cong.c: two callers, prefix-confined. */
static const char tcp_cong[] =
/*  1 */ "/* Used by sysctl to change default congestion control */\n"
/*  2 */ "int tcp_set_default_congestion_control(const char *name)\n"
/*  3 */ "{\n"
/*  4 */ "\tstruct tcp_congestion_ops *ca;\n"
/*  5 */ "\tint ret = -ENOENT;\n"
/*  6 */ "\n"
/*  7 */ "\tspin_lock(&tcp_cong_list_lock);\n"
/*  8 */ "\tca = tcp_ca_find(name);\n"
/*  9 */ "#ifdef CONFIG_MODULES\n"
/* 10 */ "\tif (!ca && capable(CAP_NET_ADMIN)) {\n"
/* 11 */ "\t\tspin_unlock(&tcp_cong_list_lock);\n"
/* 12 */ "\n"
/* 13 */ "\t\trequest_module(\"tcp_%s\", name);\n"
/* 14 */ "\t\tspin_lock(&tcp_cong_list_lock);\n"
/* 15 */ "\t\tca = tcp_ca_find(name);\n"
/* 16 */ "\t}\n"
/* 17 */ "#endif\n"
/* 18 */ "\n"
/* 19 */ "\tif (ca) {\n"
/* 20 */ "\t\tca->flags |= TCP_CONG_NON_RESTRICTED;\t/* default is allowed */\n"
/* 21 */ "\t\tlist_move(&ca->list, &tcp_cong_list);\n"
/* 22 */ "\t\tret = 0;\n"
/* 23 */ "\t}\n"
/* 24 */ "\tspin_unlock(&tcp_cong_list_lock);\n"
/* 25 */ "\n"
/* 26 */ "\treturn ret;\n"
/* 27 */ "}\n"
/* 28 */ "\n"
/* 29 */ "/* Change congestion control for socket */\n"
/* 30 */ "int tcp_set_congestion_control(struct sock *sk, const char *name)\n"
/* 31 */ "{\n"
/* 32 */ "\tstruct inet_connection_sock *icsk = inet_csk(sk);\n"
/* 33 */ "\tstruct tcp_congestion_ops *ca;\n"
/* 34 */ "\tint err = 0;\n"
/* 35 */ "\n"
/* 36 */ "\trcu_read_lock();\n"
/* 37 */ "\tca = tcp_ca_find(name);\n"
/* 38 */ "\n"
/* 39 */ "\t/* no change asking for existing value */\n"
/* 40 */ "\tif (ca == icsk->icsk_ca_ops)\n"
/* 41 */ "\t\tgoto out;\n"
/* 42 */ "\n"
/* 43 */ "#ifdef CONFIG_MODULES\n"
/* 44 */ "\t/* not found attempt to autoload module */\n"
/* 45 */ "\tif (!ca && capable(CAP_NET_ADMIN)) {\n"
/* 46 */ "\t\trcu_read_unlock();\n"
/* 47 */ "\t\trequest_module(\"tcp_%s\", name);\n"
/* 48 */ "\t\trcu_read_lock();\n"
/* 49 */ "\t\tca = tcp_ca_find(name);\n"
/* 50 */ "\t}\n"
/* 51 */ "#endif\n"
/* 52 */ "\tif (!ca)\n"
/* 53 */ "\t\terr = -ENOENT;\n"
/* 54 */ "\n"
/* 55 */ "\telse if (!((ca->flags & TCP_CONG_NON_RESTRICTED) || capable(CAP_NET_ADMIN)))\n"
/* 56 */ "\t\terr = -EPERM;\n"
/* 57 */ "\n"
/* 58 */ "\telse if (!try_module_get(ca->owner))\n"
/* 59 */ "\t\terr = -EBUSY;\n"
/* 60 */ "\n"
/* 61 */ "\telse {\n"
/* 62 */ "\t\ttcp_cleanup_congestion_control(sk);\n"
/* 63 */ "\t\ticsk->icsk_ca_ops = ca;\n"
/* 64 */ "\n"
/* 65 */ "\t\tif (sk->sk_state != TCP_CLOSE && icsk->icsk_ca_ops->init)\n"
/* 66 */ "\t\t\ticsk->icsk_ca_ops->init(sk);\n"
/* 67 */ "\t}\n"
/* 68 */ " out:\n"
/* 69 */ "\trcu_read_unlock();\n"
/* 70 */ "\treturn err;\n"
/* 71 */ "}\n";

/* 2.6.32 staging comedi_fops.c: gated by early exits, under CONFIG_KMOD. */
static const char comedi[] =
/*  1 */ "static int comedi_open(struct inode *inode, struct file *file)\n"
/*  2 */ "{\n"
/*  3 */ "\tconst unsigned minor = iminor(inode);\n"
/*  4 */ "\tstruct comedi_device_file_info *dev_file_info =\n"
/*  5 */ "\t    comedi_get_device_file_info(minor);\n"
/*  6 */ "\tstruct comedi_device *dev =\n"
/*  7 */ "\t    dev_file_info ? dev_file_info->device : NULL;\n"
/*  8 */ "\n"
/*  9 */ "\tif (dev == NULL) {\n"
/* 10 */ "\t\tDPRINTK(\"invalid minor number\\n\");\n"
/* 11 */ "\t\treturn -ENODEV;\n"
/* 12 */ "\t}\n"
/* 13 */ "\n"
/* 14 */ "\t/* This is slightly hacky, but we want module autoloading\n"
/* 15 */ "\t * to work for root.\n"
/* 16 */ "\t * case: user opens device, attached -> ok\n"
/* 17 */ "\t */\n"
/* 18 */ "\tmutex_lock(&dev->mutex);\n"
/* 19 */ "\tif (dev->attached)\n"
/* 20 */ "\t\tgoto ok;\n"
/* 21 */ "\tif (!capable(CAP_NET_ADMIN) && dev->in_request_module) {\n"
/* 22 */ "\t\tDPRINTK(\"in request module\\n\");\n"
/* 23 */ "\t\tmutex_unlock(&dev->mutex);\n"
/* 24 */ "\t\treturn -ENODEV;\n"
/* 25 */ "\t}\n"
/* 26 */ "\tif (capable(CAP_NET_ADMIN) && dev->in_request_module)\n"
/* 27 */ "\t\tgoto ok;\n"
/* 28 */ "\n"
/* 29 */ "\tdev->in_request_module = 1;\n"
/* 30 */ "\n"
/* 31 */ "#ifdef CONFIG_KMOD\n"
/* 32 */ "\tmutex_unlock(&dev->mutex);\n"
/* 33 */ "\trequest_module(\"char-major-%i-%i\", COMEDI_MAJOR, dev->minor);\n"
/* 34 */ "\tmutex_lock(&dev->mutex);\n"
/* 35 */ "#endif\n"
/* 36 */ "\n"
/* 37 */ "\tdev->in_request_module = 0;\n"
/* 38 */ "\n"
/* 39 */ "\tif (!dev->attached && !capable(CAP_SYS_ADMIN)) {\n"
/* 40 */ "\t\tDPRINTK(\"not attached and not CAP_SYS_ADMIN\\n\");\n"
/* 41 */ "\t\tmutex_unlock(&dev->mutex);\n"
/* 42 */ "\t\treturn -ENODEV;\n"
/* 43 */ "\t}\n"
/* 44 */ "ok:\n"
/* 45 */ "\t__module_get(THIS_MODULE);\n"
/* 46 */ "\n"
/* 47 */ "\tif (dev->attached && dev->use_count == 0 && dev->open) {\n"
/* 48 */ "\t\tint rc = dev->open(dev);\n"
/* 49 */ "\t\tif (rc < 0) {\n"
/* 50 */ "\t\t\tmodule_put(THIS_MODULE);\n"
/* 51 */ "\t\t\tmutex_unlock(&dev->mutex);\n"
/* 52 */ "\t\t\treturn rc;\n"
/* 53 */ "\t\t}\n"
/* 54 */ "\t}\n"
/* 55 */ "\n"
/* 56 */ "\tdev->use_count++;\n"
/* 57 */ "\tmutex_unlock(&dev->mutex);\n"
/* 58 */ "\treturn 0;\n"
/* 59 */ "}\n";

/* include/linux/kmod.h-like: declarations and macros, no call. */
static const char kmod_h[] =
/*  1 */ "#ifndef __LINUX_KMOD_H__\n"
/*  2 */ "#define __LINUX_KMOD_H__\n"
/*  3 */ "\n"
/*  4 */ "#ifdef CONFIG_MODULES\n"
/*  5 */ "extern char modprobe_path[]; /* for sysctl */\n"
/*  6 */ "/* modprobe exit status on success, -ve on error.  Return value\n"
/*  7 */ " * usually useless though. */\n"
/*  8 */ "extern __printf(2, 3)\n"
/*  9 */ "int __request_module(bool wait, const char *name, ...);\n"
/* 10 */ "#define request_module(mod...) __request_module(true, mod)\n"
/* 11 */ "#define request_module_nowait(mod...) \\\n"
/* 12 */ "\t__request_module(false, mod)\n"
/* 13 */ "#define try_then_request_module(x, mod...) \\\n"
/* 14 */ "\t((x) ?: (__request_module(true, mod), (x)))\n"
/* 15 */ "#else\n"
/* 16 */ "static inline int request_module(const char *name, ...) { return -ENOSYS; }\n"
/* 17 */ "static inline int request_module_nowait(const char *name, ...) { return -ENOSYS; }\n"
/* 18 */ "#define try_then_request_module(x, mod...) (x)\n"
/* 19 */ "#endif\n"
/* 20 */ "\n"
/* 21 */ "#endif /* __LINUX_KMOD_H__ */\n";

/* Definitions, comments, strings, __request_module, ns_capable, no guard. */
static const char misc[] =
/*  1 */ "#include <linux/kmod.h>\n"
/*  2 */ "// request_module(\"in-a-comment-%s\", x);\n"
/*  3 */ "static const char doc[] = \"request_module(\\\"%s\\\", name)\";\n"
/*  4 */ "static const char q = '\"';\n"
/*  5 */ "\n"
/*  6 */ "int __request_module(bool wait, const char *fmt, ...)\n"
/*  7 */ "{\n"
/*  8 */ "\tva_list args;\n"
/*  9 */ "\tchar module_name[MODULE_NAME_LEN];\n"
/* 10 */ "\n"
/* 11 */ "\tva_start(args, fmt);\n"
/* 12 */ "\tvsnprintf(module_name, MODULE_NAME_LEN, fmt, args);\n"
/* 13 */ "\tva_end(args);\n"
/* 14 */ "\treturn call_modprobe(module_name, wait ? UMH_WAIT_PROC : UMH_WAIT_EXEC);\n"
/* 15 */ "}\n"
/* 16 */ "\n"
/* 17 */ "static struct file_system_type *get_fs_type(const char *name)\n"
/* 18 */ "{\n"
/* 19 */ "\tstruct file_system_type *fs = __get_fs_type(name, strlen(name));\n"
/* 20 */ "\n"
/* 21 */ "\tif (!fs && (__request_module(true, \"fs-%s\", name) == 0))\n"
/* 22 */ "\t\tfs = __get_fs_type(name, strlen(name));\n"
/* 23 */ "\treturn fs;\n"
/* 24 */ "}\n"
/* 25 */ "\n"
/* 26 */ "static int nfct_load(struct net *net, const char *name)\n"
/* 27 */ "{\n"
/* 28 */ "\tif (ns_capable(net->user_ns, CAP_NET_ADMIN))\n"
/* 29 */ "\t\treturn request_module(\"nfct-helper-%s\", name);\n"
/* 30 */ "\treturn -EPERM;\n"
/* 31 */ "}\n"
/* 32 */ "\n"
/* 33 */ "static void crypto_probe(const char *name)\n"
/* 34 */ "{\n"
/* 35 */ "\trequest_module_nowait(\"crypto-\" \"%s\", name); /* request_module(\"x\") */\n"
/* 36 */ "\trequest_module(name);\n"
/* 37 */ "\trequest_module(\"100%%-%s\", name);\n"
/* 38 */ "}\n";

/* else branches, "||", nesting, loop macros, #ifndef / #else / #elif. */
static const char guards[] =
/*  1 */ "static void f_else(const char *n)\n"
/*  2 */ "{\n"
/*  3 */ "\tif (!capable(CAP_SYS_ADMIN))\n"
/*  4 */ "\t\tpr_warn(\"no\\n\");\n"
/*  5 */ "\telse\n"
/*  6 */ "\t\trequest_module(\"a-%s\", n);\n"
/*  7 */ "}\n"
/*  8 */ "static void f_or(const char *n, bool x)\n"
/*  9 */ "{\n"
/* 10 */ "\tif (x || capable(CAP_NET_ADMIN))\n"
/* 11 */ "\t\trequest_module(\"b-%s\", n);\n"
/* 12 */ "\tif (!capable(CAP_SYS_ADMIN) || x) {\n"
/* 13 */ "\t\treturn;\n"
/* 14 */ "\t} else {\n"
/* 15 */ "\t\trequest_module(\"c-%s\", n);\n"
/* 16 */ "\t}\n"
/* 17 */ "}\n"
/* 18 */ "static int __init f_nested(struct net *net)\n"
/* 19 */ "{\n"
/* 20 */ "#ifndef CONFIG_FOO\n"
/* 21 */ "\tif (capable(CAP_NET_ADMIN)) {\n"
/* 22 */ "\t\twhile (unlikely(ns_capable(net->user_ns, CAP_SYS_MODULE)))\n"
/* 23 */ "\t\t\tif (!!capable(CAP_NET_RAW))\n"
/* 24 */ "\t\t\t\trequest_module(\"d-%d\", 1);\n"
/* 25 */ "\t}\n"
/* 26 */ "#else\n"
/* 27 */ "\trequest_module(\"e\");\n"
/* 28 */ "#endif\n"
/* 29 */ "#if IS_ENABLED(CONFIG_BAR)\n"
/* 30 */ "\trequest_module(\"f\");\n"
/* 31 */ "#elif !defined(CONFIG_BAZ)\n"
/* 32 */ "\trequest_module(\"g\");\n"
/* 33 */ "#endif\n"
/* 34 */ "\treturn 0;\n"
/* 35 */ "}\n"
/* 36 */ "static void f_gate(void)\n"
/* 37 */ "{\n"
/* 38 */ "\tif (!ns_capable(current_user_ns(), CAP_SYS_MODULE))\n"
/* 39 */ "\t\treturn;\n"
/* 40 */ "\tif (capable(CAP_NET_ADMIN))\n"
/* 41 */ "\t\tpr_info(\"x\\n\");\n"
/* 42 */ "\tlist_for_each_entry(x, &head, list) {\n"
/* 43 */ "\t\tif (x->y && capable(CAP_NET_ADMIN))\n"
/* 44 */ "\t\t\trequest_module(\"h-%s\", x->name);\n"
/* 45 */ "\t}\n"
/* 46 */ "}\n";

/* Alternative #ifdef branches each opening a brace; an #if 0 block. */
static const char ifdefs[] =
/*  1 */ "static int g1(struct sock *sk)\n"
/*  2 */ "{\n"
/*  3 */ "#ifdef CONFIG_A\n"
/*  4 */ "\tif (sk->a) {\n"
/*  5 */ "#else\n"
/*  6 */ "\tif (sk->b && capable(CAP_NET_ADMIN)) {\n"
/*  7 */ "#endif\n"
/*  8 */ "\t\trequest_module(\"i-%s\", sk->name);\n"
/*  9 */ "\t}\n"
/* 10 */ "#if 0\n"
/* 11 */ "\t} unbalanced { { text, don't\n"
/* 12 */ "\trequest_module(\"dead\");\n"
/* 13 */ "#endif\n"
/* 14 */ "\treturn 0;\n"
/* 15 */ "}\n"
/* 16 */ "static int g2(void)\n"
/* 17 */ "{\n"
/* 18 */ "\treturn request_module(\"j-%d\", 2);\n"
/* 19 */ "}\n";

struct want {
	size_t line;
	const char *function;
	const char *callee;
	const char *format;
	const char *prefix;
	bool bare;
	enum kb_guard_kind guard;
	const char *conditional;
	const char *caps[4];	/* NULL-terminated */
};

static void assert_str(const char *got, const char *want)
{
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
}

static void check_call(const struct kb_call *c, const char *path,
		       const struct want *w)
{
	size_t i;

	assert_str(c->path, path);
	assert_int_equal(c->line, w->line);
	assert_str(c->function, w->function);
	assert_str(c->callee, w->callee ? w->callee : "request_module");
	assert_str(c->format, w->format);
	assert_str(c->prefix, w->prefix);
	assert_int_equal(c->bare, w->bare);
	assert_int_equal(c->guard, w->guard);
	assert_str(c->conditional, w->conditional);
	for (i = 0; w->caps[i]; i++) {
		assert_true(i < c->ncaps);
		assert_string_equal(c->caps[i], w->caps[i]);
	}
	assert_int_equal(c->ncaps, i);
}

static void check_scan(const char *src, const struct want *wants, size_t n)
{
	struct kb_call *calls = NULL;
	size_t ncalls = 0, i;

	assert_int_equal(kb_audit_scan(&calls, &ncalls, rules, "f.c", src,
				       strlen(src)), 0);
	assert_int_equal(ncalls, n);
	for (i = 0; i < n; i++)
		check_call(&calls[i], "f.c", &wants[i]);
	kb_calls_free(calls, ncalls);
}

/* The same source before a8f80e8: another capability, same lines. */
static char *subst(const char *src, const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to);
	char *out = malloc(strlen(src) * 2 + 1), *o = out;

	assert_non_null(out);
	while (*src) {
		if (!strncmp(src, from, flen)) {
			memcpy(o, to, tlen);
			o += tlen;
			src += flen;
		} else {
			*o++ = *src++;
		}
	}
	*o = '\0';
	return out;
}

static void test_dev_load_2632(void **state)
{
	const struct want w[] = {
		{ 20, "dev_load", NULL, "%s", "", true, KB_GUARD_DIRECT, NULL,
		  { "CAP_NET_ADMIN" } },
	};
	struct kb_call *calls = NULL;
	size_t n = 0;

	(void)state;
	check_scan(dev_2632, w, 1);
	assert_int_equal(kb_audit_scan(&calls, &n, rules, "net/core/dev.c", dev_2632,
				       strlen(dev_2632)), 0);
	assert_int_equal(n, 1);
	assert_true(kb_call_guarded(&calls[0], rules));
	assert_true(kb_call_flagged(&calls[0], rules));
	kb_calls_free(calls, n);
}

static void test_dev_load_fixed(void **state)
{
	const struct want w[] = {
		{ 12, "dev_load", NULL, "netdev-%s", "netdev-", false,
		  KB_GUARD_DIRECT, NULL, { "CAP_NET_ADMIN" } },
		{ 14, "dev_load", NULL, "%s", "", true, KB_GUARD_DIRECT, NULL,
		  { "CAP_SYS_MODULE" } },
	};
	struct kb_call *calls = NULL;
	size_t n = 0;

	(void)state;
	check_scan(dev_fixed, w, 2);
	/* the bare request is not reachable with CAP_NET_ADMIN any more */
	assert_int_equal(kb_audit_scan(&calls, &n, rules, NULL, dev_fixed,
				       strlen(dev_fixed)), 0);
	assert_int_equal(n, 2);
	assert_true(kb_call_guarded(&calls[0], rules));
	assert_false(kb_call_guarded(&calls[1], rules));
	/* prefixed on CAP_NET_ADMIN, bare on CAP_SYS_MODULE: neither is the pattern */
	assert_false(kb_call_flagged(&calls[0], rules));
	assert_false(kb_call_flagged(&calls[1], rules));
	kb_calls_free(calls, n);
}

static void test_dev_load_61(void **state)
{
	const struct want w[] = {
		{ 12, "dev_load", NULL, "netdev-%s", "netdev-", false,
		  KB_GUARD_DIRECT, NULL, { "CAP_NET_ADMIN" } },
		{ 14, "dev_load", NULL, "%s", "", true, KB_GUARD_DIRECT, NULL,
		  { "CAP_SYS_MODULE" } },
	};

	(void)state;
	check_scan(dev_61, w, 2);
}

static void test_tcp_cong(void **state)
{
	const struct want w[] = {
		{ 13, "tcp_set_default_congestion_control", NULL, "tcp_%s",
		  "tcp_", false, KB_GUARD_DIRECT, "CONFIG_MODULES",
		  { "CAP_NET_ADMIN" } },
		{ 47, "tcp_set_congestion_control", NULL, "tcp_%s", "tcp_",
		  false, KB_GUARD_DIRECT, "CONFIG_MODULES",
		  { "CAP_NET_ADMIN" } },
	};

	(void)state;
	check_scan(tcp_cong, w, 2);
}

static void test_comedi_open(void **state)
{
	const struct want w[] = {
		{ 33, "comedi_open", NULL, "char-major-%i-%i", "char-major-",
		  false, KB_GUARD_FUNCTION, "CONFIG_KMOD",
		  { "CAP_NET_ADMIN" } },
	};
	struct kb_call *calls = NULL;
	size_t n = 0;

	(void)state;
	check_scan(comedi, w, 1);
	assert_int_equal(kb_audit_scan(&calls, &n, rules, NULL, comedi,
				       strlen(comedi)), 0);
	assert_true(kb_call_guarded(&calls[0], rules));
	kb_calls_free(calls, n);
}

/* Before a8f80e8 the same callers checked CAP_SYS_MODULE. */
static void test_pre_a8f80e8(void **state)
{
	const struct want wdev[] = {
		{ 20, "dev_load", NULL, "%s", "", true, KB_GUARD_DIRECT, NULL,
		  { "CAP_SYS_MODULE" } },
	};
	const struct want wtcp[] = {
		{ 13, "tcp_set_default_congestion_control", NULL, "tcp_%s",
		  "tcp_", false, KB_GUARD_DIRECT, "CONFIG_MODULES",
		  { "CAP_SYS_MODULE" } },
		{ 47, "tcp_set_congestion_control", NULL, "tcp_%s", "tcp_",
		  false, KB_GUARD_DIRECT, "CONFIG_MODULES",
		  { "CAP_SYS_MODULE" } },
	};
	const struct want wcom[] = {
		{ 33, "comedi_open", NULL, "char-major-%i-%i", "char-major-",
		  false, KB_GUARD_FUNCTION, "CONFIG_KMOD",
		  { "CAP_SYS_MODULE" } },
	};
	const char *srcs[] = { dev_2632, tcp_cong, comedi };
	const struct want *wants[] = { wdev, wtcp, wcom };
	const size_t counts[] = { 1, 2, 1 };
	size_t i, j, n;
	struct kb_call *calls;
	char *old;

	(void)state;
	for (i = 0; i < 3; i++) {
		old = subst(srcs[i], "CAP_NET_ADMIN", "CAP_SYS_MODULE");
		check_scan(old, wants[i], counts[i]);
		calls = NULL;
		n = 0;
		assert_int_equal(kb_audit_scan(&calls, &n, rules, NULL, old,
					       strlen(old)), 0);
		for (j = 0; j < n; j++)
			assert_false(kb_call_guarded(&calls[j], rules));
		kb_calls_free(calls, n);
		free(old);
	}
}

static void test_not_calls(void **state)
{
	(void)state;
	check_scan(kmod_h, NULL, 0);
	check_scan("int x; /* no call here */\n", NULL, 0);
	/* another function through a pointer; a local prototype */
	check_scan("static void f(struct ops *ops, struct ops o)\n"
		   "{\n"
		   "\tint request_module(const char *fmt, ...);\n"
		   "\tops->request_module(\"%s\", \"x\");\n"
		   "\to.request_module_nowait(\"%s\", \"x\");\n"
		   "}\n", NULL, 0);
}

static void test_misc(void **state)
{
	const struct want w[] = {
		{ 21, "get_fs_type", "__request_module", "fs-%s", "fs-", false,
		  KB_GUARD_NONE, NULL, { NULL } },
		{ 29, "nfct_load", NULL, "nfct-helper-%s", "nfct-helper-", false,
		  KB_GUARD_DIRECT, NULL, { "CAP_NET_ADMIN" } },
		{ 35, "crypto_probe", "request_module_nowait", "crypto-%s",
		  "crypto-", false, KB_GUARD_NONE, NULL, { NULL } },
		{ 36, "crypto_probe", NULL, NULL, NULL, false, KB_GUARD_NONE,
		  NULL, { NULL } },
		{ 37, "crypto_probe", NULL, "100%%-%s", "100%%-", false,
		  KB_GUARD_NONE, NULL, { NULL } },
	};

	(void)state;
	check_scan(misc, w, 5);
}

static void test_guards(void **state)
{
	const struct want w[] = {
		/* else of "if (!capable(X))": X holds */
		{ 6, "f_else", NULL, "a-%s", "a-", false, KB_GUARD_DIRECT, NULL,
		  { "CAP_SYS_ADMIN" } },
		/* "x || capable(X)" does not need X */
		{ 11, "f_or", NULL, "b-%s", "b-", false, KB_GUARD_NONE, NULL,
		  { NULL } },
		{ 15, "f_or", NULL, "c-%s", "c-", false, KB_GUARD_DIRECT, NULL,
		  { "CAP_SYS_ADMIN" } },
		{ 24, "f_nested", NULL, "d-%d", "d-", false, KB_GUARD_DIRECT,
		  "!CONFIG_FOO",
		  { "CAP_NET_ADMIN", "CAP_SYS_MODULE", "CAP_NET_RAW" } },
		{ 27, "f_nested", NULL, "e", "e", false, KB_GUARD_NONE,
		  "CONFIG_FOO", { NULL } },
		{ 30, "f_nested", NULL, "f", "f", false, KB_GUARD_NONE,
		  "CONFIG_BAR", { NULL } },
		{ 32, "f_nested", NULL, "g", "g", false, KB_GUARD_NONE,
		  "!CONFIG_BAZ", { NULL } },
		/* the early return is a gate, the pr_info if is not */
		{ 44, "f_gate", NULL, "h-%s", "h-", false, KB_GUARD_DIRECT, NULL,
		  { "CAP_NET_ADMIN", "CAP_SYS_MODULE" } },
	};

	(void)state;
	check_scan(guards, w, 8);
}

static void test_ifdef_branches(void **state)
{
	const struct want w[] = {
		{ 8, "g1", NULL, "i-%s", "i-", false, KB_GUARD_DIRECT, NULL,
		  { "CAP_NET_ADMIN" } },
		{ 18, "g2", NULL, "j-%d", "j-", false, KB_GUARD_NONE, NULL,
		  { NULL } },
	};

	(void)state;
	check_scan(ifdefs, w, 2);
}

/* Every truncation of every source: no read past the end, no crash. */
static void test_truncated(void **state)
{
	const char *srcs[] = {
		dev_2632, dev_fixed, dev_61, tcp_cong, comedi, kmod_h, misc,
		guards, ifdefs,
	};
	struct kb_call *calls;
	size_t i, len, n;
	char *buf;

	(void)state;
	for (i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		for (len = 0; len <= strlen(srcs[i]); len++) {
			buf = malloc(len ? len : 1);
			assert_non_null(buf);
			memcpy(buf, srcs[i], len);
			calls = NULL;
			n = 0;
			assert_int_equal(kb_audit_scan(&calls, &n, rules, "t.c", buf,
						       len), 0);
			kb_calls_free(calls, n);
			free(buf);
		}
	}
}

/* ---- kb_audit_tree on a real repository ------------------------------ */

struct file {
	const char *path;
	const char *text;
};

static const char drivers_net[] =
	"static int foo_probe(void)\n"
	"{\n"
	"\treturn request_module(\"foo-%d\", 0);\n"
	"}\n";

static const char header_call[] =
	"static inline void hdr(void) { request_module(\"hdr-%s\", \"x\"); }\n";

static git_tree *make_tree(git_repository *repo, const struct file *files,
			   size_t n)
{
	git_index *index = NULL;
	git_index_entry entry;
	git_tree *tree = NULL;
	git_oid oid;
	size_t i;

	assert_int_equal(git_repository_index(&index, repo), 0);
	assert_int_equal(git_index_clear(index), 0);
	for (i = 0; i < n; i++) {
		memset(&entry, 0, sizeof(entry));
		entry.mode = GIT_FILEMODE_BLOB;
		entry.path = files[i].path;
		assert_int_equal(git_blob_create_from_buffer(&entry.id, repo,
			files[i].text, strlen(files[i].text)), 0);
		assert_int_equal(git_index_add(index, &entry), 0);
	}
	assert_int_equal(git_index_write_tree(&oid, index), 0);
	assert_int_equal(git_tree_lookup(&tree, repo, &oid), 0);
	git_index_free(index);
	return tree;
}

static void check_same(const struct kb_call *a, size_t na,
		       const struct kb_call *b, size_t nb)
{
	size_t i, j;

	assert_int_equal(na, nb);
	for (i = 0; i < na; i++) {
		assert_str(a[i].path, b[i].path);
		assert_int_equal(a[i].line, b[i].line);
		assert_str(a[i].function, b[i].function);
		assert_str(a[i].callee, b[i].callee);
		assert_str(a[i].format, b[i].format);
		assert_str(a[i].prefix, b[i].prefix);
		assert_int_equal(a[i].bare, b[i].bare);
		assert_int_equal(a[i].guard, b[i].guard);
		assert_str(a[i].conditional, b[i].conditional);
		assert_int_equal(a[i].ncaps, b[i].ncaps);
		for (j = 0; j < a[i].ncaps; j++)
			assert_string_equal(a[i].caps[j], b[i].caps[j]);
	}
}

static void check_locations(const struct kb_call *calls, size_t n,
			    const char *const *paths, const size_t *lines)
{
	size_t i;

	for (i = 0; i < n; i++) {
		assert_string_equal(calls[i].path, paths[i]);
		assert_int_equal(calls[i].line, lines[i]);
	}
}

/* A fresh sandbox per run: removed by the teardown, kept when the test failed. */
static struct sandbox tree_sandbox;

static int tree_setup(void **state)
{
	if (sandbox_init(&tree_sandbox) < 0)
		return -1;
	*state = tree_sandbox.dir;
	return 0;
}

static int tree_teardown(void **state)
{
	(void)state;
	sandbox_release(&tree_sandbox);
	return 0;
}

static void test_tree(void **state)
{
	const char *dir = *state;
	git_repository *repo = NULL;
	git_tree *t1, *t2;
	struct kb_audit_cache *cache = NULL;
	struct kb_call *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	size_t na = 0, nb = 0, nc = 0, nd = 0;
	const char *const prefixes[] = { "net/", "drivers/staging/" };
	const char *const pa[] = {
		"drivers/staging/comedi/comedi_fops.c", "net/core/dev.c",
		"net/ipv4/tcp_cong.c", "net/ipv4/tcp_cong.c",
	};
	const size_t la[] = { 33, 20, 13, 47 };
	const char *const pall[] = {
		"drivers/net/foo.c", "drivers/staging/comedi/comedi_fops.c",
		"net/core/dev.c", "net/ipv4/tcp_cong.c", "net/ipv4/tcp_cong.c",
	};
	const size_t lall[] = { 3, 33, 20, 13, 47 };
	char *old_comedi = subst(comedi, "CAP_NET_ADMIN", "CAP_SYS_MODULE");
	const struct file f1[] = {
		{ "README", "request_module(\"readme\");\n" },
		{ "drivers/net/foo.c", drivers_net },
		{ "drivers/staging/comedi/comedi_fops.c", comedi },
		{ "include/linux/kmod.h", header_call },
		{ "net/core/dev.c", dev_2632 },
		{ "net/ipv4/tcp_cong.c", tcp_cong },
	};
	const struct file f2[] = {
		{ "drivers/staging/comedi/comedi_fops.c", old_comedi },
		{ "net/core/dev.c", dev_2632 },
		{ "net/ipv4/tcp_cong.c", tcp_cong },
	};

	assert_int_equal(git_repository_init(&repo, dir, 1), 0);
	t1 = make_tree(repo, f1, 6);
	t2 = make_tree(repo, f2, 3);
	assert_int_equal(kb_audit_cache_new(&cache), 0);

	/* prefixes filter, .h and README never scanned, sorted */
	assert_int_equal(kb_audit_tree(&a, &na, repo, t1, prefixes, 2, rules, cache), 0);
	assert_int_equal(na, 4);
	check_locations(a, na, pa, la);
	assert_int_equal(kb_audit_cache_hits(cache), 0);
	assert_int_equal(a[0].guard, KB_GUARD_FUNCTION);
	assert_true(kb_call_guarded(&a[0], rules));

	/* no prefix: everything .c; no cache gives the same results */
	assert_int_equal(kb_audit_tree(&b, &nb, repo, t1, NULL, 0, rules, NULL), 0);
	assert_int_equal(nb, 5);
	check_locations(b, nb, pall, lall);
	check_same(a, na, b + 1, nb - 1);

	/* a second tree sharing dev.c and tcp_cong.c hits the cache twice */
	assert_int_equal(kb_audit_tree(&c, &nc, repo, t2, prefixes, 2, rules, cache), 0);
	assert_int_equal(kb_audit_cache_hits(cache), 2);
	assert_int_equal(nc, 4);
	check_locations(c, nc, pa, la);
	check_same(c + 1, 3, a + 1, 3);
	assert_false(kb_call_guarded(&c[0], rules));

	/* the first tree again: all three files from the cache, appended */
	d = a;
	nd = na;
	a = NULL;
	na = 0;
	assert_int_equal(kb_audit_tree(&d, &nd, repo, t1, prefixes, 2, rules, cache), 0);
	assert_int_equal(kb_audit_cache_hits(cache), 5);
	assert_int_equal(nd, 8);
	check_same(d + 4, 4, d, 4);

	kb_calls_free(b, nb);
	kb_calls_free(c, nc);
	kb_calls_free(d, nd);
	kb_audit_cache_free(cache);
	git_tree_free(t1);
	git_tree_free(t2);
	git_repository_free(repo);
	free(old_comedi);
}

static int setup(void **state)
{
	(void)state;
	if (git_libgit2_init() < 0 || kb_fix_load(&fix, KB_DATADIR "/backports/CVE-2011-1019") < 0)
		return -1;
	rules = fix->audit;
	return rules ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	kb_fix_free(fix);
	git_libgit2_shutdown();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dev_load_2632),
		cmocka_unit_test(test_dev_load_fixed),
		cmocka_unit_test(test_dev_load_61),
		cmocka_unit_test(test_tcp_cong),
		cmocka_unit_test(test_comedi_open),
		cmocka_unit_test(test_pre_a8f80e8),
		cmocka_unit_test(test_not_calls),
		cmocka_unit_test(test_misc),
		cmocka_unit_test(test_guards),
		cmocka_unit_test(test_ifdef_branches),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test_setup_teardown(test_tree, tree_setup,
						tree_teardown),
	};

	return sandbox_run_group_tests(tests, setup, teardown);
}
