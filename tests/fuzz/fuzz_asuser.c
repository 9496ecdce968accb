// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of fuzz_trinity.sh, not a test: run a program as another user.
 *
 *   fuzz_asuser UID GID PROG ARGS...
 *
 * Drops every supplementary group, sets the group and user ids (real,
 * effective and saved: root's capabilities go with them) and the no new
 * privileges flag, then executes PROG from $PATH. Exits 2 when it cannot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: fuzz_asuser UID GID PROG ARGS...\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 10);
	gid = strtoul(argv[2], NULL, 10);
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		fprintf(stderr, "fuzz_asuser: %s\n", strerror(errno));
		return 2;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "fuzz_asuser: %s: %s\n", argv[3], strerror(errno));
	return 2;
}
