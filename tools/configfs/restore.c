// SPDX-License-Identifier: GPL-2.0
/*
 * configfs restore: applies a saved file to the tree. The file is read and
 * checked whole first; a bad line stops everything before any change.
 * With --prune, what the file does not have is removed first.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "configfs.h"

static void restore_usage(FILE *out)
{
	cfs_usage_line(out, "restore [-n] [-v] [--prune] FILE");
	fputs("Recreate what FILE describes; FILE \"-\" is standard input.\n"
	      "  -n, --dry-run  show what would change, in the order restore\n"
	      "                 would first try it, and change nothing\n"
	      "  -v, --verbose  print each change as it is made\n"
	      "  --prune        first remove the directories and links that\n"
	      "                 the tree has under FILE's directories and\n"
	      "                 FILE does not (see configfs diff)\n"
	      "  --if-exists    no FILE is no error: nothing to restore (at\n"
	      "                 boot, before anything was saved)\n",
	      out);
}

/*
 * Removes what the tree has and the file does not, before anything is
 * applied: a name the file gives an item may be taken by another now.
 * Returns the number of problems, reported.
 */
static int restore_prune(struct plan *plan, struct fs *fs, bool verbose)
{
	struct extras x;
	int ret;

	ret = extras_find(&x, plan, fs, NULL);
	if (ret)
		cfs_err(NULL, "--prune: the tree could not be read whole; nothing removed");
	else
		ret = prune_extras(&x, fs, verbose);
	extras_free(&x);
	return ret ? 1 : 0;
}

int cmd_restore(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "prune", no_argument, NULL, 'p' },
		{ "if-exists", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct script script;
	unsigned int flags = 0;
	bool dry_run = false;
	bool prune = false;
	bool if_exists = false;
	int nr_pruned = 0;
	int nr_modules;
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
		case 'p':
			prune = true;
			break;
		case 'e':
			if_exists = true;
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
	if (if_exists && strcmp(file, "-") && access(file, F_OK) &&
	    errno == ENOENT) {
		if (flags & APPLY_VERBOSE)
			printf("# %s: no such file, nothing to restore\n", file);
		return CFS_EXIT_OK;
	}
	ret = plan_load(&plan, &script, file);
	if (ret)
		goto out;
	if (fs_open_cmd(&fs)) {
		ret = CFS_EXIT_SYSTEM;
		goto out;
	}
	if (dry_run) {
		module_describe(&fs, &script, stdout);
		ret = apply_describe(&plan, &fs, NULL,
				     prune ? APPLY_EXTRAS : 0, stdout);
		ret = ret < 0 ? CFS_EXIT_SYSTEM : CFS_EXIT_OK;
		goto out_fs;
	}
	/* A module that fails shows again as the directories it did not make. */
	nr_modules = module_load(&fs, &script, flags & APPLY_VERBOSE);
	if (prune)
		nr_pruned = restore_prune(&plan, &fs, flags & APPLY_VERBOSE);
	ret = apply_plan(&plan, &fs, file, flags);
	if (ret)
		cfs_err(file, "%d of %zu statements not applied", ret,
			plan.nr_ops);
	ret = ret || nr_pruned || nr_modules ? CFS_EXIT_FAIL : CFS_EXIT_OK;
out_fs:
	fs_close(&fs);
out:
	plan_free(&plan);
	script_free(&script);
	return ret;
}
