/*
 * kbackport-guest: the /init of kbackport's test initramfs.
 *
 * It runs the capability checks of CVE-2011-1019 in the booted kernel and
 * prints them as KTAP on the console, then reboots (QEMU runs with
 * -no-reboot, so that ends it). Each case forks a child that drops
 * capabilities the way `capsh --drop` does and asks the kernel for a device
 * or a congestion control by name; the parent then reads /proc/modules to
 * see what the kernel's request_module() loaded, and removes it again.
 *
 * The name asked for is the probe module: a module that is no network
 * device, which CAP_NET_ADMIN alone must not be able to load. It is the
 * first of PROBE_MODULES this kernel has: xfs (the article's example) where
 * it is there, as in a distribution's kernel, else crc7, which every kernel
 * since 2.6.23 can build and which costs one small file instead of xfs's
 * hundred large ones in the kernels kbackport builds to test.
 *
 * It mounts file systems, loads and removes modules and reboots, so it
 * refuses to run anywhere but as PID 1 of a kernel booted with
 * kbackport.guest=1 on its command line (exit status 2 otherwise).
 *
 * Built by kbackport with `cc -static -O2 -Wall -Wextra`; no libraries.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define MARKER "kbackport.guest=1"
#define SUITE "kbackport_caps"
#define CASE_TIMEOUT 60		/* seconds: a case that hangs must not eat the run */
#define SETUP_FAILED 3		/* a child's exit status when it could not act */
#define NOT_SUPPORTED 4		/* ... when the kernel lacks what the case needs */

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef SYSLOG_ACTION_CONSOLE_LEVEL
#define SYSLOG_ACTION_CONSOLE_LEVEL 8
#endif

enum caps { CAPS_NONE, CAPS_NET_ADMIN, CAPS_ALL };
enum action { ACT_IFFLAGS, ACT_TCP_CONGESTION };
enum expect {
	NOT_LOADED,	/* `module` must not be loaded afterwards */
	LOADED,		/* `module` must be loaded afterwards */
	NOTHING_NEW,	/* no module at all may be loaded */
};

struct test_case {
	const char *name;
	enum caps caps;
	bool userns;		/* in a new user + network namespace */
	enum action action;
	const char *arg;	/* the interface or congestion control name */
	enum expect expect;
	const char *module;
};

/* PROBE in a case stands for the probe module this kernel has. */
#define PROBE "@probe"
static const char *const probe_modules[] = { "xfs", "crc7" };

static const struct test_case cases[] = {
	{ "net_admin_ifflags_module_not_loaded", CAPS_NET_ADMIN, false, ACT_IFFLAGS, PROBE,
	  NOT_LOADED, PROBE },
	{ "net_admin_ifflags_sit0_loads_sit", CAPS_NET_ADMIN, false, ACT_IFFLAGS, "sit0",
	  LOADED, "sit" },
	{ "all_caps_ifflags_module_loads_it", CAPS_ALL, false, ACT_IFFLAGS, PROBE,
	  LOADED, PROBE },
	{ "no_caps_ifflags_nothing_loaded", CAPS_NONE, false, ACT_IFFLAGS, PROBE,
	  NOTHING_NEW, NULL },
	{ "net_admin_tcp_congestion_module_not_loaded", CAPS_NET_ADMIN, false, ACT_TCP_CONGESTION,
	  PROBE, NOT_LOADED, PROBE },
	{ "userns_net_admin_ifflags_nothing_loaded", CAPS_NET_ADMIN, true, ACT_IFFLAGS, PROBE,
	  NOTHING_NEW, NULL },
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* ---- module lists ---- */

#define MAX_MODULES 1024
#define MODNAME_LEN 64

struct modset {
	char name[MAX_MODULES][MODNAME_LEN];
	size_t n;
};

static int modset_read(struct modset *set)
{
	char line[512];
	FILE *f = fopen("/proc/modules", "re");

	set->n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && set->n < MAX_MODULES) {
		line[strcspn(line, " \n")] = '\0';
		snprintf(set->name[set->n++], MODNAME_LEN, "%.*s", MODNAME_LEN - 1, line);
	}
	fclose(f);
	return 0;
}

static bool modset_has(const struct modset *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->name[i], name))
			return true;
	return false;
}

/* The names in `after` that are not in `before`, space-separated, or "none". */
static void modset_new(char *out, size_t size, const struct modset *before,
		       const struct modset *after)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < after->n && len < size; i++)
		if (!modset_has(before, after->name[i]))
			len += snprintf(out + len, size - len, "%s%s", len ? " " : "",
					after->name[i]);
	if (!out[0])
		snprintf(out, size, "none");
}

/*
 * Remove every module not in `baseline`: a pass removes what nothing uses
 * any more, so passes repeat until nothing is left or a pass removes none.
 * Returns the number left over.
 */
static size_t remove_new_modules(const struct modset *baseline, struct modset *scratch)
{
	size_t left = 0, removed = 1;

	while (removed) {
		removed = left = 0;
		if (modset_read(scratch) < 0)
			return 0;
		for (size_t i = 0; i < scratch->n; i++) {
			if (modset_has(baseline, scratch->name[i]))
				continue;
			if (syscall(SYS_delete_module, scratch->name[i], O_NONBLOCK) == 0)
				removed++;
			else
				left++;
		}
	}
	return left;
}

/* ---- the probe module ---- */

static char probe[MODNAME_LEN];	/* the probe module's name, "" when none */

/* `name` as modules.dep's first column writes it: ".../<name>.ko[.xz|.gz|.zst]". */
static bool dep_names(const char *path, const char *name)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(name);

	return !strncmp(base, name, n) && !strncmp(base + n, ".ko", 3) &&
	       (base[n + 3] == '\0' || base[n + 3] == '.');
}

/* modules.dep of the running kernel names `name`, and its file is here. */
static bool have_module(const char *name)
{
	char path[1536], line[1024];
	struct utsname u;
	bool found = false;
	FILE *f;

	if (uname(&u) < 0)
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, ":\n")] = '\0';
		if (dep_names(line, name)) {
			snprintf(path, sizeof(path), "/lib/modules/%s/%s", u.release, line);
			found = access(path, R_OK) == 0;
		}
	}
	fclose(f);
	return found;
}

/* The first of probe_modules this kernel has; said on the console either way. */
static void choose_probe(void)
{
	for (size_t i = 0; i < sizeof(probe_modules) / sizeof(*probe_modules); i++)
		if (have_module(probe_modules[i])) {
			snprintf(probe, sizeof(probe), "%s", probe_modules[i]);
			printf("    # probe module: %s (the first of xfs, crc7 this kernel has)\n", probe);
			return;
		}
	printf("    # probe module: none of xfs, crc7 is in this kernel's modules.dep\n");
}

/* A case's name or module, with PROBE replaced. */
static const char *arg_of(const char *arg)
{
	return arg && !strcmp(arg, PROBE) ? probe : arg;
}

/* ---- the child: drop capabilities, then act ---- */

/* Diagnostics go to the parent through `fd`, one line each. */
static int report(int fd, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	return write(fd, line, (size_t)n) == n ? 0 : -1;
}

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = -1;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = -1;
		fclose(f);
	}
	return last >= 0 && last < 64 ? last : CAP_LAST_CAP;
}

/*
 * What `capsh --drop=<all but keep>` leaves: the bounding set without the
 * dropped capabilities; then, as no exec follows here, the effective,
 * permitted and inheritable sets set to `keep` directly; no ambient ones.
 */
static int drop_caps(int fd, enum caps caps)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2], check[2];
	unsigned long long keep = caps == CAPS_NET_ADMIN ? 1ULL << CAP_NET_ADMIN : 0;
	int cap, last = last_cap();

	if (caps == CAPS_ALL)
		return 0;
	/*
	 * Old kernels (2.6.x: "For init, we want to retain the capabilities
	 * set in the initial task" in security/commoncap.c) keep the boot
	 * task's effective set across the exec of /init: all but CAP_SETPCAP,
	 * which PR_CAPBSET_DROP needs. The permitted set has it: raise the
	 * effective set to the permitted one first.
	 */
	if (syscall(SYS_capget, &hdr, data) < 0)
		return report(fd, "setup: capget: %s", strerror(errno)), -1;
	for (int i = 0; i < 2; i++)
		data[i].effective = data[i].permitted;
	if (syscall(SYS_capset, &hdr, data) < 0)
		return report(fd, "setup: raising the effective set: %s", strerror(errno)), -1;
	for (cap = 0; cap <= last; cap++)
		if (!(keep & (1ULL << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 &&
		    errno != EINVAL)
			return report(fd, "setup: PR_CAPBSET_DROP %d: %s", cap, strerror(errno)), -1;
	for (int i = 0; i < 2; i++) {
		data[i].effective = data[i].permitted = data[i].inheritable =
			(unsigned)(keep >> (32 * i));
	}
	if (syscall(SYS_capset, &hdr, data) < 0)
		return report(fd, "setup: capset: %s", strerror(errno)), -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return report(fd, "setup: clearing ambient capabilities: %s", strerror(errno)), -1;
	if (syscall(SYS_capget, &hdr, check) < 0 || check[0].effective != data[0].effective ||
	    check[1].effective != data[1].effective)
		return report(fd, "setup: capabilities not as set after capset"), -1;
	return 0;
}

static int act(int fd, const struct test_case *tc)
{
	int sock, rc;

	if (tc->action == ACT_IFFLAGS) {
		struct ifreq ifr;

		if ((sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
			return report(fd, "setup: socket(AF_INET, SOCK_DGRAM): %s", strerror(errno)), -1;
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", arg_of(tc->arg));
		rc = ioctl(sock, SIOCGIFFLAGS, &ifr);
		report(fd, "ioctl(SIOCGIFFLAGS, \"%s\"): %s", arg_of(tc->arg),
		       rc ? strerror(errno) : "ok");
	} else {
		if ((sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			return report(fd, "setup: socket(AF_INET, SOCK_STREAM): %s", strerror(errno)), -1;
		rc = setsockopt(sock, IPPROTO_TCP, TCP_CONGESTION, arg_of(tc->arg),
				strlen(arg_of(tc->arg)));
		report(fd, "setsockopt(TCP_CONGESTION, \"%s\"): %s", arg_of(tc->arg),
		       rc ? strerror(errno) : "ok");
	}
	close(sock);
	return 0;
}

static void child(int fd, const struct test_case *tc)
{
	alarm(CASE_TIMEOUT);
	if (tc->userns && unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
		/* EINVAL: a kernel without (unshare-able) user or network
		 * namespaces, such as 2.6.32: the case cannot exist there */
		report(fd, "%sunshare(CLONE_NEWUSER | CLONE_NEWNET): %s",
		       errno == EINVAL ? "this kernel has no user namespaces: " : "setup: ",
		       strerror(errno));
		_exit(errno == EINVAL ? NOT_SUPPORTED : SETUP_FAILED);
	}
	if (drop_caps(fd, tc->caps) < 0 || act(fd, tc) < 0)
		_exit(SETUP_FAILED);
	_exit(0);
}

/* ---- the parent: run a case, judge it, print its result ---- */

struct outcome {
	char diag[2048];	/* "# " lines, each ending in a newline */
	size_t len;
};

static void diag(struct outcome *o, const char *fmt, ...)
{
	size_t room = sizeof(o->diag) - o->len;
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = snprintf(o->diag + o->len, room, "    # %s\n", line);
	if (n > 0)
		o->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* The child's lines (pipe) become diagnostics; returns its wait status or -1. */
static int run_child(struct outcome *o, const struct test_case *tc)
{
	char buf[1024], *line, *nl;
	size_t have = 0;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return diag(o, "setup: pipe: %s", strerror(errno)), -1;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		diag(o, "setup: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], tc);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + have, sizeof(buf) - 1 - have)) > 0 ||
	       (n < 0 && errno == EINTR)) {
		have += n > 0 ? (size_t)n : 0;
		buf[have] = '\0';
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = '\0';
			diag(o, "%s", line);
		}
		have = strlen(line);
		memmove(buf, line, have + 1);
		if (have == sizeof(buf) - 1)
			have = 0;	/* an overlong line: drop it */
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return diag(o, "setup: waitpid: %s", strerror(errno)), -1;
	return status;
}

static bool judge(struct outcome *o, const struct test_case *tc,
		  const struct modset *before, const struct modset *after)
{
	char loaded[1024];
	bool ok;

	modset_new(loaded, sizeof(loaded), before, after);
	switch (tc->expect) {
	case NOT_LOADED:
		ok = !modset_has(after, arg_of(tc->module));
		if (!ok)
			diag(o, "expected: %s not loaded", arg_of(tc->module));
		break;
	case LOADED:
		ok = modset_has(after, arg_of(tc->module));
		if (!ok)
			diag(o, "expected: %s loaded", arg_of(tc->module));
		break;
	default:
		ok = !strcmp(loaded, "none");
		if (!ok)
			diag(o, "expected: no module loaded");
		break;
	}
	if (!ok)
		diag(o, "loaded by this case: %s", loaded);
	return ok;
}

/* A case the kernel cannot have: "ok N name # SKIP <the child's reason>". */
static void skip_case(unsigned nr, const struct test_case *tc, const struct outcome *o)
{
	const char *why = strstr(o->diag, "# ") ? strstr(o->diag, "# ") + 2 : "not supported";

	printf("    ok %u %s # SKIP %.*s\n", nr, tc->name, (int)strcspn(why, "\n"), why);
	fflush(stdout);
}

enum case_result { CASE_FAIL, CASE_PASS, CASE_SKIP };

static enum case_result run_case(unsigned nr, const struct test_case *tc,
				 const struct modset *baseline)
{
	static struct modset before, after;
	struct outcome o = { .len = 0 };
	char note[128] = "";
	bool ok = false;
	size_t left;
	int status;

	o.diag[0] = '\0';
	if (!strcmp(tc->arg, PROBE) && !probe[0]) {
		diag(&o, "setup: no probe module (xfs or crc7) in this kernel: build one as a module");
	} else if (modset_read(&before) < 0) {
		diag(&o, "setup: cannot read /proc/modules: %s", strerror(errno));
	} else if ((status = run_child(&o, tc)) == -1) {
		/* the reason is in the diagnostics */
	} else if (WIFSIGNALED(status)) {
		diag(&o, "setup: the case was killed by signal %d%s", WTERMSIG(status),
		     WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
	} else if (WEXITSTATUS(status) == NOT_SUPPORTED) {
		skip_case(nr, tc, &o);
		return CASE_SKIP;
	} else if (WEXITSTATUS(status) != 0) {
		diag(&o, "setup failed: the case could not run");
	} else if (modset_read(&after) < 0) {
		diag(&o, "setup: cannot read /proc/modules: %s", strerror(errno));
	} else {
		ok = judge(&o, tc, &before, &after);
	}
	/* The next case starts from the baseline again; what stays is worth a note. */
	if ((left = remove_new_modules(baseline, &after)) > 0)
		snprintf(note, sizeof(note), "    # %zu module(s) loaded here could not be removed\n",
			 left);
	/* diagnostics come before the result line they belong to, as KUnit prints them */
	printf("%s%s    %s %u %s\n", ok ? "" : o.diag, note, ok ? "ok" : "not ok", nr, tc->name);
	fflush(stdout);
	return ok ? CASE_PASS : CASE_FAIL;
}

static int run_suite(void)
{
	static struct modset baseline;
	unsigned pass = 0, skip = 0;
	enum case_result r;

	if (modset_read(&baseline) < 0)
		baseline.n = 0;
	printf("KTAP version 1\n1..1\n");
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", SUITE, N_CASES);
	choose_probe();
	for (size_t i = 0; i < N_CASES; i++) {
		r = run_case((unsigned)i + 1, &cases[i], &baseline);
		pass += r == CASE_PASS;
		skip += r == CASE_SKIP;
	}
	printf("# %s: pass:%u fail:%zu skip:%u total:%zu\n", SUITE, pass,
	       N_CASES - pass - skip, skip, N_CASES);
	printf("%s 1 %s\n", pass + skip == N_CASES ? "ok" : "not ok", SUITE);
	fflush(stdout);
	return pass + skip == N_CASES ? 0 : 1;
}

/* ---- PID 1 ---- */

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/*
 * Standard input, output and error on /dev/console. The kernel opens it
 * for init only when the initramfs has the node; devtmpfs has it, and
 * mknod covers a kernel without devtmpfs.
 */
static void console_setup(void)
{
	int fd;

	if (fd_open(0) && fd_open(1) && fd_open(2))
		return;
	if ((fd = open("/dev/console", O_RDWR | O_NOCTTY)) < 0 && errno == ENOENT &&
	    mknod("/dev/console", S_IFCHR | 0600, makedev(5, 1)) == 0)
		fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;
	for (int i = 0; i < 3; i++)
		if (!fd_open(i) || i == fd)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

static void mount_fs(const char *source, const char *target, const char *type)
{
	mkdir(target, 0755);
	if (mount(source, target, type, MS_NOSUID | MS_NOEXEC, NULL) < 0 && errno != EBUSY)
		fprintf(stderr, "kbackport-guest: mount %s on %s: %s\n", type, target,
			strerror(errno));
}

static bool cmdline_has_marker(void)
{
	char line[4096], *p;
	FILE *f = fopen("/proc/cmdline", "re");
	size_t n;

	if (!f)
		return false;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	for (p = line; (p = strstr(p, MARKER)); p += strlen(MARKER))
		if ((p == line || p[-1] == ' ') && (p[strlen(MARKER)] == ' ' || !p[strlen(MARKER)]))
			return true;
	return false;
}

__attribute__((noreturn)) static void end(void)
{
	fflush(NULL);
	sync();
	reboot(RB_AUTOBOOT);
	/* Not allowed to reboot: leaving PID 1 panics, and panic=-1 reboots. */
	fprintf(stderr, "kbackport-guest: reboot: %s\n", strerror(errno));
	_exit(2);
}

int main(void)
{
	if (getpid() != 1) {
		fprintf(stderr, "kbackport-guest: refusing to run: not PID 1 (this is the /init of "
			"a kbackport test initramfs, for a kernel booted with " MARKER ")\n");
		return 2;
	}
	if (access("/proc/cmdline", R_OK) < 0)
		mount_fs("proc", "/proc", "proc");
	if (!cmdline_has_marker()) {
		console_setup();
		fprintf(stderr, "kbackport-guest: refusing to run: '" MARKER "' is not on the "
			"kernel command line\n");
		end();
	}
	mount_fs("devtmpfs", "/dev", "devtmpfs");
	console_setup();
	mount_fs("sysfs", "/sys", "sysfs");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, 1) < 0)
		fprintf(stderr, "kbackport-guest: cannot lower the console log level: %s\n",
			strerror(errno));
	run_suite();
	printf("kbackport-guest: done\n");
	end();
}
