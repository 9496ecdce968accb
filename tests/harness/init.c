// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the test guest: mounts the pseudo file systems, loads the chosen
 * configfs module, mounts configfs, then either runs the test list or hands
 * the console to a shell, and powers off.
 *
 * Test verdicts go to the verdict port (/dev/ttyS1, or cng.verdict=) and
 * nowhere else; the console only carries the kernel log. After each test
 * the kernel log written since the test began is scanned for reports of
 * kernel bugs and for lost records, kmemleak scans (on a kernel booted
 * with it), and the modules the test left loaded are unloaded; a report,
 * a leak, a lost record, a kmemleak that cannot scan or a module left
 * behind fails the test, with the evidence copied to the verdict port, as
 * does KTAP that does not add up (see struct ktap_count). After a kernel
 * report the next test gets a new boot. What a test left running in a
 * session of its own is killed when it ends (kill_leftovers), and init
 * reaps every orphan.
 *
 * Verdict port protocol, one line each, read by tests/harness/run.sh:
 *   #cng-start N NAME	test N begins
 *   <four spaces>TEXT	the test's output, as KTAP subtest lines
 *   ok N NAME / not ok N NAME # reason
 *   #cng-abort REASON	the guest will not go on; restart after test N
 *			(after a kernel report, a test that cannot be killed,
 *			or a failure of init's own)
 *   #cng-done		every test ran and the guest will power off
 *
 * Kernel command line parameters: cng.mode=test|run|tour,
 * cng.configfs=ours|stock|builtin (builtin: the kernel has configfs built
 * in, ours from the patch series; no module is loaded and the tests run
 * as on ours, with CNG_BUILTIN=1), cng.start=N (first test to run, from 1),
 * cng.timeout_scale=N (multiplies every test's timeout), cng.verdict=DEV
 * (the verdict port's device, when not /dev/ttyS1: on arm64's virt machine,
 * whose one UART is the console, a PCI serial port, tests/harness/run.sh),
 * kmemleak=on (the kernel's own; kmemleak must then work).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define TEST_LIST	"/tests/list"
#define OUR_MODULE	"/lib/modules/cng/configfs.ko"
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"
#define MAX_LOG_LINES	400
#define HUNG_TASK_TIMEOUT	"/proc/sys/kernel/hung_task_timeout_secs"
#define HUNG_TASK_INTERVAL "/proc/sys/kernel/hung_task_check_interval_secs"
#define HUNG_TASK_CHECK		"5"	/* s between two checks */

static FILE *verdict;
static int kmsg_fd = -1;
static int modules_fd = -1;
static char mode[16] = "test";
static char which_configfs[16] = "ours";
static char verdict_port[64] = "/dev/ttyS1";
static int start_at = 1;
static int timeout_scale = 1;
/* Booted with kmemleak=on: a kmemleak that cannot scan fails the test. */
static bool kmemleak_expected;

/* Substrings that mark a kernel report of a bug in the log. */
static const char *const bad_markers[] = {
#include "kernel-reports.h"
	NULL,
};

/*
 * Before powering off: the verdict port's last lines out of the UART.
 * A tty keeps written bytes in its buffer until the driver sends them;
 * on a busy host the power-off came first and the runner lost the
 * final verdict ("guest died" after a clean power-off, seen on
 * ppc64el's PCI 16550). A UART that never drains keeps the guest up
 * here; the runner's timeout then kills it, as it would a hang.
 */
static void power_off(void)
{
	if (verdict) {
		fflush(verdict);
		tcdrain(fileno(verdict));
	}
	sync();
	reboot(RB_POWER_OFF);
}

static void die(const char *what)
{
	fprintf(stderr, "init: %s: %s\n", what, strerror(errno));
	if (verdict)
		fprintf(verdict, "#cng-abort init: %s: %s\n", what,
			strerror(errno));
	power_off();
	_exit(1);
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(verdict, fmt, ap);
	va_end(ap);
	fflush(verdict);
}

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		fprintf(stderr, "init: %s: %s\n", path, strerror(errno));
	close(fd);
}

static void mount_pseudo(void)
{
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	mkdir("/run", 0755);
	if (mount("proc", "/proc", "proc", 0, NULL))
		die("mount /proc");
	if (mount("sysfs", "/sys", "sysfs", 0, NULL))
		die("mount /sys");
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
		die("mount /dev");
	mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
	mount("tmpfs", "/run", "tmpfs", 0, "mode=0755");
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	/* The links udev makes; without them "> /dev/stdout" makes a file. */
	symlink("/proc/self/fd", "/dev/fd");
	symlink("/proc/self/fd/0", "/dev/stdin");
	symlink("/proc/self/fd/1", "/dev/stdout");
	symlink("/proc/self/fd/2", "/dev/stderr");
	mkdir("/dev/pts", 0755);
	mount("devpts", "/dev/pts", "devpts", 0, NULL);
	mkdir("/dev/shm", 01777);
	mount("tmpfs", "/dev/shm", "tmpfs", 0, "mode=1777");
}

static void parse_cmdline(void)
{
	static const char delim[] = { ' ', '\n', '\0' };
	char buf[4096], *tok, *save;
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		die("open /proc/cmdline");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		die("read /proc/cmdline");
	buf[n] = '\0';

	for (tok = strtok_r(buf, delim, &save); tok;
	     tok = strtok_r(NULL, delim, &save)) {
		if (!strncmp(tok, "cng.mode=", 9))
			snprintf(mode, sizeof(mode), "%s", tok + 9);
		else if (!strncmp(tok, "cng.configfs=", 13))
			snprintf(which_configfs, sizeof(which_configfs), "%s",
				 tok + 13);
		else if (!strncmp(tok, "cng.start=", 10))
			start_at = atoi(tok + 10);
		else if (!strncmp(tok, "cng.timeout_scale=", 18))
			timeout_scale = atoi(tok + 18);
		else if (!strncmp(tok, "cng.verdict=", 12))
			snprintf(verdict_port, sizeof(verdict_port), "%s",
				 tok + 12);
		else if (!strcmp(tok, "kmemleak=on"))
			kmemleak_expected = true;
	}
}

static void open_verdict(const char *path)
{
	struct termios tio;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		verdict = stdout;
		die(path);
	}
	if (!tcgetattr(fd, &tio)) {
		cfmakeraw(&tio);
		tcsetattr(fd, TCSANOW, &tio);
	}
	verdict = fdopen(fd, "w");
	if (!verdict)
		die("fdopen verdict");
	setvbuf(verdict, NULL, _IOLBF, 0);
}

static int load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

static void load_configfs(void)
{
	char path[256];
	struct utsname uts;
	int ret;

	uname(&uts);
	if (!strcmp(which_configfs, "builtin"))
		goto mount;
	if (!strcmp(which_configfs, "stock"))
		snprintf(path, sizeof(path),
			 "/lib/modules/%s/kernel/fs/configfs/configfs.ko",
			 uts.release);
	else
		snprintf(path, sizeof(path), "%s", OUR_MODULE);
	ret = load_module(path, "");
	if (ret) {
		errno = -ret;
		die(path);
	}
mount:
	if (mount("none", "/sys/kernel/config", "configfs", 0, NULL))
		die("mount configfs");
}

/*
 * Kernel log scanning. /dev/kmsg gives one record per read(); records that
 * were overwritten before we read them give EPIPE and are skipped.
 */
static bool line_is_bad(const char *msg)
{
	int i;

	for (i = 0; bad_markers[i]; i++)
		if (strstr(msg, bad_markers[i]))
			return true;
	return false;
}

/*
 * Read the kernel log written since the last call. Records overwritten
 * before they were read (the ring buffer wrapped) read as EPIPE; the gap
 * in sequence numbers says how many, in *@lost: a report may have been
 * among them. When the stretch holds a report or a gap, copy it to the
 * verdict port. Returns true when no record matched a marker.
 */
static bool scan_kmsg(unsigned long long *lost)
{
	static unsigned long long next_seq;	/* 0: nothing read yet */
	static char rec[8192];
	char **lines = NULL;
	int nlines = 0, i;
	bool clean = true;

	*lost = 0;
	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		unsigned long long seq;
		char *msg, *nl;
		bool bad;

		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (sscanf(rec, "%*u,%llu,", &seq) == 1) {
			if (next_seq && seq > next_seq)
				*lost += seq - next_seq;
			next_seq = seq + 1;
		}
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		bad = line_is_bad(msg);
		if (bad)
			clean = false;
		/* Past the first lines, only the reports themselves. */
		if (nlines < MAX_LOG_LINES || bad) {
			lines = realloc(lines, sizeof(*lines) * (nlines + 1));
			lines[nlines++] = strdup(msg);
		}
	}
	if (!clean || *lost) {
		say("    # kernel log during this test:\n");
		if (*lost)
			say("    # >>> %llu kernel log records lost: overwritten before read\n",
			    *lost);
		for (i = 0; i < nlines; i++)
			say("    # %s%s\n", line_is_bad(lines[i]) ? ">>> " : "",
			    lines[i]);
	}
	for (i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	return clean;
}

enum leak_scan { LEAKS_NONE, LEAKS_SUSPECTED, LEAKS_UNKNOWN };

/*
 * On a kernel with kmemleak, scan now and report what it suspects, then
 * clear the list so that each leak is reported once. kmemleak reports an
 * object on the second scan that finds it unreferenced and unchanged, and
 * only once it is 5 s old: a leak is usually reported against the test
 * after the one that made it, and the last ones of a boot against
 * unload_all_modules, which scans twice. A kmemleak that
 * cannot be opened or refuses to scan (EPERM once it has turned itself
 * off, which an allocation failure of its own can cause) proves nothing:
 * LEAKS_UNKNOWN, with the reason shown. With @report false, suspects are
 * read and dropped (the boot's own).
 */
static enum leak_scan scan_kmemleak(bool report)
{
	static char buf[16384];
	size_t len = 0;
	ssize_t n;
	char *line, *save;
	int fd;

	if (!kmemleak_expected && access(KMEMLEAK, F_OK))
		return LEAKS_NONE;
	fd = open(KMEMLEAK, O_RDWR);
	if (fd < 0) {
		say("    # >>> kmemleak: open %s: %s\n", KMEMLEAK,
		    strerror(errno));
		return LEAKS_UNKNOWN;
	}
	if (write(fd, "scan", 4) < 0) {
		say("    # >>> kmemleak: scan: %s\n", strerror(errno));
		close(fd);
		return LEAKS_UNKNOWN;
	}
	lseek(fd, 0, SEEK_SET);
	while (len < sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	if (write(fd, "clear", 5) < 0) {
		say("    # >>> kmemleak: clear: %s\n", strerror(errno));
		close(fd);
		return LEAKS_UNKNOWN;
	}
	close(fd);
	if (!len || !report)
		return LEAKS_NONE;
	say("    # kmemleak suspects:\n");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		say("    # >>> %s\n", line);
	return LEAKS_SUSPECTED;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void wait_until(double when)
{
	double left;

	while ((left = when - now()) > 0)
		usleep(left > 1 ? 1000000 : (useconds_t)(left * 1e6));
}

static int read_int_file(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return atoi(buf);
}

/*
 * How long after a test a late report can still come: the hung-task
 * detector names a task blocked for hung_task_timeout_secs at its next
 * check, HUNG_TASK_CHECK s later at most; RCU reports a stall after about
 * as long (21 s on Debian's kernel). Never under kmemleak's minimum
 * object age (5 s), as the final check scans kmemleak after it.
 */
static int late_report_wait(void)
{
	int wait = read_int_file(HUNG_TASK_TIMEOUT) + atoi(HUNG_TASK_CHECK) + 1;

	return wait < 22 ? 22 : wait;
}

/*
 * The test's own KTAP, counted as it goes by: its plan and its results,
 * not its subtests' (those are indented). A test passes only with one
 * plan and as many results, none failing; it skips only with a plan of
 * "1..0 # SKIP reason" and exit status 4.
 */
struct ktap_count {
	int plans;
	int planned;
	int results;
	int failing;
	bool skip_plan;
	char skip_reason[160];
};

static struct ktap_count ktap;

static bool is_result(const char *line, const char *verdict)
{
	size_t len = strlen(verdict);

	return !strncmp(line, verdict, len) && isdigit((unsigned char)line[len]);
}

static void count_ktap(const char *line)
{
	const char *skip;
	int n;

	if (sscanf(line, "1..%d", &n) == 1) {
		ktap.plans++;
		ktap.planned = n;
		skip = strstr(line, "# SKIP");
		if (!n && skip) {
			ktap.skip_plan = true;
			for (skip += 6; *skip == ' '; skip++)
				;
			snprintf(ktap.skip_reason, sizeof(ktap.skip_reason),
				 "%s", skip);
		}
	} else if (is_result(line, "ok ")) {
		ktap.results++;
	} else if (is_result(line, "not ok ")) {
		ktap.results++;
		if (!strstr(line, "# TODO"))
			ktap.failing++;
	}
}

/* Forward the test's output line by line, indented as a KTAP subtest. */
static void forward(char *buf, size_t *len, bool flush_all)
{
	char *p = buf, *nl;

	while ((nl = memchr(p, '\n', buf + *len - p))) {
		*nl = '\0';
		count_ktap(p);
		say("    %s\n", p);
		p = nl + 1;
	}
	*len -= p - buf;
	memmove(buf, p, *len);
	if (flush_all && *len) {
		buf[*len] = '\0';
		count_ktap(buf);
		say("    %s\n", buf);
		*len = 0;
	}
}

enum run_result { RUN_EXITED, RUN_TIMEOUT, RUN_STUCK };

/*
 * init is every orphan's parent: reap each child that has ended, so that
 * none stays a zombie. Returns true when @pid was among them, its wait
 * status in *@status.
 */
static bool reap_children(pid_t pid, int *status)
{
	bool found = false;
	pid_t done;
	int st;

	while ((done = waitpid(-1, &st, WNOHANG)) > 0)
		if (done == pid) {
			*status = st;
			found = true;
		}
	return found;
}

/* Run argv with a deadline; returns how it ended and its wait status. */
static enum run_result run_test(char *const argv[], int timeout, int *status)
{
	char buf[4096];
	size_t len = 0;
	double deadline = now() + timeout;
	int pfd[2];
	pid_t pid;
	bool open_pipe = true;
	bool exited = false;

	if (pipe2(pfd, O_CLOEXEC))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		setsid();
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		if (chdir("/tests"))
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	memset(&ktap, 0, sizeof(ktap));
	while (open_pipe) {
		struct pollfd pf = { .fd = pfd[0], .events = POLLIN };
		int left = (int)((deadline - now()) * 1000);
		ssize_t n;

		if (left <= 0)
			break;
		/* SIGCHLD ends the poll: orphans are reaped as they end. */
		if (poll(&pf, 1, left) <= 0) {
			if (reap_children(pid, status))
				exited = true;
			continue;
		}
		n = read(pfd[0], buf + len, sizeof(buf) - 1 - len);
		if (n <= 0) {
			open_pipe = false;
			break;
		}
		len += n;
		forward(buf, &len, false);
		/* A line longer than the buffer is cut where the buffer ends. */
		if (len == sizeof(buf) - 1)
			forward(buf, &len, true);
	}
	forward(buf, &len, true);
	close(pfd[0]);
	if (!open_pipe) {
		/* Output closed; give the process the rest of its time. */
		while (!exited && now() < deadline) {
			if (reap_children(pid, status))
				exited = true;
			else
				usleep(20000);
		}
		if (exited) {
			kill(-pid, SIGKILL);
			return RUN_EXITED;
		}
	}
	kill(-pid, SIGKILL);
	for (deadline = now() + 10; now() < deadline; usleep(50000))
		if (exited || reap_children(pid, status))
			return RUN_TIMEOUT;
	return RUN_STUCK;
}

/* A task of the kernel's own (PF_KTHREAD): signals do not end it. */
#define PF_KTHREAD_FLAG	0x00200000u

/* The start of @path, NUL-terminated, in @buf; false if none could be read. */
static bool read_proc_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * What kill_leftovers needs of process @p: its name, whether it is a
 * user-space process that has not ended (not a kernel thread, not a
 * zombie), and its real user ID. Returns false when it is none of ours.
 */
static bool read_process(pid_t p, char *comm, size_t size, uid_t *uid)
{
	char path[64], buf[1024], state;
	char *open_paren, *close_paren, *line;
	unsigned int flags;
	unsigned int id;

	snprintf(path, sizeof(path), "/proc/%d/stat", p);
	if (!read_proc_file(path, buf, sizeof(buf)))
		return false;
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren ||
	    sscanf(close_paren + 1, " %c %*d %*d %*d %*d %*d %u", &state,
		   &flags) != 2 ||
	    (flags & PF_KTHREAD_FLAG) || state == 'Z')
		return false;
	snprintf(comm, size, "%.*s", (int)(close_paren - open_paren - 1),
		 open_paren + 1);
	snprintf(path, sizeof(path), "/proc/%d/status", p);
	if (!read_proc_file(path, buf, sizeof(buf)))
		return false;
	line = strstr(buf, "\nUid:");
	if (!line || sscanf(line + 5, "%u", &id) != 1)
		return false;
	*uid = id;
	return true;
}

/*
 * Kill what a test left behind in a session or process group of its own,
 * which the kill of the test's group missed: with @all (the test timed
 * out or hung), every process but init and the kernel's threads; else
 * those of users other than root (an unprivileged user's processes, such
 * as trinity's children, never outlive their test on purpose; a root
 * process may, to report late: runner/late.sh). Shows each one on the
 * verdict port, then waits up to 10 s for them to end. Returns the
 * number of those still there.
 */
static int kill_leftovers(bool all)
{
	double deadline = now() + 10;
	bool shown = false;
	int left, status;

	for (;;) {
		struct dirent *de;
		DIR *proc = opendir("/proc");

		if (!proc)
			return 0;
		left = 0;
		while ((de = readdir(proc))) {
			pid_t p = atoi(de->d_name);
			char comm[64];
			uid_t uid;

			if (p <= 1 || !read_process(p, comm, sizeof(comm), &uid) ||
			    (!all && !uid))
				continue;
			if (!shown)
				say("    # killed %d (%s, uid %u), left by the test\n",
				    p, comm, (unsigned int)uid);
			kill(p, SIGKILL);
			left++;
		}
		closedir(proc);
		shown = true;
		reap_children(0, &status);
		if (!left || now() > deadline)
			return left;
		usleep(50000);
	}
}

struct test {
	char name[128];
	int timeout;
};

static int read_list(struct test **tests)
{
	FILE *f = fopen(TEST_LIST, "r");
	char line[512];
	int n = 0;

	*tests = NULL;
	if (!f)
		die(TEST_LIST);
	while (fgets(line, sizeof(line), f)) {
		struct test t = { .timeout = 60 };

		if (sscanf(line, "%127s %d", t.name, &t.timeout) < 1 ||
		    t.name[0] == '#')
			continue;
		if (timeout_scale > 1)
			t.timeout *= timeout_scale;
		*tests = realloc(*tests, sizeof(**tests) * (n + 1));
		(*tests)[n++] = t;
	}
	fclose(f);
	return n;
}

/*
 * The loaded modules, from /proc/modules. init keeps that file open from
 * boot, so that a test that leaves init short of file descriptors does not
 * also blind this check.
 */
#define MAX_MODULES	256

struct modules {
	int n;
	char name[MAX_MODULES][64];
	int refs[MAX_MODULES];
};

static bool read_modules(struct modules *mods)
{
	static char buf[65536];
	size_t len = 0;
	ssize_t n = 0;
	char *line, *save;

	mods->n = 0;
	if (lseek(modules_fd, 0, SEEK_SET) < 0)
		return false;
	while (len < sizeof(buf) - 1 &&
	       (n = read(modules_fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	if (n < 0)
		return false;
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && mods->n < MAX_MODULES;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%63s %*u %d", mods->name[mods->n],
			   &mods->refs[mods->n]) == 2)
			mods->n++;
	return true;
}

static bool has_module(const struct modules *mods, const char *name)
{
	int i;

	for (i = 0; i < mods->n; i++)
		if (!strcmp(mods->name[i], name))
			return true;
	return false;
}

/* Unloads, until none goes, each module not in @keep that nothing uses. */
static void unload_unused(const struct modules *keep)
{
	struct modules now;
	bool progress = true;
	int i;

	while (progress && read_modules(&now)) {
		progress = false;
		for (i = 0; i < now.n; i++)
			if (!has_module(keep, now.name[i]) && !now.refs[i] &&
			    !syscall(SYS_delete_module, now.name[i],
				     O_NONBLOCK))
				progress = true;
	}
}

/*
 * A test must unload what it loaded. Names in @left (space-separated) the
 * modules loaded now that were not in @before, unloads them so that the
 * next test starts as this one did, and shows those that stay; @stuck
 * says whether any stayed (still in use: the next test would start from
 * another state). Returns false when there were any, or when
 * /proc/modules cannot be read.
 */
static bool unload_leftovers(const struct modules *before, char *left,
			     size_t size, bool *stuck)
{
	struct modules now;
	size_t len = 0;
	int i;

	*stuck = false;
	left[0] = '\0';
	if (!read_modules(&now)) {
		snprintf(left, size, "(/proc/modules: %s)", strerror(errno));
		return false;
	}
	for (i = 0; i < now.n; i++)
		if (!has_module(before, now.name[i]) && len < size)
			len += snprintf(left + len, size - len, "%s%s",
					len ? " " : "", now.name[i]);
	if (!len)
		return true;
	unload_unused(before);
	if (!read_modules(&now)) {
		*stuck = true;
		return false;
	}
	for (i = 0; i < now.n; i++)
		if (!has_module(before, now.name[i])) {
			say("    # still loaded after the test: %s (%d users)\n",
			    now.name[i], now.refs[i]);
			*stuck = true;
		}
	return false;
}

/* Unload every module, configfs last, as proof that nothing holds them. */
static bool unload_all(void)
{
	struct modules none = { .n = 0 }, now;
	int i;

	for (;;) {
		unload_unused(&none);
		/* configfs stays loaded while mounted. */
		if (umount("/sys/kernel/config"))
			break;
	}
	if (!read_modules(&now)) {
		say("    # /proc/modules: %s\n", strerror(errno));
		return false;
	}
	for (i = 0; i < now.n; i++)
		say("    # still loaded: %s (%d users)\n", now.name[i],
		    now.refs[i]);
	return !now.n;
}

/* Appends a reason to a verdict's "; "-separated list of them. */
static void add_reason(char *why, size_t size, const char *fmt, ...)
{
	size_t len = strlen(why);
	va_list ap;

	if (len && len + 2 < size) {
		memcpy(why + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + len, size - len, fmt, ap);
	va_end(ap);
}

/* What kmemleak's scan adds to a verdict's reasons. */
static void add_leak_reason(char *why, size_t size, enum leak_scan leaks)
{
	if (leaks == LEAKS_SUSPECTED)
		add_reason(why, size, "kmemleak reports suspected leaks");
	else if (leaks == LEAKS_UNKNOWN)
		add_reason(why, size, "kmemleak cannot scan");
}

/*
 * What a test's exit status and KTAP add to its verdict's reasons. Returns
 * true when the test skipped as it should: a skip plan and status 4 (not
 * a command that returned 4 under "set -e").
 */
static bool add_exit_reason(char *why, size_t size, int status)
{
	int code = WIFEXITED(status) ? WEXITSTATUS(status) :
		   128 + WTERMSIG(status);

	if (code == 4) {
		if (ktap.skip_plan && ktap.plans == 1 && !ktap.results)
			return true;
		add_reason(why, size,
			   "exit status 4 without a \"1..0 # SKIP\" plan");
	} else if (code) {
		add_reason(why, size, "exit status %d", code);
	} else if (ktap.plans != 1) {
		add_reason(why, size, "%d KTAP plans", ktap.plans);
	} else if (!ktap.planned) {
		add_reason(why, size, "plan 1..0 with exit status 0");
	} else if (ktap.results != ktap.planned) {
		add_reason(why, size, "plan 1..%d but %d results",
			   ktap.planned, ktap.results);
	} else if (ktap.failing) {
		add_reason(why, size, "%d failing cases but exit status 0",
			   ktap.failing);
	}
	return false;
}

static void run_tests(void)
{
	struct test *tests;
	int n = read_list(&tests), i;
	unsigned long long lost;
	enum leak_scan leaks;
	double last_end;
	char why[512];
	char left[256];
	bool clean, stuck;

	say("#cng-boot configfs=%s start=%d tests=%d\n", which_configfs,
	    start_at, n);
	if (scan_kmemleak(false) == LEAKS_UNKNOWN) {
		say("#cng-abort kmemleak cannot scan after boot\n");
		return;
	}
	if (!scan_kmsg(&lost) || lost) {
		say("#cng-abort kernel log not clean after boot and mount\n");
		return;
	}
	for (i = start_at - 1; i < n; i++) {
		char path[256];
		char *argv[3] = { path, NULL, NULL };
		struct modules before;
		enum run_result res;
		int survivors;
		bool skip = false;
		int status = 0;
		double t0 = now();

		if (!read_modules(&before))
			die("/proc/modules");
		say("#cng-start %d %s\n", i + 1, tests[i].name);
		snprintf(path, sizeof(path), "/tests/%s", tests[i].name);
		if (access(path, X_OK))
			snprintf(path, sizeof(path), "/tests/bin/%s",
				 tests[i].name);
		res = run_test(argv, tests[i].timeout, &status);
		survivors = kill_leftovers(res != RUN_EXITED);
		/* Let deferred work and RCU callbacks report before the scan. */
		usleep(100000);
		/* kmemleak first: its scan logs how many leaks it found. */
		leaks = scan_kmemleak(true);
		clean = scan_kmsg(&lost);
		if (res == RUN_STUCK) {
			say("not ok %d %s # hung in the kernel past its %d s timeout; unkillable\n",
			    i + 1, tests[i].name, tests[i].timeout);
			say("#cng-abort test %d left an unkillable task\n",
			    i + 1);
			return;
		}
		why[0] = '\0';
		if (res == RUN_TIMEOUT)
			add_reason(why, sizeof(why), "timed out after %d s",
				   tests[i].timeout);
		if (!clean)
			add_reason(why, sizeof(why), "kernel log reports a bug");
		add_leak_reason(why, sizeof(why), leaks);
		if (lost)
			add_reason(why, sizeof(why),
				   "kernel log lost %llu records", lost);
		if (survivors)
			add_reason(why, sizeof(why),
				   "%d processes it left survive SIGKILL",
				   survivors);
		if (!unload_leftovers(&before, left, sizeof(left), &stuck))
			add_reason(why, sizeof(why), "left loaded: %s", left);
		if (res == RUN_EXITED)
			skip = add_exit_reason(why, sizeof(why), status);
		if (why[0])
			say("not ok %d %s # %s\n", i + 1, tests[i].name, why);
		else if (skip)
			say("ok %d %s # SKIP %s\n", i + 1, tests[i].name,
			    ktap.skip_reason);
		else
			say("ok %d %s # %.1f s\n", i + 1, tests[i].name,
			    now() - t0);
		/*
		 * After a report the kernel is no longer the one under test:
		 * lockdep turns itself off at its first report, KASAN reports
		 * once, and a known report (tests/harness/expected.list) must
		 * not blind the checkers for the tests after it.
		 */
		if (!clean && i + 1 < n) {
			say("#cng-abort the kernel reported a bug: a new boot for the next test\n");
			return;
		}
		if (survivors && i + 1 < n) {
			say("#cng-abort test %d left processes SIGKILL does not end\n",
			    i + 1);
			return;
		}
		/* A module in use (a tree a killed test built) stays. */
		if (stuck && i + 1 < n) {
			say("#cng-abort test %d left modules in use: %s\n",
			    i + 1, "a new boot for the next test");
			return;
		}
	}
	last_end = now();
	say("#cng-start %d unload_all_modules\n", n + 1);
	clean = unload_all();
	/*
	 * The first scan sees what the unloads leaked; the second, past
	 * kmemleak's minimum object age, reports it. In between, a task the
	 * last test left blocked, or a stalled CPU, has the time to be
	 * reported by the hung-task detector or RCU.
	 */
	leaks = scan_kmemleak(true);
	wait_until(last_end + late_report_wait());
	if (leaks == LEAKS_NONE)
		leaks = scan_kmemleak(true);
	why[0] = '\0';
	if (!clean)
		add_reason(why, sizeof(why), "modules still loaded");
	if (!scan_kmsg(&lost))
		add_reason(why, sizeof(why), "kernel log reports a bug");
	add_leak_reason(why, sizeof(why), leaks);
	if (lost)
		add_reason(why, sizeof(why), "kernel log lost %llu records",
			   lost);
	if (why[0])
		say("not ok %d unload_all_modules # %s\n", n + 1, why);
	else
		say("ok %d unload_all_modules\n", n + 1);
	say("#cng-done\n");
}

/* SIGCHLD only wakes run_test's poll(), which no handler restarts. */
static void on_sigchld(int sig)
{
	(void)sig;
}

static void run_shell(const char *script)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		int fd;

		setsid();
		fd = open("/dev/console", O_RDWR);
		if (fd >= 0) {
			ioctl(fd, TIOCSCTTY, 1);
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (chdir("/sys/kernel/config"))
			_exit(127);
		if (script)
			execl("/bin/sh", "sh", script, NULL);
		else
			execl("/bin/sh", "-sh", NULL);
		_exit(127);
	}
	while (waitpid(pid, NULL, 0) != pid)
		;
}

int main(void)
{
	struct sigaction sa = {
		.sa_handler = on_sigchld,
		.sa_flags = SA_RESTART,
	};

	sigaction(SIGCHLD, &sa, NULL);
	mount_pseudo();
	parse_cmdline();
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin:/tests/bin", 1);
	setenv("HOME", "/root", 1);
	setenv("TERM", "linux", 0);
	if (!strcmp(which_configfs, "builtin")) {
		setenv("CNG_CONFIGFS", "ours", 1);
		setenv("CNG_BUILTIN", "1", 1);
	} else {
		setenv("CNG_CONFIGFS", which_configfs, 1);
	}
	write_file(HUNG_TASK_TIMEOUT, "20");
	write_file(HUNG_TASK_INTERVAL, HUNG_TASK_CHECK);
	write_file("/proc/sys/kernel/printk_ratelimit", "0");
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd < 0)
		die("open /dev/kmsg");
	modules_fd = open("/proc/modules", O_RDONLY | O_CLOEXEC);
	if (modules_fd < 0)
		die("open /proc/modules");
	if (!strcmp(mode, "test"))
		open_verdict(verdict_port);
	else
		open_verdict("/dev/console");
	system("/bin/busybox ip link set lo up");
	load_configfs();
	if (!strcmp(mode, "test")) {
		run_tests();
	} else {
		system("/bin/sh /tests/setup-run.sh");
		run_shell(strcmp(mode, "tour") ? NULL : "/tests/tour.sh");
	}
	power_off();
	return 0;
}
