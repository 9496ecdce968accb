// SPDX-License-Identifier: GPL-2.0
/*
 * Messages, memory, path and JSON helpers shared by every subcommand.
 *
 * Trees, scripts and plans each live in an arena: many small objects that
 * die together, so each has one free. Running out of memory ends the
 * program with CFS_EXIT_SYSTEM; nothing is half-applied by that, since a
 * restore allocates its whole plan before it touches the tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configfs.h"

#define ARENA_CHUNK	(64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used;
	size_t size;
	max_align_t data[];
};

struct cfs_opts cfs_opts = {
	.prog = "configfs",
};

/*
 * @s as text for a terminal: printable ASCII and well-formed UTF-8 from
 * U+00A0 as they are, every other byte (controls, DEL, C1 controls such
 * as U+009B, bytes that are not UTF-8) as \xNN. A name or value read
 * from the tree or a file could otherwise move the cursor, retitle the
 * window or answer back.
 */
void cfs_put_safe(FILE *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned int cp;
	size_t i = 0;

	while (i < len) {
		size_t n = u[i] >= 0x80 ? utf8_seq_len(u + i, len - i, &cp) :
			   0;

		if (u[i] >= 0x20 && u[i] < 0x7f) {
			fputc(u[i], out);
			i++;
		} else if (n && cp >= 0xa0) {
			fwrite(u + i, 1, n, out);
			i += n;
		} else {
			fprintf(out, "\\x%02x", u[i]);
			i++;
		}
	}
}

/*
 * Messages name paths and values from the tree and from files, and go
 * to the journal at boot: each goes out through cfs_put_safe().
 */
void cfs_err(const char *object, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int len;

	fflush(stdout);
	fprintf(stderr, "%s: ", cfs_opts.prog);
	if (object) {
		if (!object[0])
			object = "/";
		cfs_put_safe(stderr, object, strlen(object));
		fputs(": ", stderr);
	}
	va_start(ap, fmt);
	len = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (len < 0)
		cfs_out_of_memory();
	cfs_put_safe(stderr, text, len);
	free(text);
	fputc('\n', stderr);
}

static bool cfs_has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * The attributes known to hold secrets: nvmet's host and controller
 * DH-HMAC-CHAP keys (dhchap_*), LIO iSCSI's CHAP passwords (auth/ and
 * discovery_auth/ password, password_mutual). save writes them (its file
 * is 0600); what is shown to people hides them.
 */
bool cfs_is_secret(const char *path)
{
	const char *name = path_base(path);
	size_t dir_len = name > path ? (size_t)(name - path - 1) : 0;
	const char *dir = path;
	size_t i;

	if (cfs_has_prefix(name, "dhchap_"))
		return true;
	if (!strstr(name, "password"))
		return false;
	for (i = dir_len; i > 0 && path[i - 1] != '/'; i--)
		;
	dir = path + i;
	return (dir_len - i == 4 && !strncmp(dir, "auth", 4)) ||
	       (dir_len - i == 14 && !strncmp(dir, "discovery_auth", 14));
}

/* Is @path's value hidden from what is printed (no --show-secrets)? */
bool cfs_hides(const char *path)
{
	return !cfs_opts.show_secrets && cfs_is_secret(path);
}

/* "usage: PROG @rest", the first line of every usage text. */
void cfs_usage_line(FILE *out, const char *rest)
{
	fprintf(out, "usage: %s %s\n", cfs_opts.prog, rest);
}

const char *cfs_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case CFS_EZEROWRITE:
		return "write(2) returned 0: the value was not taken";
	case CFS_ESHORTWRITE:
		return "write(2) took only part of the value";
	case CFS_EOUTSIDE:
		return "link points outside the configfs tree";
	}
	return strerror(err);
}

void cfs_out_of_memory(void)
{
	cfs_err(NULL, "out of memory");
	exit(CFS_EXIT_SYSTEM);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		cfs_out_of_memory();
	return p;
}

void *xrealloc_array(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		cfs_out_of_memory();
	p = realloc(p, nmemb && size ? nmemb * size : 1);
	if (!p)
		cfs_out_of_memory();
	return p;
}

void *arena_alloc(struct arena *arena, size_t size)
{
	struct arena_chunk *chunk = arena->head;
	size_t align = sizeof(max_align_t);
	void *p;

	size = (size + align - 1) & ~(align - 1);
	if (!chunk || chunk->size - chunk->used < size) {
		size_t chunk_size = size > ARENA_CHUNK ? size : ARENA_CHUNK;

		chunk = xmalloc(sizeof(*chunk) + chunk_size);
		chunk->used = 0;
		chunk->size = chunk_size;
		/* A large one-off goes behind the current chunk. */
		if (arena->head && size > ARENA_CHUNK) {
			chunk->next = arena->head->next;
			arena->head->next = chunk;
		} else {
			chunk->next = arena->head;
			arena->head = chunk;
		}
	}
	p = (char *)chunk->data + chunk->used;
	chunk->used += size;
	return p;
}

char *arena_strndup(struct arena *arena, const char *s, size_t len)
{
	char *p = arena_alloc(arena, len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *arena_strdup(struct arena *arena, const char *s)
{
	return arena_strndup(arena, s, strlen(s));
}

char *arena_printf(struct arena *arena, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		cfs_out_of_memory();
	p = arena_alloc(arena, len + 1);
	va_start(ap, fmt);
	vsnprintf(p, len + 1, fmt, ap);
	va_end(ap);
	return p;
}

void arena_free(struct arena *arena)
{
	struct arena_chunk *chunk = arena->head;

	while (chunk) {
		struct arena_chunk *next = chunk->next;

		free(chunk);
		chunk = next;
	}
	arena->head = NULL;
}

char *path_join(struct arena *arena, const char *dir, const char *name)
{
	if (!dir[0])
		return arena_strdup(arena, name);
	return arena_printf(arena, "%s/%s", dir, name);
}

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Is @path @top or below it? Both relative to the root; "" is the root. */
bool path_is_under(const char *path, const char *top)
{
	size_t len = strlen(top);

	if (!len)
		return true;
	return !strncmp(path, top, len) &&
	       (path[len] == '\0' || path[len] == '/');
}

/*
 * Length of the well-formed UTF-8 sequence for a code point from U+0080 at
 * @s, storing the code point in @cp; 0 when there is none.
 */
size_t utf8_seq_len(const unsigned char *s, size_t left, unsigned int *cp)
{
	size_t n;
	size_t i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		*cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		*cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		*cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && *cp < 0x800) || (n == 4 && *cp < 0x10000) ||
	    (*cp >= 0xd800 && *cp <= 0xdfff) || *cp > 0x10ffff)
		return 0;
	return n;
}

/* Is @s (@len bytes) well-formed UTF-8? */
bool json_is_utf8(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned int cp;
	size_t i = 0;

	while (i < len) {
		size_t n = u[i] < 0x80 ? 1 : utf8_seq_len(u + i, len - i, &cp);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

/* @s as a JSON string: quotes, backslashes and control bytes escaped. */
void json_string(FILE *out, const char *s, size_t len)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		/* C1 controls (U+0080..U+009F) too: a terminal obeys them. */
		else if (c == 0xc2 && i + 1 < len &&
			 (unsigned char)s[i + 1] >= 0x80 &&
			 (unsigned char)s[i + 1] < 0xa0)
			fprintf(out, "\\u%04x", (unsigned char)s[++i]);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/*
 * "KEY":"VALUE", or "KEY_hex":"HEX" when @s is not UTF-8 (JSON strings
 * hold text only): values, and names, which configfs does not require to
 * be UTF-8 either.
 */
void json_member(FILE *out, const char *key, const char *s, size_t len)
{
	size_t i;

	if (json_is_utf8(s, len)) {
		fprintf(out, "\"%s\":", key);
		json_string(out, s, len);
		return;
	}
	fprintf(out, "\"%s_hex\":\"", key);
	for (i = 0; i < len; i++)
		fprintf(out, "%02x", (unsigned char)s[i]);
	fputc('"', out);
}

/* ,"KEY":"VALUE", as json_member(). */
void json_field(FILE *out, const char *key, const char *s, size_t len)
{
	fputc(',', out);
	json_member(out, key, s, len);
}

/* Reads @file ("-" is standard input) into a NUL-terminated buffer. */
int read_whole_file(const char *file, char **text, size_t *len)
{
	size_t cap = 4096;
	size_t used = 0;
	char *buf;
	int fd;

	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t ret;

		if (cap - used < 2) {
			cap *= 2;
			buf = xrealloc_array(buf, cap, 1);
		}
		ret = read(fd, buf + used, cap - used - 1);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			int err = -errno;

			free(buf);
			if (fd)
				close(fd);
			return err;
		}
		if (!ret)
			break;
		used += ret;
	}
	if (fd)
		close(fd);
	buf[used] = '\0';
	*text = buf;
	*len = used;
	return 0;
}

/*
 * Is @path a setting of the host rather than of the tree, which another
 * program may have set first and the kernel may refuse to change? LIO's
 * target/dbroot, the directory of its metadata files: the kernel takes
 * a new one only while no backstore exists, and only a directory that
 * is there; rtslib-fb-targetctl sets its own at its start. restore
 * warns when it cannot set one, and goes on.
 */
bool path_is_host_setting(const char *path)
{
	return !strcmp(path, "target/dbroot");
}

/* Is @dir a LIO backstore, target/core/HBA/DEVICE (two names, no more)? */
bool path_is_lio_backstore(const char *dir)
{
	const char *hba, *slash;

	if (strncmp(dir, "target/core/", strlen("target/core/")))
		return false;
	hba = dir + strlen("target/core/");
	slash = strchr(hba, '/');
	return slash && slash != hba && slash[1] && !strchr(slash + 1, '/');
}
