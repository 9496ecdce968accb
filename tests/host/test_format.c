// SPDX-License-Identifier: GPL-2.0
/*
 * The save format: parsing, printing, quoting and the errors reported for
 * malformed files.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configfs.h"
#include "host.h"

static int parse(struct script *s, const char *text)
{
	memset(s, 0, sizeof(*s));
	return format_parse(s, "f", text, strlen(text));
}

static char *print_token(const char *v, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);

	format_put_token(out, v, len);
	fclose(out);
	return text;
}

static bool parse_accepts_every_statement_kind(void)
{
	struct script s;

	EXPECT(parse(&s, "mkdir a/b\nset a/b/x 1\nlink a/l a/b\n"
		       "chmod a/b 0700\nchown a/b 1000:100\n") == 0);
	EXPECT(s.nr_stmts == 5);
	EXPECT(s.stmts[0].kind == STMT_MKDIR);
	EXPECT_STR(s.stmts[1].arg, "1");
	EXPECT(s.stmts[2].kind == STMT_LINK);
	EXPECT_STR(s.stmts[2].arg, "a/b");
	EXPECT(s.stmts[3].mode == 0700);
	EXPECT(s.stmts[4].uid == 1000 && s.stmts[4].gid == 100);
	EXPECT(s.stmts[4].line == 5);
	script_free(&s);
	return true;
}

static bool parse_skips_comments_and_blank_lines(void)
{
	struct script s;

	EXPECT(parse(&s, "# c\n\n   # indented\n\t\nmkdir a\n") == 0);
	EXPECT(s.nr_stmts == 1);
	EXPECT(s.stmts[0].line == 5);
	script_free(&s);
	return true;
}

static bool parse_accepts_crlf_and_missing_final_newline(void)
{
	struct script s;

	EXPECT(parse(&s, "mkdir a\r\nset a/x \"v\"\r\nset a/y 2") == 0);
	EXPECT(s.nr_stmts == 3);
	EXPECT_STR(s.stmts[1].arg, "v");
	EXPECT_STR(s.stmts[2].arg, "2");
	script_free(&s);
	return true;
}

static bool parse_unescapes_quoted_values(void)
{
	struct script s;

	EXPECT(parse(&s, "set a \"x y\\n\\t\\\"q\\\" \\\\ \\x41\\xc3\\xa9\"\n")
	       == 0);
	EXPECT(s.nr_stmts == 1);
	EXPECT_STR(s.stmts[0].arg, "x y\n\t\"q\" \\ A\xc3\xa9");
	script_free(&s);
	return true;
}

static bool parse_accepts_empty_quoted_value(void)
{
	struct script s;

	EXPECT(parse(&s, "set a/b \"\"\n") == 0);
	EXPECT(s.nr_stmts == 1 && s.stmts[0].len == 0);
	script_free(&s);
	return true;
}

static bool parse_rejects_unterminated_quote(void)
{
	struct script s;

	EXPECT(parse(&s, "set a \"abc\n") == 1);
	EXPECT(strstr(ktap_stderr(), "f:1: unterminated quote"));
	script_free(&s);
	return true;
}

static bool parse_rejects_unknown_escape(void)
{
	struct script s;

	EXPECT(parse(&s, "set a \"\\q\"\nset b \"\\x4\"\n") == 2);
	EXPECT(strstr(ktap_stderr(), "f:1: unknown escape \\q"));
	EXPECT(strstr(ktap_stderr(), "f:2: \\x needs two hex digits"));
	script_free(&s);
	return true;
}

static bool parse_rejects_unknown_statement(void)
{
	struct script s;

	EXPECT(parse(&s, "remove a\n") == 1);
	EXPECT(strstr(ktap_stderr(), "f:1: unknown statement \"remove\""));
	script_free(&s);
	return true;
}

static bool parse_rejects_wrong_number_of_words(void)
{
	struct script s;

	EXPECT(parse(&s, "set a\nmkdir a b\nlink a\nset a 1 # c\n") == 4);
	EXPECT(s.nr_stmts == 0);
	EXPECT(strstr(ktap_stderr(), "f:4: too many words"));
	script_free(&s);
	return true;
}

static bool parse_rejects_bad_paths(void)
{
	struct script s;

	EXPECT(parse(&s, "mkdir /abs\nmkdir a/../b\nmkdir a//b\nmkdir a/\n"
		       "mkdir ./a\nlink a /b\nmkdir \"a\\x00b\"\n") == 7);
	EXPECT(s.nr_stmts == 0);
	script_free(&s);
	return true;
}

static bool parse_rejects_bad_mode_and_owner(void)
{
	struct script s;

	EXPECT(parse(&s, "chmod a 0800\nchmod a 17777\nchmod a rw\n"
		       "chown a 1000\nchown a x:1\nchown a 1:99999999999\n")
	       == 6);
	EXPECT(strstr(ktap_stderr(), "f:1: bad mode"));
	EXPECT(strstr(ktap_stderr(), "f:4: bad owner"));
	script_free(&s);
	return true;
}

static bool parse_rejects_text_after_closing_quote(void)
{
	struct script s;

	EXPECT(parse(&s, "set a \"b\"c\nset a b\"c\"\n") == 2);
	script_free(&s);
	return true;
}

static bool parse_rejects_control_characters(void)
{
	struct script s;
	static const char text[] = "mkdir a\nset a/b x\001y\nset a/c z\0\n";

	memset(&s, 0, sizeof(s));
	EXPECT(format_parse(&s, "f", text, sizeof(text) - 1) == 2);
	EXPECT(s.nr_stmts == 1);
	EXPECT(strstr(ktap_stderr(), "f:2: control character"));
	EXPECT(strstr(ktap_stderr(), "f:3: control character"));
	script_free(&s);
	return true;
}

static bool parse_reports_every_bad_line_with_its_number(void)
{
	struct script s;

	EXPECT(parse(&s, "mkdir a\nbogus\nset a/x 1\nset \"a\nmkdir ok\n"
		       "chmod a 9\n") == 3);
	EXPECT(strstr(ktap_stderr(), "f:2:"));
	EXPECT(strstr(ktap_stderr(), "f:4:"));
	EXPECT(strstr(ktap_stderr(), "f:6:"));
	EXPECT(!strstr(ktap_stderr(), "f:1:"));
	EXPECT(!strstr(ktap_stderr(), "f:3:"));
	EXPECT(!strstr(ktap_stderr(), "f:5:"));
	script_free(&s);
	return true;
}

/* A file of @head, then @nr copies of @body; its name, to unlink and free. */
static char *write_file(const char *head, const char *body, size_t len,
			size_t nr)
{
	char *name = strdup(access("/dev/shm", W_OK) ? "/tmp/cfs-fmt-XXXXXX" :
			    "/dev/shm/cfs-fmt-XXXXXX");
	int fd = mkstemp(name);
	size_t i;

	if (fd < 0 ||
	    __real_write(fd, head, strlen(head)) != (ssize_t)strlen(head))
		abort();
	for (i = 0; i < nr; i++)
		if (__real_write(fd, body, len) != (ssize_t)len)
			abort();
	close(fd);
	return name;
}

/*
 * "restore /dev/zero" read until memory ran out: a line or a file larger
 * than any save writes is refused as soon as it is seen, with its name and
 * line.
 */
static bool load_refuses_an_endless_line_or_an_oversized_file(void)
{
	enum { MIB = 1 << 20 };
	char *chunk = malloc(MIB);
	struct script s = { 0 };
	char object[128];
	char *name;

	EXPECT(format_load(&s, "/dev/zero") == 1);
	EXPECT(strstr(ktap_stderr(), "/dev/zero:1: line longer than 1048576 bytes"));
	script_free(&s);

	memset(chunk, 'x', MIB);
	name = write_file("mkdir a\n", chunk, MIB, 2);
	EXPECT(format_load(&s, name) == 1);
	snprintf(object, sizeof(object), "%s:2: line longer than", name);
	EXPECT(strstr(ktap_stderr(), object));
	EXPECT(s.nr_stmts == 0);
	script_free(&s);
	unlink(name);
	free(name);

	for (size_t i = 0; i < MIB; i += 2)
		memcpy(chunk + i, "#\n", 2);
	name = write_file("", chunk, MIB, 65);
	EXPECT(format_load(&s, name) == 1);
	snprintf(object, sizeof(object), "%s: larger than 64 MiB", name);
	EXPECT(strstr(ktap_stderr(), object));
	script_free(&s);
	unlink(name);
	free(name);
	free(chunk);
	return true;
}

static bool print_leaves_plain_words_bare(void)
{
	char *t = print_token("nqn.2014-08.org:x=1,y", 21);

	EXPECT_STR(t, "nqn.2014-08.org:x=1,y");
	free(t);
	return true;
}

static bool print_quotes_awkward_values(void)
{
	static const struct {
		const char *in;
		const char *out;
	} cases[] = {
		{ "", "\"\"" },
		{ "a b", "\"a b\"" },
		{ "#x", "\"#x\"" },
		{ "it's", "\"it's\"" },
		{ "l1\nl2", "\"l1\\nl2\"" },
		{ "\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\"" },
		{ "\xff\x7f\x01", "\"\\xff\\x7f\\x01\"" },
		{ "\xc2\x85", "\"\\xc2\\x85\"" },	/* U+0085, a C1 control */
		{ "\xed\xa0\x80", "\"\\xed\\xa0\\x80\"" },	/* a surrogate */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *t = print_token(cases[i].in, strlen(cases[i].in));

		EXPECT_STR(t, cases[i].out);
		free(t);
	}
	return true;
}

static bool print_then_parse_round_trips_every_byte(void)
{
	char value[255];
	struct stmt st = { .kind = STMT_SET, .path = "a b/\xc3\xa9",
			   .arg = value, .len = sizeof(value) };
	char *text = NULL;
	struct script s;
	size_t len = 0;
	FILE *out;
	size_t i;

	for (i = 0; i < sizeof(value); i++)
		value[i] = i + 1;
	out = open_memstream(&text, &len);
	format_print_stmt(out, "", &st);
	fclose(out);
	EXPECT(!strchr(text, '\r') && strchr(text, '\n') == text + len - 1);
	EXPECT(parse(&s, text) == 0);
	EXPECT(s.nr_stmts == 1);
	if (s.nr_stmts == 1) {
		EXPECT_STR(s.stmts[0].path, "a b/\xc3\xa9");
		EXPECT(s.stmts[0].len == sizeof(value));
		EXPECT(!memcmp(s.stmts[0].arg, value, sizeof(value)));
	}
	script_free(&s);
	free(text);
	return true;
}

static bool off_values_are_empty_zero_n_and_null(void)
{
	EXPECT(format_is_off_value("", 0));
	EXPECT(format_is_off_value("0", 1));
	EXPECT(format_is_off_value("N", 1));
	EXPECT(format_is_off_value("(null)", 6));
	EXPECT(!format_is_off_value("1", 1));
	EXPECT(!format_is_off_value("0x0000", 6));
	EXPECT(!format_is_off_value("dummy_udc.0", 11));
	return true;
}

static bool parse_refuses_a_file_cut_short_with_the_line_it_stops_at(void)
{
	struct script s;

	EXPECT(parse(&s, "# c\nversion 1\nmkdir a\nset a/x 1\n") == 1);
	EXPECT(s.version == 1);
	EXPECT(strstr(ktap_stderr(),
		      "f:4: the file stops here, with no \"end\" line"));
	script_free(&s);
	ktap_stderr_reset();
	EXPECT(parse(&s, "version 1\nmkdir a\nend\n\n# done\n") == 0);
	EXPECT(s.nr_stmts == 1);
	EXPECT_STR(ktap_stderr(), "");
	script_free(&s);
	return true;
}

static bool parse_reads_an_old_file_without_version_with_a_warning(void)
{
	struct script s;

	EXPECT(parse(&s, "mkdir a\nset a/x 1\n") == 0);
	EXPECT(s.version == 0 && s.nr_stmts == 2);
	EXPECT(strstr(ktap_stderr(), "f: warning: no \"version\" line"));
	script_free(&s);
	return true;
}

static bool parse_checks_the_version_and_end_lines(void)
{
	struct script s;

	EXPECT(parse(&s, "version 2\nmkdir a\nend\n") == 1);
	EXPECT(strstr(ktap_stderr(), "f:1: unsupported format \"2\""));
	script_free(&s);
	EXPECT(parse(&s, "mkdir a\nversion 1\nend\n") == 1);
	EXPECT(strstr(ktap_stderr(), "f:2: \"version\" must be the first"));
	script_free(&s);
	EXPECT(parse(&s, "version 1\nend\nmkdir a\nend x\n") == 2);
	EXPECT(strstr(ktap_stderr(), "f:3: a statement after \"end\""));
	EXPECT(strstr(ktap_stderr(), "f:4: a statement after \"end\""));
	script_free(&s);
	return true;
}

static bool save_writes_version_first_and_end_last(void)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);

	format_print_header(out);
	format_print_end(out);
	fclose(out);
	EXPECT(strstr(text, "\nversion 1\n"));
	EXPECT(n > 4 && !strcmp(text + n - 4, "end\n"));
	free(text);
	return true;
}

const struct ktap_case format_cases[] = {
	KTAP_CASE(parse_accepts_every_statement_kind),
	KTAP_CASE(parse_skips_comments_and_blank_lines),
	KTAP_CASE(parse_accepts_crlf_and_missing_final_newline),
	KTAP_CASE(parse_unescapes_quoted_values),
	KTAP_CASE(parse_accepts_empty_quoted_value),
	KTAP_CASE(parse_rejects_unterminated_quote),
	KTAP_CASE(parse_rejects_unknown_escape),
	KTAP_CASE(parse_rejects_unknown_statement),
	KTAP_CASE(parse_rejects_wrong_number_of_words),
	KTAP_CASE(parse_rejects_bad_paths),
	KTAP_CASE(parse_rejects_bad_mode_and_owner),
	KTAP_CASE(parse_rejects_text_after_closing_quote),
	KTAP_CASE(parse_rejects_control_characters),
	KTAP_CASE(parse_reports_every_bad_line_with_its_number),
	KTAP_CASE(load_refuses_an_endless_line_or_an_oversized_file),
	KTAP_CASE(print_leaves_plain_words_bare),
	KTAP_CASE(print_quotes_awkward_values),
	KTAP_CASE(print_then_parse_round_trips_every_byte),
	KTAP_CASE(off_values_are_empty_zero_n_and_null),
	KTAP_CASE(parse_refuses_a_file_cut_short_with_the_line_it_stops_at),
	KTAP_CASE(parse_reads_an_old_file_without_version_with_a_warning),
	KTAP_CASE(parse_checks_the_version_and_end_lines),
	KTAP_CASE(save_writes_version_first_and_end_last),
};

const size_t nr_format_cases = ARRAY_SIZE(format_cases);
