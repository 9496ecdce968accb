// SPDX-License-Identifier: GPL-2.0
/*
 * better_runas: one conf_sys call made as another user, for the delegation
 * tests.
 *
 *   better_runas UID GID DIR OP ARGS...
 *
 * Changes into DIR while still root (the guest's / is not searchable by
 * others, so only DIR's and its entries' own permissions are tested), drops
 * every supplementary group, sets the group and user ids (real, effective
 * and saved), then makes the call as conf_sys does, with ARGS relative to
 * DIR, and prints its result the same way.
 */
#define main conf_sys_main
#include "conf_sys.c"
#undef main

#include <grp.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 5) {
		fprintf(stderr, "usage: better_runas UID GID DIR OP ARGS...\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 10);
	gid = strtoul(argv[2], NULL, 10);
	if (chdir(argv[3]) || setgroups(0, NULL) ||
	    setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		perror("better_runas");
		return 2;
	}
	/* conf_sys's argv[0] is not used: DIR stands in for it */
	return conf_sys_main(argc - 3, argv + 3);
}
