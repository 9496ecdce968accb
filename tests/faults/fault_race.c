// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures racing kernel-side removal (issue 15), on the debug
 * kernel only. Each user operation on or into a part that cng_test
 * registered runs with its 1st, 2nd, ... allocation failed while another
 * thread unregisters the part, the unregistration started at a point
 * that moves from round to round. Whatever the interleaving, the call
 * must succeed or fail with an errno the race explains, both must end
 * (no deadlock: the mkdir error path once waited, holding its parent
 * active, for a remover that drained that parent), and afterwards the
 * part must be gone with nothing left behind: every object released, no
 * callback late, no link into the part, no leak (kmemleak, by the
 * runner), and lockdep quiet.
 *
 *   cng_test/
 *   |-- items/p/l -> rf/a     link into the part (symlink_into, unlink)
 *   `-- rf/                   ctl register_make rf; unregistered
 *       `-- a/                NODE, made before each round
 *           |-- b/            mkdir (mkdir_in_part)
 *           |-- o -> items/p  link out of the part (symlink_out)
 *           `-- sub/i/        rmdir (rmdir_in_part)
 *
 * Exits 4 (skip) on a kernel without fail-nth (Debian's) and on stock
 * (its unregister leaves user items behind).
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "fault_lib.h"

int fault_nth_fd = -1;

#define MAX_N	400

struct race_op {
	const char *name;
	int (*setup)(void);	/* in the part, after rf/a is made */
	int (*call)(void);	/* 0 or -errno */
};

static int sys(int ret)
{
	return ret < 0 ? -errno : 0;
}

static int none(void)
{
	return 0;
}

static int mkdir_call(void)
{
	return sys(mkdir(T "/rf/a/b", 0755));
}

static int symlink_into_call(void)
{
	return sys(symlink(T "/rf/a", T "/items/p/l"));
}

static int symlink_out_call(void)
{
	return sys(symlink(T "/items/p", T "/rf/a/o"));
}

static int unlink_setup(void)
{
	return symlink_into_call();
}

static int unlink_call(void)
{
	return sys(unlink(T "/items/p/l"));
}

static int rmdir_setup(void)
{
	return sys(mkdir(T "/rf/a/sub/i", 0755));
}

static int rmdir_call(void)
{
	return sys(rmdir(T "/rf/a/sub/i"));
}

static const struct race_op ops[] = {
	{ "mkdir_in_part", none, mkdir_call },
	{ "symlink_into_part", none, symlink_into_call },
	{ "symlink_out_of_part", none, symlink_out_call },
	{ "unlink_of_link_into_part", unlink_setup, unlink_call },
	{ "rmdir_in_part", rmdir_setup, rmdir_call },
};

/* Where the unregistration starts, from the call's start: microseconds. */
static const unsigned int offsets[] = { 0, 250, 1000 };

static int base_live;
static pthread_barrier_t start;

/* The other thread: the kernel side takes the part away. */
static void *unregister_later(void *arg)
{
	pthread_barrier_wait(&start);
	usleep((unsigned long)arg);
	return (void *)(long)put(T "/ctl", "unregister rf");
}

static int make_part(const struct race_op *op)
{
	int ret = put(T "/ctl", "register_make rf");

	return ret ?: sys(mkdir(T "/rf/a", 0755)) ?: op->setup();
}

/* What a round may leave outside the part, and what must be so after. */
static bool part_left_nothing(const struct race_op *op, int n)
{
	bool clean = true;

	if (!access(T "/rf", F_OK)) {
		say("%s: n=%d: the part is still there", op->name, n);
		clean = false;
	}
	if (!access(T "/items/p/l", F_OK) || errno != ENOENT) {
		say("%s: n=%d: a link into the part survived it", op->name, n);
		unlink(T "/items/p/l");
		clean = false;
	}
	if (read_int(T "/live") != base_live) {
		say("%s: n=%d: %d objects live, %d before", op->name, n,
		    read_int(T "/live"), base_live);
		clean = false;
	}
	if (read_int(T "/late")) {
		say("%s: n=%d: a callback came late", op->name, n);
		clean = false;
	}
	return clean;
}

/* The errnos a call may meet: the injection, or the part going away. */
static bool explained(int ret)
{
	return !ret || ret == -ENOMEM || ret == -ENOENT;
}

/* How many fault points the call meets with no race: the rounds to run. */
static int points(const struct race_op *op)
{
	int n, ret, left;

	for (n = 1; n <= MAX_N; n++) {
		if (make_part(op))
			return -1;
		fault_arm(n);
		ret = op->call();
		left = fault_disarm();
		put(T "/ctl", "unregister rf");
		unlink(T "/items/p/l");
		if (!explained(ret))
			return -1;
		if (left)
			return n - 1;
	}
	return MAX_N;
}

static bool race(const struct race_op *op)
{
	int n, ret, left, injected = 0, raced = 0, max, round;
	bool clean = true;
	pthread_t tid;
	void *unreg;

	max = points(op);
	if (max <= 0) {
		say("%s: no fault point reached (%d)", op->name, max);
		return false;
	}
	for (round = 0; round < max * (int)ARRAY_SIZE(offsets) && clean;
	     round++) {
		n = round / ARRAY_SIZE(offsets) + 1;
		if (make_part(op)) {
			say("%s: n=%d: setup fails", op->name, n);
			return false;
		}
		if (pthread_create(&tid, NULL, unregister_later,
				   (void *)(unsigned long)
				   offsets[round % ARRAY_SIZE(offsets)])) {
			say("%s: pthread_create fails", op->name);
			return false;
		}
		pthread_barrier_wait(&start);
		fault_arm(n);
		ret = op->call();
		left = fault_disarm();
		pthread_join(tid, &unreg);
		injected += !left;
		raced += ret == -ENOENT;
		if (!explained(ret)) {
			say("%s: n=%d: fails with %s", op->name, n, ename(-ret));
			clean = false;
		}
		if ((long)unreg) {
			say("%s: n=%d: unregister fails: %s", op->name, n,
			    ename(-(long)unreg));
			clean = false;
		}
		clean = part_left_nothing(op, n) && clean;
	}
	say("%s: %d fault points, %d rounds, %d injected, %d lost to the unregister, %s",
	    op->name, max, round, injected, raced,
	    clean ? "all clean" : "NOT clean");
	return clean && injected > 0;
}

static char name[128];

int main(void)
{
	unsigned int i;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (on_stock()) {
		ktap_skip_all("expected to differ on stock: not run, items leak");
		return 4;
	}
	ret = fault_setup();
	if (ret > 0)
		return fault_absent();
	if (ret < 0 || cng_load() || mkdir(T "/items/p", 0755) ||
	    pthread_barrier_init(&start, NULL, 2))
		return 1;
	base_live = read_int(T "/live");

	ktap_plan(ARRAY_SIZE(ops));
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		bool ok = race(&ops[i]);

		snprintf(name, sizeof(name),
			 "%s_under_allocation_failure_racing_unregister",
			 ops[i].name);
		ktap_result(i + 1, name, ok, NULL);
	}
	fault_end();
	if (rmdir(T "/items/p") || sh("rmmod cng_test"))
		ktap_failed++;
	return ktap_exit_status();
}
