// SPDX-License-Identifier: GPL-2.0
/*
 * ext_errors: errors a user can read (configfs-ng.h, issue 16), through
 * the sample client cng_ext. After a failed write, mkdir or symlink, the
 * extended attribute user.configfs.error of the item's directory (and of
 * the file that failed) says when, who, what and why. Ours only: stock
 * keeps no records, and cng_ext needs our module.
 */
#define _GNU_SOURCE
#include <sys/xattr.h>

#include "ext_lib.h"

#include <grp.h>
#include <poll.h>

#define XA	"user.configfs.error"

static char rec[16384];

/* The record of PATH into rec; its length, or -errno. */
static ssize_t record(const char *path)
{
	ssize_t n = getxattr(path, XA, rec, sizeof(rec) - 1);

	if (n < 0)
		return -errno;
	rec[n] = 0;
	return n;
}

/* The record of PATH holds each of the strings. */
static bool record_has(const char *path, const char *a, const char *b)
{
	if (record(path) < 0) {
		say("%s: no record (%s)", path, ename(errno));
		return false;
	}
	if (strstr(rec, a) && (!b || strstr(rec, b)))
		return true;
	say("%s: record lacks '%s' or '%s':", path, a, b ? b : "");
	printf("%s", rec);
	return false;
}

/* errno as the record writes it: -EINVAL, or -22 without errno names. */
static bool record_errno(int err)
{
	char sym[32], num[32];

	snprintf(sym, sizeof(sym), ": -%s\n", ename(err));
	snprintf(num, sizeof(num), ": -%d\n", err);
	return strstr(rec, sym) || strstr(rec, num);
}

static bool t_bad_value(void)
{
	/*
	 * The log's lines are rate-limited (10 in 5 s, report.c), and a test
	 * run just before in the same boot (conf_stress) may have used the
	 * window up: let it pass, so that t_log_line() finds these lines.
	 */
	sleep(5);
	EXPECT(!mkdir(ITEMS "/a", 0755));
	EXPECT(put(ITEMS "/a/rw", "maybe\n") == -EINVAL);
	EXPECT(record_has(ITEMS "/a/rw", " uid=0 pid=", " write rw 'maybe'"));
	EXPECT(record_errno(EINVAL));
	EXPECT(record_has(ITEMS "/a/rw",
			  "\nreason: rw: 'maybe' is not one of 0, 1\n", NULL));
	/* The item's directory has it too; another file of the item not. */
	EXPECT(record_has(ITEMS "/a", " write rw 'maybe'", NULL));
	EXPECT(record(ITEMS "/a/port") == -ENODATA);
	/* A record starts with its time, in UTC. */
	EXPECT(strlen(rec) > 21 && rec[4] == '-' && rec[10] == 'T' &&
	       rec[19] == 'Z');
	return true;
}

static bool t_next_failure_replaces(void)
{
	EXPECT(put(ITEMS "/a/port", "70000") == -EINVAL);
	EXPECT(record_has(ITEMS "/a", " write port '70000'",
			  "reason: port: '70000' is not in 1..65535"));
	EXPECT(!strstr(rec, "maybe"));
	EXPECT(record(ITEMS "/a/rw") == -ENODATA);
	return true;
}

static bool t_success_clears(void)
{
	EXPECT(!put(ITEMS "/a/rw", "1"));
	EXPECT(record(ITEMS "/a") == -ENODATA);
	EXPECT(record(ITEMS "/a/port") == -ENODATA);
	return true;
}

static bool t_mkdir_refused(void)
{
	EXPECT(FAILS_WITH(mkdir(ITEMS "/bad1", 0755), EINVAL));
	EXPECT(record_has(ITEMS, " mkdir bad1:",
			  "reason: name 'bad1' is refused: names starting with"));
	EXPECT(strstr(rec, " with 'bad' are reserved\n"));
	EXPECT(record_errno(EINVAL));
	/* A good mkdir in the group clears it. */
	EXPECT(!mkdir(ITEMS "/b", 0755));
	EXPECT(record(ITEMS) == -ENODATA);
	return true;
}

static bool t_symlink_refused(void)
{
	EXPECT(FAILS_WITH(symlink("../b", ITEMS "/a/l"), EPERM));
	EXPECT(record_has(ITEMS "/a", " symlink l '../b'", NULL));
	EXPECT(record_errno(EPERM));
	return true;
}

static bool t_log_line(void)
{
	/* The failures above were logged, with path and caller. */
	EXPECT(!sh("dmesg | grep -q '%s'",
		   "configfs: write /cng_ext/items/a/rw failed: .*(ext_errors\\[[0-9]*\\] uid 0)"));
	EXPECT(!sh("dmesg | grep -q 'configfs: mkdir /cng_ext/items/bad1 failed'"));
	return true;
}

/* Writes bad values VAL-0..VAL-n to ITEM's port; checks its own record. */
static int racer(const char *item, const char *val, int n)
{
	char path[256], want[64], buf[64];
	int i, bad = 0;

	snprintf(path, sizeof(path), ITEMS "/%s/port", item);
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%s-%d", val, i);
		if (put(path, buf) != -EINVAL)
			bad++;
		snprintf(want, sizeof(want), " write port '%s-%d'", val, i);
		if (record(path) < 0 || !strstr(rec, want) ||
		    strstr(rec, val[0] == 'x' ? "'y-" : "'x-"))
			bad++;
	}
	return bad;
}

static bool t_per_item(void)
{
	pid_t pid;
	int st, bad;

	EXPECT(!mkdir(ITEMS "/x", 0755) && !mkdir(ITEMS "/y", 0755));
	pid = fork();
	if (!pid)
		_exit(racer("y", "y", 300) ? 1 : 0);
	bad = racer("x", "x", 300);
	EXPECT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0);
	EXPECT(bad == 0);
	EXPECT(record_has(ITEMS "/x", "'x-299'", NULL));
	EXPECT(record_has(ITEMS "/y", "'y-299'", NULL));
	return true;
}

/* As UID, fails a write to PATH, then reads the records of READS. */
static int as_user(uid_t uid, const char *write_path, const char *read_path)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		if (setgid(uid) || setuid(uid))
			_exit(100);
		if (write_path && put(write_path, "maybe") != -EINVAL)
			_exit(101);
		if (record(read_path) < 0)
			_exit(errno == EACCES ? 102 : 103);
		_exit(strstr(rec, " uid=1000 ") ? 0 : 104);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static bool t_permissions(void)
{
	int ret;

	/* An item given to user 1000 (mkdir as root, then chown). */
	EXPECT(!mkdir(ITEMS "/u", 0755));
	EXPECT(!sh("chown -R 1000:1000 " ITEMS "/u"));
	ret = as_user(1000, ITEMS "/u/rw", ITEMS "/u/rw");
	EXPECT(ret == 0);
	if (ret)
		say("as user 1000: %d", ret);
	EXPECT(record_has(ITEMS "/u", " uid=1000 ", " write rw 'maybe'"));
	/* Nobody else who cannot read the item reads its record. */
	EXPECT(!chmod(ITEMS "/u", 0700) && !chmod(ITEMS "/u/rw", 0600));
	EXPECT(!sh("chown 0:0 " ITEMS "/u " ITEMS "/u/rw"));
	EXPECT(as_user(1000, NULL, ITEMS "/u") == 102);
	EXPECT(as_user(1000, NULL, ITEMS "/u/rw") == 102);
	return true;
}

static bool t_long_reason(void)
{
	ssize_t n;

	EXPECT(put(ITEMS "/a/trap", "long") == -E2BIG);
	n = record(ITEMS "/a/trap");
	EXPECT(n > 4096 && n < 4096 + 256);
	EXPECT(strstr(rec, "\nreason: long: xxxxxxxx"));
	return true;
}

static bool t_atomic_reason(void)
{
	EXPECT(put(ITEMS "/a/trap", "atomic") == -EBUSY);
	EXPECT(record_has(ITEMS "/a/trap",
			  "\nreason: atomic: given under a spinlock\n", NULL));
	return true;
}

static bool t_log_capture(void)
{
	EXPECT(put(ITEMS "/a/trap", "log") == -EIO);
	EXPECT(record_has(ITEMS "/a/trap",
			  "\nlog: log: the store's own line\n", NULL));
	/* The work item printed meanwhile, from another task: not kept. */
	EXPECT(!sh("dmesg | grep -q 'a line from another task'"));
	EXPECT(!strstr(rec, "another task"));
	return true;
}

static bool t_later(void)
{
	int i;

	EXPECT(!put(ITEMS "/b/trap", "later"));
	for (i = 0; i < 50 && record(ITEMS "/b") < 0; i++)
		usleep(100000);
	EXPECT(record_has(ITEMS "/b", " report b\n",
			  "reason: reported later, from a work item\n"));
	return true;
}

static bool t_removed(void)
{
	EXPECT(put(ITEMS "/x/rw", "2") == -EINVAL);
	EXPECT(!rmdir(ITEMS "/x"));
	EXPECT(!mkdir(ITEMS "/x", 0755));
	EXPECT(record(ITEMS "/x") == -ENODATA);
	return true;
}

/*
 * The record of PATH as user UID reads it, into rec: its length, or
 * -errno. The child sends the getxattr result, then the record.
 */
static ssize_t record_as(uid_t uid, const char *path)
{
	ssize_t n = -EIO;
	int fd[2], st;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	pid = fork();
	if (!pid) {
		close(fd[0]);
		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			_exit(100);
		n = record(path);
		if (write(fd[1], &n, sizeof(n)) != sizeof(n) ||
		    (n > 0 && write(fd[1], rec, n) != n))
			_exit(101);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &n, sizeof(n)) != sizeof(n))
		n = -EIO;
	if (n > 0 && read(fd[0], rec, n) != n)
		n = -EIO;
	rec[n > 0 ? n : 0] = 0;
	close(fd[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		n = -EIO;
	return n;
}

#define DMESG_RESTRICT	"/proc/sys/kernel/dmesg_restrict"

/* kernel.dmesg_restrict, set to VAL; the old value. */
static int dmesg_restrict(int val)
{
	char buf[8] = "";
	int old;

	slurp(DMESG_RESTRICT, buf, sizeof(buf));
	old = atoi(buf);
	snprintf(buf, sizeof(buf), "%d", val);
	put(DMESG_RESTRICT, buf);
	return old;
}

#define NOBODY	65534
#define HIDDEN_REASON	"\nreason: (hidden: needs read access to the file)\n"
#define HIDDEN_LOG	"\nlog: (1 line hidden: need CAP_SYSLOG)\n"

/* A 0600 file's value and reason: not for others, through the directory. */
static bool t_hidden_0600(void)
{
	EXPECT(!mkdir(ITEMS "/h", 0755));
	EXPECT(!chmod(ITEMS "/h/rw", 0600));
	EXPECT(put(ITEMS "/h/rw", "secret") == -EINVAL);
	EXPECT(record_as(NOBODY, ITEMS "/h") > 0);
	EXPECT(strstr(rec, " uid=0 pid="));
	EXPECT(strstr(rec, " write rw (value hidden): -"));
	EXPECT(strstr(rec, HIDDEN_REASON));
	EXPECT(!strstr(rec, "secret"));
	printf("%s", rec);
	/* The file's own record: the VFS lets only its readers ask. */
	EXPECT(record_as(NOBODY, ITEMS "/h/rw") == -EACCES);
	/* Root reads it all. */
	EXPECT(record_has(ITEMS "/h", " write rw 'secret'",
			  "\nreason: rw: 'secret' is not one of 0, 1\n"));
	/* Made readable, the same record shows the value. */
	EXPECT(!chmod(ITEMS "/h/rw", 0644));
	EXPECT(record_as(NOBODY, ITEMS "/h") > 0 &&
	       strstr(rec, " write rw 'secret'"));
	EXPECT(record_as(NOBODY, ITEMS "/h/rw") > 0 &&
	       strstr(rec, "reason: rw: 'secret'"));
	return true;
}

/*
 * A write-only file (trap, 0200) whose store prints a line: the value
 * follows the file's mode, the log line the kernel log's rule.
 */
static bool t_hidden_write_only_and_log(void)
{
	int old = dmesg_restrict(1);

	EXPECT(put(ITEMS "/h/trap", "log") == -EIO);
	EXPECT(record_as(NOBODY, ITEMS "/h") > 0);
	printf("%s", rec);
	EXPECT(strstr(rec, " write trap (value hidden): -"));
	EXPECT(strstr(rec, HIDDEN_LOG));
	EXPECT(!strstr(rec, "the store's own line"));
	/* With dmesg_restrict off, anyone may read the kernel log. */
	dmesg_restrict(0);
	EXPECT(record_as(NOBODY, ITEMS "/h") > 0);
	EXPECT(strstr(rec, " write trap (value hidden): -"));
	EXPECT(strstr(rec, "\nlog: log: the store's own line\n"));
	/* Root has CAP_SYSLOG. */
	dmesg_restrict(1);
	EXPECT(record_has(ITEMS "/h", " write trap 'log'",
			  "\nlog: log: the store's own line\n"));
	dmesg_restrict(old);
	return true;
}

/* Through a readable file's own xattr too, the log follows its rule. */
static bool t_readable_file_log(void)
{
	int old = dmesg_restrict(1);

	EXPECT(!chmod(ITEMS "/h/trap", 0644));
	EXPECT(put(ITEMS "/h/trap", "log") == -EIO);
	EXPECT(record_as(NOBODY, ITEMS "/h/trap") > 0);
	printf("%s", rec);
	EXPECT(strstr(rec, " write trap 'log': -"));
	EXPECT(strstr(rec, HIDDEN_LOG));
	EXPECT(!strstr(rec, "the store's own line"));
	dmesg_restrict(0);
	EXPECT(record_as(NOBODY, ITEMS "/h/trap") > 0);
	EXPECT(strstr(rec, "\nlog: log: the store's own line\n"));
	dmesg_restrict(old);
	EXPECT(!rmdir(ITEMS "/h"));
	return true;
}

/* The failing user reads its own value and reason, others do not. */
static bool t_failing_user_sees_own(void)
{
	pid_t pid;
	int st;

	EXPECT(!mkdir(ITEMS "/o", 0755));
	EXPECT(!sh("chown -R 1000:1000 " ITEMS "/o"));
	EXPECT(!chmod(ITEMS "/o/rw", 0200));
	pid = fork();
	if (!pid) {
		if (setgroups(0, NULL) || setgid(1000) || setuid(1000))
			_exit(100);
		_exit(put(ITEMS "/o/rw", "mine") == -EINVAL ? 0 : 101);
	}
	EXPECT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0);
	EXPECT(record_as(1000, ITEMS "/o") > 0);
	EXPECT(strstr(rec, " uid=1000 ") && strstr(rec, " write rw 'mine'") &&
	       strstr(rec, "\nreason: rw: 'mine' is not one of 0, 1\n"));
	EXPECT(record_as(NOBODY, ITEMS "/o") > 0);
	EXPECT(strstr(rec, " write rw (value hidden): -") &&
	       strstr(rec, HIDDEN_REASON) && !strstr(rec, "mine"));
	EXPECT(!rmdir(ITEMS "/o"));
	return true;
}

/*
 * A timer's interrupt that reports on the item while the store runs is
 * not inside the store: its reasons are refused, and never touch the
 * store's (which the interrupt could otherwise realloc under it).
 */
static bool t_interrupt_reason(void)
{
	int fired = -1, refused = -2;
	const char *p;

	EXPECT(put(ITEMS "/a/trap", "irq") == -EIO);
	EXPECT(record_has(ITEMS "/a/trap",
			  "\nreason: irq: the store's reason 1\n",
			  "\nreason: irq: the store's reason 8\n"));
	EXPECT(!strstr(rec, "from an interrupt"));
	p = strstr(rec, "the timer fired ");
	EXPECT(p && sscanf(p, "the timer fired %d times, %d refused", &fired,
			   &refused) == 2);
	say("timer: fired %d, refused %d", fired, refused);
	EXPECT(fired > 0 && fired == refused);
	return true;
}

static bool t_stock_names(void)
{
	/* Other user.* names, and listing, are as on stock. */
	EXPECT(FAILS_WITH(getxattr(ITEMS "/a", "user.other", rec, 16),
			  EOPNOTSUPP));
	EXPECT(FAILS_WITH(setxattr(ITEMS "/a", XA, "x", 1, 0), EOPNOTSUPP));
	EXPECT(listxattr(ITEMS "/a", rec, sizeof(rec)) == 0);
	return true;
}

static const struct ktap_case cases[] = {
	{ "bad_value_refused_with_its_reason_on_file_and_item", t_bad_value },
	{ "next_failure_replaces_the_record", t_next_failure_replaces },
	{ "next_success_clears_the_record", t_success_clears },
	{ "mkdir_refused_with_its_reason_on_the_group", t_mkdir_refused },
	{ "symlink_refused_recorded_with_its_target", t_symlink_refused },
	{ "kernel_log_names_path_and_caller", t_log_line },
	{ "records_are_per_item_under_racing_writers", t_per_item },
	{ "record_readable_by_its_user_and_no_one_who_cannot_read",
	  t_permissions },
	{ "reason_longer_than_a_page_is_cut", t_long_reason },
	{ "reason_given_under_a_spinlock_is_kept", t_atomic_reason },
	{ "only_the_failing_tasks_log_lines_are_kept", t_log_capture },
	{ "reason_given_outside_a_call_becomes_the_record", t_later },
	{ "record_goes_with_its_removed_item", t_removed },
	{ "other_xattr_names_and_listing_as_on_stock", t_stock_names },
	{ "value_and_reason_of_a_0600_file_hidden_from_others", t_hidden_0600 },
	{ "write_only_value_hidden_log_lines_follow_dmesg_restrict",
	  t_hidden_write_only_and_log },
	{ "readable_files_own_record_log_lines_follow_dmesg_restrict",
	  t_readable_file_log },
	{ "failing_user_sees_own_value_and_reason", t_failing_user_sees_own },
	{ "reason_from_an_interrupt_is_not_the_calls", t_interrupt_reason },
};

int main(void)
{
	return ext_run(cases, ARRAY_SIZE(cases), "no error records");
}
