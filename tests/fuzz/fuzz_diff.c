// SPDX-License-Identifier: GPL-2.0
/*
 * Differential fuzzer: from a seed, a sequence of configfs operations
 * over cng_test, each outcome one normalised line. In a third of the
 * seeds (user_seed()) about half the operations run as USER_ID: the
 * effective ids are switched for each and back to root's after it (the
 * saved id stays 0), so that root's chmod and chown of parts of the tree
 * and the user's EACCES and EPERM are in one deterministic sequence.
 * Every seed runs on stock and on ours in this one boot: the program
 * unmounts configfs, swaps the module and mounts it again, and compares
 * the digests of the lines. A seed that differs is logged on both, cut
 * after its first differing line and shrunk by delta debugging (every
 * candidate run on both modules) to a minimal reproducer, printed as
 * shell commands with the outcomes.
 *
 * The sequence depends on the seed alone, never on outcomes, so that any
 * subset of it (the shrinker's candidates) is well defined. What may
 * legitimately differ is left out of the lines by the rules in rules[],
 * each tied to its row of docs/differences.md and counted when it fires.
 *
 * The job is a line of /tests/fuzz.job (scripts/fuzz-diff.sh puts it in
 * the initramfs; the Nth run of the boot takes line N, so that a long
 * campaign is split into runs whose kernel log each fits the buffer):
 * "seeds FIRST COUNT NOPS [SHRINK [off=ROWS]]",
 * SHRINK the number of differing seeds to shrink (3), ROWS a comma list
 * of rules to turn off, to show that each is needed (rows 1 and 5 stay),
 * or "conc FIRST COUNT NOPS PROCS" for concurrent sequences (diff/conc.c).
 * Without it, the short form: "seeds 0 200 60 3". Diagnostics: "# fz ops
 * MODULE N", "# fz user ops MODULE N denied N", "# fz rule MODULE ROW
 * NAME COUNT", "# fz seed N differs", then the reproducers; "# fz conc
 * ops MODULE N broken N of N" and "# fz conc seed N on MODULE: what broke"
 * for concurrent ones. Before each sequence cng_test is loaded fresh;
 * after it, the tree is taken down and cng_test unloaded; the boot's
 * module is loaded at the end.
 *
 *   cng_test/
 *   |-- items/a, items/b     items
 *   |-- n0/, n1/             nodes; n0/sub/x, n1/sub/y items, n0/m node,
 *   |                        n0/m/sub/w item
 *   |-- narrow/p, wide/q     items of 1 and 64 attributes
 *   |-- rt0/inner            ctl register / unregister
 *   |-- rt1/k                ctl register_make / unregister; mkdir
 *   `-- d0                   ctl register_default / unregister_default
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <grp.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/xattr.h>

#include "diff/fuzz_diff.h"

#define JOB_FILE	"/tests/fuzz.job"
#define JOB_NEXT	"/tmp/fuzz.next"	/* the job line the next run takes */
#define FDS		4
#define LINE_MAX_LEN	8192

/* The intentional differences this program leaves out of its lines. */
enum rule_id {
	R_INO_TIMES, R_ENODEV, R_RMDIR_DEPENDED, R_SORTED, R_REREAD,
	R_XATTR_ERROR, R_TRUNC_SIZE, R_UNREG_BUSY, R_POLL_GONE, R_COUNT,
};

static struct {
	int row;
	const char *name;
	long fired[2];	/* on stock, on ours */
} rules[R_COUNT] = {
	[R_INO_TIMES] = { 1, "stat_ino_and_times_left_out" },
	[R_ENODEV] = { 2, "enodev_on_fd_of_removed_item_read_as_enoent" },
	[R_RMDIR_DEPENDED] = { 5, "rmdir_over_depended_default_group_not_run" },
	[R_SORTED] = { 9, "listing_sorted" },
	[R_REREAD] = { 20, "reread_at_0_content_and_show_event_left_out" },
	[R_XATTR_ERROR] = { 21, "getxattr_user_configfs_error_left_out" },
	[R_TRUNC_SIZE] = { 8, "size_or_position_from_o_trunc_left_out" },
	[R_UNREG_BUSY] = { 4, "unregister_of_group_with_user_items_not_run" },
	[R_POLL_GONE] = { 22, "pollpri_and_pollerr_of_removed_item_left_out" },
};

static int rule_mod;	/* the module a sequence runs on */
static bool rule_off[R_COUNT];	/* turned off by the job, to see it needed */

static int fire(enum rule_id r)
{
	rules[r].fired[rule_mod]++;
	return rules[r].row;
}

/* Rule @r applies here: true, and counted, unless the job turned it off. */
static bool rule(enum rule_id r)
{
	if (rule_off[r])
		return false;
	fire(r);
	return true;
}

static const char *const attrs[] = {
	"data", "store_ret", "show_ret", "name", "big", "wo", "blob",
	"blob_small", "blob_wo", "bin_ret", "link_ret", "w07", "nope",
	"live", "late", "events",
};

static const char *const xattr_names[] = {
	"user.configfs.error", "user.x", "trusted.t", "security.capability",
};

/* Relative weights of the kinds. */
static const int weights[OP_KINDS] = {
	[OP_MKDIR] = 10, [OP_RMDIR] = 7, [OP_SYMLINK] = 5, [OP_UNLINK] = 4,
	[OP_RENAME] = 1, [OP_OPEN] = 5, [OP_READ] = 5, [OP_WRITE] = 5,
	[OP_LSEEK] = 2, [OP_CLOSE] = 3, [OP_TRUNCATE] = 1, [OP_CHMOD] = 2,
	[OP_CHOWN] = 1, [OP_UTIMES] = 1, [OP_STAT] = 5, [OP_READDIR] = 5,
	[OP_READLINK] = 2, [OP_GETXATTR] = 2, [OP_SETXATTR] = 1,
	[OP_DROP] = 2, [OP_CTL] = 7, [OP_CAT] = 7, [OP_ECHO] = 7,
	[OP_EVENTS] = 3, [OP_REMOUNT] = 1, [OP_POLL] = 3,
};

#define USER_ID		1000

struct op ops[MAX_OPS];
static unsigned long long cur_seed;	/* the one ops[] came from */

/* xorshift64*, seeded through splitmix64 */
static unsigned long long rng;

static unsigned int rnd(unsigned int n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (unsigned int)((rng * 0x2545F4914F6CDD1DULL) >> 32) % n;
}

static void seed_rng(unsigned long long seed)
{
	unsigned long long z = seed + 0x9E3779B97F4A7C15ULL;

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

/* A third of the seeds mix operations as root and as USER_ID. */
static bool user_seed(unsigned long long seed)
{
	return seed % 3 == 2;
}

void generate(unsigned long long seed, int nops)
{
	int total = 0, i, k;

	cur_seed = seed;
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
		op->user = false;
		if (user_seed(seed)) {
			/* root hands parts of the tree over, or takes them */
			if (!rnd(6))
				op->kind = rnd(2) ? OP_CHMOD : OP_CHOWN;
			op->user = rnd(2);
		}
		if (conc_mode && op->kind == OP_REMOUNT)
			op->kind = OP_STAT;
		/* Not rt1's: unregistered with user items, stock leaks (row 4) */
		if (conc_mode && op->kind == OP_CTL &&
		    (op->b % ARRAY_SIZE(ctls) == CTL_RT1 ||
		     op->b % ARRAY_SIZE(ctls) == CTL_RT1 + 1))
			op->b += CTL_NOSUCH - op->b % ARRAY_SIZE(ctls);
		/* Most sequences start by making a few of the directories. */
		if (i < 4 && seed % 4)
			*op = (struct op){ OP_MKDIR, i == 3 ? 7 : i * 2,
					   op->b, op->c, op->d, false };
	}
}

const char *const mod_names[] = { "stock", "ours" };
int cur = -1;

/* Per-sequence state: open files and the dependencies held. */
static struct {
	int fd;
	int path;	/* dir * 100 + attr */
	bool shown;	/* read from once: stock keeps that buffer */
	bool seeked;	/* moved back or written since */
	bool pos_off;	/* position from a truncated size, until SEEK_SET */
	bool gone;	/* its item was removed (row 22) */
} fds[FDS];

/* No file open: before a sequence, and in each concurrent process. */
void fds_reset(void)
{
	int i;

	for (i = 0; i < FDS; i++)
		fds[i].fd = -1;
}

static int depended[ARRAY_SIZE(dirs)];	/* dependencies held on each */
static bool reshown[ARRAY_SIZE(dirs)];	/* read again at 0 (row 20) */
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

long last_ret;	/* of the operation's last call */
static int last_err;	/* and its errno, 0 if it succeeded */

/* The outcome of a call: its value or its errno's name. */
static void result(long ret)
{
	last_ret = ret;
	last_err = ret < 0 ? errno : 0;
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
		unsigned int h = 2166136261u;

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

void path_of(char *buf, size_t size, int dir, const char *name)
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
	if (attr >= 0 && truncated[dir][attr] && rule(R_TRUNC_SIZE))
		out(" size(row %d)", rules[R_TRUNC_SIZE].row);
	else
		out(" s%lld", (long long)st.st_size);
}

int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void op_readdir(const char *path)
{
	char *names[256];
	struct dirent *de;
	int n = 0, i;
	DIR *d;

	d = opendir(path);
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
	if (conc_mode) {
		conc_dups(path, names, n);
		return;
	}
	if (rule(R_SORTED))
		qsort(names, n, sizeof(*names), name_cmp);
	out(" -> %d", n);
	for (i = 0; i < n; i++) {
		out(" %s", names[i]);
		free(names[i]);
	}
}

/*
 * Drops from an event log the show lines of the directories whose data
 * was read again from offset 0 by one open file: stock does not call
 * show for it, ours does (row 20). Returns the new length.
 */
static long strip_reshows(char *log)
{
	char *src = log, *dst = log, *nl;
	char want[300];
	unsigned int i;

	while (*src) {
		bool drop = false;
		size_t n;

		nl = strchr(src, '\n');
		n = nl ? (size_t)(nl - src + 1) : strlen(src);
		for (i = 0; i < ARRAY_SIZE(dirs) && !drop; i++) {
			if (!reshown[i])
				continue;
			snprintf(want, sizeof(want), "show %s/data\n", dirs[i]);
			drop = n == strlen(want) && !strncmp(src, want, n);
		}
		if (drop && rule(R_REREAD)) {
			src += n;
			continue;
		}
		memmove(dst, src, n);
		dst += n;
		src += n;
	}
	*dst = '\0';
	memset(reshown, 0, sizeof(reshown));
	return dst - log;
}

/* The open files of @dir and of everything below it lose their item. */
static void mark_gone(int dir)
{
	size_t n = strlen(dirs[dir]);
	int i;

	for (i = 0; i < FDS; i++) {
		const char *d = dirs[fds[i].path / 100];

		if (fds[i].fd >= 0 && n && !strncmp(d, dirs[dir], n) &&
		    (!d[n] || d[n] == '/'))
			fds[i].gone = true;
	}
}

/* Whether the open file's revents were POLLPRI and POLLERR (row 22). */
static bool poll_gone_rule(int slot, bool had)
{
	return fds[slot].gone && had && rule(R_POLL_GONE);
}

static void op_poll(int slot, bool use_select)
{
	int fd = fds[slot].fd;
	long ret;

	out("%s fd%d", use_select ? "select" : "poll", slot);
	cmd("# %s on fd %d, timeout 0", use_select ? "select" : "poll",
	    slot + 3);
	if (fd < 0) {
		out(" closed");
		return;
	}
	if (use_select) {
		struct timeval tv = { 0, 0 };
		fd_set r, w, x;

		FD_ZERO(&r);
		FD_ZERO(&w);
		FD_ZERO(&x);
		FD_SET(fd, &r);
		FD_SET(fd, &w);
		FD_SET(fd, &x);
		ret = select(fd + 1, &r, &w, &x, &tv);
		if (ret > 0 && poll_gone_rule(slot, FD_ISSET(fd, &x))) {
			FD_CLR(fd, &x);
			ret--;
		}
		result(ret);
		if (ret >= 0)
			out(" r%d w%d x%d", !!FD_ISSET(fd, &r),
			    !!FD_ISSET(fd, &w), !!FD_ISSET(fd, &x));
	} else {
		struct pollfd p = { fd, POLLIN | POLLPRI | POLLOUT, 0 };

		ret = poll(&p, 1, 0);
		if (ret > 0 && poll_gone_rule(slot, p.revents &
					      (POLLPRI | POLLERR)))
			p.revents &= ~(POLLPRI | POLLERR);
		result(ret);
		if (ret >= 0)
			out(" %#x", p.revents);
	}
}

/* The operations of a user: USER_ID's ids, root's capabilities off. */
static void become(bool user)
{
	int ret;

	if (user)
		ret = setresgid(-1, USER_ID, -1) || setresuid(-1, USER_ID, -1);
	else
		ret = setresuid(-1, 0, -1) || setresgid(-1, 0, -1);
	if (ret) {
		say("cannot switch ids: %s", ename(errno));
		exit(1);
	}
}

static void fix_enodev(long ret)
{
	if (ret < 0 && errno == ENODEV && rule(R_ENODEV))
		errno = ENOENT;
}

static long user_ops[2], user_denied[2];	/* on stock, on ours */

/* The reproducer's command, redirections included, run as USER_ID. */
static void cmd_as_user(void)
{
	char as[LINE_MAX_LEN];
	size_t n;
	int i;

	n = snprintf(as, sizeof(as),
		     "setpriv --euid=%d --egid=%d --clear-groups sh -c '",
		     USER_ID, USER_ID);
	for (i = 0; shell[i] && n + 8 < sizeof(as); i++) {
		if (shell[i] == '\'') {
			memcpy(as + n, "'\\''", 4);
			n += 4;
		} else {
			as[n++] = shell[i];
		}
	}
	as[n++] = '\'';
	as[n] = '\0';
	strcpy(shell, as);
}

void run_op(const struct op *op)
{
	char p1[512], p2[512], buf[10240];
	int slot = op->b % FDS, attr = pick_attr(op->c);
	long ret;
	size_t len;
	int i;

	/* An operation on a closed file takes the first open one, if any. */
	for (i = 0; op->kind != OP_OPEN && fds[slot].fd < 0 && i < FDS; i++)
		if (fds[i].fd >= 0)
			slot = i;

	line_len = 0;
	shell[0] = '\0';
	last_ret = -1;
	last_err = 0;
	if (op->user) {
		out("u ");
		become(true);
	}
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
		if (!last_ret)
			mark_gone(op->a);
		break;
	}
	case OP_SYMLINK: {
		int src = op->b % ARRAY_SIZE(link_dirs);
		const char *target;

		/* stock frees an item that a racing symlink uses (row 25) */
		if (conc_mode && cur == STOCK) {
			out("symlink not run (row 25)");
			break;
		}
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
		fds[slot].pos_off = false;
		fds[slot].gone = false;
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
		/* Stock shows once per file; ours again at offset 0 (row 20). */
		if (fds[slot].shown &&
		    lseek(fds[slot].fd, 0, SEEK_CUR) == 0)
			fds[slot].seeked = true;
		if (fds[slot].shown && fds[slot].seeked)
			reshown[fds[slot].path / 100] = true;
		ret = read(fds[slot].fd, buf, len);
		fix_enodev(ret);
		/* stock serves its buffer, ours shows again at 0: ENODEV */
		if (fds[slot].shown && fds[slot].gone && rule(R_REREAD)) {
			out(" -> read(row %d)", rules[R_REREAD].row);
			break;
		}
		if (ret >= 0 && fds[slot].pos_off && rule(R_TRUNC_SIZE)) {
			out(" -> read(row %d)", rules[R_TRUNC_SIZE].row);
			break;
		}
		result(ret);
		if (ret < 0)
			break;
		if (fds[slot].shown && fds[slot].seeked && rule(R_REREAD))
			out(" content(row %d)", rules[R_REREAD].row);
		else
			out_bytes(buf, ret);
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
		/* the positions of the reads above */
		if (fds[slot].shown && fds[slot].gone && rule(R_REREAD)) {
			out(" -> pos(row %d)", rules[R_REREAD].row);
			break;
		}
		if (whence == SEEK_SET)
			fds[slot].pos_off = false;
		else if (whence == SEEK_END &&
			 truncated[fds[slot].path / 100][fds[slot].path % 100])
			fds[slot].pos_off = true;
		if (ret >= 0 && fds[slot].pos_off && rule(R_TRUNC_SIZE)) {
			out(" -> pos(row %d)", rules[R_TRUNC_SIZE].row);
			fds[slot].seeked = true;
			break;
		}
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
		if (!strcmp(name, "user.configfs.error") &&
		    rule(R_XATTR_ERROR)) {
			out(" not recorded (row %d)", rules[R_XATTR_ERROR].row);
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
		cmd("echo 7 > /proc/sys/vm/drop_caches");
		/* 4: and say nothing, or the kernel log overflows */
		result(put("/proc/sys/vm/drop_caches", "7") < 0 ? -1 : 0);
		break;
	case OP_CTL: {
		int k = op->b % ARRAY_SIZE(ctls);
		int target = op->a;

		if (k >= CTL_PATH_FIRST && (target == 14 || target == 15 ||
					    target == 16 || target == 20))
			target = 2;	/* kernel-made parts: row 10 */
		/* Default groups below a user item: stock's row 5 */
		if (k >= CTL_PATH_FIRST && conc_mode &&
		    (target == D_N0_SUB || target == D_N0_DEEP))
			target = 2;
		snprintf(buf, sizeof(buf), ctls[k], dirs[target]);
		out("ctl %s", buf);
		cmd("echo '%s' > " T "/ctl", buf);
		if (!strcmp(buf, "unregister rt1") && !access(T "/rt1/k", F_OK)) {
			out(" not run (row %d)", fire(R_UNREG_BUSY));
			cmd("# unregister rt1 not run (row 4)");
			break;
		}
		/* stock's depend_unlocked of an item being removed: row 26 */
		if (conc_mode && cur == STOCK && k == CTL_PATH_FIRST + 2) {
			out(" not run (row 26)");
			break;
		}
		errno = 0;
		ret = put(T "/ctl", buf);
		if (ret < 0)
			errno = -ret;
		result(ret);
		if (!ret && (k == 1 || k == 3 || k == CTL_RT1 + 1))
			mark_gone(k == 1 ? D_RT0 : k == 3 ? D_D0 : D_RT1);
		if (!ret && k == CTL_PATH_FIRST + 1)
			depended[target]--;
		else if (!ret && k != CTL_PATH_FIRST + 1 && k >= CTL_PATH_FIRST)
			depended[target]++;
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
		if (ret >= 0)
			ret = strip_reshows(buf);
		result(ret);
		if (ret >= 0)
			out_bytes(buf, ret);
		events_clear();
		break;
	case OP_REMOUNT:
		out("umount");
		cmd("umount " CFS "; mount -t configfs none " CFS);
		ret = umount(CFS);
		result(ret);
		if (ret)
			break;
		out(" mount");
		ret = mount("none", CFS, "configfs", 0, NULL);
		result(ret);
		if (ret) {
			say("mount configfs: %s", ename(errno));
			exit(1);
		}
		break;
	case OP_POLL:
		op_poll(slot, op->c % 2);
		break;
	case OP_KINDS:
		break;
	}
	if (op->user) {
		user_ops[rule_mod]++;
		if (last_err == EACCES || last_err == EPERM)
			user_denied[rule_mod]++;
		become(false);
		cmd_as_user();
	}
}

static long total_ops[2];

int load_ko(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

/* umount, unload configfs, load the other one, mount; false on failure */
bool swap_to(int which)
{
	char path[256];
	struct utsname uts;
	int tries;

	if (cur == which)
		return true;
	for (tries = 0; umount(CFS); tries++) {
		if (tries == 50) {
			say("umount " CFS ": %s", ename(errno));
			return false;
		}
		usleep(20000);
	}
	for (tries = 0; syscall(SYS_delete_module, "configfs", O_NONBLOCK);
	     tries++) {
		if (tries == 50) {
			say("configfs does not unload: %s", ename(errno));
			return false;
		}
		usleep(20000);
	}
	uname(&uts);
	if (which == STOCK)
		snprintf(path, sizeof(path),
			 "/lib/modules/%s/kernel/fs/configfs/configfs.ko",
			 uts.release);
	else
		snprintf(path, sizeof(path), "/lib/modules/cng/configfs.ko");
	if (load_ko(path)) {
		say("load %s: %s", path, ename(errno));
		return false;
	}
	if (mount("none", CFS, "configfs", 0, NULL)) {
		say("mount configfs: %s", ename(errno));
		return false;
	}
	cur = which;
	return true;
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

/* Closes the files, drops the dependencies, removes what it can. */
void teardown_tree(void)
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
		while (!put(T "/ctl", c))
			;
		depended[i] = 0;
	}
	for (pass = 0; pass < 3; pass++)
		sweep(T);
	put(T "/ctl", "unregister rt0");
	put(T "/ctl", "unregister rt1");
	put(T "/ctl", "unregister_default d0");
	put("/proc/sys/vm/drop_caches", "7");
}

bool unload_test(void)
{
	int pass;

	for (pass = 0; pass < 50; pass++) {
		if (!syscall(SYS_delete_module, "cng_test", O_NONBLOCK))
			return true;
		usleep(20000);
	}
	say("cng_test does not unload on %s: %s", mod_names[cur],
	    ename(errno));
	return false;
}

/* Takes the tree down and unloads cng_test; false if it stays. */
static bool teardown(void)
{
	teardown_tree();
	return unload_test();
}

static unsigned long long fnv(unsigned long long h, const char *s, size_t n)
{
	while (n--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return (h ^ '\n') * 0x100000001b3ULL;
}

/* Lines and commands of a logged run, per module. */
static char *lines[2][MAX_OPS], *cmds[MAX_OPS];

/*
 * Runs ops[] where pick[] is set on module @which; the digest of the
 * lines, and with @keep every line. false if cng_test could not be loaded
 * or unloaded, or the module not swapped.
 */
static bool run_seq(int which, int nops, const bool *pick, bool keep,
		    unsigned long long *digest)
{
	unsigned long long h = 0xcbf29ce484222325ULL;
	int i;

	if (!swap_to(which))
		return false;
	rule_mod = which;
	memset(depended, 0, sizeof(depended));
	memset(reshown, 0, sizeof(reshown));
	memset(truncated, 0, sizeof(truncated));
	for (i = 0; i < FDS; i++)
		fds[i].fd = -1;
	if (load_ko(CNG_KO)) {
		say("cannot load cng_test on %s: %s", mod_names[which],
		    ename(errno));
		return false;
	}
	for (i = 0; i < nops; i++) {
		free(lines[which][i]);
		lines[which][i] = NULL;
		if (!pick[i])
			continue;
		run_op(&ops[i]);
		total_ops[which]++;
		h = fnv(h, line, line_len);
		lines[which][i] = strdup(line);
		if (keep) {
			free(cmds[i]);
			cmds[i] = strdup(shell);
		}
	}
	*digest = h;
	if (teardown())
		return true;
	/* What the sequence did, and what is left of the tree. */
	say("fz seed %llu left this on %s:", cur_seed, mod_names[which]);
	for (i = 0; i < nops; i++)
		if (lines[which][i])
			say("fz   %s", lines[which][i]);
	sh("find " T " -exec ls -ld {} +");
	sh("cat " T "/events " T "/live");
	return false;
}

static bool failed_run;

/* The subset differs on the two modules (the loaded one first). */
static bool differs(int nops, const bool *pick)
{
	unsigned long long d[2];
	int first = cur;

	if (!run_seq(first, nops, pick, false, &d[first]) ||
	    !run_seq(!first, nops, pick, false, &d[!first])) {
		failed_run = true;
		return false;
	}
	return d[0] != d[1];
}

static bool pick[MAX_OPS], cand[MAX_OPS];

/* cand = the ops of idx[] outside [from, to) (out) or inside (!out) */
static void make_cand(const int *idx, int len, int from, int to, bool out)
{
	int i;

	memset(cand, 0, sizeof(cand));
	for (i = 0; i < len; i++)
		if ((i >= from && i < to) != out)
			cand[idx[i]] = true;
}

/*
 * Delta debugging (ddmin) of the seed's first @nops operations down to a
 * 1-minimal list that still differs; the list in idx[], its length
 * returned. Every candidate runs on both modules.
 */
static int shrink(int nops, int *idx)
{
	int len = nops, n = 2, i, j, k, rounds = 0;

	for (i = 0; i < nops; i++)
		idx[i] = i;
	while (len >= 2 && !failed_run) {
		bool found = false;

		if (n > len)
			n = len;
		rounds++;
		for (i = 0; i < n && !found; i++) {
			make_cand(idx, len, i * len / n, (i + 1) * len / n,
				  false);
			if (differs(nops, cand)) {
				found = true;
				n = 2;
			}
		}
		for (i = 0; n > 2 && i < n && !found; i++) {
			make_cand(idx, len, i * len / n, (i + 1) * len / n,
				  true);
			if (differs(nops, cand)) {
				found = true;
				n = n > 3 ? n - 1 : 2;
			}
		}
		if (found) {
			for (j = k = 0; j < nops; j++)
				if (cand[j])
					idx[k++] = j;
			len = k;
			continue;
		}
		if (n >= len)
			break;
		n = n * 2;
	}
	say("fz shrunk to %d operations in %d rounds", len, rounds);
	return len;
}

/* Logs @seed on both modules, shrinks it and prints the reproducer. */
static bool report_seed(unsigned long long seed, int nops)
{
	static int idx[MAX_OPS];
	unsigned long long d;
	int i, k, len;

	for (i = 0; i < nops; i++)
		pick[i] = true;
	if (!run_seq(STOCK, nops, pick, true, &d) ||
	    !run_seq(OURS, nops, pick, true, &d))
		return false;
	for (k = 0; k < nops; k++)
		if (strcmp(lines[STOCK][k], lines[OURS][k]))
			break;
	if (k == nops) {
		say("fz seed %llu: the logged runs agree", seed);
		return true;
	}
	say("fz seed %llu first differs at operation %d:", seed, k);
	say("fz   stock: %s", lines[STOCK][k]);
	say("fz   ours:  %s", lines[OURS][k]);
	len = shrink(k + 1, idx);
	if (failed_run)
		return false;
	memset(pick, 0, sizeof(pick));
	for (i = 0; i < len; i++)
		pick[idx[i]] = true;
	if (!run_seq(STOCK, k + 1, pick, true, &d) ||
	    !run_seq(OURS, k + 1, pick, true, &d))
		return false;
	say("fz seed %llu reproducer (insmod cng_test first):", seed);
	for (i = 0; i < len; i++)
		say("fz   %s", cmds[idx[i]]);
	say("fz outcomes (stock | ours):");
	for (i = 0; i < len; i++) {
		const char *s = lines[STOCK][idx[i]], *o = lines[OURS][idx[i]];

		if (strcmp(s, o))
			say("fz   %s | %s", s, o);
		else
			say("fz   %s", s);
	}
	return true;
}

static unsigned long long job_first, job_count = 200;
static int job_nops = 60, job_shrink = 3, job_procs;
static unsigned long long *digests[2];
static int mismatches;

/*
 * The test this boot began with: after a guest died, the runner boots
 * again at the next test (init's cng.start), whose job is that line.
 */
static int boot_start(void)
{
	char cmdline[4096], *p;
	ssize_t n = slurp("/proc/cmdline", cmdline, sizeof(cmdline));

	p = n > 0 ? strstr(cmdline, "cng.start=") : NULL;
	return p ? atoi(p + 10) : 1;
}

/*
 * The job: "seeds FIRST COUNT NOPS [SHRINK]" from JOB_FILE, or the
 * short form's defaults.
 */
static void read_job(void)
{
	FILE *f = fopen(JOB_FILE, "r");
	char jl[256], off[64] = "";
	char *tok, *save;
	int i, line_no = 0, want = 0;
	FILE *next = fopen(JOB_NEXT, "r");

	if (next) {
		if (fscanf(next, "%d", &want) != 1)
			want = 0;
		fclose(next);
	} else {
		want = boot_start() - 1;
	}
	next = fopen(JOB_NEXT, "w");
	if (next) {
		fprintf(next, "%d\n", want + 1);
		fclose(next);
	}
	if (!f)
		return;
	while (fgets(jl, sizeof(jl), f))
		if (line_no++ == want &&
		    sscanf(jl, "seeds %llu %llu %d %d %63s", &job_first,
			   &job_count, &job_nops, &job_shrink, off) < 2)
			sscanf(jl, "conc %llu %llu %d %d", &job_first,
			       &job_count, &job_nops, &job_procs);
	fclose(f);
	/* "off=ROW,ROW": rules that may be turned off (not rows 1 and 5) */
	for (tok = strtok_r(off + 4 * !strncmp(off, "off=", 4), ",", &save);
	     tok; tok = strtok_r(NULL, ",", &save))
		for (i = 0; i < R_COUNT; i++)
			if (rules[i].row == atoi(tok) && i != R_INO_TIMES &&
			    i != R_RMDIR_DEPENDED)
				rule_off[i] = true;
	if (job_nops > MAX_OPS)
		job_nops = MAX_OPS;
	if (job_procs > 16)
		job_procs = 16;
}

static bool every_seed_ran_on_both_modules(void)
{
	unsigned long long s;
	int which, i;

	say("fz seeds %llu..%llu, %d operations each", job_first,
	    job_first + job_count - 1, job_nops);
	for (i = 0; i < job_nops; i++)
		pick[i] = true;
	for (which = 0; which < 2; which++) {
		digests[which] = calloc(job_count, sizeof(unsigned long long));
		if (!digests[which])
			return false;
	}
	/* Stock first, then ours: the boot's module is loaded at the end. */
	for (which = STOCK; which <= OURS; which++) {
		for (s = 0; s < job_count; s++) {
			generate(job_first + s, job_nops);
			if (!run_seq(which, job_nops, pick, false,
				     &digests[which][s]))
				return false;
		}
	}
	for (which = 0; which < 2; which++) {
		say("fz ops %s %ld", mod_names[which], total_ops[which]);
		say("fz user ops %s %ld denied %ld", mod_names[which],
		    user_ops[which], user_denied[which]);
		for (i = 0; i < R_COUNT; i++)
			say("fz rule %s %d %s %ld", mod_names[which],
			    rules[i].row, rules[i].name, rules[i].fired[which]);
	}
	return true;
}

static bool every_seed_same_on_both_modules(void)
{
	unsigned long long s;
	int shrunk = 0;

	if (!digests[OURS])
		return false;
	for (s = 0; s < job_count; s++) {
		if (digests[STOCK][s] == digests[OURS][s])
			continue;
		mismatches++;
		say("fz seed %llu differs", job_first + s);
		if (shrunk++ >= job_shrink)
			continue;
		generate(job_first + s, job_nops);
		if (!report_seed(job_first + s, job_nops))
			return false;
	}
	say("fz seeds that differ: %d of %llu", mismatches, job_count);
	return !mismatches;
}

static bool every_concurrent_seed_ran_on_both_modules(void)
{
	return conc_run(job_first, job_count, job_nops, job_procs);
}

static bool concurrent_properties_hold_on_ours(void)
{
	return !conc_broken[OURS];
}

static bool concurrent_properties_hold_on_stock(void)
{
	return !conc_broken[STOCK];
}

int main(void)
{
	static const struct ktap_case cases[] = {
		{ "every_seed_ran_on_both_modules",
		  every_seed_ran_on_both_modules },
		{ "every_seed_same_on_both_modules",
		  every_seed_same_on_both_modules },
	};
	static const struct ktap_case conc_cases[] = {
		{ "every_concurrent_seed_ran_on_both_modules",
		  every_concurrent_seed_ran_on_both_modules },
		{ "concurrent_properties_hold_on_ours",
		  concurrent_properties_hold_on_ours },
		{ "concurrent_properties_hold_on_stock",
		  concurrent_properties_hold_on_stock },
	};
	const char *which = getenv("CNG_CONFIGFS");
	int boot = which && !strcmp(which, "stock") ? STOCK : OURS;

	if (!access(T, F_OK)) {
		say("cng_test is already loaded");
		return 1;
	}
	/* USER_ID's operations: no group of root's */
	if (setgroups(0, NULL)) {
		say("setgroups: %s", ename(errno));
		return 1;
	}
	cur = boot;
	read_job();
	if (job_procs)
		run_cases(conc_cases, ARRAY_SIZE(conc_cases));
	else
		run_cases(cases, ARRAY_SIZE(cases));
	/* Leave the boot's module loaded, as init expects. */
	if (!swap_to(boot))
		return 1;
	return ktap_exit_status();
}
