// SPDX-License-Identifier: GPL-2.0
/*
 * configfs restore: applies a saved file to the tree. The file is read and
 * checked whole first; a bad line stops everything before any change.
 * With --prune, what the file does not have is removed first.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configfs.h"

static void restore_usage(FILE *out)
{
	cfs_usage_line(out,
		       "restore [-n] [-v] [--prune] [--if-exists] FILE [PATH...]");
	fputs("Recreate what FILE describes, or only the subtrees PATH...\n"
	      "(with the directories above them); FILE \"-\" is standard\n"
	      "input.\n"
	      "  -n, --dry-run  show what would change, in the order restore\n"
	      "                 would first try it, and change nothing\n"
	      "  -v, --verbose  print each change as it is made\n"
	      "  --prune        first remove the directories and links that\n"
	      "                 the tree has under FILE's directories (or\n"
	      "                 the PATHs) and FILE does not (configfs diff)\n"
	      "  --if-exists    no FILE is no error: nothing to restore (at\n"
	      "                 boot, before anything was saved)\n"
	      "  --show-secrets  secret values (keys, passwords) in what is\n"
	      "                 printed too\n",
	      out);
}

/*
 * Removes what the tree has and the file does not, before anything is
 * applied: a name the file gives an item may be taken by another now.
 * Returns the number of problems, reported.
 */
static int restore_prune(struct plan *plan, struct fs *fs,
			 const char *under, bool verbose)
{
	struct extras x;
	int ret;

	ret = extras_find(&x, plan, fs, under);
	if (ret)
		cfs_err(NULL, "--prune: the tree could not be read whole; nothing removed");
	else
		ret = prune_extras(&x, fs, verbose);
	extras_free(&x);
	return ret ? 1 : 0;
}

/* restore -n --prune: what would be removed, as '-' lines. */
static int restore_describe_extras(struct plan *plan, struct fs *fs,
				   const char *under)
{
	struct extras x;
	size_t i;
	int ret;

	ret = extras_find(&x, plan, fs, under);
	for (i = 0; i < x.nr; i++) {
		struct stmt st = {
			.kind = x.v[i].target ? STMT_LINK : STMT_MKDIR,
			.path = x.v[i].path,
			.arg = x.v[i].target,
			.len = x.v[i].target ? strlen(x.v[i].target) : 0,
		};

		format_print_stmt(stdout, "-", &st);
	}
	extras_free(&x);
	return ret;
}

/*
 * A LIO backstore (target/core/HBA/DEVICE) that the restore will make and
 * enable, with no control for it in the plan: LIO refuses its enable and
 * attributes. configfs-ng 0.1.0 saved no control, so such a file is
 * likely; say what mends it before the kernel's bare EINVAL does.
 */
static void restore_warn_lio_control(const struct plan *plan, struct fs *fs)
{
	struct fs_stat st;
	size_t i, pos;

	for (i = 0; i < plan->nr_ops; i++) {
		const struct op *op = plan->ops[i];
		const struct op *sib;
		const char *dir;

		if (op->st->kind != STMT_SET ||
		    strcmp(path_base(op->st->path), "enable"))
			continue;
		dir = plan_dir_path(op);
		if (!path_is_lio_backstore(dir))
			continue;
		pos = 0;
		while ((sib = plan_sibling_set(op, &pos)) &&
		       strcmp(path_base(sib->st->path), "control"))
			;
		if (!sib && fs_lstat(fs, dir, &st) == -ENOENT)
			cfs_err(dir, "the file sets no control for this backstore, without which LIO refuses its enable; configfs-ng 0.1.0 saved none: save the tree again, or add \"set %s/control VALUE\"",
				dir);
	}
}

int cmd_restore(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "prune", no_argument, NULL, 'p' },
		{ "if-exists", no_argument, NULL, 'e' },
		{ "show-secrets", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct script script;
	unsigned int flags = 0;
	bool dry_run = false;
	bool prune = false;
	bool if_exists = false;
	struct arena arena = { 0 };
	char **paths = NULL;
	int nr_pruned = 0;
	int nr_modules;
	int nr_paths;
	int i;
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
		case 'S':
			cfs_opts.show_secrets = true;
			break;
		case 'h':
			restore_usage(stdout);
			return CFS_EXIT_OK;
		default:
			restore_usage(stderr);
			return CFS_EXIT_USAGE;
		}
	}
	if (argc - optind < 1) {
		restore_usage(stderr);
		return CFS_EXIT_USAGE;
	}
	file = argv[optind];
	if (if_exists && strcmp(file, "-") && access(file, F_OK) &&
	    errno == ENOENT) {
		if (flags & APPLY_VERBOSE) {
			fputs("# ", stdout);
			cfs_put_safe(stdout, file, strlen(file));
			fputs(": no such file, nothing to restore\n", stdout);
		}
		return CFS_EXIT_OK;
	}
	ret = plan_load(&plan, &script, file);
	if (ret)
		goto out;
	if (fs_open_cmd(&fs)) {
		ret = CFS_EXIT_SYSTEM;
		goto out;
	}
	nr_paths = argc - optind - 1;
	paths = xmalloc((nr_paths + 1) * sizeof(*paths));
	for (i = 0; i < nr_paths; i++) {
		if (fs_user_path(&fs, argv[optind + 1 + i], &arena,
				 &paths[i])) {
			ret = CFS_EXIT_USAGE;
			goto out_fs;
		}
	}
	if (nr_paths && plan_restrict(&plan, paths, nr_paths)) {
		ret = CFS_EXIT_USAGE;
		goto out_fs;
	}
	if (module_check(&fs, &script)) {
		cfs_err(file, "refused: nothing applied");
		ret = CFS_EXIT_USAGE;
		goto out_fs;
	}
	restore_warn_lio_control(&plan, &fs);
	/*
	 * A dry run exits as the restore would where it can tell: 1 when a
	 * statement would not apply ('!' lines).
	 */
	if (dry_run) {
		int nr_fails = 0;

		module_describe(&fs, &script, stdout);
		ret = apply_describe(&plan, &fs, NULL,
				     prune ? APPLY_PRUNE : 0, stdout,
				     &nr_fails);
		for (i = 0; prune && i < (nr_paths ? nr_paths : 1); i++)
			ret = restore_describe_extras(&plan, &fs,
						      nr_paths ? paths[i] :
						      NULL) ?: ret;
		ret = ret < 0 ? CFS_EXIT_SYSTEM :
		      nr_fails ? CFS_EXIT_FAIL : CFS_EXIT_OK;
		goto out_fs;
	}
	/* A module that fails shows again as the directories it did not make. */
	nr_modules = module_load(&fs, &script, flags & APPLY_VERBOSE);
	for (i = 0; prune && i < (nr_paths ? nr_paths : 1); i++)
		nr_pruned += restore_prune(&plan, &fs,
					   nr_paths ? paths[i] : NULL,
					   flags & APPLY_VERBOSE);
	ret = apply_plan(&plan, &fs, file, flags);
	if (ret)
		cfs_err(file, "%d of %zu statements not applied", ret,
			plan.nr_ops);
	ret = ret || nr_pruned || nr_modules ? CFS_EXIT_FAIL : CFS_EXIT_OK;
out_fs:
	free(paths);
	arena_free(&arena);
	fs_close(&fs);
out:
	plan_free(&plan);
	script_free(&script);
	return ret;
}
