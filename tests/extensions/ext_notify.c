// SPDX-License-Identifier: GPL-2.0
/*
 * ext_notify: change notification (configfs-ng.h, issue 16), through the
 * sample client cng_ext: each write to an item's tick makes its counter
 * grow and calls cfgng_notify(). Pollers of counter wake with POLLPRI and
 * POLLERR, lseek(0) and read show the new value, and inotify watchers of
 * the file and its directory get IN_MODIFY. Ours only.
 *
 * A removal wakes the pollers of every attribute it takes, not only of
 * the directory removed: through cng_test (tests/modules/cng_test.c),
 *
 *   cng_test/
 *   |-- n/                 mkdir; rmdir of n takes its default groups
 *   |   `-- sub/deep/
 *   `-- rt_gone/           ctl "register_make rt_gone", then "unregister"
 *       |-- inner/         its default group
 *       `-- n/             mkdir, with sub/deep/; sub/i/ and m/ mkdir too
 */
#define _GNU_SOURCE
#include <sys/inotify.h>

#include "ext_lib.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#define CNT	ITEMS "/n/counter"

/* poll() for POLLPRI for up to MS milliseconds; the revents. */
static int wait_pri(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };

	return poll(&p, 1, ms) > 0 ? p.revents : 0;
}

/* Reads the file from its start, as a poller does after a change. */
static long reread(int fd)
{
	char buf[32];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return atol(buf);
}

static bool t_poll(void)
{
	int fd, ev;

	EXPECT(!mkdir(ITEMS "/n", 0755));
	fd = open(CNT, O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(reread(fd) == 0);
	EXPECT(wait_pri(fd, 0) == 0);
	EXPECT(!put(ITEMS "/n/tick", "1"));
	ev = wait_pri(fd, 5000);
	EXPECT(ev == (POLLPRI | POLLERR));
	if (ev != (POLLPRI | POLLERR))
		say("revents %#x", ev);
	/* Level-triggered until the file is read again from the start. */
	EXPECT(wait_pri(fd, 0) == (POLLPRI | POLLERR));
	EXPECT(reread(fd) == 1);
	/* One change, one wake-up. */
	EXPECT(wait_pri(fd, 300) == 0);
	EXPECT(!put(ITEMS "/n/tick", "1"));
	EXPECT(wait_pri(fd, 5000) == (POLLPRI | POLLERR));
	EXPECT(reread(fd) == 2);
	close(fd);
	return true;
}

/* IN_MODIFY events from FD within MS ms: on the file, on the directory. */
static void count_events(int fd, int ms, int wd_file, int wd_dir,
			 int *on_file, int *on_dir)
{
	long buf[4096 / sizeof(long)];	/* aligned for inotify_event */
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n, off;

	*on_file = *on_dir = 0;
	while (poll(&p, 1, ms) > 0) {
		n = read(fd, buf, sizeof(buf));
		for (off = 0; n > 0 && off < n;) {
			struct inotify_event *e = (void *)((char *)buf + off);

			if (e->wd == wd_file && (e->mask & IN_MODIFY))
				(*on_file)++;
			if (e->wd == wd_dir && (e->mask & IN_MODIFY) &&
			    e->len && !strcmp(e->name, "counter"))
				(*on_dir)++;
			off += sizeof(*e) + e->len;
		}
		ms = 300;
	}
}

static bool t_inotify(void)
{
	int in = inotify_init1(IN_NONBLOCK), wf, wd, on_file, on_dir;
	char buf[32];

	EXPECT(in >= 0);
	wf = inotify_add_watch(in, CNT, IN_MODIFY);
	wd = inotify_add_watch(in, ITEMS "/n", IN_MODIFY);
	EXPECT(wf >= 0 && wd >= 0);
	/* Reads tell nothing. */
	EXPECT(slurp(CNT, buf, sizeof(buf)) > 0);
	count_events(in, 300, wf, wd, &on_file, &on_dir);
	EXPECT(on_file == 0 && on_dir == 0);
	EXPECT(!put(ITEMS "/n/tick", "1"));
	count_events(in, 5000, wf, wd, &on_file, &on_dir);
	EXPECT(on_file == 1 && on_dir == 1);
	if (on_file != 1 || on_dir != 1)
		say("IN_MODIFY: %d on the file, %d on the directory", on_file,
		    on_dir);
	/* A thousand changes told in one go are told a few times at most. */
	EXPECT(!put(ITEMS "/n/tick", "1000"));
	count_events(in, 5000, wf, wd, &on_file, &on_dir);
	EXPECT(on_file >= 1 && on_file < 100 && on_dir >= 1 && on_dir < 100);
	say("1000 changes: %d IN_MODIFY on the file", on_file);
	close(in);
	return true;
}

static bool t_removed_while_polled(void)
{
	int fd, ev;
	pid_t pid;
	int st;
	char buf[32];

	EXPECT(!mkdir(ITEMS "/r", 0755));
	fd = open(ITEMS "/r/counter", O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(read(fd, buf, sizeof(buf)) > 0);
	pid = fork();
	if (!pid)
		_exit(wait_pri(fd, 10000) & POLLERR ? 0 : 1);
	usleep(200000);
	/* A change is pending when the item goes. */
	EXPECT(!put(ITEMS "/r/tick", "1"));
	EXPECT(!rmdir(ITEMS "/r"));
	EXPECT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0);
	ev = wait_pri(fd, 0);
	EXPECT(ev & POLLERR);
	EXPECT(FAILS_WITH(reread(fd), ENODEV));
	close(fd);
	return true;
}

/* With no change pending, rmdir alone wakes the poller, with POLLERR. */
static bool t_rmdir_wakes_poller(void)
{
	int fd, st, i;
	char buf[32];
	pid_t pid;

	EXPECT(!mkdir(ITEMS "/q", 0755));
	fd = open(ITEMS "/q/counter", O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(read(fd, buf, sizeof(buf)) > 0);

	pid = fork();
	if (!pid)
		_exit(wait_pri(fd, -1) & POLLERR ? 0 : 1);
	/* The child is asleep in poll() by then, as a rule. */
	usleep(500000);
	EXPECT(!rmdir(ITEMS "/q"));
	/*
	 * The poller sleeps with no timeout: if rmdir does not wake it, it
	 * never wakes. A minute is a hang under any emulation.
	 */
	for (i = 0; i < 600 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(100000);
	if (i == 600) {
		say("the poller still sleeps a minute after the rmdir");
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		st = -1;
	}
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fd);
	return true;
}

/*
 * Many pollers, each of its own item, and changes to one item: the other
 * pollers are not woken (each file has its own wait queue, as in kernfs).
 * A wake-up that finds nothing for its poller is invisible to it (poll()
 * sleeps again in the kernel) but is a context switch of its thread.
 */
#define NPOLL	1000
#define NCHANGE	100

struct poller {
	pthread_t thread;
	pid_t tid;
	int fd;
	int seen;	/* atomic builtins */
};

static struct poller pollers[NPOLL];

static void *poller_fn(void *arg)
{
	struct poller *p = arg;

	__atomic_store_n(&p->tid, syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	for (;;) {
		if (!(wait_pri(p->fd, -1) & POLLPRI))
			return NULL;
		if (reread(p->fd) < 0)
			return NULL;
		__atomic_add_fetch(&p->seen, 1, __ATOMIC_SEQ_CST);
	}
}

/* Changes POLLER has seen so far. */
static int seen(struct poller *poller)
{
	return __atomic_load_n(&poller->seen, __ATOMIC_SEQ_CST);
}

/* Voluntary context switches of a thread of ours. */
static long switches(pid_t tid)
{
	char path[64], buf[2048], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	if (slurp(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\nvoluntary_ctxt_switches:");
	return p ? atol(p + 26) : -1;
}

/* The context switches of pollers FIRST and after, all alive. */
static long switches_from(int first)
{
	long sum = 0;
	int i;

	for (i = first; i < NPOLL; i++)
		sum += switches(pollers[i].tid);
	return sum;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool t_change_wakes_its_pollers_only(void)
{
	char path[128];
	long before, after;
	int i, j, made = 0;
	pthread_attr_t attr;
	double t0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);

	for (i = 0; i < NPOLL; i++) {
		snprintf(path, sizeof(path), ITEMS "/p%d", i);
		if (mkdir(path, 0755))
			break;
		made++;
		snprintf(path, sizeof(path), ITEMS "/p%d/counter", i);
		pollers[i].fd = open(path, O_RDONLY);
		if (pollers[i].fd < 0 || reread(pollers[i].fd) != 0 ||
		    pthread_create(&pollers[i].thread, &attr, poller_fn,
				   &pollers[i]))
			break;
	}
	EXPECT(i == NPOLL);
	if (i < NPOLL)
		goto out;
	/* All asleep in poll(): give them time to get there. */
	for (i = 0; i < NPOLL; i++)
		while (!__atomic_load_n(&pollers[i].tid, __ATOMIC_SEQ_CST))
			usleep(1000);
	sleep(2);
	before = switches_from(1);
	t0 = now();
	for (j = 1; j <= NCHANGE; j++) {
		if (put(ITEMS "/p0/tick", "1"))
			break;
		for (i = 0; i < 5000 && seen(&pollers[0]) < j; i++)
			usleep(1000);
		if (seen(&pollers[0]) < j)
			break;
	}
	say("%d changes seen by the poller of p0 in %.2f s", j - 1,
	    now() - t0);
	after = switches_from(1);
	EXPECT(j == NCHANGE + 1);
	say("the %d other pollers: %ld context switches meanwhile", NPOLL - 1,
	    after - before);
	/* A wake-up each would be NCHANGE * (NPOLL - 1). */
	EXPECT(before >= 0 && after - before < NPOLL / 10);
	/*
	 * A removal wakes its item's pollers with POLLERR (their threads
	 * end), and only a few others: the first NCHANGE rmdirs, watched
	 * from the pollers that stay.
	 */
	before = switches_from(NCHANGE);
	for (i = 0; i < NCHANGE; i++) {
		snprintf(path, sizeof(path), ITEMS "/p%d", i);
		if (rmdir(path))
			break;
	}
	after = switches_from(NCHANGE);
	EXPECT(i == NCHANGE);
	say("%d removals: %ld context switches of the %d other pollers",
	    NCHANGE, after - before, NPOLL - NCHANGE);
	/* A wake-up each would be NCHANGE * (NPOLL - NCHANGE). */
	EXPECT(before >= 0 && after - before < NCHANGE * (NPOLL - NCHANGE) / 8);
out:
	for (i = 0; i < made; i++) {
		snprintf(path, sizeof(path), ITEMS "/p%d", i);
		rmdir(path);
	}
	for (i = 0; i < made; i++) {
		if (pollers[i].tid)
			pthread_join(pollers[i].thread, NULL);
		if (pollers[i].fd > 0)
			close(pollers[i].fd);
	}
	pthread_attr_destroy(&attr);
	return true;
}

/*
 * Pollers of files below a directory that goes. Each file gets a poll()
 * and an epoll_wait() of its own, in a child, for up to GONE_WAIT_MS; the
 * removal must wake both with POLLERR, within GONE_AFTER_S of its return
 * however long the removal itself took. Each child stamps when it went to
 * sleep and when it came back in memory shared with the parent, and the
 * parent judges by those stamps, not by when the child is reaped: on a
 * debug kernel on a loaded host every poller was back within 0.15 s of the
 * removal, yet the fourteen exits that followed took more than 10 s of
 * the starved guest's time. An exit that never ends is a hang, told with
 * the child's kernel stack. At its timeout poll() asks the file once
 * more and would see POLLERR even if nobody woke it, so a poller back
 * only then counts as not woken; epoll_wait() returns 0. A case that
 * fails takes GONE_WAIT_MS: two fit in the list's budget.
 */
#define GONE_WAIT_MS	30000
#define GONE_AFTER_S	10
/* How long after its poll() times out a child may take to be reaped. */
#define GONE_EXIT_S	30
#define RT		T "/rt_gone"

/* What a poller did, on now()'s clock: 0 until it did. */
struct gone_stamp {
	double asleep;
	double back;
	int events;
};

struct gone_poller {
	const char *path;
	int fd;
	pid_t pid[2];			/* poll(), epoll_wait() */
	int status[2];			/* from waitpid(), or -1 */
	struct gone_stamp *stamp;	/* [2], shared with the children */
};

static const char *const gone_how[] = { "poll", "epoll_wait" };

static void gone_child(struct gone_poller *p, bool use_epoll)
{
	struct epoll_event ee = { .events = EPOLLPRI };
	struct gone_stamp *stamp = &p->stamp[use_epoll];
	int ep, n;

	if (use_epoll) {
		ep = epoll_create1(0);
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, p->fd, &ee))
			_exit(2);
		stamp->asleep = now();
		n = epoll_wait(ep, &ee, 1, GONE_WAIT_MS);
		stamp->events = n == 1 ? ee.events : 0;
	} else {
		stamp->asleep = now();
		stamp->events = wait_pri(p->fd, GONE_WAIT_MS);
	}
	stamp->back = now();
	_exit(0);
}

/* Opens P's file and starts its pollers; false if it could not. */
static bool gone_start(struct gone_poller *p)
{
	int i;

	p->fd = open(p->path, O_RDONLY);
	if (p->fd < 0) {
		say("open %s: %s", p->path, ename(errno));
		return false;
	}
	/* Nothing to report before the removal. */
	if (wait_pri(p->fd, 0)) {
		say("%s: ready before the removal", p->path);
		return false;
	}
	for (i = 0; i < 2; i++) {
		fflush(stdout);
		p->pid[i] = fork();
		if (!p->pid[i])
			gone_child(p, i);
		if (p->pid[i] < 0)
			return false;
	}
	return true;
}

/* Tells what the kernel says of PID, a child not reaped in time. */
static void gone_tell_stuck(pid_t pid)
{
	char path[64], buf[2048];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (slurp(path, buf, sizeof(buf)) > 0)
		say("  stat: %s", buf);
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (slurp(path, buf, sizeof(buf)) > 0)
		say("  stack:\n%s", buf);
}

/*
 * Reaps every child of the N pollers P, killing (and telling) one still
 * there at DEADLINE (now()'s clock); each one's status, or -1.
 */
static void gone_reap(struct gone_poller *p, int n, double deadline)
{
	int i, j, st, left = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < 2; j++) {
			p[i].status[j] = -1;
			left += p[i].pid[j] > 0;
		}
	while (left && now() < deadline) {
		usleep(20000);
		for (i = 0; i < n; i++)
			for (j = 0; j < 2; j++) {
				if (p[i].pid[j] <= 0 || p[i].status[j] != -1 ||
				    waitpid(p[i].pid[j], &st, WNOHANG) != p[i].pid[j])
					continue;
				p[i].status[j] = st;
				left--;
			}
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < 2; j++) {
			if (p[i].pid[j] <= 0 || p[i].status[j] != -1)
				continue;
			say("%s: its %s poller hangs: not reaped %d s past its timeout",
			    p[i].path, gone_how[j], GONE_EXIT_S);
			gone_tell_stuck(p[i].pid[j]);
			kill(p[i].pid[j], SIGKILL);
			waitpid(p[i].pid[j], NULL, 0);
		}
}

/*
 * Whether P's poller I (0: poll(), 1: epoll_wait()) exited well, back
 * with POLLERR by DEADLINE and before its own timeout; says why not. T0
 * is the removal's start, from which times are told. One never reaped
 * was told by gone_reap().
 */
static bool gone_poller_woken(struct gone_poller *p, int i, double t0,
			      double deadline)
{
	struct gone_stamp *stamp = &p->stamp[i];

	if (p->pid[i] <= 0 || p->status[i] == -1)
		return false;
	if (!WIFEXITED(p->status[i]) || WEXITSTATUS(p->status[i])) {
		say("%s: its %s poller failed (status %#x)", p->path,
		    gone_how[i], p->status[i]);
		return false;
	}
	if (stamp->back && stamp->back <= deadline &&
	    stamp->back - stamp->asleep < GONE_WAIT_MS / 1000 - 1 &&
	    (stamp->events & POLLERR))
		return true;
	say("%s: its %s poller, asleep at %+.2f s, was back at %+.2f s with %#x",
	    p->path, gone_how[i], stamp->asleep - t0, stamp->back - t0,
	    stamp->events);
	return false;
}

/*
 * Whether both of P's pollers were woken (gone_poller_woken()) and its
 * file still says POLLERR; closes the file.
 */
static bool gone_woken(struct gone_poller *p, double t0, double deadline)
{
	bool ok = p->fd >= 0;
	int i;

	for (i = 0; i < 2; i++)
		ok &= gone_poller_woken(p, i, t0, deadline);
	if (p->fd >= 0) {
		if (!(wait_pri(p->fd, 0) & POLLERR))
			ok = false;
		close(p->fd);
	}
	if (!ok)
		say("%s: its pollers were not woken by the removal", p->path);
	return ok;
}

/*
 * Starts a poller of each of N files, lets them fall asleep, removes
 * with REMOVE, and expects every one woken.
 */
static void gone_wakes_all(struct gone_poller *p, int n,
			   bool (*remove)(void))
{
	bool started = true, removed, woken = true;
	struct gone_stamp *stamps;
	double t0, took;
	int i;

	stamps = mmap(NULL, 2 * n * sizeof(*stamps), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	EXPECT(stamps != MAP_FAILED);
	if (case_failed)
		return;
	for (i = 0; i < n; i++) {
		p[i].fd = -1;
		p[i].pid[0] = 0;
		p[i].pid[1] = 0;
		p[i].stamp = &stamps[2 * i];
	}
	for (i = 0; i < n && started; i++)
		started = gone_start(&p[i]);
	EXPECT(started);
	/* The children are asleep in poll() by then, as a rule. */
	usleep(500000);
	t0 = now();
	removed = remove();
	took = now() - t0;
	EXPECT(removed);
	if (took > 2)
		say("the removal took %.2f s", took);
	gone_reap(p, n, t0 + took + GONE_WAIT_MS / 1000 + GONE_EXIT_S);
	for (i = 0; i < n; i++)
		woken &= gone_woken(&p[i], t0, t0 + took + GONE_AFTER_S);
	munmap(stamps, 2 * n * sizeof(*stamps));
	EXPECT(woken);
}

/* cng_test loaded by a case, and unloaded with nothing of it left. */
static int gone_live;

static bool gone_load(void)
{
	if (cng_load())
		return false;
	gone_live = read_int(T "/live");
	return true;
}

static bool gone_unload(void)
{
	bool ok;

	sh("rmdir " T "/n " RT "/n/m " RT "/n/sub/i " RT "/n 2>/dev/null");
	if (!access(RT, F_OK))
		put(T "/ctl", "unregister rt_gone");
	ok = read_int(T "/live") == gone_live && read_int(T "/late") == 0;
	if (!ok)
		say("cng_test: live %d (%d at load), late %d",
		    read_int(T "/live"), gone_live, read_int(T "/late"));
	return !sh("rmmod cng_test") && ok;
}

static bool unregister_rt_gone(void)
{
	return !put(T "/ctl", "unregister rt_gone") && access(RT, F_OK);
}

/*
 * The kernel side unregisters a group: the pollers of its files, of its
 * default group's, and of everything user space made below it wake.
 */
static bool t_unregister_wakes_pollers_below(void)
{
	struct gone_poller p[] = {
		{ .path = RT "/name" },
		{ .path = RT "/inner/name" },
		{ .path = RT "/n/data" },
		{ .path = RT "/n/sub/name" },
		{ .path = RT "/n/sub/deep/name" },
		{ .path = RT "/n/sub/i/data" },
		{ .path = RT "/n/m/data" },
	};

	EXPECT(gone_load());
	if (case_failed)
		return false;
	EXPECT(!put(T "/ctl", "register_make rt_gone"));
	EXPECT(!mkdir(RT "/n", 0755));
	EXPECT(!mkdir(RT "/n/sub/i", 0755));
	EXPECT(!mkdir(RT "/n/m", 0755));
	if (!case_failed)
		gone_wakes_all(p, ARRAY_SIZE(p), unregister_rt_gone);
	EXPECT(gone_unload());
	return true;
}

static bool rmdir_n(void)
{
	return !rmdir(T "/n");
}

/*
 * rmdir of a directory with default groups: the pollers of their files
 * wake, as well as those of its own.
 */
static bool t_rmdir_wakes_pollers_of_default_groups(void)
{
	struct gone_poller p[] = {
		{ .path = T "/n/data" },
		{ .path = T "/n/sub/name" },
		{ .path = T "/n/sub/deep/name" },
	};

	EXPECT(gone_load());
	if (case_failed)
		return false;
	EXPECT(!mkdir(T "/n", 0755));
	if (!case_failed)
		gone_wakes_all(p, ARRAY_SIZE(p), rmdir_n);
	EXPECT(gone_unload());
	return true;
}

static const struct ktap_case cases[] = {
	{ "poll_wakes_once_per_change_and_reread_shows_it", t_poll },
	{ "inotify_modify_on_file_and_directory_coalesced", t_inotify },
	{ "poller_wakes_with_error_when_the_item_goes", t_removed_while_polled },
	{ "rmdir_alone_wakes_the_poller_with_error", t_rmdir_wakes_poller },
	{ "a_change_or_removal_wakes_few_other_pollers",
	  t_change_wakes_its_pollers_only },
	{ "unregister_wakes_the_pollers_of_every_file_below",
	  t_unregister_wakes_pollers_below },
	{ "rmdir_wakes_the_pollers_of_its_default_groups_files",
	  t_rmdir_wakes_pollers_of_default_groups },
};

int main(void)
{
	return ext_run(cases, ARRAY_SIZE(cases), "no change notification");
}
