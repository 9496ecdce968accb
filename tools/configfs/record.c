// SPDX-License-Identifier: GPL-2.0
/*
 * configfs-ng's error records: what the client said when it refused a
 * write, a mkdir or a link. Stock configfs keeps none.
 *
 * After a failed call, the extended attribute user.configfs.error of the
 * item's directory holds the last failure on that item, and an attribute
 * file shows the same record when it concerns that file. A failed mkdir
 * or link is recorded on the directory in which it was tried. The record
 * is text, one line for the call, then "reason: " and "log: " lines:
 *
 *   TIME uid=UID pid=PID OP FILE[ 'VALUE']: -ERRNAME
 *
 * OP is write, mkdir, symlink or report; ERRNAME may be a number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "configfs.h"

#define RECORD_ERRNO_MAX	4095

/* "EINVAL" or "22" (the leading '-' gone) to 22; 0 if unknown. */
static int record_errno(const char *s, size_t len)
{
	char name[32];
	char *end;
	long n;
	int err;

	if (!len || len >= sizeof(name))
		return 0;
	memcpy(name, s, len);
	name[len] = '\0';
	if (name[0] >= '0' && name[0] <= '9') {
		n = strtol(name, &end, 10);
		return *end || n > RECORD_ERRNO_MAX ? 0 : (int)n;
	}
	for (err = 1; err <= RECORD_ERRNO_MAX; err++) {
		const char *known = strerrorname_np(err);

		if (known && !strcmp(known, name))
			return err;
	}
	return 0;
}

/* The next word of @p (up to @end): its start and length; NULL at end. */
static const char *record_word(const char **p, const char *end, size_t *len)
{
	const char *word = *p;
	const char *space;

	if (word >= end)
		return NULL;
	space = memchr(word, ' ', end - word);
	*len = (space ? space : end) - word;
	*p = space ? space + 1 : end;
	return *len ? word : NULL;
}

/*
 * Splits the first line of @text (@len bytes) into @rec. Returns 0, or
 * -EINVAL when it is not a record's first line.
 */
int record_parse(const char *text, size_t len, struct record *rec)
{
	const char *end = memchr(text, '\n', len);
	const char *p = text;
	const char *colon;
	const char *rest;
	const char *word;
	size_t wlen;

	memset(rec, 0, sizeof(*rec));
	if (!end)
		end = text + len;
	rec->line_len = end - text;
	/* TIME, uid=, pid=, OP */
	if (!record_word(&p, end, &wlen))
		return -EINVAL;
	word = record_word(&p, end, &wlen);
	if (!word || wlen < 5 || memcmp(word, "uid=", 4))
		return -EINVAL;
	word = record_word(&p, end, &wlen);
	if (!word || wlen < 5 || memcmp(word, "pid=", 4))
		return -EINVAL;
	word = record_word(&p, end, &wlen);
	if (!word || wlen >= sizeof(rec->op))
		return -EINVAL;
	memcpy(rec->op, word, wlen);
	rec->op[wlen] = '\0';
	/* FILE[ 'VALUE']: -ERRNAME, the error after the last ": -". */
	rest = p;
	colon = NULL;
	for (; p + 2 < end; p++)
		if (p[0] == ':' && p[1] == ' ' && p[2] == '-')
			colon = p;
	if (!colon || colon == rest)
		return -EINVAL;
	rec->err = record_errno(colon + 3, end - colon - 3);
	rec->file = rest;
	rec->file_len = colon - rest;
	if (strcmp(rec->op, "mkdir") && colon[-1] == '\'') {
		const char *quote = memmem(rest, colon - rest, " '", 2);

		if (quote && quote + 2 < colon) {
			rec->file_len = quote - rest;
			rec->value = quote + 2;
			rec->value_len = colon - 1 - rec->value;
		}
	}
	return rec->file_len ? 0 : -EINVAL;
}

/*
 * Does the record @text (@len bytes) report a failed @op of @file, with
 * @err (a positive errno)? A record whose error could not be read
 * matches any @err.
 */
bool record_concerns(const char *text, size_t len, const char *op,
		     const char *file, int err)
{
	struct record rec;

	if (record_parse(text, len, &rec) || strcmp(rec.op, op))
		return false;
	if (rec.file_len != strlen(file) ||
	    memcmp(rec.file, file, rec.file_len))
		return false;
	return !rec.err || rec.err == err;
}

/*
 * Does the record @text (@len bytes), on an item, report a failed @op
 * ("commit" or "uncommit") of that item with @err (positive)? Its first
 * line is "TIME uid=UID pid=PID OP: -ERRNAME". A record whose error could
 * not be read matches any @err.
 */
bool record_concerns_item(const char *text, size_t len, const char *op,
			  int err)
{
	const char *end = memchr(text, '\n', len);
	char needle[32];
	const char *at;
	int rec_err;

	if (!end)
		end = text + len;
	snprintf(needle, sizeof(needle), " %s: -", op);
	at = memmem(text, end - text, needle, strlen(needle));
	if (!at)
		return false;
	at += strlen(needle);
	rec_err = record_errno(at, end - at);
	return !rec_err || rec_err == err;
}

/*
 * Prints each line of the record @text (@len bytes) after @indent. A
 * record comes from a kernel client: control bytes and bytes that are
 * not UTF-8 are shown as \t or \xNN, never sent to the terminal.
 */
void record_print(FILE *out, const char *indent, const char *text,
		  size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	bool line_start = true;
	unsigned int cp;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n = c >= 0x80 ? utf8_seq_len(s + i, len - i, &cp) : 0;

		if (line_start && c != '\n')
			fputs(indent, out);
		line_start = c == '\n';
		if (c == '\n' || (c >= 0x20 && c < 0x7f))
			fputc(c, out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (n && cp >= 0xa0)
			fwrite(s + i, 1, n, out);
		else
			fprintf(out, "\\x%02x", c);
		i += n && cp >= 0xa0 ? n : 1;
	}
	if (len && !line_start)
		fputc('\n', out);
}
