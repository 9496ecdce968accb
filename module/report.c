// SPDX-License-Identifier: GPL-2.0
/*
 * Errors a user can read: when a write, mkdir or symlink fails, the item
 * keeps a record of the failure (when, who, what, the errno) and of its
 * reason: what the client said with cfgng_report(), and the kernel log
 * lines the failing task printed while the client had the call. User
 * space reads it as the extended attribute "user.configfs.error" of the
 * item's directory, or of the attribute file that failed.
 *
 * A record shows each reader only what that reader could read anyway.
 * The value written, and the client's reason (which often quotes it),
 * are the file's contents in effect: they follow the file's read
 * permission, and the failing user always sees them. The kernel log's
 * lines follow the kernel log's rule: CAP_SYSLOG, or kernel.dmesg_restrict
 * off. Whatever is held back is replaced by a line that says so.
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
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/time64.h>
#include <linux/tracepoint.h>
#include <linux/xattr.h>

/*
 * For the modversion CRCs of this file's exports only, frozen: the
 * types <linux/inet.h> defines were visible to them when configfs-ng.h
 * held the helpers, and clients built then carry those CRCs.
 */
#include <linux/inet.h>

#include <configfs-ng.h>

#include "internal.h"

/* Capture slots: tasks inside a watched call at once, log bytes each. */
#define CNG_CAPTURES		32
#define CNG_CAPTURE_SIZE	512

/*
 * Longest reason a client can give, and longest value quoted: whatever
 * the page size, so that a record stays well within XATTR_SIZE_MAX (a
 * record is at most CNG_RECORD_MAX, cng_error_build()).
 */
#define CNG_REASON_MAX		4096
#define CNG_VALUE_MAX		64
#define CNG_RECORD_MAX		XATTR_SIZE_MAX

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
 * @uid: the failing task's fsuid, who always reads the value and reason
 * @slot: the attribute written, or 0: a reader of the directory's record
 *	  sees the value and reason only if it may read that file
 * @value_at: offset in @text of the quoted value, " 'maybe'"
 * @value_len: its bytes; 0 for a call without a value
 * @reason_at: offset of the first "reason: " line, or @log_at
 * @log_at: offset of the first "log: " line, or @len
 * @log_lines: how many "log: " lines there are
 * @len: bytes of @text, without its NUL
 * @text: the record in full, as its most privileged reader reads it
 *
 * Published in the node's extension with xchg(), read under RCU, freed
 * with kfree_rcu() or with the node.
 */
struct cng_error {
	struct rcu_head	rcu;
	u64		seq;
	kuid_t		uid;
	unsigned int	slot;
	unsigned int	value_at;
	unsigned int	value_len;
	unsigned int	reason_at;
	unsigned int	log_at;
	unsigned int	log_lines;
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
	/* A name this long is no attribute's: keep the record bounded. */
	file_len = min_t(size_t, file_len, PATH_MAX);
	/* The first line, then each line of reason and log with its tag. */
	size = 96 + file_len + strlen(value) +
	       reason_len + cng_lines(reason, reason_len) * sizeof("reason: ") +
	       sizeof("reason: ") + sizeof(cng_reason_lost) +
	       log_len + cng_lines(log, log_len) * sizeof("log: ");
	/*
	 * At most 4 KiB of one-byte reason lines and 512 bytes of log: 52 KiB.
	 * A reader's view replaces parts with a line each, adding at most 192.
	 */
	BUILD_BUG_ON(96 + PATH_MAX + 4 * CNG_VALUE_MAX + 8 +
		     CNG_REASON_MAX * (1 + sizeof("reason: ")) + 2 * 64 +
		     CNG_CAPTURE_SIZE * (1 + sizeof("log: ")) + 3 * 64 >
		     CNG_RECORD_MAX);
	error = kmalloc(struct_size(error, text, size), GFP_KERNEL);
	if (!error)
		return NULL;
	error->uid = current_fsuid();
	error->slot = call->slot;
	time64_to_tm(ktime_get_real_seconds(), 0, &tm);
	pos = sprintf(error->text,
		      "%04ld-%02d-%02dT%02d:%02d:%02dZ uid=%u pid=%d %s%s%.*s",
		      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		      tm.tm_min, tm.tm_sec,
		      from_kuid_munged(&init_user_ns, error->uid),
		      task_tgid_vnr(current), call->op, file_len ? " " : "",
		      (int)file_len, call->file);
	error->value_at = pos;
	pos += sprintf(error->text + pos, "%s", value);
	error->value_len = pos - error->value_at;
	/* A reason given outside a call has no errno. */
	if (err)
		pos += sprintf(error->text + pos, ": %pe", ERR_PTR(err));
	error->text[pos++] = '\n';
	error->reason_at = pos;
	pos = cng_append_lines(error->text, pos, "reason", reason, reason_len);
	if (reason_lost)
		pos += sprintf(error->text + pos, "reason: %s\n",
			       cng_reason_lost);
	error->log_at = pos;
	error->log_lines = log_len ? cng_lines(log, log_len) : 0;
	pos = cng_append_lines(error->text, pos, "log", log, log_len);
	error->len = pos;
	error->seq = atomic64_inc_return(&cng_errors_made);
	return error;
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
 * Context: inside such a callback, from the calling task, even atomic
 * (under a spinlock, interrupts off): then the reason is lost only when
 * memory runs out, and the record then says that a reason was not kept.
 * An interrupt or softirq is never inside the callback it interrupted.
 * Elsewhere, process context that may sleep.
 * Return: 0; -ENOMEM if the reason was lost; -EWOULDBLOCK when called
 * outside a callback from a context that cannot sleep (an interrupt
 * included); -ENOENT when @item is not in configfs.
 */
int cfgng_report(struct config_item *item, const char *fmt, ...)
{
	struct cng_capture *cap = cng_capture_mine();
	struct cng_call call = { .op = "report" };
	char *reason;
	va_list args;
	int ret;

	/*
	 * Only the task itself may touch its slot: an interrupt that came
	 * while the task was inside the call is not part of the call, and
	 * could otherwise realloc the reason under the task's own report.
	 */
	if (in_task() && cap && cap->call && cap->call->item == item) {
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

/*
 * Is kernel.dmesg_restrict set? Modules cannot read the variable, so this
 * reads the sysctl's file as init's root has it: a reader's own mount
 * namespace could put anything at /proc/sys. Set, when it cannot be read.
 */
static bool cng_dmesg_restricted(void)
{
	struct file *file;
	struct path root;
	char val[4] = "";
	loff_t pos = 0;
	ssize_t n;

	task_lock(&init_task);
	get_fs_root(init_task.fs, &root);
	task_unlock(&init_task);
	file = file_open_root(&root, "proc/sys/kernel/dmesg_restrict",
			      O_RDONLY, 0);
	path_put(&root);
	if (IS_ERR(file))
		return true;
	n = kernel_read(file, val, sizeof(val) - 1, &pos);
	fput(file);
	return n < 1 || val[0] != '0';
}

/* May the current task read the kernel log, as syslog(2) decides? */
static bool cng_may_read_log(void)
{
	return ns_capable_noaudit(&init_user_ns, CAP_SYSLOG) ||
	       !cng_dmesg_restricted();
}

/*
 * May the current task read the attribute in @slot of @dir's item? Asks
 * the attribute's inode, as an open() would, so saved modes, owners and
 * security modules all count. No, when the item is going away.
 */
static bool cng_may_read_attr(struct super_block *sb, struct cng_node *dir,
			      unsigned int slot)
{
	struct inode *inode = NULL;
	unsigned int kind;
	const void *attr;
	bool ret = false;

	if (!cng_node_get_active(dir))
		return false;
	if (cng_attr_find(dir, NULL, slot, &attr, &kind))
		inode = cng_inode_get(sb, dir, kind, slot, attr);
	cng_node_put_active(dir);
	if (!IS_ERR_OR_NULL(inode)) {
		ret = !inode_permission(&nop_mnt_idmap, inode, MAY_READ);
		iput(inode);
	}
	return ret;
}

/* Puts @len bytes of @src at @pos of @buf, if there is a @buf. */
static size_t cng_put(char *buf, size_t pos, const char *src, size_t len)
{
	if (buf)
		memcpy(buf + pos, src, len);
	return pos + len;
}

static const char cng_value_hidden[] = " (value hidden)";
static const char cng_reason_hidden[] =
	"reason: (hidden: needs read access to the file)\n";

/*
 * @error as one reader reads it, into @buf, or only its length: with its
 * value and reason if @content, with its log lines if @log.
 */
static size_t cng_error_view(const struct cng_error *error, bool content,
			     bool log, char *buf)
{
	const char *text = error->text;
	unsigned int after_value = error->value_at + error->value_len;
	char line[64];
	size_t pos;

	pos = cng_put(buf, 0, text, error->value_at);
	if (content)
		pos = cng_put(buf, pos, text + error->value_at,
			      error->value_len);
	else if (error->value_len)
		pos = cng_put(buf, pos, cng_value_hidden,
			      sizeof(cng_value_hidden) - 1);
	pos = cng_put(buf, pos, text + after_value,
		      error->reason_at - after_value);
	if (content)
		pos = cng_put(buf, pos, text + error->reason_at,
			      error->log_at - error->reason_at);
	else if (error->log_at > error->reason_at)
		pos = cng_put(buf, pos, cng_reason_hidden,
			      sizeof(cng_reason_hidden) - 1);
	if (log)
		return cng_put(buf, pos, text + error->log_at,
			       error->len - error->log_at);
	if (!error->log_lines)
		return pos;
	return cng_put(buf, pos, line,
		       scnprintf(line, sizeof(line),
				 "log: (%u line%s hidden: need CAP_SYSLOG)\n",
				 error->log_lines,
				 error->log_lines == 1 ? "" : "s"));
}

/*
 * "user.configfs.error": the record, of a directory or of its file. The
 * VFS lets only those who may read the file or directory ask (user.*
 * xattrs need MAY_READ); what of the record each may see is decided here,
 * where sleeping is allowed, and then the record is read under RCU. If a
 * new record replaced it meanwhile, and differs in what decides, the
 * decision is taken again.
 */
static int cng_xattr_error_get(const struct xattr_handler *handler,
			       struct dentry *unused, struct inode *inode,
			       const char *name, void *buf, size_t size)
{
	bool decided = false, content = false, log = false, log_known = false;
	struct cng_inode *ci = CNG_I(inode);
	struct cng_node *node = ci->node;
	unsigned int slot = 0, tries;
	struct cng_node_ext *ext;
	struct cng_error *error;
	kuid_t uid = INVALID_UID;
	bool need_log;
	int ret;

	/* A file's record is the one of a write to that file. */
	if (ci->kind != CNG_FILE_DIR &&
	    (ci->kind != CNG_FILE_ATTR || !ci->slot))
		return -ENODATA;

	for (tries = 0;; tries++) {
		rcu_read_lock();
		ext = cng_node_ext_peek(node);
		error = ext ? rcu_dereference(ext->error) : NULL;
		if (!error || (ci->kind == CNG_FILE_ATTR &&
			       error->slot != ci->slot)) {
			rcu_read_unlock();
			return -ENODATA;
		}
		if (decided && error->slot == slot && uid_eq(error->uid, uid) &&
		    (log_known || !error->log_lines)) {
			ret = cng_error_view(error, content, log, NULL);
			if (size && size < ret)
				ret = -ERANGE;
			else if (size)
				cng_error_view(error, content, log, buf);
			rcu_read_unlock();
			return ret;
		}
		slot = error->slot;
		uid = error->uid;
		need_log = error->log_lines;
		rcu_read_unlock();

		/* A new record each time: writers fail faster than we read. */
		if (tries == 3)
			return -EAGAIN;
		/*
		 * Reading the file's own record, the reader may read the
		 * file: the VFS asked.
		 */
		content = ci->kind == CNG_FILE_ATTR || !slot ||
			  uid_eq(uid, current_fsuid()) ||
			  cng_may_read_attr(inode->i_sb, node, slot);
		if (need_log && !log_known) {
			log = cng_may_read_log();
			log_known = true;
		}
		decided = true;
	}
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
	/*
	 * Without the tracepoint (or tracepoints at all: a kernel built
	 * without CONFIG_TRACEPOINTS), records only lack the log lines.
	 */
	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		return 0;
	for_each_kernel_tracepoint(cng_find_console_tp, NULL);
	if (cng_console_tp &&
	    tracepoint_probe_register(cng_console_tp, cng_console_probe, NULL))
		cng_console_tp = NULL;
	return 0;
}

void cng_report_exit(void)
{
	if (!IS_ENABLED(CONFIG_TRACEPOINTS) || !cng_console_tp)
		return;
	tracepoint_probe_unregister(cng_console_tp, cng_console_probe, NULL);
	tracepoint_synchronize_unregister();
}
