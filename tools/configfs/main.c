// SPDX-License-Identifier: GPL-2.0
/*
 * configfs: inspect, save, restore, tear down and watch configfs trees.
 * The table of subcommands; each lives in the file of its name.
 */
#include <getopt.h>
#include <string.h>

#include "configfs.h"

#define CFS_VERSION	"0.1"

struct cfs_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cfs_cmd cfs_cmds[] = {
	{ "tree", cmd_tree, "show a tree with its values" },
	{ "save", cmd_save, "write a tree as a file restore applies" },
	{ "restore", cmd_restore, "recreate a tree from a saved file" },
	{ "diff", cmd_diff, "show how the tree and a saved file differ" },
	{ "rm", cmd_rm, "remove links and directories in configfs order" },
	{ "why", cmd_why, "show why the last write, mkdir or link failed" },
	{ "watch", cmd_watch, "print changes as they happen" },
};

static void cfs_usage(FILE *out)
{
	size_t i;

	cfs_usage_line(out, "[-R DIR] [--show-secrets] COMMAND [ARGS]");
	fputs("  -R, --root DIR  the configfs mount (default: $CONFIGFS_ROOT,\n"
	      "                  else " CFS_DEFAULT_ROOT ")\n"
	      "  --show-secrets  print secret values (keys, passwords) that\n"
	      "                  tree, diff, restore and watch hide\n"
	      "  -h, --help      this text; COMMAND --help for a command's\n"
	      "  -V, --version   the version\n"
	      "Commands:\n", out);
	for (i = 0; i < ARRAY_SIZE(cfs_cmds); i++)
		fprintf(out, "  %-8s %s\n", cfs_cmds[i].name, cfs_cmds[i].help);
	fputs("See configfs(8).\n", out);
}

static const struct cfs_cmd *cfs_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cfs_cmds); i++)
		if (!strcmp(name, cfs_cmds[i].name))
			return &cfs_cmds[i];
	return NULL;
}

static int cfs_finish(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		cfs_err(NULL, "standard output: write error");
		return CFS_EXIT_SYSTEM;
	}
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'R' },
		{ "show-secrets", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cfs_cmd *cmd;
	int c;

	/* Messages name the program as it was called. */
	if (argc > 0 && argv[0][0])
		cfs_opts.prog = path_base(argv[0]);
	while ((c = getopt_long(argc, argv, "+R:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'R':
			cfs_opts.root = optarg;
			break;
		case 'S':
			cfs_opts.show_secrets = true;
			break;
		case 'h':
			cfs_usage(stdout);
			return cfs_finish(CFS_EXIT_OK);
		case 'V':
			printf("%s " CFS_VERSION "\n", cfs_opts.prog);
			return cfs_finish(CFS_EXIT_OK);
		default:
			cfs_usage(stderr);
			return CFS_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		cfs_usage(stderr);
		return CFS_EXIT_USAGE;
	}
	cmd = cfs_find(argv[optind]);
	if (cmd) {
		int sub_argc = argc - optind;
		char **sub_argv = argv + optind;

		optind = 1;
		return cfs_finish(cmd->fn(sub_argc, sub_argv));
	}
	if (!strcmp(argv[optind], "help") && optind + 1 < argc) {
		char **sub_argv = argv + optind;

		/* "help CMD" is "CMD --help". */
		cmd = cfs_find(sub_argv[1]);
		if (!cmd) {
			cfs_err(sub_argv[1], "unknown command; see %s --help",
				cfs_opts.prog);
			return CFS_EXIT_USAGE;
		}
		sub_argv[0] = sub_argv[1];
		sub_argv[1] = "--help";
		optind = 1;
		return cfs_finish(cmd->fn(2, sub_argv));
	}
	if (!strcmp(argv[optind], "help")) {
		cfs_usage(stdout);
		return cfs_finish(CFS_EXIT_OK);
	}
	cfs_err(argv[optind], "unknown command; see %s --help", cfs_opts.prog);
	return CFS_EXIT_USAGE;
}
