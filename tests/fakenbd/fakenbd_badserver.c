// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately bad NBD server for tests/fakenbd/fakenbd_bad.sh: it listens
 * on 127.0.0.1:PORT, goes to the background once listening, serves one
 * client and exits (but in mode multi). MODE picks the misbehaviour:
 *
 *   badmagic      greets with a wrong magic
 *   silent        accepts, then says nothing (the client must time out)
 *   trickle       sends its greeting a byte each half second (9 s), then
 *                 shakes hands as the honest ones do
 *   hugesize      offers an export of 2^62 bytes
 *   shortinfo     sends an NBD_INFO_EXPORT of the wrong length
 *   badblock      sends NBD_INFO_BLOCK_SIZE with a minimum of 3 bytes
 *   blocksize     sends NBD_INFO_BLOCK_SIZE 4096/8192/65536, then serves
 *   replyflood    answers NBD_OPT_GO with endless NBD_REP_INFO replies
 *
 * and, after an honest handshake (a 1 MiB export of zeroes), for requests
 * at offsets in [256 KiB, 768 KiB) (the partition scan stays outside):
 *
 *   wronghandle   replies with a handle it was never sent
 *   badmagic2     replies with a wrong reply magic
 *   shortreply    sends half a read's data, then closes
 *   stallreply    sends half a read's data, then stalls for 60 s
 *   stall         never replies (and keeps reading)
 *   ioerror       replies NBD_EIO and keeps serving
 *   slowreply     replies after 35 s (the default request timer is 30 s)
 *   eshutdown     replies NBD_ESHUTDOWN and keeps serving until NBD_CMD_DISC
 *
 * and stallscan: never replies to a read below 256 KiB (where the
 * partition table is), and serves the rest; and multi, an honest one that
 * says NBD_FLAG_CAN_MULTI_CONN, keeps listening and serves each client in
 * a process of its own (killed, it loses that connection alone).
 *
 * pause is multi with an export of 4 MiB that keeps what is written (in
 * memory its processes share) and takes it slowly: its connections have a small receive
 * buffer and segment size, so that a client's socket fills after a few
 * tens of KiB. At the first write of 256 KiB or more it reads the
 * request's header, creates /tmp/fakenbd_badserver.PORT.paused and reads
 * nothing more until /tmp/fakenbd_badserver.PORT.go exists: the client
 * is left waiting for room in the middle of the request.
 *
 * Usage: fakenbd_badserver MODE PORT
 */
#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define SIZE		(1024 * 1024)
#define BAD_START	(256 << 10)
#define BAD_END		(768 << 10)
#define PAUSE_SIZE	(4 << 20)
#define PAUSE_LEN	(256 << 10)

static const char *mode;
static int trickling;	/* put64() sends a byte each half second */

/* pause: the export's bytes, and then whether it paused, shared. */
static char *store;
static char paused_path[64], go_path[64];

static int is(const char *m)
{
	return !strcmp(mode, m);
}

/* Several clients at once, each in a process of its own. */
static int serves_many(void)
{
	return is("multi") || is("pause");
}

static void put(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0)
			exit(0);
		p += n;
		len -= n;
	}
}

static void get(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n <= 0)
			exit(0);
		p += n;
		len -= n;
	}
}

static void put64(int fd, unsigned long long v)
{
	const unsigned char *p = (const unsigned char *)&v;
	int i;

	v = htobe64(v);
	if (!trickling) {
		put(fd, &v, 8);
		return;
	}
	for (i = 0; i < 8; i++) {
		put(fd, p + i, 1);
		usleep(500000);
	}
}

static void put32(int fd, unsigned int v)
{
	v = htobe32(v);
	put(fd, &v, 4);
}

static void put16(int fd, unsigned short v)
{
	v = htobe16(v);
	put(fd, &v, 2);
}

static void option_reply(int fd, unsigned int opt, unsigned int type, unsigned int len)
{
	put64(fd, 0x0003e889045565a9ULL);
	put32(fd, opt);
	put32(fd, type);
	put32(fd, len);
}

static void handshake(int fd)
{
	unsigned int hdr[4], len, opt;
	static char data[8192];
	unsigned long long size = is("hugesize") ? 1ULL << 62 :
				  is("pause") ? PAUSE_SIZE : SIZE;

	trickling = is("trickle");
	put64(fd, is("badmagic") ? 0x4e42444d41474945ULL :
	      0x4e42444d41474943ULL);
	put64(fd, 0x49484156454f5054ULL);
	put16(fd, 3);
	trickling = 0;
	get(fd, hdr, 4);
	get(fd, hdr, 16);
	opt = be32toh(hdr[2]);
	len = be32toh(hdr[3]);
	if (len > sizeof(data))
		exit(1);
	get(fd, data, len);
	if (opt != 7)
		exit(1);
	if (is("replyflood")) {
		for (;;) {
			option_reply(fd, 7, 3, 4);
			put16(fd, 1234);
			put16(fd, 0);
		}
	}
	if (is("shortinfo")) {
		option_reply(fd, 7, 3, 10);
		put16(fd, 0);
		put64(fd, size);
	} else {
		option_reply(fd, 7, 3, 12);
		put16(fd, 0);
		put64(fd, size);
		/* HAS_FLAGS, SEND_FLUSH; CAN_MULTI_CONN */
		put16(fd, 1 | 4 | (serves_many() ? 0x100 : 0));
	}
	if (is("badblock") || is("blocksize")) {
		option_reply(fd, 7, 3, 14);
		put16(fd, 3);
		put32(fd, is("badblock") ? 3 : 4096);
		put32(fd, 8192);
		put32(fd, 65536);
	}
	option_reply(fd, 7, 1, 0);
}

/* pause: at the first large write, stop reading until told to go on. */
static void pause_once(unsigned int len)
{
	FILE *f;

	if (!store || len < PAUSE_LEN || store[PAUSE_SIZE])
		return;
	store[PAUSE_SIZE] = 1;
	f = fopen(paused_path, "w");
	if (f)
		fclose(f);
	while (access(go_path, F_OK))
		usleep(100000);
}

static void serve(int fd)
{
	static char buf[1 << 20], zero[1 << 20];
	unsigned int req[7], type, len;
	unsigned long long handle, off;

	for (;;) {
		get(fd, req, 28);
		type = be16toh(req[1] >> 16);
		memcpy(&handle, &req[2], 8);
		memcpy(&off, &req[4], 8);
		off = be64toh(off);
		len = be32toh(req[6]);
		if (len > sizeof(buf) || (store && (off > PAUSE_SIZE ||
						    len > PAUSE_SIZE - off)))
			exit(1);
		if (type == 1)
			pause_once(len);
		if (type == 1)
			get(fd, store ? store + off : buf, len);
		if (type == 2)
			exit(0);
		if (is("stallscan") && off < BAD_START && type == 0)
			continue;
		if (off >= BAD_START && off < BAD_END && type != 3) {
			if (is("stall")) {
				continue;
			} else if (is("wronghandle")) {
				handle ^= htobe64(0x5a5a5a5a00000000ULL);
			} else if (is("badmagic2")) {
				put32(fd, 0x12345678);
				put32(fd, 0);
				put(fd, &handle, 8);
				continue;
			} else if (is("slowreply")) {
				sleep(35);
			} else if (is("ioerror") || is("eshutdown")) {
				put32(fd, 0x67446698);
				put32(fd, is("ioerror") ? 5 : 108);
				put(fd, &handle, 8);
				continue;
			} else if (type == 0 && (is("shortreply") ||
						 is("stallreply"))) {
				put32(fd, 0x67446698);
				put32(fd, 0);
				put(fd, &handle, 8);
				put(fd, zero, len / 2);
				if (is("stallreply"))
					sleep(60);
				exit(0);
			}
		}
		put32(fd, 0x67446698);
		put32(fd, 0);
		put(fd, &handle, 8);
		if (type == 0)
			put(fd, store ? store + off : zero, len);
	}
}

/*
 * pause: the store, and connections that take little at a time (the
 * accepted sockets inherit the listener's buffer and segment size).
 */
static void pause_setup(int lfd, const char *port)
{
	int rcvbuf = 16384, mss = 1024;

	snprintf(paused_path, sizeof(paused_path),
		 "/tmp/fakenbd_badserver.%s.paused", port);
	snprintf(go_path, sizeof(go_path), "/tmp/fakenbd_badserver.%s.go",
		 port);
	store = mmap(NULL, PAUSE_SIZE + 1, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (store == MAP_FAILED ||
	    setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) ||
	    setsockopt(lfd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss))) {
		perror("fakenbd_badserver: pause");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int lfd, fd, one = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: %s MODE PORT\n", argv[0]);
		return 2;
	}
	mode = argv[1];
	sin.sin_port = htons(atoi(argv[2]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (is("pause"))
		pause_setup(lfd, argv[2]);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(lfd, 1)) {
		perror("fakenbd_badserver");
		return 1;
	}
	if (fork())
		return 0;
	if (serves_many())
		signal(SIGCHLD, SIG_IGN);	/* no zombies to count */
	while (serves_many()) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			return 1;
		if (!fork()) {
			close(lfd);
			handshake(fd);
			serve(fd);
		}
		close(fd);
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		return 1;
	close(lfd);
	if (is("silent")) {
		sleep(60);
		return 0;
	}
	handshake(fd);
	serve(fd);
	return 0;
}
