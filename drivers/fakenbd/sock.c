// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel TCP socket: parsing a target, connecting with a timeout, and
 * sending or receiving a whole buffer. Nothing here keeps state.
 */

#include <linux/bvec.h>
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/net.h>
#include <linux/sched/mm.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/uio.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "internal.h"
#include "proto.h"

/*
 * Before each step of a transfer bounded by @deadline (in jiffies, 0 for
 * none): the socket's timeouts become the time left, so that a server
 * that trickles its bytes cannot restart the clock with each.
 */
static int fakenbd_sock_time_left(struct socket *sock, unsigned long deadline)
{
	long left;

	if (!deadline)
		return 0;
	left = (long)(deadline - jiffies);
	if (left <= 0)
		return -ETIMEDOUT;
	WRITE_ONCE(sock->sk->sk_rcvtimeo, left);
	WRITE_ONCE(sock->sk->sk_sndtimeo, left);
	return 0;
}

static int __fakenbd_sock_xfer(struct socket *sock, struct msghdr *msg,
			       bool send, unsigned long deadline)
{
	int ret;

	while (msg_data_left(msg)) {
		ret = fakenbd_sock_time_left(sock, deadline);
		if (ret)
			return ret;
		if (send)
			ret = sock_sendmsg(sock, msg);
		else
			ret = sock_recvmsg(sock, msg, msg->msg_flags);
		if (ret == 0)
			return -EPIPE;
		if (ret == -EAGAIN)
			return -ETIMEDOUT;
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * One step of a transfer: returns 0 once @msg's iterator is drained.
 * Under memalloc_noreclaim_save(), as nbd.c's transfers: the socket's
 * allocations do not enter reclaim, which may be waiting for this very
 * disk's writeback, and a SOCK_MEMALLOC socket may use the reserves.
 */
static int fakenbd_sock_xfer(struct socket *sock, struct msghdr *msg,
			     bool send, unsigned long deadline)
{
	unsigned int noreclaim = memalloc_noreclaim_save();
	int ret = __fakenbd_sock_xfer(sock, msg, send, deadline);

	memalloc_noreclaim_restore(noreclaim);
	return ret;
}

/**
 * fakenbd_sock_send() - write a whole buffer to a socket
 * @sock: the socket
 * @buf: what to write
 * @len: its length
 * @flags: more MSG_* flags (MSG_MORE when data follows)
 * @deadline: jiffies by which the whole write must be done, or 0
 *
 * Context: process context; sleeps until @deadline, or without one for at
 * most the socket's send timeout per partial write.
 * Return: 0, or -errno (-EPIPE when the peer is gone, -ETIMEDOUT).
 */
int fakenbd_sock_send(struct socket *sock, const void *buf, size_t len,
		      int flags, unsigned long deadline)
{
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = flags | MSG_NOSIGNAL };

	iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, &vec, 1, len);
	return fakenbd_sock_xfer(sock, &msg, true, deadline);
}

/**
 * fakenbd_sock_recv() - read exactly @len bytes from a socket
 * @sock: the socket
 * @buf: where they go
 * @len: how many
 * @deadline: jiffies by which all must have come, or 0
 *
 * Context: process context; sleeps until @deadline, or without one for at
 * most the socket's receive timeout per partial read.
 * Return: 0, or -errno (-EPIPE when the peer closed first, -ETIMEDOUT).
 */
int fakenbd_sock_recv(struct socket *sock, void *buf, size_t len,
		      unsigned long deadline)
{
	struct kvec vec = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_WAITALL | MSG_NOSIGNAL };

	iov_iter_kvec(&msg.msg_iter, ITER_DEST, &vec, 1, len);
	return fakenbd_sock_xfer(sock, &msg, false, deadline);
}

/**
 * fakenbd_sock_send_msg() - write what is left of a message, counting it
 * @sock: the socket
 * @msg: the message; its iterator says what is left and is advanced past
 *	what was written
 * @sent: increased by the bytes written, also on failure
 *
 * Context: process context. Sleeps for at most the socket's send timeout
 * per partial write; a signal ends the wait.
 * Return: 0 once @msg is drained; -ERESTARTSYS or -EINTR when a signal
 * cut it short; else -errno as fakenbd_sock_send().
 */
int fakenbd_sock_send_msg(struct socket *sock, struct msghdr *msg,
			  size_t *sent)
{
	unsigned int noreclaim = memalloc_noreclaim_save();
	int ret = 0;

	msg->msg_flags |= MSG_NOSIGNAL;
	while (msg_data_left(msg)) {
		ret = sock_sendmsg(sock, msg);
		if (ret > 0) {
			*sent += ret;
			ret = 0;
			continue;
		}
		if (ret == 0)
			ret = -EPIPE;
		else if (ret == -EAGAIN)
			ret = -ETIMEDOUT;
		break;
	}
	memalloc_noreclaim_restore(noreclaim);
	return ret;
}

/**
 * fakenbd_sock_disconnect() - say NBD_CMD_DISC, the polite end
 * @sock: a connection in the transmission phase, with nothing half sent
 * @deadline: jiffies by which it must be written, or 0 (the socket's
 *	send timeout)
 *
 * Context: process context; the caller holds the device's tx_mutex if
 * it has one.
 */
void fakenbd_sock_disconnect(struct socket *sock, unsigned long deadline)
{
	struct nbd_request disc = {
		.magic = cpu_to_be32(NBD_REQUEST_MAGIC),
		.type = cpu_to_be16(NBD_CMD_DISC),
	};

	fakenbd_sock_send(sock, &disc, sizeof(disc), 0, deadline);
}

/**
 * fakenbd_sock_memalloc() - let a disk's socket use the memory reserves
 * @sock: a connected socket that now carries a disk's I/O
 *
 * SOCK_MEMALLOC (sk_set_memalloc(), which adds __GFP_MEMALLOC to its
 * allocations), as nbd.c's: writeback and swap to the disk must progress
 * when memory is short. fakenbd_sock_release() undoes it.
 *
 * Context: process context.
 */
void fakenbd_sock_memalloc(struct socket *sock)
{
	sk_set_memalloc(sock->sk);
}

/**
 * fakenbd_sock_release() - close a socket, SOCK_MEMALLOC or not
 * @sock: the socket
 *
 * Context: process context; sleeps.
 */
void fakenbd_sock_release(struct socket *sock)
{
	if (sock_flag(sock->sk, SOCK_MEMALLOC))
		sk_clear_memalloc(sock->sk);
	sock_release(sock);
}

/**
 * fakenbd_sock_recv_bvec() - read one segment of a request's pages
 * @sock: the socket
 * @bvec: the segment, filled whole
 *
 * Context: as fakenbd_sock_recv().
 * Return: as fakenbd_sock_recv().
 */
int fakenbd_sock_recv_bvec(struct socket *sock, struct bio_vec *bvec)
{
	struct msghdr msg = { .msg_flags = MSG_WAITALL | MSG_NOSIGNAL };

	iov_iter_bvec(&msg.msg_iter, ITER_DEST, bvec, 1, bvec->bv_len);
	return fakenbd_sock_xfer(sock, &msg, false, 0);
}

/**
 * fakenbd_errno_text() - a few words for a connection's errno
 * @err: a negative errno
 *
 * Return: a static string; "failed" for a value it does not know.
 */
const char *fakenbd_errno_text(int err)
{
	switch (err) {
	case -ECONNREFUSED:
		return "connection refused";
	case -ETIMEDOUT:
	case -EAGAIN:
	case -EINPROGRESS:
		return "timed out";
	case -ENETUNREACH:
		return "network unreachable";
	case -EHOSTUNREACH:
		return "no route to host";
	case -ECONNRESET:
		return "connection reset";
	case -EPIPE:
		return "connection closed";
	case -EINTR:
	case -ERESTARTSYS:
		return "interrupted";
	case -ENOMEM:
	case -ENOBUFS:
		return "out of memory";
	case -EADDRNOTAVAIL:
		return "address not available";
	case -EAFNOSUPPORT:
		return "address family not supported";
	default:
		return "failed";
	}
}

/**
 * fakenbd_sock_connect() - open a TCP connection to an NBD server
 * @net: the network namespace to connect in (the caller's)
 * @addr: the server, AF_INET or AF_INET6 with a port
 * @timeout: seconds for the connection and for each later send or
 *	receive; 0 for no limit
 * @why: set to the reason on failure ("connect 127.0.0.1:10809:
 *	connection refused")
 * @why_len: size of @why
 *
 * The socket gets GFP_NOIO allocations (it carries block I/O, written
 * also from the submitter's context: never from current->task_frag,
 * which the submitter may be using) and TCP_NODELAY; its send and
 * receive timeouts are @timeout.
 *
 * It is made as a user's socket would be (__sock_create() with kern 0),
 * not as a kernel socket: so it holds a reference to @net, which a
 * namespace other than init_net needs (a kernel socket does not keep
 * its namespace alive), and the security modules judge the caller.
 *
 * Context: process context; sleeps up to @timeout seconds.
 * Return: the connected socket, or an ERR_PTR().
 */
struct socket *fakenbd_sock_connect(struct net *net,
				    const struct sockaddr_storage *addr,
				    unsigned int timeout, char *why,
				    size_t why_len)
{
	int len = addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						sizeof(struct sockaddr_in);
	struct socket *sock;
	int ret;

	ret = __sock_create(net, addr->ss_family, SOCK_STREAM, IPPROTO_TCP,
			    &sock, 0);
	if (ret) {
		snprintf(why, why_len, "connect %pISpc: cannot create a socket (error %d)",
			 addr, ret);
		return ERR_PTR(ret);
	}
	sock->sk->sk_allocation = GFP_NOIO;
	sock->sk->sk_use_task_frag = false;
	sock->sk->sk_sndtimeo = fakenbd_jiffies(timeout);
	sock->sk->sk_rcvtimeo = fakenbd_jiffies(timeout);
	tcp_sock_set_nodelay(sock->sk);

	/* The send timeout bounds a blocking connect, too. */
	ret = kernel_connect(sock, (struct sockaddr *)addr, len, 0);
	if (ret) {
		snprintf(why, why_len, "connect %pISpc: %s", addr,
			 fakenbd_errno_text(ret));
		sock_release(sock);
		return ERR_PTR(ret == -EINPROGRESS ? -ETIMEDOUT : ret);
	}
	return sock;
}

/* "[v6]:port", "v6", "v4:port" or "v4": split into address and port. */
static int fakenbd_split_target(char *text, char **host, char **port)
{
	char *colon;

	*port = NULL;
	if (text[0] == '[') {
		char *end = strchr(text, ']');

		if (!end)
			return -EINVAL;
		*end = '\0';
		*host = text + 1;
		if (end[1] == ':')
			*port = end + 2;
		else if (end[1])
			return -EINVAL;
		return 0;
	}
	*host = text;
	colon = strchr(text, ':');
	if (colon && !strchr(colon + 1, ':')) {
		*colon = '\0';
		*port = colon + 1;
	}
	return 0;
}

/**
 * fakenbd_parse_target() - read a server address from text
 * @text: "ADDR" or "ADDR:PORT", ADDR an IPv4 address or an IPv6 one
 *	(in brackets when a port follows); one trailing newline is ignored
 * @addr: filled with the address and the port (default 10809)
 * @why: set to the reason on failure
 * @why_len: size of @why
 *
 * Host names are not resolved.
 *
 * Context: any context that may allocate with GFP_KERNEL.
 * Return: 0, or -EINVAL with @why set.
 */
int fakenbd_parse_target(const char *text, struct sockaddr_storage *addr,
			 char *why, size_t why_len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)addr;
	struct sockaddr_in *sin = (struct sockaddr_in *)addr;
	u16 port = FAKENBD_DEFAULT_PORT;
	char *copy, *host = NULL, *port_text;
	int ret = -EINVAL;

	copy = kstrndup(text, 128, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	strim(copy);
	memset(addr, 0, sizeof(*addr));
	if (fakenbd_split_target(copy, &host, &port_text))
		goto bad_addr;
	if (port_text && (kstrtou16(port_text, 10, &port) || !port)) {
		snprintf(why, why_len, "target: bad port '%s'", port_text);
		goto out;
	}
	if (in4_pton(host, -1, (u8 *)&sin->sin_addr, -1, NULL)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		ret = 0;
		goto out;
	}
	if (in6_pton(host, -1, (u8 *)&sin6->sin6_addr, -1, NULL)) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		ret = 0;
		goto out;
	}
bad_addr:
	snprintf(why, why_len,
		 "target: '%s' is not an IPv4 or IPv6 address (host names are not resolved)",
		 host ? host : copy);
out:
	kfree(copy);
	return ret;
}
