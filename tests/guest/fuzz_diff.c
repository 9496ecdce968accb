// SPDX-License-Identifier: GPL-2.0
/*
 * Differential fuzzer, single process: from a seed, a sequence of
 * configfs operations over cng_test, each outcome one normalised line.
 * The same seed on stock and on ours must give the same lines; the host
 * side (scripts/fuzz-diff.sh) compares them and shrinks a mismatch.
 *
 * The sequence depends on the seed alone, never on outcomes, so that any
 * subset of it (the shrinker's candidates) is well defined. What may
 * legitimately differ is left out of the lines by the rules in rules[],
 * each tied to its row of docs/differences.md and counted when it fires.
 *
 * The job comes from /tests/fuzz.job (the host puts it in the
 * initramfs), one command a line:
 *   seeds FIRST COUNT NOPS     run each seed; print its digest
 *   run ID SEED NOPS all|I,J,K [verbose]
 *                              run the listed operations of SEED; print
 *                              the digest, and with verbose every line
 *                              and the operations as shell commands
 * Without a job file: "seeds 0 200 60" (the short form).
 *
 * Output (KTAP diagnostics): "# fz S SEED NOPS DIGEST", "# fz R ID
 * DIGEST", "# fz L ID N LINE", "# fz C ID N COMMAND", "# fz rule ROW
 * NAME COUNT", "# fz ops N". Before each sequence cng_test is loaded
 * fresh; after it, the tree is taken down and cng_test unloaded.
 *
 *   cng_test/
 *   |-- items/a, items/b     items
 *   |-- n0/, n1/             nodes; n0/sub/x, n1/sub/y items, n0/m node,
 *   |                        n0/m/sub/w item
 *   |-- narrow/p, wide/q     items of 1 and 64 attributes
 *   |-- rt0/inner            ctl register / unregister
 *   `-- d0                   ctl register_default / unregister_default
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>

#include "conf_ktap.h"

#define JOB_FILE	"/tests/fuzz.job"
#define CNG_KO		"/lib/modules/cng/cng_test.ko"
#define MAX_OPS		4096
#define FDS		4
#define LINE_MAX_LEN	8192

/* The intentional differences this program leaves out of its lines. */
enum rule_id {
	R_INO_TIMES, R_ENODEV, R_RMDIR_DEPENDED, R_SORTED, R_REREAD,
	R_XATTR_ERROR, R_TRUNC_SIZE, R_COUNT,
};

static struct {
	int row;
	const char *name;
	long fired;
} rules[R_COUNT] = {
	[R_INO_TIMES] = { 1, "stat_ino_and_times_left_out" },
	[R_ENODEV] = { 2, "enodev_on_fd_of_removed_item_read_as_enoent" },
	[R_RMDIR_DEPENDED] = { 5, "rmdir_over_depended_default_group_not_run" },
	[R_SORTED] = { 9, "listing_sorted" },
	[R_REREAD] = { 20, "reread_of_shown_fd_content_left_out" },
	[R_XATTR_ERROR] = { 21, "getxattr_user_configfs_error_left_out" },
	[R_TRUNC_SIZE] = { 8, "size_of_truncated_attribute_left_out" },
};

static int fire(enum rule_id r)
{
	rules[r].fired++;
	return rules[r].row;
}

/* Paths relative to cng_test/: directories first, used by every op. */
static const char *const dirs[] = {
	"items/a", "items/b", "n0", "n1", "n0/sub/x", "n1/sub/y", "n0/m",
	"narrow/p", "wide/q", "n0/m/sub/w",	/* 0..9: mkdir makes these */
	"fixed/z", "items", "n0/sub", "fixed/inner", "rt0", "rt0/inner",
	"d0", "", "n0/sub/deep", "nope/x",
};
#define MKDIRS		10

static const char *const attrs[] = {
	"data", "store_ret", "show_ret", "name", "big", "wo", "blob",
	"blob_small", "blob_wo", "bin_ret", "link_ret", "w07", "nope",
	"live", "late", "events",
};

/* Link sources are items and nodes; rt0 and d0 have no allow_link. */
static const char *const link_dirs[] = {
	"items/a", "items/b", "n0", "n1", "n0/sub/x", "n0/m",
};

static const char *const ctls[] = {
	"register rt0", "unregister rt0", "register_default d0",
	"unregister_default d0", "make_err 12", "make_err 0", "nosuch x",
	"depend %s", "undepend %s", "depend_unlocked %s",
};
#define CTL_PATH_FIRST	7

static const char *const xattr_names[] = {
	"user.configfs.error", "user.x", "trusted.t", "security.capability",
};

enum op_kind {
	OP_MKDIR, OP_RMDIR, OP_SYMLINK, OP_UNLINK, OP_RENAME, OP_OPEN,
	OP_READ, OP_WRITE, OP_LSEEK, OP_CLOSE, OP_TRUNCATE, OP_CHMOD,
	OP_CHOWN, OP_UTIMES, OP_STAT, OP_READDIR, OP_READLINK, OP_GETXATTR,
	OP_SETXATTR, OP_DROP, OP_CTL, OP_CAT, OP_ECHO, OP_EVENTS, OP_KINDS,
};

/* Relative weights of the kinds. */
static const int weights[OP_KINDS] = {
	[OP_MKDIR] = 10, [OP_RMDIR] = 7, [OP_SYMLINK] = 5, [OP_UNLINK] = 4,
	[OP_RENAME] = 1, [OP_OPEN] = 5, [OP_READ] = 5, [OP_WRITE] = 5,
	[OP_LSEEK] = 2, [OP_CLOSE] = 3, [OP_TRUNCATE] = 1, [OP_CHMOD] = 2,
	[OP_CHOWN] = 1, [OP_UTIMES] = 1, [OP_STAT] = 5, [OP_READDIR] = 5,
	[OP_READLINK] = 2, [OP_GETXATTR] = 2, [OP_SETXATTR] = 1,
	[OP_DROP] = 2, [OP_CTL] = 7, [OP_CAT] = 7, [OP_ECHO] = 7,
	[OP_EVENTS] = 3,
};

struct op {
	enum op_kind kind;
	int a, b, c, d;
};

static struct op ops[MAX_OPS];

/* xorshift64*, seeded through splitmix64 */
static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32) % n;
}

static void seed_rng(uint64_t seed)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	rng = (z ^ (z >> 31)) | 1;
}

/* A directory: mostly one near the top, then one mkdir can make. */
static int pick_dir(void)
{
	static const int near[] = { 0, 1, 2, 3, 4 };
	int r = rnd(20);

	if (r < 8)
		return near[rnd(ARRAY_SIZE(near))];
	return r < 15 ? (int)rnd(MKDIRS) : (int)rnd(ARRAY_SIZE(dirs));
}

static void generate(uint64_t seed, int nops)
{
	int total = 0, i, k;

	seed_rng(seed);
	for (k = 0; k < OP_KINDS; k++)
		total += weights[k];
	for (i = 0; i < nops; i++) {
		struct op *op = &ops[i];
		int r = rnd(total);

		for (k = 0; r >= weights[k]; k++)
			r -= weights[k];
		op->kind = k;
		op->a = pick_dir();
		op->b = rnd(1000);
		op->c = rnd(1000);
		op->d = pick_dir();
		/* Most sequences start by making a few of the directories. */
		if (i < 4 && seed % 4)
			*op = (struct op){ OP_MKDIR, i == 3 ? 7 : i * 2,
					   op->b, op->c, op->d };
	}
}

/* Per-sequence state: open files and the dependencies held. */
static struct {
	int fd;
	int path;	/* dir * 100 + attr */
	bool shown;	/* read from once: stock keeps that buffer */
	bool seeked;	/* moved back or written since */
} fds[FDS];

static bool depended[ARRAY_SIZE(dirs)];
static bool truncated[ARRAY_SIZE(dirs)][ARRAY_SIZE(attrs)];

static char line[LINE_MAX_LEN];
static size_t line_len;

static void out(const char *fmt, ...)
{
	va_list ap;

	if (line_len >= sizeof(line) - 1)
		return;
	va_start(ap, fmt);
	line_len += vsnprintf(line + line_len, sizeof(line) - line_len, fmt,
			      ap);
	va_end(ap);
	if (line_len > sizeof(line) - 1)
		line_len = sizeof(line) - 1;
}

/* The outcome of a call: its value or its errno's name. */
static void result(long ret)
{
	if (ret < 0)
		out(" -> %s", ename(errno));
	else
		out(" -> %ld", ret);
}

/* Bytes as text: printable as is, others escaped; long runs counted. */
static void out_bytes(const char *buf, long n)
{
	long i;

	out(" '");
	for (i = 0; i < n && i < 200; i++) {
		unsigned char ch = buf[i];

		if (ch >= 32 && ch < 127 && ch != '\'' && ch != '\\')
			out("%c", ch);
		else
			out("\\x%02x", ch);
	}
	if (n > 200) {
		uint32_t h = 2166136261u;

		for (; i < n; i++)
			h = (h ^ (unsigned char)buf[i]) * 16777619u;
		out("...+%ld:%08x", n - 200, h);
	}
	out("'");
}

static char shell[LINE_MAX_LEN];

static void cmd(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(shell, sizeof(shell), fmt, ap);
	va_end(ap);
}

static void path_of(char *buf, size_t size, int dir, const char *name)
{
	const char *d = dirs[dir];

	snprintf(buf, size, T "%s%s%s%s", *d ? "/" : "", d,
		 name ? "/" : "", name ? name : "");
}

static int pick_attr(int r)
{
	return r % ARRAY_SIZE(attrs);
}

/* What to write to attribute @attr: a value that fits it, mostly. */
static const char *value_for(int attr, int r, size_t *len)
{
	static char big[10001];
	static const char *const data_vals[] = {
		"hello\n", "", "v2", "0", "with space\n", "\xff\x01",
	};
	static const char *const ret_vals[] = {
		"0", "-22", "2", "-5", "x", "-28",
	};
	static const char *const ctl_ish[] = { "clear", "1" };
	const char *name = attrs[attr];

	memset(big, 'z', sizeof(big));
	if (r % 13 == 0) {
		*len = 4096 + (r / 13) % 2;
		return big;
	}
	if (!strcmp(name, "blob") && r % 7 == 0) {
		*len = 10000 + (r / 7) % 2;
		return big;
	}
	if (strstr(name, "blob") && r % 5 == 0) {
		*len = 16 + (r / 5) % 50;
		return big;
	}
	if (strstr(name, "_ret")) {
		*len = strlen(ret_vals[r % ARRAY_SIZE(ret_vals)]);
		return ret_vals[r % ARRAY_SIZE(ret_vals)];
	}
	if (!strcmp(name, "events")) {
		*len = strlen(ctl_ish[r % 2]);
		return ctl_ish[r % 2];
	}
	*len = strlen(data_vals[r % ARRAY_SIZE(data_vals)]);
	return data_vals[r % ARRAY_SIZE(data_vals)];
}

/* show_ret of more than a page WARNs on stock (row 7): never written. */

static void op_stat(const char *path, int dir, int attr)
{
	struct stat st;
	long ret = lstat(path, &st);

	result(ret);
	if (ret)
		return;
	fire(R_INO_TIMES);
	out(" %c%04o %u:%u n%lu", S_ISDIR(st.st_mode) ? 'd' :
	    S_ISLNK(st.st_mode) ? 'l' : S_ISREG(st.st_mode) ? 'f' : '?',
	    st.st_mode & 07777, st.st_uid, st.st_gid,
	    (unsigned long)st.st_nlink);
	if (attr >= 0 && truncated[dir][attr])
		out(" size(row %d)", fire(R_TRUNC_SIZE));
	else
		out(" s%lld", (long long)st.st_size);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void op_readdir(const char *path)
{
	char *names[256];
	struct dirent *de;
	int n = 0, i;
	DIR *d = opendir(path);

	if (!d) {
		result(-1);
		return;
	}
	while ((de = readdir(d)) && n < 256) {
		char buf[300];

		snprintf(buf, sizeof(buf), "%s%s", de->d_name,
			 de->d_type == DT_DIR ? "/" :
			 de->d_type == DT_LNK ? "@" : "");
		names[n++] = strdup(buf);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	out(" -> %d (row %d)", n, fire(R_SORTED));
	for (i = 0; i < n; i++) {
		out(" %s", names[i]);
		free(names[i]);
	}
}

static void fix_enodev(long ret)
{
	if (ret < 0 && errno == ENODEV) {
		fire(R_ENODEV);
		errno = ENOENT;
	}
}

static void run_op(const struct op *op)
{
	char p1[512], p2[512], buf[10240];
	int slot = op->b % FDS, attr = pick_attr(op->c);
	long ret;
	size_t len;

	line_len = 0;
	shell[0] = '\0';
	switch (op->kind) {
	case OP_MKDIR:
		path_of(p1, sizeof(p1), op->a, NULL);
		out("mkdir %s", dirs[op->a]);
		cmd("mkdir %s", p1);
		result(mkdir(p1, 0755));
		break;
	case OP_RMDIR: {
		size_t n = strlen(dirs[op->a]);
		unsigned int i;
		bool held = false;

		out("rmdir %s", dirs[op->a]);
		path_of(p1, sizeof(p1), op->a, NULL);
		cmd("rmdir %s", p1);
		for (i = 0; i < ARRAY_SIZE(dirs); i++)
			if (depended[i] && n && !strncmp(dirs[i], dirs[op->a], n) &&
			    dirs[i][n] == '/')
				held = true;
		if (held) {
			out(" not run (row %d)", fire(R_RMDIR_DEPENDED));
			cmd("# rmdir %s not run (row 5)", p1);
			break;
		}
		result(rmdir(p1));
		break;
	}
	case OP_SYMLINK: {
		int src = op->b % ARRAY_SIZE(link_dirs);
		const char *target;

		snprintf(p1, sizeof(p1), T "/%s/l%d", link_dirs[src],
			 op->c % 2);
		switch (op->c % 5) {
		case 0:
			target = "/tmp";
			break;
		case 1:
			target = "../b";
			break;
		default:
			path_of(p2, sizeof(p2), op->a, NULL);
			target = p2;
		}
		out("symlink %s/l%d -> %s", link_dirs[src], op->c % 2,
		    target == p2 ? dirs[op->a] : target);
		cmd("ln -s %s %s", target, p1);
		result(symlink(target, p1));
		break;
	}
	case OP_UNLINK:
		if (op->b % 3) {
			snprintf(p1, sizeof(p1), T "/%s/l%d",
				 link_dirs[op->b % ARRAY_SIZE(link_dirs)],
				 op->c % 2);
		} else {
			path_of(p1, sizeof(p1), op->a, attrs[attr]);
		}
		out("unlink %s", p1 + strlen(T));
		cmd("rm %s", p1);
		result(unlink(p1));
		break;
	case OP_RENAME:
		path_of(p1, sizeof(p1), op->a, NULL);
		path_of(p2, sizeof(p2), op->d, NULL);
		out("rename %s %s", dirs[op->a], dirs[op->d]);
		cmd("mv %s %s", p1, p2);
		result(rename(p1, p2));
		break;
	case OP_OPEN: {
		static const int modes[] = {
			O_RDONLY, O_WRONLY, O_RDWR, O_WRONLY | O_TRUNC,
			O_RDWR | O_APPEND, O_RDONLY | O_DIRECTORY,
			O_WRONLY | O_CREAT,
		};
		int mode = modes[op->b / FDS % ARRAY_SIZE(modes)];

		path_of(p1, sizeof(p1), op->a, attrs[attr]);
		out("open fd%d %s %o", slot, p1 + strlen(T), mode);
		cmd("exec %d<>%s  # flags %o", slot + 3, p1, mode);
		if (fds[slot].fd >= 0) {
			out(" busy");
			break;
		}
		ret = open(p1, mode | O_CLOEXEC, 0644);
		result(ret);
		if (ret < 0)
			break;
		fds[slot].fd = ret;
		fds[slot].path = op->a * 100 + attr;
		fds[slot].shown = false;
		fds[slot].seeked = false;
		if (mode & O_TRUNC)
			truncated[op->a][attr] = true;
		break;
	}
	case OP_READ:
		len = op->c % 3 ? 4096 : op->c % 40;
		out("read fd%d %zu", slot, len);
		cmd("head -c %zu <&%d", len, slot + 3);
		if (fds[slot].fd < 0) {
			out(" closed");
			break;
		}
		ret = read(fds[slot].fd, buf, len);
		fix_enodev(ret);
		result(ret);
		if (ret < 0)
			break;
		if (fds[slot].shown && fds[slot].seeked)
			out(" content(row %d)", fire(R_REREAD));
		else
			out_bytes(buf, ret);
		if (ret > 0)
			fds[slot].shown = true;
		break;
	case OP_WRITE: {
		const char *v;

		out("write fd%d", slot);
		if (fds[slot].fd < 0) {
			out(" closed");
			break;
		}
		v = value_for(fds[slot].path % 100, op->c, &len);
		out_bytes(v, len);
		cmd("printf '%%s' '%.*s' >&%d", (int)(len > 64 ? 64 : len), v,
		    slot + 3);
		ret = write(fds[slot].fd, v, len);
		fix_enodev(ret);
		result(ret);
		fds[slot].seeked = true;
		break;
	}
	case OP_LSEEK: {
		static const int whences[] = { SEEK_SET, SEEK_CUR, SEEK_END };
		long off = op->c % 4 ? 0 : op->c % 5000;
		int whence = whences[op->c / 4 % 3];

		out("lseek fd%d %ld %d", slot, off, whence);
		cmd("# lseek fd %d to %ld whence %d", slot + 3, off, whence);
		if (fds[slot].fd < 0) {
			out(" closed");
			break;
		}
		ret = lseek(fds[slot].fd, off, whence);
		fix_enodev(ret);
		result(ret);
		fds[slot].seeked = true;
		break;
	}
	case OP_CLOSE:
		out("close fd%d", slot);
		cmd("exec %d>&-", slot + 3);
		if (fds[slot].fd < 0) {
			out(" closed");
			break;
		}
		ret = close(fds[slot].fd);
		fix_enodev(ret);
		result(ret);
		fds[slot].fd = -1;
		break;
	case OP_TRUNCATE:
		path_of(p1, sizeof(p1), op->a, attrs[attr]);
		out("truncate %s %d", p1 + strlen(T), op->b % 200);
		cmd("truncate -s %d %s", op->b % 200, p1);
		ret = truncate(p1, op->b % 200);
		result(ret);
		if (!ret)
			truncated[op->a][attr] = true;
		break;
	case OP_CHMOD: {
		static const int mode_vals[] = { 0700, 0644, 0444, 0200, 0777,
						 04755 };
		int mode = mode_vals[op->b % ARRAY_SIZE(mode_vals)];

		path_of(p1, sizeof(p1), op->a, op->c % 2 ? attrs[attr] : NULL);
		out("chmod %s %o", p1 + strlen(T), mode);
		cmd("chmod %o %s", mode, p1);
		result(chmod(p1, mode));
		break;
	}
	case OP_CHOWN:
		path_of(p1, sizeof(p1), op->a, op->c % 2 ? attrs[attr] : NULL);
		out("chown %s %d:%d", p1 + strlen(T), op->b % 3 * 1000,
		    op->b % 2 * 1000);
		cmd("chown %d:%d %s", op->b % 3 * 1000, op->b % 2 * 1000, p1);
		result(lchown(p1, op->b % 3 * 1000, op->b % 2 * 1000));
		break;
	case OP_UTIMES: {
		struct timespec ts[2] = { { 978307200, 0 }, { 978307200, 0 } };

		path_of(p1, sizeof(p1), op->a, op->c % 2 ? attrs[attr] : NULL);
		out("utimes %s", p1 + strlen(T));
		cmd("touch -d 2001-01-01 %s", p1);
		result(utimensat(AT_FDCWD, p1, ts, AT_SYMLINK_NOFOLLOW));
		break;
	}
	case OP_STAT:
		if (op->c % 3 == 0) {
			path_of(p1, sizeof(p1), op->a, attrs[attr]);
			out("stat %s", p1 + strlen(T));
			cmd("stat %s", p1);
			op_stat(p1, op->a, attr);
		} else if (op->c % 3 == 1) {
			path_of(p1, sizeof(p1), op->a, NULL);
			out("stat %s", p1 + strlen(T));
			cmd("stat %s", p1);
			op_stat(p1, op->a, -1);
		} else {
			snprintf(p1, sizeof(p1), T "/%s/l%d",
				 link_dirs[op->b % ARRAY_SIZE(link_dirs)],
				 op->c % 2);
			out("stat %s", p1 + strlen(T));
			cmd("stat %s", p1);
			op_stat(p1, op->a, -1);
		}
		break;
	case OP_READDIR:
		path_of(p1, sizeof(p1), op->a, NULL);
		out("readdir %s", dirs[op->a]);
		cmd("ls -a %s", p1);
		op_readdir(p1);
		break;
	case OP_READLINK:
		snprintf(p1, sizeof(p1), T "/%s/l%d",
			 link_dirs[op->b % ARRAY_SIZE(link_dirs)], op->c % 2);
		out("readlink %s", p1 + strlen(T));
		cmd("readlink %s", p1);
		ret = readlink(p1, buf, sizeof(buf));
		result(ret);
		if (ret >= 0)
			out_bytes(buf, ret);
		break;
	case OP_GETXATTR: {
		const char *name = xattr_names[op->b % ARRAY_SIZE(xattr_names)];

		path_of(p1, sizeof(p1), op->a, op->c % 2 ? attrs[attr] : NULL);
		out("getxattr %s %s", p1 + strlen(T), name);
		cmd("getfattr -n %s %s", name, p1);
		if (!strcmp(name, "user.configfs.error")) {
			out(" not recorded (row %d)", fire(R_XATTR_ERROR));
			break;
		}
		ret = lgetxattr(p1, name, buf, sizeof(buf));
		result(ret);
		if (ret >= 0)
			out_bytes(buf, ret);
		break;
	}
	case OP_SETXATTR: {
		const char *name = xattr_names[op->b % ARRAY_SIZE(xattr_names)];

		path_of(p1, sizeof(p1), op->a, op->c % 2 ? attrs[attr] : NULL);
		out("setxattr %s %s", p1 + strlen(T), name);
		cmd("setfattr -n %s -v 1 %s", name, p1);
		result(lsetxattr(p1, name, "1", 1, 0));
		break;
	}
	case OP_DROP:
		out("drop_caches");
		cmd("echo 3 > /proc/sys/vm/drop_caches");
		result(put("/proc/sys/vm/drop_caches", "3") < 0 ? -1 : 0);
		break;
	case OP_CTL: {
		int k = op->b % ARRAY_SIZE(ctls);
		int target = op->a;

		if (k >= CTL_PATH_FIRST && (target == 14 || target == 15 ||
					    target == 16))
			target = 2;	/* kernel-made parts: row 10 */
		snprintf(buf, sizeof(buf), ctls[k], dirs[target]);
		out("ctl %s", buf);
		cmd("echo '%s' > " T "/ctl", buf);
		errno = 0;
		ret = put(T "/ctl", buf);
		if (ret < 0)
			errno = -ret;
		result(ret);
		if (!ret && k == CTL_PATH_FIRST + 1)
			depended[target] = false;
		else if (!ret && k != CTL_PATH_FIRST + 1 && k >= CTL_PATH_FIRST)
			depended[target] = true;
		break;
	}
	case OP_CAT:
		path_of(p1, sizeof(p1), op->a, attrs[attr]);
		out("cat %s", p1 + strlen(T));
		cmd("cat %s", p1);
		ret = slurp(p1, buf, sizeof(buf));
		if (ret < 0)
			errno = -ret;
		result(ret);
		if (ret >= 0)
			out_bytes(buf, ret);
		break;
	case OP_ECHO: {
		const char *v = value_for(attr, op->b, &len);
		int fd;

		path_of(p1, sizeof(p1), op->a, attrs[attr]);
		out("echo %s", p1 + strlen(T));
		out_bytes(v, len);
		cmd("printf '%%s' '%.*s' > %s", (int)(len > 64 ? 64 : len), v,
		    p1);
		fd = open(p1, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			result(fd);
			break;
		}
		ret = write(fd, v, len);
		result(ret);
		out(" close");
		result(close(fd));
		break;
	}
	case OP_EVENTS:
		out("events");
		cmd("cat " T "/events; echo clear > " T "/events");
		ret = slurp(T "/events", buf, sizeof(buf));
		if (ret < 0)
			errno = -ret;
		result(ret);
		if (ret >= 0)
			out_bytes(buf, ret);
		events_clear();
		break;
	case OP_KINDS:
		break;
	}
}

static long total_ops;

static int load_cng(void)
{
	int fd = open(CNG_KO, O_RDONLY | O_CLOEXEC);
	long ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

/* Unlinks every link and removes every directory it can, bottom up. */
static void sweep(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	char sub[1024];

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (de->d_type == DT_LNK) {
			unlink(sub);
		} else if (de->d_type == DT_DIR) {
			sweep(sub);
			rmdir(sub);
		}
	}
	closedir(d);
}

/* Takes the tree down and unloads cng_test; false if it stays. */
static bool teardown(void)
{
	unsigned int i;
	int pass;

	for (i = 0; i < FDS; i++) {
		if (fds[i].fd >= 0)
			close(fds[i].fd);
		fds[i].fd = -1;
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		char c[600];

		snprintf(c, sizeof(c), "undepend %s", dirs[i]);
		while (depended[i] && !put(T "/ctl", c))
			;
		depended[i] = false;
	}
	put(T "/ctl", "unregister rt0");
	put(T "/ctl", "unregister_default d0");
	for (pass = 0; pass < 3; pass++)
		sweep(T);
	put("/proc/sys/vm/drop_caches", "3");
	for (pass = 0; pass < 50; pass++) {
		if (!syscall(SYS_delete_module, "cng_test", O_NONBLOCK))
			return true;
		usleep(20000);
	}
	say("cng_test does not unload: %s", ename(errno));
	return false;
}

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	while (n--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return (h ^ '\n') * 0x100000001b3ULL;
}

/*
 * Runs ops[] where pick[] is set; the digest of the lines, and with
 * verbose every line. false if cng_test could not be loaded or unloaded.
 */
static bool run_seq(const char *id, int nops, const bool *pick,
		    bool verbose, uint64_t *digest)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	int i;

	memset(depended, 0, sizeof(depended));
	memset(truncated, 0, sizeof(truncated));
	for (i = 0; i < FDS; i++)
		fds[i].fd = -1;
	if (load_cng()) {
		say("cannot load cng_test: %s", ename(errno));
		return false;
	}
	for (i = 0; i < nops; i++) {
		if (!pick[i])
			continue;
		run_op(&ops[i]);
		total_ops++;
		h = fnv(h, line, line_len);
		if (verbose) {
			say("fz L %s %d %s", id, i, line);
			say("fz C %s %d %s", id, i, shell);
		}
	}
	*digest = h;
	return teardown();
}

static bool pick[MAX_OPS];

static bool job_line(char *jl)
{
	unsigned long long first, count, seed;
	int nops, i;
	char id[64], list[16384], verbose[16];
	uint64_t digest;

	if (sscanf(jl, "seeds %llu %llu %d", &first, &count, &nops) == 3) {
		if (nops > MAX_OPS)
			nops = MAX_OPS;
		for (i = 0; i < nops; i++)
			pick[i] = true;
		for (seed = first; seed < first + count; seed++) {
			snprintf(id, sizeof(id), "%llu", seed);
			generate(seed, nops);
			if (!run_seq(id, nops, pick, false, &digest))
				return false;
			say("fz S %llu %d %016" PRIx64, seed, nops, digest);
		}
		return true;
	}
	verbose[0] = '\0';
	if (sscanf(jl, "run %63s %llu %d %16383s %15s", id, &seed, &nops,
		   list, verbose) >= 4) {
		char *tok, *save;

		if (nops > MAX_OPS)
			nops = MAX_OPS;
		memset(pick, 0, sizeof(pick));
		if (!strcmp(list, "all")) {
			for (i = 0; i < nops; i++)
				pick[i] = true;
		} else {
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				if (atoi(tok) >= 0 && atoi(tok) < nops)
					pick[atoi(tok)] = true;
		}
		generate(seed, nops);
		if (!run_seq(id, nops, pick, !strcmp(verbose, "verbose"),
			     &digest))
			return false;
		say("fz R %s %016" PRIx64, id, digest);
		return true;
	}
	return true;
}

static bool run_job(void)
{
	static char jl[20000];
	FILE *f = fopen(JOB_FILE, "r");
	bool ok = true;

	if (!f)
		return job_line(strcpy(jl, "seeds 0 200 60"));
	while (ok && fgets(jl, sizeof(jl), f))
		ok = job_line(jl);
	fclose(f);
	return ok;
}

static bool job_ran_and_tree_came_down(void)
{
	unsigned int i;
	bool ok = run_job();

	say("fz ops %ld", total_ops);
	for (i = 0; i < R_COUNT; i++)
		say("fz rule %d %s %ld", rules[i].row, rules[i].name,
		    rules[i].fired);
	return ok;
}

int main(void)
{
	static const struct tcase cases[] = {
		{ "fuzz_job_ran_and_tree_came_down",
		  job_ran_and_tree_came_down },
	};

	if (!access(T, F_OK)) {
		say("cng_test is already loaded");
		return 1;
	}
	run_cases(cases, ARRAY_SIZE(cases));
	return ktap_failed ? 1 : 0;
}
