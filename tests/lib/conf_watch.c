// SPDX-License-Identifier: GPL-2.0
/*
 * conf_watch: what inotify tells a watcher of a directory while a command
 * runs.
 *
 *   conf_watch DIR CMD
 *
 * watches DIR for deletions and creations, runs "sh -c CMD", then prints
 * each event queued by the time CMD has exited and half a second more,
 * one per line: its flags (IN_CREATE, IN_DELETE, IN_DELETE_SELF, IN_ISDIR,
 * IN_IGNORED, joined by "|") and the name, if any. Exit status: CMD's, or
 * 2 if the watch cannot be set.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const struct {
	unsigned int mask;
	const char *name;
} flags[] = {
	{ IN_CREATE, "IN_CREATE" },
	{ IN_DELETE, "IN_DELETE" },
	{ IN_DELETE_SELF, "IN_DELETE_SELF" },
	{ IN_ISDIR, "IN_ISDIR" },
	{ IN_IGNORED, "IN_IGNORED" },
};

static void print_events(const char *buf, ssize_t len)
{
	const struct inotify_event *ev;
	const char *p;
	unsigned int i;
	int first;

	for (p = buf; p < buf + len; p += sizeof(*ev) + ev->len) {
		ev = (const struct inotify_event *)p;
		first = 1;
		for (i = 0; i < ARRAY_SIZE(flags); i++) {
			if (!(ev->mask & flags[i].mask))
				continue;
			printf("%s%s", first ? "" : "|", flags[i].name);
			first = 0;
		}
		printf("%s%s\n", ev->len ? " " : "", ev->len ? ev->name : "");
	}
}

int main(int argc, char **argv)
{
	union {
		struct inotify_event ev;
		char buf[16384];
	} u;
	struct pollfd pfd;
	int fd, status;
	ssize_t len;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: conf_watch DIR CMD\n");
		return 2;
	}
	fd = inotify_init1(IN_NONBLOCK);
	if (fd < 0 || inotify_add_watch(fd, argv[1], IN_CREATE | IN_DELETE |
					IN_DELETE_SELF) < 0) {
		perror("conf_watch: inotify");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		execl("/bin/sh", "sh", "-c", argv[2], (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 500) > 0) {
		len = read(fd, u.buf, sizeof(u.buf));
		if (len <= 0)
			break;
		print_events(u.buf, len);
	}
	fflush(stdout);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
