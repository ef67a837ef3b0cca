/* kb_ktap_parse() and friends: fixtures in tests/fixtures/ktap/ and inline logs. */
#include "unit.h"

#include <stdio.h>

#include "util/buf.h"
#include "util/error.h"
#include "boot/ktap.h"

#define FIXTURES "tests/fixtures/ktap/"

/* Parse `log` (a C string) into *r; the parse itself must succeed. */
static void parse(struct kb_ktap_result *r, const char *log)
{
	assert_int_equal(kb_ktap_parse(r, log, strlen(log)), 0);
}

static void parse_fixture(struct kb_ktap_result *r, const char *name)
{
	char path[256], *log = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	assert_int_equal(kb_read_file(&log, &len, path), 0);
	assert_int_equal(kb_ktap_parse(r, log, len), 0);
	free(log);
}

static const struct kb_ktap_suite *suite(const struct kb_ktap_result *r, const char *name)
{
	const struct kb_ktap_suite *s = kb_ktap_find_suite(r, name);

	if (!s)
		fail_msg("no suite '%s'", name);
	return s;
}

/* "name status" of each case, one per line, for compact comparisons. */
static char *cases_of(const struct kb_ktap_suite *s)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t i;

	for (i = 0; i < s->ncases; i++)
		kb_buf_printf(&b, "%s %s\n", s->cases[i].name,
			      kb_ktap_status_name(s->cases[i].status));
	return kb_buf_detach(&b);
}

static void assert_cases(const struct kb_ktap_suite *s, const char *want)
{
	char *got = cases_of(s);

	assert_string_equal(got, want);
	free(got);
}

static void assert_counts(const struct kb_ktap_suite *s, size_t pass, size_t fail, size_t skip)
{
	assert_int_equal(s->pass, pass);
	assert_int_equal(s->fail, fail);
	assert_int_equal(s->skip, skip);
}

static void test_pass(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "pass.log");
	assert_int_equal(r.ndocuments, 2);
	assert_int_equal(r.nsuites, 2);
	assert_null(r.error);
	s = suite(&r, "kbackport_dev_load");
	assert_int_equal(s->status, KB_KTAP_PASS);
	assert_null(s->error);
	assert_int_equal(s->line, 21);
	assert_counts(s, 6, 0, 0);
	assert_cases(s, "net_admin_only_requests_netdev_name pass\n"
		     "sys_module_only_requests_bare_name pass\n"
		     "both_request_netdev_then_bare pass\n"
		     "no_caps_request_nothing pass\n"
		     "existing_device_requests_nothing pass\n"
		     "tcp_cong_net_admin_requests_tcp_prefix pass\n");
	assert_null(s->cases[0].diag);
	assert_null(s->cases[0].params);
	s = suite(&r, "kbackport_caps");
	assert_int_equal(s->status, KB_KTAP_PASS);
	assert_counts(s, 6, 0, 0);
	assert_ptr_equal(s, &r.suites[1]);
	assert_null(kb_ktap_find_suite(&r, "kbackport"));
	kb_ktap_result_release(&r);
	assert_null(r.suites);
	kb_ktap_result_release(&r);	/* twice is harmless */
}

static void test_fail_with_diagnostics(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "fail.log");
	assert_null(r.error);
	s = suite(&r, "kbackport_dev_load");
	assert_int_equal(s->status, KB_KTAP_FAIL);
	assert_null(s->error);
	assert_counts(s, 3, 3, 0);
	assert_cases(s, "net_admin_only_requests_netdev_name fail\n"
		     "sys_module_only_requests_bare_name fail\n"
		     "both_request_netdev_then_bare fail\n"
		     "no_caps_request_nothing pass\n"
		     "existing_device_requests_nothing pass\n"
		     "tcp_cong_net_admin_requests_tcp_prefix pass\n");
	/* KUnit's "# name:" line, the indented lines, and the _MSG text of
	 * the same printk record; "random: crng init done" is not in case 3's */
	assert_string_equal(s->cases[0].diag,
		"net_admin_only_requests_netdev_name: EXPECTATION FAILED at "
		"net/kbackport_kunit/dev_load_kunit.c:138\n"
		"Expected got == want, but\n"
		"    got == \"[kbtest0]\"\n"
		"    want == \"[netdev-kbtest0]\"\n"
		"dev_load(\"kbtest0\") with CAP_NET_ADMIN only requested [kbtest0], "
		"expected [netdev-kbtest0]");
	assert_string_equal(s->cases[2].diag,
		"both_request_netdev_then_bare: EXPECTATION FAILED at "
		"net/kbackport_kunit/dev_load_kunit.c:138\n"
		"Expected got == want, but\n"
		"    got == \"[kbtest0]\"\n"
		"    want == \"[netdev-kbtest0, kbtest0]\"\n"
		"dev_load(\"kbtest0\") with CAP_NET_ADMIN and CAP_SYS_MODULE requested "
		"[kbtest0], expected [netdev-kbtest0, kbtest0]");
	assert_null(s->cases[3].diag);
	s = suite(&r, "kbackport_caps");
	assert_int_equal(s->status, KB_KTAP_FAIL);
	assert_counts(s, 5, 1, 0);
	assert_string_equal(s->cases[0].diag, "expected: xfs not loaded\n"
			    "loaded by this case: xfs libcrc32c crc32c_generic");
	/* a diagnostic after a result belongs to the next one (KTAP's rule) */
	assert_string_equal(s->cases[1].diag,
		"3 module(s) loaded by net_admin_ifflags_xfs_not_loaded could not be removed");
	kb_ktap_result_release(&r);
}

static void test_skip(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "skip.log");
	assert_int_equal(r.nsuites, 3);
	assert_null(r.error);
	s = suite(&r, "kbackport_dev_load");
	assert_int_equal(s->status, KB_KTAP_PASS);
	assert_counts(s, 5, 0, 1);
	assert_int_equal(s->cases[5].status, KB_KTAP_SKIP);
	assert_string_equal(s->cases[5].diag, "SKIP no TCP in this kernel");
	s = suite(&r, "kbackport_ipv6_tunnels");
	assert_int_equal(s->status, KB_KTAP_SKIP);
	assert_counts(s, 0, 0, 2);
	s = suite(&r, "kbackport_caps");
	assert_int_equal(s->status, KB_KTAP_PASS);
	assert_string_equal(s->cases[5].diag, "unshare(CLONE_NEWUSER): Operation not permitted\n"
			    "SKIP user namespaces are disabled");
	kb_ktap_result_release(&r);
}

static void test_params(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;
	const struct kb_ktap_case *c;

	(void)state;
	parse_fixture(&r, "params.log");
	assert_int_equal(r.nsuites, 1);
	s = suite(&r, "kbackport_alias");
	assert_int_equal(s->status, KB_KTAP_FAIL);
	assert_null(s->error);
	assert_counts(s, 2, 1, 0);	/* cases, not their parameters */
	assert_cases(s, "tunnel_alias_is_netdev pass\n"
		     "netdev_alias_macro_expands pass\n"
		     "bare_name_needs_sys_module fail\n");
	c = &s->cases[0];
	assert_int_equal(c->nparams, 3);
	assert_string_equal(c->params[2].name, "sit0");
	assert_int_equal(s->cases[1].nparams, 0);
	c = &s->cases[2];
	assert_int_equal(c->nparams, 3);
	assert_int_equal(c->params[0].status, KB_KTAP_PASS);
	assert_int_equal(c->params[1].status, KB_KTAP_FAIL);
	assert_int_equal(c->params[2].status, KB_KTAP_SKIP);
	assert_string_equal(c->params[1].diag,
		"bare_name_needs_sys_module: EXPECTATION FAILED at "
		"net/kbackport_kunit/alias_kunit.c:77\n"
		"Expected requested == 0, but\n"
		"    requested == 1 (0x1)");
	assert_null(c->params[0].params);
	kb_ktap_result_release(&r);
}

static void test_panic(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "panic.log");
	assert_int_equal(r.ndocuments, 1);
	assert_int_equal(r.nsuites, 1);
	s = suite(&r, "kbackport_dev_load");
	assert_int_equal(s->status, KB_KTAP_ERROR);
	assert_string_equal(s->error, "suite 'kbackport_dev_load': plan 1..6 but 3 results: "
			    "truncated at line 31: 'Kernel panic - not syncing: Fatal exception'");
	assert_counts(s, 3, 0, 0);
	assert_int_equal(s->ncases, 3);	/* never the cases it did not see */
	assert_null(r.error);
	kb_ktap_result_release(&r);
}

static void test_garbled(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "garbled.log");
	assert_int_equal(suite(&r, "kbackport_dev_load")->status, KB_KTAP_PASS);
	s = suite(&r, "kbackport_caps");
	assert_int_equal(s->status, KB_KTAP_ERROR);
	assert_string_equal(s->error, "suite 'kbackport_caps': result 'ok 99999999999 overflow' "
			    "at line 29 where test 2 was expected");
	assert_cases(s, "net_admin_ifflags_xfs_not_loaded pass\noverflow pass\n");
	assert_null(r.error);
	kb_ktap_result_release(&r);
}

static void test_tap14(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "tap14.log");
	assert_int_equal(r.ndocuments, 2);
	s = suite(&r, "kbackport_dev_load");	/* "ok 1 - name": the dash is not in it */
	assert_int_equal(s->status, KB_KTAP_PASS);
	assert_counts(s, 5, 0, 1);
	assert_string_equal(s->cases[0].name, "net_admin_only_requests_netdev_name");
	assert_string_equal(s->ktap, "TAP version 14\n1..1\n"
		"    # Subtest: kbackport_dev_load\n"
		"    1..6\n"
		"    ok 1 - net_admin_only_requests_netdev_name\n"
		"    ok 2 - sys_module_only_requests_bare_name\n"
		"    ok 3 - both_request_netdev_then_bare\n"
		"    ok 4 - no_caps_request_nothing\n"
		"    ok 5 - existing_device_requests_nothing\n"
		"    ok 6 - tcp_cong_net_admin_requests_tcp_prefix # SKIP no TCP congestion control\n"
		"ok 1 - kbackport_dev_load\n");
	assert_int_equal(suite(&r, "kbackport_caps")->status, KB_KTAP_PASS);
	kb_ktap_result_release(&r);
}

static void test_interleaved(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "interleaved.log");
	assert_int_equal(r.nsuites, 3);
	assert_null(r.error);
	s = suite(&r, "kbackport_dev_load");
	assert_int_equal(s->status, KB_KTAP_FAIL);
	assert_counts(s, 5, 1, 0);
	/* "[    0.211600][   T30] clocksource: ..." is another record */
	assert_string_equal(s->cases[2].diag,
		"both_request_netdev_then_bare: EXPECTATION FAILED at "
		"net/kbackport_kunit/dev_load_kunit.c:138\n"
		"Expected got == want, but\n"
		"    got == \"[netdev-kbtest0]\"\n"
		"    want == \"[netdev-kbtest0, kbtest0]\"\n"
		"dev_load(\"kbtest0\") with CAP_NET_ADMIN and CAP_SYS_MODULE requested "
		"[netdev-kbtest0], expected [netdev-kbtest0, kbtest0]");
	assert_null(s->cases[4].diag);	/* "lo: some message" is no KTAP */
	assert_int_equal(suite(&r, "kbackport_tcp_cong")->status, KB_KTAP_PASS);
	s = suite(&r, "kbackport_caps");	/* kernel lines inside the guest's */
	assert_int_equal(s->status, KB_KTAP_PASS);
	assert_counts(s, 6, 0, 0);
	kb_ktap_result_release(&r);
}

static void test_plan_mismatch(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "plan-mismatch.log");
	s = suite(&r, "kbackport_dev_load");
	assert_int_equal(s->status, KB_KTAP_ERROR);
	assert_string_equal(s->error, "suite 'kbackport_dev_load': plan 1..6 but 5 results");
	assert_counts(s, 5, 0, 0);
	s = suite(&r, "kbackport_caps");
	assert_int_equal(s->status, KB_KTAP_ERROR);
	assert_string_equal(s->error, "suite 'kbackport_caps': plan 1..2 but 3 results");
	assert_int_equal(s->ncases, 3);
	assert_null(r.error);
	kb_ktap_result_release(&r);
}

static void test_numbering(void **state)
{
	struct kb_ktap_result r;

	(void)state;
	parse_fixture(&r, "numbering.log");
	assert_string_equal(suite(&r, "kbackport_dev_load")->error,
		"suite 'kbackport_dev_load': result 'ok 3 sys_module_only_requests_bare_name' "
		"at line 7 where test 2 was expected");
	assert_string_equal(suite(&r, "kbackport_tcp_cong")->error,
		"suite 'kbackport_tcp_cong': result 'ok 3 kbackport_tcp_cong' at line 16 "
		"where test 2 was expected");
	assert_string_equal(suite(&r, "kbackport_caps")->error,
		"suite 'kbackport_caps': test number 2 repeated at line 25 "
		"('ok 2 net_admin_ifflags_sit0_loads_sit')");
	assert_int_equal(suite(&r, "kbackport_caps")->status, KB_KTAP_ERROR);
	kb_ktap_result_release(&r);
}

static void test_no_plan(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "no-plan.log");
	assert_int_equal(suite(&r, "kbackport_dev_load")->status, KB_KTAP_PASS);
	s = suite(&r, "kbackport_caps");
	assert_int_equal(s->status, KB_KTAP_ERROR);
	assert_string_equal(s->error, "suite 'kbackport_caps': result "
			    "'ok 1 net_admin_ifflags_xfs_not_loaded' at line 14 without a plan");
	assert_string_equal(r.error, "KTAP document at line 1: results without a plan (line 8)");
	kb_ktap_result_release(&r);
}

static void test_prefix(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse_fixture(&r, "prefix.log");
	assert_int_equal(r.ndocuments, 2);
	assert_null(r.error);
	assert_int_equal(suite(&r, "kbackport_dev_load")->status, KB_KTAP_PASS);
	s = suite(&r, "kbackport_caps");
	assert_int_equal(s->status, KB_KTAP_FAIL);
	assert_cases(s, "net_admin_ifflags_xfs_not_loaded fail\n"
		     "net_admin_ifflags_sit0_loads_sit pass\n");
	assert_string_equal(s->ktap, "KTAP version 1\n1..1\n"
		"    KTAP version 1\n"
		"    # Subtest: kbackport_caps\n"
		"    1..2\n"
		"    # expected: xfs not loaded\n"
		"    not ok 1 net_admin_ifflags_xfs_not_loaded\n"
		"    ok 2 net_admin_ifflags_sit0_loads_sit\n"
		"# kbackport_caps: pass:1 fail:1 skip:0 total:2\n"
		"not ok 1 kbackport_caps\n");
	kb_ktap_result_release(&r);
}

static void test_no_ktap(void **state)
{
	struct kb_ktap_result r;

	(void)state;
	parse_fixture(&r, "no-ktap.log");
	assert_int_equal(r.ndocuments, 0);
	assert_int_equal(r.nsuites, 0);
	assert_null(r.error);
	kb_ktap_result_release(&r);
	parse(&r, "");
	assert_int_equal(r.nsuites, 0);
	kb_ktap_result_release(&r);
	assert_int_equal(kb_ktap_parse(&r, NULL, 0), 0);
	assert_int_equal(r.nsuites, 0);
	kb_ktap_result_release(&r);
}

/* Real boots, when other work has put them there. */
static void test_real_logs(void **state)
{
	static const struct {
		const char *log, *suite;
		enum kb_ktap_status status;
		size_t pass, fail;
	} boots[] = {
		{ "caps-debian.log", "kbackport_caps", KB_KTAP_PASS, 6, 0 },
		{ "kunit-6.1-fixed.log", "kbackport_dev_load", KB_KTAP_PASS, 6, 0 },
		{ "kunit-6.1-prefix.log", "kbackport_dev_load", KB_KTAP_FAIL, 3, 3 },
		{ "kunit-6.12-fixed.log", "kbackport_dev_load", KB_KTAP_PASS, 6, 0 },
		{ "kunit-6.12-prefix.log", "kbackport_dev_load", KB_KTAP_FAIL, 3, 3 },
	};
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;
	char path[256];
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(boots) / sizeof(boots[0]); i++) {
		snprintf(path, sizeof(path), FIXTURES "%s", boots[i].log);
		if (!(f = fopen(path, "r")))
			continue;
		fclose(f);
		parse_fixture(&r, boots[i].log);
		s = suite(&r, boots[i].suite);
		assert_int_equal(s->status, boots[i].status);
		assert_counts(s, boots[i].pass, boots[i].fail, 0);
		assert_null(s->error);
		assert_null(r.error);
		kb_ktap_result_release(&r);
	}
}

static void test_result_lines(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	parse(&r, "TAP version 13\n1..1\n"
		  "  KTAP version 1\n  # Subtest: s\n  1..7\n"
		  "  ok 1\n"
		  "  ok 2 - dash # SKIP\n"
		  "  not ok 3 lower # skip not built\n"
		  "  not ok 4 todo # TODO fall back to not ok\n"
		  "  ok 5 xfail # XFAIL\n"
		  "  ok 6 -\n"
		  "  not ok 7 spaced   name   # TIMEOUT 30 seconds\n"
		  "not ok 1 s\n");
	s = suite(&r, "s");
	assert_null(s->error);
	assert_cases(s, " pass\ndash skip\nlower skip\ntodo fail\nxfail pass\n pass\n"
		     "spaced   name fail\n");
	assert_string_equal(s->cases[3].diag, "TODO fall back to not ok");
	assert_string_equal(s->cases[6].diag, "TIMEOUT 30 seconds");
	assert_counts(s, 3, 2, 2);
	kb_ktap_result_release(&r);
}

static void test_inconsistent(void **state)
{
	struct kb_ktap_result r;

	(void)state;
	parse(&r, "KTAP version 1\n1..3\n"
		  "    KTAP version 1\n    # Subtest: a\n    1..1\n    not ok 1 x\nok 1 a\n"
		  "    KTAP version 1\n    # Subtest: b\n    1..0\nok 2 b\n"
		  "    KTAP version 1\n    # Subtest: c\n    1..1\n"
		  "        KTAP version 1\n        # Subtest: y\n    ok 1 y\nok 3 c\n");
	assert_string_equal(suite(&r, "a")->error,
			    "suite 'a': its result is 'ok' but case 'x' failed");
	assert_string_equal(suite(&r, "b")->error, "suite 'b': no test cases ran");
	assert_string_equal(suite(&r, "c")->error, "suite 'c': 'y' is ok but ran none of its subtests");
	assert_int_equal(suite(&r, "c")->cases[0].status, KB_KTAP_ERROR);
	assert_int_equal(suite(&r, "c")->status, KB_KTAP_ERROR);
	assert_null(r.error);
	kb_ktap_result_release(&r);
}

static void test_truncated(void **state)
{
	struct kb_ktap_result r;
	const struct kb_ktap_suite *s;

	(void)state;
	/* the log ends without a newline, in a case with parameters */
	parse(&r, "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: s\n    1..2\n"
		  "    ok 1 a\n        KTAP version 1\n        # Subtest: b\n        ok 1 p0");
	s = suite(&r, "s");
	assert_int_equal(s->status, KB_KTAP_ERROR);
	assert_string_equal(s->error, "suite 's': case 'b': no plan: "
			    "truncated: the log ends at line 9");
	assert_cases(s, "a pass\nb error\n");
	assert_int_equal(s->pass, 1);
	assert_null(r.error);
	kb_ktap_result_release(&r);

	/* a new document starts: the guest ran although the kernel's stopped */
	parse(&r, "KTAP version 1\n1..2\n    KTAP version 1\n    # Subtest: s\n    1..2\n"
		  "    ok 1 a\nKTAP version 1\n1..1\nok 1 t\n");
	assert_string_equal(suite(&r, "s")->error, "suite 's': plan 1..2 but 1 result: "
			    "truncated: a new KTAP document starts at line 7");
	assert_int_equal(suite(&r, "t")->status, KB_KTAP_PASS);
	assert_string_equal(r.error, "KTAP document at line 1: plan 1..2 but 1 result: "
			    "truncated: a new KTAP document starts at line 7");
	kb_ktap_result_release(&r);

	/* a suite cut before its "# Subtest:" line has no name */
	parse(&r, "KTAP version 1\n1..1\n    KTAP version 1\n");
	assert_int_equal(r.nsuites, 0);
	assert_string_equal(r.error, "KTAP document at line 1: suite at line 3: no plan: "
			    "truncated: the log ends at line 3");
	kb_ktap_result_release(&r);

	/* only the version line */
	parse(&r, "random: crng init done\nKTAP version 1\n");
	assert_int_equal(r.ndocuments, 1);
	assert_string_equal(r.error, "KTAP document at line 2: no plan and no results: "
			    "truncated: the log ends at line 2");
	kb_ktap_result_release(&r);
}

/* A suite whose result line is lost ends there; the next one is intact. */
static void test_lost_result_line(void **state)
{
	struct kb_ktap_result r;

	(void)state;
	parse(&r, "KTAP version 1\n1..2\n"
		  "    KTAP version 1\n    # Subtest: a\n    1..1\n    ok 1 x\n"
		  "    KTAP version 1\n    # Subtest: b\n    1..1\n    ok 1 y\nok 2 b\n");
	assert_string_equal(suite(&r, "a")->error,
			    "suite 'a': no result line: it ends before line 7");
	assert_int_equal(suite(&r, "b")->status, KB_KTAP_PASS);
	assert_null(r.error);
	kb_ktap_result_release(&r);
}

static void test_suite_document(void **state)
{
	struct kb_ktap_result r;
	char *doc = NULL;

	(void)state;
	parse_fixture(&r, "skip.log");
	/* the second suite: its result renumbered 1, its directive kept */
	assert_int_equal(kb_ktap_suite_document(&doc, &r, "kbackport_ipv6_tunnels"), 0);
	assert_string_equal(doc, "KTAP version 1\n1..1\n"
		"    KTAP version 1\n"
		"    # Subtest: kbackport_ipv6_tunnels\n"
		"    1..2\n"
		"    ok 1 sit_alias_is_netdev_sit0 # SKIP CONFIG_IPV6_SIT is not set\n"
		"    ok 2 ip6_tunnel_alias_is_netdev_ip6tnl0 # SKIP CONFIG_IPV6_TUNNEL is not set\n"
		"# kbackport_ipv6_tunnels: pass:0 fail:0 skip:2 total:2\n"
		"# Totals: pass:0 fail:0 skip:2 total:2\n"
		"ok 1 kbackport_ipv6_tunnels # SKIP\n");
	free(doc);
	assert_int_equal(kb_ktap_suite_document(&doc, &r, "nope"), KB_ENOTFOUND);
	assert_null(doc);
	assert_string_equal(kb_error_last(), "no KTAP suite 'nope' in the log");
	kb_ktap_result_release(&r);

	/* interleaved kernel lines are left out, the cut-off stays */
	parse_fixture(&r, "panic.log");
	assert_int_equal(kb_ktap_suite_document(&doc, &r, "kbackport_dev_load"), 0);
	assert_string_equal(doc, "KTAP version 1\n1..1\n"
		"    KTAP version 1\n"
		"    # Subtest: kbackport_dev_load\n"
		"    1..6\n"
		"    ok 1 net_admin_only_requests_netdev_name\n"
		"    ok 2 sys_module_only_requests_bare_name\n"
		"    ok 3 both_request_netdev_then_bare\n"
		"#PF: supervisor read access in kernel mode\n"
		"#PF: error_code(0x0000) - not-present page\n"
		" <TASK>\n"
		" load_name+0x11/0x20\n"
		" observe+0x9a/0x130\n"
		" no_caps_request_nothing+0x2b/0x40\n"
		" kunit_try_run_case+0x4e/0x90\n"
		" kthread+0xe6/0x110\n"
		" ret_from_fork+0x1f/0x30\n"
		" </TASK>\n");
	free(doc);
	kb_ktap_result_release(&r);
}

static void test_status_names(void **state)
{
	(void)state;
	assert_string_equal(kb_ktap_status_name(KB_KTAP_PASS), "pass");
	assert_string_equal(kb_ktap_status_name(KB_KTAP_FAIL), "fail");
	assert_string_equal(kb_ktap_status_name(KB_KTAP_SKIP), "skip");
	assert_string_equal(kb_ktap_status_name(KB_KTAP_ERROR), "error");
}

/* Nesting far beyond what the parser tracks: bounded, reported. */
static void test_deep_nesting(void **state)
{
	struct kb_buf log = KB_BUF_INIT;
	struct kb_ktap_result r;
	int i;

	(void)state;
	kb_buf_puts(&log, "KTAP version 1\n1..1\n");
	for (i = 1; i <= 5000; i++)
		kb_buf_printf(&log, "%*sKTAP version 1\n%*s# Subtest: t%d\n%*s1..1\n",
			      2 * i, "", 2 * i, "", i, 2 * i, "");
	for (i = 5000; i >= 1; i--)
		kb_buf_printf(&log, "%*sok 1 t%d\n", 2 * (i - 1), "", i);
	assert_int_equal(kb_ktap_parse(&r, log.ptr, log.size), 0);
	assert_int_equal(r.nsuites, 1);
	assert_string_equal(r.suites[0].name, "t1");
	assert_int_equal(r.suites[0].status, KB_KTAP_ERROR);
	assert_string_equal(r.suites[0].error, "suite 't1': case 't2': "
			    "tests nested more than 7 deep at line 24");
	kb_ktap_result_release(&r);
	kb_buf_release(&log);
}

/* Garbage: NUL bytes, no newline, binary; it must only not misbehave. */
static void test_garbage(void **state)
{
	static const char nul[] = "KTAP version 1\n1..1\n  KTAP version 1\n  # Subtest: a\0b\n"
				  "  1..1\n  ok 1 x\0y\nok 1 a\0b";
	static const char *const odd[] = {
		"\n\n\n", "KTAP version", "TAP version 1x\n", "ok 1 x\n", "1..3\n",
		"KTAP version 1\n1..1\nok\nnot ok\nnot ok 1\n", "KTAP version 1\n1..99999999999999999999\n",
		"[", "[ 1.", "[    1.000000]", "<6>", "<6>[ 1.0][", "KTAP version 1\n#\n# Subtest:\n",
		"KTAP version 1\n1..1\n  KTAP version 1\n  1..1\n  ok 1 x\nok 1\n",
		"KTAP version 1\n1..1\n# Subtest: s\n1..1\nok 1 s\n",
		"KTAP version 1\r\n1..1\r\n  # Subtest: s\r\n  1..1\r\n  ok 1 x\r\nok 1 s\r\n",
	};
	struct kb_ktap_result r;
	unsigned int seed = 1;
	char buf[512];
	size_t i, j;

	(void)state;
	assert_int_equal(kb_ktap_parse(&r, nul, sizeof(nul) - 1), 0);
	assert_true(r.nsuites >= 1);
	assert_string_equal(r.suites[0].name, "a");	/* a name stops at a NUL */
	kb_ktap_result_release(&r);
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		parse(&r, odd[i]);
		kb_ktap_result_release(&r);
	}
	parse(&r, odd[sizeof(odd) / sizeof(odd[0]) - 1]);	/* CRLF is fine */
	assert_int_equal(suite(&r, "s")->status, KB_KTAP_PASS);
	kb_ktap_result_release(&r);
	/* random lines of KTAP words */
	for (i = 0; i < 2000; i++) {
		static const char *const words[] = {
			"KTAP version 1", "TAP version 14", "1..", "ok ", "not ok ", "# Subtest: ",
			"# SKIP", "#", " ", "  ", "    ", "\n", "\n", "\n", "1", "2", "x", "- ",
			"[    0.1] ", "Kernel panic - not syncing", "\t", "\r", "reboot: ",
		};
		size_t len = 0;

		for (j = 0; j < 60 && len < sizeof(buf) - 40; j++) {
			const char *w;

			seed = seed * 1103515245 + 12345;
			w = words[(seed >> 16) % (sizeof(words) / sizeof(words[0]))];
			memcpy(buf + len, w, strlen(w));
			len += strlen(w);
		}
		assert_int_equal(kb_ktap_parse(&r, buf, len), 0);
		for (j = 0; j < r.nsuites; j++)
			assert_true(r.suites[j].status != KB_KTAP_ERROR || r.suites[j].error);
		kb_ktap_result_release(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass),
		cmocka_unit_test(test_fail_with_diagnostics),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_panic),
		cmocka_unit_test(test_garbled),
		cmocka_unit_test(test_tap14),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_plan_mismatch),
		cmocka_unit_test(test_numbering),
		cmocka_unit_test(test_no_plan),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_no_ktap),
		cmocka_unit_test(test_real_logs),
		cmocka_unit_test(test_result_lines),
		cmocka_unit_test(test_inconsistent),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_lost_result_line),
		cmocka_unit_test(test_suite_document),
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
