// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: an unprivileged user against cng_test's tree, and names and
 * values at the limits.
 *
 * Every operation is tried on every kind of file cng_test makes, by a user
 * in five situations (phases): uid 1000 on the tree as made ("none"); the
 * target chowned to that user ("owner"); the target chowned to root:1000
 * with its owner bits moved to the group ("group"); the target made
 * world-writable, tried by uid 65534 ("other"); the target's parent
 * directory chowned to uid 1000 ("parent"). Each call runs in a child
 * that has dropped root; root repairs the tree after it.
 *
 * Each outcome is one line. Two checks follow from them:
 * - a model of the modes, computed from lstat() before the call: a call
 *   that succeeds was allowed by them, and one they refuse fails with
 *   EACCES or EPERM;
 * - the lines equal tests/hostile/hostile.golden, stock's outcomes. A line
 *   there is "both LINE", or "stock LINE # row N" and "ours LINE # row N"
 *   where docs/differences.md row N says the modules differ.
 * Then limits (as root): 255- and 256-byte names, "." and "..", names of
 * binary bytes, text writes of 0 to 1 MiB bytes, binary attributes at and
 * past cb_max_size, symlink targets of PATH_MAX, outside the mount,
 * through tmpfs, through configfs links and in loops; and users holding
 * files open and cwds inside items that root removes.
 *
 *   cng_test/
 *   |-- items/a/       an item: data, name, wo, blob, blob_small, blob_wo
 *   |-- fixed/inner/   a nested default group
 *   `-- n0/            a node; n0/sub default group, n0/sub/x an item,
 *       `-- l          a link to items/a
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/xattr.h>
#include <time.h>

#include "guest.h"

#define GOLDEN		"/tests/hostile.golden"
#define USER		1000
#define OTHER		65534
#define MAX_LINES	4096
#define LINE_LEN	256
#define PLEN		256	/* the paths of the tree */

static char *lines[MAX_LINES];
static int nlines;
static int violations;

/* Records one outcome line and prints it as a diagnostic. */
static void out(const char *fmt, ...)
{
	char buf[LINE_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("# o %s\n", buf);
	if (nlines < MAX_LINES)
		lines[nlines++] = strdup(buf);
}

/* "OK", or the errno's name */
static const char *res(long ret, int err)
{
	return ret < 0 ? ename(err) : "OK";
}

/* The outcome of @call, errno read after it */
#define TRY(call) ({ long try_ret = (call); res(try_ret, errno); })

enum kind { K_DIR, K_FILE, K_LINK };

struct target {
	const char *name;
	const char *path;	/* relative to cng_test/ */
	enum kind kind;
	const char *child;	/* a directory in it, for rmdir_child */
	const char *attr;	/* an attribute in it, for unlink_attr */
};

static const struct target targets[] = {
	{ "mount_root", "..", K_DIR, "cng_test", NULL },
	{ "subsys_root", ".", K_DIR, "items", "live" },
	{ "default_group", "items", K_DIR, "a", NULL },
	{ "nested_default", "fixed/inner", K_DIR, "deep", NULL },
	{ "item", "items/a", K_DIR, NULL, "name" },
	{ "node", "n0", K_DIR, "sub", "name" },
	{ "node_default", "n0/sub", K_DIR, "x", NULL },
	{ "attr_rw", "items/a/data", K_FILE, NULL, NULL },
	{ "attr_ro", "items/a/name", K_FILE, NULL, NULL },
	{ "attr_wo", "items/a/wo", K_FILE, NULL, NULL },
	{ "bin_rw", "items/a/blob", K_FILE, NULL, NULL },
	{ "bin_ro", "items/a/blob_small", K_FILE, NULL, NULL },
	{ "bin_wo", "items/a/blob_wo", K_FILE, NULL, NULL },
	{ "root_attr_rw", "events", K_FILE, NULL, NULL },
	{ "root_attr_wo", "ctl", K_FILE, NULL, NULL },
	{ "root_attr_ro", "live", K_FILE, NULL, NULL },
	{ "link", "n0/l", K_LINK, NULL, NULL },
};

/* What the modes must grant for an operation to be allowed. */
enum need { N_NONE, N_R, N_W, N_X, N_WX, N_OWNER, N_OWNER_OR_W, N_PARENT_WX };

enum op {
	OP_STAT, OP_OPEN_R, OP_OPEN_W, OP_READ, OP_WRITE, OP_TRUNC, OP_CHMOD,
	OP_CHOWN, OP_UTIMES_NOW, OP_UTIMES_SET, OP_SETXATTR, OP_GETXATTR,
	OP_LISTXATTR, OP_UNLINK, OP_RENAME, OP_LINK, OP_READDIR, OP_CHDIR,
	OP_MKDIR, OP_RMDIR_CHILD, OP_CREAT, OP_MKNOD, OP_SYMLINK,
	OP_UNLINK_ATTR, OP_READLINK, OP_COUNT,
};

static const struct {
	const char *name;
	unsigned int kinds;	/* BIT(kind) it applies to */
	enum need need;
} ops[OP_COUNT] = {
	[OP_STAT]	= { "stat", 7, N_NONE },
	[OP_OPEN_R]	= { "open_r", 3, N_R },
	[OP_OPEN_W]	= { "open_w", 2, N_W },
	[OP_READ]	= { "read", 2, N_R },
	[OP_WRITE]	= { "write", 2, N_W },
	[OP_TRUNC]	= { "truncate", 2, N_W },
	[OP_CHMOD]	= { "chmod", 3, N_OWNER },
	[OP_CHOWN]	= { "chown", 7, N_OWNER },
	[OP_UTIMES_NOW]	= { "utimes_now", 3, N_OWNER_OR_W },
	[OP_UTIMES_SET]	= { "utimes_set", 7, N_OWNER },
	[OP_SETXATTR]	= { "setxattr", 7, N_W },
	[OP_GETXATTR]	= { "getxattr", 7, N_R },
	[OP_LISTXATTR]	= { "listxattr", 7, N_NONE },
	[OP_UNLINK]	= { "unlink", 6, N_PARENT_WX },
	[OP_RENAME]	= { "rename", 7, N_PARENT_WX },
	[OP_LINK]	= { "link", 2, N_PARENT_WX },
	[OP_READDIR]	= { "readdir", 1, N_R },
	[OP_CHDIR]	= { "chdir", 1, N_X },
	[OP_MKDIR]	= { "mkdir", 1, N_WX },
	[OP_RMDIR_CHILD] = { "rmdir_child", 1, N_WX },
	[OP_CREAT]	= { "creat", 1, N_WX },
	[OP_MKNOD]	= { "mknod", 1, N_WX },
	[OP_SYMLINK]	= { "symlink", 1, N_WX },
	[OP_UNLINK_ATTR] = { "unlink_attr", 1, N_WX },
	[OP_READLINK]	= { "readlink", 4, N_NONE },
};

/*
 * cng_test/@rel/@sub; ".." is the mount's root, "." cng_test/ itself, and
 * an absolute @rel is itself (the walk's files).
 */
static void path_of(char *buf, size_t size, const char *rel, const char *sub)
{
	const char *base = T "/";

	if (!strcmp(rel, "..") || !strcmp(rel, ".")) {
		base = rel[1] ? CFS : T;
		rel = "";
	} else if (rel[0] == '/') {
		base = "";
	}
	snprintf(buf, size, "%s%s%s%s", base, rel, sub ? "/" : "",
		 sub ? sub : "");
}

/* The parent directory of @path, in @buf. */
static void parent_of(char *buf, size_t size, const char *path)
{
	char *slash;

	snprintf(buf, size, "%s", path);
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
}

/* Runs one operation as the caller; writes its outcome to @buf. */
static void do_op(enum op op, const struct target *t, char *buf, size_t size)
{
	char p[PLEN], q[PLEN + 16], par[PLEN], data[4096];
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	struct stat st;
	long ret = 0;
	int fd, err = 0;
	ssize_t n;
	DIR *d;

	path_of(p, sizeof(p), t->path, NULL);
	parent_of(par, sizeof(par), p);
	switch (op) {
	case OP_STAT:
		ret = lstat(p, &st);
		break;
	case OP_OPEN_R:
	case OP_OPEN_W:
		ret = open(p, op == OP_OPEN_R ? O_RDONLY : O_WRONLY);
		if (ret >= 0)
			close(ret);
		break;
	case OP_READ:
		fd = open(p, O_RDONLY);
		ret = fd < 0 ? -1 : read(fd, data, sizeof(data));
		err = errno;
		if (fd >= 0)
			close(fd);
		errno = err;
		break;
	case OP_WRITE:
		fd = open(p, O_WRONLY);
		if (fd < 0) {
			ret = fd;
			break;
		}
		n = write(fd, "1\n", 2);
		err = errno;
		ret = close(fd);
		snprintf(buf, size, "%s close %s", res(n, err),
			 res(ret, errno));
		return;
	case OP_TRUNC:
		ret = truncate(p, 0);
		break;
	case OP_CHMOD:
		ret = lstat(p, &st);
		if (!ret)
			ret = chmod(p, st.st_mode & 07777);
		break;
	case OP_CHOWN:
		ret = lchown(p, getuid(), getgid());
		break;
	case OP_UTIMES_NOW:
		ret = utimensat(AT_FDCWD, p, NULL, 0);
		break;
	case OP_UTIMES_SET:
		ret = utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW);
		break;
	case OP_SETXATTR:
		ret = lsetxattr(p, "user.x", "v", 1, 0);
		break;
	case OP_GETXATTR:
		ret = lgetxattr(p, "user.x", data, sizeof(data));
		break;
	case OP_LISTXATTR:
		ret = llistxattr(p, data, sizeof(data));
		if (ret >= 0) {
			snprintf(buf, size, "OK %ld", ret);
			return;
		}
		break;
	case OP_UNLINK:
		ret = unlink(p);
		break;
	case OP_RENAME:
		snprintf(q, sizeof(q), "%s2", p);
		ret = rename(p, q);
		break;
	case OP_LINK:
		snprintf(q, sizeof(q), "%s/hl", par);
		ret = link(p, q);
		break;
	case OP_READDIR:
		d = opendir(p);
		if (!d) {
			ret = -1;
			break;
		}
		for (n = 0; readdir(d); n++)
			;
		closedir(d);
		snprintf(buf, size, "OK %zd", n);
		return;
	case OP_CHDIR:
		ret = chdir(p);
		break;
	case OP_MKDIR:
		path_of(q, sizeof(q), t->path, "u");
		ret = mkdir(q, 0755);
		break;
	case OP_RMDIR_CHILD:
		path_of(q, sizeof(q), t->path, t->child);
		ret = rmdir(q);
		break;
	case OP_CREAT:
		path_of(q, sizeof(q), t->path, "f");
		ret = open(q, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (ret >= 0)
			close(ret);
		break;
	case OP_MKNOD:
		path_of(q, sizeof(q), t->path, "fifo");
		ret = mkfifo(q, 0644);
		break;
	case OP_SYMLINK:
		path_of(q, sizeof(q), t->path, "s");
		ret = symlink(T "/items/a", q);
		break;
	case OP_UNLINK_ATTR:
		path_of(q, sizeof(q), t->path, t->attr);
		ret = unlink(q);
		break;
	case OP_READLINK:
		n = readlink(p, data, sizeof(data) - 1);
		if (n >= 0) {
			snprintf(buf, size, "OK %.*s", (int)n, data);
			return;
		}
		ret = -1;
		break;
	case OP_COUNT:
		break;
	}
	snprintf(buf, size, "%s", res(ret, errno));
}

/* Runs @op as @uid:@gid with no other group, in a child; its outcome. */
static void as_user(uid_t uid, gid_t gid, enum op op, const struct target *t,
		    char *buf, size_t size)
{
	int pfd[2];
	ssize_t n;
	pid_t pid;

	if (pipe(pfd)) {
		snprintf(buf, size, "pipe failed");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		char r[LINE_LEN] = "setup failed";

		close(pfd[0]);
		if (!setgroups(0, NULL) && !setresgid(gid, gid, gid) &&
		    !setresuid(uid, uid, uid))
			do_op(op, t, r, sizeof(r));
		if (write(pfd[1], r, strlen(r)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	n = pid < 0 ? -1 : read(pfd[0], buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* May @uid:@gid do @want (4, 2, 1 bits) to a file of @st? */
static bool grants(const struct stat *st, uid_t uid, gid_t gid, int want)
{
	int bits;

	if (uid == st->st_uid)
		bits = (st->st_mode >> 6) & 7;
	else if (gid == st->st_gid)
		bits = (st->st_mode >> 3) & 7;
	else
		bits = st->st_mode & 7;
	return (bits & want) == want;
}

static bool allowed(enum need need, const struct stat *st,
		    const struct stat *pst, uid_t uid, gid_t gid)
{
	switch (need) {
	case N_NONE:
		return true;
	case N_R:
		return grants(st, uid, gid, 4);
	case N_W:
		return grants(st, uid, gid, 2);
	case N_X:
		return grants(st, uid, gid, 1);
	case N_WX:
		return grants(st, uid, gid, 3);
	case N_OWNER:
		return uid == st->st_uid;
	case N_OWNER_OR_W:
		return uid == st->st_uid || grants(st, uid, gid, 2);
	case N_PARENT_WX:
		return grants(pst, uid, gid, 3) && !(pst->st_mode & S_ISVTX);
	}
	return false;
}

/* Silently, as root: a call whose failure is part of the repair. */
#define quiet(call) ((void)(call))

/* Undoes what an operation on @t can make: t/NAME, PARENT/hl, t2. */
static void undo_op(const struct target *t)
{
	static const char *const made[] = { "u", "s", "f", "fifo", "hl" };
	char p[PLEN], q[PLEN + 16];
	size_t i;

	path_of(p, sizeof(p), t->path, NULL);
	snprintf(q, sizeof(q), "%s2", p);
	quiet(rename(q, p));
	for (i = 0; i < ARRAY_SIZE(made); i++) {
		path_of(q, sizeof(q), t->path, made[i]);
		quiet(rmdir(q));
		quiet(unlink(q));
	}
	parent_of(q, sizeof(q), p);
	strcat(q, "/hl");
	quiet(unlink(q));
}

/* Brings the tree back to its first state; true if it is there. */
static bool repair(void)
{
	struct stat st;

	quiet(mkdir(T "/items/a", 0755));
	quiet(mkdir(T "/n0", 0755));
	quiet(mkdir(T "/n0/sub/x", 0755));
	if (stat(T "/n0/l", &st)) {
		quiet(unlink(T "/n0/l"));
		quiet(symlink(T "/items/a", T "/n0/l"));
	}
	return !access(T "/n0/sub/x", F_OK) && !access(T "/n0/l", F_OK);
}

enum phase { PH_NONE, PH_OWNER, PH_GROUP, PH_OTHER, PH_PARENT, PH_COUNT };

static const char *const phase_names[PH_COUNT] = {
	"none", "owner", "group", "other", "parent",
};

/* Sets the tree up for @ph on @t; the uid and gid to try as. */
static void phase_setup(enum phase ph, const struct target *t, uid_t *uid,
			gid_t *gid)
{
	char p[PLEN], par[PLEN];
	struct stat st;

	path_of(p, sizeof(p), t->path, NULL);
	parent_of(par, sizeof(par), p);
	*uid = ph == PH_OTHER ? OTHER : USER;
	*gid = ph == PH_OTHER ? OTHER : USER;
	if (lstat(p, &st))
		return;
	switch (ph) {
	case PH_OWNER:
		quiet(lchown(p, USER, USER));
		break;
	case PH_GROUP:
		quiet(lchown(p, 0, USER));
		if (t->kind != K_LINK)
			quiet(chmod(p, (st.st_mode & 0700) >> 3));
		break;
	case PH_OTHER:
		if (t->kind != K_LINK)
			quiet(chmod(p, t->kind == K_DIR ? 0777 : 0666));
		break;
	case PH_PARENT:
		quiet(chown(par, USER, USER));
		break;
	default:
		break;
	}
}

/* Gives @t (and its parent) back their mode and owners. */
static void phase_undo(const struct target *t, const struct stat *st,
		       const struct stat *pst)
{
	char p[PLEN], par[PLEN];

	path_of(p, sizeof(p), t->path, NULL);
	parent_of(par, sizeof(par), p);
	quiet(lchown(p, st->st_uid, st->st_gid));
	if (t->kind != K_LINK)
		quiet(chmod(p, st->st_mode & 07777));
	quiet(chown(par, pst->st_uid, pst->st_gid));
	quiet(chmod(par, pst->st_mode & 07777));
}

/*
 * Is @r, the outcome of an operation the modes @may allow or not, one they
 * permit? Says why not and counts a violation.
 */
static bool outcome_fits_modes(const char *r, bool may)
{
	if (!strncmp(r, "OK", 2) && !may) {
		say("succeeded, but the modes refuse it");
		violations++;
		return false;
	}
	if (!may && strcmp(r, "EACCES") && strcmp(r, "EPERM") &&
	    strncmp(r, "EACCES close", 12)) {
		say("modes refuse it: EACCES or EPERM expected");
		violations++;
		return false;
	}
	return true;
}

/* Every operation on every target in every phase. */
static bool t_hostile_users(void)
{
	char p[PLEN], par[PLEN], r[LINE_LEN];
	struct stat st0, pst0, st, pst;
	size_t i;
	int ph, op;

	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		const struct target *t = &targets[i];

		path_of(p, sizeof(p), t->path, NULL);
		parent_of(par, sizeof(par), p);
		if (lstat(p, &st0) || stat(par, &pst0)) {
			say("%s: %s missing", t->name, p);
			return false;
		}
		for (ph = 0; ph < PH_COUNT; ph++) {
			for (op = 0; op < OP_COUNT; op++) {
				uid_t uid;
				gid_t gid;
				bool may;

				if (!(ops[op].kinds & (1u << t->kind)))
					continue;
				if ((op == OP_RMDIR_CHILD && !t->child) ||
				    (op == OP_UNLINK_ATTR && !t->attr))
					continue;
				/* Its parent is sysfs, not the client's. */
				if (ph == PH_PARENT && !strcmp(t->path, ".."))
					continue;
				phase_setup(ph, t, &uid, &gid);
				lstat(p, &st);
				stat(par, &pst);
				may = allowed(ops[op].need, &st, &pst, uid,
					      gid);
				as_user(uid, gid, op, t, r, sizeof(r));
				out("%s %s %s %s", phase_names[ph], t->name,
				    ops[op].name, r);
				outcome_fits_modes(r, may);
				undo_op(t);
				phase_undo(t, &st0, &pst0);
				if (!repair()) {
					say("cannot repair the tree");
					return false;
				}
			}
		}
	}
	EXPECT(violations == 0);
	return true;
}

/* Is the entry @name listed in @dir? */
static bool listed(const char *dir, const char *name)
{
	struct dirent *e;
	bool found = false;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (!strcmp(e->d_name, name))
			found = true;
	closedir(d);
	return found;
}

/* mkdir, listing, name attribute and rmdir of items/@name */
static void try_name(const char *label, const char *name)
{
	char p[PATH_MAX + 300], q[PATH_MAX + 310], v[512], want[300];
	long ret;
	int err;

	snprintf(p, sizeof(p), "%s/items/%s", T, name);
	ret = mkdir(p, 0755);
	out("limits name_%s mkdir %s", label, res(ret, errno));
	if (ret)
		return;
	snprintf(q, sizeof(q), "%s/name", p);
	snprintf(want, sizeof(want), "%s\n", name);
	out("limits name_%s listed %s name_attr %s", label,
	    listed(T "/items", name) ? "yes" : "no",
	    slurp(q, v, sizeof(v)) >= 0 && !strcmp(v, want) ? "same" :
	    "differs");
	ret = rmdir(p);
	err = errno;
	out("limits name_%s rmdir %s", label, res(ret, err));
}

/* One write of @n bytes to @path through one open file; then its size. */
static void try_write(const char *label, const char *path, size_t n,
		      off_t off)
{
	static char big[(1 << 20) + 16], back[(1 << 20) + 16];
	ssize_t w, got;
	int fd, err, c, cerr;

	memset(big, 'x', n);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		out("limits %s open %s", label, ename(errno));
		return;
	}
	w = off ? pwrite(fd, big, n, off) : write(fd, big, n);
	err = errno;
	c = close(fd);
	cerr = errno;
	got = slurp(path, back, sizeof(back));
	if (w >= 0)
		out("limits %s write OK %zd close %s size %zd", label, w,
		    res(c, cerr), got);
	else
		out("limits %s write %s close %s size %zd", label,
		    ename(err), res(c, cerr), got);
}

static bool t_names_at_limits(void)
{
	char name[300];
	int i, n;

	memset(name, 'n', sizeof(name));
	name[255] = '\0';
	try_name("255", name);
	name[255] = 'n';
	name[256] = '\0';
	try_name("256", name);
	try_name("dot", ".");
	try_name("dotdot", "..");
	out("limits rmdir_dot %s", TRY(rmdir(T "/items/.")));
	out("limits rmdir_dotdot %s", TRY(rmdir(T "/items/..")));
	out("limits symlink_dot %s",
	    TRY(symlink(T "/items/a", T "/n0/.")));
	for (i = 1, n = 0; i < 128; i++)
		if (i != '/')
			name[n++] = (char)i;
	name[n] = '\0';
	try_name("bytes_1_127", name);
	for (i = 128, n = 0; i < 256; i++)
		name[n++] = (char)i;
	name[n] = '\0';
	try_name("bytes_128_255", name);
	try_name("newline", "\n");
	try_name("space_dash", " -");
	memset(name, 'l', sizeof(name));
	name[255] = '\0';
	{
		char p[PATH_MAX + 400];

		snprintf(p, sizeof(p), "%s/n0/%s", T, name);
		out("limits link_name_255 %s", TRY(symlink(T "/items/a", p)));
		quiet(unlink(p));
		name[255] = 'l';
		name[256] = '\0';
		snprintf(p, sizeof(p), "%s/n0/%s", T, name);
		out("limits link_name_256 %s", TRY(symlink(T "/items/a", p)));
		quiet(unlink(p));
	}
	return true;
}

static bool t_values_at_limits(void)
{
	static const size_t text[] = { 0, 1, 4095, 4096, 4097, 65536, 1 << 20 };
	static const size_t blob[] = { 0, 9999, 10000, 10001, 1 << 20 };
	char label[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(text); i++) {
		snprintf(label, sizeof(label), "data_%zu", text[i]);
		try_write(label, T "/items/a/data", text[i], 0);
	}
	try_write("data_10_at_4090", T "/items/a/data", 10, 4090);
	try_write("data_1_at_4096", T "/items/a/data", 1, 4096);
	try_write("wo_4097", T "/items/a/wo", 4097, 0);
	for (i = 0; i < ARRAY_SIZE(blob); i++) {
		snprintf(label, sizeof(label), "blob_%zu", blob[i]);
		try_write(label, T "/items/a/blob", blob[i], 0);
	}
	try_write("blob_1_at_9999", T "/items/a/blob", 1, 9999);
	try_write("blob_2_at_9999", T "/items/a/blob", 2, 9999);
	try_write("blob_wo_64", T "/items/a/blob_wo", 64, 0);
	try_write("blob_wo_65", T "/items/a/blob_wo", 65, 0);
	/* The blob holds 64 bytes now; blob_small shows it, at most 16. */
	{
		static char back[20000];

		out("limits blob_small_over_max read %zd",
		    slurp(T "/items/a/blob_small", back, sizeof(back)));
		try_write("blob_100", T "/items/a/blob", 100, 0);
		out("limits blob_small_over_max read %zd",
		    slurp(T "/items/a/blob_small", back, sizeof(back)));
	}
	return true;
}

/* symlink(@target, n0/lk) from cwd @cwd; its outcome and link text. */
static void try_link(const char *label, const char *target, const char *cwd)
{
	char text[PATH_MAX];
	ssize_t n;
	long ret;
	int err;

	if (chdir(cwd))
		say("chdir %s: %s", cwd, ename(errno));
	ret = symlink(target, T "/n0/lk");
	err = errno;
	quiet(chdir("/tests"));
	if (ret) {
		out("limits link_%s %s", label, ename(err));
		return;
	}
	n = readlink(T "/n0/lk", text, sizeof(text) - 1);
	out("limits link_%s OK text %.*s", label, n > 0 ? (int)n : 0, text);
	if (unlink(T "/n0/lk"))
		out("limits link_%s unlink %s", label, ename(errno));
}

static bool t_link_targets(void)
{
	static char target[PATH_MAX + 2];
	char path[PATH_MAX];
	struct stat st;
	size_t len, i;
	long ret;

	memset(target, 'a', PATH_MAX);
	target[0] = '/';
	target[PATH_MAX] = '\0';
	try_link("target_path_max", target, "/");
	/* 4095 bytes that lead to items/a: "/sys/kernel/config/./././..." */
	len = snprintf(target, sizeof(target), "%s", CFS);
	while (len < PATH_MAX - 1 - strlen("/cng_test/items/a"))
		len += snprintf(target + len, sizeof(target) - len, "/.");
	if ((PATH_MAX - 1 - strlen("/cng_test/items/a") - len) % 2)
		target[len++] = '/';
	len += snprintf(target + len, sizeof(target) - len,
			"/cng_test/items/a");
	say("target of %zu bytes", strlen(target));
	try_link("target_4095_bytes", target, "/");
	try_link("target_relative_from_link_dir", "../items/a", T "/n0");
	try_link("target_relative_from_root", "../items/a", "/");
	try_link("target_relative_from_items", "a", T "/items");
	try_link("target_outside_mount", "/tmp", "/");
	try_link("target_mount_root", CFS, "/");
	try_link("target_subsys_root", T, "/");
	try_link("target_default_group", T "/items", "/");
	try_link("target_node_default", T "/n0/sub", "/");
	try_link("target_self", T "/n0", "/");
	try_link("target_attr", T "/items/a/data", "/");
	try_link("target_missing", T "/items/nope", "/");
	try_link("target_through_configfs_link", T "/n0/l", "/");
	quiet(unlink("/tmp/hv"));
	quiet(symlink(T "/items/a", "/tmp/hv"));
	try_link("target_through_tmpfs_link", "/tmp/hv", "/");
	quiet(unlink("/tmp/hv"));
	quiet(unlink("/tmp/hl1"));
	quiet(unlink("/tmp/hl2"));
	quiet(symlink("/tmp/hl2", "/tmp/hl1"));
	quiet(symlink("/tmp/hl1", "/tmp/hl2"));
	try_link("target_tmpfs_loop", "/tmp/hl1", "/");
	quiet(unlink("/tmp/hl1"));
	quiet(unlink("/tmp/hl2"));
	quiet(mkdir("/tmp/hd", 0755));
	quiet(mount("none", "/tmp/hd", "configfs", 0, NULL));
	try_link("target_second_mount", "/tmp/hd/cng_test/items/a", "/");
	quiet(umount("/tmp/hd"));
	quiet(rmdir("/tmp/hd"));

	/* A loop of configfs links: items/a/lk -> n0, n0/lk -> items/a. */
	ret = symlink(T "/n0", T "/items/a/lk");
	out("limits loop_a_to_n0 %s", res(ret, errno));
	ret = symlink(T "/items/a", T "/n0/lk");
	out("limits loop_n0_to_a %s", res(ret, errno));
	for (i = 0, len = snprintf(path, sizeof(path), "%s/items/a", T);
	     i < 10; i++)
		len += snprintf(path + len, sizeof(path) - len, "/lk");
	out("limits loop_10_deep stat %s", TRY(stat(path, &st)));
	for (; i < 41; i++)
		len += snprintf(path + len, sizeof(path) - len, "/lk");
	out("limits loop_41_deep stat %s", TRY(stat(path, &st)));
	out("limits loop_rmdir_a %s", TRY(rmdir(T "/items/a")));
	quiet(unlink(T "/items/a/lk"));
	quiet(unlink(T "/n0/lk"));
	return repair();
}

/*
 * A user holds files open, a directory open, an inotify watch and a cwd in
 * items/h (chowned to the user); root removes items/h. The user's calls
 * afterwards, and how long root's rmdir took.
 */
static bool t_user_cannot_block_rmdir(void)
{
	int go[2], ready[2], fd, dfd, bfd, in, err;
	double t0, t1;
	char c, r[LINE_LEN];
	struct timespec ts;
	long ret;
	pid_t pid;

	EXPECT(!mkdir(T "/items/h", 0755));
	EXPECT(!chown(T "/items/h", USER, USER));
	EXPECT(!chown(T "/items/h/data", USER, USER));
	EXPECT(!chown(T "/items/h/blob", USER, USER));
	EXPECT(!mkdir(T "/n1", 0755));
	EXPECT(!chown(T "/n1", USER, USER));
	if (pipe(go) || pipe(ready))
		return false;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (setpgid(0, 0) || setgroups(0, NULL) || setresgid(USER, USER, USER) ||
		    setresuid(USER, USER, USER))
			_exit(2);
		/*
		 * A second process of the user sits in n1/sub/deep. Forked
		 * before the files are opened: it holds none of them, since
		 * nobody waits for its end (an open attribute pins cng_test,
		 * which is unloaded last).
		 */
		if (!fork()) {
			if (chdir(T "/n1/sub/deep"))
				_exit(3);
			pause();
			_exit(0);
		}
		fd = open(T "/items/h/data", O_RDWR);
		bfd = open(T "/items/h/blob", O_RDWR);
		dfd = open(T "/items/h", O_RDONLY | O_DIRECTORY);
		in = inotify_init1(0);
		if (fd < 0 || bfd < 0 || dfd < 0 || in < 0 ||
		    inotify_add_watch(in, T "/items/h", IN_ALL_EVENTS) < 0 ||
		    write(bfd, "pending", 7) != 7 || chdir(T "/items/h"))
			_exit(3);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(4);
		r[0] = '\0';
		ret = read(fd, r, 10);
		err = errno;
		dprintf(ready[1], "read_open_file %s\n", res(ret, err));
		ret = write(fd, "1", 1);
		err = errno;
		dprintf(ready[1], "write_open_file %s\n", res(ret, err));
		ret = close(bfd);
		err = errno;
		dprintf(ready[1], "close_bin_with_pending_write %s\n",
			res(ret, err));
		ret = getdents64(dfd, r, sizeof(r));
		err = errno;
		dprintf(ready[1], "readdir_open_dir %s\n",
			ret > 0 ? "OK entries" : res(ret, err));
		ret = mkdir("x", 0755);
		err = errno;
		dprintf(ready[1], "mkdir_in_cwd %s\n", res(ret, err));
		ret = open("data", O_RDONLY);
		err = errno;
		dprintf(ready[1], "open_in_cwd %s\n", res(ret, err));
		ret = symlink(T "/items/a", "s");
		err = errno;
		dprintf(ready[1], "symlink_in_cwd %s\n", res(ret, err));
		dprintf(ready[1], "end\n");
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	if (pid < 0 || read(ready[0], &c, 1) != 1) {
		say("the user's process did not start");
		return false;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec + ts.tv_nsec / 1e9;
	out("hold rmdir_item_with_user_inside %s",
	    TRY(rmdir(T "/items/h")));
	out("hold rmdir_node_with_user_cwd_below %s",
	    TRY(rmdir(T "/n1")));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = ts.tv_sec + ts.tv_nsec / 1e9;
	say("both rmdirs took %.3f s", t1 - t0);
	EXPECT(t1 - t0 < 5);
	out("hold name_free_again %s", TRY(mkdir(T "/items/h", 0755)));
	if (write(go[1], "g", 1) != 1)
		return false;
	{
		FILE *f = fdopen(ready[0], "r");
		char line[LINE_LEN];

		while (f && fgets(line, sizeof(line), f) &&
		       strcmp(line, "end\n")) {
			line[strcspn(line, "\n")] = '\0';
			out("hold user_%s", line);
		}
		if (f)
			fclose(f);
	}
	close(go[1]);
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
	out("hold rmdir_again %s", TRY(rmdir(T "/items/h")));
	return true;
}

/* The outcome lines equal stock's, as tests/hostile/hostile.golden has them. */
static bool t_outcomes_equal_stock(void)
{
	const char *mod = on_stock() ? "stock" : "ours";
	char line[LINE_LEN + 64], *body, *hash;
	int i = 0, bad = 0;
	FILE *f = fopen(GOLDEN, "r");

	if (!f) {
		say("no %s", GOLDEN);
		return false;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		body = strchr(line, ' ');
		if (!body || line[0] == '#')
			continue;
		*body++ = '\0';
		if (strcmp(line, "both") && strcmp(line, mod))
			continue;
		hash = strstr(body, " # ");
		if (hash)
			*hash = '\0';
		if (i >= nlines || strcmp(lines[i], body)) {
			if (bad++ < 20)
				say("line %d: got '%s', want '%s'", i + 1,
				    i < nlines ? lines[i] : "(end)", body);
		}
		i++;
	}
	fclose(f);
	if (i != nlines) {
		say("%d outcome lines, the golden file has %d for %s", nlines,
		    i, mod);
		bad++;
	}
	return bad == 0;
}

static bool t_no_late_callbacks(void)
{
	return read_int(T "/late") == 0;
}

static bool t_module_unloads(void)
{
	quiet(unlink(T "/n0/l"));
	quiet(rmdir(T "/n0/sub/x"));
	quiet(rmdir(T "/n0"));
	quiet(rmdir(T "/items/a"));
	return sh("rmmod cng_test") == 0;
}

static const struct ktap_case cases[] = {
	{ "modes_bound_every_user_operation", t_hostile_users },
	{ "names_at_the_limits", t_names_at_limits },
	{ "values_at_the_limits", t_values_at_limits },
	{ "link_targets_at_the_limits", t_link_targets },
	{ "user_holding_files_and_cwds_cannot_block_rmdir",
	  t_user_cannot_block_rmdir },
	{ "outcomes_equal_stock_but_documented_rows", t_outcomes_equal_stock },
	{ "no_callback_on_a_dropped_item", t_no_late_callbacks },
	{ "module_unloads", t_module_unloads },
};

/*
 * hostile walk DIR: the "none" phase on a real client's tree. Every file
 * under DIR (hostile_clients.sh builds the trees of nvmet, LIO, the USB
 * gadget and netconsole as root) gets every operation of its kind from
 * uid 1000: nothing the modes refuse may succeed, and each such refusal
 * is EACCES or EPERM. What they allow may fail as the client likes (a
 * read of a write-only attribute's show, say). Its own TAP: one result a
 * file with a violation, then the count.
 */
#define WALK_MAX	4096

static char *walk_paths[WALK_MAX];
static unsigned char walk_kinds[WALK_MAX];
static int walk_n;

static int walk_collect(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	if (walk_n >= WALK_MAX)
		return 1;
	walk_kinds[walk_n] = S_ISDIR(st->st_mode) ? K_DIR :
			     S_ISLNK(st->st_mode) ? K_LINK : K_FILE;
	walk_paths[walk_n++] = strdup(path);
	return 0;
}

/* The first entry of directory @dir of type @dtype, in @buf; NULL if none. */
static const char *walk_first(const char *dir, unsigned char dtype,
			      char *buf, size_t size)
{
	const char *found = NULL;
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (e->d_type == dtype && e->d_name[0] != '.') {
			snprintf(buf, size, "%s", e->d_name);
			found = buf;
			break;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* As uid 1000, every operation on every file walk_collect() found. */
static int walk_as_user(void)
{
	char par[PLEN], r[LINE_LEN], child[NAME_MAX + 1], attr[NAME_MAX + 1];
	struct stat st, pst;
	long calls = 0;
	int i, op, bad_files = 0;

	if (setgroups(0, NULL) || setresgid(USER, USER, USER) ||
	    setresuid(USER, USER, USER)) {
		printf("# cannot become uid %d\n", USER);
		return 1;
	}
	for (i = 0; i < walk_n; i++) {
		struct target t = {
			.name = walk_paths[i], .path = walk_paths[i],
			.kind = walk_kinds[i],
		};
		int before = violations;

		if (strlen(t.path) >= PLEN - 16)
			continue;	/* no room for the operations' names */
		if (t.kind == K_DIR) {
			t.child = walk_first(t.path, DT_DIR, child,
					     sizeof(child));
			t.attr = walk_first(t.path, DT_REG, attr, sizeof(attr));
		}
		parent_of(par, sizeof(par), t.path);
		if (lstat(t.path, &st) || stat(par, &pst))
			continue;	/* a file the client took back */
		for (op = 0; op < OP_COUNT; op++) {
			if (!(ops[op].kinds & (1u << t.kind)) ||
			    (op == OP_RMDIR_CHILD && !t.child) ||
			    (op == OP_UNLINK_ATTR && !t.attr))
				continue;
			do_op(op, &t, r, sizeof(r));
			calls++;
			if (!outcome_fits_modes(r, allowed(ops[op].need, &st,
							   &pst, USER, USER)))
				say("%s %s: %s", t.path, ops[op].name, r);
		}
		if (violations > before)
			bad_files++;
	}
	printf("# %d files, %ld calls as uid %d, %d wrong outcomes in %d files\n",
	       walk_n, calls, USER, violations, bad_files);
	return violations ? 1 : 0;
}

/* Lists the files under @root as root, then tries them as the user. */
static int walk_tree(const char *root)
{
	int status;
	pid_t pid;

	if (nftw(root, walk_collect, 16, FTW_PHYS) || walk_n < 2) {
		printf("# cannot list the files under %s\n", root);
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		status = walk_as_user();
		fflush(stdout);
		_exit(status);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "walk"))
		return walk_tree(argv[2]);
	if (cng_load() || !repair()) {
		ktap_skip_all("cannot set up cng_test");
		return 1;
	}
	run_cases(cases, ARRAY_SIZE(cases));
	return ktap_exit_status();
}
