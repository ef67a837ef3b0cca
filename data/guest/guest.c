/*
 * kbackport-guest: the /init of kbackport's test initramfs.
 *
 * An interpreter of test cases written as data. kbackport writes the cases
 * of the fixes a lane is tested for into the initramfs (CASES_FILE, made
 * from each fix's cases.yaml); this program runs each case over a fixed set
 * of primitives, prints the results as KTAP on the console, then reboots
 * (QEMU runs with -no-reboot, so that ends it). A new kind of test is a new
 * primitive here, once; a new case is a few lines of data.
 *
 * The cases file, one directive a line, words separated by spaces:
 *
 *   suite NAME              a KTAP suite; its cases follow
 *   probe MODULE...         the suite's probe module: the first of these
 *                           this kernel has (in modules.dep, its file here);
 *                           "@probe" in a case stands for it
 *   case NAME               a case; its steps follow, in order, then
 *   expect WHAT...          what must hold after the last step:
 *                             errno E       the last action ended with errno
 *                                           E (a name such as EPERM, or 0)
 *                             loaded M      module M is loaded
 *                             not-loaded M  module M is not loaded
 *                             nothing-new   no module was loaded at all
 *   end
 *
 * Steps (a case runs in a child of this process, as root in the first
 * namespaces until it says otherwise):
 *   load MODULE             modprobe MODULE (as root)
 *   userns                  from here on in a new user + network namespace,
 *                           where the case holds capabilities over its own
 *                           namespaces only
 *   move IFNAME             (after userns) root moves its device IFNAME
 *                           into the case's network namespace
 *   caps none|net_admin|all drop to that capability set, as `capsh --drop`
 *   ifflags NAME            action: ioctl(SIOCGIFFLAGS) on interface NAME
 *   tcp-congestion NAME     action: setsockopt(TCP_CONGESTION, NAME)
 *   link-add IFNAME KIND [ATTR=VALUE]...     action: RTM_NEWLINK, create
 *   link-change IFNAME KIND [ATTR=VALUE]...  action: RTM_NEWLINK on IFNAME
 *   link-del IFNAME                          action: RTM_DELLINK
 * An action other than the last must succeed, but for ifflags and
 * tcp-congestion, whose errors are their point. ATTRs are named per KIND
 * (link_attrs below). A case whose kernel cannot have what a step needs
 * (no user namespaces: unshare() gives EINVAL) is skipped with the reason.
 *
 * It mounts file systems, loads and removes modules and reboots, so it
 * refuses to run anywhere but as PID 1 of a kernel booted with
 * kbackport.guest=1 on its command line (exit status 2 otherwise), but
 * for `--check FILE`, which only reads a cases file and says what is wrong
 * with it (kbackport's tests run that on the host).
 *
 * Built by kbackport with `cc -static -O2 -Wall -Wextra`; no libraries.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
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
#include <time.h>
#include <unistd.h>
/* the kernel's headers after libc's: they leave out what libc defined */
#include <linux/capability.h>
#include <linux/if_link.h>
#include <linux/if_tunnel.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#define MARKER "kbackport.guest=1"
#define CASES_FILE "/kbackport/cases"
#define CASE_TIMEOUT 60		/* seconds: a case that hangs must not eat the run */
#define SETUP_FAILED 3		/* a child's exit status when it could not act */
#define NOT_SUPPORTED 4		/* ... when the kernel lacks what the case needs */
#define PROBE "@probe"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef SYSLOG_ACTION_CONSOLE_LEVEL
#define SYSLOG_ACTION_CONSOLE_LEVEL 8
#endif

/* ---- the cases, as read from the cases file ---- */

#define MAX_WORDS 16
#define MAX_STEPS 32
#define MAX_PROBES 8
#define NAME_LEN 128
#define MODNAME_LEN 64

struct step {
	int argc;
	char *argv[MAX_WORDS];	/* into the file's text */
	unsigned line;
};

struct test_case {
	char *name;
	struct step steps[MAX_STEPS];
	size_t nsteps;
	struct step expect;
};

struct suite {
	char *name;
	char *probes[MAX_PROBES];
	size_t nprobes;
	char probe[MODNAME_LEN];	/* the one this kernel has, "" when none */
	struct test_case *cases;
	size_t ncases;
};

struct plan {
	const char *path;
	char *text;		/* the file, cut into words in place */
	struct suite *suites;
	size_t nsuites;
	char error[512];	/* what is wrong with the file, "" when nothing */
};

/* Primitives: the step and expect words, with their word counts. */
struct verb {
	const char *name;
	int min, max;		/* words after the verb */
	bool action;		/* its errno is a result */
};

static const struct verb step_verbs[] = {
	{ "load", 1, 1, false },
	{ "userns", 0, 0, false },
	{ "move", 1, 1, false },
	{ "caps", 1, 1, false },
	{ "ifflags", 1, 1, true },
	{ "tcp-congestion", 1, 1, true },
	{ "link-add", 2, MAX_WORDS - 1, true },
	{ "link-change", 2, MAX_WORDS - 1, true },
	{ "link-del", 1, 1, true },
};

static const struct verb expect_verbs[] = {
	{ "errno", 1, 1, false },
	{ "loaded", 1, 1, false },
	{ "not-loaded", 1, 1, false },
	{ "nothing-new", 0, 0, false },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const struct verb *find_verb(const struct verb *verbs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

static bool is(const struct step *s, const char *verb)
{
	return s->argc > 0 && !strcmp(s->argv[0], verb);
}

/* ---- link kinds and their attributes (IFLA_INFO_DATA) ---- */

enum vtype { V_U8, V_U16, V_BE16, V_U32, V_BE32, V_IN4, V_IN6 };

struct link_attr {
	const char *kinds;	/* space-separated link kinds */
	const char *name;
	unsigned short type;
	enum vtype vtype;
};

static const struct link_attr link_attrs[] = {
	{ "vxlan", "id", IFLA_VXLAN_ID, V_U32 },
	{ "vxlan", "remote", IFLA_VXLAN_GROUP, V_IN4 },
	{ "vxlan", "local", IFLA_VXLAN_LOCAL, V_IN4 },
	{ "vxlan", "ttl", IFLA_VXLAN_TTL, V_U8 },
	{ "vxlan", "dstport", IFLA_VXLAN_PORT, V_BE16 },
	{ "geneve", "id", IFLA_GENEVE_ID, V_U32 },
	{ "geneve", "remote", IFLA_GENEVE_REMOTE, V_IN4 },
	{ "geneve", "ttl", IFLA_GENEVE_TTL, V_U8 },
	{ "geneve", "dstport", IFLA_GENEVE_PORT, V_BE16 },
	{ "ipip sit", "local", IFLA_IPTUN_LOCAL, V_IN4 },
	{ "ipip sit", "remote", IFLA_IPTUN_REMOTE, V_IN4 },
	{ "ipip sit ip6tnl", "ttl", IFLA_IPTUN_TTL, V_U8 },
	{ "ip6tnl", "local", IFLA_IPTUN_LOCAL, V_IN6 },
	{ "ip6tnl", "remote", IFLA_IPTUN_REMOTE, V_IN6 },
	{ "gre gretap", "local", IFLA_GRE_LOCAL, V_IN4 },
	{ "gre gretap", "remote", IFLA_GRE_REMOTE, V_IN4 },
	{ "ip6gre ip6gretap", "local", IFLA_GRE_LOCAL, V_IN6 },
	{ "ip6gre ip6gretap", "remote", IFLA_GRE_REMOTE, V_IN6 },
	{ "gre gretap ip6gre ip6gretap", "ttl", IFLA_GRE_TTL, V_U8 },
	{ "gre gretap ip6gre ip6gretap", "ikey", IFLA_GRE_IKEY, V_BE32 },
	{ "gre gretap ip6gre ip6gretap", "okey", IFLA_GRE_OKEY, V_BE32 },
	{ "vti", "local", IFLA_VTI_LOCAL, V_IN4 },
	{ "vti", "remote", IFLA_VTI_REMOTE, V_IN4 },
	{ "vti6", "local", IFLA_VTI_LOCAL, V_IN6 },
	{ "vti6", "remote", IFLA_VTI_REMOTE, V_IN6 },
	{ "vti vti6", "ikey", IFLA_VTI_IKEY, V_BE32 },
	{ "vti vti6", "okey", IFLA_VTI_OKEY, V_BE32 },
	{ "xfrm", "if_id", IFLA_XFRM_IF_ID, V_U32 },
};

static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static const struct link_attr *find_attr(const char *kind, const char *name, size_t len)
{
	for (size_t i = 0; i < N_OF(link_attrs); i++)
		if (strlen(link_attrs[i].name) == len && !strncmp(link_attrs[i].name, name, len) &&
		    word_in(link_attrs[i].kinds, kind))
			return &link_attrs[i];
	return NULL;
}

struct errname {
	const char *name;
	int value;
};

static const struct errname errnames[] = {
	{ "0", 0 }, { "EPERM", EPERM }, { "EACCES", EACCES }, { "EINVAL", EINVAL },
	{ "EOPNOTSUPP", EOPNOTSUPP }, { "ENODEV", ENODEV }, { "ENOENT", ENOENT },
	{ "EEXIST", EEXIST }, { "EBUSY", EBUSY }, { "ENOTSUP", ENOTSUP },
};

static int errno_of(const char *name)
{
	for (size_t i = 0; i < N_OF(errnames); i++)
		if (!strcmp(errnames[i].name, name))
			return errnames[i].value;
	return -1;
}

static const char *errno_name(int e)
{
	for (size_t i = 1; i < N_OF(errnames); i++)
		if (errnames[i].value == e)
			return errnames[i].name;
	return e ? "another errno" : "0";
}

/* ---- reading the cases file ---- */

static int plan_error(struct plan *p, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->error, sizeof(p->error), "%s:%u: ", p->path, line);

	va_start(ap, fmt);
	vsnprintf(p->error + n, sizeof(p->error) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int split(struct step *s, char *line, unsigned nr)
{
	char *save = NULL, *w;

	s->argc = 0;
	s->line = nr;
	for (w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (s->argc == MAX_WORDS)
			return -1;
		s->argv[s->argc++] = w;
	}
	return 0;
}

static int check_words(struct plan *p, const struct step *s, const struct verb *v)
{
	if (!v)
		return plan_error(p, s->line, "unknown %s '%s'", "word", s->argv[0]);
	if (s->argc - 1 < v->min || s->argc - 1 > v->max)
		return plan_error(p, s->line, "'%s' takes %d to %d words, not %d", v->name, v->min,
				  v->max, s->argc - 1);
	return 0;
}

/* The attributes of a link step: known for its kind, each with a value. */
static int check_link(struct plan *p, const struct step *s)
{
	for (int i = 3; i < s->argc; i++) {
		const char *eq = strchr(s->argv[i], '=');

		if (!eq || !find_attr(s->argv[2], s->argv[i], (size_t)(eq - s->argv[i])))
			return plan_error(p, s->line, "'%s': no attribute '%.*s' for link kind '%s'",
					  s->argv[0], (int)(eq ? eq - s->argv[i] : (long)strlen(s->argv[i])),
					  s->argv[i], s->argv[2]);
	}
	return 0;
}

static int check_case(struct plan *p, const struct test_case *c, unsigned line)
{
	bool userns = false;

	if (!c->expect.argc)
		return plan_error(p, line, "case '%s' has no 'expect'", c->name);
	for (size_t i = 0; i < c->nsteps; i++) {
		const struct step *s = &c->steps[i];

		if (is(s, "move") && !userns)
			return plan_error(p, s->line, "'move' before 'userns'");
		if (is(s, "userns") && userns)
			return plan_error(p, s->line, "a second 'userns'");
		userns |= is(s, "userns");
		if ((is(s, "link-add") || is(s, "link-change")) && check_link(p, s) < 0)
			return -1;
	}
	if (!strcmp(c->expect.argv[0], "errno") && errno_of(c->expect.argv[1]) < 0)
		return plan_error(p, c->expect.line, "unknown errno '%s'", c->expect.argv[1]);
	return 0;
}

static struct test_case *add_case(struct suite *s, char *name)
{
	struct test_case *c = realloc(s->cases, (s->ncases + 1) * sizeof(*c));

	if (!c)
		return NULL;
	s->cases = c;
	c = &s->cases[s->ncases++];
	memset(c, 0, sizeof(*c));
	c->name = name;
	return c;
}

static struct suite *add_suite(struct plan *p, char *name)
{
	struct suite *s = realloc(p->suites, (p->nsuites + 1) * sizeof(*s));

	if (!s)
		return NULL;
	p->suites = s;
	s = &p->suites[p->nsuites++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	return s;
}

/* One line of the file, in the state `*sp` (suite) and `*cp` (open case). */
static int plan_line(struct plan *p, struct step *w, struct suite **sp, struct test_case **cp)
{
	const char *d = w->argv[0];

	if (!strcmp(d, "suite") || !strcmp(d, "case") || !strcmp(d, "probe")) {
		if (*cp)
			return plan_error(p, w->line, "'%s' inside case '%s' (no 'end')", d, (*cp)->name);
		if (strcmp(d, "suite") && !*sp)
			return plan_error(p, w->line, "'%s' before any 'suite'", d);
	}
	if (!strcmp(d, "suite")) {
		if (w->argc != 2 || !(*sp = add_suite(p, w->argv[1])))
			return plan_error(p, w->line, "'suite' takes one name");
	} else if (!strcmp(d, "probe")) {
		for (int i = 1; i < w->argc && (*sp)->nprobes < MAX_PROBES; i++)
			(*sp)->probes[(*sp)->nprobes++] = w->argv[i];
	} else if (!strcmp(d, "case")) {
		if (w->argc != 2 || !(*cp = add_case(*sp, w->argv[1])))
			return plan_error(p, w->line, "'case' takes one name");
	} else if (!*cp) {
		return plan_error(p, w->line, "'%s' outside a case", d);
	} else if (!strcmp(d, "end")) {
		if (check_case(p, *cp, w->line) < 0)
			return -1;
		*cp = NULL;
	} else if (!strcmp(d, "expect")) {
		memmove(w->argv, w->argv + 1, (size_t)--w->argc * sizeof(char *));
		if (!w->argc || check_words(p, w, find_verb(expect_verbs, N_OF(expect_verbs),
							    w->argv[0])) < 0)
			return p->error[0] ? -1 : plan_error(p, w->line, "'expect' of what?");
		(*cp)->expect = *w;
	} else {
		if ((*cp)->nsteps == MAX_STEPS)
			return plan_error(p, w->line, "more than %d steps", MAX_STEPS);
		if (check_words(p, w, find_verb(step_verbs, N_OF(step_verbs), d)) < 0)
			return -1;
		(*cp)->steps[(*cp)->nsteps++] = *w;
	}
	return 0;
}

static int plan_read(struct plan *p, const char *path)
{
	struct suite *s = NULL;
	struct test_case *c = NULL;
	char *line, *next;
	unsigned nr = 0;
	struct step w;
	FILE *f;
	long n;

	memset(p, 0, sizeof(*p));
	p->path = path;
	if (!(f = fopen(path, "re")) || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0 || !(p->text = calloc(1, (size_t)n + 1)) ||
	    fread(p->text, 1, (size_t)n, f) != (size_t)n) {
		snprintf(p->error, sizeof(p->error), "cannot read %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	for (line = p->text; line; line = next) {
		nr++;
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (line[0] == '#')
			continue;
		if (split(&w, line, nr) < 0)
			return plan_error(p, nr, "more than %d words", MAX_WORDS);
		if (w.argc && plan_line(p, &w, &s, &c) < 0)
			return -1;
	}
	if (c)
		return plan_error(p, nr, "case '%s' has no 'end'", c->name);
	return 0;	/* no suite at all: the fixes under test have no guest case */
}

/* ---- module lists ---- */

#define MAX_MODULES 1024

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
			len += (size_t)snprintf(out + len, size - len, "%s%s", len ? " " : "",
						after->name[i]);
	if (!out[0])
		snprintf(out, size, "none");
}

/* One pass: remove every module not in `baseline` that nothing uses. */
static size_t remove_pass(const struct modset *baseline, struct modset *scratch, size_t *left)
{
	size_t removed = 0;

	*left = 0;
	if (modset_read(scratch) < 0)
		return 0;
	for (size_t i = 0; i < scratch->n; i++) {
		if (modset_has(baseline, scratch->name[i]))
			continue;
		if (syscall(SYS_delete_module, scratch->name[i], O_NONBLOCK) == 0)
			removed++;
		else
			(*left)++;
	}
	return removed;
}

/*
 * Remove every module not in `baseline`; passes repeat while they remove
 * some. A module still in use by a device of a namespace that is going away
 * (its cleanup runs after the case) is tried again for up to 3 s. Returns
 * the number left over.
 */
static size_t remove_new_modules(const struct modset *baseline, struct modset *scratch)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	size_t left = 0;

	for (int tries = 0; tries < 60; tries++) {
		while (remove_pass(baseline, scratch, &left))
			;
		if (!left)
			return 0;
		nanosleep(&tick, NULL);
	}
	return left;
}

/* ---- the probe module ---- */

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

/* The suite's probe module, said on the console either way. */
static void choose_probe(struct suite *s)
{
	char list[512] = "";
	size_t len = 0;

	if (!s->nprobes)
		return;
	for (size_t i = 0; i < s->nprobes; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
					s->probes[i]);
	for (size_t i = 0; i < s->nprobes; i++)
		if (have_module(s->probes[i])) {
			snprintf(s->probe, sizeof(s->probe), "%s", s->probes[i]);
			printf("    # probe module: %s (the first of %s this kernel has)\n", s->probe,
			       list);
			return;
		}
	printf("    # probe module: none of %s is in this kernel's modules.dep\n", list);
}

/* A step's word, with PROBE replaced by the suite's probe module. */
static const char *word(const struct suite *s, const char *w)
{
	return !strcmp(w, PROBE) ? s->probe : w;
}

/* ---- the child's side: report, drop capabilities, act ---- */

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
static int drop_caps(int fd, const char *set)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2], check[2];
	unsigned long long keep = !strcmp(set, "net_admin") ? 1ULL << CAP_NET_ADMIN : 0;
	int cap, last = last_cap();

	if (!strcmp(set, "all"))
		return 0;
	if (strcmp(set, "net_admin") && strcmp(set, "none"))
		return report(fd, "setup: unknown capability set '%s'", set), -1;
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

/* ---- rtnetlink ---- */

struct nlbuf {
	union {
		struct nlmsghdr hdr;
		char bytes[4096];
	} u;
};

static struct rtattr *nla_put(struct nlbuf *b, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)(b->u.bytes + NLMSG_ALIGN(b->u.hdr.nlmsg_len));
	size_t need = NLMSG_ALIGN(b->u.hdr.nlmsg_len) + RTA_SPACE(len);

	if (need > sizeof(b->u.bytes))
		return NULL;
	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	b->u.hdr.nlmsg_len = (unsigned)need;
	return a;
}

static void nla_end(struct nlbuf *b, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)(b->u.bytes + b->u.hdr.nlmsg_len - (char *)nest);
}

/* `value` as `type` wants it, into `out` (at most 16 bytes): its length, or -1. */
static int encode(unsigned char *out, enum vtype type, const char *value)
{
	char *end;
	unsigned long v = strtoul(value, &end, 0);
	uint16_t v16;
	uint32_t v32;

	switch (type) {
	case V_IN4:
		return inet_pton(AF_INET, value, out) == 1 ? 4 : -1;
	case V_IN6:
		return inet_pton(AF_INET6, value, out) == 1 ? 16 : -1;
	default:
		break;
	}
	if (!*value || *end)
		return -1;
	switch (type) {
	case V_U8:
		out[0] = (unsigned char)v;
		return v <= 0xff ? 1 : -1;
	case V_U16:
	case V_BE16:
		v16 = type == V_BE16 ? htons((uint16_t)v) : (uint16_t)v;
		memcpy(out, &v16, 2);
		return v <= 0xffff ? 2 : -1;
	default:
		v32 = type == V_BE32 ? htonl((uint32_t)v) : (uint32_t)v;
		memcpy(out, &v32, 4);
		return v <= 0xffffffffUL ? 4 : -1;
	}
}

/* Send `b`, wait for the kernel's answer: 0 or an errno. */
static int rtnl_talk(struct nlbuf *b)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char reply[8192];
	struct nlmsghdr *h;
	ssize_t n;
	int fd, err = EIO;

	b->u.hdr.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	b->u.hdr.nlmsg_seq = 1;
	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0)
		return errno;
	if (sendto(fd, b->u.bytes, b->u.hdr.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0) {
		err = errno;
	} else if ((n = recv(fd, reply, sizeof(reply), 0)) < 0) {
		err = errno;
	} else {
		for (h = (struct nlmsghdr *)reply; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n))
			if (h->nlmsg_type == NLMSG_ERROR) {
				err = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
				break;
			}
	}
	close(fd);
	return err;
}

static void link_msg(struct nlbuf *b, unsigned short type, unsigned short flags, int index)
{
	struct ifinfomsg *ifi;

	memset(b, 0, sizeof(*b));
	b->u.hdr.nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	b->u.hdr.nlmsg_type = type;
	b->u.hdr.nlmsg_flags = flags;
	ifi = NLMSG_DATA(&b->u.hdr);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = index;
}

/*
 * link-add / link-change IFNAME KIND ATTR=VALUE...: RTM_NEWLINK. Returns
 * the kernel's errno, or -1 when the step itself is wrong (said on `fd`).
 */
static int link_newlink(int fd, const struct step *s, bool create)
{
	struct rtattr *info, *data;
	unsigned char value[16];
	struct nlbuf b;
	int index = 0, len;

	if (!create && !(index = (int)if_nametoindex(s->argv[1])))
		return errno;
	link_msg(&b, RTM_NEWLINK, create ? NLM_F_CREATE | NLM_F_EXCL : 0, index);
	if (create && !nla_put(&b, IFLA_IFNAME, s->argv[1], strlen(s->argv[1]) + 1))
		return report(fd, "setup: %s: message too long", s->argv[0]), -1;
	if (!(info = nla_put(&b, IFLA_LINKINFO, NULL, 0)) ||
	    !nla_put(&b, IFLA_INFO_KIND, s->argv[2], strlen(s->argv[2])) ||
	    !(data = nla_put(&b, IFLA_INFO_DATA, NULL, 0)))
		return report(fd, "setup: %s: message too long", s->argv[0]), -1;
	for (int i = 3; i < s->argc; i++) {
		const char *eq = strchr(s->argv[i], '=');
		const struct link_attr *a = eq ? find_attr(s->argv[2], s->argv[i],
							   (size_t)(eq - s->argv[i])) : NULL;

		if (!a || (len = encode(value, a->vtype, eq + 1)) < 0)
			return report(fd, "setup: %s: bad attribute '%s'", s->argv[0], s->argv[i]), -1;
		if (!nla_put(&b, a->type, value, (size_t)len))
			return report(fd, "setup: %s: message too long", s->argv[0]), -1;
	}
	nla_end(&b, data);
	nla_end(&b, info);
	return rtnl_talk(&b);
}

static int link_del(const char *name)
{
	struct nlbuf b;
	int index = (int)if_nametoindex(name);

	if (!index)
		return errno;
	link_msg(&b, RTM_DELLINK, 0, index);
	return rtnl_talk(&b);
}

/* Root moves its device `name` into the network namespace of process `pid`. */
static int link_move(const char *name, pid_t pid)
{
	uint32_t target = (uint32_t)pid;
	struct nlbuf b;
	int index = (int)if_nametoindex(name);

	if (!index)
		return errno;
	link_msg(&b, RTM_NEWLINK, 0, index);
	if (!nla_put(&b, IFLA_NET_NS_PID, &target, sizeof(target)))
		return E2BIG;
	return rtnl_talk(&b);
}

/* ---- the child: run the steps ---- */

static int load_module(int fd, const char *name)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execl("/sbin/modprobe", "modprobe", name, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return report(fd, "setup: modprobe %s: %s", name, strerror(errno)), -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return report(fd, "setup: modprobe %s failed (status %d)", name,
			      WIFEXITED(status) ? WEXITSTATUS(status) : -1), -1;
	return 0;
}

/* An action: its errno (0: it worked), or -1 when it could not even be tried. */
static int act(int fd, const struct suite *su, const struct step *s)
{
	int sock, rc, err;

	if (is(s, "link-add") || is(s, "link-change")) {
		err = link_newlink(fd, s, is(s, "link-add"));
		if (err >= 0)
			report(fd, "%s %s %s: %s", s->argv[0], s->argv[1], s->argv[2],
			       err ? strerror(err) : "ok");
		return err;
	}
	if (is(s, "link-del")) {
		err = link_del(s->argv[1]);
		report(fd, "link-del %s: %s", s->argv[1], err ? strerror(err) : "ok");
		return err;
	}
	if ((sock = socket(AF_INET, (is(s, "ifflags") ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC,
			   0)) < 0)
		return report(fd, "setup: socket(AF_INET): %s", strerror(errno)), -1;
	if (is(s, "ifflags")) {
		const char *name = word(su, s->argv[1]);
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		memcpy(ifr.ifr_name, name, strnlen(name, sizeof(ifr.ifr_name) - 1));
		rc = ioctl(sock, SIOCGIFFLAGS, &ifr);
		err = rc ? errno : 0;
		report(fd, "ioctl(SIOCGIFFLAGS, \"%s\"): %s", word(su, s->argv[1]),
		       rc ? strerror(err) : "ok");
	} else {
		const char *name = word(su, s->argv[1]);

		rc = setsockopt(sock, IPPROTO_TCP, TCP_CONGESTION, name, strlen(name));
		err = rc ? errno : 0;
		report(fd, "setsockopt(TCP_CONGESTION, \"%s\"): %s", name, rc ? strerror(err) : "ok");
	}
	close(sock);
	return err;
}

/* The index of the case's last action step, or -1. */
static int last_action(const struct test_case *c)
{
	int last = -1;

	for (size_t i = 0; i < c->nsteps; i++)
		if (find_verb(step_verbs, N_OF(step_verbs), c->steps[i].argv[0])->action)
			last = (int)i;
	return last;
}

/* userns: a new user + network namespace; then root moves devices in (sync). */
static void enter_userns(int fd, int go)
{
	char answer = 0;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
		/* EINVAL: a kernel without (unshare-able) user or network
		 * namespaces, such as 2.6.32: the case cannot exist there */
		report(fd, "%sunshare(CLONE_NEWUSER | CLONE_NEWNET): %s",
		       errno == EINVAL ? "this kernel has no user namespaces: " : "setup: ",
		       strerror(errno));
		_exit(errno == EINVAL ? NOT_SUPPORTED : SETUP_FAILED);
	}
	report(fd, "=ready");
	if (read(go, &answer, 1) != 1 || answer != 'G')
		_exit(SETUP_FAILED);	/* the parent said why */
}

static void child(int fd, int go, const struct suite *su, const struct test_case *c)
{
	int last = last_action(c), err = 0;

	alarm(CASE_TIMEOUT);
	for (size_t i = 0; i < c->nsteps; i++) {
		const struct step *s = &c->steps[i];

		if (is(s, "move"))
			continue;	/* the parent's, at userns */
		if (is(s, "userns")) {
			enter_userns(fd, go);
		} else if (is(s, "load")) {
			if (load_module(fd, word(su, s->argv[1])) < 0)
				_exit(SETUP_FAILED);
		} else if (is(s, "caps")) {
			if (drop_caps(fd, s->argv[1]) < 0)
				_exit(SETUP_FAILED);
		} else {
			if ((err = act(fd, su, s)) < 0)
				_exit(SETUP_FAILED);
			if (err && (int)i != last && !is(s, "ifflags") && !is(s, "tcp-congestion")) {
				report(fd, "setup: '%s %s' failed, the case cannot go on", s->argv[0],
				       s->argv[1]);
				_exit(SETUP_FAILED);
			}
		}
	}
	report(fd, "=errno %d", err);
	_exit(0);
}

/* ---- the parent: run a case, judge it, print its result ---- */

struct outcome {
	char diag[2048];	/* "# " lines, each ending in a newline */
	size_t len;
	int err;		/* the last action's errno, -1 when unknown */
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

/* The child is in its namespaces: do the case's moves, then let it go on. */
static void moves(struct outcome *o, const struct test_case *c, pid_t pid, int go)
{
	char answer = 'G';
	int err;

	for (size_t i = 0; i < c->nsteps && answer == 'G'; i++) {
		if (!is(&c->steps[i], "move"))
			continue;
		if ((err = link_move(c->steps[i].argv[1], pid))) {
			diag(o, "setup: moving %s into the case's namespace: %s",
			     c->steps[i].argv[1], strerror(err));
			answer = 'F';
		} else {
			diag(o, "move %s: ok", c->steps[i].argv[1]);
		}
	}
	if (write(go, &answer, 1) != 1)
		diag(o, "setup: cannot signal the case: %s", strerror(errno));
}

/* A line from the child: a diagnostic, or one of its "=" messages. */
static void child_line(struct outcome *o, const struct test_case *c, const char *line,
		       pid_t pid, int go)
{
	if (!strcmp(line, "=ready"))
		moves(o, c, pid, go);
	else if (!strncmp(line, "=errno ", 7))
		o->err = atoi(line + 7);
	else
		diag(o, "%s", line);
}

/* The child's lines (pipe) become diagnostics; returns its wait status or -1. */
static int run_child(struct outcome *o, const struct suite *su, const struct test_case *c)
{
	char buf[1024], *line, *nl;
	size_t have = 0;
	int fds[2], gos[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0 || pipe2(gos, O_CLOEXEC) < 0)
		return diag(o, "setup: pipe: %s", strerror(errno)), -1;
	fflush(NULL);
	if ((pid = fork()) < 0) {
		diag(o, "setup: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		close(gos[0]);
		close(gos[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		close(gos[1]);
		child(fds[1], gos[0], su, c);
	}
	close(fds[1]);
	close(gos[0]);
	while ((n = read(fds[0], buf + have, sizeof(buf) - 1 - have)) > 0 ||
	       (n < 0 && errno == EINTR)) {
		have += n > 0 ? (size_t)n : 0;
		buf[have] = '\0';
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = '\0';
			child_line(o, c, line, pid, gos[1]);
		}
		have = strlen(line);
		memmove(buf, line, have + 1);
		if (have == sizeof(buf) - 1)
			have = 0;	/* an overlong line: drop it */
	}
	close(fds[0]);
	close(gos[1]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return diag(o, "setup: waitpid: %s", strerror(errno)), -1;
	return status;
}

static bool judge(struct outcome *o, const struct suite *su, const struct test_case *c,
		  const struct modset *before, const struct modset *after)
{
	const struct step *e = &c->expect;
	const char *what = e->argc > 1 ? word(su, e->argv[1]) : "";
	char loaded[1024];
	bool ok;

	modset_new(loaded, sizeof(loaded), before, after);
	if (!strcmp(e->argv[0], "errno")) {
		ok = o->err == errno_of(e->argv[1]);
		if (!ok)
			diag(o, "expected: errno %s, got %s", e->argv[1],
			     o->err < 0 ? "nothing" : errno_name(o->err));
		return ok;
	}
	if (!strcmp(e->argv[0], "not-loaded"))
		ok = !modset_has(after, what);
	else if (!strcmp(e->argv[0], "loaded"))
		ok = modset_has(after, what);
	else
		ok = !strcmp(loaded, "none");
	if (!ok) {
		if (*what)
			diag(o, "expected: %s %s", what, strcmp(e->argv[0], "loaded") ? "not loaded"
										: "loaded");
		else
			diag(o, "expected: no module loaded");
		diag(o, "loaded by this case: %s", loaded);
	}
	return ok;
}

/* A case the kernel cannot have: "ok N name # SKIP <the child's reason>". */
static void skip_case(unsigned nr, const struct test_case *c, const struct outcome *o)
{
	const char *why = strstr(o->diag, "# ") ? strstr(o->diag, "# ") + 2 : "not supported";

	printf("    ok %u %s # SKIP %.*s\n", nr, c->name, (int)strcspn(why, "\n"), why);
	fflush(stdout);
}

/* Devices root made for the case (link-add before userns) go with it. */
static void clean_links(const struct test_case *c)
{
	for (size_t i = 0; i < c->nsteps && !is(&c->steps[i], "userns"); i++)
		if (is(&c->steps[i], "link-add"))
			link_del(c->steps[i].argv[1]);
}

static bool needs_probe(const struct test_case *c)
{
	for (size_t i = 0; i < c->nsteps; i++)
		for (int w = 1; w < c->steps[i].argc; w++)
			if (!strcmp(c->steps[i].argv[w], PROBE))
				return true;
	return c->expect.argc > 1 && !strcmp(c->expect.argv[1], PROBE);
}

enum case_result { CASE_FAIL, CASE_PASS, CASE_SKIP };

static enum case_result run_case(unsigned nr, const struct suite *su, const struct test_case *c,
				 const struct modset *baseline)
{
	static struct modset before, after;
	struct outcome o = { .len = 0, .err = -1 };
	char note[128] = "";
	bool ok = false;
	size_t left;
	int status;

	o.diag[0] = '\0';
	if (needs_probe(c) && !su->probe[0]) {
		diag(&o, "setup: no probe module in this kernel: build one of them as a module");
	} else if (modset_read(&before) < 0) {
		diag(&o, "setup: cannot read /proc/modules: %s", strerror(errno));
	} else if ((status = run_child(&o, su, c)) == -1) {
		/* the reason is in the diagnostics */
	} else if (WIFSIGNALED(status)) {
		diag(&o, "setup: the case was killed by signal %d%s", WTERMSIG(status),
		     WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
	} else if (WEXITSTATUS(status) == NOT_SUPPORTED) {
		clean_links(c);
		skip_case(nr, c, &o);
		return CASE_SKIP;
	} else if (WEXITSTATUS(status) != 0) {
		diag(&o, "setup failed: the case could not run");
	} else if (modset_read(&after) < 0) {
		diag(&o, "setup: cannot read /proc/modules: %s", strerror(errno));
	} else {
		ok = judge(&o, su, c, &before, &after);
	}
	clean_links(c);
	/* The next case starts from the baseline again; what stays is worth a note. */
	if ((left = remove_new_modules(baseline, &after)) > 0)
		snprintf(note, sizeof(note), "    # %zu module(s) loaded here could not be removed\n",
			 left);
	/* diagnostics come before the result line they belong to, as KUnit prints them */
	printf("%s%s    %s %u %s\n", ok ? "" : o.diag, note, ok ? "ok" : "not ok", nr, c->name);
	fflush(stdout);
	return ok ? CASE_PASS : CASE_FAIL;
}

static bool run_suite(unsigned nr, struct suite *su, const struct modset *baseline)
{
	unsigned pass = 0, skip = 0;
	enum case_result r;

	printf("    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", su->name, su->ncases);
	choose_probe(su);
	for (size_t i = 0; i < su->ncases; i++) {
		r = run_case((unsigned)i + 1, su, &su->cases[i], baseline);
		pass += r == CASE_PASS;
		skip += r == CASE_SKIP;
	}
	printf("# %s: pass:%u fail:%zu skip:%u total:%zu\n", su->name, pass,
	       su->ncases - pass - skip, skip, su->ncases);
	printf("%s %u %s\n", pass + skip == su->ncases ? "ok" : "not ok", nr, su->name);
	fflush(stdout);
	return pass + skip == su->ncases;
}

static int run_plan(struct plan *p)
{
	static struct modset baseline;
	bool ok = true;

	if (modset_read(&baseline) < 0)
		baseline.n = 0;
	printf("KTAP version 1\n1..%zu\n", p->nsuites);
	for (size_t s = 0; s < p->nsuites; s++)
		ok &= run_suite((unsigned)s + 1, &p->suites[s], &baseline);
	return ok ? 0 : 1;
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

/* --check FILE: read a cases file and say what is wrong with it; nothing else. */
static int check_file(const char *path)
{
	struct plan p;
	size_t n = 0;

	if (plan_read(&p, path) < 0) {
		fprintf(stderr, "kbackport-guest: %s\n", p.error);
		return 1;
	}
	for (size_t s = 0; s < p.nsuites; s++)
		n += p.suites[s].ncases;
	printf("%zu suites, %zu cases\n", p.nsuites, n);
	return 0;
}

int main(int argc, char **argv)
{
	struct plan plan;

	if (argc == 3 && !strcmp(argv[1], "--check"))
		return check_file(argv[2]);
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
	if (plan_read(&plan, CASES_FILE) < 0)
		printf("KTAP version 1\n1..0\n# kbackport-guest: %s\n", plan.error);
	else
		run_plan(&plan);
	printf("kbackport-guest: done\n");
	end();
}
