// SPDX-License-Identifier: GPL-2.0
/*
 * configfs tree: shows a subtree with values, for people or, with --json,
 * for scripts (one object per entry, in tree order).
 */
#include <getopt.h>
#include <string.h>

#include "configfs.h"

static void tree_marks(FILE *out, const struct node *node)
{
	if (!walk_mode_is_default(node))
		fprintf(out, " [mode %04o]", (unsigned int)node->mode);
	if (node->uid || node->gid)
		fprintf(out, " [owner %lu:%lu]", (unsigned long)node->uid,
			(unsigned long)node->gid);
}

static void tree_print(FILE *out, const struct node *node, int depth)
{
	size_t i;

	fprintf(out, "%*s", depth * 2, "");
	switch (node->kind) {
	case NODE_DIR:
		format_put_token(out, node->name, strlen(node->name));
		fputc('/', out);
		if (node->err)
			fprintf(out, " [cannot list: %s]",
				cfs_strerror(node->err));
		break;
	case NODE_LINK:
		format_put_token(out, node->name, strlen(node->name));
		fputs(" -> ", out);
		if (node->err)
			fprintf(out, "? [%s]", cfs_strerror(node->err));
		else
			format_put_token(out, node->target,
					 strlen(node->target));
		break;
	case NODE_ATTR:
		format_put_token(out, node->name, strlen(node->name));
		switch (node->state) {
		case ATTR_TEXT:
			fputs(" = ", out);
			format_put_value(out, node->path, node->value,
					 node->len);
			break;
		case ATTR_WRITE_ONLY:
			fputs(" [write-only]", out);
			break;
		case ATTR_BINARY:
			fprintf(out, " [binary, %zu bytes]", node->size);
			break;
		case ATTR_UNREADABLE:
			fprintf(out, " [unreadable: %s]",
				cfs_strerror(node->err));
			break;
		case ATTR_NOT_READ:
			break;
		}
		if (!node->writable)
			fputs(" [read-only]", out);
		break;
	}
	tree_marks(out, node);
	fputc('\n', out);
	for (i = 0; i < node->nr_kids; i++)
		tree_print(out, node->kids[i], depth + 1);
}

static void tree_json(FILE *out, const struct node *node, bool *first)
{
	static const char *const kinds[] = {
		[NODE_DIR] = "dir", [NODE_ATTR] = "attr", [NODE_LINK] = "link",
	};
	size_t i;

	fputs(*first ? "\n{" : ",\n{", out);
	*first = false;
	json_member(out, "path", node->path, strlen(node->path));
	fprintf(out, ",\"type\":\"%s\",\"mode\":\"%04o\",\"uid\":%lu,\"gid\":%lu",
		kinds[node->kind], (unsigned int)node->mode,
		(unsigned long)node->uid, (unsigned long)node->gid);
	if (node->kind == NODE_ATTR) {
		fprintf(out, ",\"access\":\"%s\"",
			!node->writable ? "ro" :
			node->state == ATTR_WRITE_ONLY ? "wo" : "rw");
		if (node->state == ATTR_TEXT && cfs_hides(node->path))
			fputs(",\"secret\":true", out);
		else if (node->state == ATTR_TEXT)
			json_field(out, "value", node->value, node->len);
		else if (node->state == ATTR_BINARY)
			fprintf(out, ",\"binary_size\":%zu", node->size);
	}
	if (node->kind == NODE_LINK && !node->err)
		json_field(out, "target", node->target, strlen(node->target));
	if (node->err && !(node->kind == NODE_ATTR &&
			   node->state == ATTR_WRITE_ONLY)) {
		fputs(",\"error\":", out);
		json_string(out, cfs_strerror(node->err),
			    strlen(cfs_strerror(node->err)));
	}
	fputc('}', out);
	for (i = 0; i < node->nr_kids; i++)
		tree_json(out, node->kids[i], first);
}

static void tree_usage(FILE *out)
{
	cfs_usage_line(out, "tree [--json] [PATH]");
	fputs("Show the tree under PATH (default: all) with attribute values.\n"
	      "  -j, --json  one JSON object per entry, for scripts, in\n"
	      "              {\"version\":N,\"entries\":[...]}\n"
	      "  --show-secrets  secret values (keys, passwords) too\n",
	      out);
}

int cmd_tree(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "show-secrets", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct arena arena = { 0 };
	bool json = false;
	char *path = "";
	struct tree tree;
	struct fs fs;
	int ret;
	int c;

	while ((c = getopt_long(argc, argv, "+jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'S':
			cfs_opts.show_secrets = true;
			break;
		case 'h':
			tree_usage(stdout);
			return CFS_EXIT_OK;
		default:
			tree_usage(stderr);
			return CFS_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		tree_usage(stderr);
		return CFS_EXIT_USAGE;
	}
	if (fs_open_cmd(&fs))
		return CFS_EXIT_SYSTEM;
	if (optind < argc && fs_user_path(&fs, argv[optind], &arena, &path)) {
		ret = CFS_EXIT_USAGE;
		goto out;
	}
	ret = walk_tree(&fs, path, WALK_VALUES | WALK_RO_VALUES, &tree);
	if (ret) {
		cfs_err(path, "%s", cfs_strerror(ret));
		ret = CFS_EXIT_FAIL;
		goto out;
	}
	if (json) {
		bool first = true;

		printf("{\"version\":%d,\"entries\":[", CFS_JSON_VERSION);
		tree_json(stdout, tree.top, &first);
		fputs("\n]}\n", stdout);
	} else if (tree.top->kind == NODE_DIR) {
		size_t i;

		char *top = arena_printf(&arena, "%s%s%s", fs.root,
					 path[0] ? "/" : "",
					 path[0] || fs.root[0] ? path : "/");

		cfs_put_safe(stdout, top, strlen(top));
		putchar('\n');
		for (i = 0; i < tree.top->nr_kids; i++)
			tree_print(stdout, tree.top->kids[i], 1);
	} else {
		tree_print(stdout, tree.top, 0);
	}
	ret = tree.nr_errors ? CFS_EXIT_FAIL : CFS_EXIT_OK;
	tree_free(&tree);
out:
	arena_free(&arena);
	fs_close(&fs);
	return ret;
}
