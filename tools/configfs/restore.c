// SPDX-License-Identifier: GPL-2.0
/*
 * configfs restore: applies a saved file to the tree. The file is read and
 * checked whole first; a bad line stops everything before any change.
 */
#include <getopt.h>

#include "configfs.h"

static void restore_usage(FILE *out)
{
	fputs("usage: configfs restore [-n] [-v] FILE\n"
	      "Recreate what FILE describes; FILE \"-\" is standard input.\n"
	      "  -n, --dry-run  show what would change, in the order restore\n"
	      "                 would first try it, and change nothing\n"
	      "  -v, --verbose  print each change as it is made\n",
	      out);
}

int cmd_restore(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct script script;
	unsigned int flags = 0;
	bool dry_run = false;
	struct plan plan;
	const char *file;
	struct fs fs;
	int ret;
	int c;

	while ((c = getopt_long(argc, argv, "+nvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			dry_run = true;
			break;
		case 'v':
			flags |= APPLY_VERBOSE;
			break;
		case 'h':
			restore_usage(stdout);
			return CFS_EXIT_OK;
		default:
			restore_usage(stderr);
			return CFS_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		restore_usage(stderr);
		return CFS_EXIT_USAGE;
	}
	file = argv[optind];
	ret = plan_load(&plan, &script, file);
	if (ret)
		goto out;
	if (fs_open_cmd(&fs)) {
		ret = CFS_EXIT_SYSTEM;
		goto out;
	}
	if (dry_run) {
		apply_describe(&plan, &fs, NULL, 0, stdout);
		ret = CFS_EXIT_OK;
	} else {
		ret = apply_plan(&plan, &fs, file, flags);
		if (ret)
			cfs_err(file, "%d of %zu statements not applied", ret,
				plan.nr_ops);
		ret = ret ? CFS_EXIT_FAIL : CFS_EXIT_OK;
	}
	fs_close(&fs);
out:
	plan_free(&plan);
	script_free(&script);
	return ret;
}
