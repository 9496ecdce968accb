// SPDX-License-Identifier: GPL-2.0
/*
 * "udc PATH": a USB gadget bound to any free USB device controller of the
 * machine it is restored on, for saves made with save --portable.
 *
 * The controllers are the entries of /sys/class/udc; one is free when its
 * "function" attribute, the name of the gadget bound to it, is empty.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "configfs.h"

#define UDC_CLASS_DIR		"/sys/class/udc"

static bool udc_is_free(struct arena *arena, const char *dir,
			const char *name)
{
	char *text;
	size_t len;
	bool is_free;

	/* No function attribute (kernels before 4.13): taken as free. */
	if (read_whole_file(arena_printf(arena, "%s/%s/function", dir, name),
			    &text, &len))
		return true;
	is_free = !len || (len == 1 && text[0] == '\n');
	free(text);
	return is_free;
}

/*
 * Picks the first free controller in name order, into @name (in @arena).
 * Returns 0, or -ENODEV when there is none.
 */
int udc_pick(struct arena *arena, char **name)
{
	const char *dir = cfs_opts.udc_class ? cfs_opts.udc_class :
			  UDC_CLASS_DIR;
	struct dirent *de;
	char *best = NULL;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -ENODEV;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (best && strcmp(de->d_name, best) >= 0) ||
		    !udc_is_free(arena, dir, de->d_name))
			continue;
		best = arena_strdup(arena, de->d_name);
	}
	closedir(d);
	if (!best)
		return -ENODEV;
	*name = best;
	return 0;
}
