/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fakenbd's private declarations, one section per defining file.
 *
 * Lock order, outermost first:
 *   fakenbd_devs_mutex (dev.c)   the device list; sleeps; held across
 *                                add_disk()
 *   disk->open_mutex             the block layer's; taken by fakenbd_stop()
 *                                and around our open/release callbacks
 *   conn->tx_mutex               who writes to a connection's socket;
 *                                sleeps; one connection's at a time
 *   conn->sock_mutex             who shuts that socket down or replaces
 *                                it; one connection's at a time
 *   dev->lock                    a spinlock, taken with interrupts off;
 *                                innermost
 * Each configfs item's mutex (configfs.c) is outside all of these.
 */
#ifndef _FAKENBD_INTERNAL_H
#define _FAKENBD_INTERNAL_H

#include <linux/blk-mq.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "fakenbd.h"

struct net;

#define FAKENBD_REASON_LEN	128

/*
 * How often a request of a disk without a timeout (0) is looked at: its
 * timeout handler logs that it still waits, and lets it wait on.
 */
#define FAKENBD_WAIT_REPORT	30	/* seconds */

/*
 * The longest attempt to connect again after a lost connection (seconds):
 * a disconnect by the user waits for the one under way.
 */
#define FAKENBD_RECONNECT_ATTEMPT	10

/* A timeout in seconds, 0 for none, as a socket's timeout in jiffies. */
static inline long fakenbd_jiffies(unsigned int seconds)
{
	return seconds ? (long)seconds * HZ : MAX_SCHEDULE_TIMEOUT;
}

/* sock.c */

/**
 * struct fakenbd_export_info - what the handshake learnt of the export
 * @size: bytes, as the server sent it
 * @flags: transmission flags (NBD_FLAG_*), 0 when the server sent none
 * @min_block: the smallest block the export takes (NBD_INFO_BLOCK_SIZE),
 *	a power of two; 0 when the server sent no block sizes
 * @preferred_block: the block size it serves best, a power of two
 * @max_payload: the largest request's data, a multiple of @min_block
 */
struct fakenbd_export_info {
	u64 size;
	u16 flags;
	u32 min_block;
	u32 preferred_block;
	u32 max_payload;
};

int fakenbd_sock_send(struct socket *sock, const void *buf, size_t len,
		      int flags, unsigned long deadline);
int fakenbd_sock_recv(struct socket *sock, void *buf, size_t len,
		      unsigned long deadline);
int fakenbd_sock_send_msg(struct socket *sock, struct msghdr *msg,
			  size_t *sent);
int fakenbd_sock_recv_bvec(struct socket *sock, struct bio_vec *bvec);
struct socket *fakenbd_sock_connect(struct net *net,
				    const struct sockaddr_storage *addr,
				    unsigned int timeout, char *why,
				    size_t why_len);
void fakenbd_sock_disconnect(struct socket *sock, unsigned long deadline);
void fakenbd_sock_memalloc(struct socket *sock);
void fakenbd_sock_release(struct socket *sock);
const char *fakenbd_errno_text(int err);

/* handshake.c */

int fakenbd_negotiate(struct socket *sock, const char *export,
		      unsigned long deadline, struct fakenbd_export_info *info,
		      char *why, size_t why_len);

/* dev.c */

/**
 * enum fakenbd_cmd_state - where a request is, under dev->lock
 * @FAKENBD_CMD_IDLE: not ours to complete: not yet queued, or already
 *	claimed by whoever completes it
 * @FAKENBD_CMD_QUEUED: on its connection's tx_list, waiting for the
 *	transmit work; at its head when a signal to the submitter cut a send
 *	from queue_rq short (its sent count says how much went)
 * @FAKENBD_CMD_SENDING: queue_rq or the transmit work is writing it to the
 *	socket and still reads its pages; a reply must wait (dev->tx_wait)
 * @FAKENBD_CMD_SENT: on the wire (or its send failed), waiting for its
 *	reply or for the sweep that follows a lost connection
 *
 * Only the party that moves a request from QUEUED or SENT to IDLE, under
 * dev->lock, completes it: its connection's receive thread for a
 * matching reply, or for the sweep after the device died; nobody else.
 */
enum fakenbd_cmd_state {
	FAKENBD_CMD_IDLE,
	FAKENBD_CMD_QUEUED,
	FAKENBD_CMD_SENDING,
	FAKENBD_CMD_SENT,
};

/**
 * struct fakenbd_cmd - our part of a blk-mq request (its pdu)
 * @tx_entry: on its connection's tx_list while QUEUED; under dev->lock
 * @state: see enum fakenbd_cmd_state; under dev->lock
 * @handle: the handle on the wire: a per-device sequence number in the
 *	high 32 bits, blk_mq_unique_tag() in the low (the hardware queue,
 *	so the connection, and the tag); set in queue_rq under dev->lock
 * @sent: bytes of it (header and data) already on the wire; zeroed by
 *	queue_rq before anyone else sees the request, then under
 *	conn->tx_mutex. Nonzero in the QUEUED state only for the request at
 *	the head of a tx_list: the next bytes on the wire must be its rest.
 * @status: what the completion reports; written by the party that
 *	claimed the request, read by fakenbd_complete_rq()
 */
struct fakenbd_cmd {
	struct list_head tx_entry;
	enum fakenbd_cmd_state state;
	u64 handle;
	size_t sent;
	blk_status_t status;
};

/**
 * struct fakenbd_conn - one of a device's connections to the server
 * @dev: the device
 * @index: its place in @dev's conns[]: the hardware queue it serves
 * @sock: the connection. Shut down (not released) when it is lost, under
 *	@sock_mutex. Replaced, the old one released, by the receive thread
 *	when it connected again, under @tx_mutex and @sock_mutex; released
 *	by fakenbd_stop() after the receive thread and the transmit work
 *	are gone.
 * @rx_thread: the receive thread: reads replies, completes requests;
 *	once the connection is lost connects again (fakenbd_reconnect()),
 *	and once the device is dead fails what is left of this queue's
 *	requests (the sweep); then waits for kthread_stop()
 * @tx_work: writes queued requests to the socket, on fakenbd_wq
 * @tx_mutex: held by whoever writes to @sock: queue_rq for a request it
 *	sends at once (only when @tx_list is empty), the transmit work for
 *	its whole pass over @tx_list, a disconnect. Held across waits for
 *	room in the socket, up to its send timeout: whoever takes it must
 *	accept that wait (fakenbd_disconnect() only tries it), and a loss
 *	of the connection ends it by shutting the socket down, under
 *	@sock_mutex, never under this one. A request leaves @tx_list to be
 *	sent only under it, so one left half written at the head is always
 *	the next one sent.
 * @sock_mutex: held to shut @sock down or to replace it, so that one is
 *	never shut down as it is released; sleeps, held only briefly
 * @tx_list: requests queued for @tx_work; under dev->lock
 * @broken: this connection is lost and its receive thread is making it
 *	again (dead_timeout). Its requests wait on @tx_list meanwhile, those
 *	out put back there whole, for the new connection; nothing is sent
 *	on it. Cleared when the new connection is in place, or when the
 *	device becomes dead. Under dev->lock.
 *
 * A request is always served by the connection of its hardware queue:
 * sent on it, answered on it, requeued on it.
 */
struct fakenbd_conn {
	struct fakenbd_dev *dev;
	unsigned int index;
	struct socket *sock;
	struct task_struct *rx_thread;
	struct work_struct tx_work;
	struct mutex tx_mutex;		/* one writer on @sock */
	struct mutex sock_mutex;	/* shutting @sock down, replacing it */
	struct list_head tx_list;
	bool broken;
};

/**
 * struct fakenbd_dev - a disk on one or more connections to an NBD server
 * @node: on fakenbd_devs; under fakenbd_devs_mutex
 * @name: the disk's name; fixed once started
 * @index: from fakenbd_ida when @name was chosen for the caller, else -1
 * @addr: the server
 * @export: the export's name (owned)
 * @info: size and transmission flags from the handshake; fixed
 * @read_only: the disk is read-only (rw=0 or the export is); fixed
 * @timeout: seconds, for requests and socket operations; fixed
 * @dead_timeout: seconds a lost connection is made again for; fixed
 * @net: the network namespace the connection was made in, for the
 *	connections made again; a reference, put by fakenbd_free()
 * @status_changed: the caller's hook (struct fakenbd_config); fixed
 * @data: its argument
 * @tagset: blk-mq's tag set, a hardware queue per connection
 * @disk: the disk; added at start, deleted by fakenbd_stop()
 * @tx_wait: woken when a request leaves the SENDING state
 * @conn_wait: woken when the device becomes dead; a receive thread waits
 *	on it between attempts to connect again
 * @lock: protects @dead, @broken, @ending, @reason, @seq, each
 *	connection's tx_list and broken, and each request's struct
 *	fakenbd_cmd; a spinlock taken with interrupts off, innermost
 * @broken: how many connections are broken
 * @dead: the device is lost for good; set once, never cleared. After it
 *	is set no request is queued, every connection is shut down, and
 *	each receive thread's sweep fails its queue's requests in flight.
 *	One connection that cannot be made again makes the device dead:
 *	its requests have nowhere else to go.
 * @server_closing: a reply said NBD_ESHUTDOWN; set once, under @lock.
 *	From then on no request is queued (they fail), and once the last
 *	one out is answered the receive thread sends NBD_CMD_DISC on every
 *	connection and ends them: the soft disconnect the protocol asks for
 * @ending: a disconnect (the user's, a stop's, the soft one) is sending
 *	NBD_CMD_DISC: a connection the server closes from then on is not
 *	lost but ended, with no dead_timeout, and @reason is the
 *	disconnect's; set once, under @lock
 * @reason: why a connection was lost, the latest, or why the device
 *	died; under @lock
 * @seq: the last handle's sequence number; under @lock
 * @closing: fakenbd_stop() has begun; under disk->open_mutex. Our open
 *	callback refuses new openers from then on.
 * @errors: requests failed since start
 * @nr_conns: how many connections; fixed
 * @conns: the connections
 *
 * fakenbd_start() creates it, fakenbd_stop() ends its disk and connections
 * and fakenbd_free() frees it; nothing else holds a reference. The disk's
 * private_data and the queue's queuedata point here: the block layer
 * calls us only between add_disk() and del_gendisk() (plus the requests
 * that del_gendisk() waits for).
 */
struct fakenbd_dev {
	struct list_head node;
	char name[FAKENBD_NAME_MAX + 1];
	int index;
	struct sockaddr_storage addr;
	char *export;
	struct fakenbd_export_info info;
	bool read_only;
	unsigned int timeout;
	unsigned int dead_timeout;
	struct net *net;
	void (*status_changed)(void *data);
	void *data;

	struct blk_mq_tag_set tagset;
	struct gendisk *disk;
	wait_queue_head_t tx_wait;
	wait_queue_head_t conn_wait;

	spinlock_t lock;		/* see above; innermost */
	unsigned int broken;
	bool dead;
	bool server_closing;
	bool ending;
	char reason[FAKENBD_REASON_LEN];
	u32 seq;

	bool closing;
	atomic_long_t errors;
	unsigned int nr_conns;
	struct fakenbd_conn conns[];
};

int fakenbd_dev_init(void);
void fakenbd_dev_exit(void);

/* configfs.c */

int fakenbd_configfs_init(void);
void fakenbd_configfs_exit(void);

#endif /* _FAKENBD_INTERNAL_H */
