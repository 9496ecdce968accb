// SPDX-License-Identifier: GPL-2.0
/*
 * configfs-ng's error records: parsing their first line, printing them
 * safely, restore showing the one that reports each failure (and no
 * other), and configfs why. The model plays a client that records its
 * reason where configfs-ng would: on the file and its item for a write,
 * on the directory it was tried in for a mkdir or a link.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "configfs.h"
#include "fake.h"
#include "host.h"

#define REC_RW	"2026-12-05T02:41:07Z uid=0 pid=123 write rw 'maybe': -EINVAL\n" \
		"reason: rw: 'maybe' is not one of 0, 1\n"

static bool record_parse_splits_a_write(void)
{
	struct record rec;

	EXPECT(record_parse(REC_RW, strlen(REC_RW), &rec) == 0);
	EXPECT_STR(rec.op, "write");
	EXPECT(rec.file_len == 2 && !memcmp(rec.file, "rw", 2));
	EXPECT(rec.value && rec.value_len == 5 &&
	       !memcmp(rec.value, "maybe", 5));
	EXPECT(rec.err == EINVAL);
	EXPECT(rec.line_len == strchr(REC_RW, '\n') - REC_RW);
	return true;
}

static bool record_parse_takes_the_last_error_of_the_line(void)
{
	const char *t = "T uid=1 pid=2 write note 'a: -b': -ENOSPC";
	struct record rec;

	EXPECT(record_parse(t, strlen(t), &rec) == 0);
	EXPECT(rec.file_len == 4 && !memcmp(rec.file, "note", 4));
	EXPECT(rec.value_len == 5 && !memcmp(rec.value, "a: -b", 5));
	EXPECT(rec.err == ENOSPC);
	return true;
}

static bool record_parse_mkdir_name_is_all_of_it(void)
{
	const char *t = "T uid=0 pid=9 mkdir bad 'x': -EINVAL\nlog: no\n";
	struct record rec;

	EXPECT(record_parse(t, strlen(t), &rec) == 0);
	EXPECT_STR(rec.op, "mkdir");
	EXPECT(rec.file_len == 7 && !memcmp(rec.file, "bad 'x'", 7));
	EXPECT(!rec.value);
	return true;
}

static bool record_parse_numeric_and_unknown_errors(void)
{
	const char *num = "T uid=0 pid=9 symlink l '/x/y': -22";
	const char *odd = "T uid=0 pid=9 report item: -EWHAT";
	struct record rec;

	EXPECT(record_parse(num, strlen(num), &rec) == 0);
	EXPECT(rec.err == EINVAL);
	EXPECT(rec.value_len == 4 && !memcmp(rec.value, "/x/y", 4));
	EXPECT(record_parse(odd, strlen(odd), &rec) == 0);
	EXPECT(rec.err == 0);
	EXPECT(rec.file_len == 4 && !memcmp(rec.file, "item", 4));
	return true;
}

static bool record_parse_refuses_other_text(void)
{
	static const char *const bad[] = {
		"", "hello", "T uid=0 pid=1 write", "T uid=0 pid=1 write rw",
		"T pid=1 uid=0 write rw: -EINVAL", "T uid=0 pid=1 write : -EIO",
		"T uid=0 pid=1 write\nrw: -EINVAL",
	};
	struct record rec;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT(record_parse(bad[i], strlen(bad[i]), &rec) == -EINVAL);
	return true;
}

static bool record_concerns_needs_op_file_and_error(void)
{
	size_t len = strlen(REC_RW);

	EXPECT(record_concerns(REC_RW, len, "write", "rw", EINVAL));
	EXPECT(!record_concerns(REC_RW, len, "write", "rw", EACCES));
	EXPECT(!record_concerns(REC_RW, len, "write", "r", EINVAL));
	EXPECT(!record_concerns(REC_RW, len, "mkdir", "rw", EINVAL));
	EXPECT(record_concerns("T uid=0 pid=1 mkdir x: -EMYSTERY", 32,
			       "mkdir", "x", EIO));
	return true;
}

/* A refused commit's record is the item's: no file on its first line. */
static bool record_concerns_item_matches_a_commit_or_uncommit(void)
{
	static const char rec[] = "2026-12-05T06:44:54Z uid=0 pid=108 commit: -EAGAIN\n"
				  "reason: d is not ready\n";
	size_t len = strlen(rec);

	EXPECT(record_concerns_item(rec, len, "commit", EAGAIN));
	EXPECT(!record_concerns_item(rec, len, "commit", EPERM));
	EXPECT(!record_concerns_item(rec, len, "uncommit", EAGAIN));
	EXPECT(record_concerns_item("T uid=0 pid=1 uncommit: -EPERM", 30,
				    "uncommit", EPERM));
	EXPECT(!record_concerns_item("T uid=0 pid=1 uncommit: -EPERM", 30,
				     "commit", EPERM));
	EXPECT(!record_concerns_item("T uid=0 pid=1 write x: -EPERM\nreason: commit: -EPERM",
				     52, "commit", EPERM));
	return true;
}

static char *print_to_string(const char *indent, const char *text,
			     size_t len)
{
	char *out = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&out, &size);

	record_print(mem, indent, text, len);
	fclose(mem);
	return out;
}

static bool record_print_indents_and_escapes(void)
{
	char *s;

	s = print_to_string("  ", REC_RW, strlen(REC_RW));
	EXPECT_STR(s, "  2026-12-05T02:41:07Z uid=0 pid=123 write rw 'maybe': -EINVAL\n"
		   "  reason: rw: 'maybe' is not one of 0, 1\n");
	free(s);
	s = print_to_string("> ", "a\tb\x1b[2J\x7f\xff h\xc3\xa9\nlog: x", 20);
	EXPECT_STR(s, "> a\\tb\\x1b[2J\\x7f\\xff h\xc3\xa9\n> log: x\n");
	free(s);
	s = print_to_string("  ", "one\n\nthree\n", 11);
	EXPECT_STR(s, "  one\n\n  three\n");
	free(s);
	s = print_to_string("  ", "", 0);
	EXPECT_STR(s, "");
	free(s);
	return true;
}

/*
 * The model: item/ with rw (0 or 1); mkdir in items/ refuses "bad*"; a
 * link in links/ is refused. Each refusal is recorded as configfs-ng does.
 */
static int rec_store(struct fake *fake, const char *path, const char *value)
{
	char text[256];

	if (strcmp(path_base(path), "rw") || !strcmp(value, "0") ||
	    !strcmp(value, "1"))
		return 0;
	snprintf(text, sizeof(text),
		 "2026-12-05T02:41:07Z uid=0 pid=1 write rw '%s': -EINVAL\n"
		 "reason: rw: '%s' is not one of 0, 1\n", value, value);
	fake_record(fake, path, text);
	fake_record(fake, "items/i", text);
	return -EINVAL;
}

static int rec_mkdir(struct fake *fake, const char *path)
{
	char text[256];

	if (strncmp(path_base(path), "bad", 3))
		return 0;
	snprintf(text, sizeof(text),
		 "T uid=0 pid=1 mkdir %s: -EINVAL\nreason: name '%s' is refused\n",
		 path_base(path), path_base(path));
	fake_record(fake, "items", text);
	return -EINVAL;
}

static int rec_link(struct fake *fake, const char *path, const char *target)
{
	char text[256];

	snprintf(text, sizeof(text),
		 "T uid=0 pid=1 symlink %s '/sys/kernel/config/%s': -EPERM\n"
		 "reason: links are refused here\n", path_base(path), target);
	fake_record(fake, "links", text);
	return -EPERM;
}

static const struct fake_hooks rec_hooks = {
	.mkdir = rec_mkdir,
	.store = rec_store,
	.link = rec_link,
};

static void rec_model(struct fake *f)
{
	fake_init(f, &rec_hooks);
	fake_dir(f, "items", true);
	fake_dir(f, "items/i", false);
	fake_attr(f, "items/i/rw", 0644, "0");
	fake_dir(f, "links", true);
}

static bool restore_prints_the_record_of_a_refused_write(void)
{
	struct fake f;

	rec_model(&f);
	EXPECT(fake_restore_text(&f, "set items/i/rw maybe\n") == 1);
	EXPECT(strstr(ktap_stderr(),
		      "configfs: items/i/rw: not applied (test:1: set items/i/rw maybe): Invalid argument\n"
		      "  2026-12-05T02:41:07Z uid=0 pid=1 write rw 'maybe': -EINVAL\n"
		      "  reason: rw: 'maybe' is not one of 0, 1\n"));
	fake_free(&f);
	return true;
}

static bool restore_prints_mkdir_and_link_records_of_the_directory(void)
{
	struct fake f;
	const char *err;

	rec_model(&f);
	EXPECT(fake_restore_text(&f, "mkdir items/bad1\nlink links/l items/i\n")
	       == 2);
	err = ktap_stderr();
	EXPECT(strstr(err, "items/bad1: not applied (test:1: mkdir items/bad1): Invalid argument\n"
		      "  T uid=0 pid=1 mkdir bad1: -EINVAL\n"
		      "  reason: name 'bad1' is refused\n"));
	EXPECT(strstr(err, "(test:2: link links/l items/i): Operation not permitted\n"
		      "  T uid=0 pid=1 symlink l '/sys/kernel/config/items/i': -EPERM\n"
		      "  reason: links are refused here\n"));
	fake_free(&f);
	return true;
}

static bool restore_ignores_a_record_of_another_failure(void)
{
	struct fake f;

	rec_model(&f);
	/* An earlier refusal of another value, then EACCES before store(). */
	fake_record(&f, "items/i/rw", REC_RW);
	EXPECT(fake_restore_text(&f, "set items/i/rw 1\nchmod items/i/rw 0444\n")
	       == 0);
	ktap_stderr_reset();
	EXPECT(fake_restore_text(&f, "set items/i/rw 0\n") == 1);
	EXPECT(strstr(ktap_stderr(), "Permission denied\n"));
	EXPECT(!strstr(ktap_stderr(), "maybe"));
	fake_free(&f);
	return true;
}

static bool restore_is_silent_where_no_records_are_kept(void)
{
	struct fake f;

	rec_model(&f);
	f.no_records = true;
	EXPECT(fake_restore_text(&f, "set items/i/rw maybe\n") == 1);
	EXPECT(strstr(ktap_stderr(), "): Invalid argument\n"));
	EXPECT(!strstr(ktap_stderr(), "  "));
	EXPECT(!strstr(ktap_stderr(), "not supported"));
	fake_free(&f);
	return true;
}

static char *why(struct fake *f, const char *path, int want)
{
	char *out = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&out, &size);

	EXPECT(why_path(&f->fs, path, path, mem) == want);
	fclose(mem);
	return out;
}

static bool why_prints_the_record_of_an_item_or_file(void)
{
	struct fake f;
	char *s;

	rec_model(&f);
	EXPECT(fake_restore_text(&f, "set items/i/rw maybe\n") == 1);
	s = why(&f, "items/i/rw", CFS_EXIT_OK);
	EXPECT_STR(s, "2026-12-05T02:41:07Z uid=0 pid=1 write rw 'maybe': -EINVAL\n"
		   "reason: rw: 'maybe' is not one of 0, 1\n");
	free(s);
	s = why(&f, "items/i", CFS_EXIT_OK);
	EXPECT(strstr(s, "reason: rw: 'maybe' is not one of 0, 1\n"));
	free(s);
	fake_free(&f);
	return true;
}

static bool why_finds_a_refused_name_in_its_directory(void)
{
	struct fake f;
	char *s;

	rec_model(&f);
	EXPECT(fake_restore_text(&f, "mkdir items/bad1\n") == 1);
	s = why(&f, "items/bad1", CFS_EXIT_OK);
	EXPECT_STR(s, "T uid=0 pid=1 mkdir bad1: -EINVAL\n"
		   "reason: name 'bad1' is refused\n");
	free(s);
	s = why(&f, "items/bad2", CFS_EXIT_FAIL);
	EXPECT_STR(s, "");
	EXPECT(strstr(ktap_stderr(), "configfs: items/bad2: No such file or directory\n"));
	free(s);
	fake_free(&f);
	return true;
}

static bool why_says_when_there_is_none_or_no_records(void)
{
	struct fake f;
	char *s;

	rec_model(&f);
	s = why(&f, "items/i", CFS_EXIT_FAIL);
	EXPECT_STR(s, "items/i: no error recorded\n");
	free(s);
	f.no_records = true;
	s = why(&f, "items/i", CFS_EXIT_NO_RECORDS);
	EXPECT_STR(s, "");
	EXPECT(strstr(ktap_stderr(), "configfs: items/i: this configfs keeps no error records"));
	free(s);
	fake_free(&f);
	return true;
}

const struct ktap_case record_cases[] = {
	KTAP_CASE(record_parse_splits_a_write),
	KTAP_CASE(record_parse_takes_the_last_error_of_the_line),
	KTAP_CASE(record_parse_mkdir_name_is_all_of_it),
	KTAP_CASE(record_parse_numeric_and_unknown_errors),
	KTAP_CASE(record_parse_refuses_other_text),
	KTAP_CASE(record_concerns_needs_op_file_and_error),
	KTAP_CASE(record_concerns_item_matches_a_commit_or_uncommit),
	KTAP_CASE(record_print_indents_and_escapes),
	KTAP_CASE(restore_prints_the_record_of_a_refused_write),
	KTAP_CASE(restore_prints_mkdir_and_link_records_of_the_directory),
	KTAP_CASE(restore_ignores_a_record_of_another_failure),
	KTAP_CASE(restore_is_silent_where_no_records_are_kept),
	KTAP_CASE(why_prints_the_record_of_an_item_or_file),
	KTAP_CASE(why_finds_a_refused_name_in_its_directory),
	KTAP_CASE(why_says_when_there_is_none_or_no_records),
};

const size_t nr_record_cases = ARRAY_SIZE(record_cases);
