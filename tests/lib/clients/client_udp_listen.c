// SPDX-License-Identifier: GPL-2.0
/*
 * A UDP listener for the netconsole test (busybox nc has no UDP mode).
 * Binds ADDR:PORT, creates READY_FILE once bound, then prints every
 * datagram it receives until one contains MARKER or SECONDS pass.
 *
 * Usage: client_udp_listen READY_FILE ADDR PORT MARKER SECONDS
 * Exit status: 0 the marker arrived, 1 it did not in time, 2 error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char buf[2048];
	long long deadline;
	int fd, rfd;

	if (argc != 6) {
		fprintf(stderr,
			"usage: %s READY_FILE ADDR PORT MARKER SECONDS\n",
			argv[0]);
		return 2;
	}
	sin.sin_port = htons(atoi(argv[3]));
	if (inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", argv[2]);
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		fprintf(stderr, "socket/bind: %s\n", strerror(errno));
		return 2;
	}
	rfd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (rfd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	close(rfd);
	deadline = now_ms() + atoi(argv[5]) * 1000LL;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return 1;
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			fprintf(stderr, "recv: %s\n", strerror(errno));
			return 2;
		}
		buf[n] = '\0';
		printf("datagram: %s%s", buf,
		       n && buf[n - 1] == '\n' ? "" : "\n");
		fflush(stdout);
		if (strstr(buf, argv[4]))
			return 0;
	}
}
