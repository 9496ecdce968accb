// SPDX-License-Identifier: GPL-2.0
/*
 * Access to the tree under a root directory: the system-call backend and
 * the wrappers every other file calls.
 *
 * The root is the configfs mount, /sys/kernel/config unless --root or
 * $CONFIGFS_ROOT names another. It is opened once, and every later call
 * works relative to that descriptor: a root looked up by its path on each
 * call could be swapped for a symbolic link mid-run, and a file outside
 * it removed.
 *
 * Only --root may name an ordinary directory that stands in for configfs
 * (a test device: tests, a copy of a tree); $CONFIGFS_ROOT pointing at a
 * home directory once made "rm --all" delete a user's documents. There,
 * setting an attribute that is not there creates it, as configfs would
 * have made it with its directory; but no set-id bit is ever set, and
 * nothing removes a regular file: rmdir of a directory that holds one
 * fails (ENOTEMPTY) and unlink removes only symbolic links.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "configfs.h"

#define CONFIGFS_MAGIC		0x62656570
#define READ_COUNT_MAX		(64UL << 20)

struct sys_fs {
	char *root;		/* resolved, without a trailing slash */
	int root_fd;		/* O_PATH; every call starts from it */
	bool simulate;		/* the root is not configfs */
};

static int sys_full(struct sys_fs *sys, const char *path, char *buf)
{
	int len;

	len = snprintf(buf, PATH_MAX, "%s%s%s", sys->root, path[0] ? "/" : "",
		       path);
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Opens (O_PATH) the directory that holds @path's last component, walking
 * from the root one component at a time and following no link on the way.
 * On a stand-in root a link can point anywhere, and a path resolved whole
 * would follow one in its middle out of the tree: "set a/out/pwned" with
 * a/out -> /etc wrote into /etc. A link as the last component is a
 * configfs link, part of the tree; each caller decides whether to follow
 * it (none does). Returns the directory's descriptor or -errno, with
 * @leaf pointing into @path ("." for the root itself).
 */
static int sys_open_parent(struct sys_fs *sys, const char *path,
			   const char **leaf)
{
	char name[NAME_MAX + 1];
	const char *p = path;
	int dirfd;

	dirfd = fcntl(sys->root_fd, F_DUPFD_CLOEXEC, 0);
	if (dirfd < 0)
		return -errno;
	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		int next;

		if ((len == 2 && p[0] == '.' && p[1] == '.') ||
		    len > NAME_MAX) {
			close(dirfd);
			return len > NAME_MAX ? -ENAMETOOLONG : -EINVAL;
		}
		if (!slash)
			break;
		memcpy(name, p, len);
		name[len] = '\0';
		p = slash + 1;
		if (!len)
			continue;
		next = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		close(dirfd);
		if (next < 0)
			return errno == ENOTDIR || errno == ELOOP ?
			       -ENOTDIR : -errno;
		dirfd = next;
	}
	*leaf = p[0] ? p : ".";
	return dirfd;
}

/*
 * One call at @path: @fn runs with the directory that holds its last
 * component (sys_open_parent()) and that component, and its result, 0, a
 * descriptor or -errno, is returned. @arg is @fn's.
 */
static int sys_at(struct sys_fs *sys, const char *path,
		  int (*fn)(int dirfd, const char *leaf, void *arg), void *arg)
{
	const char *leaf;
	int dirfd;
	int ret;

	dirfd = sys_open_parent(sys, path, &leaf);
	if (dirfd < 0)
		return dirfd;
	ret = fn(dirfd, leaf, arg);
	close(dirfd);
	return ret;
}

static enum fs_kind sys_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return FS_DIR;
	if (S_ISREG(mode))
		return FS_FILE;
	if (S_ISLNK(mode))
		return FS_LINK;
	return FS_OTHER;
}

static int sys_lstat_at(int dirfd, const char *leaf, void *sb)
{
	return fstatat(dirfd, leaf, sb, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

static int sys_lstat(void *priv, const char *path, struct fs_stat *st)
{
	struct stat sb;
	int ret;

	ret = sys_at(priv, path, sys_lstat_at, &sb);
	if (ret)
		return ret;
	st->kind = sys_kind(sb.st_mode);
	st->mode = sb.st_mode & 07777;
	st->uid = sb.st_uid;
	st->gid = sb.st_gid;
	return 0;
}

/* @flags (O_*) for openat(); a new file is made 0644. */
static int sys_open_at(int dirfd, const char *leaf, void *flags)
{
	int fd = openat(dirfd, leaf, *(int *)flags | O_NOFOLLOW | O_CLOEXEC,
			0644);

	return fd < 0 ? -errno : fd;
}

/* Opens the directory @path itself, for reading; never through a link. */
static DIR *sys_open_dir(struct sys_fs *sys, const char *path, int *err)
{
	int flags = O_RDONLY | O_DIRECTORY;
	DIR *dir;
	int fd;

	fd = sys_at(sys, path, sys_open_at, &flags);
	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	dir = fdopendir(fd);
	if (!dir) {
		*err = -errno;
		close(fd);
		return NULL;
	}
	*err = 0;
	return dir;
}

static int sys_list(void *priv, const char *path, struct arena *arena,
		    char ***names, size_t *nr_names)
{
	struct dirent *de;
	size_t cap = 16;
	size_t nr = 0;
	char **v;
	DIR *dir;
	int ret;

	dir = sys_open_dir(priv, path, &ret);
	if (!dir)
		return ret;
	v = xmalloc(cap * sizeof(*v));
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de)
			break;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (nr == cap) {
			cap *= 2;
			v = xrealloc_array(v, cap, sizeof(*v));
		}
		v[nr++] = arena_strdup(arena, de->d_name);
	}
	ret = -errno;
	closedir(dir);
	if (ret) {
		free(v);
		return ret;
	}
	*names = arena_alloc(arena, (nr ? nr : 1) * sizeof(*v));
	memcpy(*names, v, nr * sizeof(*v));
	*nr_names = nr;
	free(v);
	return 0;
}

static ssize_t sys_read_some(int fd, char *buf, size_t size)
{
	ssize_t ret;

	do {
		ret = read(fd, buf, size);
	} while (ret < 0 && errno == EINTR);
	return ret;
}

/* Opens the file @path itself; never through a link. */
static int sys_open_file(struct sys_fs *sys, const char *path, int flags)
{
	return sys_at(sys, path, sys_open_at, &flags);
}

/* Reads up to @size bytes and counts the rest, up to READ_COUNT_MAX. */
static int sys_read(void *priv, const char *path, char *buf, size_t size,
		    size_t *len, size_t *total)
{
	char scratch[4096];
	ssize_t ret;
	int fd;

	fd = sys_open_file(priv, path, O_RDONLY);
	if (fd < 0)
		return fd;
	*len = 0;
	while (*len < size) {
		ret = sys_read_some(fd, buf + *len, size - *len);
		if (ret <= 0)
			goto out;
		*len += ret;
	}
	*total = *len;
	while (*total < READ_COUNT_MAX) {
		ret = sys_read_some(fd, scratch, sizeof(scratch));
		if (ret <= 0)
			break;
		*total += ret;
	}
out:
	if (*len < size)
		*total = *len;
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * One write(2) carries the whole value, since configfs hands each call to
 * the attribute's store() on its own. A store may return 0; retrying then
 * loops forever, so 0 is an error here.
 */
static int sys_write(void *priv, const char *path, const char *buf,
		     size_t len)
{
	struct sys_fs *sys = priv;
	ssize_t ret;
	int fd;

	fd = sys_open_file(sys, path, O_WRONLY | O_TRUNC |
			   (sys->simulate ? O_CREAT : 0));
	if (fd < 0)
		return fd;
	do {
		ret = write(fd, buf, len);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		ret = -errno;
	else if (ret == 0)
		ret = -CFS_EZEROWRITE;
	else if ((size_t)ret < len)
		ret = -CFS_ESHORTWRITE;
	else
		ret = 0;
	/* A binary attribute takes its value at close. */
	if (close(fd) && !ret && errno != EINTR)
		ret = -errno;
	return ret;
}

static int sys_mkdir_at(int dirfd, const char *leaf, void *mode)
{
	return mkdirat(dirfd, leaf, *(mode_t *)mode) ? -errno : 0;
}

static int sys_mkdir(void *priv, const char *path)
{
	mode_t mode = 0755;

	return sys_at(priv, path, sys_mkdir_at, &mode);
}

static int sys_remove_at(int dirfd, const char *leaf, void *flags)
{
	return unlinkat(dirfd, leaf, *(int *)flags) ? -errno : 0;
}

/* On a stand-in root too: a directory holding files stays (ENOTEMPTY). */
static int sys_rmdir(void *priv, const char *path)
{
	int flags = AT_REMOVEDIR;

	return sys_at(priv, path, sys_remove_at, &flags);
}

/*
 * @target (from the root) as seen from the directory of @path: "../"
 * up to their common ancestor, then down. configfs shows its links so.
 */
static int sys_relative(const char *path, const char *target, char *buf)
{
	size_t common = 0;
	size_t len = 0;
	size_t i;

	for (i = 0; path[i] && path[i] == target[i]; i++)
		if (path[i] == '/')
			common = i + 1;
	for (i = common; path[i]; i++) {
		if (path[i] != '/')
			continue;
		if (len + 3 >= PATH_MAX)
			return -ENAMETOOLONG;
		memcpy(buf + len, "../", 3);
		len += 3;
	}
	if (len + strlen(target + common) >= PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(buf + len, target + common);
	return 0;
}

/*
 * configfs resolves a link's target like any path given to a system call,
 * from the caller's working directory, so the target is given absolute.
 * On a stand-in root the link is made relative, as configfs shows it, so
 * that it still leads to its target when an item holding both moves (a
 * committed item, from pending/ to live/).
 */
static int sys_symlink_at(int dirfd, const char *leaf, void *target)
{
	return symlinkat(target, dirfd, leaf) ? -errno : 0;
}

static int sys_symlink(void *priv, const char *target, const char *path)
{
	struct sys_fs *sys = priv;
	char full_target[PATH_MAX];
	int ret;

	if (sys->simulate)
		ret = sys_relative(path, target, full_target);
	else
		ret = sys_full(sys, target, full_target);
	if (ret)
		return ret;
	return sys_at(sys, path, sys_symlink_at, full_target);
}

/*
 * configfs refuses to unlink an attribute; on a stand-in root only a
 * symbolic link is removed, never a regular file. Linux has no unlinkat()
 * that checks the type: only a file put there in between slips through.
 */
static int sys_unlink_link_at(int dirfd, const char *leaf, void *flags)
{
	struct stat sb;

	if (fstatat(dirfd, leaf, &sb, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!S_ISLNK(sb.st_mode))
		return S_ISDIR(sb.st_mode) ? -EISDIR : -EPERM;
	return sys_remove_at(dirfd, leaf, flags);
}

static int sys_unlink(void *priv, const char *path)
{
	struct sys_fs *sys = priv;
	int flags = 0;

	return sys_at(sys, path, sys->simulate ? sys_unlink_link_at :
			  sys_remove_at, &flags);
}

/*
 * Commits and un-commits a committable item: rename(2) between its
 * group's pending/ and live/, both walked to without following links.
 */
static int sys_rename(void *priv, const char *from, const char *to)
{
	const char *from_leaf;
	const char *to_leaf;
	int from_dir;
	int to_dir;
	int ret;

	from_dir = sys_open_parent(priv, from, &from_leaf);
	if (from_dir < 0)
		return from_dir;
	to_dir = sys_open_parent(priv, to, &to_leaf);
	if (to_dir < 0) {
		close(from_dir);
		return to_dir;
	}
	ret = renameat(from_dir, from_leaf, to_dir, to_leaf) ? -errno : 0;
	close(to_dir);
	close(from_dir);
	return ret;
}

/* The length read into @raw, of PATH_MAX bytes, or -errno. */
static int sys_readlink_at(int dirfd, const char *leaf, void *raw)
{
	ssize_t len = readlinkat(dirfd, leaf, raw, PATH_MAX - 1);

	return len < 0 ? -errno : len;
}

static int sys_readlink(void *priv, const char *path, struct arena *arena,
			char **target)
{
	struct sys_fs *sys = priv;
	char raw[PATH_MAX];
	size_t root_len = strlen(sys->root);
	int len;

	len = sys_at(sys, path, sys_readlink_at, raw);
	if (len < 0)
		return len;
	raw[len] = '\0';
	if (raw[0] == '/') {
		if (strncmp(raw, sys->root, root_len) || raw[root_len] != '/')
			return -CFS_EOUTSIDE;
		*target = fs_normalize_target(arena, "", raw + root_len + 1);
	} else {
		*target = fs_normalize_target(arena, path, raw);
	}
	return *target ? 0 : -CFS_EOUTSIDE;
}

/*
 * A link's own mode is always 0777, and chmod(2) would change its
 * target's, which on a stand-in root may lie outside the tree: refused.
 * Linux 6.1 has no fchmodat() that leaves links alone, hence the check
 * before; only a link made there in between could slip through. On a
 * stand-in root, which is a real file system, a set-id or sticky bit is
 * refused: a restore run as root would otherwise make setuid files.
 */
static int sys_chmod_at(int dirfd, const char *leaf, void *mode)
{
	struct stat sb;

	if (fstatat(dirfd, leaf, &sb, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (S_ISLNK(sb.st_mode))
		return -ELOOP;
	return fchmodat(dirfd, leaf, *(mode_t *)mode, 0) ? -errno : 0;
}

static int sys_chmod(void *priv, const char *path, mode_t mode)
{
	struct sys_fs *sys = priv;

	if (sys->simulate && (mode & 07000))
		return -EPERM;
	return sys_at(sys, path, sys_chmod_at, &mode);
}

struct sys_owner {
	uid_t uid;
	gid_t gid;
};

static int sys_chown_at(int dirfd, const char *leaf, void *arg)
{
	const struct sys_owner *owner = arg;

	return fchownat(dirfd, leaf, owner->uid, owner->gid,
			AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

static int sys_chown(void *priv, const char *path, uid_t uid, gid_t gid)
{
	struct sys_owner owner = { .uid = uid, .gid = gid };

	return sys_at(priv, path, sys_chown_at, &owner);
}

struct sys_record {
	char *buf;
	size_t size;
};

/*
 * There is no lgetxattrat(): the directory reached by the walk is named
 * through /proc/self/fd, whose link leads to it and nowhere else.
 * Returns the record's length or -errno.
 */
static int sys_error_at(int dirfd, const char *leaf, void *arg)
{
	const struct sys_record *rec = arg;
	char at[PATH_MAX];
	ssize_t ret;

	ret = snprintf(at, sizeof(at), "/proc/self/fd/%d/%s", dirfd, leaf);
	if (ret >= (ssize_t)sizeof(at))
		return -ENAMETOOLONG;
	/* A link's own record, if any: never its target's. */
	ret = lgetxattr(at, CFS_RECORD_XATTR, rec->buf, rec->size);
	return ret < 0 ? -errno : ret;
}

static int sys_error(void *priv, const char *path, char *buf, size_t size,
		     size_t *len)
{
	struct sys_record rec = { .buf = buf, .size = size };
	int ret;

	ret = sys_at(priv, path, sys_error_at, &rec);
	if (ret < 0)
		return ret;
	*len = ret;
	return 0;
}

static const struct fs_ops sys_fs_ops = {
	.lstat = sys_lstat,
	.list = sys_list,
	.read = sys_read,
	.write = sys_write,
	.mkdir = sys_mkdir,
	.rmdir = sys_rmdir,
	.symlink = sys_symlink,
	.unlink = sys_unlink,
	.rename = sys_rename,
	.readlink = sys_readlink,
	.chmod = sys_chmod,
	.chown = sys_chown,
	.error = sys_error,
};

/*
 * Opens @root, which must be a configfs mount unless @stand_in (--root):
 * then any directory is taken, as a stand-in. The root is resolved and
 * opened once, never through a link; its descriptor is used from then on.
 */
int fs_open_sys(struct fs *fs, const char *root, bool stand_in)
{
	struct sys_fs *sys;
	struct statfs sfs;
	char *real;
	long page;
	int fd;
	int err;

	real = realpath(root, NULL);
	if (!real) {
		err = errno;
		cfs_err(root, "%s", cfs_strerror(err));
		return -err;
	}
	fd = open(real, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstatfs(fd, &sfs)) {
		err = errno == ELOOP ? ENOTDIR : errno;
		cfs_err(root, "%s", cfs_strerror(err));
		goto err_close;
	}
	if (sfs.f_type != CONFIGFS_MAGIC && !stand_in) {
		err = ENODEV;
		cfs_err(root, "not a configfs mount (mount -t configfs none %s); a directory standing in for one needs -R",
			root);
		goto err_close;
	}
	/* The root directory "/" would make every path begin with "//". */
	if (!strcmp(real, "/"))
		real[0] = '\0';
	sys = xmalloc(sizeof(*sys));
	sys->root = real;
	sys->root_fd = fd;
	sys->simulate = sfs.f_type != CONFIGFS_MAGIC;
	page = sysconf(_SC_PAGESIZE);
	fs->ops = &sys_fs_ops;
	fs->priv = sys;
	fs->root = sys->root;
	fs->value_max = page > 0 ? page : 4096;
	fs->simulate = sys->simulate;
	fs->nr_changes = 0;
	fs->record = NULL;
	return 0;
err_close:
	if (fd >= 0)
		close(fd);
	free(real);
	return -err;
}

void fs_close(struct fs *fs)
{
	struct sys_fs *sys = fs->priv;

	fs_clear_record(fs);
	if (fs->ops != &sys_fs_ops)
		return;
	close(sys->root_fd);
	free(sys->root);
	free(sys);
	fs->priv = NULL;
}

/* The descriptor of the root, for inotify; -1 when not the system's. */
int fs_root_fd(struct fs *fs)
{
	struct sys_fs *sys = fs->priv;

	return fs->ops == &sys_fs_ops ? sys->root_fd : -1;
}

/* Opens the root named by --root, $CONFIGFS_ROOT or the default. */
int fs_open_cmd(struct fs *fs)
{
	const char *root = cfs_opts.root;

	if (root && root[0])
		return fs_open_sys(fs, root, true);
	root = getenv("CONFIGFS_ROOT");
	if (root && root[0])
		return fs_open_sys(fs, root, false);
	return fs_open_sys(fs, CFS_DEFAULT_ROOT, false);
}

int fs_lstat(struct fs *fs, const char *path, struct fs_stat *st)
{
	return fs->ops->lstat(fs->priv, path, st);
}

int fs_list(struct fs *fs, const char *path, struct arena *arena,
	    char ***names, size_t *nr_names)
{
	return fs->ops->list(fs->priv, path, arena, names, nr_names);
}

int fs_read(struct fs *fs, const char *path, char *buf, size_t size,
	    size_t *len, size_t *total)
{
	*len = 0;
	*total = 0;
	return fs->ops->read(fs->priv, path, buf, size, len, total);
}

/*
 * Reads the error record of @path into @text, NUL-terminated, to free.
 * Returns 0, -ENODATA when there is none, -EOPNOTSUPP when the file
 * system keeps none (stock configfs), or another -errno.
 */
int fs_error_record(struct fs *fs, const char *path, char **text,
		    size_t *len)
{
	size_t size = 4096;
	char *buf;
	int ret;

	if (!fs->ops->error)
		return -EOPNOTSUPP;
	buf = xmalloc(size + 1);
	ret = fs->ops->error(fs->priv, path, buf, size, len);
	if (ret == -ERANGE) {
		size = CFS_RECORD_MAX;
		buf = xrealloc_array(buf, size + 1, 1);
		ret = fs->ops->error(fs->priv, path, buf, size, len);
	}
	while (!ret && *len && !buf[*len - 1])
		(*len)--;
	if (!ret && !*len)
		ret = -ENODATA;
	if (ret) {
		free(buf);
		return ret;
	}
	buf[*len] = '\0';
	*text = buf;
	return 0;
}

/*
 * The record of the last failed write, mkdir or symlink, when there is one
 * that reports that very failure; NULL otherwise.
 */
const char *fs_record(struct fs *fs)
{
	return fs->record;
}

void fs_clear_record(struct fs *fs)
{
	free(fs->record);
	fs->record = NULL;
}

/*
 * After @op ("write", "mkdir", "symlink") of @path returned @ret, keeps
 * the record that reports it: on the file for a write, on the directory
 * it was tried in for the others. An older record, about another call,
 * is not kept: a call refused before it reached the client (EEXIST,
 * EACCES) leaves the last one in place.
 */
static int fs_failed(struct fs *fs, const char *op, const char *path,
		     int ret)
{
	const char *base = path_base(path);
	char *where;
	char *text;
	size_t len;

	fs_clear_record(fs);
	if (!ret)
		return 0;
	if (!strcmp(op, "write"))
		where = strdup(path);
	else
		where = strndup(path, base > path ? base - path - 1 : 0);
	if (!where)
		cfs_out_of_memory();
	if (!fs_error_record(fs, where, &text, &len)) {
		if (record_concerns(text, len, op, base, -ret))
			fs->record = text;
		else
			free(text);
	}
	free(where);
	return ret;
}

/*
 * The value goes as saved, with no newline added, so that what a store()
 * keeps verbatim reads back the same. An empty value is written as one
 * newline, as echo(1) would: a store() never sees a zero-length write.
 */
int fs_write_value(struct fs *fs, const char *path, const char *value,
		   size_t len)
{
	int ret;

	if (!len)
		ret = fs->ops->write(fs->priv, path, "\n", 1);
	else
		ret = fs->ops->write(fs->priv, path, value, len);
	if (!ret)
		fs->nr_changes++;
	return fs_failed(fs, "write", path, ret);
}

static int fs_counted(struct fs *fs, int ret)
{
	if (!ret)
		fs->nr_changes++;
	return ret;
}

int fs_mkdir(struct fs *fs, const char *path)
{
	int ret = fs->ops->mkdir(fs->priv, path);

	return fs_failed(fs, "mkdir", path, fs_counted(fs, ret));
}

int fs_rmdir(struct fs *fs, const char *path)
{
	return fs_counted(fs, fs->ops->rmdir(fs->priv, path));
}

int fs_symlink(struct fs *fs, const char *target, const char *path)
{
	int ret = fs->ops->symlink(fs->priv, target, path);

	return fs_failed(fs, "symlink", path, fs_counted(fs, ret));
}

int fs_unlink(struct fs *fs, const char *path)
{
	return fs_counted(fs, fs->ops->unlink(fs->priv, path));
}

/*
 * A commit or un-commit: the rename of an item between its group's
 * pending/ and live/. A refusal leaves the item where it was, @from, with
 * the client's record on it ("commit: -EAGAIN" and its reason).
 */
int fs_rename(struct fs *fs, const char *from, const char *to)
{
	const char *op = strstr(to, "/live/") || !strncmp(to, "live/", 5) ?
			 "commit" : "uncommit";
	int ret = -EOPNOTSUPP;
	char *text;
	size_t len;

	fs_clear_record(fs);
	if (fs->ops->rename)
		ret = fs_counted(fs, fs->ops->rename(fs->priv, from, to));
	if (!ret || fs_error_record(fs, from, &text, &len))
		return ret;
	if (record_concerns_item(text, len, op, -ret))
		fs->record = text;
	else
		free(text);
	return ret;
}

int fs_readlink(struct fs *fs, const char *path, struct arena *arena,
		char **target)
{
	return fs->ops->readlink(fs->priv, path, arena, target);
}

int fs_chmod(struct fs *fs, const char *path, mode_t mode)
{
	return fs_counted(fs, fs->ops->chmod(fs->priv, path, mode));
}

int fs_chown(struct fs *fs, const char *path, uid_t uid, gid_t gid)
{
	return fs_counted(fs, fs->ops->chown(fs->priv, path, uid, gid));
}

/*
 * Resolves @target, relative to the directory of @link_path, into a path
 * relative to the root, without "." or ".." components. Returns NULL when
 * it climbs above the root.
 */
char *fs_normalize_target(struct arena *arena, const char *link_path,
			  const char *target)
{
	size_t cap = strlen(link_path) + strlen(target) + 2;
	char *out = arena_alloc(arena, cap);
	const char *slash = strrchr(link_path, '/');
	const char *p = target;
	size_t len = 0;

	if (slash) {
		len = slash - link_path;
		memcpy(out, link_path, len);
	}
	out[len] = '\0';
	while (*p) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *up;

			if (!len)
				return NULL;
			up = strrchr(out, '/');
			len = up ? (size_t)(up - out) : 0;
			out[len] = '\0';
		} else {
			if (len)
				out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
			out[len] = '\0';
		}
		p += n;
		if (*p == '/')
			p++;
	}
	return out;
}

/*
 * The current directory relative to the root, when it is inside the tree;
 * NULL otherwise. getcwd(3) gives the path with links resolved, as the
 * root is.
 */
static char *fs_cwd_in_tree(struct fs *fs, struct arena *arena)
{
	size_t root_len = strlen(fs->root);
	char *cwd = getcwd(NULL, 0);
	char *rel = NULL;

	if (!cwd)
		return NULL;
	if (!strncmp(cwd, fs->root, root_len) &&
	    (cwd[root_len] == '/' || cwd[root_len] == '\0'))
		rel = arena_strdup(arena, cwd + root_len +
				   (cwd[root_len] == '/'));
	free(cwd);
	return rel;
}

/*
 * Turns a command-line PATH into a path relative to the root: absolute and
 * under the root, or relative. A relative PATH is taken from the current
 * directory when that is inside the tree, as in a shell there ("cd
 * nvmet/ports; configfs rm -r 1"), and from the root otherwise.
 */
int fs_user_path(struct fs *fs, const char *arg, struct arena *arena,
		 char **path)
{
	const char *rel = arg;
	size_t root_len = strlen(fs->root);
	char *cwd;
	char *norm;

	if (arg[0] == '/') {
		if (strncmp(arg, fs->root, root_len) ||
		    (arg[root_len] != '/' && arg[root_len] != '\0')) {
			cfs_err(arg, "not under the configfs root %s",
				fs->root[0] ? fs->root : "/");
			return -EINVAL;
		}
		rel = arg + root_len;
	} else {
		cwd = fs_cwd_in_tree(fs, arena);
		if (cwd && cwd[0])
			rel = arena_printf(arena, "%s/%s", cwd, arg);
	}
	if (strstr(rel, "..")) {
		const char *p;

		for (p = rel; (p = strstr(p, "..")); p += 2) {
			if ((p == rel || p[-1] == '/') &&
			    (p[2] == '\0' || p[2] == '/')) {
				cfs_err(arg, "\"..\" is not allowed in a path");
				return -EINVAL;
			}
		}
	}
	norm = fs_normalize_target(arena, "", rel);
	if (!norm)
		return -EINVAL;
	*path = norm;
	return 0;
}
