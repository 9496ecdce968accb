// SPDX-License-Identifier: GPL-2.0
/*
 * What the tree has and a saved file does not: for diff, which shows
 * both sides, and restore --prune, which removes it.
 *
 * Only the part of the tree the file describes is looked at: the
 * directories it makes that no directory it makes holds (a save of
 * nvmet/ports says nothing of nvmet/subsystems or usb_gadget), or the
 * PATH given. There, a directory the file does not name is extra, with
 * all it holds, and so is a link it does not have or has pointing
 * elsewhere. Attributes go with their directory and are never extra.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "configfs.h"

static void extras_add(struct extras *x, const char *path,
		       const char *target, bool elsewhere)
{
	struct extra *e;

	if (x->nr == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 16;
		x->v = xrealloc_array(x->v, x->cap, sizeof(*x->v));
	}
	e = &x->v[x->nr++];
	e->path = arena_strdup(&x->arena, path);
	e->target = target ? arena_strdup(&x->arena, target) : NULL;
	e->elsewhere = elsewhere;
}

/*
 * A pending item of a committable group that the file has live: not
 * extra, but what restore is to commit.
 */
static bool extras_live_in_file(struct extras *x, struct plan *plan,
				const struct node *node)
{
	const struct node *stage = node->parent;
	const char *live;

	if (!stage || strcmp(stage->name, "pending") ||
	    !walk_is_committable(stage->parent))
		return false;
	live = path_join(&x->arena, stage->parent->path, "live");
	live = path_join(&x->arena, live, node->name);
	return plan_has(plan, live, NULL) == PLAN_HAS_DIR;
}

static void extras_visit(struct extras *x, struct plan *plan,
			 const struct node *node)
{
	const char *target = NULL;
	enum plan_has has = plan_has(plan, node->path, &target);
	size_t i;

	switch (node->kind) {
	case NODE_DIR:
		if (has == PLAN_HAS_NONE && extras_live_in_file(x, plan, node))
			return;
		if (has == PLAN_HAS_NONE) {
			extras_add(x, node->path, NULL, false);
			return;
		}
		if (has != PLAN_HAS_DIR)
			return;		/* apply reports it */
		for (i = 0; i < node->nr_kids; i++)
			extras_visit(x, plan, node->kids[i]);
		break;
	case NODE_LINK:
		if (node->err)
			return;
		if (has == PLAN_HAS_NONE)
			extras_add(x, node->path, node->target, false);
		else if (has == PLAN_HAS_LINK && strcmp(target, node->target))
			extras_add(x, node->path, node->target, true);
		break;
	case NODE_ATTR:
		break;
	}
}

static int extras_scope(struct extras *x, struct plan *plan, struct fs *fs,
			const char *top)
{
	struct tree tree;
	int ret;

	ret = walk_tree(fs, top, 0, &tree);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		cfs_err(top, "%s", cfs_strerror(ret));
		return ret;
	}
	extras_visit(x, plan, tree.top);
	ret = tree.nr_errors ? -EIO : 0;
	tree_free(&tree);
	return ret;
}

/*
 * Lists in @x what the tree has under the file's directories (under
 * @under only, if not NULL) and @plan lacks, in tree order. Returns 0, or
 * -errno when part of the tree could not be read (reported).
 */
int extras_find(struct extras *x, struct plan *plan, struct fs *fs,
		const char *under)
{
	bool under_done = false;
	int ret = 0;
	size_t i;

	memset(x, 0, sizeof(*x));
	for (i = 0; i < plan->nr_ops; i++) {
		const struct op *op = plan->ops[i];
		const char *top = op->st->path;

		if (!plan_is_top(op))
			continue;
		if (under && !path_is_under(top, under)) {
			if (!path_is_under(under, top) || under_done)
				continue;
			top = under;
			under_done = true;
		}
		ret = extras_scope(x, plan, fs, top) ?: ret;
	}
	return ret;
}

void extras_free(struct extras *x)
{
	free(x->v);
	x->v = NULL;
	x->nr = 0;
	arena_free(&x->arena);
}

/*
 * Removes what @x lists: its links first, then each directory as rm -r
 * would (links into it, committed items un-committed, children first).
 * Returns 0 or the -errno that stopped it, reported.
 */
int prune_extras(struct extras *x, struct fs *fs, bool verbose)
{
	char **dirs = xmalloc((x->nr + 1) * sizeof(*dirs));
	int nr_dirs = 0;
	int ret = 0;
	size_t i;

	for (i = 0; i < x->nr && !ret; i++) {
		if (!x->v[i].target) {
			dirs[nr_dirs++] = (char *)x->v[i].path;
			continue;
		}
		ret = fs_unlink(fs, x->v[i].path);
		if (ret == -ENOENT)
			ret = 0;
		if (ret) {
			cfs_err(x->v[i].path, "cannot remove link: %s",
				cfs_strerror(ret));
		} else if (verbose) {
			printf("unlink ");
			format_put_token(stdout, x->v[i].path,
					 strlen(x->v[i].path));
			putchar('\n');
		}
	}
	if (!ret && nr_dirs)
		ret = rm_paths(fs, dirs, nr_dirs, true, verbose);
	free(dirs);
	return ret;
}
