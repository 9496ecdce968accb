// SPDX-License-Identifier: GPL-2.0
/*
 * configfs why: prints the last error record of an item or a file, the
 * client's own account of why it refused a write, a mkdir or a link
 * (record.c). A name that a refused mkdir or link never made is looked
 * up in the record of its directory.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "configfs.h"

/* The record of the directory of @path, if it reports a mkdir or link of it. */
static int why_not_made(struct fs *fs, const char *path, char **text,
			size_t *len)
{
	const char *base = path_base(path);
	struct record rec;
	char *dir;
	int ret;

	if (base == path && !path[0])
		return -ENOENT;
	dir = strndup(path, base > path ? base - path - 1 : 0);
	if (!dir)
		cfs_out_of_memory();
	ret = fs_error_record(fs, dir, text, len);
	free(dir);
	if (ret)
		return -ENOENT;
	if (!record_parse(*text, *len, &rec) &&
	    (!strcmp(rec.op, "mkdir") || !strcmp(rec.op, "symlink")) &&
	    rec.file_len == strlen(base) && !memcmp(rec.file, base,
						     rec.file_len))
		return 0;
	free(*text);
	return -ENOENT;
}

/*
 * Prints the record of @path (relative to the root; @arg as the user gave
 * it) to @out. Returns the exit status.
 */
int why_path(struct fs *fs, const char *path, const char *arg, FILE *out)
{
	char *text;
	size_t len;
	int ret;

	ret = fs_error_record(fs, path, &text, &len);
	if (ret == -ENOENT)
		ret = why_not_made(fs, path, &text, &len);
	switch (ret) {
	case 0:
		record_print(out, "", text, len);
		free(text);
		return CFS_EXIT_OK;
	case -ENODATA:
		cfs_put_safe(out, arg, strlen(arg));
		fputs(": no error recorded\n", out);
		return CFS_EXIT_FAIL;
	case -EOPNOTSUPP:
		cfs_err(arg,
			"this configfs keeps no error records (stock configfs: they come with configfs-ng)");
		return CFS_EXIT_NO_RECORDS;
	}
	cfs_err(arg, "%s", cfs_strerror(ret));
	return CFS_EXIT_FAIL;
}

static void why_usage(FILE *out)
{
	cfs_usage_line(out, "why PATH");
	fputs("Print the last error the client recorded on an item or a\n"
	      "file: its refusal of a write, a mkdir or a link, with its\n"
	      "reason. For a name a refused mkdir or link did not make, the\n"
	      "record of its directory.\n",
	      out);
}

int cmd_why(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct arena arena = { 0 };
	struct fs fs;
	char *path;
	int ret;
	int c;

	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			why_usage(stdout);
			return CFS_EXIT_OK;
		default:
			why_usage(stderr);
			return CFS_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		why_usage(stderr);
		return CFS_EXIT_USAGE;
	}
	if (fs_open_cmd(&fs))
		return CFS_EXIT_SYSTEM;
	if (fs_user_path(&fs, argv[optind], &arena, &path))
		ret = CFS_EXIT_USAGE;
	else
		ret = why_path(&fs, path, argv[optind], stdout);
	arena_free(&arena);
	fs_close(&fs);
	return ret;
}
