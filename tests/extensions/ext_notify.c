// SPDX-License-Identifier: GPL-2.0
/*
 * ext_notify: change notification (configfs-ng.h, issue 16), through the
 * sample client cng_ext: each write to an item's tick makes its counter
 * grow and calls cfgng_notify(). Pollers of counter wake with POLLPRI and
 * POLLERR, lseek(0) and read show the new value, and inotify watchers of
 * the file and its directory get IN_MODIFY. Ours only.
 */
#define _GNU_SOURCE
#include <sys/inotify.h>

#include "ext_lib.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
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

static const struct ktap_case cases[] = {
	{ "poll_wakes_once_per_change_and_reread_shows_it", t_poll },
	{ "inotify_modify_on_file_and_directory_coalesced", t_inotify },
	{ "poller_wakes_with_error_when_the_item_goes", t_removed_while_polled },
	{ "rmdir_alone_wakes_the_poller_with_error", t_rmdir_wakes_poller },
	{ "a_change_or_removal_wakes_few_other_pollers",
	  t_change_wakes_its_pollers_only },
};

int main(void)
{
	return ext_run(cases, ARRAY_SIZE(cases), "no change notification");
}
