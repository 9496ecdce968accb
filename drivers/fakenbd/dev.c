// SPDX-License-Identifier: GPL-2.0
/*
 * One fakenbd device: one or more connections to an NBD server and the
 * blk-mq disk on them. fakenbd_start() adds the disk on connections a
 * session made; fakenbd_stop() takes it down.
 *
 * Each connection serves one hardware queue of the disk (nbd.ko's
 * "connections", for a server that says NBD_FLAG_CAN_MULTI_CONN): a
 * request is sent on its queue's connection and answered there.
 *
 * A request's path: queue_rq (BLK_MQ_F_BLOCKING) writes it to the socket
 * itself when nothing is queued ahead of it, waiting for room as long as
 * the socket's timeout allows, as nbd.ko does: no work item is woken per
 * request. A signal to the submitter that cuts the write short leaves the
 * rest at the head of the connection's transmit list; a request that
 * finds another being written is queued there too; and the transmit work
 * writes the list out. The connection's receive thread reads replies,
 * finds each one's request by the tag in its handle and completes it.
 * When a connection is lost (the server closed it, a request timed out,
 * the server broke the protocol), its socket is shut down, which unblocks
 * both sides. With a dead_timeout, its receive thread puts every request
 * out back on the transmit list and connects again, as nbd.ko does after
 * a server restart; queue_rq queues new requests meanwhile, and the new
 * connection sends them all. Once the device is dead (no dead_timeout, or
 * it ran out for one connection, or the user disconnected) every
 * connection is shut down, each receive thread fails every request of its
 * queue still in flight, and queue_rq fails new ones at once. See enum
 * fakenbd_cmd_state for who completes what.
 */

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/nsproxy.h>
#include <linux/net.h>
#include <linux/overflow.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "compat.h"
#include "internal.h"
#include "proto.h"

#define FAKENBD_QUEUE_DEPTH	128
#define FAKENBD_MAX_SECTORS	2048	/* 1 MiB a request: any server takes it */

/*
 * The started devices, for unique names. Outermost lock (internal.h);
 * sleeps; held across add_disk() so that a name is checked and taken at
 * once.
 */
static DEFINE_MUTEX(fakenbd_devs_mutex);
static LIST_HEAD(fakenbd_devs);

/* Numbers for the default names "fakenbdN". */
static DEFINE_IDA(fakenbd_ida);

/* Runs every device's transmit work; it may carry writeback. */
static struct workqueue_struct *fakenbd_wq;

/*
 * Connections that finished their handshake and have no disk yet: what
 * fakenbd_session_open() gives and fakenbd_start() takes over. @info is
 * the first connection's; the others' matched it.
 */
struct fakenbd_session {
	struct fakenbd_export_info info;
	unsigned int nr_socks;
	struct socket *socks[];
};

static struct fakenbd_session *
fakenbd_session_make(struct net *net, const struct sockaddr_storage *addr,
		     const char *export, bool rw, unsigned int timeout,
		     unsigned int nr_conns, char *why, size_t why_len);

static void fakenbd_notify(struct fakenbd_dev *dev)
{
	if (dev->status_changed)
		dev->status_changed(dev->data);
}

/* The connection of a request: its hardware queue's. */
static struct fakenbd_conn *fakenbd_conn_of(struct request *rq)
{
	struct fakenbd_dev *dev = rq->q->queuedata;

	return &dev->conns[rq->mq_hctx->queue_num];
}

/*
 * The device is dead: no connection is made again, and every one is shut
 * down, so that each receive thread stops reading and sweeps its queue.
 */
static void fakenbd_mark_dead_locked(struct fakenbd_dev *dev)
{
	unsigned int i;

	lockdep_assert_held(&dev->lock);
	dev->dead = true;
	dev->broken = 0;
	for (i = 0; i < dev->nr_conns; i++)
		dev->conns[i].broken = false;
}

/*
 * A disconnect begins, for @why: see struct fakenbd_dev's @ending. The
 * reason is set now, since any connection may be the first to see the
 * server's close; a device already dead keeps its own.
 */
static void fakenbd_set_ending(struct fakenbd_dev *dev, const char *why)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	if (!dev->dead && !dev->ending)
		strscpy(dev->reason, why, sizeof(dev->reason));
	dev->ending = true;
	spin_unlock_irqrestore(&dev->lock, flags);
}

/*
 * The polite end of every connection: set @why as the reason (see
 * fakenbd_set_ending()), then say NBD_CMD_DISC, within @deadline (0: the
 * socket's send timeout), on each connection that is up with nothing
 * queued on it. With @wait, wait for a writer under way; without, skip
 * its connection, as a request half written would be cut by the DISC.
 * The caller then shuts the connections down (fakenbd_conn_close()).
 */
static void fakenbd_say_disc(struct fakenbd_dev *dev, const char *why,
			     unsigned long deadline, bool wait)
{
	struct fakenbd_conn *conn;
	unsigned long flags;
	unsigned int i;
	bool quiet;

	fakenbd_set_ending(dev, why);
	for (i = 0; i < dev->nr_conns; i++) {
		conn = &dev->conns[i];
		if (wait)
			mutex_lock(&conn->tx_mutex);
		else if (!mutex_trylock(&conn->tx_mutex))
			continue;
		spin_lock_irqsave(&dev->lock, flags);
		quiet = !dev->dead && !conn->broken &&
			list_empty(&conn->tx_list);
		spin_unlock_irqrestore(&dev->lock, flags);
		if (quiet)
			fakenbd_sock_disconnect(conn->sock, deadline);
		mutex_unlock(&conn->tx_mutex);
	}
}

/* After the device became dead: shut down the connections but @except. */
static void fakenbd_shutdown_others(struct fakenbd_dev *dev,
				    struct fakenbd_conn *except)
{
	struct fakenbd_conn *conn;
	unsigned int i;

	for (i = 0; i < dev->nr_conns; i++) {
		conn = &dev->conns[i];
		if (conn == except)
			continue;
		mutex_lock(&conn->sock_mutex);
		if (conn->sock)
			kernel_sock_shutdown(conn->sock, SHUT_RDWR);
		mutex_unlock(&conn->sock_mutex);
	}
}

/* How the log names a connection: the disk, and which of several. */
static const char *fakenbd_conn_name(struct fakenbd_conn *conn, char *buf,
				     size_t len)
{
	struct fakenbd_dev *dev = conn->dev;

	if (dev->nr_conns == 1)
		return dev->name;
	snprintf(buf, len, "%s/%u", dev->name, conn->index);
	return buf;
}

/*
 * A connection is lost: record why, shut its socket down so that both
 * sides stop waiting on it, and tell the caller. The receive thread sees
 * its read fail, and connects again when @failed and the device has a
 * dead_timeout (the connection is then broken, not dead); else the device
 * is dead: every connection is shut down and each receive thread sweeps
 * what is in flight on it. @failed is false for the disconnects the user
 * and fakenbd_stop() ask for, which also end the attempts to connect
 * again.
 */
static __printf(3, 0) void fakenbd_conn_down(struct fakenbd_conn *conn,
					     bool failed, const char *fmt,
					     va_list args)
{
	struct fakenbd_dev *dev = conn->dev;
	char name[FAKENBD_NAME_MAX + 8];
	bool was_up, now_dead = false;
	const char *label;
	unsigned long flags;

	mutex_lock(&conn->sock_mutex);
	spin_lock_irqsave(&dev->lock, flags);
	/*
	 * After our NBD_CMD_DISC, the server's close is no failure, and the
	 * reason is the disconnect's.
	 */
	if (dev->ending)
		failed = false;
	was_up = !dev->dead && !conn->broken;
	if (was_up) {
		if (!dev->ending)
			vsnprintf(dev->reason, sizeof(dev->reason), fmt, args);
		if (failed && dev->dead_timeout && !dev->server_closing) {
			conn->broken = true;
			dev->broken++;
		} else {
			now_dead = true;
		}
	} else if (!dev->dead && !failed) {
		/* Given up by the user or a stop: say so, not the old loss. */
		if (!dev->ending)
			vsnprintf(dev->reason, sizeof(dev->reason), fmt, args);
		now_dead = true;
	}
	if (now_dead)
		fakenbd_mark_dead_locked(dev);
	spin_unlock_irqrestore(&dev->lock, flags);
	if (was_up)
		kernel_sock_shutdown(conn->sock, SHUT_RDWR);
	mutex_unlock(&conn->sock_mutex);
	if (now_dead)
		fakenbd_shutdown_others(dev, conn);
	if (!was_up && !now_dead)
		return;
	label = fakenbd_conn_name(conn, name, sizeof(name));
	if (was_up && !now_dead)
		pr_warn("%s: lost %pISpc: %s; connecting again for up to %u s\n",
			label, &dev->addr, dev->reason, dev->dead_timeout);
	else if (was_up && failed)
		pr_warn("%s: disconnected from %pISpc: %s\n", label,
			&dev->addr, dev->reason);
	else
		pr_info("%s: disconnected from %pISpc\n", dev->name,
			&dev->addr);
	wake_up_all(&dev->conn_wait);
	fakenbd_notify(dev);
}

static __printf(2, 3) void fakenbd_conn_fail(struct fakenbd_conn *conn,
					     const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	fakenbd_conn_down(conn, true, fmt, args);
	va_end(args);
}

static __printf(2, 3) void fakenbd_conn_close(struct fakenbd_conn *conn,
					      const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	fakenbd_conn_down(conn, false, fmt, args);
	va_end(args);
}

/* Complete a request its caller claimed (state moved to IDLE). */
static void fakenbd_end(struct fakenbd_dev *dev, struct request *rq,
			blk_status_t status)
{
	struct fakenbd_cmd *cmd = blk_mq_rq_to_pdu(rq);

	cmd->status = status;
	blk_mq_complete_request(rq);
	if (status != BLK_STS_OK) {
		atomic_long_inc(&dev->errors);
		fakenbd_notify(dev);
	}
}

static bool fakenbd_cmd_not_sending(struct fakenbd_dev *dev,
				    struct fakenbd_cmd *cmd)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&dev->lock, flags);
	ret = cmd->state != FAKENBD_CMD_SENDING;
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

/* Move a request from QUEUED or SENT to IDLE: true when we now own it. */
static bool fakenbd_claim(struct fakenbd_dev *dev, struct fakenbd_cmd *cmd,
			  u64 handle, bool any)
{
	unsigned long flags;
	bool ret = false;

	spin_lock_irqsave(&dev->lock, flags);
	if (any && cmd->state == FAKENBD_CMD_QUEUED) {
		list_del_init(&cmd->tx_entry);
		ret = true;
	} else if (cmd->state == FAKENBD_CMD_SENT &&
		   (any || cmd->handle == handle)) {
		ret = true;
	}
	if (ret)
		cmd->state = FAKENBD_CMD_IDLE;
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static u16 fakenbd_cmd_type(struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return NBD_CMD_READ;
	case REQ_OP_WRITE:
		return NBD_CMD_WRITE;
	case REQ_OP_FLUSH:
		return NBD_CMD_FLUSH;
	default:
		return NBD_CMD_TRIM;
	}
}

/*
 * Write the part of one piece of a request (@msg) that lies past *@skip,
 * the bytes of the request already on the wire before this piece.
 */
static int fakenbd_send_piece(struct fakenbd_conn *conn,
			      struct fakenbd_cmd *cmd, struct msghdr *msg,
			      size_t *skip)
{
	size_t len = msg_data_left(msg);

	if (*skip >= len) {
		*skip -= len;
		return 0;
	}
	iov_iter_advance(&msg->msg_iter, *skip);
	*skip = 0;
	return fakenbd_sock_send_msg(conn->sock, msg, &cmd->sent);
}

/*
 * Write what is left of a request, header then data, to its connection:
 * 0 once all of it is there, else -errno (cmd->sent says how far it
 * went; -ERESTARTSYS or -EINTR when a signal cut it short).
 */
static int fakenbd_send_rq(struct fakenbd_conn *conn, struct request *rq)
{
	struct fakenbd_cmd *cmd = blk_mq_rq_to_pdu(rq);
	u16 type = fakenbd_cmd_type(rq);
	struct nbd_request req = {
		.magic = cpu_to_be32(NBD_REQUEST_MAGIC),
		.type = cpu_to_be16(type),
		.handle = cpu_to_be64(cmd->handle),
		.offset = cpu_to_be64((u64)blk_rq_pos(rq) << SECTOR_SHIFT),
		.length = cpu_to_be32(blk_rq_bytes(rq)),
	};
	bool data = type == NBD_CMD_WRITE;
	struct kvec head = { .iov_base = &req, .iov_len = sizeof(req) };
	struct msghdr msg = { .msg_flags = data ? MSG_MORE : 0 };
	size_t skip = cmd->sent;
	struct req_iterator iter;
	struct bio_vec bvec;
	int ret;

	lockdep_assert_held(&conn->tx_mutex);
	if ((rq->cmd_flags & REQ_FUA) &&
	    (conn->dev->info.flags & NBD_FLAG_SEND_FUA))
		req.flags = cpu_to_be16(NBD_CMD_FLAG_FUA);
	if (type == NBD_CMD_FLUSH)
		req.offset = 0;

	iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, &head, 1, sizeof(req));
	ret = fakenbd_send_piece(conn, cmd, &msg, &skip);
	if (ret || !data)
		return ret;
	rq_for_each_segment(bvec, rq, iter) {
		msg.msg_flags = rq_iter_last(bvec, iter) ? 0 : MSG_MORE;
		iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bvec, 1,
			      bvec.bv_len);
		ret = fakenbd_send_piece(conn, cmd, &msg, &skip);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Write a request in the SENDING state, under conn->tx_mutex, and settle
 * its state: SENT when it is on the wire whole or its send failed (the
 * connection is then brought down, and the request sent again or swept);
 * back to QUEUED at the head of the list when a signal to the submitter
 * (@submitter: from queue_rq) cut its send short, for the work to finish.
 * The request may be completed as soon as it is SENT: do not touch it
 * after this returns true.
 */
static bool fakenbd_tx_one(struct fakenbd_conn *conn, struct request *rq,
			   bool submitter)
{
	struct fakenbd_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct fakenbd_dev *dev = conn->dev;
	char name[FAKENBD_NAME_MAX + 8];
	unsigned long irqflags;
	size_t sent;
	bool requeue;
	int ret;

	ret = fakenbd_send_rq(conn, rq);

	spin_lock_irqsave(&dev->lock, irqflags);
	requeue = submitter && (ret == -ERESTARTSYS || ret == -EINTR) &&
		  !dev->dead && !conn->broken;
	sent = cmd->sent;
	if (requeue) {
		cmd->state = FAKENBD_CMD_QUEUED;
		list_add(&cmd->tx_entry, &conn->tx_list);
	} else {
		cmd->state = FAKENBD_CMD_SENT;
	}
	spin_unlock_irqrestore(&dev->lock, irqflags);
	wake_up_all(&dev->tx_wait);
	if (requeue)
		pr_debug("%s: a signal cut a send short after %zu bytes: the transmit work sends the rest\n",
			 fakenbd_conn_name(conn, name, sizeof(name)), sent);
	if (ret && !requeue)
		fakenbd_conn_fail(conn, "send: %s", fakenbd_errno_text(ret));
	return !requeue;
}

static void fakenbd_tx_work(struct work_struct *work)
{
	struct fakenbd_conn *conn = container_of(work, struct fakenbd_conn,
						 tx_work);
	struct fakenbd_dev *dev = conn->dev;
	struct fakenbd_cmd *cmd;
	unsigned long flags;

	mutex_lock(&conn->tx_mutex);
	for (;;) {
		spin_lock_irqsave(&dev->lock, flags);
		cmd = list_first_entry_or_null(&conn->tx_list,
					       struct fakenbd_cmd, tx_entry);
		if (!cmd || dev->dead || conn->broken) {
			/*
			 * After death, the sweep owns what is queued; while
			 * broken, the new connection will send it.
			 */
			spin_unlock_irqrestore(&dev->lock, flags);
			break;
		}
		list_del_init(&cmd->tx_entry);
		cmd->state = FAKENBD_CMD_SENDING;
		spin_unlock_irqrestore(&dev->lock, flags);

		fakenbd_tx_one(conn, blk_mq_rq_from_pdu(cmd), false);
	}
	mutex_unlock(&conn->tx_mutex);
}

static blk_status_t fakenbd_reply_status(u32 error)
{
	switch (error) {
	case NBD_ENOSPC:
		return BLK_STS_NOSPC;
	case NBD_ENOTSUP:
		return BLK_STS_NOTSUPP;
	default:
		return BLK_STS_IOERR;
	}
}

/* Read a READ reply's data into the request's pages. */
static int fakenbd_recv_data(struct fakenbd_conn *conn, struct request *rq)
{
	struct req_iterator iter;
	struct bio_vec bvec;
	int ret;

	rq_for_each_segment(bvec, rq, iter) {
		ret = fakenbd_sock_recv_bvec(conn->sock, &bvec);
		if (ret)
			return ret;
	}
	return 0;
}

/* A reply said NBD_ESHUTDOWN: queue no more (see @server_closing). */
static void fakenbd_server_closing(struct fakenbd_dev *dev)
{
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&dev->lock, flags);
	first = !dev->server_closing;
	dev->server_closing = true;
	spin_unlock_irqrestore(&dev->lock, flags);
	if (first)
		pr_info("%s: server %pISpc is shutting down: disconnecting once the requests out are answered\n",
			dev->name, &dev->addr);
}

struct fakenbd_count {
	struct fakenbd_dev *dev;
	unsigned int out;
};

static bool fakenbd_count_out(struct request *rq, void *data)
{
	struct fakenbd_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct fakenbd_count *count = data;
	unsigned long flags;

	spin_lock_irqsave(&count->dev->lock, flags);
	if (cmd->state != FAKENBD_CMD_IDLE)
		count->out++;
	spin_unlock_irqrestore(&count->dev->lock, flags);
	return true;
}

/*
 * After a reply, while the server is closing: with no request left out
 * on any connection, say NBD_CMD_DISC on each and end them. Returns true
 * when it did.
 */
static bool fakenbd_soft_disconnect(struct fakenbd_conn *conn)
{
	struct fakenbd_dev *dev = conn->dev;
	struct fakenbd_count count = { .dev = dev };
	unsigned long flags;
	bool closing;

	spin_lock_irqsave(&dev->lock, flags);
	closing = dev->server_closing && !dev->dead;
	spin_unlock_irqrestore(&dev->lock, flags);
	if (!closing)
		return false;
	/*
	 * No request leaves IDLE any more, and only a receive thread (or,
	 * once the device is dead, a sweep) makes one IDLE: when the count
	 * is 0, it stays so.
	 */
	blk_mq_tagset_busy_iter(&dev->tagset, fakenbd_count_out, &count);
	if (count.out)
		return false;
	fakenbd_say_disc(dev, "server is shutting down", jiffies + HZ, true);
	fakenbd_conn_close(conn, "server is shutting down");
	return true;
}

/*
 * Put a request back on its connection's transmit list, whole, when the
 * connection is broken (to be sent again once it is made again); false
 * when it is not.
 */
static bool fakenbd_requeue_locked(struct fakenbd_conn *conn,
				   struct fakenbd_cmd *cmd)
{
	lockdep_assert_held(&conn->dev->lock);
	if (!conn->broken)
		return false;
	cmd->state = FAKENBD_CMD_QUEUED;
	cmd->sent = 0;
	list_add_tail(&cmd->tx_entry, &conn->tx_list);
	return true;
}

/* A request this thread claimed: false when it is dead, for the caller to fail. */
static bool fakenbd_requeue_claimed(struct fakenbd_conn *conn,
				    struct fakenbd_cmd *cmd)
{
	unsigned long flags;
	bool requeued;

	spin_lock_irqsave(&conn->dev->lock, flags);
	requeued = fakenbd_requeue_locked(conn, cmd);
	spin_unlock_irqrestore(&conn->dev->lock, flags);
	return requeued;
}

/*
 * The request a reply's handle names, on this connection's queue: the
 * low 32 bits are blk_mq_unique_tag(). NULL when there is none.
 */
static struct request *fakenbd_rq_of_handle(struct fakenbd_conn *conn,
					    u64 handle)
{
	struct fakenbd_dev *dev = conn->dev;
	u32 unique = lower_32_bits(handle);
	u16 tag = blk_mq_unique_tag_to_tag(unique);

	if (blk_mq_unique_tag_to_hwq(unique) != conn->index ||
	    tag >= dev->tagset.queue_depth)
		return NULL;
	return blk_mq_tag_to_rq(dev->tagset.tags[conn->index], tag);
}

/* Handle one reply of good magic: 0, or -errno once the connection died. */
static int fakenbd_rx_reply(struct fakenbd_conn *conn,
			    const struct nbd_simple_reply *reply)
{
	struct fakenbd_dev *dev = conn->dev;
	u64 handle = be64_to_cpu(reply->handle);
	u32 error = be32_to_cpu(reply->error);
	struct request *rq;
	struct fakenbd_cmd *cmd;
	int ret;

	rq = fakenbd_rq_of_handle(conn, handle);
	if (!rq) {
		fakenbd_conn_fail(conn,
				  "server broke the protocol: reply for unknown handle %#llx",
				  handle);
		return -EPROTO;
	}
	cmd = blk_mq_rq_to_pdu(rq);
	/*
	 * A reply may overtake the end of its own send; wait for the transmit
	 * work to let go of the pages. A server that answers a write before
	 * reading it stalls here until the request times out.
	 */
	wait_event_interruptible(dev->tx_wait,
				 fakenbd_cmd_not_sending(dev, cmd));
	if (!fakenbd_claim(dev, cmd, handle, false)) {
		fakenbd_conn_fail(conn,
				  "server broke the protocol: reply for unknown handle %#llx",
				  handle);
		return -EPROTO;
	}

	if (error == NBD_ESHUTDOWN)
		fakenbd_server_closing(dev);
	if (error) {
		pr_err_ratelimited("%s: server failed %s of %u bytes at %llu: error %u\n",
				   dev->name, req_op(rq) == REQ_OP_READ ?
				   "a read" : "a request", blk_rq_bytes(rq),
				   (u64)blk_rq_pos(rq) << SECTOR_SHIFT, error);
		fakenbd_end(dev, rq, fakenbd_reply_status(error));
		return 0;
	}
	if (req_op(rq) == REQ_OP_READ) {
		ret = fakenbd_recv_data(conn, rq);
		if (ret) {
			fakenbd_conn_fail(conn, "receive of read data: %s",
					  fakenbd_errno_text(ret));
			if (!fakenbd_requeue_claimed(conn, cmd))
				fakenbd_end(dev, rq, BLK_STS_IOERR);
			return ret;
		}
	}
	fakenbd_end(dev, rq, BLK_STS_OK);
	return 0;
}

/* Read and handle one reply: 0, or -errno once the connection died. */
static int fakenbd_rx_one(struct fakenbd_conn *conn)
{
	struct request_queue *q = conn->dev->disk->queue;
	struct nbd_simple_reply reply;
	u32 magic;
	int ret;

	ret = fakenbd_sock_recv(conn->sock, &reply, sizeof(reply), 0);
	if (ret) {
		fakenbd_conn_fail(conn, ret == -EPIPE ?
				  "server closed the connection" :
				  "receive: %s", fakenbd_errno_text(ret));
		return ret;
	}
	magic = be32_to_cpu(reply.magic);
	if (magic != NBD_SIMPLE_REPLY_MAGIC) {
		fakenbd_conn_fail(conn,
				  "server broke the protocol: reply magic %#x",
				  magic);
		return -EPROTO;
	}
	/*
	 * The queue's usage counter is held while the reply's request is
	 * looked up and completed, as nbd.c does: a queue is frozen (an
	 * elevator switch, del_gendisk()) only with no request in flight,
	 * and then the scheduler's requests, which a stray reply's tag could
	 * name, may be freed. A frozen queue has nothing to reply to.
	 */
	if (!percpu_ref_tryget(&q->q_usage_counter)) {
		fakenbd_conn_fail(conn,
				  "server broke the protocol: a reply with no request in flight");
		return -EPROTO;
	}
	ret = fakenbd_rx_reply(conn, &reply);
	percpu_ref_put(&q->q_usage_counter);
	if (!ret && fakenbd_soft_disconnect(conn))
		ret = -ESHUTDOWN;
	return ret;
}

/* After the device died: fail whatever request of this queue is still ours. */
static bool fakenbd_sweep_one(struct request *rq, void *data)
{
	struct fakenbd_conn *conn = data;
	struct fakenbd_cmd *cmd = blk_mq_rq_to_pdu(rq);

	if (fakenbd_conn_of(rq) != conn)
		return true;
	wait_event_interruptible(conn->dev->tx_wait,
				 fakenbd_cmd_not_sending(conn->dev, cmd));
	if (fakenbd_claim(conn->dev, cmd, 0, true))
		fakenbd_end(conn->dev, rq, BLK_STS_IOERR);
	return true;
}

/* While broken: a request out goes back on the transmit list, whole. */
static bool fakenbd_requeue_one(struct request *rq, void *data)
{
	struct fakenbd_conn *conn = data;
	struct fakenbd_dev *dev = conn->dev;
	struct fakenbd_cmd *cmd = blk_mq_rq_to_pdu(rq);
	unsigned long flags;

	if (fakenbd_conn_of(rq) != conn)
		return true;
	wait_event_interruptible(dev->tx_wait,
				 fakenbd_cmd_not_sending(dev, cmd));
	spin_lock_irqsave(&dev->lock, flags);
	if (cmd->state == FAKENBD_CMD_SENT)
		fakenbd_requeue_locked(conn, cmd);
	spin_unlock_irqrestore(&dev->lock, flags);
	return true;
}

static bool fakenbd_is_broken(struct fakenbd_conn *conn)
{
	unsigned long flags;
	bool broken;

	spin_lock_irqsave(&conn->dev->lock, flags);
	broken = conn->broken;
	spin_unlock_irqrestore(&conn->dev->lock, flags);
	return broken;
}

/*
 * The attempts to connect again ran out: the device is dead, since this
 * connection's requests have nowhere else to go.
 */
static void fakenbd_conn_give_up(struct fakenbd_conn *conn, const char *why)
{
	struct fakenbd_dev *dev = conn->dev;
	char name[FAKENBD_NAME_MAX + 8];
	unsigned long flags;
	bool gave_up;

	spin_lock_irqsave(&dev->lock, flags);
	gave_up = conn->broken;
	if (gave_up) {
		fakenbd_mark_dead_locked(dev);
		snprintf(dev->reason, sizeof(dev->reason),
			 "not connected again within %u s: %s",
			 dev->dead_timeout, why);
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	if (!gave_up)
		return;
	fakenbd_shutdown_others(dev, conn);
	pr_warn("%s: disconnected from %pISpc: %s\n",
		fakenbd_conn_name(conn, name, sizeof(name)), &dev->addr,
		dev->reason);
	wake_up_all(&dev->conn_wait);
	fakenbd_notify(dev);
}

/*
 * Whether a new connection's export is the one the disk was made on: the
 * same size, blocks and requests the disk's queue already makes, and
 * still several connections allowed when the disk has them.
 */
static bool fakenbd_export_fits(struct fakenbd_dev *dev,
				const struct fakenbd_export_info *info,
				char *why, size_t why_len)
{
	struct request_queue *q = dev->disk->queue;

	if (info->size != dev->info.size) {
		snprintf(why, why_len, "the export is now %llu bytes, not %llu",
			 info->size, dev->info.size);
		return false;
	}
	if (info->min_block > queue_logical_block_size(q) ||
	    (info->max_payload &&
	     info->max_payload < queue_max_hw_sectors(q) << SECTOR_SHIFT)) {
		snprintf(why, why_len, "the export's block sizes changed");
		return false;
	}
	if (dev->nr_conns > 1 && !(info->flags & NBD_FLAG_CAN_MULTI_CONN)) {
		snprintf(why, why_len,
			 "the server no longer allows several connections");
		return false;
	}
	return true;
}

/*
 * Put a new connection in place of the lost one: what waits on the
 * transmit list is sent on it from the start. False, with the session
 * closed, when the device became dead meanwhile.
 */
static bool fakenbd_conn_replace(struct fakenbd_conn *conn,
				 struct fakenbd_session *session)
{
	struct fakenbd_dev *dev = conn->dev;
	char name[FAKENBD_NAME_MAX + 8];
	struct socket *old = NULL;
	struct fakenbd_cmd *cmd;
	unsigned long flags;

	fakenbd_sock_memalloc(session->socks[0]);
	mutex_lock(&conn->tx_mutex);
	mutex_lock(&conn->sock_mutex);
	spin_lock_irqsave(&dev->lock, flags);
	if (conn->broken) {
		old = conn->sock;
		conn->sock = session->socks[0];
		conn->broken = false;
		dev->broken--;
		list_for_each_entry(cmd, &conn->tx_list, tx_entry)
			cmd->sent = 0;
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	mutex_unlock(&conn->sock_mutex);
	mutex_unlock(&conn->tx_mutex);
	if (!old) {
		fakenbd_session_close(session);
		return false;
	}
	kfree(session);
	fakenbd_sock_release(old);
	pr_info("%s: connected again to %pISpc\n",
		fakenbd_conn_name(conn, name, sizeof(name)), &dev->addr);
	queue_work(fakenbd_wq, &conn->tx_work);
	fakenbd_notify(dev);
	return true;
}

/*
 * The connection is broken: connect again, once a second, for the
 * device's dead_timeout. True once a new connection is in place; false
 * when the device is dead (never broken, given up, disconnected, or the
 * device is stopping).
 */
static bool fakenbd_reconnect(struct fakenbd_conn *conn)
{
	struct fakenbd_dev *dev = conn->dev;
	unsigned long deadline = jiffies + dev->dead_timeout * HZ;
	char why[FAKENBD_REASON_LEN] = "no attempt";
	struct fakenbd_session *session;
	unsigned int attempt;

	if (!fakenbd_is_broken(conn))
		return false;
	/* Nothing is sent while broken: what is out waits whole, again. */
	blk_mq_tagset_busy_iter(&dev->tagset, fakenbd_requeue_one, conn);
	for (;;) {
		long left = (long)(deadline - jiffies);

		if (!fakenbd_is_broken(conn) || kthread_should_stop())
			return false;
		if (left <= 0)
			break;
		/* An attempt is short: the user's disconnect waits for it. */
		attempt = min_t(unsigned long, DIV_ROUND_UP(left, HZ),
				FAKENBD_RECONNECT_ATTEMPT);
		if (dev->timeout)
			attempt = min(attempt, dev->timeout);
		session = fakenbd_session_make(dev->net, &dev->addr,
					       dev->export, !dev->read_only,
					       attempt, 1, why, sizeof(why));
		if (!IS_ERR(session)) {
			if (fakenbd_export_fits(dev, &session->info, why,
						sizeof(why)))
				return fakenbd_conn_replace(conn, session);
			fakenbd_session_close(session);
			break;
		}
		if (PTR_ERR(session) == -EROFS)
			break;
		wait_event_interruptible_timeout(dev->conn_wait,
						 !fakenbd_is_broken(conn) ||
						 kthread_should_stop(), HZ);
	}
	fakenbd_conn_give_up(conn, why);
	return false;
}

static int fakenbd_rx_thread(void *data)
{
	struct fakenbd_conn *conn = data;
	unsigned int noio = memalloc_noio_save();

	do {
		while (!fakenbd_rx_one(conn))
			;
	} while (fakenbd_reconnect(conn));
	/*
	 * The device is dead and every socket shut down: a send still under
	 * way fails at once, and neither queue_rq nor the transmit work
	 * takes a request any more.
	 */
	blk_mq_tagset_busy_iter(&conn->dev->tagset, fakenbd_sweep_one, conn);
	memalloc_noio_restore(noio);

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static blk_status_t fakenbd_queue_rq(struct blk_mq_hw_ctx *hctx,
				     const struct blk_mq_queue_data *bd)
{
	struct fakenbd_dev *dev = hctx->queue->queuedata;
	struct fakenbd_conn *conn = &dev->conns[hctx->queue_num];
	struct request *rq = bd->rq;
	struct fakenbd_cmd *cmd = blk_mq_rq_to_pdu(rq);
	bool locked, direct, kick = true;
	unsigned long flags;

	switch (req_op(rq)) {
	case REQ_OP_READ:
		break;
	case REQ_OP_WRITE:
	case REQ_OP_FLUSH:
		if (dev->read_only)
			return BLK_STS_IOERR;
		break;
	case REQ_OP_DISCARD:
		if (dev->read_only || !(dev->info.flags & NBD_FLAG_SEND_TRIM))
			return BLK_STS_NOTSUPP;
		break;
	default:
		return BLK_STS_NOTSUPP;
	}

	blk_mq_start_request(rq);
	/* Whoever holds it is writing: then queue behind them. */
	locked = mutex_trylock(&conn->tx_mutex);
	spin_lock_irqsave(&dev->lock, flags);
	if (dev->dead || dev->server_closing) {
		spin_unlock_irqrestore(&dev->lock, flags);
		if (locked)
			mutex_unlock(&conn->tx_mutex);
		atomic_long_inc(&dev->errors);
		fakenbd_notify(dev);
		return BLK_STS_IOERR;
	}
	dev->seq++;
	cmd->handle = (u64)dev->seq << 32 | blk_mq_unique_tag(rq);
	cmd->sent = 0;
	direct = locked && list_empty(&conn->tx_list) && !conn->broken;
	if (direct) {
		cmd->state = FAKENBD_CMD_SENDING;
	} else {
		cmd->state = FAKENBD_CMD_QUEUED;
		list_add_tail(&cmd->tx_entry, &conn->tx_list);
	}
	spin_unlock_irqrestore(&dev->lock, flags);

	/* Sent whole (or failed, and the sweep has it): no work to kick. */
	if (direct && fakenbd_tx_one(conn, rq, true))
		kick = false;
	if (locked)
		mutex_unlock(&conn->tx_mutex);
	if (kick)
		queue_work(fakenbd_wq, &conn->tx_work);
	return BLK_STS_OK;
}

static void fakenbd_complete_rq(struct request *rq)
{
	struct fakenbd_cmd *cmd = blk_mq_rq_to_pdu(rq);

	blk_mq_end_request(rq, cmd->status);
}

/*
 * A request out for longer than the timeout: the server is stuck or gone.
 * Give up its connection; the request is then sent again on a new one
 * (dead_timeout) or failed by the sweep with the rest.
 */
static enum blk_eh_timer_return fakenbd_timeout(struct request *rq)
{
	struct fakenbd_dev *dev = rq->q->queuedata;

	if (!dev->timeout) {
		pr_warn_ratelimited("%s: a request has waited %u s or more for %pISpc; no timeout: waiting on\n",
				    dev->name, FAKENBD_WAIT_REPORT, &dev->addr);
		return BLK_EH_RESET_TIMER;
	}
	fakenbd_conn_fail(fakenbd_conn_of(rq), "a request timed out after %u s",
			  dev->timeout);
	return BLK_EH_RESET_TIMER;
}

static int fakenbd_init_request(struct blk_mq_tag_set *set,
				struct request *rq, unsigned int hctx_idx,
				unsigned int numa_node)
{
	struct fakenbd_cmd *cmd = blk_mq_rq_to_pdu(rq);

	INIT_LIST_HEAD(&cmd->tx_entry);
	cmd->state = FAKENBD_CMD_IDLE;
	return 0;
}

static const struct blk_mq_ops fakenbd_mq_ops = {
	.queue_rq = fakenbd_queue_rq,
	.complete = fakenbd_complete_rq,
	.timeout = fakenbd_timeout,
	.init_request = fakenbd_init_request,
};

/* Called under disk->open_mutex (compat.h calls it for either kernel). */
static int fakenbd_open_disk(struct gendisk *disk)
{
	struct fakenbd_dev *dev = disk->private_data;

	lockdep_assert_held(&disk->open_mutex);
	return dev->closing ? -ENXIO : 0;
}

static const struct block_device_operations fakenbd_fops = {
	.owner = THIS_MODULE,
	.open = fakenbd_compat_open,
};

static bool fakenbd_name_ok(const char *name)
{
	const char *c;

	if (!*name || strlen(name) > FAKENBD_NAME_MAX)
		return false;
	for (c = name; *c; c++)
		if (!islower(*c) && !isdigit(*c) && *c != '-' && *c != '_')
			return false;
	return true;
}

/*
 * Whether a disk may take the name: 0 if so, -EEXIST if one of ours or
 * another driver's has it, or the error that kept the lookup from
 * telling (-ENOMEM): a name is never taken for free on a failure.
 */
static int fakenbd_name_check_locked(const char *name)
{
	char sysfs[sizeof("/sys/class/block/") + FAKENBD_NAME_MAX];
	struct fakenbd_dev *dev;
	struct path path;
	int err;

	lockdep_assert_held(&fakenbd_devs_mutex);
	list_for_each_entry(dev, &fakenbd_devs, node)
		if (!strcmp(dev->name, name))
			return -EEXIST;
	/*
	 * Another driver's disk of that name would make add_disk() trip
	 * over sysfs. Racy against other drivers, but block devices have
	 * no exported name lookup.
	 */
	snprintf(sysfs, sizeof(sysfs), "/sys/class/block/%s", name);
	err = kern_path(sysfs, 0, &path);
	if (!err) {
		path_put(&path);
		return -EEXIST;
	}
	return err == -ENOENT ? 0 : err;
}

/* The reason for a name fakenbd_name_check_locked() refused with ERR. */
static void fakenbd_name_refused(char *why, size_t why_len, const char *name,
				 int err)
{
	if (err == -EEXIST)
		snprintf(why, why_len, "a disk named '%s' exists", name);
	else if (err == -ENOMEM)
		snprintf(why, why_len, "out of memory");
	else
		snprintf(why, why_len,
			 "cannot tell whether disk name '%s' is free (error %d)",
			 name, err);
}

/* Give the device its name: the caller's, or the next "fakenbdN". */
static int fakenbd_pick_name_locked(struct fakenbd_dev *dev, const char *name,
				    char *why, size_t why_len)
{
	int index, err;

	lockdep_assert_held(&fakenbd_devs_mutex);
	if (name && *name) {
		if (!fakenbd_name_ok(name)) {
			snprintf(why, why_len,
				 "bad disk name '%s' (1 to %d of a-z, 0-9, '-', '_')",
				 name, FAKENBD_NAME_MAX);
			return -EINVAL;
		}
		err = fakenbd_name_check_locked(name);
		if (err) {
			fakenbd_name_refused(why, why_len, name, err);
			return err;
		}
		strscpy(dev->name, name, sizeof(dev->name));
		return 0;
	}
	for (;;) {
		index = ida_alloc(&fakenbd_ida, GFP_KERNEL);
		if (index < 0) {
			snprintf(why, why_len, index == -ENOMEM ?
				 "out of memory" : "out of disk numbers");
			return index;
		}
		snprintf(dev->name, sizeof(dev->name), "fakenbd%d", index);
		err = fakenbd_name_check_locked(dev->name);
		if (!err)
			break;
		ida_free(&fakenbd_ida, index);
		if (err != -EEXIST) {
			fakenbd_name_refused(why, why_len, dev->name, err);
			return err;
		}
		if (index > 1 << 20) {
			snprintf(why, why_len, "out of disk numbers");
			return -ENOSPC;
		}
	}
	dev->index = index;
	return 0;
}

/*
 * The block sizes of the export (NBD_INFO_BLOCK_SIZE) as the queue's
 * limits: the logical block is its minimum (512 bytes at least), the
 * physical one its preferred size (4 KiB when it sent none), requests at
 * most its maximum payload. Fails when the export needs what a queue
 * here cannot be: a minimum above a page, a maximum below one.
 */
static int fakenbd_block_limits(struct fakenbd_dev *dev,
				struct fakenbd_queue_setup *setup, char *why,
				size_t why_len)
{
	const struct fakenbd_export_info *info = &dev->info;

	setup->logical_block = SECTOR_SIZE;
	setup->physical_block = 4096;
	setup->max_sectors = FAKENBD_MAX_SECTORS;
	if (!info->min_block)
		return 0;
	if (info->min_block > PAGE_SIZE) {
		snprintf(why, why_len,
			 "the export's smallest block (%u bytes) is larger than a page",
			 info->min_block);
		return -EOPNOTSUPP;
	}
	setup->logical_block = max_t(u32, info->min_block, SECTOR_SIZE);
	setup->physical_block = clamp_t(u32, info->preferred_block,
					setup->logical_block, SZ_64K);
	if (info->max_payload != U32_MAX)
		setup->max_sectors = min_t(u32, setup->max_sectors,
					   info->max_payload >> SECTOR_SHIFT);
	if (setup->max_sectors < PAGE_SIZE >> SECTOR_SHIFT) {
		snprintf(why, why_len,
			 "the export's largest request (%u bytes) is smaller than a page",
			 info->max_payload);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int fakenbd_alloc_disk(struct fakenbd_dev *dev,
			      const struct fakenbd_queue_setup *limits)
{
	u16 flags = dev->info.flags;
	bool rw = !dev->read_only;
	struct fakenbd_queue_setup setup = {
		.logical_block = limits->logical_block,
		.physical_block = limits->physical_block,
		.max_sectors = limits->max_sectors,
		.timeout = (dev->timeout ?: FAKENBD_WAIT_REPORT) * HZ,
		.rotational = flags & NBD_FLAG_ROTATIONAL,
		.write_cache = rw && (flags & NBD_FLAG_SEND_FLUSH),
		.fua = rw && (flags & NBD_FLAG_SEND_FUA),
		.discard = rw && (flags & NBD_FLAG_SEND_TRIM),
	};
	int ret;

	dev->tagset.ops = &fakenbd_mq_ops;
	dev->tagset.nr_hw_queues = dev->nr_conns;
	dev->tagset.queue_depth = FAKENBD_QUEUE_DEPTH;
	dev->tagset.numa_node = NUMA_NO_NODE;
	dev->tagset.cmd_size = sizeof(struct fakenbd_cmd);
	dev->tagset.timeout = (dev->timeout ?: FAKENBD_WAIT_REPORT) * HZ;
	/* queue_rq writes to the socket: it may sleep on the socket's lock. */
	dev->tagset.flags = BLK_MQ_F_SHOULD_MERGE | BLK_MQ_F_BLOCKING;
	ret = blk_mq_alloc_tag_set(&dev->tagset);
	if (ret)
		return ret;
	/* A queue for each connection, so that each has its own tags. */
	if (dev->tagset.nr_hw_queues != dev->nr_conns) {
		blk_mq_free_tag_set(&dev->tagset);
		return -EINVAL;
	}

	dev->disk = fakenbd_compat_alloc_disk(&dev->tagset, &setup, dev);
	if (IS_ERR(dev->disk)) {
		ret = PTR_ERR(dev->disk);
		blk_mq_free_tag_set(&dev->tagset);
		return ret;
	}

	dev->disk->minors = 0;	/* dynamic numbers, partitions allowed */
	dev->disk->fops = &fakenbd_fops;
	dev->disk->private_data = dev;
	strscpy(dev->disk->disk_name, dev->name, sizeof(dev->disk->disk_name));
	set_capacity(dev->disk, dev->info.size >> SECTOR_SHIFT);
	set_disk_ro(dev->disk, dev->read_only);
	return 0;
}

static void fakenbd_free_disk(struct fakenbd_dev *dev)
{
	put_disk(dev->disk);
	blk_mq_free_tag_set(&dev->tagset);
}

static void fakenbd_dev_free(struct fakenbd_dev *dev)
{
	if (dev->index >= 0)
		ida_free(&fakenbd_ida, dev->index);
	if (dev->net)
		put_net(dev->net);
	kfree(dev->export);
	kfree(dev);
}

/*
 * Make the device dead, wait for each receive thread's sweep, then end
 * the threads and the sockets. A socket goes under its @sock_mutex and
 * @tx_mutex: fakenbd_disconnect() may still look at it.
 */
static void fakenbd_end_connections(struct fakenbd_dev *dev)
{
	struct fakenbd_conn *conn;
	struct socket *sock;
	unsigned int i;

	fakenbd_conn_close(&dev->conns[0], "disconnected");
	for (i = 0; i < dev->nr_conns; i++) {
		conn = &dev->conns[i];
		if (conn->rx_thread)
			kthread_stop(conn->rx_thread);
		flush_work(&conn->tx_work);
		mutex_lock(&conn->tx_mutex);
		mutex_lock(&conn->sock_mutex);
		sock = conn->sock;
		conn->sock = NULL;
		mutex_unlock(&conn->sock_mutex);
		mutex_unlock(&conn->tx_mutex);
		fakenbd_sock_release(sock);
	}
}

/*
 * Start each connection's receive thread; -errno with none left running.
 * A reply is what a submitter waits for: the threads run at the priority
 * of nbd.ko's receive work, whose high-priority workqueue (WQ_HIGHPRI)
 * runs it at nice -20, so that a busy CPU does not hold up completions
 * behind ordinary tasks.
 */
static int fakenbd_start_threads(struct fakenbd_dev *dev, char *why,
				 size_t why_len)
{
	struct fakenbd_conn *conn;
	struct task_struct *task;
	unsigned int i;

	for (i = 0; i < dev->nr_conns; i++) {
		conn = &dev->conns[i];
		if (dev->nr_conns == 1)
			task = kthread_create(fakenbd_rx_thread, conn,
					      "fakenbd-%s", dev->name);
		else
			task = kthread_create(fakenbd_rx_thread, conn,
					      "fakenbd-%s/%u", dev->name, i);
		if (IS_ERR(task)) {
			snprintf(why, why_len,
				 "cannot start a receive thread (error %ld)",
				 PTR_ERR(task));
			fakenbd_end_connections(dev);
			return PTR_ERR(task);
		}
		set_user_nice(task, MIN_NICE);
		conn->rx_thread = task;
		wake_up_process(task);
	}
	return 0;
}

static unsigned int fakenbd_config_timeout(const struct fakenbd_config *config)
{
	return min_t(unsigned int, config->timeout, FAKENBD_MAX_TIMEOUT);
}

/*
 * 0 means 1: a config that never heard of connections gets one. No more
 * than one per CPU: blk-mq makes no more hardware queues than that (as
 * for nbd.ko), and a connection without a queue would carry nothing.
 */
static unsigned int fakenbd_config_conns(const struct fakenbd_config *config)
{
	return clamp_t(unsigned int, config->connections, 1,
		       min_t(unsigned int, FAKENBD_MAX_CONNECTIONS,
			     nr_cpu_ids));
}

/**
 * fakenbd_session_open() - connect to an NBD server and run the handshake
 * @config: the server, the export, rw, the timeout and the number of
 *	connections; its other members are not used. Not referenced after
 *	the call.
 * @why: set to a reason for the user on failure, such as "connect
 *	127.0.0.1:10809: connection refused", "server has no export 'foo'"
 *	or "export is read-only, rw=1 refused"
 * @why_len: size of @why
 *
 * Everything of a start that waits on the server, done apart: a caller
 * that must not wait under its own locks (a configfs commit runs inside
 * rename(2)) opens the session first and hands it to fakenbd_start().
 * The connections, one after the other, and their whole handshakes take
 * at most @config->timeout seconds together, however the server spreads
 * its bytes; a signal ends the wait at once. More than one connection
 * needs a server that says NBD_FLAG_CAN_MULTI_CONN: that a flush on one
 * covers the writes done on all. They are made in the caller's network
 * namespace.
 *
 * Context: process context; sleeps up to @config->timeout seconds.
 * Return: the session, or an ERR_PTR() with @why set.
 */
struct fakenbd_session *fakenbd_session_open(const struct fakenbd_config *config,
					     char *why, size_t why_len)
{
	if (config->addr.ss_family != AF_INET &&
	    config->addr.ss_family != AF_INET6) {
		snprintf(why, why_len, "no target address");
		return ERR_PTR(-EDESTADDRREQ);
	}
	return fakenbd_session_make(current->nsproxy->net_ns, &config->addr,
				    config->export ?: "", config->rw,
				    fakenbd_config_timeout(config),
				    fakenbd_config_conns(config), why,
				    why_len);
}

/*
 * One more connection of a session, its handshake done, before
 * @deadline (0: none); a connection whose handshake failed is closed
 * here. The first connection's export info goes to
 * @session->info; a later one must say the same size and flags.
 */
static int fakenbd_session_add(struct fakenbd_session *session,
			       struct net *net,
			       const struct sockaddr_storage *addr,
			       const char *export, unsigned long deadline,
			       unsigned int nr_conns, char *why, size_t why_len)
{
	unsigned int n = session->nr_socks;
	struct fakenbd_export_info info;
	unsigned int timeout = 0;
	struct socket *sock;
	long left;
	int ret;

	if (deadline) {
		left = (long)(deadline - jiffies);
		if (left <= 0) {
			snprintf(why, why_len,
				 "connection %u of %u: timed out", n + 1,
				 nr_conns);
			return -ETIMEDOUT;
		}
		timeout = DIV_ROUND_UP(left, HZ);
	}
	sock = fakenbd_sock_connect(net, addr, timeout, why, why_len);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	ret = fakenbd_negotiate(sock, export, deadline, &info, why, why_len);
	if (ret) {
		sock_release(sock);
		return ret;
	}
	/* In the transmission phase: fakenbd_session_close() ends it. */
	session->socks[session->nr_socks++] = sock;
	if (!n) {
		session->info = info;
		if (nr_conns > 1 && !(info.flags & NBD_FLAG_CAN_MULTI_CONN)) {
			snprintf(why, why_len,
				 "server does not allow %u connections to one export (no NBD_FLAG_CAN_MULTI_CONN): use 1",
				 nr_conns);
			return -EOPNOTSUPP;
		}
	} else if (info.size != session->info.size ||
		   info.flags != session->info.flags) {
		snprintf(why, why_len,
			 "connection %u of %u: the server described the export differently",
			 n + 1, nr_conns);
		return -EPROTO;
	}
	return 0;
}

/*
 * Connect @nr_conns times in @net and shake hands, within @timeout
 * seconds together (0: no limit): fakenbd_session_open()'s work, and a
 * receive thread's when it connects again (one connection). -EROFS when
 * @rw and the export is read-only.
 */
static struct fakenbd_session *
fakenbd_session_make(struct net *net, const struct sockaddr_storage *addr,
		     const char *export, bool rw, unsigned int timeout,
		     unsigned int nr_conns, char *why, size_t why_len)
{
	unsigned long deadline = timeout ? jiffies + timeout * HZ : 0;
	struct fakenbd_session *session;
	unsigned int i;
	int ret;

	session = kzalloc(struct_size(session, socks, nr_conns), GFP_KERNEL);
	if (!session) {
		snprintf(why, why_len, "out of memory");
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < nr_conns; i++) {
		ret = fakenbd_session_add(session, net, addr, export, deadline,
					  nr_conns, why, why_len);
		if (ret)
			goto err_close;
	}
	if (rw && (session->info.flags & NBD_FLAG_READ_ONLY)) {
		snprintf(why, why_len, "export is read-only, rw=1 refused");
		ret = -EROFS;
		goto err_close;
	}
	/*
	 * The transmission phase: a send may wait the timeout; the receive
	 * thread waits for replies as long as need be (requests time out).
	 */
	for (i = 0; i < nr_conns; i++) {
		WRITE_ONCE(session->socks[i]->sk->sk_sndtimeo,
			   fakenbd_jiffies(timeout));
		WRITE_ONCE(session->socks[i]->sk->sk_rcvtimeo,
			   MAX_SCHEDULE_TIMEOUT);
	}
	return session;

err_close:
	fakenbd_session_close(session);
	return ERR_PTR(ret);
}

/**
 * fakenbd_session_close() - end a session no disk took over
 * @session: from fakenbd_session_open(), or NULL
 *
 * Sends NBD_CMD_DISC on each connection (waiting a second at most in all)
 * and closes them.
 *
 * Context: process context; sleeps.
 */
void fakenbd_session_close(struct fakenbd_session *session)
{
	unsigned long deadline = jiffies + HZ;
	unsigned int i;

	if (!session)
		return;
	for (i = 0; i < session->nr_socks; i++) {
		fakenbd_sock_disconnect(session->socks[i], deadline);
		sock_release(session->socks[i]);
	}
	kfree(session);
}

/**
 * fakenbd_start() - add a disk for an export
 * @config: what to connect to and how; not referenced after the call
 * @session: a session from fakenbd_session_open() for @config, which the
 *	call takes over (and closes on failure); or NULL to open one here
 * @why: set to a reason for the user on failure, such as "connect
 *	127.0.0.1:10809: connection refused", "server has no export 'foo'"
 *	or "export is read-only, rw=1 refused"
 * @why_len: size of @why
 *
 * Adds a disk of the export's size, read-only when @config->rw is false
 * or the server says so, with a hardware queue for each of the session's
 * connections (@config->connections). With a @session, nothing waits on
 * the server:
 * the partitions are not read here but by the disk's first opener (udev's
 * probe, a mount), in its own context.
 *
 * Context: process context; sleeps, without a @session for up to
 * @config->timeout seconds (fakenbd_session_open()).
 * Return: the device, or an ERR_PTR() with @why set.
 */
struct fakenbd_dev *fakenbd_start(const struct fakenbd_config *config,
				  struct fakenbd_session *session,
				  char *why, size_t why_len)
{
	struct fakenbd_queue_setup limits;
	struct fakenbd_conn *conn;
	struct fakenbd_dev *dev;
	unsigned int i;
	int ret;

	if (!session) {
		session = fakenbd_session_open(config, why, why_len);
		if (IS_ERR(session))
			return ERR_CAST(session);
	}
	for (i = 0; i < session->nr_socks; i++) {
		if (READ_ONCE(session->socks[i]->sk->sk_state) ==
		    TCP_ESTABLISHED)
			continue;
		snprintf(why, why_len,
			 "the server closed the connection made before the commit: connect again");
		fakenbd_session_close(session);
		return ERR_PTR(-ENOTCONN);
	}

	dev = kzalloc(struct_size(dev, conns, session->nr_socks), GFP_KERNEL);
	if (!dev) {
		snprintf(why, why_len, "out of memory");
		fakenbd_session_close(session);
		return ERR_PTR(-ENOMEM);
	}
	dev->nr_conns = session->nr_socks;
	dev->index = -1;
	dev->addr = config->addr;
	dev->read_only = !config->rw ||
			 (session->info.flags & NBD_FLAG_READ_ONLY);
	dev->timeout = fakenbd_config_timeout(config);
	dev->dead_timeout = min_t(unsigned int, config->dead_timeout,
				  FAKENBD_MAX_TIMEOUT);
	dev->net = get_net(sock_net(session->socks[0]->sk));
	dev->status_changed = config->status_changed;
	dev->data = config->data;
	dev->info = session->info;
	for (i = 0; i < dev->nr_conns; i++) {
		conn = &dev->conns[i];
		conn->dev = dev;
		conn->index = i;
		conn->sock = session->socks[i];
		fakenbd_sock_memalloc(conn->sock);
		INIT_WORK(&conn->tx_work, fakenbd_tx_work);
		mutex_init(&conn->tx_mutex);
		mutex_init(&conn->sock_mutex);
		INIT_LIST_HEAD(&conn->tx_list);
	}
	kfree(session);
	INIT_LIST_HEAD(&dev->node);
	init_waitqueue_head(&dev->tx_wait);
	init_waitqueue_head(&dev->conn_wait);
	spin_lock_init(&dev->lock);
	atomic_long_set(&dev->errors, 0);
	dev->export = kstrdup(config->export ?: "", GFP_KERNEL);
	if (!dev->export) {
		snprintf(why, why_len, "out of memory");
		ret = -ENOMEM;
		goto err_release_sock;
	}

	mutex_lock(&fakenbd_devs_mutex);
	ret = fakenbd_pick_name_locked(dev, config->name, why, why_len);
	if (ret)
		goto err_unlock;
	ret = fakenbd_block_limits(dev, &limits, why, why_len);
	if (ret)
		goto err_unlock;
	ret = fakenbd_alloc_disk(dev, &limits);
	if (ret) {
		snprintf(why, why_len, "cannot allocate the disk (error %d)",
			 ret);
		goto err_unlock;
	}
	ret = fakenbd_start_threads(dev, why, why_len);
	if (ret)
		goto err_free_disk;
	/*
	 * No partition scan inside add_disk(): it reads the disk, and a
	 * server that stalls would hold the caller (and its locks) for the
	 * timeout. The first opener scans instead.
	 */
	set_bit(GD_SUPPRESS_PART_SCAN, &dev->disk->state);
	ret = add_disk(dev->disk);
	if (ret) {
		snprintf(why, why_len, "cannot add disk %s (error %d)",
			 dev->name, ret);
		goto err_end_connection;
	}
	set_bit(GD_NEED_PART_SCAN, &dev->disk->state);
	clear_bit(GD_SUPPRESS_PART_SCAN, &dev->disk->state);
	list_add_tail(&dev->node, &fakenbd_devs);
	mutex_unlock(&fakenbd_devs_mutex);
	pr_info("%s: export '%s' on %pISpc, %llu bytes%s, %u connection%s\n",
		dev->name, dev->export, &dev->addr, dev->info.size,
		dev->read_only ? ", read-only" : "", dev->nr_conns,
		dev->nr_conns == 1 ? "" : "s");
	return dev;

err_end_connection:
	fakenbd_end_connections(dev);
	/* The threads are gone and the sockets released. */
err_free_disk:
	fakenbd_free_disk(dev);
	mutex_unlock(&fakenbd_devs_mutex);
	goto err_free;
err_unlock:
	mutex_unlock(&fakenbd_devs_mutex);
err_release_sock:
	for (i = 0; i < dev->nr_conns; i++)
		fakenbd_sock_release(dev->conns[i].sock);
err_free:
	fakenbd_dev_free(dev);
	return ERR_PTR(ret);
}

/**
 * fakenbd_stop() - remove the disk and close the connection
 * @dev: a device from fakenbd_start()
 * @why: set to the reason on failure ("fakenbd0 is open or mounted")
 * @why_len: size of @why
 *
 * Refuses while anyone has the disk open (a mount included), or is
 * opening or closing it (which may wait on the server). Otherwise no one
 * may open it again; the disk is removed (the last close wrote it back,
 * so nothing waits on the server), NBD_CMD_DISC is sent if the connection
 * is up, and the connection ends, which may wait for an attempt to
 * connect again under way (FAKENBD_RECONNECT_ATTEMPT). After a return of 0 the
 * status hook is not called any more, and @dev is good only for
 * fakenbd_disconnect(), which may run concurrently with the stop, the
 * status getters and fakenbd_free().
 *
 * Context: process context; sleeps. Not concurrently with itself on the
 * same device.
 * Return: 0, or -EBUSY with @why set and the device untouched.
 */
int fakenbd_stop(struct fakenbd_dev *dev, char *why, size_t why_len)
{
	/*
	 * An opener holds the mutex across the partition scan, and a closer
	 * across the write-back: as long as the server takes to answer (for
	 * ever, with timeout 0). Never wait for them here, under the
	 * caller's locks (a configfs rename's): refuse, as for an opener.
	 */
	if (!mutex_trylock(&dev->disk->open_mutex)) {
		snprintf(why, why_len, "%s is being opened or closed",
			 dev->name);
		return -EBUSY;
	}
	if (disk_openers(dev->disk)) {
		mutex_unlock(&dev->disk->open_mutex);
		snprintf(why, why_len, "%s is open or mounted", dev->name);
		return -EBUSY;
	}
	dev->closing = true;
	mutex_unlock(&dev->disk->open_mutex);

	del_gendisk(dev->disk);

	/* The queues are empty: the disconnect is the last request. */
	fakenbd_say_disc(dev, "disconnected", 0, true);
	fakenbd_end_connections(dev);

	mutex_lock(&fakenbd_devs_mutex);
	list_del(&dev->node);
	mutex_unlock(&fakenbd_devs_mutex);
	return 0;
}

/**
 * fakenbd_free() - free a stopped device
 * @dev: a device fakenbd_stop() returned 0 for; invalid after the call
 *
 * Context: process context, with no call on @dev under way.
 */
void fakenbd_free(struct fakenbd_dev *dev)
{
	fakenbd_free_disk(dev);
	fakenbd_dev_free(dev);
}

/**
 * fakenbd_disconnect() - end the connection, keep the disk
 * @dev: a started device
 *
 * As "nbd-client -d": NBD_CMD_DISC on each connection with nothing on
 * its way to the server (a request half written would be cut), then the
 * sockets are shut down. Every request in flight and every later one fails with EIO; the
 * disk stays, so that a filesystem on it sees the errors and can be
 * unmounted, and fakenbd_stop() removes it. A connection being made again
 * is given up; one already dead is left as it is. May be called while
 * fakenbd_stop() runs (the caller's lock on the device's pointer must not
 * be held across the stop, which may wait for an attempt to connect
 * again), and until fakenbd_free().
 *
 * Context: process context; sleeps a second at most.
 */
void fakenbd_disconnect(struct fakenbd_dev *dev)
{
	fakenbd_say_disc(dev, "disconnected by the user", jiffies + HZ, false);
	fakenbd_conn_close(&dev->conns[0], "disconnected by the user");
}

/**
 * fakenbd_disk_name() - the disk's name, as in /dev and /sys/block
 * @dev: the device
 *
 * Return: a string that lives as long as @dev.
 */
const char *fakenbd_disk_name(struct fakenbd_dev *dev)
{
	return dev->name;
}

/**
 * fakenbd_gendisk() - the disk, for a link to its sysfs directory
 * @dev: the device
 *
 * Return: the disk (disk_to_dev() gives its struct device), valid as long
 * as @dev.
 */
struct gendisk *fakenbd_gendisk(struct fakenbd_dev *dev)
{
	return dev->disk;
}

/**
 * fakenbd_size() - the export's size
 * @dev: the device
 *
 * Return: bytes, as the server announced them (the disk holds the whole
 * 512-byte sectors of it).
 */
u64 fakenbd_size(struct fakenbd_dev *dev)
{
	return dev->info.size;
}

/**
 * fakenbd_read_only() - whether the disk is read-only
 * @dev: the device
 *
 * Return: true when it was started with rw false or the export is
 * read-only.
 */
bool fakenbd_read_only(struct fakenbd_dev *dev)
{
	return dev->read_only;
}

/**
 * fakenbd_connected() - whether the connection is still up
 * @dev: the device
 *
 * Context: any.
 * Return: false while a connection is lost and being made again, and
 * for good once the device is dead.
 */
bool fakenbd_connected(struct fakenbd_dev *dev)
{
	unsigned long flags;
	bool up;

	spin_lock_irqsave(&dev->lock, flags);
	up = !dev->dead && !dev->broken;
	spin_unlock_irqrestore(&dev->lock, flags);
	return up;
}

/**
 * fakenbd_errors() - how many requests failed
 * @dev: the device
 *
 * Context: any.
 * Return: the count since start: server errors, requests failed by a lost
 * connection and requests refused after it.
 */
unsigned long fakenbd_errors(struct fakenbd_dev *dev)
{
	return atomic_long_read(&dev->errors);
}

/**
 * fakenbd_last_error() - why the connection was lost
 * @dev: the device
 * @buf: filled with the reason ("server closed the connection", "a request
 *	timed out after 30 s", ...), after "connecting again: " while it is
 *	being made again; "" while connected
 * @len: size of @buf
 *
 * Context: any.
 */
void fakenbd_last_error(struct fakenbd_dev *dev, char *buf, size_t len)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	if (dev->broken)
		snprintf(buf, len, "connecting again: %s", dev->reason);
	else
		strscpy(buf, dev->dead ? dev->reason : "", len);
	spin_unlock_irqrestore(&dev->lock, flags);
}

/**
 * fakenbd_dev_init() - set up what every device shares
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int fakenbd_dev_init(void)
{
	fakenbd_wq = alloc_workqueue("fakenbd", WQ_MEM_RECLAIM | WQ_UNBOUND,
				     0);
	return fakenbd_wq ? 0 : -ENOMEM;
}

/**
 * fakenbd_dev_exit() - undo fakenbd_dev_init(), once every device stopped
 *
 * Context: module exit.
 */
void fakenbd_dev_exit(void)
{
	WARN_ON_ONCE(!list_empty(&fakenbd_devs));
	destroy_workqueue(fakenbd_wq);
	ida_destroy(&fakenbd_ida);
}
