// SPDX-License-Identifier: GPL-2.0
/*
 * Client modules: which a save records, and loading them before restore.
 *
 * configfs does not say which module made which directory, so a save
 * records every loaded module that uses configfs, directly or through
 * another (nvmet, and nvmet_tcp, which uses nvmet): the holders of the
 * configfs module in /sys/module, and theirs, in name order. restore
 * runs modprobe for each that is not loaded, before anything else, as
 * targetcli and nvmetcli load their fabrics.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "configfs.h"

#define MODULE_SYS_DIR		"/sys/module"

/* Where loaded modules are listed; NULL on a stand-in root. */
static const char *module_dir(struct fs *fs)
{
	if (cfs_opts.modules)
		return cfs_opts.modules;
	return fs->simulate ? NULL : MODULE_SYS_DIR;
}

static int module_cmp(const void *a, const void *b)
{
	const char *const *x = a;
	const char *const *y = b;

	return strcmp(*x, *y);
}

static bool module_listed(char **names, size_t nr, const char *name)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/*
 * Writes a "module" statement for each loaded module that holds the
 * configfs module, directly or not. Returns the number written.
 */
int module_save(struct fs *fs, FILE *out)
{
	const char *dir = module_dir(fs);
	struct arena arena = { 0 };
	char **names = NULL;
	size_t cap = 0;
	size_t nr = 0;
	size_t next;

	if (!dir)
		return 0;
	/* names[] grows as a queue: each entry's holders are appended. */
	for (next = 0; next <= nr; next++) {
		const char *holder = next ? names[next - 1] : "configfs";
		char *path = arena_printf(&arena, "%s/%s/holders", dir, holder);
		struct dirent *de;
		DIR *d;

		/* No holders directory: built in, or held by none. */
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.' ||
			    module_listed(names, nr, de->d_name))
				continue;
			if (nr == cap) {
				cap = cap ? cap * 2 : 16;
				names = xrealloc_array(names, cap,
						       sizeof(*names));
			}
			names[nr++] = arena_strdup(&arena, de->d_name);
		}
		closedir(d);
	}
	if (nr)
		qsort(names, nr, sizeof(*names), module_cmp);
	for (next = 0; next < nr; next++) {
		struct stmt st = { .kind = STMT_MODULE, .path = names[next] };

		format_print_stmt(out, "", &st);
	}
	free(names);
	arena_free(&arena);
	return nr;
}

bool module_loaded(struct fs *fs, const char *name)
{
	const char *dir = module_dir(fs);
	struct arena arena = { 0 };
	struct stat sb;
	bool loaded;

	if (!dir)
		return true;
	loaded = !stat(arena_printf(&arena, "%s/%s", dir, name), &sb);
	arena_free(&arena);
	return loaded;
}

/*
 * Prints "+module NAME" for each module @script names that is not
 * loaded; returns how many.
 */
int module_describe(struct fs *fs, const struct script *script, FILE *out)
{
	int nr = 0;
	size_t i;

	for (i = 0; i < script->nr_stmts; i++) {
		const struct stmt *st = &script->stmts[i];

		if (st->kind != STMT_MODULE || module_loaded(fs, st->path))
			continue;
		format_print_stmt(out, "+", st);
		nr++;
	}
	return nr;
}

static int module_probe(const char *prog, const char *name)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		execlp(prog, prog, "-q", name, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * Loads the modules @script names that are not loaded. Returns the
 * number that could not be loaded, each reported.
 */
int module_load(struct fs *fs, const struct script *script, bool verbose)
{
	const char *prog = cfs_opts.modprobe ? cfs_opts.modprobe : "modprobe";
	int nr_failed = 0;
	size_t i;

	if (!module_dir(fs))
		return 0;
	for (i = 0; i < script->nr_stmts; i++) {
		const struct stmt *st = &script->stmts[i];
		int ret;

		if (st->kind != STMT_MODULE || module_loaded(fs, st->path))
			continue;
		ret = module_probe(prog, st->path);
		if (verbose && !ret)
			format_print_stmt(stdout, "", st);
		if (!ret)
			continue;
		if (ret < 0)
			cfs_err(st->path, "cannot run %s: %s", prog,
				cfs_strerror(ret));
		else
			cfs_err(st->path, "%s failed (exit status %d)", prog,
				ret);
		nr_failed++;
	}
	return nr_failed;
}
