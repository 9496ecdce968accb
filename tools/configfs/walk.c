// SPDX-License-Identifier: GPL-2.0
/*
 * Traversal: reads a subtree into a tree of nodes, children sorted by name,
 * so that everything printed from it comes out in a stable order.
 *
 * An attribute is read-only when its mode has no write bit and write-only
 * when it has no read bit: configfs checks the mode even for root, so a
 * write-only attribute is never opened for reading. A read that configfs
 * refuses with EACCES (no show()) marks it write-only too. A value is read
 * whole up to CFS_VALUE_MAX bytes (a binary attribute's may be longer
 * than a page); a longer one is "binary", and not kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "configfs.h"

struct walk {
	struct fs *fs;
	struct tree *tree;
	unsigned int flags;
	char *buf;		/* CFS_VALUE_MAX + 1 bytes */
};

static int walk_cmp_name(const void *a, const void *b)
{
	const char *const *x = a;
	const char *const *y = b;

	return strcmp(*x, *y);
}

bool walk_value_is_text(const char *buf, size_t len, size_t total,
			size_t value_max)
{
	return total <= value_max && !memchr(buf, '\0', len);
}

/*
 * The length of the value in @buf as saved: text (at most a page, with no
 * NUL byte) loses its one trailing newline, as cat shows it; any other
 * value (a binary attribute's, a HID report descriptor) is kept whole,
 * byte for byte, since its last byte may be 0x0a.
 */
size_t walk_value_len(const char *buf, size_t len, size_t value_max)
{
	if (len > value_max || memchr(buf, '\0', len))
		return len;
	if (len && buf[len - 1] == '\n')
		len--;
	return len;
}

static void walk_read_attr(struct walk *w, struct node *node)
{
	size_t len;
	size_t total;
	int ret;

	if (!(node->mode & 0444)) {
		node->state = ATTR_WRITE_ONLY;
		return;
	}
	ret = fs_read(w->fs, node->path, w->buf, CFS_VALUE_MAX + 1, &len,
		      &total);
	if (ret == -EACCES && node->writable) {
		node->state = ATTR_WRITE_ONLY;
	} else if (ret) {
		node->state = ATTR_UNREADABLE;
		node->err = -ret;
	} else if (total > CFS_VALUE_MAX) {
		node->state = ATTR_BINARY;
		node->size = total;
	} else {
		len = walk_value_len(w->buf, len, w->fs->value_max);
		node->state = ATTR_TEXT;
		node->value = arena_strndup(&w->tree->arena, w->buf, len);
		node->len = len;
	}
}

static struct node *walk_new_node(struct walk *w, struct node *parent,
				  const char *path, const struct fs_stat *st)
{
	struct node *node = arena_alloc(&w->tree->arena, sizeof(*node));

	memset(node, 0, sizeof(*node));
	node->path = path;
	node->name = path_base(path);
	node->parent = parent;
	node->mode = st->mode;
	node->uid = st->uid;
	node->gid = st->gid;
	return node;
}

static int walk_dir(struct walk *w, struct node *dir);

/* Returns 1 when the entry vanished while we looked. */
static int walk_entry(struct walk *w, struct node *dir, const char *name,
		      struct node **out)
{
	char *path = path_join(&w->tree->arena, dir->path, name);
	struct fs_stat st;
	struct node *node;
	int ret;

	ret = fs_lstat(w->fs, path, &st);
	if (ret == -ENOENT)
		return 1;
	if (ret) {
		cfs_err(path, "%s", cfs_strerror(ret));
		w->tree->nr_errors++;
		return 1;
	}
	node = walk_new_node(w, dir, path, &st);
	switch (st.kind) {
	case FS_DIR:
		node->kind = NODE_DIR;
		walk_dir(w, node);
		break;
	case FS_LINK:
		node->kind = NODE_LINK;
		ret = fs_readlink(w->fs, path, &w->tree->arena,
				  (char **)&node->target);
		node->err = -ret;
		break;
	case FS_FILE:
		node->kind = NODE_ATTR;
		node->writable = st.mode & 0222;
		if ((w->flags & WALK_RO_VALUES) ||
		    ((w->flags & WALK_VALUES) && node->writable))
			walk_read_attr(w, node);
		break;
	default:
		return 1;
	}
	*out = node;
	return 0;
}

static int walk_dir(struct walk *w, struct node *dir)
{
	char **names;
	size_t nr;
	size_t i;
	int ret;

	ret = fs_list(w->fs, dir->path, &w->tree->arena, &names, &nr);
	if (ret) {
		dir->err = -ret;
		if (ret != -ENOENT) {
			cfs_err(dir->path, "cannot list: %s",
				cfs_strerror(ret));
			w->tree->nr_errors++;
		}
		return ret;
	}
	qsort(names, nr, sizeof(*names), walk_cmp_name);
	dir->kids = arena_alloc(&w->tree->arena,
				(nr ? nr : 1) * sizeof(*dir->kids));
	for (i = 0; i < nr; i++) {
		struct node *kid;

		if (!walk_entry(w, dir, names[i], &kid))
			dir->kids[dir->nr_kids++] = kid;
	}
	return 0;
}

/*
 * Reads the subtree at @path into @tree. Problems are reported as they are
 * met and counted in tree->nr_errors. Returns -errno when @path itself
 * cannot be read.
 */
int walk_tree(struct fs *fs, const char *path, unsigned int flags,
	      struct tree *tree)
{
	struct walk w = {
		.fs = fs,
		.tree = tree,
		.flags = flags,
	};
	struct fs_stat st;
	struct node *top;
	int ret;

	memset(tree, 0, sizeof(*tree));
	ret = fs_lstat(fs, path, &st);
	if (ret)
		return ret;
	w.buf = xmalloc(CFS_VALUE_MAX + 1);
	top = walk_new_node(&w, NULL, arena_strdup(&tree->arena, path), &st);
	tree->top = top;
	switch (st.kind) {
	case FS_DIR:
		top->kind = NODE_DIR;
		walk_dir(&w, top);
		break;
	case FS_LINK:
		top->kind = NODE_LINK;
		ret = fs_readlink(fs, path, &tree->arena,
				  (char **)&top->target);
		top->err = -ret;
		ret = 0;
		break;
	case FS_FILE:
		top->kind = NODE_ATTR;
		top->writable = st.mode & 0222;
		if (flags & (WALK_VALUES | WALK_RO_VALUES))
			walk_read_attr(&w, top);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	free(w.buf);
	return ret;
}

static struct node *tree_find_kid(struct node *dir, const char *name,
				  size_t len)
{
	size_t lo = 0;
	size_t hi = dir->nr_kids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *kid = dir->kids[mid]->name;
		int cmp = strncmp(kid, name, len);

		if (!cmp && kid[len])
			cmp = 1;
		if (!cmp)
			return dir->kids[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Finds @path, relative to the root, in a tree walked from any level. */
struct node *tree_find(struct tree *tree, const char *path)
{
	struct node *node = tree->top;
	const char *p;

	if (!node || !path_is_under(path, node->path))
		return NULL;
	p = path + strlen(node->path);
	while (node && *p) {
		const char *end;

		if (*p == '/')
			p++;
		end = strchrnul(p, '/');
		node = tree_find_kid(node, p, end - p);
		p = end;
	}
	return node;
}

/* A directory with no attributes in it, made by configfs or by mkdir. */
static bool walk_is_bare_dir(const struct node *node)
{
	size_t i;

	if (!node || node->kind != NODE_DIR)
		return false;
	for (i = 0; i < node->nr_kids; i++)
		if (node->kids[i]->kind == NODE_ATTR)
			return false;
	return true;
}

/*
 * A committable group shows two directories configfs made, pending/ and
 * live/, with no attributes in them. Nothing else tells it apart (rmdir
 * of either would fail, but trying it destroys an empty directory a user
 * made), so the shape decides.
 */
bool walk_is_committable(const struct node *dir)
{
	if (!dir || dir->kind != NODE_DIR)
		return false;
	return walk_is_bare_dir(tree_find_kid((struct node *)dir, "pending",
					      7)) &&
	       walk_is_bare_dir(tree_find_kid((struct node *)dir, "live", 4));
}

/* An item committed into its group's live/. */
bool walk_is_live_item(const struct node *node)
{
	const struct node *live = node->parent;

	return node->kind == NODE_DIR && live && !strcmp(live->name, "live") &&
	       walk_is_committable(live->parent);
}

void tree_free(struct tree *tree)
{
	arena_free(&tree->arena);
	tree->top = NULL;
}

/*
 * configfs creates directories 0755, attributes with their ca_mode (0644,
 * 0444 or 0200 from the kernel's CONFIGFS_ATTR macros) and owns everything
 * by root. Anything else was set by someone, and is worth saving.
 */
bool walk_mode_is_default(const struct node *node)
{
	switch (node->kind) {
	case NODE_DIR:
		return node->mode == 0755;
	case NODE_ATTR:
		return node->mode == 0644 || node->mode == 0444 ||
		       node->mode == 0200;
	case NODE_LINK:
		break;
	}
	return true;
}
