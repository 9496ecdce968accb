// SPDX-License-Identifier: GPL-2.0
/*
 * rename(2) with its N-th fault point failed, for
 * tests/fakenbd/fakenbd_faults.sh: arms this thread's
 * /proc/thread-self/fail-nth with N, renames OLD to NEW, and disarms.
 * Prints the result (OK or the errno's name) and what was left of the
 * count: 0 when a fault was injected, more when the call made fewer than
 * N fault points. Exit status 0 unless the fault injection is missing.
 *
 * Usage: fakenbd_nth N OLD NEW
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[16] = "";
	const char *name;
	int fd, len, ret, err;

	if (argc != 4) {
		fprintf(stderr, "usage: %s N OLD NEW\n", argv[0]);
		return 2;
	}
	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0) {
		perror("fakenbd_nth: /proc/thread-self/fail-nth");
		return 1;
	}
	len = strlen(argv[1]);
	if (pwrite(fd, argv[1], len, 0) != len) {
		perror("fakenbd_nth: arming fail-nth");
		return 1;
	}
	ret = rename(argv[2], argv[3]);
	err = errno;
	if (pread(fd, buf, sizeof(buf) - 1, 0) < 0 ||
	    pwrite(fd, "0", 1, 0) != 1) {
		perror("fakenbd_nth: disarming fail-nth");
		return 1;
	}
	name = ret ? strerrorname_np(err) : "OK";
	if (name)
		printf("%s %d\n", name, atoi(buf));
	else
		printf("E%d %d\n", err, atoi(buf));
	return 0;
}
