/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fakenbd's internal API: what its control face (configfs.c) calls to
 * connect a disk to an NBD server, to read its state and to take it down
 * again.
 *
 * A struct fakenbd_dev is a disk and its connections (one by default) to
 * the server. fakenbd_start() creates it connected; a connection may
 * later be lost (the server went away, timed out or broke the protocol).
 * With a dead_timeout the device then connects again for that long,
 * keeping the requests out and sending them again on the new connection;
 * without one, or once it is over, or after fakenbd_disconnect(), the
 * device is dead: the disk stays, every I/O fails with EIO and
 * fakenbd_connected() is false for good. fakenbd_stop() removes the disk
 * and ends the connections, fakenbd_free()
 * frees the device; the caller owns the pointer from a successful start
 * until the free, and must not call stop twice or concurrently with
 * itself.
 */
#ifndef _FAKENBD_H
#define _FAKENBD_H

#include <linux/socket.h>
#include <linux/types.h>

struct fakenbd_dev;
struct fakenbd_session;

#define FAKENBD_DEFAULT_PORT	10809
#define FAKENBD_DEFAULT_TIMEOUT	30	/* seconds */
#define FAKENBD_MAX_TIMEOUT	3600	/* seconds, of timeout and dead_timeout */
#define FAKENBD_NAME_MAX	31	/* a disk name, without the NUL */
#define FAKENBD_MAX_CONNECTIONS	16	/* to one server, for one disk */

/**
 * struct fakenbd_config - what fakenbd_start() needs to make a disk
 * @addr: the server, AF_INET or AF_INET6 with its port set
 *	(fakenbd_parse_target() fills it from text)
 * @export: the export's name on the server, NUL-terminated; may be empty
 *	(the server's default export); copied by fakenbd_start()
 * @name: the disk's name, or an empty string for the next free
 *	"fakenbdN"; lower-case letters, digits, '-' and '_'
 * @rw: true for a writable disk; refused on a read-only export
 * @timeout: seconds for connecting and the whole handshake together, and
 *	for each request; 0 for no limit: a stalled server is waited for
 *	(as nbd.ko's timeout 0), until fakenbd_disconnect() or a signal to
 *	the connecting task
 * @dead_timeout: seconds a lost connection is made again for, with the
 *	requests out kept and sent again; 0 (nbd.ko's default) fails them
 *	at once and the connection stays dead
 * @connections: how many connections to the server, each serving one
 *	hardware queue of the disk: 1 to FAKENBD_MAX_CONNECTIONS, 0 taken
 *	as 1, and no more than the CPUs (blk-mq's limit on hardware
 *	queues: more would carry nothing). More than one needs a server
 *	that says NBD_FLAG_CAN_MULTI_CONN; the device is dead once one of
 *	them is.
 * @status_changed: called when fakenbd_connected() or fakenbd_errors()
 *	changes, or NULL. It may run in atomic context (blk-mq's dispatch,
 *	for a request refused after the connection died) and must not
 *	sleep; no fakenbd lock is held; it may run in several threads at
 *	once, before fakenbd_start() returns, and never after
 *	fakenbd_stop() returned 0. It must not call fakenbd_stop().
 * @data: passed to @status_changed
 */
struct fakenbd_config {
	struct sockaddr_storage addr;
	const char *export;
	const char *name;
	bool rw;
	unsigned int timeout;
	unsigned int dead_timeout;
	unsigned int connections;
	void (*status_changed)(void *data);
	void *data;
};

int fakenbd_parse_target(const char *text, struct sockaddr_storage *addr,
			 char *why, size_t why_len);
struct fakenbd_session *fakenbd_session_open(const struct fakenbd_config *config,
					     char *why, size_t why_len);
void fakenbd_session_close(struct fakenbd_session *session);
struct fakenbd_dev *fakenbd_start(const struct fakenbd_config *config,
				  struct fakenbd_session *session,
				  char *why, size_t why_len);
int fakenbd_stop(struct fakenbd_dev *dev, char *why, size_t why_len);
void fakenbd_free(struct fakenbd_dev *dev);
void fakenbd_disconnect(struct fakenbd_dev *dev);

const char *fakenbd_disk_name(struct fakenbd_dev *dev);
struct gendisk *fakenbd_gendisk(struct fakenbd_dev *dev);
u64 fakenbd_size(struct fakenbd_dev *dev);
bool fakenbd_read_only(struct fakenbd_dev *dev);
bool fakenbd_connected(struct fakenbd_dev *dev);
unsigned long fakenbd_errors(struct fakenbd_dev *dev);
void fakenbd_last_error(struct fakenbd_dev *dev, char *buf, size_t len);

#endif /* _FAKENBD_H */
