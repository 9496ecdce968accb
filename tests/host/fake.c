// SPDX-License-Identifier: GPL-2.0
/*
 * The in-memory configfs model for host tests. It keeps configfs's own
 * rules: attributes come and go with their directory, modes are enforced
 * even for root, default groups refuse rmdir with EPERM, a directory with
 * user-made content refuses it with ENOTEMPTY, only links can be unlinked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

#define FAKE_HASH	65536

struct fake_node {
	char *name;
	char *path;
	struct fake_node *hash_next;
	struct fake_node *parent;
	struct fake_node *kids;
	struct fake_node *next;
	enum fs_kind kind;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	bool is_default;
	char *value;
	char *target;
	char *record;		/* user.configfs.error */
};

static struct fake_node *fake_find_kid(struct fake_node *dir,
				       const char *name, size_t len)
{
	struct fake_node *n;

	for (n = dir->kids; n; n = n->next)
		if (strlen(n->name) == len && !memcmp(n->name, name, len))
			return n;
	return NULL;
}

static struct fake_node **fake_bucket(struct fake *fake, const char *path)
{
	unsigned int h = 5381;

	while (*path)
		h = h * 33 + (unsigned char)*path++;
	return &fake->hash[h % FAKE_HASH];
}

static struct fake_node *fake_lookup(struct fake *fake, const char *path)
{
	struct fake_node *n;

	if (!*path)
		return fake->root;
	for (n = *fake_bucket(fake, path); n; n = n->hash_next)
		if (!strcmp(n->path, path))
			return n;
	return NULL;
}

static int fake_parent(struct fake *fake, const char *path,
		       struct fake_node **parent, const char **name)
{
	const char *slash = strrchr(path, '/');
	char *up;

	if (!slash) {
		*parent = fake->root;
		*name = path;
		return 0;
	}
	up = strndup(path, slash - path);
	*parent = fake_lookup(fake, up);
	free(up);
	*name = slash + 1;
	if (!*parent)
		return -ENOENT;
	return (*parent)->kind == FS_DIR ? 0 : -ENOTDIR;
}

static struct fake_node *fake_add(struct fake *fake, struct fake_node *parent,
				  const char *name, enum fs_kind kind)
{
	struct fake_node *n = calloc(1, sizeof(*n));
	struct fake_node **p = &parent->kids;
	struct fake_node **b;

	n->name = strdup(name);
	if (parent == fake->root) {
		n->path = strdup(name);
	} else {
		n->path = malloc(strlen(parent->path) + strlen(name) + 2);
		sprintf(n->path, "%s/%s", parent->path, name);
	}
	b = fake_bucket(fake, n->path);
	n->hash_next = *b;
	*b = n;
	n->parent = parent;
	n->kind = kind;
	n->mode = kind == FS_DIR ? 0755 : kind == FS_LINK ? 0777 : 0644;
	while (*p)
		p = &(*p)->next;
	*p = n;
	return n;
}

static void fake_free_node(struct fake *fake, struct fake_node *n)
{
	while (n->kids) {
		struct fake_node *kid = n->kids;

		n->kids = kid->next;
		fake_free_node(fake, kid);
	}
	if (n->path) {
		struct fake_node **b = fake_bucket(fake, n->path);

		while (*b != n)
			b = &(*b)->hash_next;
		*b = n->hash_next;
	}
	free(n->path);
	free(n->name);
	free(n->value);
	free(n->target);
	free(n->record);
	free(n);
}

static void fake_unhook(struct fake *fake, struct fake_node *n)
{
	struct fake_node **p = &n->parent->kids;

	while (*p != n)
		p = &(*p)->next;
	*p = n->next;
	fake_free_node(fake, n);
}

static void fake_log(struct fake *fake, const char *verb, const char *path,
		     const char *arg)
{
	size_t add = strlen(verb) + strlen(path) + (arg ? strlen(arg) : 0) + 4;

	fake->log = realloc(fake->log, fake->log_len + add + 1);
	fake->log_len += sprintf(fake->log + fake->log_len, "%s %s%s%s\n",
				 verb, path, arg ? "=" : "", arg ? arg : "");
}

static int fake_op_lstat(void *priv, const char *path, struct fs_stat *st)
{
	struct fake_node *n = fake_lookup(priv, path);

	if (!n)
		return -ENOENT;
	st->kind = n->kind;
	st->mode = n->mode;
	st->uid = n->uid;
	st->gid = n->gid;
	return 0;
}

static int fake_op_list(void *priv, const char *path, struct arena *arena,
			char ***names, size_t *nr_names)
{
	struct fake_node *dir = fake_lookup(priv, path);
	struct fake_node *n;
	size_t nr = 0;

	if (!dir)
		return -ENOENT;
	if (dir->kind != FS_DIR)
		return -ENOTDIR;
	for (n = dir->kids; n; n = n->next)
		nr++;
	*names = arena_alloc(arena, (nr + 1) * sizeof(**names));
	nr = 0;
	for (n = dir->kids; n; n = n->next)
		(*names)[nr++] = arena_strdup(arena, n->name);
	*nr_names = nr;
	return 0;
}

static int fake_op_read(void *priv, const char *path, char *buf, size_t size,
			size_t *len, size_t *total)
{
	struct fake_node *n = fake_lookup(priv, path);
	size_t vlen;

	if (!n)
		return -ENOENT;
	if (n->kind != FS_FILE)
		return -EISDIR;
	if (!(n->mode & 0444) || !n->value)
		return -EACCES;
	if (!strcmp(n->value, "\001EIO"))
		return -EIO;
	vlen = strlen(n->value) + 1;
	*total = vlen;
	*len = vlen < size ? vlen : size;
	memcpy(buf, n->value, *len < vlen - 1 ? *len : vlen - 1);
	if (*len == vlen)
		buf[vlen - 1] = '\n';
	return 0;
}

static int fake_op_write(void *priv, const char *path, const char *buf,
			 size_t len)
{
	struct fake *fake = priv;
	struct fake_node *n = fake_lookup(fake, path);
	char *value;
	int ret = 0;

	if (!n)
		return -ENOENT;
	if (n->kind != FS_FILE)
		return -EISDIR;
	if (!(n->mode & 0222))
		return -EACCES;
	value = strndup(buf, len);
	if (len && value[len - 1] == '\n')
		value[len - 1] = '\0';
	if (fake->hooks && fake->hooks->store)
		ret = fake->hooks->store(fake, path, value);
	if (ret == FAKE_ZERO) {
		free(value);
		return -CFS_EZEROWRITE;
	}
	if (ret < 0) {
		free(value);
		return ret;
	}
	fake->nr_stores++;
	fake_log(fake, "set", path, value);
	if (ret == FAKE_TAKEN) {
		free(value);
		return 0;
	}
	free(n->value);
	n->value = value;
	return 0;
}

static int fake_op_mkdir(void *priv, const char *path)
{
	struct fake *fake = priv;
	struct fake_node *parent;
	const char *name;
	int ret;

	ret = fake_parent(fake, path, &parent, &name);
	if (ret)
		return ret;
	if (fake_find_kid(parent, name, strlen(name)))
		return -EEXIST;
	if (parent == fake->root)
		return -EPERM;
	fake_add(fake, parent, name, FS_DIR);
	if (fake->hooks && fake->hooks->mkdir) {
		ret = fake->hooks->mkdir(fake, path);
		if (ret) {
			fake_unhook(fake, fake_lookup(fake, path));
			return ret;
		}
	}
	fake_log(fake, "mkdir", path, NULL);
	return 0;
}

static bool fake_has_user_content(struct fake_node *dir)
{
	struct fake_node *n;

	for (n = dir->kids; n; n = n->next) {
		if (n->kind == FS_LINK)
			return true;
		if (n->kind == FS_DIR &&
		    (!n->is_default || fake_has_user_content(n)))
			return true;
	}
	return false;
}

static int fake_op_rmdir(void *priv, const char *path)
{
	struct fake *fake = priv;
	struct fake_node *n = fake_lookup(fake, path);
	int ret;

	if (!n)
		return -ENOENT;
	if (n->kind != FS_DIR)
		return -ENOTDIR;
	if (n == fake->root)
		return -EBUSY;
	if (n->is_default || n->parent == fake->root)
		return -EPERM;
	if (fake_has_user_content(n))
		return -ENOTEMPTY;
	if (fake->hooks && fake->hooks->rmdir) {
		ret = fake->hooks->rmdir(fake, path);
		if (ret)
			return ret;
	}
	fake_unhook(fake, n);
	fake_log(fake, "rmdir", path, NULL);
	return 0;
}

static int fake_op_symlink(void *priv, const char *target, const char *path)
{
	struct fake *fake = priv;
	struct fake_node *parent;
	struct fake_node *t;
	const char *name;
	int ret;

	ret = fake_parent(fake, path, &parent, &name);
	if (ret)
		return ret;
	if (fake_find_kid(parent, name, strlen(name)))
		return -EEXIST;
	t = fake_lookup(fake, target);
	if (!t)
		return -ENOENT;
	if (t->kind != FS_DIR)
		return -ENOTDIR;
	if (fake->hooks && fake->hooks->link) {
		ret = fake->hooks->link(fake, path, target);
		if (ret)
			return ret;
	}
	fake_add(fake, parent, name, FS_LINK)->target = strdup(target);
	fake_log(fake, "link", path, target);
	return 0;
}

static int fake_op_unlink(void *priv, const char *path)
{
	struct fake *fake = priv;
	struct fake_node *n = fake_lookup(fake, path);
	int ret;

	if (!n)
		return -ENOENT;
	if (n->kind != FS_LINK)
		return -EPERM;
	if (fake->hooks && fake->hooks->unlink) {
		ret = fake->hooks->unlink(fake, path);
		if (ret)
			return ret;
	}
	fake_unhook(fake, n);
	fake_log(fake, "unlink", path, NULL);
	return 0;
}

static int fake_op_readlink(void *priv, const char *path,
			    struct arena *arena, char **target)
{
	struct fake_node *n = fake_lookup(priv, path);

	if (!n)
		return -ENOENT;
	if (n->kind != FS_LINK)
		return -EINVAL;
	*target = arena_strdup(arena, n->target);
	return 0;
}

static int fake_op_chmod(void *priv, const char *path, mode_t mode)
{
	struct fake_node *n = fake_lookup(priv, path);

	if (!n)
		return -ENOENT;
	n->mode = mode;
	fake_log(priv, "chmod", path, NULL);
	return 0;
}

static int fake_op_chown(void *priv, const char *path, uid_t uid, gid_t gid)
{
	struct fake_node *n = fake_lookup(priv, path);

	if (!n)
		return -ENOENT;
	n->uid = uid;
	n->gid = gid;
	fake_log(priv, "chown", path, NULL);
	return 0;
}

static int fake_op_error(void *priv, const char *path, char *buf,
			 size_t size, size_t *len)
{
	struct fake *fake = priv;
	struct fake_node *n = fake_lookup(fake, path);

	if (!n)
		return -ENOENT;
	if (fake->no_records)
		return -EOPNOTSUPP;
	if (!n->record)
		return -ENODATA;
	*len = strlen(n->record);
	if (*len > size)
		return -ERANGE;
	memcpy(buf, n->record, *len);
	return 0;
}

static const struct fs_ops fake_ops = {
	.lstat = fake_op_lstat,
	.list = fake_op_list,
	.read = fake_op_read,
	.write = fake_op_write,
	.mkdir = fake_op_mkdir,
	.rmdir = fake_op_rmdir,
	.symlink = fake_op_symlink,
	.unlink = fake_op_unlink,
	.readlink = fake_op_readlink,
	.chmod = fake_op_chmod,
	.chown = fake_op_chown,
	.error = fake_op_error,
};

void fake_init(struct fake *fake, const struct fake_hooks *hooks)
{
	memset(fake, 0, sizeof(*fake));
	fake->hash = calloc(FAKE_HASH, sizeof(*fake->hash));
	fake->root = calloc(1, sizeof(*fake->root));
	fake->root->name = strdup("");
	fake->root->kind = FS_DIR;
	fake->root->mode = 0755;
	fake->hooks = hooks;
	fake->fs.ops = &fake_ops;
	fake->fs.priv = fake;
	fake->fs.root = "";
	fake->fs.value_max = 4096;
	/* Not the host's modules: the model is no configfs mount. */
	cfs_opts.modules = "/nonexistent/sys/module";
	fake->log = strdup("");
}

void fake_free(struct fake *fake)
{
	fake_free_node(fake, fake->root);
	free(fake->fs.record);
	free(fake->hash);
	free(fake->log);
}

void fake_dir(struct fake *fake, const char *path, bool is_default)
{
	struct fake_node *parent;
	const char *name;

	if (fake_parent(fake, path, &parent, &name))
		abort();
	fake_add(fake, parent, name, FS_DIR)->is_default = is_default;
}

void fake_attr(struct fake *fake, const char *path, mode_t mode,
	       const char *value)
{
	struct fake_node *parent;
	struct fake_node *n;
	const char *name;

	if (fake_parent(fake, path, &parent, &name))
		abort();
	n = fake_add(fake, parent, name, FS_FILE);
	n->mode = mode;
	n->value = value ? strdup(value) : NULL;
}

const char *fake_value(struct fake *fake, const char *path)
{
	struct fake_node *n = fake_lookup(fake, path);

	return n && n->kind == FS_FILE ? n->value : NULL;
}

void fake_set(struct fake *fake, const char *path, const char *value)
{
	struct fake_node *n = fake_lookup(fake, path);

	if (!n)
		abort();
	free(n->value);
	n->value = strdup(value);
}

void fake_record(struct fake *fake, const char *path, const char *record)
{
	struct fake_node *n = fake_lookup(fake, path);

	if (!n)
		abort();
	free(n->record);
	n->record = record ? strdup(record) : NULL;
}

bool fake_exists(struct fake *fake, const char *path)
{
	return fake_lookup(fake, path);
}

static int fake_count_links(struct fake_node *n, const char *dir)
{
	int nr = n->kind == FS_LINK && path_is_under(n->target, dir);
	struct fake_node *kid;

	for (kid = n->kids; kid; kid = kid->next)
		nr += fake_count_links(kid, dir);
	return nr;
}

int fake_nr_links_to(struct fake *fake, const char *dir)
{
	return fake_count_links(fake->root, dir);
}

/* Links directly inside @dir. */
int fake_nr_links_in(struct fake *fake, const char *dir)
{
	struct fake_node *d = fake_lookup(fake, dir);
	struct fake_node *n;
	int nr = 0;

	for (n = d ? d->kids : NULL; n; n = n->next)
		nr += n->kind == FS_LINK;
	return nr;
}

long fake_log_pos(struct fake *fake, const char *line)
{
	size_t len = strlen(line);
	const char *p = fake->log;

	while ((p = strstr(p, line))) {
		if ((p == fake->log || p[-1] == '\n') && p[len] == '\n')
			return p - fake->log;
		p++;
	}
	return -1;
}

/* The save of @path, as a string to free. */
char *fake_save(struct fake *fake, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	save_tree(&fake->fs, path, NULL, 0, out);
	fclose(out);
	return text;
}

/* Parses, plans and applies @text; returns -1 on a bad file, or #left. */
int fake_restore_text(struct fake *fake, const char *text)
{
	struct script script = { 0 };
	struct plan plan;
	int ret = -1;

	if (format_parse(&script, "test", text, strlen(text)))
		goto out_script;
	if (plan_build(&plan, &script, "test"))
		goto out_plan;
	ret = apply_plan(&plan, &fake->fs, "test", 0);
out_plan:
	plan_free(&plan);
out_script:
	script_free(&script);
	return ret;
}
