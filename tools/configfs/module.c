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
 *
 * A saved file may come from anywhere, and restore runs as root: it loads
 * only configfs clients, by name. A module line must name a module file of
 * this kernel (modules.dep; an alias is not one) whose dependencies
 * include configfs; a file naming any other is refused whole. modprobe
 * gets the name after "--" and no option that would skip its blacklist
 * or install commands. With configfs built in, modules.dep cannot tell
 * its clients: nothing is loaded, and the file is not refused for it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
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

		format_save_stmt(out, &st);
	}
	free(names);
	arena_free(&arena);
	return nr;
}

/*
 * Is the module @name loaded? /sys/module names it with '_' where its
 * file and modprobe may say '-' ("nvmet-tcp" is loaded as nvmet_tcp).
 */
bool module_loaded(struct fs *fs, const char *name)
{
	const char *dir = module_dir(fs);
	struct arena arena = { 0 };
	struct stat sb;
	char *path, *p;
	bool loaded;

	if (!dir)
		return true;
	path = arena_printf(&arena, "%s/%s", dir, name);
	for (p = path + strlen(dir) + 1; *p; p++)
		if (*p == '-')
			*p = '_';
	loaded = !stat(path, &sb);
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

/* Is @a, a module file's name up to @len bytes, the module @b? '-' is '_'. */
static bool module_same(const char *a, size_t len, const char *b)
{
	size_t i;

	for (i = 0; i < len && b[i]; i++)
		if (a[i] != b[i] && !((a[i] == '-' || a[i] == '_') &&
				      (b[i] == '-' || b[i] == '_')))
			return false;
	return i == len && !b[i];
}

/* The module name of the path at @p ("kernel/fs/x/nvmet-tcp.ko.xz"). */
static const char *module_file_name(const char *p, const char *end,
				    size_t *len)
{
	const char *base = p;
	const char *q;

	for (q = p; q < end; q++)
		if (*q == '/')
			base = q + 1;
	for (q = base; q < end && *q != '.'; q++)
		;
	*len = q - base;
	return base;
}

enum module_client {
	MODULE_CLIENT,
	MODULE_NOT_CLIENT,	/* a module of this kernel, not using configfs */
	MODULE_UNKNOWN,		/* no module file of that name */
};

/*
 * Does the module @name use configfs? modules.dep lists, on the line of
 * each module file, every module it needs, directly or not.
 */
static enum module_client module_client(const char *dep_text, size_t len,
					const char *name)
{
	const char *end = dep_text + len;
	const char *p = dep_text;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *colon;
		const char *file;
		size_t n;

		if (!eol)
			eol = end;
		colon = memchr(p, ':', eol - p);
		if (colon) {
			file = module_file_name(p, colon, &n);
			if (module_same(file, n, name)) {
				for (p = colon + 1; p < eol;) {
					const char *sp = memchr(p, ' ',
								eol - p);

					if (!sp)
						sp = eol;
					file = module_file_name(p, sp, &n);
					if (n && module_same(file, n,
							     "configfs"))
						return MODULE_CLIENT;
					p = sp + 1;
				}
				return MODULE_NOT_CLIENT;
			}
		}
		p = eol + 1;
	}
	return MODULE_UNKNOWN;
}

/* Is configfs a module of this kernel, so that its clients can be told? */
static bool module_configfs_is_module(const char *dep_text, size_t len)
{
	return module_client(dep_text, len, "configfs") != MODULE_UNKNOWN;
}

static char *module_dep_file(void)
{
	struct utsname u;
	char *path;

	if (cfs_opts.modules_dep)
		return strdup(cfs_opts.modules_dep);
	if (uname(&u) ||
	    asprintf(&path, "/lib/modules/%s/modules.dep", u.release) < 0)
		return NULL;
	return path;
}

/*
 * Checks every module line of @script against modules.dep, before
 * anything is loaded or applied. Returns the number of lines naming a
 * module that does not use configfs, each reported: the file is then
 * refused. A name with no module file (an alias, or a module another
 * kernel had) is left to module_load(), which reports it and goes on.
 */
int module_check(struct fs *fs, const struct script *script)
{
	char *dep_file;
	char *text = NULL;
	size_t len = 0;
	int nr_bad = 0;
	size_t i;
	int ret;

	if (!module_dir(fs))
		return 0;
	for (i = 0; i < script->nr_stmts; i++)
		if (script->stmts[i].kind == STMT_MODULE)
			break;
	if (i == script->nr_stmts)
		return 0;
	dep_file = module_dep_file();
	if (!dep_file)
		cfs_out_of_memory();
	ret = read_whole_file(dep_file, &text, &len);
	if (ret) {
		/* None can be loaded: module_load() says so for each. */
		free(dep_file);
		return 0;
	}
	if (!module_configfs_is_module(text, len))
		i = script->nr_stmts;	/* module_load() says why for each */
	for (; i < script->nr_stmts; i++) {
		const struct stmt *st = &script->stmts[i];

		if (st->kind != STMT_MODULE ||
		    module_client(text, len, st->path) != MODULE_NOT_CLIENT)
			continue;
		cfs_err(st->path, "line %u: not a configfs client (%s lists no configfs among its dependencies): refused",
			st->line, dep_file);
		nr_bad++;
	}
	free(text);
	free(dep_file);
	return nr_bad;
}

/* Can @name be loaded? Reports why not. */
static bool module_loadable(const char *name)
{
	char *dep_file = module_dep_file();
	enum module_client client = MODULE_UNKNOWN;
	char *text;
	size_t len;
	int ret;

	if (!dep_file)
		cfs_out_of_memory();
	ret = read_whole_file(dep_file, &text, &len);
	if (ret) {
		cfs_err(name, "not loaded: %s: %s", dep_file,
			cfs_strerror(ret));
	} else if (!module_configfs_is_module(text, len)) {
		free(text);
		cfs_err(name, "not loaded: configfs is built in, so %s cannot tell which modules use it",
			dep_file);
	} else {
		client = module_client(text, len, name);
		free(text);
		if (client == MODULE_UNKNOWN)
			cfs_err(name, "not loaded: no module of that name in %s (an alias, or not this kernel's)",
				dep_file);
		else if (client == MODULE_NOT_CLIENT)
			cfs_err(name, "not loaded: not a configfs client");
	}
	free(dep_file);
	return client == MODULE_CLIENT;
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
		execlp(prog, prog, "-q", "--", name, (char *)NULL);
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
		if (!module_loadable(st->path)) {
			nr_failed++;
			continue;
		}
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
