// SPDX-License-Identifier: GPL-2.0
/*
 * conf_sys: one system call for a shell test, and its result by name.
 *
 *   conf_sys OP ARGS...
 *
 * prints "OK" (with a count or a text where the call returns one) or the
 * errno's name, such as "EPERM", so that a test can check the exact error,
 * which busybox tools only print as a sentence. Exit status 0 unless the
 * command line is wrong.
 *
 *   mkdir PATH, rmdir PATH, unlink PATH, creat PATH,
 *   mknod PATH            makes a FIFO (a regular file would be a create)
 *   symlink TARGET PATH, link OLD NEW, rename OLD NEW, readlink PATH,
 *   renameat2 OLD NEW FLAGS  FLAGS: noreplace, exchange, whiteout or 0
 *   open PATH r|w|rw      open and close
 *   write PATH DATA       one write() of DATA; prints OK and the count
 *   writebytes PATH N     one write() of N bytes 'x'
 *   read PATH             one read() of up to 8192 bytes; OK and the count
 *   cat PATH              one read(); prints the bytes read, as they are
 *   getcwd .              getcwd(); prints OK and the path
 *   getxattr PATH NAME    getxattr(); prints OK, a newline and the value
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* renameat2's flags by name: noreplace, exchange, whiteout, or 0. */
static unsigned int rename_flags(const char *name)
{
	if (!strcmp(name, "noreplace"))
		return RENAME_NOREPLACE;
	if (!strcmp(name, "exchange"))
		return RENAME_EXCHANGE;
	if (!strcmp(name, "whiteout"))
		return RENAME_WHITEOUT;
	return 0;
}

static int result(long ret)
{
	if (ret < 0) {
		const char *name = strerrorname_np(errno);

		if (name)
			printf("%s\n", name);
		else
			printf("E%d\n", errno);
	} else {
		printf("OK\n");
	}
	return 0;
}

static int counted(long ret)
{
	if (ret < 0)
		return result(ret);
	printf("OK %ld\n", ret);
	return 0;
}

static int open_mode(const char *how)
{
	if (!strcmp(how, "r"))
		return O_RDONLY;
	if (!strcmp(how, "w"))
		return O_WRONLY;
	if (!strcmp(how, "rw"))
		return O_RDWR;
	fprintf(stderr, "conf_sys: open mode r, w or rw\n");
	exit(2);
}

static int do_write(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY);
	long ret;

	if (fd < 0)
		return result(fd);
	ret = write(fd, data, len);
	counted(ret);
	close(fd);
	return 0;
}

static int do_read(const char *path, int print)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY);
	long ret;

	if (fd < 0)
		return result(fd);
	ret = read(fd, buf, sizeof(buf));
	if (print && ret >= 0)
		fwrite(buf, 1, ret, stdout);
	else
		counted(ret);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[8192];
	const char *op = argc > 2 ? argv[1] : "";
	long ret;
	int fd;

	if (argc == 3 && !strcmp(op, "mkdir"))
		return result(mkdir(argv[2], 0755));
	if (argc == 3 && !strcmp(op, "rmdir"))
		return result(rmdir(argv[2]));
	if (argc == 3 && !strcmp(op, "unlink"))
		return result(unlink(argv[2]));
	if (argc == 3 && !strcmp(op, "mknod"))
		return result(mknod(argv[2], S_IFIFO | 0644, 0));
	if (argc == 3 && !strcmp(op, "creat")) {
		fd = open(argv[2], O_CREAT | O_WRONLY, 0644);
		if (fd >= 0)
			close(fd);
		return result(fd);
	}
	if (argc == 4 && !strcmp(op, "symlink"))
		return result(symlink(argv[2], argv[3]));
	if (argc == 4 && !strcmp(op, "link"))
		return result(link(argv[2], argv[3]));
	if (argc == 4 && !strcmp(op, "rename"))
		return result(rename(argv[2], argv[3]));
	if (argc == 5 && !strcmp(op, "renameat2"))
		return result(renameat2(AT_FDCWD, argv[2], AT_FDCWD, argv[3],
					rename_flags(argv[4])));
	if (argc == 3 && !strcmp(op, "readlink")) {
		ret = readlink(argv[2], buf, sizeof(buf) - 1);
		if (ret < 0)
			return result(ret);
		printf("OK %.*s\n", (int)ret, buf);
		return 0;
	}
	if (argc == 4 && !strcmp(op, "open")) {
		fd = open(argv[2], open_mode(argv[3]));
		if (fd >= 0)
			close(fd);
		return result(fd);
	}
	if (argc == 4 && !strcmp(op, "write"))
		return do_write(argv[2], argv[3], strlen(argv[3]));
	if (argc == 4 && !strcmp(op, "writebytes")) {
		size_t n = strtoul(argv[3], NULL, 0);
		char *data = malloc(n + 1);

		if (!data)
			return 2;
		memset(data, 'x', n);
		return do_write(argv[2], data, n);
	}
	if (argc == 3 && !strcmp(op, "read"))
		return do_read(argv[2], 0);
	if (argc == 3 && !strcmp(op, "cat"))
		return do_read(argv[2], 1);
	if (argc == 3 && !strcmp(op, "getcwd")) {
		if (!getcwd(buf, sizeof(buf)))
			return result(-1);
		printf("OK %s\n", buf);
		return 0;
	}
	if (argc == 4 && !strcmp(op, "getxattr")) {
		ssize_t n = getxattr(argv[2], argv[3], buf, sizeof(buf) - 1);

		if (n < 0)
			return result(-1);
		buf[n] = 0;
		printf("OK\n%s", buf);
		return 0;
	}
	fprintf(stderr, "usage: conf_sys OP ARGS... (see the source)\n");
	return 2;
}
