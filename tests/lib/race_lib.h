/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the race tests (diff_symlink_race, diff_depend_race): a child
 * that makes and removes one item over and over until a deadline, while
 * the test's own process races something against it. Include after
 * ktap.h.
 */
#ifndef RACE_LIB_H
#define RACE_LIB_H

#include <sys/wait.h>
#include <time.h>

/* Is it still before @end (CLOCK_MONOTONIC, whole seconds)? */
static inline bool race_time_left(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec < end->tv_sec;
}

/*
 * In a child: mkdir and rmdir @dir until @end; EEXIST and EBUSY are the
 * only refusals allowed (the racing side may hold the item). Exits 0 if
 * every outcome was allowed.
 */
static inline void race_remover(const char *dir, const struct timespec *end)
{
	long made = 0, removed = 0;
	int bad = 0;

	while (race_time_left(end)) {
		if (!mkdir(dir, 0755))
			made++;
		else if (errno != EEXIST && bad++ < 5)
			say("mkdir %s: %s", dir, ename(errno));
		if (!rmdir(dir))
			removed++;
		else if (errno != EBUSY && bad++ < 5)
			say("rmdir %s: %s", dir, ename(errno));
	}
	say("%s made %ld times, removed %ld", dir, made, removed);
	_exit(bad ? 1 : 0);
}

/*
 * Starts race_remover() of @dir in a child until @seconds from now, the
 * deadline in *@end. Returns the child's pid, or -1 (a failed
 * expectation) when it could not fork.
 */
static inline pid_t race_start(const char *dir, int seconds,
			       struct timespec *end)
{
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, end);
	end->tv_sec += seconds;
	fflush(stdout);
	pid = fork();
	if (!pid)
		race_remover(dir, end);
	EXPECT(pid > 0);
	return pid;
}

/* Waits for race_start()'s child: did it see only allowed outcomes? */
static inline bool race_remover_ok(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && !WEXITSTATUS(status);
}

#endif /* RACE_LIB_H */
