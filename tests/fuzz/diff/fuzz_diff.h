/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differential fuzzer's two files: fuzz_diff.c (the operations, the
 * seeds compared on both modules, the shrinker, main()) and fuzz/conc.c
 * (concurrent seeds: several processes on one tree, properties checked).
 * What one file defines and the other uses.
 */
#ifndef FUZZ_DIFF_H
#define FUZZ_DIFF_H

#include "guest.h"

#define CNG_KO		"/lib/modules/cng/cng_test.ko"
#define MAX_OPS		4096

/* Paths relative to cng_test/: directories first, used by every op. */
static const char *const dirs[] = {
	"items/a", "items/b", "n0", "n1", "n0/sub/x", "n1/sub/y", "n0/m",
	"narrow/p", "wide/q", "n0/m/sub/w",	/* 0..9: mkdir makes these */
	"fixed/z", "items", "n0/sub", "fixed/inner", "rt0", "rt0/inner",
	"d0", "", "n0/sub/deep", "nope/x", "rt1", "rt1/k",
};

#define MKDIRS		10
/* Some of the others, by name */
#define D_N0		2
#define D_ITEMS		11
#define D_N0_SUB	12
#define D_FIXED_INNER	13
#define D_RT0		14
#define D_RT0_INNER	15
#define D_D0		16
#define D_ROOT		17
#define D_N0_DEEP	18
#define D_RT1		20

/* Link sources are items and nodes; rt0 and d0 have no allow_link. */
static const char *const link_dirs[] = {
	"items/a", "items/b", "n0", "n1", "n0/sub/x", "n0/m",
};

static const char *const ctls[] = {
	"register rt0", "unregister rt0", "register_default d0",
	"unregister_default d0", "make_err 12", "make_err 0", "nosuch x",
	"register_make rt1", "unregister rt1",
	"depend %s", "undepend %s", "depend_unlocked %s",
};

#define CTL_NOSUCH	6
#define CTL_RT1		7
#define CTL_PATH_FIRST	9

/* fuzz_diff.c: the operations */
enum op_kind {
	OP_MKDIR, OP_RMDIR, OP_SYMLINK, OP_UNLINK, OP_RENAME, OP_OPEN,
	OP_READ, OP_WRITE, OP_LSEEK, OP_CLOSE, OP_TRUNCATE, OP_CHMOD,
	OP_CHOWN, OP_UTIMES, OP_STAT, OP_READDIR, OP_READLINK, OP_GETXATTR,
	OP_SETXATTR, OP_DROP, OP_CTL, OP_CAT, OP_ECHO, OP_EVENTS, OP_REMOUNT,
	OP_POLL, OP_KINDS,
};

struct op {
	enum op_kind kind;
	int a, b, c, d;
	bool user;	/* run as USER_ID, with root's capabilities off */
};

extern struct op ops[MAX_OPS];
extern long last_ret;

void generate(unsigned long long seed, int nops);
void run_op(const struct op *op);
void path_of(char *buf, size_t size, int dir, const char *name);
int name_cmp(const void *a, const void *b);
void fds_reset(void);

/* fuzz_diff.c: the two modules, swapped under the mount */
enum { STOCK, OURS };
extern const char *const mod_names[2];
extern int cur;	/* the one loaded */

int load_ko(const char *path);
bool swap_to(int which);
void teardown_tree(void);
bool unload_test(void);

/* fuzz/conc.c */
extern bool conc_mode;
extern int conc_broken[2];

void conc_dups(const char *path, char **names, int n);
bool conc_run(unsigned long long first, unsigned long long count, int nops,
	      int procs);

#endif /* FUZZ_DIFF_H */
