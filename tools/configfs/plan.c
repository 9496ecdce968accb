// SPDX-License-Identifier: GPL-2.0
/*
 * The restore planner: checks a script for conflicts and puts its
 * statements in the order restore first tries them.
 *
 * The order comes from the shape of the tree, with no knowledge of any
 * subsystem:
 *  1. every mkdir, parents before children;
 *  2. every attribute, depth first, each directory's own after those of
 *     its subdirectories: an object's own switches (enable, UDC, power)
 *     come after its parts are configured (but for a LIO backstore,
 *     plan_own_sets_first());
 *  3. every link, depth first, each after the links under its target: a
 *     link often starts something (a LUN's SCSI device, a port listening)
 *     that needs its directory's switches set before (tcm_loop's nexus),
 *     or refuses them after (nvmet port attributes); a switch that needs
 *     the link (a gadget's UDC) fails before it and is retried;
 *  4. every commit of a live item (below);
 *  5. chmod and chown last, parents first.
 * apply.c retries and reorders from there.
 *
 * Committable items: a group of the script with directories pending/ and
 * live/ and no attribute in either is committable (save writes both, as
 * it writes every default group). An item saved under live/ is made and
 * configured in pending/ under its own name (its mkdir, attributes, links
 * and those of its children), then committed by a rename into live/, once
 * all of that is done; links into it from elsewhere wait for the commit,
 * and so do its chmod and chown, which apply to the live item.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "configfs.h"

enum pnode_kind {
	PN_ANY,		/* named only as a parent or a link target */
	PN_DIR,
	PN_ATTR,
	PN_LINK,
};

/*
 * One path named by the script, or an ancestor of one. Only a node some
 * statement names has its path from the start (the statement's own
 * string); an ancestor's is made when asked for (plan_path()): a file of
 * paths 2,000 levels deep would otherwise hold every prefix of each,
 * memory quadratic in the file (1.7 GB for 800 KB).
 */
struct pnode {
	const char *name;
	const char *path;		/* NULL until plan_path() */
	struct pnode *parent;
	struct pnode *first_kid;	/* while building */
	struct pnode *next_kid;
	struct pnode **kids;		/* sorted by name */
	size_t nr_kids;
	struct pnode *hash_next;
	enum pnode_kind kind;
	unsigned int kind_line;		/* the statement that fixed kind */
	struct op *mkdir;
	struct op *set;
	struct op *link;
	struct op *chmod;
	struct op *chown;
	struct pnode *target;
	int visit;		/* of plan_visit_links() */
	struct op *commit;		/* a live item's */
	struct pnode *item;		/* the live item this is in, or NULL */
	bool committable;
};

enum {
	VISIT_NONE,
	VISIT_BUSY,
	VISIT_DONE,
};

struct plan_ctx {
	struct plan *plan;
	const char *file;
	int nr_bad;
	size_t nr_commits;
};

/* FNV-1a of @parent and @name, folded to the width of size_t. */
static size_t plan_hash(const struct pnode *parent, const char *name,
			size_t len)
{
	unsigned long long h = 0xcbf29ce484222325ULL ^ (uintptr_t)parent;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
	return (size_t)h;
}

static void plan_rehash(struct plan *plan)
{
	size_t size = plan->hash_size ? plan->hash_size * 2 : 1024;
	struct pnode **hash = calloc(size, sizeof(*hash));
	size_t i;

	if (!hash)
		cfs_out_of_memory();
	for (i = 0; i < plan->hash_size; i++) {
		struct pnode *n = plan->hash[i];

		while (n) {
			struct pnode *next = n->hash_next;
			size_t b = plan_hash(n->parent, n->name,
					     strlen(n->name)) & (size - 1);

			n->hash_next = hash[b];
			hash[b] = n;
			n = next;
		}
	}
	free(plan->hash);
	plan->hash = hash;
	plan->hash_size = size;
}

static struct pnode *plan_lookup_kid(struct plan *plan,
				     const struct pnode *parent,
				     const char *name, size_t len)
{
	struct pnode *n;

	if (!plan->hash_size)
		return NULL;
	n = plan->hash[plan_hash(parent, name, len) & (plan->hash_size - 1)];
	while (n && (n->parent != parent || strncmp(n->name, name, len) ||
		     n->name[len]))
		n = n->hash_next;
	return n;
}

static struct pnode *plan_lookup(struct plan *plan, const char *path)
{
	struct pnode *n = plan->root;
	const char *p = path;

	while (n && *p) {
		const char *end = strchrnul(p, '/');

		n = plan_lookup_kid(plan, n, p, end - p);
		p = *end ? end + 1 : end;
	}
	return n;
}

/* @n's path, made from its ancestors' names the first time. */
static const char *plan_path(struct plan *plan, struct pnode *n)
{
	const struct pnode *up;
	size_t len = 0;
	char *path;

	if (n->path)
		return n->path;
	for (up = n; up->parent; up = up->parent)
		len += strlen(up->name) + 1;
	path = arena_alloc(&plan->arena, len);
	path[--len] = '\0';
	for (up = n; up->parent; up = up->parent) {
		size_t name_len = strlen(up->name);

		len -= name_len;
		memcpy(path + len, up->name, name_len);
		if (len)
			path[--len] = '/';
	}
	n->path = path;
	return path;
}

static void plan_bad(struct plan_ctx *ctx, unsigned int line,
		     const char *path, const char *why, unsigned int other)
{
	char *object = arena_printf(&ctx->plan->arena, "%s:%u", ctx->file,
				    line);

	if (other)
		cfs_err(object, "%s: %s (line %u)", path, why, other);
	else
		cfs_err(object, "%s: %s", path, why);
	ctx->nr_bad++;
}

/* Marks @n a directory, as the parent of something. */
static int plan_want_dir(struct plan_ctx *ctx, struct pnode *n,
			 unsigned int line)
{
	if (n->kind == PN_ATTR || n->kind == PN_LINK) {
		plan_bad(ctx, line, plan_path(ctx->plan, n),
			 n->kind == PN_ATTR ?
			 "used as a directory, but set as an attribute at" :
			 "used as a directory, but made a link at",
			 n->kind_line);
		return -EINVAL;
	}
	if (n->kind == PN_ANY) {
		n->kind = PN_DIR;
		n->kind_line = line;
	}
	return 0;
}

/* The node of @path, made with its ancestors when missing; NULL if bad. */
static struct pnode *plan_get(struct plan_ctx *ctx, const char *path,
			      unsigned int line)
{
	struct plan *plan = ctx->plan;
	struct pnode *parent = plan->root;
	const char *p = path;

	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t len = end - p;
		struct pnode *n = plan_lookup_kid(plan, parent, p, len);
		size_t b;

		if (!n) {
			if (plan_want_dir(ctx, parent, line))
				return NULL;
			if (plan->nr_nodes >= plan->hash_size / 2)
				plan_rehash(plan);
			n = arena_alloc(&plan->arena, sizeof(*n));
			memset(n, 0, sizeof(*n));
			n->name = arena_strndup(&plan->arena, p, len);
			n->parent = parent;
			n->next_kid = parent->first_kid;
			parent->first_kid = n;
			parent->nr_kids++;
			b = plan_hash(parent, p, len) & (plan->hash_size - 1);
			n->hash_next = plan->hash[b];
			plan->hash[b] = n;
			plan->nr_nodes++;
		}
		parent = n;
		p = *end ? end + 1 : end;
	}
	return parent;
}

static int plan_set_kind(struct plan_ctx *ctx, struct pnode *n,
			 enum pnode_kind kind, unsigned int line)
{
	static const char *const names[] = {
		[PN_DIR] = "a directory", [PN_ATTR] = "an attribute",
		[PN_LINK] = "a link",
	};
	char why[96];

	if (n->kind == kind)
		return 0;
	if (n->kind != PN_ANY || (kind != PN_DIR && n->nr_kids)) {
		snprintf(why, sizeof(why), "made %s, but it is %s at",
			 names[kind], names[n->kind ? n->kind : PN_DIR]);
		plan_bad(ctx, line, plan_path(ctx->plan, n), why,
			 n->kind_line ? n->kind_line : line);
		return -EINVAL;
	}
	n->kind = kind;
	n->kind_line = line;
	return 0;
}

static struct op *plan_new_op(struct plan *plan, const struct stmt *st,
			      struct pnode *n)
{
	struct op *op = arena_alloc(&plan->arena, sizeof(*op));

	memset(op, 0, sizeof(*op));
	op->st = st;
	op->node = n;
	return op;
}

static void plan_add(struct plan_ctx *ctx, const struct stmt *st)
{
	struct op **slot = NULL;
	struct pnode *target = NULL;
	struct pnode *n;

	if (st->kind == STMT_MODULE)
		return;
	n = plan_get(ctx, st->path, st->line);
	if (!n)
		return;
	/* What plan_dir_path() gives: no longer than the statement's. */
	if (!n->path)
		n->path = st->path;
	plan_path(ctx->plan, n->parent);
	switch (st->kind) {
	case STMT_MKDIR:
		slot = &n->mkdir;
		if (plan_set_kind(ctx, n, PN_DIR, st->line))
			return;
		break;
	case STMT_SET:
		slot = &n->set;
		if (plan_set_kind(ctx, n, PN_ATTR, st->line))
			return;
		break;
	case STMT_LINK:
		slot = &n->link;
		if (plan_set_kind(ctx, n, PN_LINK, st->line))
			return;
		target = plan_get(ctx, st->arg, st->line);
		if (!target || plan_want_dir(ctx, target, st->line))
			return;
		if (!target->path)
			target->path = st->arg;
		break;
	case STMT_CHMOD:
		slot = &n->chmod;
		break;
	case STMT_CHOWN:
		slot = &n->chown;
		break;
	case STMT_COMMIT:
		return;		/* the planner's own, never in a script */
	case STMT_MODULE:
		return;		/* loaded before the plan runs: module.c */
	}
	if (*slot) {
		plan_bad(ctx, st->line, st->path, "given twice; first at",
			 (*slot)->st->line);
		return;
	}
	*slot = plan_new_op(ctx->plan, st, n);
	if (target)
		n->target = target;
}

static int plan_cmp_pnode(const void *a, const void *b)
{
	const struct pnode *const *x = a;
	const struct pnode *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static void plan_sort(struct plan *plan, struct pnode *n)
{
	struct pnode *kid;
	size_t i = 0;

	n->kids = arena_alloc(&plan->arena,
			      (n->nr_kids ? n->nr_kids : 1) * sizeof(*n->kids));
	for (kid = n->first_kid; kid; kid = kid->next_kid)
		n->kids[i++] = kid;
	qsort(n->kids, n->nr_kids, sizeof(*n->kids), plan_cmp_pnode);
	for (i = 0; i < n->nr_kids; i++)
		plan_sort(plan, n->kids[i]);
}

static struct pnode *plan_find_kid(const struct pnode *n, const char *name)
{
	const struct pnode key = { .name = name };
	const struct pnode *k = &key;
	struct pnode **found;

	if (!n->nr_kids)
		return NULL;
	found = bsearch(&k, n->kids, n->nr_kids, sizeof(*n->kids),
			plan_cmp_pnode);
	return found ? *found : NULL;
}

static bool plan_is_bare_dir(const struct pnode *n)
{
	size_t i;

	if (!n || n->kind != PN_DIR)
		return false;
	for (i = 0; i < n->nr_kids; i++)
		if (n->kids[i]->kind == PN_ATTR)
			return false;
	return true;
}

/* @path of a node inside the live item @item, moved to its pending/. */
static const char *plan_pending_path(struct plan *plan, struct pnode *item,
				     const char *path)
{
	const char *group = plan_path(plan, item->parent->parent);

	return arena_printf(&plan->arena, "%s%spending/%s%s", group,
			    group[0] ? "/" : "", item->name,
			    path + strlen(plan_path(plan, item)));
}

/* A live item: the commit that renames it from pending/ into live/. */
static void plan_add_commit(struct plan_ctx *ctx, struct pnode *n)
{
	struct plan *plan = ctx->plan;
	const struct pnode *pending = plan_find_kid(n->parent->parent,
						    "pending");
	const struct pnode *twin = plan_find_kid(pending, n->name);
	struct stmt *st = arena_alloc(&plan->arena, sizeof(*st));

	memset(st, 0, sizeof(*st));
	st->kind = STMT_COMMIT;
	st->path = plan_path(plan, n);
	st->arg = plan_pending_path(plan, n, n->path);
	st->len = strlen(st->arg);
	st->line = n->mkdir ? n->mkdir->st->line : n->kind_line;
	if (twin && twin->kind != PN_ANY)
		plan_bad(ctx, st->line, st->path,
			 "live, but also pending (names are unique in a committable group) at",
			 twin->mkdir ? twin->mkdir->st->line :
			 twin->kind_line);
	n->commit = plan_new_op(plan, st, n);
	ctx->nr_commits++;
}

/*
 * Finds committable groups and their live items, and gives each statement
 * inside a live item the paths it has while the item is pending.
 */
static void plan_mark_items(struct plan_ctx *ctx, struct pnode *n,
			    struct pnode *item)
{
	struct plan *plan = ctx->plan;
	const struct pnode *live = n->parent;
	size_t i;

	if (n->kind == PN_DIR && live && live->parent &&
	    live->parent->committable && !strcmp(live->name, "live") &&
	    !item) {
		plan_add_commit(ctx, n);
		item = n;
	}
	n->item = item;
	n->committable = n->kind == PN_DIR &&
			 plan_is_bare_dir(plan_find_kid(n, "pending")) &&
			 plan_is_bare_dir(plan_find_kid(n, "live"));
	if (item) {
		struct op *ops[] = { n->mkdir, n->set, n->link };

		for (i = 0; i < ARRAY_SIZE(ops); i++)
			if (ops[i])
				ops[i]->pending = plan_pending_path(plan, item,
								    n->path);
		if (n->link && path_is_under(n->target->path,
					     plan_path(plan, item)))
			n->link->pending_arg =
				plan_pending_path(plan, item,
						  n->target->path);
	}
	for (i = 0; i < n->nr_kids; i++)
		plan_mark_items(ctx, n->kids[i], item);
}

static void plan_emit(struct plan *plan, struct op *op)
{
	if (!op)
		return;
	plan->ops[plan->nr_ops++] = op;
}

/* A committable group's pending/ first: its live items are made there. */
static void plan_emit_mkdirs(struct plan *plan, struct pnode *n)
{
	struct pnode *pending = n->committable ? plan_find_kid(n, "pending") :
				NULL;
	size_t i;

	plan_emit(plan, n->mkdir);
	if (pending)
		plan_emit_mkdirs(plan, pending);
	for (i = 0; i < n->nr_kids; i++)
		if (n->kids[i] != pending)
			plan_emit_mkdirs(plan, n->kids[i]);
}

/*
 * The one rule that knows a subsystem: a LIO backstore
 * (target/core/HBA/DEVICE) takes its own attributes first (control, then
 * enable, by name) and its subdirectories' after, as targetcli writes
 * them. Its attrib/emulate_tpu 1 written before enable makes 6.1's
 * fileio dereference the file it has not opened yet: a kernel oops, which
 * no retry can learn from (docs/client-notes.md, LIO). Its attributes
 * that enable resets (block_size) are written after it anyway.
 */
static bool plan_own_sets_first(const struct pnode *n)
{
	const struct pnode *hba = n->parent;

	const struct pnode *core = hba ? hba->parent : NULL;
	const struct pnode *target = core ? core->parent : NULL;

	return target && target->parent && !target->parent->parent &&
	       !strcmp(core->name, "core") && !strcmp(target->name, "target");
}

/*
 * Depth first: each directory's subdirectories, then its own attributes
 * (but see plan_own_sets_first()).
 */
static void plan_visit_sets(struct plan *plan, struct pnode *n)
{
	bool own_first = plan_own_sets_first(n);
	size_t i;

	for (i = 0; own_first && i < n->nr_kids; i++)
		plan_emit(plan, n->kids[i]->set);
	for (i = 0; i < n->nr_kids; i++)
		if (n->kids[i]->kind == PN_DIR)
			plan_visit_sets(plan, n->kids[i]);
	for (i = 0; !own_first && i < n->nr_kids; i++)
		plan_emit(plan, n->kids[i]->set);
}

/* A directory plan_visit_links() is in, and how far it has got. */
struct plan_visit {
	struct pnode *n;
	size_t next;		/* the kid to look at next */
	bool links;		/* past the subdirectories, on the links */
};

static void plan_visit_push(struct plan_visit **stack, size_t *depth,
			    size_t *cap, struct pnode *n)
{
	if (*depth == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*stack = xrealloc_array(*stack, *cap, sizeof(**stack));
	}
	n->visit = VISIT_BUSY;
	(*stack)[(*depth)++] = (struct plan_visit){ .n = n };
}

/*
 * Each link after the links under its target, its target's after those
 * under theirs, and so on: a saved file decides how long that chain is (a
 * crafted one of 150,000 links overflowed the call stack), so the walk
 * keeps its own stack. In the order of a recursive walk: a directory's
 * subdirectories, then each of its links once the link's target is done.
 */
static void plan_visit_links(struct plan *plan, struct pnode *top)
{
	struct plan_visit *stack = NULL;
	size_t depth = 0;
	size_t cap = 0;

	if (top->visit != VISIT_NONE)
		return;
	plan_visit_push(&stack, &depth, &cap, top);
	while (depth) {
		struct plan_visit *v = &stack[depth - 1];
		struct pnode *kid;

		if (v->next == v->n->nr_kids) {
			if (!v->links) {
				v->links = true;
				v->next = 0;
				continue;
			}
			v->n->visit = VISIT_DONE;
			depth--;
			continue;
		}
		kid = v->n->kids[v->next];
		if (!v->links) {
			v->next++;
			if (kid->kind == PN_DIR && kid->visit == VISIT_NONE)
				plan_visit_push(&stack, &depth, &cap, kid);
			continue;
		}
		if (!kid->link) {
			v->next++;
			continue;
		}
		/*
		 * Come back to this link once its target is done. A target
		 * being visited already is an ancestor, or part of a cycle
		 * of links: it is not waited for.
		 */
		if (kid->target->visit == VISIT_NONE) {
			plan_visit_push(&stack, &depth, &cap, kid->target);
			continue;
		}
		plan_emit(plan, kid->link);
		v->next++;
	}
	free(stack);
}

static void plan_emit_commits(struct plan *plan, struct pnode *n)
{
	size_t i;

	plan_emit(plan, n->commit);
	for (i = 0; i < n->nr_kids; i++)
		plan_emit_commits(plan, n->kids[i]);
}

static void plan_emit_modes(struct plan *plan, struct pnode *n)
{
	size_t i;

	plan_emit(plan, n->chmod);
	plan_emit(plan, n->chown);
	for (i = 0; i < n->nr_kids; i++)
		plan_emit_modes(plan, n->kids[i]);
}

/*
 * Builds the plan for @script. Conflicts (a path given twice, a path both
 * attribute and directory, ...) are reported as "FILE:LINE: ..." and
 * counted in the return value; the plan is only usable when it is 0.
 */
int plan_build(struct plan *plan, const struct script *script,
	       const char *file)
{
	struct plan_ctx ctx = {
		.plan = plan,
		.file = file,
	};
	size_t i;

	memset(plan, 0, sizeof(*plan));
	plan_rehash(plan);
	plan->root = arena_alloc(&plan->arena, sizeof(*plan->root));
	memset(plan->root, 0, sizeof(*plan->root));
	plan->root->path = "";
	plan->root->name = "";
	plan->root->kind = PN_DIR;
	for (i = 0; i < script->nr_stmts; i++)
		plan_add(&ctx, &script->stmts[i]);
	plan_sort(plan, plan->root);
	plan_mark_items(&ctx, plan->root, NULL);
	plan->ops = arena_alloc(&plan->arena, (script->nr_stmts +
					       ctx.nr_commits + 1) *
				sizeof(*plan->ops));
	if (ctx.nr_bad)
		return ctx.nr_bad;
	plan_emit_mkdirs(plan, plan->root);
	plan_visit_sets(plan, plan->root);
	plan_visit_links(plan, plan->root);
	plan_emit_commits(plan, plan->root);
	plan_emit_modes(plan, plan->root);
	return 0;
}

/*
 * Reads @file and plans it, for restore and diff. The good statements of
 * a file with bad lines are planned too, so that its conflicts are
 * reported in the same run. Returns an exit code; @script and @plan are
 * to be freed whatever it is.
 */
int plan_load(struct plan *plan, struct script *script, const char *file)
{
	const char *name = strcmp(file, "-") ? file : "<stdin>";
	int ret;

	memset(script, 0, sizeof(*script));
	memset(plan, 0, sizeof(*plan));
	ret = format_load(script, file);
	if (ret < 0)
		return CFS_EXIT_SYSTEM;
	if (plan_build(plan, script, name) || ret)
		return CFS_EXIT_USAGE;
	return CFS_EXIT_OK;
}

void plan_free(struct plan *plan)
{
	free(plan->hash);
	plan->hash = NULL;
	arena_free(&plan->arena);
}

/*
 * What the script says @path is; for a link, its target in @target (when
 * not NULL).
 */
enum plan_has plan_has(struct plan *plan, const char *path,
		       const char **target)
{
	const struct pnode *n = path[0] ? plan_lookup(plan, path) : plan->root;

	if (!n)
		return PLAN_HAS_NONE;
	switch (n->kind) {
	case PN_ATTR:
		return PLAN_HAS_ATTR;
	case PN_LINK:
		if (target)
			*target = n->target->path;
		return PLAN_HAS_LINK;
	case PN_ANY:
	case PN_DIR:
		break;
	}
	return PLAN_HAS_DIR;
}

/*
 * For a partial restore: keeps in the plan only what lies under one of
 * @paths, and the mkdir of each directory above them, so that a PATH is
 * made if it is missing. Returns the number of @paths the script does
 * not name, each reported.
 */
int plan_restrict(struct plan *plan, char **paths, int nr_paths)
{
	size_t kept = 0;
	int nr_bad = 0;
	size_t i;
	int k;

	for (k = 0; k < nr_paths; k++) {
		if (!paths[k][0] || plan_has(plan, paths[k], NULL))
			continue;
		cfs_err(paths[k], "not in the file");
		nr_bad++;
	}
	for (i = 0; i < plan->nr_ops; i++) {
		struct op *op = plan->ops[i];

		for (k = 0; k < nr_paths; k++) {
			if (path_is_under(op->st->path, paths[k]))
				break;
			if (op->st->kind == STMT_MKDIR &&
			    path_is_under(paths[k], op->st->path))
				break;
		}
		op->excluded = k == nr_paths;
		if (!op->excluded)
			plan->ops[kept++] = op;
	}
	plan->nr_ops = kept;
	return nr_bad;
}

/* Is @op a mkdir with no mkdir above it: a top of what the file makes? */
bool plan_is_top(const struct op *op)
{
	const struct pnode *n;

	if (op->st->kind != STMT_MKDIR)
		return false;
	for (n = op->node->parent; n; n = n->parent)
		if (n->mkdir)
			return false;
	return true;
}

static const struct pnode *plan_op_dir(const struct op *op)
{
	const struct pnode *n = op->node;

	return n->kind == PN_DIR || n->kind == PN_ANY ? n : n->parent;
}

const char *plan_dir_path(const struct op *op)
{
	return plan_op_dir(op)->path;
}

const char *plan_target_path(const struct op *op)
{
	return op->node->target ? op->node->target->path : NULL;
}

/*
 * Is the directory @n, or its nearest ancestor the script creates, there?
 * One a partial restore leaves out is taken to be: if it is not, what
 * needs it fails and says so.
 */
static bool plan_present(const struct pnode *n)
{
	for (; n; n = n->parent)
		if (n->mkdir)
			return n->mkdir->state == OP_DONE ||
			       n->mkdir->excluded;
	return true;
}

/* A commit a partial restore leaves out is taken to be done, as a mkdir. */
static bool plan_committed(const struct pnode *item)
{
	return !item || item->commit->state == OP_DONE ||
	       item->commit->excluded;
}

static bool plan_settled(const struct op *op)
{
	return !op || op->excluded || op->state == OP_DONE ||
	       op->state == OP_SKIPPED;
}

/* Is everything inside the live item @n made, written and linked? */
static bool plan_configured(const struct pnode *n)
{
	size_t i;

	if (!plan_settled(n->mkdir) || !plan_settled(n->set) ||
	    !plan_settled(n->link))
		return false;
	for (i = 0; i < n->nr_kids; i++)
		if (!plan_configured(n->kids[i]))
			return false;
	return true;
}

/* Have the statements that @op needs been applied? */
bool plan_ready(const struct op *op)
{
	const struct pnode *n = op->node;

	switch (op->st->kind) {
	case STMT_MKDIR:
		/* A live item not yet committed is made in pending/. */
		if (n->commit && !plan_committed(n) &&
		    !plan_present(plan_find_kid(n->parent->parent, "pending")))
			return false;
		return plan_present(n->parent);
	case STMT_SET:
		return plan_present(n->parent);
	case STMT_LINK:
		/* Into a live item from outside it: once it is committed. */
		if (!op->pending_arg && !plan_committed(n->target->item))
			return false;
		return plan_present(n->parent) && plan_present(n->target);
	case STMT_CHMOD:
	case STMT_CHOWN:
		if (n->link && n->link->state != OP_DONE)
			return false;
		if (!plan_committed(n->item))
			return false;
		return plan_present(n->kind == PN_DIR ? n : n->parent);
	case STMT_COMMIT:
		return plan_present(n->parent) && plan_configured(n);
	case STMT_MODULE:
		break;		/* never in a plan */
	}
	return false;
}

/*
 * Where @op applies now: inside a live item that is not committed yet,
 * in its group's pending/.
 */
const char *plan_op_path(const struct op *op)
{
	if (op->pending && !plan_committed(op->node->item))
		return op->pending;
	return op->st->path;
}

/* A link's target, as plan_op_path() for its path. */
const char *plan_op_arg(const struct op *op)
{
	if (op->pending_arg && !plan_committed(op->node->item))
		return op->pending_arg;
	return op->st->arg;
}

/* Is @op under a directory that this run created? */
bool plan_in_new_dir(const struct op *op)
{
	const struct pnode *n;

	for (n = op->node->parent; n; n = n->parent)
		if (n->mkdir && n->mkdir->changed)
			return true;
	return false;
}

/*
 * The set statements of @op's directory other than @op, one a call: the
 * one after *@pos (0 to begin), or NULL when there are no more.
 */
struct op *plan_sibling_set(const struct op *op, size_t *pos)
{
	const struct pnode *dir = plan_op_dir(op);

	while (*pos < dir->nr_kids) {
		struct op *set = dir->kids[(*pos)++]->set;

		if (set && set != op)
			return set;
	}
	return NULL;
}

static bool plan_paths_related(const char *a, const char *b)
{
	return path_is_under(a, b) || path_is_under(b, a);
}

/*
 * Could applying @a have made @b fail? Only when they touch the same
 * branch of the tree: @a's directory, or its link's target, lies on the
 * path from the root to @b's directory, or below it.
 */
bool plan_related(const struct op *a, const struct op *b)
{
	const char *dir_b = plan_dir_path(b);
	const char *target = plan_target_path(a);

	if (plan_paths_related(plan_dir_path(a), dir_b))
		return true;
	return target && plan_paths_related(target, dir_b);
}

bool plan_same_dir(const struct op *a, const struct op *b)
{
	return plan_op_dir(a) == plan_op_dir(b);
}
