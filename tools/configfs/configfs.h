/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the configfs tool's files, one section per
 * defining file.
 */
#ifndef _CONFIGFS_TOOL_H
#define _CONFIGFS_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define cfs_attribute(x)	__attribute__((x))
#ifndef __printf
#define __printf(a, b)		cfs_attribute(__format__(printf, a, b))
#endif
#define __noreturn		cfs_attribute(__noreturn__)

/* util.c */

#define CFS_EXIT_OK		0
#define CFS_EXIT_FAIL		1
#define CFS_EXIT_USAGE		2
#define CFS_EXIT_SYSTEM		3
#define CFS_EXIT_NO_RECORDS	4	/* why: the configfs keeps none */

#define CFS_DEFAULT_ROOT	"/sys/kernel/config"
/* The longest value saved: a binary attribute's, or a page of text. */
#define CFS_VALUE_MAX		(64 * 1024)

/*
 * The version of what --json prints (configfs.8), raised when a member
 * changes meaning or goes away; new members may come without it.
 */
#define CFS_JSON_VERSION	1

/* Our own error codes, above every errno value. */
#define CFS_EZEROWRITE		4096
#define CFS_ESHORTWRITE		4097
#define CFS_EOUTSIDE		4098

struct cfs_opts {
	const char *root;	/* NULL: $CONFIGFS_ROOT or the default */
	const char *prog;	/* for messages: "configfs" */
	/*
	 * Loaded modules (/sys/module) and the program that loads one
	 * (modprobe). NULL: those, on a configfs root; none on a stand-in
	 * root, whose modules are not the host's. Tests set them.
	 */
	const char *modules;
	const char *modprobe;
	/* NULL: /lib/modules/$(uname -r)/modules.dep. Tests set it. */
	const char *modules_dep;
	const char *udc_class;	/* NULL: /sys/class/udc */
	bool show_secrets;	/* --show-secrets: print secret values */
};

extern struct cfs_opts cfs_opts;

struct arena_chunk;

/* Memory freed all at once; every tree, script and plan lives in one. */
struct arena {
	struct arena_chunk *head;
};

__printf(2, 3) void cfs_err(const char *object, const char *fmt, ...);
void cfs_put_safe(FILE *out, const char *s, size_t len);
bool cfs_is_secret(const char *path);
bool cfs_hides(const char *path);
void cfs_usage_line(FILE *out, const char *rest);
const char *cfs_strerror(int err);
__noreturn void cfs_out_of_memory(void);
void *xmalloc(size_t size);
void *xrealloc_array(void *p, size_t nmemb, size_t size);
void *arena_alloc(struct arena *arena, size_t size);
char *arena_strndup(struct arena *arena, const char *s, size_t len);
char *arena_strdup(struct arena *arena, const char *s);
__printf(2, 3) char *arena_printf(struct arena *arena, const char *fmt, ...);
void arena_free(struct arena *arena);
char *path_join(struct arena *arena, const char *dir, const char *name);
const char *path_base(const char *path);
bool path_is_under(const char *path, const char *top);
bool path_is_host_setting(const char *path);
bool path_is_lio_backstore(const char *dir);
size_t utf8_seq_len(const unsigned char *s, size_t left, unsigned int *cp);
int read_whole_file(const char *file, char **text, size_t *len);
bool json_is_utf8(const char *s, size_t len);
void json_string(FILE *out, const char *s, size_t len);
void json_member(FILE *out, const char *key, const char *s, size_t len);
void json_field(FILE *out, const char *key, const char *s, size_t len);

/* fs.c */

enum fs_kind {
	FS_DIR,
	FS_FILE,
	FS_LINK,
	FS_OTHER,
};

struct fs_stat {
	enum fs_kind kind;
	mode_t mode;		/* permission bits only */
	uid_t uid;
	gid_t gid;
};

/*
 * Every access to the tree goes through these, with paths relative to the
 * root ("" is the root itself). They return 0 or -errno. The tool uses the
 * system calls; host tests plug in a model of configfs.
 */
struct fs_ops {
	int (*lstat)(void *priv, const char *path, struct fs_stat *st);
	int (*list)(void *priv, const char *path, struct arena *arena,
		    char ***names, size_t *nr_names);
	int (*read)(void *priv, const char *path, char *buf, size_t size,
		    size_t *len, size_t *total);
	int (*write)(void *priv, const char *path, const char *buf,
		     size_t len);
	int (*mkdir)(void *priv, const char *path);
	int (*rmdir)(void *priv, const char *path);
	int (*symlink)(void *priv, const char *target, const char *path);
	int (*unlink)(void *priv, const char *path);
	/* NULL: the model has no rename; commits fail with EOPNOTSUPP. */
	int (*rename)(void *priv, const char *from, const char *to);
	int (*readlink)(void *priv, const char *path, struct arena *arena,
			char **target);
	int (*chmod)(void *priv, const char *path, mode_t mode);
	int (*chown)(void *priv, const char *path, uid_t uid, gid_t gid);
	/* The error record of @path (record.c); NULL: there are none. */
	int (*error)(void *priv, const char *path, char *buf, size_t size,
		     size_t *len);
};

struct fs {
	const struct fs_ops *ops;
	void *priv;
	const char *root;	/* for messages */
	size_t value_max;	/* longest text value: the page size */
	bool simulate;		/* not configfs: set creates attributes */
	unsigned long nr_changes;
	char *record;		/* of the last write, mkdir or symlink */
};

int fs_open_sys(struct fs *fs, const char *root, bool stand_in);
void fs_close(struct fs *fs);
int fs_root_fd(struct fs *fs);
int fs_open_cmd(struct fs *fs);
int fs_lstat(struct fs *fs, const char *path, struct fs_stat *st);
int fs_list(struct fs *fs, const char *path, struct arena *arena,
	    char ***names, size_t *nr_names);
int fs_read(struct fs *fs, const char *path, char *buf, size_t size,
	    size_t *len, size_t *total);
int fs_write_value(struct fs *fs, const char *path, const char *value,
		   size_t len);
int fs_mkdir(struct fs *fs, const char *path);
int fs_rmdir(struct fs *fs, const char *path);
int fs_symlink(struct fs *fs, const char *target, const char *path);
int fs_unlink(struct fs *fs, const char *path);
int fs_rename(struct fs *fs, const char *from, const char *to);
int fs_readlink(struct fs *fs, const char *path, struct arena *arena,
		char **target);
int fs_chmod(struct fs *fs, const char *path, mode_t mode);
int fs_chown(struct fs *fs, const char *path, uid_t uid, gid_t gid);
int fs_error_record(struct fs *fs, const char *path, char **text,
		    size_t *len);
const char *fs_record(struct fs *fs);
void fs_clear_record(struct fs *fs);
char *fs_normalize_target(struct arena *arena, const char *link_path,
			  const char *target);
int fs_user_path(struct fs *fs, const char *arg, struct arena *arena,
		 char **path);

/* record.c */

#define CFS_RECORD_XATTR	"user.configfs.error"
#define CFS_RECORD_MAX		65536	/* the largest xattr value */

/* The first line of an error record, split; pointers into its text. */
struct record {
	size_t line_len;
	char op[16];		/* write, mkdir, symlink, report */
	const char *file;
	size_t file_len;
	const char *value;	/* NULL when the line has none */
	size_t value_len;
	int err;		/* positive; 0 when it could not be read */
};

int record_parse(const char *text, size_t len, struct record *rec);
bool record_concerns(const char *text, size_t len, const char *op,
		     const char *file, int err);
bool record_concerns_item(const char *text, size_t len, const char *op,
			  int err);
void record_print(FILE *out, const char *indent, const char *text,
		  size_t len);

/* walk.c */

enum node_kind {
	NODE_DIR,
	NODE_ATTR,
	NODE_LINK,
};

enum attr_state {
	ATTR_NOT_READ,
	ATTR_TEXT,
	ATTR_WRITE_ONLY,
	ATTR_BINARY,
	ATTR_UNREADABLE,
};

struct node {
	const char *name;
	const char *path;	/* relative to the root; "" is the root */
	struct node *parent;
	struct node **kids;	/* sorted by name */
	size_t nr_kids;
	enum node_kind kind;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	enum attr_state state;
	bool writable;
	const char *value;	/* text: without its one trailing newline */
	size_t len;
	size_t size;		/* binary: bytes there */
	int err;		/* unreadable attribute, unlistable dir, link */
	const char *target;	/* link: relative to the root */
};

#define WALK_VALUES		0x1	/* read writable attributes */
#define WALK_RO_VALUES		0x2	/* read read-only attributes too */

struct tree {
	struct arena arena;
	struct node *top;
	int nr_errors;		/* directories that could not be listed */
};

int walk_tree(struct fs *fs, const char *path, unsigned int flags,
	      struct tree *tree);
struct node *tree_find(struct tree *tree, const char *path);
void tree_free(struct tree *tree);
bool walk_mode_is_default(const struct node *node);
bool walk_is_committable(const struct node *dir);
bool walk_is_live_item(const struct node *node);
bool walk_value_is_text(const char *buf, size_t len, size_t total,
			size_t value_max);
size_t walk_value_len(const char *buf, size_t len, size_t value_max);

/* format.c */

enum stmt_kind {
	STMT_MKDIR,
	STMT_SET,
	STMT_LINK,
	STMT_CHMOD,
	STMT_CHOWN,
	STMT_COMMIT,	/* made by the planner, never read from a file */
	STMT_MODULE,	/* path: a module's name */
};

struct stmt {
	enum stmt_kind kind;
	const char *path;
	const char *arg;	/* set: the value; link: the target */
	size_t len;		/* of arg */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	unsigned int line;
	bool any;		/* set: "udc PATH", any free UDC */
};

#define FORMAT_VERSION		1

struct script {
	struct arena arena;
	struct stmt *stmts;
	size_t nr_stmts;
	size_t cap;
	unsigned int version;	/* 0: a file from before version lines */
};

int format_parse(struct script *script, const char *name, const char *text,
		 size_t len);
int format_load(struct script *script, const char *file);
struct stmt *script_add(struct script *script, enum stmt_kind kind,
			const char *path);
void script_free(struct script *script);
void format_put_token(FILE *out, const char *s, size_t len);
void format_print_stmt(FILE *out, const char *prefix, const struct stmt *st);
void format_save_stmt(FILE *out, const struct stmt *st);
void format_put_value(FILE *out, const char *path, const char *s,
		      size_t len);
void format_print_header(FILE *out);
void format_print_end(FILE *out);
void format_print_note(FILE *out, const char *what, const char *path,
		       const char *detail);
bool format_is_off_value(const char *s, size_t len);

/* plan.c */

enum op_state {
	OP_PENDING,
	OP_DONE,	/* applied, or already so */
	OP_FAILED,
	OP_SKIPPED,	/* write-only value in a directory that existed */
};

struct pnode;

struct op {
	const struct stmt *st;
	struct pnode *node;
	enum op_state state;
	int err;
	const char *detail;	/* what was found instead, for messages */
	const char *record;	/* the client's error record of the failure */
	bool changed;		/* this run changed the tree */
	bool has_old;		/* set: the old value, for undoing */
	const char *old;
	size_t old_len;
	unsigned int undos;
	bool deferred;		/* a switch, tried after its directory */
	bool hopeless;		/* undoing others did not let it through */
	/* Inside a live item: the paths used until it is committed. */
	const char *pending;
	const char *pending_arg;	/* a link into the same item */
	bool excluded;		/* outside the PATHs of a partial restore */
};

struct plan {
	struct arena arena;
	struct pnode *root;
	struct pnode **hash;
	size_t hash_size;
	size_t nr_nodes;
	struct op **ops;	/* in the order restore tries them */
	size_t nr_ops;
};

int plan_build(struct plan *plan, const struct script *script,
	       const char *file);
int plan_load(struct plan *plan, struct script *script, const char *file);
void plan_free(struct plan *plan);
const char *plan_dir_path(const struct op *op);
const char *plan_target_path(const struct op *op);
bool plan_ready(const struct op *op);
bool plan_in_new_dir(const struct op *op);
struct op *plan_sibling_set(const struct op *op, size_t *pos);
bool plan_related(const struct op *a, const struct op *b);
bool plan_same_dir(const struct op *a, const struct op *b);
const char *plan_op_path(const struct op *op);
const char *plan_op_arg(const struct op *op);

enum plan_has {
	PLAN_HAS_NONE,
	PLAN_HAS_DIR,	/* made, or named as a parent or a link target */
	PLAN_HAS_ATTR,
	PLAN_HAS_LINK,
};

enum plan_has plan_has(struct plan *plan, const char *path,
		       const char **target);
int plan_restrict(struct plan *plan, char **paths, int nr_paths);
bool plan_is_top(const struct op *op);

/* apply.c */

#define APPLY_VERBOSE		0x1
#define APPLY_BY_LINE		0x2	/* describe: in the file's order */
#define APPLY_EXTRAS		0x4	/* describe: what the file lacks too */
#define APPLY_PRUNE		0x8	/* describe: as restore --prune */

int apply_plan(struct plan *plan, struct fs *fs, const char *file,
	       unsigned int flags);
int apply_describe(struct plan *plan, struct fs *fs, const char *under,
		   unsigned int flags, FILE *out, int *nr_fails);

/* module.c */

int module_save(struct fs *fs, FILE *out);
bool module_loaded(struct fs *fs, const char *name);
int module_check(struct fs *fs, const struct script *script);
int module_describe(struct fs *fs, const struct script *script, FILE *out);
int module_load(struct fs *fs, const struct script *script, bool verbose);

/* udc.c */

int udc_pick(struct arena *arena, char **name);

/* prune.c */

/* A directory or link in the tree that the file does not have. */
struct extra {
	const char *path;
	const char *target;	/* a link's; NULL for a directory */
	bool elsewhere;		/* a link of the file, pointing elsewhere */
};

struct extras {
	struct arena arena;
	struct extra *v;
	size_t nr;
	size_t cap;
};

int extras_find(struct extras *x, struct plan *plan, struct fs *fs,
		const char *under);
void extras_free(struct extras *x);
int prune_extras(struct extras *x, struct fs *fs, bool verbose);

/* watch.c */

struct wdir;

/*
 * Watches a subtree. The caller sets fs, out, json and the callbacks that
 * add (a watch descriptor, or -errno) and remove a directory's watch;
 * watch_start() sets the rest.
 */
struct watch {
	struct fs *fs;
	FILE *out;
	bool json;
	int (*add)(void *priv, const char *path);
	void (*rm)(void *priv, int wd);
	void *priv;
	struct wdir **dirs;	/* by watch descriptor */
	size_t nr_slots;
	size_t nr_watched;
	int top_wd;
	bool top_gone;		/* the top was removed: nothing to watch */
	char *buf;		/* value_max + 1 bytes */
};

int watch_start(struct watch *w, const char *path);
void watch_event(struct watch *w, int wd, uint32_t mask, const char *name);
void watch_stop(struct watch *w);
int cmd_watch(int argc, char **argv);

/* save.c, tree.c, restore.c, diff.c, rm.c, why.c */

#define SAVE_PORTABLE		0x1	/* a bound UDC as "udc PATH" */

int save_tree(struct fs *fs, const char *path, const struct script *keep,
	      unsigned int flags, FILE *out);
int cmd_save(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int rm_paths(struct fs *fs, char **paths, int nr_paths, bool recursive,
	     bool verbose);
int cmd_rm(int argc, char **argv);
int why_path(struct fs *fs, const char *path, const char *arg, FILE *out);
int cmd_why(int argc, char **argv);

#endif /* _CONFIGFS_TOOL_H */
