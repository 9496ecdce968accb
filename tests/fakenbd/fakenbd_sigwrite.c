// SPDX-License-Identifier: GPL-2.0
/*
 * A writer for tests/fakenbd/fakenbd_bad.sh that takes signals: writes
 * LEN bytes of a pattern at the start of DEV with O_DIRECT, in one
 * write(), with a handler for SIGUSR1 (so that a signal interrupts a
 * wait in the kernel without ending the process), then reads them back
 * and compares. Prints how many signals came, and exits 0 when the write
 * was whole and the data reads back identical.
 *
 * Usage: fakenbd_sigwrite DEV LEN
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int signals;	/* atomic: the handler counts */

static void on_usr1(int sig)
{
	(void)sig;
	__atomic_fetch_add(&signals, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	unsigned char *out, *in;
	size_t len, i;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV LEN\n", argv[0]);
		return 2;
	}
	len = strtoul(argv[2], NULL, 0);
	if (!len || len % 4096 || posix_memalign((void **)&out, 4096, len) ||
	    posix_memalign((void **)&in, 4096, len)) {
		fprintf(stderr, "fakenbd_sigwrite: bad length %s\n", argv[2]);
		return 2;
	}
	srandom(getpid());
	for (i = 0; i < len; i++)
		out[i] = random();
	/* No SA_RESTART: the signal is to cut the wait short. */
	if (sigaction(SIGUSR1, &sa, NULL)) {
		perror("sigaction");
		return 1;
	}
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "fakenbd_sigwrite: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	n = pwrite(fd, out, len, 0);
	printf("# write of %zu bytes: %zd (%s), %d signal(s)\n", len, n,
	       n < 0 ? strerror(errno) : "no error",
	       __atomic_load_n(&signals, __ATOMIC_RELAXED));
	if (n != (ssize_t)len)
		return 1;
	n = pread(fd, in, len, 0);
	if (n != (ssize_t)len) {
		printf("# read back: %zd (%s)\n", n,
		       n < 0 ? strerror(errno) : "short");
		return 1;
	}
	for (i = 0; i < len && in[i] == out[i]; i++)
		;
	if (i < len) {
		printf("# the data read back differs from byte %zu on\n", i);
		return 1;
	}
	printf("# the data reads back identical\n");
	close(fd);
	return 0;
}
