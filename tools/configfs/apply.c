// SPDX-License-Identifier: GPL-2.0
/*
 * Carrying out a plan: compare, write, retry, undo. Also describing what a
 * plan would change, for diff and restore --dry-run.
 *
 * Each statement is compared with the tree first and applied only when
 * they differ, so a tree that matches is left untouched. Passes go over
 * the plan in order until nothing more succeeds:
 *  - within one directory, attributes that go from an "off" value ("",
 *    "0", "N", "(null)") to something else are written after the others:
 *    they are the switches that turn an object on;
 *  - a statement that fails is retried in the next pass while others still
 *    succeed;
 *  - when a pass succeeds nowhere, a write may have succeeded too early and
 *    be blocking: for the first failed statement, the changes this run made
 *    in the same branch of the tree are undone one at a time, latest
 *    first. If that lets it through, the others are retried and the undone
 *    change is made again after them.
 * At the end every value written is read back: one the kernel changed
 * since (a later write reset it) is written again, last, and reported if
 * it still does not read as the file says.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "configfs.h"

#define APPLY_MAX_UNDOS		2	/* per statement */
#define APPLY_MAX_TRIES		8	/* undo candidates per failure */

enum {
	APPLY_DONE,
	APPLY_SKIPPED,	/* cannot compare a write-only value: left alone */
	APPLY_DEFERRED,	/* a switch: wait for the rest of its directory */
};

struct apply {
	struct plan *plan;
	struct fs *fs;
	unsigned int flags;
	char *buf;		/* CFS_VALUE_MAX + 1 bytes */
	size_t raw_len;		/* of the last value read, newline kept */
	struct op **log;	/* statements that changed the tree, in order */
	size_t nr_log;
	size_t cap_log;
};

static void apply_log(struct apply *a, struct op *op)
{
	if (a->nr_log == a->cap_log) {
		a->cap_log = a->cap_log ? a->cap_log * 2 : 64;
		a->log = xrealloc_array(a->log, a->cap_log, sizeof(*a->log));
	}
	a->log[a->nr_log++] = op;
}

/*
 * Reads the current value of @path as save would have; returns 0, 1 if it
 * is too long to compare, or -errno.
 */
static int apply_read(struct apply *a, const char *path, const char **value,
		      size_t *len)
{
	size_t total;
	int ret;

	ret = fs_read(a->fs, path, a->buf, CFS_VALUE_MAX + 1, len, &total);
	if (ret)
		return ret;
	if (total > CFS_VALUE_MAX)
		return 1;
	a->raw_len = *len;
	*len = walk_value_len(a->buf, *len, a->fs->value_max);
	*value = a->buf;
	return 0;
}

/*
 * The length of the label that @cur and @val begin with: their common
 * prefix up to its last ": ", on one line. Some attributes show a label
 * before what they store (LIO's vpd_unit_serial shows "T10 VPD Unit
 * Serial Number: " and stores what it is given), so that writing back
 * what was read would store the label too.
 */
static size_t apply_label_len(const char *cur, size_t len, const char *val,
			      size_t vlen)
{
	size_t common = 0;
	size_t label = 0;
	size_t i;

	if (!cur || memchr(val, '\n', vlen))
		return 0;
	while (common < len && common < vlen && cur[common] == val[common])
		common++;
	for (i = 0; i + 1 < common; i++)
		if (cur[i] == ':' && cur[i + 1] == ' ')
			label = i + 2;
	return label;
}

/*
 * Writes @val (@vlen bytes) to @path, whose value was @cur (@len bytes,
 * NULL if unknown), whole: nothing but what the file says is written
 * first. When both begin with the same label and the attribute then reads
 * the label twice, it shows a label before what it stores: the value is
 * written again without its label, which is exactly what it stores.
 */
static int apply_write(struct apply *a, const char *path, const char *val,
		       size_t vlen, const char *cur, size_t len)
{
	size_t label = apply_label_len(cur, len, val, vlen);
	const char *now;
	size_t now_len;
	int ret;

	ret = fs_write_value(a->fs, path, val, vlen);
	if (ret || !label || apply_read(a, path, &now, &now_len))
		return ret;
	if (now_len != label + vlen || memcmp(now, val, label) ||
	    memcmp(now + label, val, vlen))
		return 0;
	return fs_write_value(a->fs, path, val + label, vlen - label);
}

/*
 * "udc PATH": a gadget bound to any controller is as the file says; an
 * unbound one is bound, last in its directory, to the first free one.
 */
static int apply_set_any(struct apply *a, struct op *op, bool switches,
			 const char *path, const char *cur, size_t len)
{
	char *name;
	int ret;

	if (cur && len)
		return APPLY_DONE;
	if (cur && !switches)
		return APPLY_DEFERRED;
	if (udc_pick(&a->plan->arena, &name)) {
		op->detail = "no free USB device controller in /sys/class/udc";
		return -ENODEV;
	}
	if (cur) {
		op->has_old = true;
		op->old = "";
		op->old_len = 0;
	}
	ret = fs_write_value(a->fs, path, name, strlen(name));
	if (!ret)
		op->changed = true;
	return ret;
}

/*
 * Is @op's object not switched on yet? True when the file turns one of
 * its directory's switches on (LIO's enable) and the tree has it off: a
 * write-only value there (LIO's control) is still the object's to take,
 * as it is in a directory this run created.
 */
static bool apply_dir_is_off(struct apply *a, const struct op *op)
{
	const struct op *sw;
	const char *cur;
	size_t pos = 0;
	size_t len;

	while ((sw = plan_sibling_set(op, &pos))) {
		const struct stmt *st = sw->st;

		if (st->kind != STMT_SET || st->any ||
		    format_is_off_value(st->arg, st->len))
			continue;
		if (!apply_read(a, plan_op_path(sw), &cur, &len) &&
		    format_is_off_value(cur, len))
			return true;
	}
	return false;
}

static int apply_set(struct apply *a, struct op *op, bool switches)
{
	const char *path = plan_op_path(op);
	const struct stmt *st = op->st;
	const char *cur = NULL;
	struct fs_stat fst;
	size_t len = 0;
	bool known;
	int ret;

	op->has_old = false;
	ret = fs_lstat(a->fs, path, &fst);
	if (ret == -ENOENT && a->fs->simulate && st->any)
		return apply_set_any(a, op, true, path, NULL, 0);
	if (ret == -ENOENT && a->fs->simulate)
		goto write;	/* a stand-in for configfs: create it */
	if (ret == -ENOENT)
		op->detail = "no such attribute";
	if (ret)
		return ret;
	if (fst.kind != FS_FILE) {
		op->detail = "not an attribute";
		return -EINVAL;
	}
	known = (fst.mode & 0444) && !apply_read(a, path, &cur, &len);
	if (st->any)
		return apply_set_any(a, op, switches, path, known ? cur : NULL,
				     len);
	if (known && len == st->len && !memcmp(cur, st->arg, len))
		return APPLY_DONE;
	if (!known && !plan_in_new_dir(op) && !apply_dir_is_off(a, op))
		return APPLY_SKIPPED;
	if (known && !switches && format_is_off_value(cur, len) &&
	    !format_is_off_value(st->arg, st->len))
		return APPLY_DEFERRED;
	if (known) {
		op->has_old = true;
		op->old = arena_strndup(&a->plan->arena, cur, len);
		op->old_len = len;
	}
write:
	ret = apply_write(a, path, st->arg, st->len, cur, len);
	if (!ret)
		op->changed = true;
	return ret;
}

static int apply_mkdir(struct apply *a, struct op *op)
{
	const char *path = plan_op_path(op);
	struct fs_stat fst;
	int ret;

	ret = fs_mkdir(a->fs, path);
	if (!ret) {
		op->changed = true;
		return APPLY_DONE;
	}
	if ((ret == -EPERM || ret == -ENOENT) && !strchr(op->st->path, '/'))
		op->detail = "not made: is the subsystem's module loaded?";
	if (ret != -EEXIST)
		return ret;
	/* A default group made with its parent, or one already there. */
	if (!fs_lstat(a->fs, path, &fst) && fst.kind == FS_DIR)
		return APPLY_DONE;
	op->detail = "exists and is not a directory";
	return ret;
}

static int apply_link(struct apply *a, struct op *op)
{
	const char *path = plan_op_path(op);
	const char *want = plan_op_arg(op);
	struct fs_stat fst;
	char *target;
	int ret;

	ret = fs_lstat(a->fs, path, &fst);
	if (ret == -ENOENT) {
		ret = fs_symlink(a->fs, want, path);
		if (!ret)
			op->changed = true;
		return ret;
	}
	if (ret)
		return ret;
	if (fst.kind != FS_LINK) {
		op->detail = "exists and is not a link";
		return -EEXIST;
	}
	ret = fs_readlink(a->fs, path, &a->plan->arena, &target);
	if (ret)
		return ret;
	if (!strcmp(target, want))
		return APPLY_DONE;
	op->detail = arena_printf(&a->plan->arena, "exists, pointing to %s",
				  target);
	return -EEXIST;
}

static int apply_mode(struct apply *a, struct op *op)
{
	const struct stmt *st = op->st;
	struct fs_stat fst;
	int ret;

	ret = fs_lstat(a->fs, st->path, &fst);
	if (ret)
		return ret;
	if (st->kind == STMT_CHMOD) {
		if (fst.mode == st->mode)
			return APPLY_DONE;
		ret = fs_chmod(a->fs, st->path, st->mode);
	} else {
		if (fst.uid == st->uid && fst.gid == st->gid)
			return APPLY_DONE;
		ret = fs_chown(a->fs, st->path, st->uid, st->gid);
	}
	if (!ret)
		op->changed = true;
	return ret;
}

/*
 * Commits a live item made in pending/: rename(2) into live/. One that is
 * live already was found so before the first pass.
 */
static int apply_commit(struct apply *a, struct op *op)
{
	int ret = fs_rename(a->fs, op->st->arg, op->st->path);

	if (!ret)
		op->changed = true;
	else if (ret == -EEXIST || ret == -ENOTEMPTY)
		op->detail = "exists in live/ already";
	return ret;
}

/* Committable items already in live/: what is in them is applied there. */
static void apply_find_live(struct plan *plan, struct fs *fs)
{
	size_t i;

	for (i = 0; i < plan->nr_ops; i++) {
		struct op *op = plan->ops[i];
		struct fs_stat fst;

		if (op->st->kind == STMT_COMMIT &&
		    !fs_lstat(fs, op->st->path, &fst) && fst.kind == FS_DIR)
			op->state = OP_DONE;
	}
}

/* What @op did, where it did it: in pending/ for an item not yet live. */
static void apply_say(struct apply *a, const char *prefix,
		      const struct op *op)
{
	struct stmt st = *op->st;

	if (!(a->flags & APPLY_VERBOSE))
		return;
	if (st.kind != STMT_COMMIT) {
		st.path = plan_op_path(op);
		if (st.kind == STMT_LINK) {
			st.arg = plan_op_arg(op);
			st.len = strlen(st.arg);
		}
	}
	format_print_stmt(stdout, prefix, &st);
}

/* Tries @op once; returns true when it is now done or skipped. */
static bool apply_one(struct apply *a, struct op *op, bool switches,
		      bool *deferred)
{
	int ret = 0;

	if (op->state == OP_DONE || op->state == OP_SKIPPED || !plan_ready(op))
		return false;
	op->changed = false;
	op->detail = NULL;
	op->record = NULL;
	fs_clear_record(a->fs);
	switch (op->st->kind) {
	case STMT_MKDIR:
		ret = apply_mkdir(a, op);
		break;
	case STMT_SET:
		ret = apply_set(a, op, switches);
		break;
	case STMT_LINK:
		ret = apply_link(a, op);
		break;
	case STMT_CHMOD:
	case STMT_CHOWN:
		ret = apply_mode(a, op);
		break;
	case STMT_COMMIT:
		ret = apply_commit(a, op);
		break;
	case STMT_MODULE:
		break;		/* never in a plan: module.c */
	}
	if (ret == APPLY_DEFERRED) {
		*deferred = true;
		return false;
	}
	if (ret < 0) {
		op->state = OP_FAILED;
		op->err = -ret;
		if (fs_record(a->fs))
			op->record = arena_strdup(&a->plan->arena,
						  fs_record(a->fs));
		return false;
	}
	if (ret == APPLY_SKIPPED) {
		op->state = OP_SKIPPED;
		apply_say(a, "# write-only, left alone: ", op);
		return true;
	}
	op->state = OP_DONE;
	op->err = 0;
	if (op->changed) {
		apply_log(a, op);
		apply_say(a, "", op);
	}
	return true;
}

/* @value of @path as the file would hold it, for a message. */
static const char *apply_quote(struct apply *a, const char *path,
			       const char *value, size_t len)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem;

	mem = open_memstream(&text, &size);
	if (!mem)
		cfs_out_of_memory();
	format_put_value(mem, path, value, len);
	fclose(mem);
	value = arena_strdup(&a->plan->arena, text);
	free(text);
	return value;
}

/*
 * Does @path read as @st sets it? Either as save would keep it, or
 * whole: a value given with a trailing newline reads back with it. An
 * empty value is written as "\n" (fs_write_value()); an attribute that
 * keeps what it is given verbatim (LIO's auth strings) then reads
 * "\n\n", which is as near to empty as it can be made.
 */
static bool apply_reads_as(struct apply *a, const char *path,
			   const struct stmt *st, const char **cur,
			   size_t *len)
{
	if (apply_read(a, path, cur, len)) {
		*cur = NULL;
		return false;
	}
	if (*len == st->len && !memcmp(*cur, st->arg, *len))
		return true;
	if (!st->len)
		return a->raw_len == 2 && !memcmp(*cur, "\n\n", 2);
	return a->raw_len == st->len && !memcmp(*cur, st->arg, st->len);
}

/*
 * Reads @op's value back, and writes it again if it no longer reads as
 * written: the kernel changed it since, usually by a later write of this
 * run (LIO's enable resets attrib/block_size to the backing file's).
 * Returns true when it reads as the file says; when @final, a value that
 * still differs is made a failed statement, with what it reads.
 */
static bool apply_recheck(struct apply *a, struct op *op, bool final)
{
	const char *path = plan_op_path(op);
	const struct stmt *st = op->st;
	const char *cur;
	size_t len;
	int ret;

	if (apply_reads_as(a, path, st, &cur, &len) || !cur)
		return true;
	fs_clear_record(a->fs);
	ret = apply_write(a, path, st->arg, st->len, cur, len);
	if (!ret && apply_reads_as(a, path, st, &cur, &len)) {
		apply_say(a, "# changed by a later write, set again: ", op);
		return true;
	}
	if (!final)
		return false;
	if (!ret)
		apply_reads_as(a, path, st, &cur, &len);
	op->state = OP_FAILED;
	op->err = ret ? -ret : EIO;
	op->detail = arena_printf(&a->plan->arena,
				  "changed by the kernel after it was written; reads %s%s%s",
				  cur ? apply_quote(a, path, cur, len) : "?",
				  ret ? "; writing it again: " : "",
				  ret ? cfs_strerror(ret) : "");
	if (fs_record(a->fs))
		op->record = arena_strdup(&a->plan->arena, fs_record(a->fs));
	return false;
}

static bool apply_rechecks(const struct op *op)
{
	return op->st->kind == STMT_SET && op->state == OP_DONE &&
	       op->changed && !op->st->any;
}

/*
 * After a switch (@sw) was turned on: the values this run wrote before it
 * in its branch of the tree are read back, and one it reset is written
 * again at once, while the object may still take it (LIO refuses
 * block_size once a LUN exports the device, which the links do next).
 */
static void apply_after_switch(struct apply *a, struct op *sw)
{
	size_t i;

	for (i = 0; i < a->nr_log; i++) {
		struct op *op = a->log[i];

		if (op != sw && apply_rechecks(op) && plan_related(sw, op))
			apply_recheck(a, op, false);
	}
}

/*
 * Once nothing more applies, reads back each value this run wrote: one
 * that no longer reads as written is written again, now that everything
 * else is done, and what still differs is reported.
 */
static void apply_verify(struct apply *a)
{
	struct plan *plan = a->plan;
	size_t i;

	for (i = 0; i < plan->nr_ops; i++)
		if (apply_rechecks(plan->ops[i]))
			apply_recheck(a, plan->ops[i], true);
}

/*
 * One pass over the plan, skipping @exclude. The attributes of one
 * directory are consecutive in the plan; switches among them go last.
 */
static bool apply_pass(struct apply *a, struct op *exclude)
{
	struct plan *plan = a->plan;
	bool progress = false;
	size_t i = 0;

	while (i < plan->nr_ops) {
		size_t end = i + 1;
		size_t k;

		if (plan->ops[i]->st->kind == STMT_SET) {
			while (end < plan->nr_ops &&
			       plan->ops[end]->st->kind == STMT_SET &&
			       plan_same_dir(plan->ops[end], plan->ops[i]))
				end++;
		}
		for (k = i; k < end; k++) {
			struct op *op = plan->ops[k];

			op->deferred = false;
			if (op != exclude)
				progress |= apply_one(a, op, false,
						      &op->deferred);
		}
		for (k = i; k < end; k++) {
			struct op *op = plan->ops[k];

			if (!op->deferred ||
			    !apply_one(a, op, true, &op->deferred))
				continue;
			progress = true;
			if (op->changed)
				apply_after_switch(a, op);
		}
		i = end;
	}
	return progress;
}

static bool apply_undoable(const struct op *op)
{
	if (op->state != OP_DONE || !op->changed ||
	    op->undos >= APPLY_MAX_UNDOS)
		return false;
	return (op->st->kind == STMT_SET && op->has_old) ||
	       op->st->kind == STMT_LINK;
}

static int apply_undo(struct apply *a, struct op *op)
{
	int ret;

	if (op->st->kind == STMT_SET)
		ret = apply_write(a, plan_op_path(op), op->old, op->old_len,
				  op->st->arg, op->st->len);
	else
		ret = fs_unlink(a->fs, plan_op_path(op));
	if (ret)
		return ret;
	op->undos++;
	op->state = OP_PENDING;
	op->changed = false;
	if (a->flags & APPLY_VERBOSE) {
		struct stmt st = *op->st;

		st.path = plan_op_path(op);
		if (st.kind == STMT_SET) {
			st.arg = op->old;
			st.len = op->old_len;
			format_print_stmt(stdout, "# undo, to retry others: ",
					  &st);
		} else {
			printf("# undo, to retry others: unlink ");
			format_put_token(stdout, st.path, strlen(st.path));
			putchar('\n');
		}
	}
	return 0;
}

/*
 * Nothing moved: look for a change of this run that blocks the first
 * failed statement that has not been looked at yet.
 */
static bool apply_unblock(struct apply *a)
{
	struct plan *plan = a->plan;
	size_t i;

	for (i = 0; i < plan->nr_ops; i++) {
		struct op *failed = plan->ops[i];
		int tries = 0;
		size_t k;

		if (failed->state != OP_FAILED || failed->hopeless)
			continue;
		/* Nothing of the tree blocks a host setting: undo nothing. */
		if (path_is_host_setting(failed->st->path)) {
			failed->hopeless = true;
			continue;
		}
		for (k = a->nr_log; k-- > 0 && tries < APPLY_MAX_TRIES;) {
			struct op *suspect = a->log[k];
			bool deferred = false;

			if (suspect == failed || !apply_undoable(suspect) ||
			    !plan_related(suspect, failed))
				continue;
			tries++;
			if (apply_undo(a, suspect))
				continue;
			if (apply_one(a, failed, true, &deferred)) {
				apply_pass(a, suspect);
				apply_one(a, suspect, true, &deferred);
				return true;
			}
			apply_one(a, suspect, true, &deferred);
		}
		failed->hopeless = true;
	}
	return false;
}

#define APPLY_RECORD_HIDDEN \
	"  (the client's record is not shown: it may hold the value; configfs why shows it)\n"

static void apply_report(struct apply *a, const char *file)
{
	struct plan *plan = a->plan;
	size_t i;

	for (i = 0; i < plan->nr_ops; i++) {
		struct op *op = plan->ops[i];
		const struct stmt *st = op->st;
		char *text = NULL;
		size_t len = 0;
		FILE *mem;

		if (op->state == OP_DONE || op->state == OP_SKIPPED)
			continue;
		mem = open_memstream(&text, &len);
		if (!mem)
			cfs_out_of_memory();
		format_print_stmt(mem, "", st);
		fclose(mem);
		if (len)
			text[len - 1] = '\0';	/* the newline */
		if (op->state == OP_FAILED && path_is_host_setting(st->path)) {
			cfs_err(st->path, "warning: left as it is (%s:%u: %s): %s; nothing else in the tree needs it",
				file, st->line, text,
				op->detail ? op->detail :
				cfs_strerror(op->err));
		} else if (op->state == OP_FAILED) {
			cfs_err(st->path, "not applied (%s:%u: %s): %s",
				file, st->line, text,
				op->detail ? op->detail :
				cfs_strerror(op->err));
			if (op->record && cfs_hides(st->path))
				fputs(APPLY_RECORD_HIDDEN, stderr);
			else if (op->record)
				record_print(stderr, "  ", op->record,
					     strlen(op->record));
		} else if (st->kind == STMT_COMMIT) {
			cfs_err(st->path,
				"not committed (%s:%u: %s): left in pending/, since what it holds was not all applied",
				file, st->line, text);
		} else {
			cfs_err(st->path,
				"not attempted (%s:%u: %s): what it needs was not created",
				file, st->line, text);
		}
		free(text);
	}
}

/*
 * Applies @plan to the tree. Returns the number of statements that could
 * not be applied; each is reported with its line, value and error. A
 * host setting (path_is_host_setting()) that could not be set is
 * reported as a warning and not counted.
 */
int apply_plan(struct plan *plan, struct fs *fs, const char *file,
	       unsigned int flags)
{
	struct apply a = {
		.plan = plan,
		.fs = fs,
		.flags = flags,
	};
	int nr_left = 0;
	size_t i;

	a.buf = xmalloc(CFS_VALUE_MAX + 1);
	apply_find_live(plan, fs);
	for (;;) {
		bool progress = apply_pass(&a, NULL);

		for (i = 0; i < plan->nr_ops; i++)
			if (plan->ops[i]->state == OP_FAILED ||
			    plan->ops[i]->state == OP_PENDING)
				break;
		if (i == plan->nr_ops)
			break;
		if (!progress && !apply_unblock(&a))
			break;
	}
	apply_verify(&a);
	for (i = 0; i < plan->nr_ops; i++)
		if ((plan->ops[i]->state == OP_FAILED &&
		     !path_is_host_setting(plan->ops[i]->st->path)) ||
		    plan->ops[i]->state == OP_PENDING)
			nr_left++;
	apply_report(&a, file);
	free(a.log);
	free(a.buf);
	return nr_left;
}

struct describe {
	struct apply a;
	FILE *out;
	int nr_diffs;
	int nr_fails;		/* '!' lines: what restore would not apply */
	int nr_errors;		/* parts of the tree that could not be read */
};

static void describe_line(struct describe *d, const char *prefix,
			  const struct stmt *st, const char *note)
{
	format_print_stmt(d->out, prefix, st);
	if (note) {
		fputs("#  ^ ", d->out);
		cfs_put_safe(d->out, note, strlen(note));
		fputc('\n', d->out);
	}
	if (prefix[0] == '+' || prefix[0] == '!')
		d->nr_diffs++;
	if (prefix[0] == '!')
		d->nr_fails++;
}

static void describe_set(struct describe *d, struct op *op)
{
	const struct stmt *st = op->st;
	struct stmt old = *st;
	struct fs_stat fst;
	const char *cur;
	size_t len;
	int ret;

	if (plan_in_new_dir(op)) {
		describe_line(d, "+", st, NULL);
		return;
	}
	ret = fs_lstat(d->a.fs, plan_op_path(op), &fst);
	if (ret || fst.kind != FS_FILE) {
		describe_line(d, "!", st, ret ? cfs_strerror(ret) :
			      "not an attribute");
		return;
	}
	if (!(fst.mode & 0444) ||
	    apply_read(&d->a, plan_op_path(op), &cur, &len)) {
		format_print_stmt(d->out, "# write-only, left alone: ", st);
		return;
	}
	if (st->any ? len > 0 : len == st->len && !memcmp(cur, st->arg, len))
		return;
	old.any = false;
	old.arg = cur;
	old.len = len;
	describe_line(d, "-", &old, NULL);
	describe_line(d, "+", st, NULL);
}

static void describe_link(struct describe *d, struct op *op)
{
	const struct stmt *st = op->st;
	struct arena arena = { 0 };
	struct fs_stat fst;
	char *target;
	int ret;

	if (plan_in_new_dir(op)) {
		describe_line(d, "+", st, NULL);
		return;
	}
	ret = fs_lstat(d->a.fs, plan_op_path(op), &fst);
	if (ret == -ENOENT) {
		describe_line(d, "+", st, NULL);
		return;
	}
	if (!ret && fst.kind != FS_LINK)
		ret = -EEXIST;
	if (!ret)
		ret = fs_readlink(d->a.fs, plan_op_path(op), &arena, &target);
	if (ret)
		describe_line(d, "!", st, cfs_strerror(ret));
	else if (strcmp(target, plan_op_arg(op)) &&
		 (d->a.flags & APPLY_PRUNE))
		describe_line(d, "+", st, NULL);	/* after its '-' line */
	else if (strcmp(target, plan_op_arg(op)))
		describe_line(d, "!", st,
			      arena_printf(&arena, "exists, pointing to %s%s",
					   target,
					   "; restore replaces it only with --prune"));
	arena_free(&arena);
}

static void describe_mode(struct describe *d, struct op *op)
{
	const struct stmt *st = op->st;
	struct stmt old = *st;
	struct fs_stat fst;

	if (plan_in_new_dir(op) || fs_lstat(d->a.fs, st->path, &fst)) {
		describe_line(d, "+", st, NULL);
		return;
	}
	if (st->kind == STMT_CHMOD ? fst.mode == st->mode :
	    fst.uid == st->uid && fst.gid == st->gid)
		return;
	old.mode = fst.mode;
	old.uid = fst.uid;
	old.gid = fst.gid;
	describe_line(d, "-", &old, NULL);
	describe_line(d, "+", st, NULL);
}

/*
 * What the tree has and the file does not, as '-' lines: what restore
 * --prune removes. A link of the file pointing elsewhere is shown as a
 * '!' line already.
 */
static int describe_extras(struct describe *d, struct plan *plan,
			   const char *under)
{
	struct extras x;
	size_t i;
	int ret;

	ret = extras_find(&x, plan, d->a.fs, under);
	for (i = 0; i < x.nr; i++) {
		struct stmt st = {
			.kind = x.v[i].target ? STMT_LINK : STMT_MKDIR,
			.path = x.v[i].path,
			.arg = x.v[i].target,
			.len = x.v[i].target ? strlen(x.v[i].target) : 0,
		};

		if (x.v[i].elsewhere)
			continue;
		format_print_stmt(d->out, "-", &st);
		d->nr_diffs++;
	}
	extras_free(&x);
	return ret;
}

static int describe_cmp_line(const void *x, const void *y)
{
	const struct op *const *a = x;
	const struct op *const *b = y;

	return (int)(*a)->st->line - (int)(*b)->st->line;
}

/*
 * Prints what applying @plan would change under @under (NULL: anywhere),
 * as statements marked '+' (would be applied), '-' (the value it would
 * replace) or '!' (would fail). With APPLY_EXTRAS, also what the tree has
 * and the file does not, last, as '-' lines. Returns the number of '+',
 * '!' and such '-' lines, or -EIO when part of the tree could not be
 * read; the number of '!' lines in @nr_fails (when not NULL).
 */
int apply_describe(struct plan *plan, struct fs *fs, const char *under,
		   unsigned int flags, FILE *out, int *nr_fails)
{
	struct describe d = {
		.a = { .plan = plan, .fs = fs, .flags = flags },
		.out = out,
	};
	struct op **ops;
	size_t i;

	d.a.buf = xmalloc(CFS_VALUE_MAX + 1);
	apply_find_live(plan, fs);
	/* First which directories exist: the rest hangs on that. */
	for (i = 0; i < plan->nr_ops; i++) {
		struct op *op = plan->ops[i];
		struct fs_stat fst;
		int ret = -ENOENT;

		if (op->st->kind != STMT_MKDIR)
			continue;
		if (!plan_in_new_dir(op))
			ret = fs_lstat(fs, plan_op_path(op), &fst);
		op->changed = ret == -ENOENT;
		if (!ret && fst.kind != FS_DIR)
			op->detail = "exists and is not a directory";
		else if (ret && ret != -ENOENT)
			op->detail = cfs_strerror(ret);
		op->state = OP_DONE;
	}
	ops = xmalloc((plan->nr_ops + 1) * sizeof(*ops));
	memcpy(ops, plan->ops, plan->nr_ops * sizeof(*ops));
	if (flags & APPLY_BY_LINE)
		qsort(ops, plan->nr_ops, sizeof(*ops), describe_cmp_line);
	for (i = 0; i < plan->nr_ops; i++) {
		struct op *op = ops[i];

		if (under && !path_is_under(op->st->path, under))
			continue;
		switch (op->st->kind) {
		case STMT_MKDIR:
			if (op->detail)
				describe_line(&d, "!", op->st, op->detail);
			else if (op->changed)
				describe_line(&d, "+", op->st, NULL);
			break;
		case STMT_SET:
			describe_set(&d, op);
			break;
		case STMT_LINK:
			describe_link(&d, op);
			break;
		case STMT_CHMOD:
		case STMT_CHOWN:
			describe_mode(&d, op);
			break;
		case STMT_COMMIT:
			/* Not live yet: made or found in pending/. */
			if (op->state != OP_DONE)
				describe_line(&d, "+", op->st, NULL);
			break;
		case STMT_MODULE:
			break;
		}
	}
	if ((flags & APPLY_EXTRAS) && describe_extras(&d, plan, under))
		d.nr_errors++;
	free(ops);
	free(d.a.buf);
	if (nr_fails)
		*nr_fails = d.nr_fails;
	return d.nr_errors ? -EIO : d.nr_diffs;
}
