/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NBD protocol as fakenbd speaks it: the fixed newstyle handshake,
 * option haggling with NBD_OPT_GO, and the transmission phase with simple
 * replies. Every field on the wire is big-endian. Names and values follow
 * the protocol's own document, NetworkBlockDevice/nbd doc/proto.md.
 */
#ifndef _FAKENBD_PROTO_H
#define _FAKENBD_PROTO_H

#include <linux/bits.h>
#include <linux/types.h>

/* Handshake: the server's greeting, then the client's flags. */
#define NBD_INIT_MAGIC			0x4e42444d41474943ULL /* "NBDMAGIC" */
#define NBD_OPTS_MAGIC			0x49484156454f5054ULL /* "IHAVEOPT" */
#define NBD_FLAG_FIXED_NEWSTYLE		BIT(0)
#define NBD_FLAG_NO_ZEROES		BIT(1)
#define NBD_FLAG_C_FIXED_NEWSTYLE	BIT(0)
#define NBD_FLAG_C_NO_ZEROES		BIT(1)

/* Options, sent as "IHAVEOPT", option, length, data. */
#define NBD_OPT_EXPORT_NAME		1
#define NBD_OPT_ABORT			2
#define NBD_OPT_GO			7

/* Option replies: magic, option, type, length, data. */
#define NBD_REP_MAGIC			0x0003e889045565a9ULL
#define NBD_REP_ACK			1
#define NBD_REP_INFO			3
#define NBD_REP_FLAG_ERROR		BIT(31)
#define NBD_REP_ERR_UNSUP		(NBD_REP_FLAG_ERROR | 1)
#define NBD_REP_ERR_POLICY		(NBD_REP_FLAG_ERROR | 2)
#define NBD_REP_ERR_INVALID		(NBD_REP_FLAG_ERROR | 3)
#define NBD_REP_ERR_PLATFORM		(NBD_REP_FLAG_ERROR | 4)
#define NBD_REP_ERR_TLS_REQD		(NBD_REP_FLAG_ERROR | 5)
#define NBD_REP_ERR_UNKNOWN		(NBD_REP_FLAG_ERROR | 6)
#define NBD_REP_ERR_SHUTDOWN		(NBD_REP_FLAG_ERROR | 7)
#define NBD_REP_ERR_BLOCK_SIZE_REQD	(NBD_REP_FLAG_ERROR | 8)
#define NBD_REP_ERR_TOO_BIG		(NBD_REP_FLAG_ERROR | 9)

/* NBD_REP_INFO payloads start with a 16-bit type. */
#define NBD_INFO_EXPORT			0
#define NBD_INFO_BLOCK_SIZE		3

/* Transmission flags, in NBD_INFO_EXPORT and the old EXPORT_NAME reply. */
#define NBD_FLAG_HAS_FLAGS		BIT(0)
#define NBD_FLAG_READ_ONLY		BIT(1)
#define NBD_FLAG_SEND_FLUSH		BIT(2)
#define NBD_FLAG_SEND_FUA		BIT(3)
#define NBD_FLAG_ROTATIONAL		BIT(4)
#define NBD_FLAG_SEND_TRIM		BIT(5)
#define NBD_FLAG_CAN_MULTI_CONN		BIT(8)	/* a flush covers every connection */

/* Requests and simple replies. */
#define NBD_REQUEST_MAGIC		0x25609513
#define NBD_SIMPLE_REPLY_MAGIC		0x67446698
#define NBD_STRUCTURED_REPLY_MAGIC	0x668e33ef
#define NBD_CMD_FLAG_FUA		BIT(0)
#define NBD_CMD_READ			0
#define NBD_CMD_WRITE			1
#define NBD_CMD_DISC			2
#define NBD_CMD_FLUSH			3
#define NBD_CMD_TRIM			4

/* Error values in replies (the protocol's own numbering). */
#define NBD_EPERM			1
#define NBD_EIO				5
#define NBD_ENOMEM			12
#define NBD_EINVAL			22
#define NBD_ENOSPC			28
#define NBD_EOVERFLOW			75
#define NBD_ENOTSUP			95
#define NBD_ESHUTDOWN			108

/* The longest string (export name, message) the protocol allows. */
#define NBD_MAX_STRING			4096

struct nbd_option {
	__be64 magic;
	__be32 option;
	__be32 length;
} __packed;

struct nbd_option_reply {
	__be64 magic;
	__be32 option;
	__be32 type;
	__be32 length;
} __packed;

/* NBD_REP_INFO of type NBD_INFO_EXPORT. */
struct nbd_info_export {
	__be16 type;
	__be64 size;
	__be16 flags;
} __packed;

/* NBD_REP_INFO of type NBD_INFO_BLOCK_SIZE: the sizes a request must keep. */
struct nbd_info_block_size {
	__be16 type;
	__be32 minimum;
	__be32 preferred;
	__be32 maximum;
} __packed;

struct nbd_request {
	__be32 magic;
	__be16 flags;
	__be16 type;
	__be64 handle;
	__be64 offset;
	__be32 length;
} __packed;

struct nbd_simple_reply {
	__be32 magic;
	__be32 error;
	__be64 handle;
} __packed;

#endif /* _FAKENBD_PROTO_H */
