// SPDX-License-Identifier: GPL-2.0
/*
 * The save format (docs/save-format.md): parsing, printing and quoting.
 * No other file knows its syntax.
 *
 * One statement a line: a keyword, then words. A word is bare, or quoted
 * in double quotes with C-like escapes. A line whose first non-blank
 * character is '#' is a comment. The whole file is checked before any
 * statement runs; every bad line is reported with its number.
 *
 * A file begins with "version 1" and ends with "end", so that one cut
 * short is refused; a file without a version line, from before there
 * were any, is still read, with a warning.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configfs.h"

#define FORMAT_NAME_MAX		255
#define FORMAT_PATH_MAX		4000
#define FORMAT_ID_MAX		4294967294UL
/*
 * Longer than any line save writes: a page of value (64 KiB on some
 * machines) with every byte escaped as \xNN, and a path.
 */
#define FORMAT_LINE_MAX		(1024UL * 1024)
#define FORMAT_FILE_MAX		(64UL << 20)

struct format_kw {
	const char *name;
	enum stmt_kind kind;
};

static const struct format_kw format_kws[] = {
	{ "mkdir", STMT_MKDIR },
	{ "set", STMT_SET },
	{ "link", STMT_LINK },
	{ "chmod", STMT_CHMOD },
	{ "chown", STMT_CHOWN },
	{ "module", STMT_MODULE },
	{ "udc", STMT_SET },	/* any free UDC: st->any */
};

/* Every statement kind's keyword, for printing; commit is never parsed. */
static const char *const format_names[] = {
	[STMT_MKDIR] = "mkdir", [STMT_SET] = "set", [STMT_LINK] = "link",
	[STMT_CHMOD] = "chmod", [STMT_CHOWN] = "chown",
	[STMT_COMMIT] = "commit", [STMT_MODULE] = "module",
};

/* One word of a line, unescaped into the script's arena. */
struct format_word {
	char *s;
	size_t len;
};

struct format_line {
	struct script *script;
	const char *name;
	unsigned int line;
	struct format_word words[4];
	int nr_words;
	unsigned int end_line;	/* of "end", once seen */
	bool seen_stmt;		/* a statement, valid or not */
};

static void format_line_err(struct format_line *fl, const char *fmt,
			    const char *arg)
{
	char object[PATH_MAX];

	snprintf(object, sizeof(object), "%s:%u", fl->name, fl->line);
	cfs_err(object, fmt, arg);
}

/* Length of the UTF-8 sequence at @s for a code point from U+00A0, or 0. */
static size_t format_utf8_len(const unsigned char *s, size_t left)
{
	unsigned int cp;
	size_t n = utf8_seq_len(s, left, &cp);

	return n && cp >= 0xa0 ? n : 0;
}

static bool format_is_bare(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c <= ' ' || c >= 0x7f || c == '"' || c == '\\' ||
		    c == '#' || c == '\'')
			return false;
	}
	return true;
}

void format_put_token(FILE *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i;

	if (format_is_bare(s, len)) {
		fwrite(s, 1, len, out);
		return;
	}
	fputc('"', out);
	for (i = 0; i < len; i++) {
		size_t n;

		switch (u[i]) {
		case '"':
			fputs("\\\"", out);
			continue;
		case '\\':
			fputs("\\\\", out);
			continue;
		case '\n':
			fputs("\\n", out);
			continue;
		case '\t':
			fputs("\\t", out);
			continue;
		case '\r':
			fputs("\\r", out);
			continue;
		}
		if (u[i] >= ' ' && u[i] < 0x7f) {
			fputc(u[i], out);
			continue;
		}
		n = u[i] >= 0x80 ? format_utf8_len(u + i, len - i) : 0;
		if (n) {
			fwrite(u + i, 1, n, out);
			i += n - 1;
		} else {
			fprintf(out, "\\x%02x", u[i]);
		}
	}
	fputc('"', out);
}

static void format_stmt(FILE *out, const char *prefix, const struct stmt *st,
			bool hide)
{
	fputs(prefix, out);
	fputs(st->any ? "udc" : format_names[st->kind], out);
	fputc(' ', out);
	format_put_token(out, st->path, strlen(st->path));
	if (st->any) {
		fputc('\n', out);
		return;
	}
	switch (st->kind) {
	case STMT_MKDIR:
	case STMT_COMMIT:
	case STMT_MODULE:
		break;
	case STMT_SET:
		fputc(' ', out);
		if (hide)
			format_put_value(out, st->path, st->arg, st->len);
		else
			format_put_token(out, st->arg, st->len);
		break;
	case STMT_LINK:
		fputc(' ', out);
		format_put_token(out, st->arg, st->len);
		break;
	case STMT_CHMOD:
		fprintf(out, " %04o", (unsigned int)st->mode);
		break;
	case STMT_CHOWN:
		fprintf(out, " %lu:%lu", (unsigned long)st->uid,
			(unsigned long)st->gid);
		break;
	}
	fputc('\n', out);
}

/*
 * A value for people: "[secret]" for a known secret attribute (see
 * cfs_is_secret()) unless --show-secrets, else as saved.
 */
void format_put_value(FILE *out, const char *path, const char *s,
		      size_t len)
{
	if (cfs_hides(path))
		fputs("[secret]", out);
	else
		format_put_token(out, s, len);
}

/* A statement shown to people: secret values hidden (format_put_value()). */
void format_print_stmt(FILE *out, const char *prefix, const struct stmt *st)
{
	format_stmt(out, prefix, st, true);
}

/* A statement of a save file: every value as it is. */
void format_save_stmt(FILE *out, const struct stmt *st)
{
	format_stmt(out, "", st, false);
}

void format_print_header(FILE *out)
{
	fputs("# configfs tree, saved by configfs(8); restore with:\n"
	      "#   configfs restore FILE\n"
	      "# Statement order does not matter; restore finds its own.\n",
	      out);
	fprintf(out, "version %d\n", FORMAT_VERSION);
}

/* The last line of a file: without it, the file was cut short. */
void format_print_end(FILE *out)
{
	fputs("end\n", out);
}

/* A comment naming something that is not saved, and why. */
void format_print_note(FILE *out, const char *what, const char *path,
		       const char *detail)
{
	fprintf(out, "# %s: ", what);
	format_put_token(out, path, strlen(path));
	if (detail)
		fprintf(out, " (%s)", detail);
	fputc('\n', out);
}

/*
 * Values that mean "nothing yet": an attribute going from one of these to
 * something else is usually a switch being turned on.
 */
bool format_is_off_value(const char *s, size_t len)
{
	static const char *const offs[] = { "", "0", "N", "n", "(null)" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(offs); i++)
		if (len == strlen(offs[i]) && !memcmp(s, offs[i], len))
			return true;
	return false;
}

static int format_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescapes a quoted word starting after its '"'; returns its end or NULL. */
static const char *format_quoted(struct format_line *fl, const char *p,
				 const char *end, struct format_word *w)
{
	char *out = arena_alloc(&fl->script->arena, end - p + 1);
	size_t len = 0;

	while (p < end && *p != '"') {
		char c = *p++;
		int hi;
		int lo;

		if (c != '\\') {
			out[len++] = c;
			continue;
		}
		if (p == end)
			break;
		c = *p++;
		switch (c) {
		case '\\':
		case '"':
			out[len++] = c;
			break;
		case 'n':
			out[len++] = '\n';
			break;
		case 't':
			out[len++] = '\t';
			break;
		case 'r':
			out[len++] = '\r';
			break;
		case 'x':
			hi = p < end ? format_hex(p[0]) : -1;
			lo = p + 1 < end ? format_hex(p[1]) : -1;
			if (hi < 0 || lo < 0) {
				format_line_err(fl, "%s", "\\x needs two hex digits");
				return NULL;
			}
			out[len++] = hi << 4 | lo;
			p += 2;
			break;
		default:
			format_line_err(fl, "unknown escape \\%s",
					(char[]){ c, '\0' });
			return NULL;
		}
	}
	if (p == end) {
		format_line_err(fl, "%s", "unterminated quote");
		return NULL;
	}
	out[len] = '\0';
	w->s = out;
	w->len = len;
	return p + 1;
}

static int format_split(struct format_line *fl, const char *p,
			const char *end)
{
	fl->nr_words = 0;
	for (;;) {
		struct format_word *w;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			return 0;
		if (fl->nr_words == (int)ARRAY_SIZE(fl->words)) {
			format_line_err(fl, "%s",
					"too many words (a comment goes on a line of its own)");
			return -EINVAL;
		}
		w = &fl->words[fl->nr_words++];
		if (*p == '"') {
			p = format_quoted(fl, p + 1, end, w);
			if (!p)
				return -EINVAL;
			if (p < end && *p != ' ' && *p != '\t') {
				format_line_err(fl, "%s",
						"text after a closing quote");
				return -EINVAL;
			}
			continue;
		}
		{
			const char *start = p;

			while (p < end && *p != ' ' && *p != '\t') {
				if (*p == '"' || *p == '\\') {
					format_line_err(fl, "%s",
							"quote or backslash inside a bare word; quote the whole word");
					return -EINVAL;
				}
				p++;
			}
			w->s = arena_strndup(&fl->script->arena, start,
					     p - start);
			w->len = p - start;
		}
	}
}

static int format_check_path(struct format_line *fl, const char *what,
			     const struct format_word *w)
{
	const char *p = w->s;

	if (!w->len || w->len > FORMAT_PATH_MAX ||
	    memchr(w->s, '\0', w->len)) {
		format_line_err(fl, "bad %s: empty, too long or with a NUL byte",
				what);
		return -EINVAL;
	}
	if (p[0] == '/') {
		format_line_err(fl, "%s must be relative to the configfs root",
				what);
		return -EINVAL;
	}
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t n = end - p;

		if (!n || n > FORMAT_NAME_MAX ||
		    (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			format_line_err(fl,
					"bad %s: empty, \".\", \"..\" or overlong component",
					what);
			return -EINVAL;
		}
		p = *end ? end + 1 : end;
		if (*end && !*p) {
			format_line_err(fl, "bad %s: trailing slash", what);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A module's name, as modprobe takes it: at most 55 bytes, [A-Za-z0-9_-],
 * and not starting with '-', which modprobe would take for an option.
 */
static int format_check_module(struct format_line *fl,
			       const struct format_word *w)
{
	size_t i;

	for (i = 0; i < w->len; i++) {
		char c = w->s[i];

		if (!(c == '_' || c == '-' || (c >= '0' && c <= '9') ||
		      (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			break;
	}
	if (!w->len || w->len > 55 || i < w->len || w->s[0] == '-') {
		format_line_err(fl, "bad module name \"%s\"", w->s);
		return -EINVAL;
	}
	return 0;
}

static int format_mode(struct format_line *fl, const struct format_word *w,
		       mode_t *mode)
{
	unsigned long v = 0;
	size_t i;

	if (!w->len || w->len > 5)
		goto bad;
	for (i = 0; i < w->len; i++) {
		if (w->s[i] < '0' || w->s[i] > '7')
			goto bad;
		v = v * 8 + (w->s[i] - '0');
	}
	if (v > 07777)
		goto bad;
	*mode = v;
	return 0;
bad:
	format_line_err(fl, "bad mode \"%s\": octal, at most 07777", w->s);
	return -EINVAL;
}

static int format_id(const char *s, const char *end, unsigned long *id)
{
	unsigned long v = 0;

	if (s == end || end - s > 10)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (*s - '0');
	}
	if (v > FORMAT_ID_MAX)
		return -EINVAL;
	*id = v;
	return 0;
}

static int format_owner(struct format_line *fl, const struct format_word *w,
			struct stmt *st)
{
	const char *colon = memchr(w->s, ':', w->len);
	unsigned long uid;
	unsigned long gid;

	if (!colon || format_id(w->s, colon, &uid) ||
	    format_id(colon + 1, w->s + w->len, &gid)) {
		format_line_err(fl, "bad owner \"%s\": want UID:GID in decimal",
				w->s);
		return -EINVAL;
	}
	st->uid = uid;
	st->gid = gid;
	return 0;
}

struct stmt *script_add(struct script *script, enum stmt_kind kind,
			const char *path)
{
	struct stmt *st;

	if (script->nr_stmts == script->cap) {
		script->cap = script->cap ? script->cap * 2 : 64;
		script->stmts = xrealloc_array(script->stmts, script->cap,
					       sizeof(*script->stmts));
	}
	st = &script->stmts[script->nr_stmts++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->path = path;
	st->arg = "";
	return st;
}

/*
 * "version N" first and "end" last; returns 1 for any other statement,
 * which must come between them.
 */
static int format_marker(struct format_line *fl)
{
	struct format_word *w = fl->words;
	bool seen = fl->seen_stmt;

	fl->seen_stmt = true;
	if (fl->end_line) {
		format_line_err(fl, "%s", "a statement after \"end\"");
		return -EINVAL;
	}
	if (!strcmp(w[0].s, "end")) {
		if (fl->nr_words != 1) {
			format_line_err(fl, "%s", "\"end\" takes no word");
			return -EINVAL;
		}
		fl->end_line = fl->line;
		return 0;
	}
	if (strcmp(w[0].s, "version"))
		return 1;
	if (seen) {
		format_line_err(fl, "%s",
				"\"version\" must be the first statement");
		return -EINVAL;
	}
	if (fl->nr_words != 2 || strcmp(w[1].s, "1")) {
		format_line_err(fl, "unsupported format \"%s\": this configfs reads version 1",
				fl->nr_words == 2 ? w[1].s : "version");
		return -EINVAL;
	}
	fl->script->version = FORMAT_VERSION;
	return 0;
}

static int format_statement(struct format_line *fl)
{
	static const int nr_args[] = {
		[STMT_MKDIR] = 1, [STMT_SET] = 2, [STMT_LINK] = 2,
		[STMT_CHMOD] = 2, [STMT_CHOWN] = 2, [STMT_MODULE] = 1,
	};
	struct format_word *w = fl->words;
	struct stmt st = { .line = fl->line };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(format_kws); i++)
		if (!strcmp(w[0].s, format_kws[i].name))
			break;
	if (i == ARRAY_SIZE(format_kws)) {
		format_line_err(fl, "unknown statement \"%s\"", w[0].s);
		return -EINVAL;
	}
	st.kind = format_kws[i].kind;
	st.any = !strcmp(w[0].s, "udc");
	if (fl->nr_words - 1 != (st.any ? 1 : nr_args[st.kind])) {
		format_line_err(fl, nr_args[st.kind] == 1 ?
				"\"%s\" takes a path" :
				"\"%s\" takes a path and one more word",
				w[0].s);
		return -EINVAL;
	}
	if (st.kind == STMT_MODULE) {
		if (format_check_module(fl, &w[1]))
			return -EINVAL;
	} else if (format_check_path(fl, "path", &w[1])) {
		return -EINVAL;
	}
	st.path = w[1].s;
	switch (st.kind) {
	case STMT_MKDIR:
	case STMT_COMMIT:
	case STMT_MODULE:
		break;
	case STMT_SET:
		if (st.any)
			break;
		st.arg = w[2].s;
		st.len = w[2].len;
		break;
	case STMT_LINK:
		if (format_check_path(fl, "link target", &w[2]))
			return -EINVAL;
		st.arg = w[2].s;
		st.len = w[2].len;
		break;
	case STMT_CHMOD:
		if (format_mode(fl, &w[2], &st.mode))
			return -EINVAL;
		break;
	case STMT_CHOWN:
		if (format_owner(fl, &w[2], &st))
			return -EINVAL;
		break;
	}
	*script_add(fl->script, st.kind, st.path) = st;
	return 0;
}

/* One line with a statement; returns 0 or -EINVAL, reported. */
static int format_line(struct format_line *fl, const char *p,
		       const char *end)
{
	int ret = format_split(fl, p, end);

	if (ret) {
		fl->seen_stmt = true;
		return ret;
	}
	ret = format_marker(fl);
	if (ret == 1)
		ret = format_statement(fl);
	return ret;
}

/*
 * Parses @text into @script, reporting each bad line as "NAME:LINE: why".
 * Returns the number of bad lines; the script holds only good statements.
 */
int format_parse(struct script *script, const char *name, const char *text,
		 size_t len)
{
	struct format_line fl = {
		.script = script,
		.name = name,
	};
	const char *end = text + len;
	const char *p = text;
	int nr_bad = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *stop = eol ? eol : end;
		const char *q;

		fl.line++;
		if (stop > p && stop[-1] == '\r')
			stop--;
		for (q = p; q < stop; q++) {
			if (((unsigned char)*q < ' ' && *q != '\t') ||
			    *q == 0x7f)
				break;
		}
		if (q < stop) {
			format_line_err(&fl, "%s",
					"control character in the line; use an escape inside quotes");
			nr_bad++;
		} else {
			for (q = p; q < stop && (*q == ' ' || *q == '\t'); q++)
				;
			if (q < stop && *q != '#' && format_line(&fl, q, stop))
				nr_bad++;
		}
		p = eol ? eol + 1 : end;
	}
	if (script->version && !fl.end_line) {
		format_line_err(&fl, "%s",
				"the file stops here, with no \"end\" line: cut short?");
		nr_bad++;
	} else if (!script->version && fl.seen_stmt && !nr_bad) {
		cfs_err(name, "warning: no \"version\" line; read as an old save, which cannot show that it is whole");
	}
	return nr_bad;
}

/*
 * Reads @fd whole into @text, NUL-terminated, to free. Returns 0, -errno,
 * or 1 when the text cannot be a save file: a line longer than
 * FORMAT_LINE_MAX or more than FORMAT_FILE_MAX bytes, reported with @name
 * as soon as it is seen, so that "restore /dev/zero" stops at once rather
 * than when memory runs out.
 */
static int format_read(int fd, const char *name, char **text, size_t *len)
{
	size_t line_start = 0;
	unsigned int line = 1;
	size_t cap = 4096;
	size_t used = 0;
	char *buf;

	buf = xmalloc(cap);
	for (;;) {
		size_t want;
		ssize_t ret;
		char *p;
		char *end;

		if (cap - used < 2) {
			cap *= 2;
			buf = xrealloc_array(buf, cap, 1);
		}
		want = cap - used - 1;
		if (want > FORMAT_FILE_MAX + 1 - used)
			want = FORMAT_FILE_MAX + 1 - used;
		ret = read(fd, buf + used, want);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			ret = -errno;
			free(buf);
			return ret;
		}
		if (!ret)
			break;
		end = buf + used + ret;
		for (p = buf + used; (p = memchr(p, '\n', end - p)); p++) {
			line++;
			line_start = p + 1 - buf;
		}
		used += ret;
		if (used - line_start > FORMAT_LINE_MAX) {
			char object[PATH_MAX];

			snprintf(object, sizeof(object), "%s:%u", name, line);
			cfs_err(object, "line longer than %lu bytes: not a save file",
				FORMAT_LINE_MAX);
			free(buf);
			return 1;
		}
		if (used > FORMAT_FILE_MAX) {
			cfs_err(name, "larger than %lu MiB: not a save file",
				FORMAT_FILE_MAX >> 20);
			free(buf);
			return 1;
		}
	}
	buf[used] = '\0';
	*text = buf;
	*len = used;
	return 0;
}

/*
 * Reads and parses @file ("-": standard input). Returns -errno or the
 * number of bad lines.
 */
int format_load(struct script *script, const char *file)
{
	const char *name = strcmp(file, "-") ? file : "<stdin>";
	size_t len;
	char *text;
	int ret;
	int fd;

	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		ret = -errno;
		cfs_err(name, "%s", cfs_strerror(ret));
		return ret;
	}
	ret = format_read(fd, name, &text, &len);
	if (fd)
		close(fd);
	if (ret < 0)
		cfs_err(name, "%s", cfs_strerror(ret));
	if (ret)
		return ret;
	ret = format_parse(script, name, text, len);
	free(text);
	return ret;
}

void script_free(struct script *script)
{
	free(script->stmts);
	script->stmts = NULL;
	script->nr_stmts = 0;
	script->cap = 0;
	arena_free(&script->arena);
}
