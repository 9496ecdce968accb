// SPDX-License-Identifier: GPL-2.0
/*
 * configfs watch: prints what changes under a directory as it happens,
 * one line each, or one JSON object a line: directories and links that
 * appear and go, and attribute values that change, old and new.
 *
 * Every directory below the top has an inotify watch, added before the
 * directory is listed so that nothing made in between is missed. For
 * each watched directory the engine keeps what it last saw of each
 * entry: a subdirectory (its watch), a link (its target) or an attribute
 * (its value, when it reads as text). An event only makes it look at one
 * entry again and print the difference, so a directory seen both by an
 * event and by the listing of its new parent, or a value notified twice,
 * is printed once, and events for what it never saw are dropped.
 *
 * The engine reads the tree through struct fs and gets its watches from a
 * callback: host tests drive it with the model and made-up events.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "configfs.h"

#define WATCH_MASK	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM | \
			 IN_MOVED_TO | IN_DELETE_SELF | IN_ONLYDIR | \
			 IN_DONT_FOLLOW | IN_EXCL_UNLINK)

/* What the engine last saw of one entry of a watched directory. */
struct wentry {
	char *name;
	enum node_kind kind;
	int wd;			/* NODE_DIR: its watch; -1: none */
	enum attr_state state;	/* NODE_ATTR */
	char *value;		/* ATTR_TEXT */
	size_t len;
	size_t size;		/* ATTR_BINARY: bytes read */
	int err;		/* ATTR_UNREADABLE, or a link's readlink */
	char *target;		/* NODE_LINK, relative to the root */
};

struct wdir {
	char *path;		/* relative to the root */
	int parent_wd;		/* -1 for the top */
	struct wentry *entries;	/* in the order first seen */
	size_t nr;
	size_t cap;
};

static bool watch_is_dot(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

static struct wdir *watch_dir(struct watch *w, int wd)
{
	if (wd < 0 || (size_t)wd >= w->nr_slots)
		return NULL;
	return w->dirs[wd];
}

static char *watch_join(const char *dir, const char *name)
{
	char *path;

	if (asprintf(&path, "%s%s%s", dir, dir[0] ? "/" : "", name) < 0)
		cfs_out_of_memory();
	return path;
}

static char *watch_strndup(const char *s, size_t len)
{
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* Printing: a line of text, or a JSON object, each flushed at once. */

static void watch_begin(struct watch *w, const char *event, const char *path)
{
	if (w->json) {
		fprintf(w->out, "{\"event\":\"%s\"", event);
		json_field(w->out, "path", path, strlen(path));
	} else {
		fprintf(w->out, "%s ", event);
		format_put_token(w->out, path, strlen(path));
	}
}

static void watch_end(struct watch *w)
{
	fputs(w->json ? "}\n" : "\n", w->out);
	fflush(w->out);
}

static void watch_print_entry(struct watch *w, const char *event,
			      const char *path, const struct wentry *e)
{
	watch_begin(w, event, path);
	if (e->kind == NODE_DIR) {
		fputs(w->json ? ",\"type\":\"dir\"" : "/", w->out);
	} else if (w->json) {
		fputs(",\"type\":\"link\"", w->out);
		if (e->target)
			json_field(w->out, "target", e->target,
				   strlen(e->target));
	} else {
		fputs(" -> ", w->out);
		if (e->target)
			format_put_token(w->out, e->target, strlen(e->target));
		else
			fputs("?", w->out);
	}
	watch_end(w);
}

/* One side of a value change of @path, in text. */
static void watch_put_side(struct watch *w, const char *path,
			   const struct wentry *e)
{
	switch (e->state) {
	case ATTR_TEXT:
		format_put_value(w->out, path, e->value, e->len);
		break;
	case ATTR_BINARY:
		fprintf(w->out, "[binary, %zu bytes]", e->size);
		break;
	case ATTR_UNREADABLE:
		fprintf(w->out, "? [unreadable: %s]", cfs_strerror(e->err));
		break;
	default:
		fputs("?", w->out);
		break;
	}
}

static void watch_print_change(struct watch *w, const char *path,
			       const struct wentry *old,
			       const struct wentry *cur)
{
	if (cur->state == ATTR_WRITE_ONLY) {
		watch_begin(w, "write", path);
		if (!w->json)
			fputs(" [write-only]", w->out);
		watch_end(w);
		return;
	}
	watch_begin(w, "change", path);
	if (w->json && cfs_hides(path) &&
	    (old->state == ATTR_TEXT || cur->state == ATTR_TEXT)) {
		fputs(",\"secret\":true", w->out);
	} else if (w->json) {
		if (old->state == ATTR_TEXT)
			json_field(w->out, "old", old->value, old->len);
		if (cur->state == ATTR_TEXT)
			json_field(w->out, "new", cur->value, cur->len);
		else if (cur->state == ATTR_BINARY)
			fprintf(w->out, ",\"binary_size\":%zu", cur->size);
		else if (cur->state == ATTR_UNREADABLE)
			json_field(w->out, "error", cfs_strerror(cur->err),
				   strlen(cfs_strerror(cur->err)));
	} else if (cur->state == ATTR_BINARY) {
		fputc(' ', w->out);
		watch_put_side(w, path, cur);
	} else {
		fputc(' ', w->out);
		watch_put_side(w, path, old);
		fputs(" -> ", w->out);
		watch_put_side(w, path, cur);
	}
	watch_end(w);
}

/* Reads the attribute @path into @e, as walk.c reads one for tree. */
static void watch_read_attr(struct watch *w, const char *path, mode_t mode,
			    struct wentry *e)
{
	size_t total;
	size_t len;
	int ret;

	e->state = ATTR_WRITE_ONLY;
	e->value = NULL;
	e->len = 0;
	e->size = 0;
	e->err = 0;
	if (!(mode & 0444))
		return;
	ret = fs_read(w->fs, path, w->buf, w->fs->value_max + 1, &len,
		      &total);
	if (ret == -EACCES && (mode & 0222))
		return;
	if (ret) {
		e->state = ATTR_UNREADABLE;
		e->err = -ret;
	} else if (!walk_value_is_text(w->buf, len, total,
				       w->fs->value_max)) {
		e->state = ATTR_BINARY;
		e->size = total;
	} else {
		if (len && w->buf[len - 1] == '\n')
			len--;
		e->state = ATTR_TEXT;
		e->value = watch_strndup(w->buf, len);
		e->len = len;
	}
}

static void watch_free_entry(struct wentry *e)
{
	free(e->name);
	free(e->value);
	free(e->target);
}

static int watch_add_dir(struct watch *w, const char *path, int parent_wd,
			 bool report);

/*
 * Adds the entry @name of @dir as it is now; a directory is watched and
 * listed in turn. With @report, a directory or link is printed as
 * created (a directory before what it holds). Returns false when there
 * is nothing there (any more).
 */
static bool watch_add_entry(struct watch *w, int dir_wd, const char *name,
			    bool report)
{
	struct wdir *dir = watch_dir(w, dir_wd);
	struct fs_stat st;
	struct wentry e = { .wd = -1 };
	struct arena arena = { 0 };
	char *path = watch_join(dir->path, name);

	if (fs_lstat(w->fs, path, &st))
		goto out_free;
	switch (st.kind) {
	case FS_DIR:
		e.kind = NODE_DIR;
		if (report)
			watch_print_entry(w, "create", path, &e);
		/* The listing below may add entries to @dir's parents. */
		e.wd = watch_add_dir(w, path, dir_wd, report);
		break;
	case FS_LINK:
		e.kind = NODE_LINK;
		e.err = -fs_readlink(w->fs, path, &arena, &e.target);
		e.target = e.err ? NULL : strdup(e.target);
		if (report)
			watch_print_entry(w, "create", path, &e);
		break;
	case FS_FILE:
		e.kind = NODE_ATTR;
		watch_read_attr(w, path, st.mode, &e);
		break;
	default:
		goto out_free;
	}
	dir = watch_dir(w, dir_wd);
	if (!dir) {
		watch_free_entry(&e);
		goto out_free;
	}
	if (dir->nr == dir->cap) {
		dir->cap = dir->cap ? dir->cap * 2 : 16;
		dir->entries = xrealloc_array(dir->entries, dir->cap,
					      sizeof(*dir->entries));
	}
	e.name = strdup(name);
	if (!e.name)
		cfs_out_of_memory();
	dir->entries[dir->nr++] = e;
	arena_free(&arena);
	free(path);
	return true;
out_free:
	arena_free(&arena);
	free(path);
	return false;
}

static int watch_cmp_name(const void *a, const void *b)
{
	const char *const *x = a;
	const char *const *y = b;

	return strcmp(*x, *y);
}

/*
 * Watches and lists the directory @path, child of the watched @parent_wd
 * (-1 for the top). Returns its watch, or -1 when it could not be
 * watched (reported, unless it is already gone).
 */
static int watch_add_dir(struct watch *w, const char *path, int parent_wd,
			 bool report)
{
	struct arena arena = { 0 };
	struct wdir *dir;
	char **names;
	size_t nr;
	size_t i;
	int wd;

	wd = w->add(w->priv, path);
	if (wd < 0) {
		if (wd != -ENOENT)
			cfs_err(path, "cannot watch: %s", cfs_strerror(wd));
		return -1;
	}
	if ((size_t)wd >= w->nr_slots) {
		size_t old = w->nr_slots;

		w->nr_slots = (size_t)wd * 2 + 16;
		w->dirs = xrealloc_array(w->dirs, w->nr_slots,
					 sizeof(*w->dirs));
		memset(w->dirs + old, 0,
		       (w->nr_slots - old) * sizeof(*w->dirs));
	}
	if (w->dirs[wd])
		return wd;	/* the same directory: known already */
	dir = xmalloc(sizeof(*dir));
	memset(dir, 0, sizeof(*dir));
	dir->path = strdup(path);
	if (!dir->path)
		cfs_out_of_memory();
	dir->parent_wd = parent_wd;
	w->dirs[wd] = dir;
	w->nr_watched++;
	if (fs_list(w->fs, path, &arena, &names, &nr)) {
		arena_free(&arena);
		return wd;
	}
	qsort(names, nr, sizeof(*names), watch_cmp_name);
	for (i = 0; i < nr; i++)
		if (!watch_is_dot(names[i]))
			watch_add_entry(w, wd, names[i], report);
	arena_free(&arena);
	return wd;
}

static ssize_t watch_find(struct wdir *dir, const char *name)
{
	size_t i;

	for (i = 0; i < dir->nr; i++)
		if (!strcmp(dir->entries[i].name, name))
			return i;
	return -1;
}

static void watch_drop_dir(struct watch *w, int wd, bool report);

/*
 * Entry @i of @dir is gone: a directory goes with everything below it,
 * printed bottom-up, links as they go.
 */
static void watch_remove_entry(struct watch *w, int dir_wd, size_t i,
			       bool report)
{
	struct wdir *dir = watch_dir(w, dir_wd);
	struct wentry e = dir->entries[i];
	char *path = watch_join(dir->path, e.name);

	memmove(dir->entries + i, dir->entries + i + 1,
		(dir->nr - i - 1) * sizeof(*dir->entries));
	dir->nr--;
	if (e.kind == NODE_DIR && e.wd >= 0)
		watch_drop_dir(w, e.wd, report);
	if (report && e.kind != NODE_ATTR)
		watch_print_entry(w, "remove", path, &e);
	watch_free_entry(&e);
	free(path);
}

/* Forgets the watched directory @wd and everything below it. */
static void watch_drop_dir(struct watch *w, int wd, bool report)
{
	struct wdir *dir = watch_dir(w, wd);

	if (!dir)
		return;
	while (dir->nr)
		watch_remove_entry(w, wd, dir->nr - 1, report);
	w->dirs[wd] = NULL;
	w->nr_watched--;
	if (w->rm)
		w->rm(w->priv, wd);
	free(dir->entries);
	free(dir->path);
	free(dir);
}

/*
 * Reads attribute @i of @dir again and prints what changed. Unless an
 * event for this very file (@notified) says so, a write-only attribute
 * has not changed, nor has a binary one of the same size.
 */
static void watch_check_attr(struct watch *w, int dir_wd, size_t i,
			     bool notified)
{
	struct wdir *dir = watch_dir(w, dir_wd);
	struct wentry *old = &dir->entries[i];
	struct wentry cur = { 0 };
	struct fs_stat st;
	char *path = watch_join(dir->path, old->name);

	if (fs_lstat(w->fs, path, &st) || st.kind != FS_FILE)
		goto out;
	watch_read_attr(w, path, st.mode, &cur);
	if (!notified && (cur.state == ATTR_WRITE_ONLY ||
			  (cur.state == ATTR_BINARY &&
			   old->state == ATTR_BINARY && cur.size == old->size)))
		goto out;
	if (cur.state == ATTR_TEXT && old->state == ATTR_TEXT &&
	    cur.len == old->len && !memcmp(cur.value, old->value, cur.len)) {
		free(cur.value);
		goto out;
	}
	if (cur.state == ATTR_UNREADABLE && old->state == ATTR_UNREADABLE &&
	    cur.err == old->err)
		goto out;
	watch_print_change(w, path, old, &cur);
	free(old->value);
	old->state = cur.state;
	old->value = cur.value;
	old->len = cur.len;
	old->size = cur.size;
	old->err = cur.err;
out:
	free(path);
}

/* Looks at every entry of @wd again, and below it: after lost events. */
static void watch_resync(struct watch *w, int wd)
{
	struct arena arena = { 0 };
	struct wdir *dir = watch_dir(w, wd);
	char **names;
	size_t nr;
	size_t i;
	size_t k;

	if (!dir || fs_list(w->fs, dir->path, &arena, &names, &nr))
		goto out;
	qsort(names, nr, sizeof(*names), watch_cmp_name);
	for (i = dir->nr; i-- > 0;) {
		for (k = 0; k < nr; k++)
			if (!strcmp(names[k], dir->entries[i].name))
				break;
		if (k == nr)
			watch_remove_entry(w, wd, i, true);
	}
	for (k = 0; k < nr; k++) {
		ssize_t at;

		if (watch_is_dot(names[k]))
			continue;
		dir = watch_dir(w, wd);
		at = watch_find(dir, names[k]);
		if (at < 0)
			watch_add_entry(w, wd, names[k], true);
		else if (dir->entries[at].kind == NODE_ATTR)
			watch_check_attr(w, wd, at, false);
		else if (dir->entries[at].kind == NODE_DIR)
			watch_resync(w, dir->entries[at].wd);
	}
out:
	arena_free(&arena);
}

/*
 * Starts watching @path (relative to the root), a directory. Returns 0,
 * or -errno when it cannot be watched.
 */
int watch_start(struct watch *w, const char *path)
{
	struct fs_stat st;
	int ret;

	w->dirs = NULL;
	w->nr_slots = 0;
	w->nr_watched = 0;
	w->top_gone = false;
	ret = fs_lstat(w->fs, path, &st);
	if (ret)
		return ret;
	if (st.kind != FS_DIR)
		return -ENOTDIR;
	w->buf = xmalloc(w->fs->value_max + 1);
	w->top_wd = watch_add_dir(w, path, -1, false);
	return w->top_wd < 0 ? -EIO : 0;
}

/* The top directory is gone: print it and everything that was below. */
static void watch_top_gone(struct watch *w)
{
	struct wentry e = { .kind = NODE_DIR };
	char *path = strdup(watch_dir(w, w->top_wd)->path);

	if (!path)
		cfs_out_of_memory();
	watch_drop_dir(w, w->top_wd, true);
	watch_print_entry(w, "remove", path, &e);
	free(path);
	w->top_gone = true;
}

/*
 * One inotify event: @mask of the watch @wd, about its entry @name ("" or
 * NULL: about the directory itself).
 */
void watch_event(struct watch *w, int wd, uint32_t mask, const char *name)
{
	struct wdir *dir;
	ssize_t i;

	if (mask & IN_Q_OVERFLOW) {
		cfs_err(NULL, "events were lost; looking at the whole tree again");
		watch_resync(w, w->top_wd);
		return;
	}
	dir = watch_dir(w, wd);
	if (!dir || w->top_gone)
		return;
	if (mask & (IN_DELETE_SELF | IN_IGNORED)) {
		struct wdir *parent = watch_dir(w, dir->parent_wd);

		if (wd == w->top_wd) {
			watch_top_gone(w);
			return;
		}
		for (i = 0; parent && (size_t)i < parent->nr; i++)
			if (parent->entries[i].kind == NODE_DIR &&
			    parent->entries[i].wd == wd)
				break;
		if (parent && (size_t)i < parent->nr)
			watch_remove_entry(w, dir->parent_wd, i, true);
		return;
	}
	if (!name || !name[0]) {
		/* A change notified on the directory: look at its values. */
		if (!(mask & IN_MODIFY))
			return;
		for (i = 0; (size_t)i < dir->nr; i++)
			if (dir->entries[i].kind == NODE_ATTR)
				watch_check_attr(w, wd, i, false);
		return;
	}
	i = watch_find(dir, name);
	if (mask & (IN_DELETE | IN_MOVED_FROM)) {
		if (i >= 0)
			watch_remove_entry(w, wd, i, true);
	} else if (mask & (IN_CREATE | IN_MOVED_TO)) {
		if (i < 0)
			watch_add_entry(w, wd, name, true);
	} else if (mask & IN_MODIFY) {
		if (i < 0)
			watch_add_entry(w, wd, name, false);
		else if (dir->entries[i].kind == NODE_ATTR)
			watch_check_attr(w, wd, i, true);
	}
}

void watch_stop(struct watch *w)
{
	size_t wd;

	for (wd = 0; wd < w->nr_slots; wd++) {
		struct wdir *dir = w->dirs[wd];

		if (!dir)
			continue;
		while (dir->nr)
			watch_free_entry(&dir->entries[--dir->nr]);
		free(dir->entries);
		free(dir->path);
		free(dir);
	}
	free(w->dirs);
	free(w->buf);
	w->dirs = NULL;
	w->buf = NULL;
	w->nr_slots = 0;
}

/* The system side: inotify, and SIGINT or SIGTERM to end. */

struct watch_sys {
	int fd;
	int root_fd;	/* fs_root_fd(): the root as opened, not its path */
};

static int watch_sys_add(void *priv, const char *path)
{
	struct watch_sys *sys = priv;
	char full[PATH_MAX];
	int wd;

	if (snprintf(full, sizeof(full), "/proc/self/fd/%d/%s", sys->root_fd,
		     path) >= (int)sizeof(full))
		return -ENAMETOOLONG;
	wd = inotify_add_watch(sys->fd, full, WATCH_MASK | IN_DONT_FOLLOW |
			       IN_ONLYDIR);
	return wd < 0 ? -errno : wd;
}

static void watch_sys_rm(void *priv, int wd)
{
	struct watch_sys *sys = priv;

	/* EINVAL when the kernel removed it already. */
	inotify_rm_watch(sys->fd, wd);
}

/* Reads and handles the events waiting; returns 0 or -errno. */
static int watch_sys_read(struct watch *w, int fd)
{
	static union {
		struct inotify_event ev;	/* for its alignment */
		char buf[65536];
	} u;
	char *buf = u.buf;
	ssize_t len;
	char *p;

	len = read(fd, buf, sizeof(u.buf));
	if (len < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	for (p = buf; p < buf + len;) {
		struct inotify_event *ev = (struct inotify_event *)p;

		watch_event(w, ev->wd, ev->mask, ev->len ? ev->name : NULL);
		p += sizeof(*ev) + ev->len;
	}
	return 0;
}

static int watch_loop(struct watch *w, int ifd, int sfd)
{
	struct pollfd fds[2] = {
		{ .fd = ifd, .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	int ret;

	while (!w->top_gone) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			cfs_err(NULL, "poll: %s", cfs_strerror(errno));
			return CFS_EXIT_SYSTEM;
		}
		if (fds[1].revents) {
			struct signalfd_siginfo si;

			/* Taken, so that unblocking does not deliver it. */
			if (read(sfd, &si, sizeof(si)) < 0)
				return CFS_EXIT_SYSTEM;
			return CFS_EXIT_OK;
		}
		if (fds[0].revents) {
			ret = watch_sys_read(w, ifd);
			if (ret) {
				cfs_err(NULL, "inotify: %s", cfs_strerror(ret));
				return CFS_EXIT_SYSTEM;
			}
		}
		if (ferror(w->out))
			return CFS_EXIT_SYSTEM;
	}
	return CFS_EXIT_FAIL;
}

static void watch_usage(FILE *out)
{
	cfs_usage_line(out, "watch [--json] [-q] [PATH]");
	fputs("Print changes under PATH (default: all) as they happen:\n"
	      "directories and links created and removed, values changed\n"
	      "(old and new), writes to write-only attributes. Ctrl-C ends.\n"
	      "  -j, --json   one JSON object per line, after {\"version\":N}\n"
	      "  -q, --quiet  no \"watching\" note on standard error\n"
	      "  --show-secrets  secret values (keys, passwords) too\n",
	      out);
}

int cmd_watch(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "show-secrets", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct watch w = { .out = stdout, .add = watch_sys_add,
			   .rm = watch_sys_rm };
	struct arena arena = { 0 };
	struct watch_sys sys;
	bool quiet = false;
	char *path = "";
	sigset_t sigs;
	struct fs fs;
	int sfd;
	int ret;
	int c;

	while ((c = getopt_long(argc, argv, "+jqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			w.json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'S':
			cfs_opts.show_secrets = true;
			break;
		case 'h':
			watch_usage(stdout);
			return CFS_EXIT_OK;
		default:
			watch_usage(stderr);
			return CFS_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		watch_usage(stderr);
		return CFS_EXIT_USAGE;
	}
	if (fs_open_cmd(&fs))
		return CFS_EXIT_SYSTEM;
	if (optind < argc && fs_user_path(&fs, argv[optind], &arena, &path)) {
		ret = CFS_EXIT_USAGE;
		goto out_fs;
	}
	/*
	 * Blocked, SIGINT and SIGTERM only wake the loop through sfd. A shell
	 * starts a background job with them ignored, and an ignored signal
	 * never reaches sfd: "watch &" could then not be ended by SIGINT.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sfd = -1;
	sys.root_fd = fs_root_fd(&fs);
	sys.fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (sys.fd >= 0 && !sigprocmask(SIG_BLOCK, &sigs, NULL))
		sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0) {
		cfs_err(NULL, "inotify: %s", cfs_strerror(errno));
		ret = CFS_EXIT_SYSTEM;
		goto out_fds;
	}
	w.fs = &fs;
	w.priv = &sys;
	ret = watch_start(&w, path);
	if (ret) {
		cfs_err(path, "%s", cfs_strerror(ret));
		ret = CFS_EXIT_FAIL;
		goto out_watch;
	}
	if (w.json) {
		fprintf(w.out, "{\"version\":%d}\n", CFS_JSON_VERSION);
		fflush(w.out);
	}
	if (!quiet)
		cfs_err(path, "watching %zu directories", w.nr_watched);
	ret = watch_loop(&w, sys.fd, sfd);
	if (ret == CFS_EXIT_FAIL)
		cfs_err(path, "removed: nothing left to watch");
out_watch:
	watch_stop(&w);
out_fds:
	if (sfd >= 0)
		close(sfd);
	if (sys.fd >= 0)
		close(sys.fd);
	sigprocmask(SIG_UNBLOCK, &sigs, NULL);
out_fs:
	arena_free(&arena);
	fs_close(&fs);
	return ret;
}
