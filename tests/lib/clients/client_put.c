// SPDX-License-Identifier: GPL-2.0
/*
 * Write one value to a configfs attribute in a single write(2) and report
 * the outcome precisely: busybox's shell builtins lose or delay the errno
 * of a failed write, and a store that returns 0 makes echo retry forever.
 *
 * Usage: client_put [-n] FILE VALUE
 *   -n   no trailing newline (by default VALUE is followed by "\n")
 * On failure prints "FILE: <strerror> (errno N)" on stderr, exit 1; a
 * write that stores 0 bytes or fewer than asked is a failure too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int newline = 1, fd;
	size_t len;
	ssize_t n;
	char *buf;

	if (argc == 4 && !strcmp(argv[1], "-n")) {
		newline = 0;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: client_put [-n] FILE VALUE\n");
		return 2;
	}
	len = strlen(argv[2]);
	buf = malloc(len + 2);
	if (!buf)
		return 2;
	memcpy(buf, argv[2], len);
	if (newline)
		buf[len++] = '\n';
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: open: %s (errno %d)\n", argv[1],
			strerror(errno), errno);
		return 1;
	}
	n = write(fd, buf, len);
	if (n < 0) {
		fprintf(stderr, "%s: %s (errno %d)\n", argv[1],
			strerror(errno), errno);
		return 1;
	}
	if ((size_t)n != len) {
		fprintf(stderr, "%s: wrote %zd of %zu bytes\n", argv[1], n,
			len);
		return 1;
	}
	if (close(fd)) {
		fprintf(stderr, "%s: close: %s (errno %d)\n", argv[1],
			strerror(errno), errno);
		return 1;
	}
	return 0;
}
