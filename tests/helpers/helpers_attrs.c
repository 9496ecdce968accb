// SPDX-License-Identifier: GPL-2.0
/*
 * helpers_attrs: every kind of typed attribute of configfs-ng.h's helper
 * layer, through samples/cng_helpers, on both modules: what each shows
 * and takes, and what it refuses, with which errno and (ours: in the
 * error record) which reason; the hooks; read-only and constant
 * attributes; a child's init, default group and links.
 *
 *   /sys/kernel/config/cng_helpers/
 *     description
 *     a/   rw count big level port mode label host peer server even
 *       stats/changes
 *       b -> ../b
 *     b/
 */
#include "helpers_lib.h"

#define H	CFS "/cng_helpers"
#define A	H "/a"
#define PORTS	", with port in 1..65535"
#define S64_RANGE	"-9223372036854775808..9223372036854775807"

static bool t_mkdir(void)
{
	EXPECT(is(H "/description",
		  "[cng_helpers]\n\nEvery kind of typed attribute of configfs-ng.h.\n"));
	EXPECT(!mkdir(A, 0755) && !mkdir(H "/b", 0755));
	EXPECT(is(A "/rw", "0\n") && is(A "/count", "0\n"));
	EXPECT(is(A "/port", "10809\n") && is(A "/mode", "off\n"));
	EXPECT(is(A "/label", "\n") && is(A "/peer", "\n"));
	EXPECT(is(A "/stats/changes", "0\n"));
	return true;
}

static bool t_mkdir_refused(void)
{
	EXPECT(FAILS_WITH(mkdir(H "/bad1", 0755), EINVAL));
	EXPECT(reason_is(H, "name 'bad1' is refused: names starting with 'bad' are reserved"));
	EXPECT(logged("/cng_helpers", "name 'bad1' is refused"));
	EXPECT(FAILS_WITH(access(H "/bad1", F_OK), ENOENT));
	return true;
}

static bool t_bool(void)
{
	EXPECT(!put(A "/rw", "1\n") && is(A "/rw", "1\n"));
	EXPECT(refused(A "/rw", "maybe", EINVAL,
		       "rw: 'maybe' is not one of 0, 1"));
	EXPECT(refused(A "/rw", "10", EINVAL, "rw: '10' is not one of 0, 1"));
	EXPECT(!put(A "/rw", "0") && is(A "/rw", "0\n"));
	return true;
}

static bool t_int_range(void)
{
	EXPECT(!put(A "/count", "-10") && is(A "/count", "-10\n"));
	EXPECT(!put(A "/count", "10") && is(A "/count", "10\n"));
	EXPECT(refused(A "/count", "11", EINVAL,
		       "count: '11' is not in -10..10"));
	EXPECT(refused(A "/count", "-11\n", EINVAL,
		       "count: '-11' is not in -10..10"));
	EXPECT(refused(A "/count", "ten", EINVAL,
		       "count: 'ten' is not in -10..10"));
	EXPECT(is(A "/count", "10\n"));
	return true;
}

static bool t_int_types(void)
{
	EXPECT(!put(A "/big", "-9223372036854775808"));
	EXPECT(is(A "/big", "-9223372036854775808\n"));
	EXPECT(refused(A "/big", "9223372036854775808", ERANGE,
		       "big: '9223372036854775808' is not in " S64_RANGE));
	EXPECT(!put(A "/level", "255") && is(A "/level", "255\n"));
	EXPECT(refused(A "/level", "256", ERANGE,
		       "level: '256' is not in 0..255"));
	EXPECT(refused(A "/level", "-1", EINVAL,
		       "level: '-1' is not in 0..255"));
	return true;
}

static bool t_changed_hook(void)
{
	/* Beyond a u16: ERANGE, as kstrtou16() would say. */
	EXPECT(refused(A "/port", "70000", ERANGE,
		       "port: '70000' is not in 1..65535"));
	EXPECT(refused(A "/port", "0", EINVAL, "port: '0' is not in 1..65535"));
	EXPECT(is(A "/stats/changes", "0\n"));
	EXPECT(!put(A "/port", "4420") && is(A "/port", "4420\n"));
	EXPECT(is(A "/stats/changes", "1\n"));
	/* The same value again is no change. */
	EXPECT(!put(A "/port", "4420\n") && is(A "/stats/changes", "1\n"));
	EXPECT(!put(A "/port", "80") && is(A "/stats/changes", "2\n"));
	return true;
}

static bool t_enum(void)
{
	EXPECT(!put(A "/mode", "fast\n") && is(A "/mode", "fast\n"));
	EXPECT(refused(A "/mode", "turbo", EINVAL,
		       "mode: 'turbo' is not one of off, slow, fast"));
	EXPECT(refused(A "/mode", "2", EINVAL,
		       "mode: '2' is not one of off, slow, fast"));
	EXPECT(is(A "/mode", "fast\n"));
	return true;
}

static bool t_string(void)
{
	EXPECT(!put(A "/label", "disk one\n") && is(A "/label", "disk one\n"));
	EXPECT(!put(A "/label", "fifteen bytes.."));
	EXPECT(is(A "/label", "fifteen bytes..\n"));
	EXPECT(refused(A "/label", "sixteen bytes...", EINVAL,
		       "label: 'sixteen bytes...' is not one line of at most 15 bytes"));
	EXPECT(refused(A "/label", "two\nlines", EINVAL,
		       "label: 'two\\nlines' is not one line of at most 15 bytes"));
	EXPECT(!put(A "/label", "\n") && is(A "/label", "\n"));
	return true;
}

static bool t_addr(void)
{
	EXPECT(!put(A "/host", "10.0.0.1") && is(A "/host", "10.0.0.1\n"));
	EXPECT(!put(A "/host", "2001:db8:0::1") &&
	       is(A "/host", "2001:db8::1\n"));
	EXPECT(!put(A "/host", "[::1]\n") && is(A "/host", "::1\n"));
	EXPECT(refused(A "/host", "10.0.0.1:80", EINVAL,
		       "host: '10.0.0.1:80' is not an IPv4 or IPv6 address"));
	EXPECT(refused(A "/host", "10.0.0", EINVAL,
		       "host: '10.0.0' is not an IPv4 or IPv6 address"));
	EXPECT(refused(A "/host", "[::1]:80", EINVAL,
		       "host: '[::1]:80' is not an IPv4 or IPv6 address"));
	EXPECT(is(A "/host", "::1\n"));
	return true;
}

static bool t_addr_port(void)
{
	const char *opt = "is not a.b.c.d, a.b.c.d:port, an IPv6 address or [IPv6]:port" PORTS;
	const char *req = "is not a.b.c.d:port or [IPv6]:port" PORTS;
	char want[256];

	EXPECT(!put(A "/peer", "192.0.2.1:4420") &&
	       is(A "/peer", "192.0.2.1:4420\n"));
	EXPECT(!put(A "/peer", "192.0.2.1") && is(A "/peer", "192.0.2.1\n"));
	EXPECT(!put(A "/peer", "[fe80::1]:4420") &&
	       is(A "/peer", "[fe80::1]:4420\n"));
	EXPECT(!put(A "/peer", "fe80::1") && is(A "/peer", "fe80::1\n"));
	snprintf(want, sizeof(want), "peer: '[::1]:70000' %s", opt);
	EXPECT(refused(A "/peer", "[::1]:70000", EINVAL, want));
	snprintf(want, sizeof(want), "peer: '::1:80]' %s", opt);
	EXPECT(refused(A "/peer", "::1:80]", EINVAL, want));
	snprintf(want, sizeof(want), "peer: '1.2.3.4:' %s", opt);
	EXPECT(refused(A "/peer", "1.2.3.4:", EINVAL, want));
	EXPECT(is(A "/peer", "fe80::1\n"));

	EXPECT(!put(A "/server", "[2001:db8::2]:8009") &&
	       is(A "/server", "[2001:db8::2]:8009\n"));
	EXPECT(!put(A "/server", "198.51.100.7:1") &&
	       is(A "/server", "198.51.100.7:1\n"));
	snprintf(want, sizeof(want), "server: '198.51.100.7' %s", req);
	EXPECT(refused(A "/server", "198.51.100.7", EINVAL, want));
	snprintf(want, sizeof(want), "server: '2001:db8::2' %s", req);
	EXPECT(refused(A "/server", "2001:db8::2", EINVAL, want));
	snprintf(want, sizeof(want), "server: '[2001:db8::2]' %s", req);
	EXPECT(refused(A "/server", "[2001:db8::2]", EINVAL, want));
	return true;
}

static bool t_check_hook(void)
{
	EXPECT(!put(A "/even", "-4") && is(A "/even", "-4\n"));
	EXPECT(refused(A "/even", "3", EINVAL, "even: '3' is not even"));
	EXPECT(is(A "/even", "-4\n"));
	return true;
}

static bool t_long_value(void)
{
	char v[101], want[256];

	memset(v, '7', 100);
	v[100] = 0;
	snprintf(want, sizeof(want), "count: '%.64s...' is not in -10..10", v);
	EXPECT(refused(A "/count", v, ERANGE, want));
	return true;
}

static bool t_read_only(void)
{
	struct stat st;

	EXPECT(!stat(A "/stats/changes", &st) && (st.st_mode & 0777) == 0444);
	EXPECT(!stat(A "/port", &st) && (st.st_mode & 0777) == 0644);
	EXPECT(!stat(H "/description", &st) && (st.st_mode & 0777) == 0444);
	EXPECT(FAILS_WITH(open(A "/stats/changes", O_WRONLY), EACCES));
	return true;
}

static bool t_links(void)
{
	char buf[64];
	ssize_t n;

	/* configfs takes a relative target from the cwd, not the link. */
	EXPECT(!symlink(H "/b", A "/b"));
	n = readlink(A "/b", buf, sizeof(buf) - 1);
	EXPECT(n > 0 && (buf[n] = 0, strstr(buf, "b")));
	EXPECT(FAILS_WITH(symlink(H "/b/stats", A "/s"), EINVAL));
	EXPECT(reason_is(A, "link to 'stats': not an item of cng_helpers"));
	EXPECT(!unlink(A "/b"));
	return true;
}

static bool t_rmdir(void)
{
	EXPECT(!rmdir(A) && !rmdir(H "/b"));
	EXPECT(FAILS_WITH(access(A, F_OK), ENOENT));
	return true;
}

static const struct ktap_case cases[] = {
	{ "mkdir_makes_an_item_with_its_defaults_and_default_group", t_mkdir },
	{ "init_hook_refuses_a_name_with_its_reason", t_mkdir_refused },
	{ "bool_takes_0_and_1_only", t_bool },
	{ "int_with_a_range_refuses_outside_it", t_int_range },
	{ "ints_take_their_types_range_erange_beyond", t_int_types },
	{ "changed_hook_runs_when_the_value_changes", t_changed_hook },
	{ "enum_takes_its_names", t_enum },
	{ "string_takes_one_line_that_fits", t_string },
	{ "address_without_port_ipv4_ipv6_brackets", t_addr },
	{ "address_with_optional_or_required_port", t_addr_port },
	{ "check_hook_refuses_with_its_words", t_check_hook },
	{ "long_value_is_quoted_cut", t_long_value },
	{ "read_only_and_constant_attributes_are_0444", t_read_only },
	{ "allow_link_passes_through", t_links },
	{ "rmdir_removes_items_and_default_groups", t_rmdir },
};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (helpers_load("cng_helpers")) {
		ktap_skip_all("setup failed");
		return 1;
	}
	run_cases(cases, ARRAY_SIZE(cases));
	sh("rm " A "/b 2>/dev/null; rmdir " H "/* 2>/dev/null");
	if (helpers_unload("cng_helpers"))
		ktap_failed++;
	return ktap_exit_status();
}
