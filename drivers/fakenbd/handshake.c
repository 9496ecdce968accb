// SPDX-License-Identifier: GPL-2.0
/*
 * The NBD handshake on a connected socket: the fixed newstyle greeting,
 * then NBD_OPT_GO for one export (NBD_OPT_EXPORT_NAME when the server does
 * not know GO). Whatever the server sends is checked before use: a bad
 * magic, a reply to another option, an oversized reply or an absurd size
 * ends the handshake with a reason.
 */

#ifdef FAKENBD_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"
#include "proto.h"

/* The old protocol's second magic, to name it in the refusal. */
#define NBD_OLDSTYLE_MAGIC	0x0000420281861253ULL

/* More replies than this to one option is a server going round in circles. */
#define FAKENBD_MAX_REPLIES	64

/* Exports larger than this (1 EiB) are taken for a broken server. */
#define FAKENBD_MAX_SIZE	BIT_ULL(60)

static int fakenbd_send_option(struct socket *sock, u32 option,
			       const void *data, u32 len,
			       unsigned long deadline)
{
	struct nbd_option opt = {
		.magic = cpu_to_be64(NBD_OPTS_MAGIC),
		.option = cpu_to_be32(option),
		.length = cpu_to_be32(len),
	};
	int ret;

	ret = fakenbd_sock_send(sock, &opt, sizeof(opt), len ? MSG_MORE : 0,
				deadline);
	if (ret || !len)
		return ret;
	return fakenbd_sock_send(sock, data, len, 0, deadline);
}

/* A server's message, made printable, for the log. */
static void fakenbd_log_server_text(const char *export, char *text, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (!isprint(text[i]))
			text[i] = '?';
	if (len)
		pr_info("server's message on export '%s': %.*s\n", export,
			(int)min_t(u32, len, 200), text);
}

static int fakenbd_go_error(u32 type, const char *export, char *why,
			    size_t why_len)
{
	switch (type) {
	case NBD_REP_ERR_UNKNOWN:
		snprintf(why, why_len, "server has no export '%s'", export);
		return -ENOENT;
	case NBD_REP_ERR_POLICY:
		snprintf(why, why_len, "server refused export '%s' (policy)",
			 export);
		return -EACCES;
	case NBD_REP_ERR_TLS_REQD:
		snprintf(why, why_len,
			 "server requires TLS for export '%s', which fakenbd does not speak",
			 export);
		return -EPROTONOSUPPORT;
	case NBD_REP_ERR_SHUTDOWN:
		snprintf(why, why_len, "server is shutting down");
		return -ESHUTDOWN;
	default:
		snprintf(why, why_len,
			 "server refused export '%s' (NBD_OPT_GO error %#x)",
			 export, type);
		return -EPROTO;
	}
}

/*
 * NBD_INFO_BLOCK_SIZE, checked as the protocol says: powers of two, the
 * minimum at most 64 KiB and the preferred size at least the minimum and
 * at most 32 MiB, the maximum payload a multiple of the minimum (or
 * 0xffffffff, no limit but the protocol's).
 */
static int fakenbd_block_sizes(const u8 *buf, struct fakenbd_export_info *info,
			       char *why, size_t why_len)
{
	u32 min = get_unaligned_be32(buf + 2);
	u32 pref = get_unaligned_be32(buf + 6);
	u32 max = get_unaligned_be32(buf + 10);

	if (!is_power_of_2(min) || min > SZ_64K || !is_power_of_2(pref) ||
	    pref < min || pref > SZ_32M || max < min ||
	    (max != U32_MAX && max % min)) {
		snprintf(why, why_len,
			 "server broke the protocol: block sizes %u/%u/%u",
			 min, pref, max);
		return -EPROTO;
	}
	info->min_block = min;
	info->preferred_block = pref;
	info->max_payload = max;
	return 0;
}

/*
 * NBD_OPT_GO, asking for NBD_INFO_BLOCK_SIZE: the server answers with
 * NBD_REP_INFO replies, NBD_INFO_EXPORT among them, and ends with
 * NBD_REP_ACK, or with one error reply. Returns 1 when the server does
 * not know the option.
 */
static int fakenbd_opt_go(struct socket *sock, const char *export,
			  unsigned long deadline,
			  struct fakenbd_export_info *info, char *why,
			  size_t why_len)
{
	struct nbd_option_reply reply;
	u32 name_len = strlen(export);
	u32 len = 4 + name_len + 2 + 2;
	bool have_export = false;
	int replies, ret;
	u8 *buf;

	buf = kmalloc(NBD_MAX_STRING + 64, GFP_KERNEL);
	if (!buf) {
		snprintf(why, why_len, "handshake: out of memory");
		return -ENOMEM;
	}
	put_unaligned_be32(name_len, buf);
	memcpy(buf + 4, export, name_len);
	put_unaligned_be16(1, buf + 4 + name_len);	/* one info request: */
	put_unaligned_be16(NBD_INFO_BLOCK_SIZE, buf + 4 + name_len + 2);
	ret = fakenbd_send_option(sock, NBD_OPT_GO, buf, len, deadline);
	if (ret)
		goto err_io;

	for (replies = 0; replies < FAKENBD_MAX_REPLIES; replies++) {
		u32 type, rlen;

		ret = fakenbd_sock_recv(sock, &reply, sizeof(reply), deadline);
		if (ret)
			goto err_io;
		type = be32_to_cpu(reply.type);
		rlen = be32_to_cpu(reply.length);
		if (be64_to_cpu(reply.magic) != NBD_REP_MAGIC ||
		    be32_to_cpu(reply.option) != NBD_OPT_GO) {
			snprintf(why, why_len,
				 "server broke the protocol: bad option reply (magic %#llx, option %u)",
				 be64_to_cpu(reply.magic),
				 be32_to_cpu(reply.option));
			ret = -EPROTO;
			goto out;
		}
		if (rlen > NBD_MAX_STRING + 64) {
			snprintf(why, why_len,
				 "server broke the protocol: option reply of %u bytes",
				 rlen);
			ret = -EPROTO;
			goto out;
		}
		ret = fakenbd_sock_recv(sock, buf, rlen, deadline);
		if (ret)
			goto err_io;

		if (type == NBD_REP_ACK) {
			if (!have_export) {
				snprintf(why, why_len,
					 "server broke the protocol: no size for export '%s'",
					 export);
				ret = -EPROTO;
			}
			goto out;
		}
		if (type == NBD_REP_INFO) {
			if (rlen >= 2 && get_unaligned_be16(buf) == NBD_INFO_EXPORT) {
				if (rlen != sizeof(struct nbd_info_export)) {
					snprintf(why, why_len,
						 "server broke the protocol: NBD_INFO_EXPORT of %u bytes",
						 rlen);
					ret = -EPROTO;
					goto out;
				}
				info->size = get_unaligned_be64(buf + 2);
				info->flags = get_unaligned_be16(buf + 10);
				have_export = true;
			} else if (rlen >= 2 &&
				   get_unaligned_be16(buf) == NBD_INFO_BLOCK_SIZE) {
				if (rlen != sizeof(struct nbd_info_block_size)) {
					snprintf(why, why_len,
						 "server broke the protocol: NBD_INFO_BLOCK_SIZE of %u bytes",
						 rlen);
					ret = -EPROTO;
					goto out;
				}
				ret = fakenbd_block_sizes(buf, info, why, why_len);
				if (ret)
					goto out;
			}
			continue;
		}
		if (type == NBD_REP_ERR_UNSUP) {
			ret = 1;
			goto out;
		}
		if (type & NBD_REP_FLAG_ERROR) {
			fakenbd_log_server_text(export, buf, rlen);
			ret = fakenbd_go_error(type, export, why, why_len);
			goto out;
		}
		snprintf(why, why_len,
			 "server broke the protocol: option reply of type %u",
			 type);
		ret = -EPROTO;
		goto out;
	}
	snprintf(why, why_len,
		 "server broke the protocol: more than %d option replies",
		 FAKENBD_MAX_REPLIES);
	ret = -EPROTO;
	goto out;

err_io:
	snprintf(why, why_len, "handshake: %s", fakenbd_errno_text(ret));
out:
	kfree(buf);
	return ret;
}

/*
 * NBD_OPT_EXPORT_NAME, for servers without NBD_OPT_GO: no error reply
 * exists, a server without the export closes the connection.
 */
static int fakenbd_opt_export_name(struct socket *sock, const char *export,
				   bool no_zeroes, unsigned long deadline,
				   struct fakenbd_export_info *info, char *why,
				   size_t why_len)
{
	u8 buf[10 + 124];
	size_t len = no_zeroes ? 10 : sizeof(buf);
	int ret;

	ret = fakenbd_send_option(sock, NBD_OPT_EXPORT_NAME, export,
				  strlen(export), deadline);
	if (!ret)
		ret = fakenbd_sock_recv(sock, buf, len, deadline);
	if (ret == -EPIPE) {
		snprintf(why, why_len,
			 "server has no export '%s' (it closed the connection)",
			 export);
		return -ENOENT;
	}
	if (ret) {
		snprintf(why, why_len, "handshake: %s",
			 fakenbd_errno_text(ret));
		return ret;
	}
	info->size = get_unaligned_be64(buf);
	info->flags = get_unaligned_be16(buf + 8);
	return 0;
}

/**
 * fakenbd_negotiate() - run the handshake and choose an export
 * @sock: a socket connected to the server
 * @export: the export's name (at most NBD_MAX_STRING bytes)
 * @deadline: jiffies by which the whole handshake must be done; the
 *	socket's timeouts are set to the time left before each step
 * @info: filled with the export's size and transmission flags
 * @why: set to the reason on failure ("server has no export 'foo'")
 * @why_len: size of @why
 *
 * On success the connection is in the transmission phase. The size is
 * checked (at least 512 bytes, at most 1 EiB); flags without
 * NBD_FLAG_HAS_FLAGS are taken as none.
 *
 * Context: process context; sleeps until @deadline at most. A signal ends
 * it (-EINTR or -ERESTARTSYS).
 * Return: 0, or -errno with @why set.
 */
int fakenbd_negotiate(struct socket *sock, const char *export,
		      unsigned long deadline, struct fakenbd_export_info *info,
		      char *why, size_t why_len)
{
	struct {
		__be64 magic;
		__be64 opts_magic;
		__be16 flags;
	} __packed hello;
	__be32 client_flags;
	u16 flags;
	int ret;

	if (strlen(export) > NBD_MAX_STRING) {
		snprintf(why, why_len, "export name longer than %d bytes",
			 NBD_MAX_STRING);
		return -ENAMETOOLONG;
	}
	ret = fakenbd_sock_recv(sock, &hello, sizeof(hello), deadline);
	if (ret) {
		snprintf(why, why_len, "handshake: no greeting from the server: %s",
			 fakenbd_errno_text(ret));
		return ret;
	}
	if (be64_to_cpu(hello.magic) != NBD_INIT_MAGIC) {
		snprintf(why, why_len, "not an NBD server (greeting %*phN)",
			 8, &hello.magic);
		return -EPROTO;
	}
	if (be64_to_cpu(hello.opts_magic) == NBD_OLDSTYLE_MAGIC) {
		snprintf(why, why_len,
			 "server speaks the oldstyle handshake, which fakenbd does not");
		return -EPROTONOSUPPORT;
	}
	flags = be16_to_cpu(hello.flags);
	if (be64_to_cpu(hello.opts_magic) != NBD_OPTS_MAGIC ||
	    !(flags & NBD_FLAG_FIXED_NEWSTYLE)) {
		snprintf(why, why_len,
			 "server does not speak the fixed newstyle handshake");
		return -EPROTONOSUPPORT;
	}
	client_flags = cpu_to_be32(NBD_FLAG_C_FIXED_NEWSTYLE |
				   (flags & NBD_FLAG_NO_ZEROES ?
				    NBD_FLAG_C_NO_ZEROES : 0));
	ret = fakenbd_sock_send(sock, &client_flags, sizeof(client_flags), 0,
				deadline);
	if (ret) {
		snprintf(why, why_len, "handshake: %s", fakenbd_errno_text(ret));
		return ret;
	}

	ret = fakenbd_opt_go(sock, export, deadline, info, why, why_len);
	if (ret == 1)
		ret = fakenbd_opt_export_name(sock, export,
					      flags & NBD_FLAG_NO_ZEROES,
					      deadline, info, why, why_len);
	if (ret) {
		/* Still haggling: say goodbye politely, as the protocol asks. */
		if (ret != -EPIPE && ret != -ENOENT)
			fakenbd_send_option(sock, NBD_OPT_ABORT, NULL, 0,
					    jiffies + HZ);
		return ret;
	}
	if (!(info->flags & NBD_FLAG_HAS_FLAGS))
		info->flags = 0;
	if (info->size < SECTOR_SIZE || info->size > FAKENBD_MAX_SIZE) {
		snprintf(why, why_len,
			 "server broke the protocol: export '%s' has an absurd size (%llu bytes)",
			 export, info->size);
		return -EPROTO;
	}
	return 0;
}
