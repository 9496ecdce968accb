// SPDX-License-Identifier: GPL-2.0
/*
 * configfs save: writes a subtree as statements that restore it.
 *
 * Directories, links, writable attribute values, and modes and owners that
 * differ from what configfs gives, in tree order, so that two saves of one
 * tree are byte-identical. Default groups cannot be told from directories
 * made with mkdir on stock configfs, so every directory is saved; restore
 * finds the default ones there already. What cannot be saved (write-only,
 * unreadable values, and values longer than CFS_VALUE_MAX) is named in a
 * comment.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "configfs.h"

struct save {
	struct fs *fs;
	FILE *out;
	unsigned int flags;
	const struct stmt **keep;	/* write-only values, by path */
	size_t nr_keep;
	bool block;		/* lines printed since the last mkdir */
};

static int save_cmp_stmt(const void *a, const void *b)
{
	const struct stmt *const *x = a;
	const struct stmt *const *y = b;

	return strcmp((*x)->path, (*y)->path);
}

static const struct stmt *save_kept(struct save *s, const char *path)
{
	struct stmt key = { .path = path };
	const struct stmt *k = &key;
	const struct stmt **found;

	if (!s->nr_keep)
		return NULL;
	found = bsearch(&k, s->keep, s->nr_keep, sizeof(*s->keep),
			save_cmp_stmt);
	return found ? *found : NULL;
}

/* A link's mode is always 0777 and counts as default: only its owner. */
static void save_modes(struct save *s, const struct node *node)
{
	struct stmt st = { .path = node->path };

	if (!walk_mode_is_default(node)) {
		st.kind = STMT_CHMOD;
		st.mode = node->mode;
		format_save_stmt(s->out, &st);
	}
	if (node->uid || node->gid) {
		st.kind = STMT_CHOWN;
		st.uid = node->uid;
		st.gid = node->gid;
		format_save_stmt(s->out, &st);
	}
}

/*
 * The part of @info after @key, up to @stop (or the end of its line);
 * NULL when @key is not there. rtslib reads info the same way.
 */
static char *save_info_field(const char *info, const char *key,
			     const char *stop)
{
	const char *p = strstr(info, key);
	const char *eol;
	const char *end;

	if (!p)
		return NULL;
	p += strlen(key);
	eol = strchrnul(p, '\n');
	end = stop ? strstr(p, stop) : NULL;
	if (!end || end > eol)
		end = eol;
	return strndup(p, end - p);
}

/* Is @s a decimal number? */
static bool save_is_number(const char *s)
{
	return s && s[0] && strspn(s, "0123456789") == strlen(s);
}

/*
 * A LIO backstore's control (target/core/HBA/DEVICE/control) is
 * write-only and carries what the backstore is: without it a restore
 * cannot enable it. As rtslib does, it is rebuilt from the backstore's
 * info for the types whose info shows all of it: fileio (name and size;
 * buffered and async I/O), iblock (udev path; read-only) and rd_mcp
 * (pages; nullio, dummy). Returns the value, to free, or NULL.
 */
static char *save_lio_control(struct save *s, const struct node *node)
{
	size_t dir_len = strlen(node->path) - strlen(node->name);
	const char *hba;
	char *info_path;
	char *value = NULL;
	char *info;
	char *a = NULL;
	char *b = NULL;
	size_t total;
	size_t len;

	if (strcmp(node->name, "control") || dir_len < 2)
		return NULL;
	/* The directory, "/control" cut: a backstore's, or no LIO's. */
	info_path = strdup(node->path);
	if (!info_path)
		cfs_out_of_memory();
	info_path[dir_len - 1] = '\0';
	if (!path_is_lio_backstore(info_path)) {
		free(info_path);
		return NULL;
	}
	info_path[dir_len - 1] = '/';
	hba = node->path + strlen("target/core/");
	info = xmalloc(CFS_VALUE_MAX + 1);
	strcpy(info_path + dir_len, "info");
	if (fs_read(s->fs, info_path, info, CFS_VALUE_MAX, &len, &total) ||
	    memchr(info, '\0', len))
		goto out;
	info[len] = '\0';
	if (!strncmp(hba, "fileio_", 7)) {
		/* "File: %s  Size: %llu  Mode: %s Async: %d" */
		a = save_info_field(info, "File: ", "  Size: ");
		b = save_info_field(info, "  Size: ", "  Mode: ");
		if (!a || !a[0] || !save_is_number(b))
			goto out;
		if (asprintf(&value, "fd_dev_name=%s,fd_dev_size=%s%s%s", a, b,
			     strstr(info, "Mode: Buffered-WCE") ?
			     ",fd_buffered_io=1" : "",
			     strstr(info, " Async: 1") ?
			     ",fd_async_io=1" : "") < 0)
			value = NULL;
	} else if (!strncmp(hba, "iblock_", 7)) {
		/* "  UDEV PATH: %s  readonly: %d" */
		a = save_info_field(info, "  UDEV PATH: ", "  readonly: ");
		if (!a || !a[0])
			goto out;
		if (asprintf(&value, "udev_path=%s%s", a,
			     strstr(info, "  readonly: 1") ?
			     ",readonly=1" : "") < 0)
			value = NULL;
	} else if (!strncmp(hba, "rd_mcp_", 7)) {
		/* "PAGES/PAGE_SIZE: %u*%lu ... nullio: %d dummy: %d" */
		a = save_info_field(info, "PAGES/PAGE_SIZE: ", "*");
		if (!save_is_number(a) || !strcmp(a, "0"))
			goto out;
		if (asprintf(&value, "rd_pages=%s%s%s", a,
			     strstr(info, "nullio: 1") ? ",rd_nullio=1" : "",
			     strstr(info, "dummy: 1") ? ",rd_dummy=1" : "") < 0)
			value = NULL;
	}
	/* The kernel splits control at ',' and newlines: none can be in a part. */
	if (value && (strchr(a, ',') || strchr(a, '\n'))) {
		free(value);
		value = NULL;
	}
out:
	free(a);
	free(b);
	free(info);
	free(info_path);
	return value;
}

static void save_attr(struct save *s, const struct node *node)
{
	struct stmt st = {
		.kind = STMT_SET,
		.path = node->path,
		.arg = node->value,
		.len = node->len,
	};
	const struct stmt *kept;
	char detail[64];
	char *rebuilt;

	if (!node->writable)
		goto modes;
	switch (node->state) {
	case ATTR_TEXT:
		/* A gadget's UDC names this machine's controller. */
		st.any = (s->flags & SAVE_PORTABLE) && node->len &&
			 !strcmp(node->name, "UDC");
		format_save_stmt(s->out, &st);
		break;
	case ATTR_WRITE_ONLY:
		kept = save_kept(s, node->path);
		rebuilt = kept ? NULL : save_lio_control(s, node);
		if (kept) {
			format_save_stmt(s->out, kept);
		} else if (rebuilt) {
			st.arg = rebuilt;
			st.len = strlen(rebuilt);
			format_print_note(s->out, "write-only, rebuilt from info",
					  node->path, NULL);
			format_save_stmt(s->out, &st);
			free(rebuilt);
		} else {
			format_print_note(s->out, "write-only, not saved",
					  node->path, "add: set PATH VALUE");
		}
		break;
	case ATTR_BINARY:
		snprintf(detail, sizeof(detail), "%zu bytes, more than %d",
			 node->size, CFS_VALUE_MAX);
		format_print_note(s->out, "binary, not saved", node->path,
				  detail);
		break;
	case ATTR_UNREADABLE:
		format_print_note(s->out, "unreadable, not saved", node->path,
				  cfs_strerror(node->err));
		break;
	case ATTR_NOT_READ:
		break;
	}
modes:
	save_modes(s, node);
}

static void save_link(struct save *s, const struct node *node)
{
	struct stmt st = {
		.kind = STMT_LINK,
		.path = node->path,
		.arg = node->target,
	};

	if (node->err) {
		format_print_note(s->out, "link not saved", node->path,
				  cfs_strerror(node->err));
		return;
	}
	st.len = strlen(node->target);
	format_save_stmt(s->out, &st);
	save_modes(s, node);
}

static void save_dir(struct save *s, const struct node *dir)
{
	struct stmt st = { .kind = STMT_MKDIR, .path = dir->path };
	size_t i;

	if (dir->path[0]) {
		/* A blank line ends each directory with content. */
		if (s->block)
			fputc('\n', s->out);
		format_save_stmt(s->out, &st);
		save_modes(s, dir);
	}
	s->block = false;
	for (i = 0; i < dir->nr_kids; i++) {
		const struct node *kid = dir->kids[i];

		if (kid->kind == NODE_ATTR)
			save_attr(s, kid);
		else if (kid->kind == NODE_LINK)
			save_link(s, kid);
		s->block |= kid->kind != NODE_DIR;
	}
	for (i = 0; i < dir->nr_kids; i++)
		if (dir->kids[i]->kind == NODE_DIR)
			save_dir(s, dir->kids[i]);
}

/*
 * Writes the statements for the subtree at @path to @out. @keep, if not
 * NULL, is an earlier save whose values for write-only attributes are
 * carried over. Returns the number of problems met (each reported), or
 * -errno when @path cannot be read at all.
 */
int save_tree(struct fs *fs, const char *path, const struct script *keep,
	      unsigned int flags, FILE *out)
{
	struct save s = { .fs = fs, .out = out, .flags = flags };
	struct tree tree;
	size_t i;
	int ret;

	ret = walk_tree(fs, path, WALK_VALUES, &tree);
	if (ret) {
		cfs_err(path, "%s", cfs_strerror(ret));
		return ret;
	}
	if (keep && keep->nr_stmts) {
		s.keep = xmalloc(keep->nr_stmts * sizeof(*s.keep));
		for (i = 0; i < keep->nr_stmts; i++)
			if (keep->stmts[i].kind == STMT_SET)
				s.keep[s.nr_keep++] = &keep->stmts[i];
		qsort(s.keep, s.nr_keep, sizeof(*s.keep), save_cmp_stmt);
	}
	format_print_header(out);
	module_save(fs, out);
	fputc('\n', out);
	switch (tree.top->kind) {
	case NODE_DIR:
		save_dir(&s, tree.top);
		break;
	case NODE_ATTR:
		save_attr(&s, tree.top);
		break;
	case NODE_LINK:
		save_link(&s, tree.top);
		break;
	}
	fputc('\n', out);
	format_print_end(out);
	ret = tree.nr_errors;
	free(s.keep);
	tree_free(&tree);
	return ret;
}

static void save_usage(FILE *out)
{
	cfs_usage_line(out, "save [-o FILE] [-k OLD] [--portable] [PATH]");
	fputs("Write the tree under PATH (default: all) as statements that\n"
	      "configfs restore applies.\n"
	      "  -o, --output FILE  write to FILE (replaced whole), not stdout;\n"
	      "                     made 0600 (never wider; another user's\n"
	      "                     FILE is refused); \"-\": stdout\n"
	      "  -k, --keep OLD     carry over values of write-only attributes\n"
	      "                     from OLD, an earlier save edited by hand\n"
	      "  --portable         for another machine: a bound gadget's UDC\n"
	      "                     as \"udc PATH\", any free UDC there\n",
	      out);
}

/*
 * A saved tree holds secrets (nvmet's dhchap_key, LIO's auth/password), so
 * the file never becomes readable by more users than its owner: a new file
 * stays 0600 as mkstemp(3) made it, whatever the umask; one that replaces
 * an existing file keeps at most that file's owner bits (a 0666 file
 * becomes 0600, a 0400 one stays 0400). The owner is never carried over:
 * a file of another user is refused (save_refuse_target()), so that a
 * file pre-made by someone else, world-readable or theirs to read, never
 * receives root's secrets.
 */
static int save_narrow_mode(int fd, const char *file, const struct stat *old)
{
	mode_t mode = old->st_mode & 0600;

	if (fchmod(fd, mode)) {
		int err = errno;

		cfs_err(file, "cannot set its mode %04o: %s",
			(unsigned int)mode, cfs_strerror(err));
		return -err;
	}
	return 0;
}

/*
 * The file is written beside @file and renamed over it, and rename(2)
 * replaces whatever has the name: a symbolic link would become a regular
 * file and its target be left stale; a device node (as root, /dev/full)
 * or a FIFO would be replaced by a regular file. Links are refused, not
 * followed: save runs as root, often in directories others can write, and
 * writes secrets, so it writes only where the user named the file itself.
 * A file another user owns is refused too: that user chose its mode and
 * can change it, or read what is written there.
 */
static int save_refuse_target(const char *file, const struct stat *old)
{
	if (S_ISLNK(old->st_mode)) {
		cfs_err(file, "a symbolic link: give the file it points to");
		return -ELOOP;
	}
	if (!S_ISREG(old->st_mode)) {
		cfs_err(file, "not a regular file; \"-o -\" writes to standard output");
		return -EINVAL;
	}
	if (old->st_uid != geteuid()) {
		cfs_err(file, "owned by uid %lu, not by this user: refused (remove it, or save to another name)",
			(unsigned long)old->st_uid);
		return -EPERM;
	}
	return 0;
}

/*
 * The rename is only durable once the directory holding it is on disk
 * too; until then a crash may bring back the old file, or none.
 */
static int save_sync_dir(const char *file)
{
	const char *slash = strrchr(file, '/');
	char *dir;
	int ret = 0;
	int fd;

	if (!slash)
		dir = strdup(".");
	else if (slash == file)
		dir = strdup("/");
	else
		dir = strndup(file, slash - file);
	if (!dir)
		cfs_out_of_memory();
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret)
		cfs_err(dir, "written, but its directory not synced: %s",
			cfs_strerror(ret));
	free(dir);
	return ret;
}

static int save_to_file(struct fs *fs, const char *path,
			const struct script *keep, unsigned int flags,
			const char *file)
{
	char *tmp = xmalloc(strlen(file) + 16);
	struct stat old;
	bool replacing;
	FILE *out;
	int ret;
	int fd;

	if (!lstat(file, &old)) {
		replacing = true;
	} else if (errno == ENOENT) {
		replacing = false;
	} else {
		cfs_err(file, "%s", cfs_strerror(errno));
		free(tmp);
		return CFS_EXIT_SYSTEM;
	}
	if (replacing && save_refuse_target(file, &old)) {
		free(tmp);
		return CFS_EXIT_USAGE;
	}
	sprintf(tmp, "%s.XXXXXX", file);
	fd = mkstemp(tmp);
	if (fd < 0) {
		cfs_err(file, "%s", cfs_strerror(errno));
		free(tmp);
		return CFS_EXIT_SYSTEM;
	}
	if (replacing && save_narrow_mode(fd, file, &old)) {
		close(fd);
		ret = CFS_EXIT_SYSTEM;
		goto out_unlink;
	}
	out = fdopen(fd, "w");
	if (!out) {
		cfs_err(file, "%s", cfs_strerror(errno));
		close(fd);
		ret = CFS_EXIT_SYSTEM;
		goto out_unlink;
	}
	ret = save_tree(fs, path, keep, flags, out);
	if (ret) {
		fclose(out);
		cfs_err(file, "not written: the tree could not be read whole");
		ret = CFS_EXIT_FAIL;
		goto out_unlink;
	}
	if (fflush(out) || fsync(fileno(out)) || fclose(out)) {
		cfs_err(file, "%s", cfs_strerror(errno));
		ret = CFS_EXIT_SYSTEM;
		goto out_unlink;
	}
	if (rename(tmp, file)) {
		cfs_err(file, "%s", cfs_strerror(errno));
		ret = CFS_EXIT_SYSTEM;
		goto out_unlink;
	}
	free(tmp);
	return save_sync_dir(file) ? CFS_EXIT_SYSTEM : CFS_EXIT_OK;
out_unlink:
	unlink(tmp);
	free(tmp);
	return ret;
}

int cmd_save(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "keep", required_argument, NULL, 'k' },
		{ "portable", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct script keep = { 0 };
	const char *keep_file = NULL;
	const char *file = NULL;
	struct arena arena = { 0 };
	char *path = "";
	struct fs fs;
	int ret;
	unsigned int flags = 0;
	int c;

	while ((c = getopt_long(argc, argv, "+o:k:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			file = optarg;
			break;
		case 'k':
			keep_file = optarg;
			break;
		case 'p':
			flags |= SAVE_PORTABLE;
			break;
		case 'h':
			save_usage(stdout);
			return CFS_EXIT_OK;
		default:
			save_usage(stderr);
			return CFS_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		save_usage(stderr);
		return CFS_EXIT_USAGE;
	}
	if (keep_file) {
		ret = format_load(&keep, keep_file);
		if (ret) {
			script_free(&keep);
			return ret < 0 ? CFS_EXIT_SYSTEM : CFS_EXIT_USAGE;
		}
	}
	if (fs_open_cmd(&fs)) {
		script_free(&keep);
		return CFS_EXIT_SYSTEM;
	}
	if (optind < argc && fs_user_path(&fs, argv[optind], &arena, &path)) {
		ret = CFS_EXIT_USAGE;
		goto out;
	}
	if (file && strcmp(file, "-")) {
		ret = save_to_file(&fs, path, &keep, flags, file);
	} else {
		/* A PATH that is not there: 1, as for tree. */
		ret = save_tree(&fs, path, &keep, flags, stdout);
		ret = ret ? CFS_EXIT_FAIL : CFS_EXIT_OK;
	}
out:
	arena_free(&arena);
	fs_close(&fs);
	script_free(&keep);
	return ret;
}
