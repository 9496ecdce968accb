// SPDX-License-Identifier: GPL-2.0
/*
 * configfs diff: what restore would change, in the file's order, then
 * what the tree has that the file does not.
 */
#include <getopt.h>

#include "configfs.h"

static void diff_usage(FILE *out)
{
	cfs_usage_line(out, "diff FILE [PATH]");
	fputs("Show how the tree differs from FILE, under PATH only if given:\n"
	      "'+' lines restore would apply, '-' lines the values they\n"
	      "replace, '!' lines it could not apply; then, as '-' lines, the\n"
	      "directories and links the tree has and FILE does not (what\n"
	      "restore --prune removes). Exit status 0: no difference,\n"
	      "1: differences, 3: the tree could not be read whole.\n"
	      "  --show-secrets  secret values (keys, passwords) too\n",
	      out);
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "show-secrets", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct script script;
	struct arena arena = { 0 };
	const char *file;
	char *under = NULL;
	struct plan plan;
	struct fs fs;
	int ret;
	int nr;
	int c;

	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'S':
			cfs_opts.show_secrets = true;
			break;
		case 'h':
			diff_usage(stdout);
			return CFS_EXIT_OK;
		default:
			diff_usage(stderr);
			return CFS_EXIT_USAGE;
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		diff_usage(stderr);
		return CFS_EXIT_USAGE;
	}
	file = argv[optind];
	ret = plan_load(&plan, &script, file);
	if (ret)
		goto out_plan;
	if (fs_open_cmd(&fs)) {
		ret = CFS_EXIT_SYSTEM;
		goto out_plan;
	}
	if (argc - optind == 2 &&
	    fs_user_path(&fs, argv[optind + 1], &arena, &under)) {
		ret = CFS_EXIT_USAGE;
		goto out_fs;
	}
	nr = module_describe(&fs, &script, stdout);
	ret = apply_describe(&plan, &fs, under, APPLY_BY_LINE | APPLY_EXTRAS,
			     stdout, NULL);
	ret = ret < 0 ? CFS_EXIT_SYSTEM : ret || nr ? CFS_EXIT_FAIL :
	      CFS_EXIT_OK;
out_fs:
	arena_free(&arena);
	fs_close(&fs);
out_plan:
	plan_free(&plan);
	script_free(&script);
	return ret;
}
