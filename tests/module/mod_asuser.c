// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of the module's tests, not a test: write VALUE to DIR/FILE as
 * user UID:GID with no supplementary groups.
 *
 *   mod_asuser UID GID DIR FILE VALUE
 *
 * DIR is opened while still root, so that only DIR's and FILE's own
 * permissions are tested (the guest's / is not searchable by others).
 * Exits 0 when the write succeeded, 1 when it failed, 2 on misuse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;
	size_t len;
	int dfd, fd;

	if (argc != 6) {
		fprintf(stderr, "usage: mod_asuser UID GID DIR FILE VALUE\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 10);
	gid = strtoul(argv[2], NULL, 10);
	dfd = open(argv[3], O_PATH | O_DIRECTORY);
	if (dfd < 0 || setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		fprintf(stderr, "mod_asuser: setup: %s\n", strerror(errno));
		return 2;
	}
	fd = openat(dfd, argv[4], O_WRONLY);
	if (fd < 0) {
		printf("# open %s as %u: %s\n", argv[4], uid, strerror(errno));
		return 1;
	}
	len = strlen(argv[5]);
	if (write(fd, argv[5], len) != (ssize_t)len) {
		printf("# write %s as %u: %s\n", argv[4], uid, strerror(errno));
		return 1;
	}
	return close(fd) ? 1 : 0;
}
