/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An in-memory model of configfs behind struct fs_ops, with hooks through
 * which a test plays a client: populate new directories with attributes
 * and default groups, refuse stores, links and rmdirs as real clients do.
 */
#ifndef _FAKE_H
#define _FAKE_H

#include "configfs.h"

struct fake;

struct fake_hooks {
	/* After mkdir of @path: add attributes and default groups. */
	int (*mkdir)(struct fake *fake, const char *path);
	/*
	 * Before a store: 0 takes the value, -errno refuses it, FAKE_ZERO
	 * returns 0 from write(2), FAKE_TAKEN: the hook stored it itself.
	 */
	int (*store)(struct fake *fake, const char *path, const char *value);
	int (*link)(struct fake *fake, const char *path, const char *target);
	int (*unlink)(struct fake *fake, const char *path);
	int (*rmdir)(struct fake *fake, const char *path);
};

#define FAKE_ZERO	1
#define FAKE_TAKEN	2

struct fake {
	struct fs fs;
	struct fake_node *root;
	struct fake_node **hash;	/* by path */
	const struct fake_hooks *hooks;
	char *log;		/* one line per change made */
	size_t log_len;
	unsigned long nr_stores;
	bool no_records;	/* as stock: getxattr fails EOPNOTSUPP */
	void *priv;
};

void fake_init(struct fake *fake, const struct fake_hooks *hooks);
void fake_free(struct fake *fake);
/* Build the tree as the kernel would, bypassing the hooks. */
void fake_dir(struct fake *fake, const char *path, bool is_default);
void fake_attr(struct fake *fake, const char *path, mode_t mode,
	       const char *value);
/* The value shown, without its newline; NULL if there is none. */
const char *fake_value(struct fake *fake, const char *path);
void fake_set(struct fake *fake, const char *path, const char *value);
/* Sets (NULL: clears) the error record that @path shows. */
void fake_record(struct fake *fake, const char *path, const char *record);
bool fake_exists(struct fake *fake, const char *path);
int fake_nr_links_to(struct fake *fake, const char *dir);
int fake_nr_links_in(struct fake *fake, const char *dir);
/* Position of @line in the log, or -1. */
long fake_log_pos(struct fake *fake, const char *line);
char *fake_save(struct fake *fake, const char *path);
int fake_restore_text(struct fake *fake, const char *text);

#endif /* _FAKE_H */
