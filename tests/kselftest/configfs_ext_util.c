// SPDX-License-Identifier: GPL-2.0
/*
 * What configfs.sh cannot do with a shell alone:
 *
 *   configfs_ext_util why PATH      prints PATH's failure record (the
 *                                   extended attribute user.configfs.error);
 *                                   exits 1 when it has none (ENODATA)
 *   configfs_ext_util poll PATH MS  reads PATH, then waits up to MS ms for
 *                                   a change (POLLPRI); prints the value
 *                                   before and after, exits 1 on none
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/xattr.h>

static int why(const char *path)
{
	char rec[8192];
	ssize_t n = getxattr(path, "user.configfs.error", rec, sizeof(rec) - 1);

	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	fwrite(rec, 1, n, stdout);
	return 0;
}

/* The file's value, read from its start. */
static int value(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int wait_change(const char *path, int ms)
{
	struct pollfd p = { .events = POLLPRI };
	char before[256], after[256];
	int n;

	p.fd = open(path, O_RDONLY);
	if (p.fd < 0 || value(p.fd, before, sizeof(before))) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	n = poll(&p, 1, ms);
	if (n <= 0 || !(p.revents & POLLPRI)) {
		printf("no change within %d ms (value %s)\n", ms, before);
		return 1;
	}
	if (value(p.fd, after, sizeof(after))) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("changed: %s -> %s\n", before, after);
	close(p.fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "why"))
		return why(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "poll"))
		return wait_change(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: %s why PATH | poll PATH MS\n", argv[0]);
	return 2;
}
