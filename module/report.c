// SPDX-License-Identifier: GPL-2.0
/*
 * Errors a user can read: when a write, mkdir or symlink fails, the item
 * keeps a record of the failure (when, who, what, the errno) and of its
 * reason: what the client said with cfgng_report(), and the kernel log
 * lines the failing task printed while the client had the call. User
 * space reads it as the extended attribute "user.configfs.error" of the
 * item's directory, or of the attribute file that failed.
 *
 * A call is watched from cng_call_begin() to cng_call_end(). While a
 * task is inside one it owns a capture slot: a probe on the printk
 * "console" tracepoint, which runs in the context of the printing task,
 * copies into the slot the lines its owner prints, and nothing else. A
 * line printed by an interrupt, or by any other task, never lands in a
 * slot: the probe only writes to the slot of the current task, found by
 * comparing task pointers, so no other task ever touches it.
 */
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/time64.h>
#include <linux/tracepoint.h>
#include <linux/xattr.h>

#include <configfs-ng.h>

#include "internal.h"

/* Capture slots: tasks inside a watched call at once, log bytes each. */
#define CNG_CAPTURES		32
#define CNG_CAPTURE_SIZE	512

/* Longest reason a client can give, and longest value quoted. */
#define CNG_REASON_MAX		PAGE_SIZE
#define CNG_VALUE_MAX		64

/**
 * struct cng_capture - one task's watched call
 * @task: the owner, or NULL when free; claimed with cmpxchg(), read by
 *	  every probe. Every other field is touched only by the owner.
 * @call: the call
 * @reason: what the client said, kmalloc'd, or NULL
 * @reason_len: bytes in @reason
 * @reason_lost: a reason could not be kept (out of memory)
 * @log_len: bytes in @log
 * @log: the lines the owner printed, each ending in a newline
 */
struct cng_capture {
	struct task_struct	*task;
	struct cng_call		*call;
	char			*reason;
	unsigned int		reason_len;
	bool			reason_lost;
	unsigned int		log_len;
	char			log[CNG_CAPTURE_SIZE];
};

static struct cng_capture cng_captures[CNG_CAPTURES];
/* Slots in use: the probe's way out when nobody is watched. */
static atomic_t cng_captures_used = ATOMIC_INIT(0);
static struct tracepoint *cng_console_tp;

/* Records made so far: a record's number orders it against calls. */
static atomic64_t cng_errors_made = ATOMIC64_INIT(0);

/* What the record says for a reason that was given but not kept. */
static const char cng_reason_lost[] = "(not kept: out of memory)";

/**
 * struct cng_error - the last failure on an item
 * @rcu: for freeing after readers
 * @seq: its number, from cng_errors_made
 * @file_len: length of the file's name, which is stored at @text + @file
 * @file: offset of the file's name in @text
 * @len: bytes of @text, without its NUL
 * @text: the record as user space reads it, then the file's name
 *
 * Published in the node's extension with xchg(), read under RCU, freed
 * with kfree_rcu() or with the node.
 */
struct cng_error {
	struct rcu_head	rcu;
	u64		seq;
	unsigned int	file_len;
	unsigned int	file;
	unsigned int	len;
	char		text[];
};

void cng_error_free(struct cng_error *error)
{
	kfree(error);
}

/* The current task's slot, or NULL. Any context. */
static struct cng_capture *cng_capture_mine(void)
{
	unsigned int i;

	if (!atomic_read(&cng_captures_used))
		return NULL;
	for (i = 0; i < CNG_CAPTURES; i++)
		if (READ_ONCE(cng_captures[i].task) == current)
			return &cng_captures[i];
	return NULL;
}

static void cng_console_probe(void *data, const char *text, size_t len)
{
	struct cng_capture *cap;
	size_t room;

	/* A line from an interrupt is not the task's. */
	if (!in_task())
		return;
	cap = cng_capture_mine();
	if (!cap || !READ_ONCE(cap->call))
		return;
	/* Keep one byte for the newline; a cut line keeps its start. */
	room = CNG_CAPTURE_SIZE - cap->log_len;
	if (room < 2)
		return;
	len = min(len, room - 1);
	memcpy(cap->log + cap->log_len, text, len);
	cap->log_len += len;
	cap->log[cap->log_len++] = '\n';
}

/**
 * cng_call_begin() - watch a call into the client that may fail
 * @call: the call, filled in by the caller: where to record, what
 *
 * Without a free capture slot the call is still recorded if it fails,
 * only without the lines it printed.
 *
 * Context: process; does not sleep.
 */
void cng_call_begin(struct cng_call *call)
{
	unsigned int i, start = hash_ptr(current, ilog2(CNG_CAPTURES));

	call->capture = NULL;
	call->since = atomic64_read(&cng_errors_made);
	for (i = 0; i < CNG_CAPTURES; i++) {
		struct cng_capture *cap;

		cap = &cng_captures[(start + i) % CNG_CAPTURES];
		if (READ_ONCE(cap->task) || cmpxchg(&cap->task, NULL, current))
			continue;
		cap->call = call;
		cap->reason = NULL;
		cap->reason_len = 0;
		cap->reason_lost = false;
		cap->log_len = 0;
		call->capture = cap;
		atomic_inc(&cng_captures_used);
		return;
	}
}

/* Gives the slot back; its reason is the caller's now. */
static void cng_capture_release(struct cng_capture *cap)
{
	cap->reason = NULL;
	atomic_dec(&cng_captures_used);
	/* The slot's contents are read by nobody from here on. */
	smp_store_release(&cap->task, NULL);
}

/* A quoted value: printable, escaped, cut at CNG_VALUE_MAX bytes. */
static void cng_quote(char *out, size_t size, const char *value, size_t len)
{
	size_t n = min_t(size_t, len, CNG_VALUE_MAX);
	int w;

	/* A written value's trailing newline is the shell's, not the user's. */
	if (n && n == len && value[n - 1] == '\n')
		n--;
	w = string_escape_mem(value, n, out, size - 1,
			      ESCAPE_ANY_NP | ESCAPE_HEX, "'\\");
	out[min_t(size_t, w, size - 1)] = 0;
}

/* How many lines cng_append_lines() makes of @text. */
static size_t cng_lines(const char *text, size_t len)
{
	size_t lines = 0;
	const char *nl;

	while (len) {
		nl = memchr(text, '\n', len);
		lines++;
		if (!nl)
			break;
		len -= nl + 1 - text;
		text = nl + 1;
	}
	return lines;
}

/* Every line of @text prefixed with @tag, into @out (from kmalloc). */
static size_t cng_append_lines(char *out, size_t pos, const char *tag,
			       const char *text, size_t len)
{
	while (len) {
		const char *nl = memchr(text, '\n', len);
		size_t line = nl ? nl - text : len;

		pos += sprintf(out + pos, "%s: %.*s\n", tag, (int)line, text);
		line += !!nl;
		text += line;
		len -= line;
	}
	return pos;
}

static struct cng_error *cng_error_build(struct cng_call *call, int err,
					 const char *reason,
					 unsigned int reason_len,
					 bool reason_lost,
					 const char *log, unsigned int log_len)
{
	char value[4 * CNG_VALUE_MAX + 8];
	size_t file_len = strlen(call->file), size, pos;
	struct cng_error *error;
	struct tm tm;

	value[0] = 0;
	if (call->value) {
		value[0] = ' ';
		value[1] = '\'';
		cng_quote(value + 2, sizeof(value) - 4, call->value,
			  call->value_len);
		strcat(value, "'");
	}
	/* The first line, then each line of reason and log with its tag. */
	size = 96 + 2 * file_len + strlen(value) +
	       reason_len + cng_lines(reason, reason_len) * sizeof("reason: ") +
	       sizeof("reason: ") + sizeof(cng_reason_lost) +
	       log_len + cng_lines(log, log_len) * sizeof("log: ");
	error = kmalloc(struct_size(error, text, size), GFP_KERNEL);
	if (!error)
		return NULL;
	time64_to_tm(ktime_get_real_seconds(), 0, &tm);
	pos = sprintf(error->text,
		      "%04ld-%02d-%02dT%02d:%02d:%02dZ uid=%u pid=%d %s%s%s%s",
		      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		      tm.tm_min, tm.tm_sec,
		      from_kuid_munged(&init_user_ns, current_fsuid()),
		      task_tgid_vnr(current), call->op, file_len ? " " : "",
		      call->file, value);
	/* A reason given outside a call has no errno. */
	if (err)
		pos += sprintf(error->text + pos, ": %pe", ERR_PTR(err));
	error->text[pos++] = '\n';
	pos = cng_append_lines(error->text, pos, "reason", reason, reason_len);
	if (reason_lost)
		pos += sprintf(error->text + pos, "reason: %s\n",
			       cng_reason_lost);
	pos = cng_append_lines(error->text, pos, "log", log, log_len);
	error->len = pos;
	error->file = pos + 1;
	error->file_len = file_len;
	memcpy(error->text + error->file, call->file, file_len + 1);
	error->seq = atomic64_inc_return(&cng_errors_made);
	return error;
}

/* The node's extension, or NULL, read without the tree mutex. */
static struct cng_node_ext *cng_node_ext_peek(struct cng_node *node)
{
	/* Pairs with the release in cng_node_ext_locked(): set up in full. */
	return smp_load_acquire(&node->ext);
}

/* Makes @error the node's record, in place of any older one. */
static void cng_error_set(struct cng_node *node, struct cng_error *error)
{
	struct cng_node_ext *ext = cng_node_ext_peek(node);
	struct cng_error *old;

	if (!ext) {
		mutex_lock(&cng_tree_mutex);
		ext = cng_node_ext_locked(node, GFP_KERNEL);
		mutex_unlock(&cng_tree_mutex);
		if (!ext) {
			kfree(error);
			return;
		}
	}
	old = unrcu_pointer(xchg(&ext->error, RCU_INITIALIZER(error)));
	if (old)
		kfree_rcu(old, rcu);
}

/*
 * Clears the node's record if it is not newer than @since: a record made
 * while a call ran (a reason the client gave from elsewhere meanwhile)
 * is not undone by that call's success.
 */
static void cng_error_clear(struct cng_node *node, u64 since)
{
	struct cng_node_ext *ext = cng_node_ext_peek(node);
	struct cng_error *old;

	if (!ext || !rcu_access_pointer(ext->error))
		return;
	rcu_read_lock();
	old = rcu_dereference(ext->error);
	if (old && (old->seq > since ||
		    unrcu_pointer(cmpxchg(&ext->error, RCU_INITIALIZER(old),
					  NULL)) != old))
		old = NULL;
	rcu_read_unlock();
	if (old)
		kfree_rcu(old, rcu);
}

/* "/nvmet/ports/1", the directory's path from the mount point. */
static void cng_node_path(struct cng_node *node, char *buf, size_t size)
{
	size_t pos = size - 1;
	size_t len;

	buf[pos] = 0;
	mutex_lock(&cng_tree_mutex);
	for (; node->parent && cng_node_visible(node); node = node->parent) {
		len = strlen(node->name);
		if (len + 1 > pos)
			break;
		pos -= len;
		memcpy(buf + pos, node->name, len);
		buf[--pos] = '/';
	}
	mutex_unlock(&cng_tree_mutex);
	if (pos == size - 1)
		buf[--pos] = '/';
	memmove(buf, buf + pos, size - pos);
}

static DEFINE_RATELIMIT_STATE(cng_report_ratelimit, 5 * HZ, 10);

/* The kernel log's line: which file failed, for whom. */
static void cng_call_log(struct cng_call *call, int err)
{
	char *path;

	if (!__ratelimit(&cng_report_ratelimit))
		return;
	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return;
	cng_node_path(call->node, path, PATH_MAX);
	pr_info("%s %s%s%s failed: %pe (%s[%d] uid %u)\n", call->op, path,
		strcmp(path, "/") && *call->file ? "/" : "", call->file,
		ERR_PTR(err),
		current->comm, task_tgid_vnr(current),
		from_kuid_munged(&init_user_ns, current_fsuid()));
	kfree(path);
}

/**
 * cng_call_end() - record how a watched call ended
 * @call: the call, begun with cng_call_begin()
 * @err: its result: a negative errno fails it, anything else is success
 *
 * A failure replaces the record of @call's node, unless the node is gone
 * (the record would be read by nobody), and is logged; a success, or a
 * failure whose record cannot be allocated, clears the record, unless
 * the record was made while the call ran. A reason the client could not
 * keep for lack of memory shows as such.
 *
 * Context: process; sleeps; takes cng_tree_mutex. The caller holds a
 * reference on @call->node.
 */
void cng_call_end(struct cng_call *call, int err)
{
	unsigned int reason_len = 0, log_len = 0;
	struct cng_capture *cap = call->capture;
	struct cng_error *error = NULL;
	bool reason_lost = false;
	const char *log = NULL;
	char *reason = NULL;

	if (cap) {
		/* The probe stops here; the slot is still ours to read. */
		WRITE_ONCE(cap->call, NULL);
		reason = cap->reason;
		/* Counted with a NUL, for the next reason's newline. */
		reason_len = cap->reason_len ? cap->reason_len - 1 : 0;
		reason_lost = cap->reason_lost;
		log = cap->log;
		log_len = cap->log_len;
	}
	if (err < 0 && !cng_node_gone(call->node))
		error = cng_error_build(call, err, reason, reason_len,
					reason_lost, log, log_len);
	if (cap)
		cng_capture_release(cap);
	kfree(reason);
	/* Out of memory for the record: no older one stays beside it. */
	if (err >= 0 || !error) {
		cng_error_clear(call->node, call->since);
	} else {
		cng_error_set(call->node, error);
		cng_call_log(call, err);
	}
}

/* Appends to the slot's reason, truncating at CNG_REASON_MAX. */
static __printf(2, 0) int cng_capture_reason(struct cng_capture *cap, const char *fmt,
			      va_list args)
{
	unsigned int room, len;
	va_list copy;
	char *reason;

	if (cap->reason_len >= CNG_REASON_MAX - 1)
		return 0;
	va_copy(copy, args);
	len = vsnprintf(NULL, 0, fmt, copy) + 1;
	va_end(copy);
	room = CNG_REASON_MAX - cap->reason_len;
	len = min(len, room);
	/* Any context: a client may report under its spinlock. */
	reason = krealloc(cap->reason, cap->reason_len + len,
			  GFP_ATOMIC | __GFP_NOWARN);
	if (!reason) {
		cap->reason_lost = true;
		return -ENOMEM;
	}
	cap->reason = reason;
	if (cap->reason_len)
		reason[cap->reason_len - 1] = '\n';
	cap->reason_len += vscnprintf(reason + cap->reason_len, len, fmt,
				      args) + 1;
	/* Counted with its NUL, which the next reason turns into a newline. */
	return 0;
}

/**
 * cfgng_report() - say why a call on an item fails, or what went wrong
 * @item: the item the user called on: the item of the attribute being
 *	  written, or the group in which a directory or link is being made
 * @fmt: printf format of the reason, without a trailing newline
 *
 * Inside a callback configfs makes for the current task on @item (an
 * attribute's store, make_item or make_group, allow_link), the reason
 * goes with that call: if the callback then fails, user space reads it
 * with the failure's errno, time and file; if it succeeds, the reason is
 * dropped. Several reasons in one callback are kept in order. Reasons
 * longer than a page are cut.
 *
 * Elsewhere, the reason becomes the item's record at once, as a
 * failure of the item itself (for a client that finds out later that a
 * setting does not work).
 *
 * Context: inside such a callback, any context, even atomic: then the
 * reason is lost only when memory runs out, and the record then says
 * that a reason was not kept. Elsewhere, process context
 * that may sleep.
 * Return: 0; -ENOMEM if the reason was lost; -EWOULDBLOCK when called
 * outside a callback from a context that cannot sleep; -ENOENT when
 * @item is not in configfs.
 */
int cfgng_report(struct config_item *item, const char *fmt, ...)
{
	struct cng_capture *cap = cng_capture_mine();
	struct cng_call call = { .op = "report" };
	char *reason;
	va_list args;
	int ret;

	if (cap && cap->call && cap->call->item == item) {
		va_start(args, fmt);
		ret = cng_capture_reason(cap, fmt, args);
		va_end(args);
		return ret;
	}
	if (!in_task() || irqs_disabled() ||
	    (IS_ENABLED(CONFIG_PREEMPT_COUNT) &&
	     (preempt_count() || rcu_preempt_depth())))
		return -EWOULDBLOCK;

	va_start(args, fmt);
	reason = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	if (!reason)
		return -ENOMEM;
	if (strlen(reason) >= CNG_REASON_MAX)
		reason[CNG_REASON_MAX - 1] = 0;

	ret = -ENOENT;
	mutex_lock(&cng_tree_mutex);
	call.node = cng_node_from_item_locked(item);
	if (call.node && cng_node_visible(call.node)) {
		cng_node_get(call.node);
		ret = 0;
	}
	mutex_unlock(&cng_tree_mutex);
	if (!ret) {
		struct cng_error *error;

		call.file = config_item_name(item) ?: "";
		error = cng_error_build(&call, 0, reason, strlen(reason),
					false, NULL, 0);
		ret = -ENOMEM;
		if (error) {
			cng_error_set(call.node, error);
			ret = 0;
		}
		cng_node_put(call.node);
	}
	kfree(reason);
	return ret;
}
EXPORT_SYMBOL_GPL(cfgng_report);

/* "user.configfs.error": the record, of a directory or of its file. */
static int cng_xattr_error_get(const struct xattr_handler *handler,
			       struct dentry *unused, struct inode *inode,
			       const char *name, void *buf, size_t size)
{
	struct cng_inode *ci = CNG_I(inode);
	struct cng_node *node = ci->node;
	const char *file = NULL;
	struct cng_node_ext *ext;
	struct cng_error *error;
	int ret = -ENODATA;

	if (ci->kind == CNG_FILE_ATTR || ci->kind == CNG_FILE_BIN_ATTR) {
		if (!cng_node_get_active(node))
			return -ENODATA;
		file = ci->kind == CNG_FILE_ATTR ?
			((const struct configfs_attribute *)ci->attr)->ca_name :
			((const struct configfs_bin_attribute *)ci->attr)->cb_attr.ca_name;
	} else if (ci->kind != CNG_FILE_DIR) {
		return -ENODATA;
	}

	rcu_read_lock();
	ext = cng_node_ext_peek(node);
	error = ext ? rcu_dereference(ext->error) : NULL;
	if (!error || (file && strcmp(file, error->text + error->file)))
		goto out_unlock;
	ret = error->len;
	if (size && size < error->len)
		ret = -ERANGE;
	else if (size)
		memcpy(buf, error->text, error->len);
out_unlock:
	rcu_read_unlock();
	if (file)
		cng_node_put_active(node);
	return ret;
}

static const struct xattr_handler cng_xattr_error = {
	.name	= "user.configfs.error",
	.get	= cng_xattr_error_get,
};

/* No listxattr: as in stock, listing shows nothing. */
const struct xattr_handler *cng_xattr_handlers[] = {
	&cng_xattr_error,
	NULL,
};

static void cng_find_console_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "console"))
		cng_console_tp = tp;
}

int cng_report_init(void)
{
	for_each_kernel_tracepoint(cng_find_console_tp, NULL);
	/* Without the tracepoint, records only lack the log lines. */
	if (cng_console_tp &&
	    tracepoint_probe_register(cng_console_tp, cng_console_probe, NULL))
		cng_console_tp = NULL;
	return 0;
}

void cng_report_exit(void)
{
	if (!cng_console_tp)
		return;
	tracepoint_probe_unregister(cng_console_tp, cng_console_probe, NULL);
	tracepoint_synchronize_unregister();
}
