// SPDX-License-Identifier: GPL-2.0
/*
 * Reads for the sampling profile (bench/perf-in-guest.sh): ROUNDS times,
 * open+read+close of DIR/i<FIRST>/a0 .. DIR/i<FIRST+N-1>/a0, or of FILE
 * N times a round when it is given; with -s, an lstat of each item
 * DIR/i<FIRST> .. instead. No timing: perf samples the kernel.
 *
 * Usage: cng_bench_reader [-s] DIR FIRST N ROUNDS [FILE]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[256], buf[4096];
	long first, n, rounds, r, i;
	struct stat st;
	int fd, stats = 0;

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		stats = 1;
		argv++;
		argc--;
	}
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: cng_bench_reader [-s] DIR FIRST N ROUNDS [FILE]\n");
		return 2;
	}
	first = atol(argv[2]);
	n = atol(argv[3]);
	rounds = atol(argv[4]);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++) {
			if (stats) {
				snprintf(path, sizeof(path), "%s/i%ld",
					 argv[1], first + i);
				if (lstat(path, &st)) {
					perror(path);
					return 1;
				}
				continue;
			}
			if (argc == 6)
				snprintf(path, sizeof(path), "%s", argv[5]);
			else
				snprintf(path, sizeof(path), "%s/i%ld/a0",
					 argv[1], first + i);
			fd = open(path, O_RDONLY);
			if (fd < 0 || read(fd, buf, sizeof(buf)) < 0) {
				perror(path);
				return 1;
			}
			close(fd);
		}
	}
	return 0;
}
