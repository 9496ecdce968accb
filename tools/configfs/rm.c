// SPDX-License-Identifier: GPL-2.0
/*
 * configfs rm: removes links and directories the way configfs needs.
 *
 * For a subtree: first every link into it or inside it, in the reverse of
 * the order restore would make them (a link that depends on another goes
 * first); then its directories, children before parents. rmdir of a
 * default group (or of a subsystem's root) fails with EPERM: such a
 * directory is left to go with its parent. Any other refusal (EBUSY from
 * a depended item, ...) stops the removal there and is reported; what was
 * removed before it left the tree in a state configfs allows.
 *
 * An item committed into a committable group's live/ refuses rmdir with
 * EBUSY: it is un-committed first (renamed back into pending/, after the
 * links into it are gone) and removed from there.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "configfs.h"

struct rm {
	struct fs *fs;
	struct tree tree;	/* the whole mount, without values */
	struct script links;	/* every dir and link, to plan link order */
	struct plan plan;
	bool verbose;
};

static void rm_say(struct rm *rm, const char *verb, const char *path)
{
	if (!rm->verbose)
		return;
	printf("%s ", verb);
	format_put_token(stdout, path, strlen(path));
	putchar('\n');
}

static void rm_script(struct rm *rm, const struct node *node)
{
	struct stmt *st;
	size_t i;

	if (node->kind == NODE_DIR && node->path[0]) {
		st = script_add(&rm->links, STMT_MKDIR, node->path);
		st->line = rm->links.nr_stmts;
	} else if (node->kind == NODE_LINK && !node->err) {
		st = script_add(&rm->links, STMT_LINK, node->path);
		st->arg = node->target;
		st->len = strlen(node->target);
		st->line = rm->links.nr_stmts;
	}
	for (i = 0; i < node->nr_kids; i++)
		rm_script(rm, node->kids[i]);
}

static int rm_unlink(struct rm *rm, const char *path)
{
	int ret = fs_unlink(rm->fs, path);

	if (ret == -ENOENT)
		return 0;
	if (ret) {
		cfs_err(path, "cannot remove link: %s; stopped here",
			cfs_strerror(ret));
		return ret;
	}
	rm_say(rm, "unlink", path);
	return 0;
}

/* Links with no readable target are not in the plan: they go first. */
static int rm_odd_links(struct rm *rm, const struct node *node)
{
	size_t i;
	int ret;

	if (node->kind == NODE_LINK && node->err)
		return rm_unlink(rm, node->path);
	for (i = 0; i < node->nr_kids; i++) {
		ret = rm_odd_links(rm, node->kids[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int rm_links(struct rm *rm, const char *top)
{
	size_t i;
	int ret;

	for (i = rm->plan.nr_ops; i-- > 0;) {
		const struct stmt *st = rm->plan.ops[i]->st;

		if (st->kind != STMT_LINK)
			continue;
		if (!path_is_under(st->path, top) &&
		    !path_is_under(st->arg, top))
			continue;
		ret = rm_unlink(rm, st->path);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Renames the live item @node back into its group's pending/; returns
 * 0 with the path it now has in @path, or -errno, reported.
 */
static int rm_uncommit(struct rm *rm, const struct node *node,
		       const char *live_path, char **path)
{
	const char *group = node->parent->parent->path;
	char *pending;
	int ret;

	pending = arena_printf(&rm->tree.arena, "%s%spending/%s", group,
			       group[0] ? "/" : "", node->name);
	ret = fs_rename(rm->fs, live_path, pending);
	if (ret) {
		cfs_err(live_path, "cannot un-commit (rename to %s): %s; stopped here",
			pending, cfs_strerror(ret));
		if (fs_record(rm->fs))
			record_print(stderr, "  ", fs_record(rm->fs),
				     strlen(fs_record(rm->fs)));
		return ret;
	}
	rm_say(rm, "uncommit", live_path);
	*path = pending;
	return 0;
}

/* Removes the directory @dir, which is at @path now, with what it holds. */
static int rm_dirs(struct rm *rm, const struct node *dir, char *path,
		   bool top)
{
	bool committable = walk_is_committable(dir);
	size_t i;
	int pass;
	int ret;

	if (walk_is_live_item(dir)) {
		ret = rm_uncommit(rm, dir, path, &path);
		if (ret)
			return ret;
	}
	/*
	 * A committable group's live items go back to pending/ first, so
	 * pending/ must still be there (on a stand-in root, rmdir takes it).
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = dir->nr_kids; i-- > 0;) {
			const struct node *kid = dir->kids[i];

			if (kid->kind != NODE_DIR ||
			    (committable && !strcmp(kid->name, "live")) != !pass)
				continue;
			ret = rm_dirs(rm, kid, path_join(&rm->tree.arena, path,
							 kid->name), false);
			if (ret)
				return ret;
		}
	}
	if (!path[0])
		return 0;
	ret = fs_rmdir(rm->fs, path);
	if (!ret) {
		rm_say(rm, "rmdir", path);
		return 0;
	}
	if (ret == -ENOENT)
		return 0;
	if (ret == -EPERM) {
		if (top)
			cfs_err(path,
				"a default group or subsystem root: emptied, stays");
		return 0;
	}
	if (ret == -ENOTEMPTY && rm->fs->simulate)
		cfs_err(path, "holds files: a stand-in root's files are never removed; stopped here");
	else
		cfs_err(path, "cannot remove: %s; stopped here",
			cfs_strerror(ret));
	return ret;
}

/*
 * rm without -r of a live item: un-commit, rmdir, and commit again if
 * rmdir refuses (it holds something), so that a refusal changes nothing.
 */
static int rm_live_item(struct rm *rm, const struct node *node)
{
	char *path;
	int ret;

	ret = rm_uncommit(rm, node, node->path, &path);
	if (ret)
		return ret;
	ret = fs_rmdir(rm->fs, path);
	if (!ret) {
		rm_say(rm, "rmdir", path);
		return 0;
	}
	cfs_err(node->path, "cannot remove: %s%s", cfs_strerror(ret),
		ret == -ENOTEMPTY ? " (use rm -r)" : "");
	if (fs_rename(rm->fs, path, node->path))
		cfs_err(path, "left un-committed: committing it again failed");
	else
		rm_say(rm, "commit", node->path);
	return ret;
}

static int rm_one(struct rm *rm, const char *path, bool recursive)
{
	struct node *node = tree_find(&rm->tree, path);
	int ret;

	if (!node) {
		cfs_err(path, "%s", cfs_strerror(ENOENT));
		return -ENOENT;
	}
	switch (node->kind) {
	case NODE_LINK:
		return rm_unlink(rm, path);
	case NODE_ATTR:
		cfs_err(path, "an attribute: it goes with its directory");
		return -EISDIR;
	case NODE_DIR:
		break;
	}
	if (!recursive && walk_is_live_item(node))
		return rm_live_item(rm, node);
	if (!recursive) {
		ret = fs_rmdir(rm->fs, path);
		if (ret)
			cfs_err(path, "cannot remove: %s%s", cfs_strerror(ret),
				ret == -ENOTEMPTY ? " (use rm -r)" : "");
		else
			rm_say(rm, "rmdir", path);
		return ret;
	}
	ret = rm_odd_links(rm, node);
	if (!ret)
		ret = rm_links(rm, path);
	if (!ret)
		ret = rm_dirs(rm, node, (char *)node->path, true);
	return ret;
}

/*
 * Removes each of @paths (relative to the root), stopping at the first
 * refusal. Returns 0 or the -errno that stopped it.
 */
int rm_paths(struct fs *fs, char **paths, int nr_paths, bool recursive,
	     bool verbose)
{
	struct rm rm = { .fs = fs, .verbose = verbose };
	int ret;
	int i;

	ret = walk_tree(fs, "", 0, &rm.tree);
	if (ret) {
		cfs_err("", "%s", cfs_strerror(ret));
		return ret;
	}
	rm_script(&rm, rm.tree.top);
	ret = plan_build(&rm.plan, &rm.links, "(tree)");
	for (i = 0; !ret && i < nr_paths; i++)
		ret = rm_one(&rm, paths[i], recursive);
	plan_free(&rm.plan);
	script_free(&rm.links);
	tree_free(&rm.tree);
	return ret;
}

static void rm_usage(FILE *out)
{
	cfs_usage_line(out, "rm [-r] [-v] PATH...");
	fprintf(out, "       %s rm --all [-v]\n", cfs_opts.prog);
	fputs("Remove links and directories. With -r, a whole subtree: links\n"
	      "into and inside it, then its directories, children first;\n"
	      "default groups go with their parents. A relative PATH is from\n"
	      "the current directory when that is in the tree, else from the\n"
	      "root.\n"
	      "  -r, --recursive  remove subtrees\n"
	      "  --all            remove the whole tree, every subsystem's\n"
	      "                   items (the root is refused without it)\n"
	      "  -v, --verbose    print each removal\n",
	      out);
}

/*
 * As POSIX rm(1): an operand whose last component is "." or "..", or an
 * empty one, is refused, wherever it is; inside the tree "." would be the
 * current directory's whole subtree.
 */
static bool rm_is_dot_or_empty(const char *arg)
{
	size_t len = strlen(arg);
	size_t start;

	while (len > 1 && arg[len - 1] == '/')
		len--;
	start = len;
	while (start && arg[start - 1] != '/')
		start--;
	len -= start;
	return !arg[0] || (len == 1 && arg[start] == '.') ||
	       (len == 2 && arg[start] == '.' && arg[start + 1] == '.');
}

int cmd_rm(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "recursive", no_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct arena arena = { 0 };
	bool recursive = false;
	bool all = false;
	bool verbose = false;
	char **paths;
	struct fs fs;
	int nr;
	int ret;
	int c;
	int i;

	while ((c = getopt_long(argc, argv, "+rRvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
		case 'R':
			recursive = true;
			break;
		case 'a':
			all = true;
			recursive = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			rm_usage(stdout);
			return CFS_EXIT_OK;
		default:
			rm_usage(stderr);
			return CFS_EXIT_USAGE;
		}
	}
	nr = argc - optind;
	if ((nr < 1 && !all) || (nr > 0 && all)) {
		rm_usage(stderr);
		return CFS_EXIT_USAGE;
	}
	if (fs_open_cmd(&fs))
		return CFS_EXIT_SYSTEM;
	if (all) {
		paths = xmalloc(sizeof(*paths));
		paths[0] = "";
		nr = 1;
	} else {
		paths = xmalloc(nr * sizeof(*paths));
	}
	for (i = 0; !all && i < nr; i++) {
		if (rm_is_dot_or_empty(argv[optind + i])) {
			cfs_err(argv[optind + i],
				"\".\", \"..\" and an empty path are refused, as by rm(1)");
			ret = CFS_EXIT_USAGE;
			goto out;
		}
		if (fs_user_path(&fs, argv[optind + i], &arena, &paths[i])) {
			ret = CFS_EXIT_USAGE;
			goto out;
		}
		/*
		 * The mount itself would take down every subsystem's
		 * configuration at once: only on request.
		 */
		if (!paths[i][0]) {
			cfs_err(argv[optind + i],
				"the configfs root: every subsystem's tree would go; use rm --all for that");
			ret = CFS_EXIT_USAGE;
			goto out;
		}
	}
	ret = rm_paths(&fs, paths, nr, recursive, verbose) ?
	      CFS_EXIT_FAIL : CFS_EXIT_OK;
out:
	free(paths);
	arena_free(&arena);
	fs_close(&fs);
	return ret;
}
