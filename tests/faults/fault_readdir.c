// SPDX-License-Identifier: GPL-2.0
/*
 * Readdir without the memory for its batch, on the debug kernel only.
 *
 * A getdents whose buffer has taken seven children whole allocates a
 * batch of up to 32 children to copy per hold of the tree mutex; without
 * it, readdir goes on with its rounds of up to four children on the
 * stack. Only a failed allocation reaches that path: with it failed
 * (fail-nth), a listing must still return every child once, without an
 * error, and KASAN must find nothing on the way (a fallback that copied
 * more than four children onto the stack oopses here). An error there
 * would not show: getdents returns the children it already has, and the
 * next call allocates again. A listing in small getdents calls must
 * allocate nothing at all.
 *
 *   cng_test/items/r00 ... r39
 *
 * Exits 4 (skip) on a kernel without fail-nth (Debian's) and on stock
 * (its readdir allocates nothing to fail).
 */
#define _GNU_SOURCE
#include <sys/syscall.h>

#include "fault_lib.h"

int fault_nth_fd = -1;

#define NR_ITEMS	40

struct linux_dirent64 {
	unsigned long long	d_ino;
	long long		d_off;
	unsigned short		d_reclen;
	unsigned char		d_type;
	char			d_name[];
};

/*
 * Lists items/ in getdents calls of @size bytes with the 1st fault point
 * armed; counts each rNN seen in @seen and the other names in @other.
 * Returns what fail-nth left (0: a fault was injected), or -1 if a
 * getdents failed.
 */
static int list_armed(size_t size, int *seen, int *other)
{
	char buf[32768];
	int fd, left, i;
	long n;

	fd = open(T "/items", O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		say("open items: %s", ename(errno));
		return -1;
	}
	fault_arm(1);
	while ((n = syscall(SYS_getdents64, fd, buf, size)) > 0) {
		for (i = 0; i < n; ) {
			struct linux_dirent64 *de = (void *)(buf + i);
			int k;

			if (sscanf(de->d_name, "r%d", &k) == 1 &&
			    k >= 0 && k < NR_ITEMS)
				seen[k]++;
			else
				(*other)++;
			i += de->d_reclen;
		}
	}
	left = fault_disarm();
	if (n < 0) {
		say("getdents of %zu bytes: %s", size, ename(errno));
		left = -1;
	}
	close(fd);
	return left;
}

/* Every item once, and "." and ".." besides. */
static bool listed_once(const int *seen, int other)
{
	bool ok = other == 2;
	int k;

	for (k = 0; k < NR_ITEMS; k++) {
		if (seen[k] != 1) {
			say("r%02d listed %d times", k, seen[k]);
			ok = false;
		}
	}
	if (other != 2)
		say("%d other names, want 2", other);
	return ok;
}

/* A listing in @size-byte calls: every child once, fail-nth left @left. */
static bool listing_leaves(size_t size, int left)
{
	int seen[NR_ITEMS] = { 0 }, other = 0;

	EXPECT(list_armed(size, seen, &other) == left);
	EXPECT(listed_once(seen, other));
	return true;
}

/* The batch is a large listing's only allocation: it is the one failed. */
static bool batch_allocation_failed(void)
{
	return listing_leaves(32768, 0);
}

static bool small_getdents_allocate_nothing(void)
{
	return listing_leaves(64, 1);
}

static const struct ktap_case cases[] = {
	{ "listing_complete_when_batch_allocation_fails",
	  batch_allocation_failed },
	{ "small_getdents_allocate_nothing", small_getdents_allocate_nothing },
};

int main(void)
{
	char path[64];
	int ret, k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (on_stock()) {
		ktap_skip_all("expected to differ on stock: its readdir allocates nothing");
		return 4;
	}
	ret = fault_setup();
	if (ret > 0)
		return fault_absent();
	if (ret < 0 || cng_load())
		return 1;
	for (k = 0; k < NR_ITEMS; k++) {
		snprintf(path, sizeof(path), T "/items/r%02d", k);
		if (mkdir(path, 0755)) {
			say("mkdir %s: %s", path, ename(errno));
			return 1;
		}
	}
	run_cases(cases, ARRAY_SIZE(cases));
	fault_end();
	for (k = 0; k < NR_ITEMS; k++) {
		snprintf(path, sizeof(path), T "/items/r%02d", k);
		if (rmdir(path))
			ktap_failed++;
	}
	if (sh("rmmod cng_test"))
		ktap_failed++;
	return ktap_exit_status();
}
