// SPDX-License-Identifier: GPL-2.0
/*
 * Connect an NVMe over Fabrics host controller the way nvme-cli does: write
 * an options string to /dev/nvme-fabrics, then read the answer back from the
 * same open file. Prints the new controller's instance number (N of
 * /dev/nvmeN) on stdout.
 *
 * Usage: client_nvmf OPTIONS
 *   e.g. transport=tcp,traddr=127.0.0.1,trsvcid=4420,nqn=...,hostnqn=...
 * Exit status: 0 connected, 1 the kernel refused (errno printed), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FABRICS_DEV	"/dev/nvme-fabrics"

int main(int argc, char **argv)
{
	char answer[256];
	const char *key = "instance=";
	char *at;
	ssize_t n;
	size_t len;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OPTIONS\n", argv[0]);
		return 2;
	}
	fd = open(FABRICS_DEV, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", FABRICS_DEV, strerror(errno));
		return 1;
	}
	len = strlen(argv[1]);
	n = write(fd, argv[1], len);
	if (n < 0) {
		fprintf(stderr, "connect: %s (errno %d)\n", strerror(errno),
			errno);
		return 1;
	}
	if ((size_t)n != len) {
		fprintf(stderr, "connect: short write %zd of %zu\n", n, len);
		return 1;
	}
	n = read(fd, answer, sizeof(answer) - 1);
	if (n <= 0) {
		fprintf(stderr, "read answer: %s\n",
			n ? strerror(errno) : "empty");
		return 1;
	}
	answer[n] = '\0';
	close(fd);
	at = strstr(answer, key);
	if (!at || atoi(at + strlen(key)) < 0) {
		fprintf(stderr, "unexpected answer: %s", answer);
		return 1;
	}
	printf("%d\n", atoi(at + strlen(key)));
	return 0;
}
