// SPDX-License-Identifier: GPL-2.0
/*
 * kbackport_dev_load: which module names the kernel asks for, by capability.
 *
 * CVE-2011-1019: with CAP_NET_ADMIN alone, dev_load() must request only
 * "netdev-<name>" (a network device's alias), never the bare name, which
 * could be any module under /lib/modules; the bare name needs
 * CAP_SYS_MODULE. TCP congestion control is confined to "tcp_<name>" the
 * same way. Each case sets the capabilities capable() sees, then records the
 * names request_module() is called with, through the module_request
 * tracepoint and for this test's task only. modprobe_path points at a helper
 * that does not exist meanwhile: nothing is ever loaded.
 *
 * This is an overlay, never committed to a branch: `kbackport build` adds it
 * to each lane's tree in memory (net/kbackport_kunit/) for the test kernel.
 * One source for 6.1 and 6.12: kernel_cap_t changed in 6.3, so only
 * cap_clear() and cap_raise() touch it.
 */
#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/in.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/sched.h>
#include <linux/socket.h>
#include <linux/sockptr.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/tracepoint.h>
#include <net/net_namespace.h>
#include <trace/events/module.h>

#define NO_DEVICE "kbtest0"	/* no driver, no alias: certainly absent */
#define NO_CC "kbtestcc"	/* no such congestion control */
#define NO_HELPER "/kbackport-kunit/no-such-modprobe"
#define MAX_REQUESTS 8

struct requests {
	struct task_struct *task;	/* whose requests are recorded */
	unsigned int n;			/* may exceed MAX_REQUESTS */
	char name[MAX_REQUESTS][MODULE_NAME_LEN];
};

#define NET_ADMIN	1u
#define SYS_MODULE	2u

static void on_module_request(void *data, char *name, bool wait, unsigned long ip)
{
	struct requests *r = data;

	if (READ_ONCE(r->task) != current)
		return;
	if (r->n < MAX_REQUESTS)
		strscpy(r->name[r->n], name, MODULE_NAME_LEN);
	r->n++;
}

static int dev_load_test_init(struct kunit *test)
{
	struct requests *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	if (!r)
		return -ENOMEM;
	test->priv = r;
	return register_trace_module_request(on_module_request, r);
}

static void dev_load_test_exit(struct kunit *test)
{
	unregister_trace_module_request(on_module_request, test->priv);
	tracepoint_synchronize_unregister();
}

/* Credentials like the current ones, with exactly `caps` effective. */
static struct cred *caps_cred(struct kunit *test, unsigned int caps)
{
	struct cred *cred = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_clear(cred->cap_effective);
	if (caps & NET_ADMIN)
		cap_raise(cred->cap_effective, CAP_NET_ADMIN);
	if (caps & SYS_MODULE)
		cap_raise(cred->cap_effective, CAP_SYS_MODULE);
	cred->cap_permitted = cred->cap_effective;
	return cred;
}

/*
 * Run `action` with `caps`, recording its module requests. Nothing between
 * the changes and their undoing may abort the case: no assertions there.
 */
static int observe(struct kunit *test, unsigned int caps,
		   int (*action)(void *arg), void *arg)
{
	struct requests *r = test->priv;
	struct cred *cred = caps_cred(test, caps);
	char saved[KMOD_PATH_LEN];
	const struct cred *old;
	int ret;

	strscpy(saved, modprobe_path, sizeof(saved));
	strscpy(modprobe_path, NO_HELPER, KMOD_PATH_LEN);
	WRITE_ONCE(r->task, current);
	old = override_creds(cred);

	ret = action(arg);

	revert_creds(old);
	WRITE_ONCE(r->task, NULL);
	strscpy(modprobe_path, saved, KMOD_PATH_LEN);
	put_cred(cred);
	return ret;
}

/* "[a, b]": the recorded names in order. */
static void format_requests(char *buf, size_t size, const struct requests *r)
{
	unsigned int i;
	size_t len;

	len = scnprintf(buf, size, "[");
	for (i = 0; i < r->n && i < MAX_REQUESTS; i++)
		len += scnprintf(buf + len, size - len, "%s%s", i ? ", " : "", r->name[i]);
	if (r->n > MAX_REQUESTS)
		len += scnprintf(buf + len, size - len, ", ... %u in all", r->n);
	scnprintf(buf + len, size - len, "]");
}

static void expect_requests(struct kunit *test, const char *what, const char *want)
{
	char got[MAX_REQUESTS * (MODULE_NAME_LEN + 2) + 32];

	format_requests(got, sizeof(got), test->priv);
	KUNIT_EXPECT_STREQ_MSG(test, got, want, "%s requested %s, expected %s",
			       what, got, want);
}

static int load_name(void *name)
{
	dev_load(&init_net, name);
	return 0;
}

static void net_admin_only_requests_netdev_name(struct kunit *test)
{
	observe(test, NET_ADMIN, load_name, NO_DEVICE);
	expect_requests(test, "dev_load(\"" NO_DEVICE "\") with CAP_NET_ADMIN only",
			"[netdev-" NO_DEVICE "]");
}

static void sys_module_only_requests_bare_name(struct kunit *test)
{
	observe(test, SYS_MODULE, load_name, NO_DEVICE);
	expect_requests(test, "dev_load(\"" NO_DEVICE "\") with CAP_SYS_MODULE only",
			"[" NO_DEVICE "]");
}

static void both_request_netdev_then_bare(struct kunit *test)
{
	observe(test, NET_ADMIN | SYS_MODULE, load_name, NO_DEVICE);
	expect_requests(test,
			"dev_load(\"" NO_DEVICE "\") with CAP_NET_ADMIN and CAP_SYS_MODULE",
			"[netdev-" NO_DEVICE ", " NO_DEVICE "]");
}

static void no_caps_request_nothing(struct kunit *test)
{
	observe(test, 0, load_name, NO_DEVICE);
	expect_requests(test, "dev_load(\"" NO_DEVICE "\") with no capability", "[]");
}

static void existing_device_requests_nothing(struct kunit *test)
{
	observe(test, NET_ADMIN | SYS_MODULE, load_name, "lo");
	expect_requests(test, "dev_load(\"lo\") (it exists) with both capabilities", "[]");
}

static int set_congestion(void *sock)
{
	struct socket *s = sock;

	return s->ops->setsockopt(s, SOL_TCP, TCP_CONGESTION, KERNEL_SOCKPTR(NO_CC),
				  strlen(NO_CC));
}

static void tcp_cong_net_admin_requests_tcp_prefix(struct kunit *test)
{
	struct socket *sock = NULL;
	int ret;

	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &sock), 0);
	ret = observe(test, NET_ADMIN, set_congestion, sock);
	sock_release(sock);
	expect_requests(test, "setsockopt(TCP_CONGESTION, \"" NO_CC "\") with CAP_NET_ADMIN only",
			"[tcp_" NO_CC "]");
	KUNIT_EXPECT_EQ_MSG(test, ret, -ENOENT,
			    "setsockopt(TCP_CONGESTION, \"" NO_CC "\") should fail: no such algorithm");
}

static struct kunit_case dev_load_test_cases[] = {
	KUNIT_CASE(net_admin_only_requests_netdev_name),
	KUNIT_CASE(sys_module_only_requests_bare_name),
	KUNIT_CASE(both_request_netdev_then_bare),
	KUNIT_CASE(no_caps_request_nothing),
	KUNIT_CASE(existing_device_requests_nothing),
	KUNIT_CASE(tcp_cong_net_admin_requests_tcp_prefix),
	{}
};

static struct kunit_suite dev_load_test_suite = {
	.name = "kbackport_dev_load",
	.init = dev_load_test_init,
	.exit = dev_load_test_exit,
	.test_cases = dev_load_test_cases,
};

kunit_test_suites(&dev_load_test_suite);

MODULE_DESCRIPTION("kbackport: module names dev_load() requests, by capability");
MODULE_LICENSE("GPL");
