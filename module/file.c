// SPDX-License-Identifier: GPL-2.0
/*
 * Attribute files, text and binary, with stock's I/O semantics byte for
 * byte, and with removal racing open files.
 *
 * Every call into the client (show, store, read, write) holds an active
 * reference on the item's node; once the item is being removed those
 * calls are not made and the file returns -ENODEV.
 */
#include <linux/configfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include "internal.h"

/*
 * A text attribute's size limit: stock's, whatever the page size. Its
 * buffer is a whole page all the same, since clients format with
 * scnprintf(page, PAGE_SIZE, ...): on a 64K-page kernel a show may write
 * up to 64K, which then fails with -EIO, as on stock, instead of
 * overrunning a 4K buffer.
 */
#define CNG_ATTR_SIZE	4096
#define CNG_ATTR_BUF	PAGE_SIZE

/**
 * struct cng_buffer - the state of one open attribute file
 * @mutex: serialises I/O on this open file; held across client calls
 * @node: the item's directory node; the file's inode holds a reference
 * @attr: a text attribute
 * @bin_attr: a binary attribute
 * @owner: the attribute's module, pinned while the file is open
 * @page: a text attribute's buffer of CNG_ATTR_BUF bytes (stock's page):
 *	  the show output or the store input; from kmalloc, whose per-CPU
 *	  lists are cheaper than the page allocator for one-shot opens
 * @count: bytes of show output in @page
 * @event: the file's change count when @page was filled (notify.c)
 * @needs_read_fill: the next read calls show
 * @read_in_progress: a binary file was read; writing it is refused
 * @write_in_progress: a binary file was written; reading it is refused
 * @write_failed: a binary write ran out of memory: the last close delivers
 *		  nothing, so the client keeps its value (stock delivers what
 *		  was buffered)
 * @bin_buffer: a binary attribute's contents
 * @bin_buffer_size: bytes in @bin_buffer
 * @cb_max_size: a binary attribute's limit, 0 for none
 */
struct cng_buffer {
	struct mutex		mutex;	/* serialises I/O on this open file */
	struct cng_node		*node;
	union {
		const struct configfs_attribute		*attr;
		const struct configfs_bin_attribute	*bin_attr;
	};
	struct module		*owner;
	char			*page;
	size_t			count;
	int			event;
	bool			needs_read_fill;
	bool			read_in_progress;
	bool			write_in_progress;
	bool			write_failed;
	char			*bin_buffer;
	size_t			bin_buffer_size;
	size_t			cb_max_size;
};

static int cng_attr_fill_read(struct cng_buffer *buffer, struct file *file)
{
	ssize_t count;

	if (!buffer->page)
		buffer->page = kzalloc(CNG_ATTR_BUF, GFP_KERNEL);
	if (!buffer->page)
		return -ENOMEM;

	if (!cng_node_get_active(buffer->node))
		return -ENODEV;
	/* poll() reads it without the buffer's mutex. */
	WRITE_ONCE(buffer->event, cng_poll_event(file));
	count = buffer->attr->show(buffer->node->item, buffer->page);
	cng_node_put_active(buffer->node);

	if (count < 0)
		return count;
	if (count > (ssize_t)CNG_ATTR_SIZE) {
		pr_err_ratelimited("%s: show returned %zd bytes, more than a page\n",
				   buffer->attr->ca_name, count);
		return -EIO;
	}
	buffer->needs_read_fill = false;
	buffer->count = count;
	return 0;
}

static ssize_t cng_attr_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct cng_buffer *buffer = iocb->ki_filp->private_data;
	ssize_t ret = 0;

	mutex_lock(&buffer->mutex);
	/* Stock shows once per open; a read from the start shows again. */
	if (buffer->needs_read_fill || iocb->ki_pos == 0) {
		ret = cng_attr_fill_read(buffer, iocb->ki_filp);
		if (ret)
			goto out_unlock;
	}
	if (iocb->ki_pos >= buffer->count)
		goto out_unlock;
	ret = copy_to_iter(buffer->page + iocb->ki_pos,
			   buffer->count - iocb->ki_pos, to);
	iocb->ki_pos += ret;
	/* Stock reports a read that copied nothing as a fault. */
	if (ret == 0)
		ret = -EFAULT;
out_unlock:
	mutex_unlock(&buffer->mutex);
	return ret;
}

/* Each write reaches store whole, at most a page less one, terminated. */
static ssize_t cng_attr_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct cng_buffer *buffer = iocb->ki_filp->private_data;
	struct cng_call call = { .op = "write" };
	ssize_t ret;
	size_t copied;

	mutex_lock(&buffer->mutex);
	if (!buffer->page)
		buffer->page = kmalloc(CNG_ATTR_BUF, GFP_KERNEL);
	if (!buffer->page) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	copied = copy_from_iter(buffer->page, CNG_ATTR_SIZE - 1, from);
	buffer->needs_read_fill = true;
	buffer->page[copied] = 0;
	if (!copied) {
		ret = -EFAULT;
		goto out_unlock;
	}

	if (!cng_node_get_active(buffer->node)) {
		ret = -ENODEV;
		goto out_unlock;
	}
	call.node = buffer->node;
	call.item = buffer->node->item;
	call.file = buffer->attr->ca_name;
	call.slot = CNG_I(file_inode(iocb->ki_filp))->slot;
	call.value = buffer->page;
	call.value_len = copied;
	cng_call_begin(&call);
	ret = buffer->attr->store(buffer->node->item, buffer->page, copied);
	cng_node_put_active(buffer->node);
	/* Stock passes store's result through an int. */
	ret = (int)ret;
	cng_call_end(&call, ret);
	if (ret > 0)
		iocb->ki_pos += ret;
out_unlock:
	mutex_unlock(&buffer->mutex);
	return ret;
}

/* The first read sizes the contents with a NULL buffer, then fills them. */
static ssize_t cng_bin_fill_read(struct cng_buffer *buffer)
{
	const struct configfs_bin_attribute *cb = buffer->bin_attr;
	ssize_t len;

	if (!cng_node_get_active(buffer->node))
		return -ENODEV;
	len = cb->read(buffer->node->item, NULL, 0);
	cng_node_put_active(buffer->node);
	if (len <= 0)
		return len;
	if (buffer->cb_max_size && len > buffer->cb_max_size)
		return -EFBIG;

	buffer->bin_buffer = vmalloc(len);
	if (!buffer->bin_buffer)
		return -ENOMEM;
	buffer->bin_buffer_size = len;

	if (!cng_node_get_active(buffer->node)) {
		len = -ENODEV;
	} else {
		len = cb->read(buffer->node->item, buffer->bin_buffer, len);
		cng_node_put_active(buffer->node);
	}
	if (len < 0) {
		vfree(buffer->bin_buffer);
		buffer->bin_buffer = NULL;
		buffer->bin_buffer_size = 0;
		return len;
	}
	buffer->needs_read_fill = false;
	return 1;
}

static ssize_t cng_bin_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct cng_buffer *buffer = iocb->ki_filp->private_data;
	ssize_t ret = 0;

	mutex_lock(&buffer->mutex);
	/* A binary file is either read or written, not both. */
	if (buffer->write_in_progress) {
		ret = -ETXTBSY;
		goto out_unlock;
	}
	buffer->read_in_progress = true;

	if (buffer->needs_read_fill) {
		ret = cng_bin_fill_read(buffer);
		if (ret <= 0)
			goto out_unlock;
		ret = 0;
	}
	if (iocb->ki_pos >= buffer->bin_buffer_size)
		goto out_unlock;
	ret = copy_to_iter(buffer->bin_buffer + iocb->ki_pos,
			   buffer->bin_buffer_size - iocb->ki_pos, to);
	iocb->ki_pos += ret;
	if (ret == 0)
		ret = -EFAULT;
out_unlock:
	mutex_unlock(&buffer->mutex);
	return ret;
}

/* Writes accumulate; the client sees them once, at the last close. */
static ssize_t cng_bin_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct cng_buffer *buffer = iocb->ki_filp->private_data;
	size_t end = iocb->ki_pos + iov_iter_count(from);
	ssize_t len;
	char *grown;

	mutex_lock(&buffer->mutex);
	if (buffer->read_in_progress) {
		len = -ETXTBSY;
		goto out_unlock;
	}
	buffer->write_in_progress = true;

	if (end > buffer->bin_buffer_size) {
		if (buffer->cb_max_size && end > buffer->cb_max_size) {
			len = -EFBIG;
			goto out_unlock;
		}
		grown = __vmalloc(end, GFP_KERNEL | __GFP_NOWARN);
		if (!grown) {
			buffer->write_failed = true;
			len = -ENOMEM;
			goto out_unlock;
		}
		if (buffer->bin_buffer) {
			memcpy(grown, buffer->bin_buffer,
			       buffer->bin_buffer_size);
			vfree(buffer->bin_buffer);
		}
		memset(grown + buffer->bin_buffer_size, 0,
		       end - buffer->bin_buffer_size);
		buffer->bin_buffer = grown;
		buffer->bin_buffer_size = end;
	}

	len = copy_from_iter(buffer->bin_buffer + iocb->ki_pos,
			     buffer->bin_buffer_size - iocb->ki_pos, from);
	iocb->ki_pos += len;
out_unlock:
	mutex_unlock(&buffer->mutex);
	return len ? len : -EFAULT;
}

/* Stock's open checks, in stock's order, with stock's errnos. */
static int cng_attr_open_common(struct inode *inode, struct file *file,
				bool bin)
{
	struct cng_inode *ci = CNG_I(inode);
	const struct configfs_attribute *ca;
	struct cng_buffer *buffer;
	struct config_item *item;
	int ret;

	buffer = kzalloc(sizeof(*buffer), GFP_KERNEL);
	if (!buffer)
		return -ENOMEM;
	buffer->node = ci->node;
	if (!cng_node_get_active(buffer->node)) {
		ret = -ENOENT;
		goto err_free;
	}
	item = buffer->node->item;
	if (bin) {
		buffer->bin_attr = ci->attr;
		buffer->cb_max_size = buffer->bin_attr->cb_max_size;
		ca = &buffer->bin_attr->cb_attr;
	} else {
		buffer->attr = ci->attr;
		ca = buffer->attr;
	}

	buffer->owner = ca->ca_owner;
	ret = -ENODEV;
	if (!try_module_get(buffer->owner))
		goto err_put_active;

	ret = -EACCES;
	if (!item->ci_type)
		goto err_put_module;
	if (file->f_mode & FMODE_WRITE) {
		if (!(inode->i_mode & 0222))
			goto err_put_module;
		if (bin ? !buffer->bin_attr->write : !ca->store)
			goto err_put_module;
	}
	if (file->f_mode & FMODE_READ) {
		if (!(inode->i_mode & 0444))
			goto err_put_module;
		if (bin ? !buffer->bin_attr->read : !ca->show)
			goto err_put_module;
	}

	mutex_init(&buffer->mutex);
	buffer->needs_read_fill = true;
	buffer->event = cng_poll_event(file);
	file->private_data = buffer;
	cng_node_put_active(buffer->node);
	return 0;

err_put_module:
	module_put(buffer->owner);
err_put_active:
	cng_node_put_active(buffer->node);
err_free:
	kfree(buffer);
	return ret;
}

#ifndef CNG_INTREE_NO_NOTIFY
/*
 * After a change the client told (cfgng_notify()) since the file was
 * opened or last read from the start, or once its item is gone: POLLPRI
 * and POLLERR, as sysfs does; otherwise what stock's default gives.
 */
static __poll_t cng_attr_poll(struct file *file, poll_table *wait)
{
	struct cng_buffer *buffer = file->private_data;

	cng_poll_wait(file, buffer->node, wait);
	if (READ_ONCE(buffer->event) != cng_poll_event(file) ||
	    cng_node_gone(buffer->node))
		return DEFAULT_POLLMASK | EPOLLERR | EPOLLPRI;
	return DEFAULT_POLLMASK;
}
#endif

static int cng_attr_open(struct inode *inode, struct file *file)
{
	return cng_attr_open_common(inode, file, false);
}

static int cng_bin_open(struct inode *inode, struct file *file)
{
	return cng_attr_open_common(inode, file, true);
}

static int cng_attr_release(struct inode *inode, struct file *file)
{
	struct cng_buffer *buffer = file->private_data;

	module_put(buffer->owner);
	kfree(buffer->page);
	mutex_destroy(&buffer->mutex);
	kfree(buffer);
	return 0;
}

static int cng_bin_release(struct inode *inode, struct file *file)
{
	struct cng_buffer *buffer = file->private_data;

	/* write's result has nowhere to go: close cannot fail, as stock. */
	if (buffer->write_in_progress && !buffer->write_failed &&
	    cng_node_get_active(buffer->node)) {
		buffer->bin_attr->write(buffer->node->item, buffer->bin_buffer,
					buffer->bin_buffer_size);
		cng_node_put_active(buffer->node);
	}
	vfree(buffer->bin_buffer);
	return cng_attr_release(inode, file);
}

const struct file_operations cng_attr_file_ops = {
	.read_iter	= cng_attr_read_iter,
	.write_iter	= cng_attr_write_iter,
#ifndef CNG_INTREE_NO_NOTIFY
	.poll		= cng_attr_poll,
#endif
	.llseek		= generic_file_llseek,
	.open		= cng_attr_open,
	.release	= cng_attr_release,
};

/* No llseek: a binary attribute is not seekable, as in stock. */
const struct file_operations cng_bin_attr_file_ops = {
	.read_iter	= cng_bin_read_iter,
	.write_iter	= cng_bin_write_iter,
	.open		= cng_bin_open,
	.release	= cng_bin_release,
};
