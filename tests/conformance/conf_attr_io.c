// SPDX-License-Identifier: GPL-2.0
/*
 * Text attributes, byte for byte: modes, show and store semantics, partial
 * reads, reads at offsets, lseek, several writes on one open file, errors
 * from the client, a write longer than a page, an empty write, and a show
 * that fills the whole page.
 *
 *   cng_test/
 *   `-- items/
 *       `-- io/      data (RW), name (RO), big (RO), wo (WO), store_ret,
 *                    show_ret
 */
#include "guest.h"

#define IO	T "/items/io"

/* Puts the item back as made: no injected errors, data empty. */
static void reset(void)
{
	put(IO "/store_ret", "0");
	put(IO "/show_ret", "0");
	put(IO "/data", "\n");
	events_clear();
}

static bool mode_is(const char *path, mode_t mode, off_t size)
{
	struct stat st = { 0 };

	EXPECT(!stat(path, &st));
	if (st.st_mode != (S_IFREG | mode) || st.st_size != size) {
		say("%s: mode %o size %lld, want %o size %lld", path,
		    st.st_mode, (long long)st.st_size, S_IFREG | mode,
		    (long long)size);
		return false;
	}
	return true;
}

/* A text attribute's size is a page, 64K on a 64K-page kernel, as stock. */
static bool t_modes(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return mode_is(IO "/data", 0644, page) &&
	       mode_is(IO "/name", 0444, page) &&
	       mode_is(IO "/wo", 0200, page);
}

static bool t_ro_open_write(void)
{
	EXPECT(FAILS_WITH(open(IO "/name", O_WRONLY), EACCES));
	EXPECT(FAILS_WITH(open(IO "/name", O_RDWR), EACCES));
	return true;
}

static bool t_wo_open_read(void)
{
	EXPECT(FAILS_WITH(open(IO "/wo", O_RDONLY), EACCES));
	EXPECT(FAILS_WITH(open(IO "/wo", O_RDWR), EACCES));
	return true;
}

static bool t_mode_binds_root(void)
{
	bool ok;

	EXPECT(!chmod(IO "/data", 0));
	ok = FAILS_WITH(open(IO "/data", O_RDONLY), EACCES) &&
	     FAILS_WITH(open(IO "/data", O_WRONLY), EACCES);
	EXPECT(!chmod(IO "/data", 0644));
	EXPECT(ok);
	return true;
}

static bool t_ro_chmod_no_store(void)
{
	bool ok;

	EXPECT(!chmod(IO "/name", 0644));
	ok = FAILS_WITH(open(IO "/name", O_WRONLY), EACCES);
	EXPECT(!chmod(IO "/name", 0444));
	EXPECT(ok);
	return true;
}

static bool t_store_exact_bytes(void)
{
	static const char bytes[] = "a\0b\nc";
	char buf[64];
	int fd;

	reset();
	fd = open(IO "/data", O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, bytes, 5) == 5);
	close(fd);
	EXPECT(events_are("store items/io/data 5\n"));
	fd = open(IO "/data", O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(read(fd, buf, sizeof(buf)) == 5);
	EXPECT(!memcmp(buf, bytes, 5));
	EXPECT(read(fd, buf, sizeof(buf)) == 0);
	close(fd);
	return true;
}

static bool t_show_once_per_open(void)
{
	char c, got[32];
	int fd, n = 0;

	reset();
	EXPECT(!put(IO "/data", "0123456789\n"));
	events_clear();
	fd = open(IO "/data", O_RDONLY);
	EXPECT(fd >= 0);
	while (read(fd, &c, 1) == 1 && n < 31)
		got[n++] = c;
	got[n] = '\0';
	close(fd);
	EXPECT(!strcmp(got, "0123456789\n"));
	EXPECT(events_are("show items/io/data\n"));
	return true;
}

static bool t_open_without_read_no_show(void)
{
	int fd;

	reset();
	fd = open(IO "/data", O_RDONLY);
	EXPECT(fd >= 0);
	close(fd);
	EXPECT(events_are(""));
	return true;
}

static bool t_partial_reads(void)
{
	static const char want[] = "abcdefghijklmnopqrstuvwxyz\n";
	char buf[8];
	int fd, total = 0;
	ssize_t n;

	reset();
	EXPECT(!put(IO "/data", want));
	fd = open(IO "/data", O_RDONLY);
	EXPECT(fd >= 0);
	while ((n = read(fd, buf, 7)) > 0) {
		int expect = 27 - total < 7 ? 27 - total : 7;

		EXPECT(n == expect);
		EXPECT(!memcmp(buf, want + total, n));
		total += n;
	}
	close(fd);
	EXPECT(n == 0 && total == 27);
	return true;
}

static bool t_pread(void)
{
	char buf[16];
	int fd;

	reset();
	EXPECT(!put(IO "/data", "0123456789ABCDEF"));
	fd = open(IO "/data", O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(pread(fd, buf, 4, 10) == 4 && !memcmp(buf, "ABCD", 4));
	EXPECT(pread(fd, buf, 16, 12) == 4 && !memcmp(buf, "CDEF", 4));
	EXPECT(pread(fd, buf, 4, 16) == 0);
	EXPECT(pread(fd, buf, 4, 5000) == 0);
	/* pread leaves the file position alone */
	EXPECT(read(fd, buf, 3) == 3 && !memcmp(buf, "012", 3));
	close(fd);
	/* docs/differences.md row 20: a read from the start shows again. */
	if (on_stock()) {
		EXPECT(events_are("store items/io/data 16\nshow items/io/data\n"));
		case_differs = "row 20, one show per open file";
	} else {
		EXPECT(events_are("store items/io/data 16\nshow items/io/data\n"
				  "show items/io/data\n"));
	}
	return true;
}

static bool t_lseek(void)
{
	char buf[16];
	int fd;

	reset();
	EXPECT(!put(IO "/data", "0123456789"));
	fd = open(IO "/data", O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(lseek(fd, 6, SEEK_SET) == 6);
	EXPECT(read(fd, buf, 16) == 4 && !memcmp(buf, "6789", 4));
	EXPECT(lseek(fd, -3, SEEK_CUR) == 7);
	EXPECT(read(fd, buf, 16) == 3 && !memcmp(buf, "789", 3));
	/* SEEK_END counts from i_size, which is a page for text files */
	EXPECT(lseek(fd, 0, SEEK_END) == sysconf(_SC_PAGESIZE));
	EXPECT(read(fd, buf, 16) == 0);
	EXPECT(FAILS_WITH(lseek(fd, -1, SEEK_SET), EINVAL));
	EXPECT(lseek(fd, 100000, SEEK_SET) == 100000);
	EXPECT(read(fd, buf, 16) == 0);
	close(fd);
	return true;
}

/* docs/differences.md row 20: stock serves its first show forever. */
static bool t_seek_back_shows_again(void)
{
	char buf[16];
	int fd;

	reset();
	EXPECT(!put(IO "/data", "old"));
	fd = open(IO "/data", O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(read(fd, buf, 16) == 3);
	EXPECT(!put(IO "/data", "new!"));
	EXPECT(lseek(fd, 0, SEEK_SET) == 0);
	if (on_stock()) {
		EXPECT(read(fd, buf, 16) == 3 && !memcmp(buf, "old", 3));
		close(fd);
		EXPECT(events_are("store items/io/data 3\nshow items/io/data\n"
				  "store items/io/data 4\n"));
		case_differs = "row 20, a read from the start shows the old value";
		return true;
	}
	EXPECT(read(fd, buf, 16) == 4 && !memcmp(buf, "new!", 4));
	close(fd);
	EXPECT(events_are("store items/io/data 3\nshow items/io/data\n"
			  "store items/io/data 4\nshow items/io/data\n"));
	return true;
}

static bool t_several_writes(void)
{
	char buf[16];
	int fd;

	reset();
	fd = open(IO "/data", O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, "ab", 2) == 2);
	EXPECT(write(fd, "cde", 3) == 3);
	EXPECT(lseek(fd, 0, SEEK_CUR) == 5);
	close(fd);
	EXPECT(events_are("store items/io/data 2\nstore items/io/data 3\n"));
	/* each write() is a whole value: the last one wins, no appending */
	EXPECT(slurp(IO "/data", buf, sizeof(buf)) == 3);
	EXPECT(!strcmp(buf, "cde"));
	return true;
}

static bool t_pwrite_ignores_offset(void)
{
	char buf[16];
	int fd;

	reset();
	fd = open(IO "/data", O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(pwrite(fd, "xyz", 3, 100) == 3);
	close(fd);
	EXPECT(slurp(IO "/data", buf, sizeof(buf)) == 3);
	EXPECT(!strcmp(buf, "xyz"));
	return true;
}

static bool t_read_after_write_same_fd(void)
{
	char buf[16];
	int fd;

	reset();
	fd = open(IO "/data", O_RDWR);
	EXPECT(fd >= 0);
	EXPECT(write(fd, "hello", 5) == 5);
	/* the write moved the position to 5: show runs, nothing is left */
	EXPECT(read(fd, buf, 16) == 0);
	EXPECT(lseek(fd, 0, SEEK_SET) == 0);
	EXPECT(read(fd, buf, 16) == 5 && !memcmp(buf, "hello", 5));
	close(fd);
	/* docs/differences.md row 20: a read from the start shows again. */
	if (on_stock()) {
		EXPECT(events_are("store items/io/data 5\nshow items/io/data\n"));
		case_differs = "row 20, one show per open file";
	} else {
		EXPECT(events_are("store items/io/data 5\nshow items/io/data\n"
				  "show items/io/data\n"));
	}
	return true;
}

static bool t_store_error(void)
{
	int fd;

	reset();
	EXPECT(!put(IO "/store_ret", "-28"));
	fd = open(IO "/data", O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(FAILS_WITH(write(fd, "hello", 5), ENOSPC));
	EXPECT(lseek(fd, 0, SEEK_CUR) == 0);
	close(fd);
	EXPECT(!put(IO "/store_ret", "-71"));
	EXPECT(put(IO "/data", "x") == -EPROTO);
	return true;
}

static bool t_store_short(void)
{
	int fd;

	reset();
	EXPECT(!put(IO "/store_ret", "3"));
	events_clear();
	fd = open(IO "/data", O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, "hello", 5) == 3);
	EXPECT(lseek(fd, 0, SEEK_CUR) == 3);
	close(fd);
	EXPECT(events_are("store items/io/data 5\n"));
	return true;
}

static bool t_store_zero(void)
{
	int fd;

	reset();
	EXPECT(!put(IO "/store_ret", "0"));
	/* store_ret 0 means "the count"; a real 0 comes from a 0-byte value */
	fd = open(IO "/data", O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, "hello", 5) == 5);
	close(fd);
	return true;
}

static bool t_store_over_page(void)
{
	static char big[5000], back[8192];
	int fd;

	reset();
	memset(big, 'q', sizeof(big));
	fd = open(IO "/data", O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, big, sizeof(big)) == 4095);
	close(fd);
	EXPECT(events_are("store items/io/data 4095\n"));
	EXPECT(slurp(IO "/data", back, 8192) == 4095);
	EXPECT(!memcmp(back, big, 4095));
	return true;
}

static bool t_empty_write(void)
{
	int fd;
	ssize_t n;

	reset();
	fd = open(IO "/data", O_WRONLY);
	EXPECT(fd >= 0);
	errno = 0;
	n = write(fd, "", 0);
	close(fd);
	EXPECT(FAILS_WITH(n, EFAULT));
	EXPECT(events_are(""));
	return true;
}

static bool t_show_full_page(void)
{
	static char buf[8192];
	int fd, i;

	fd = open(IO "/big", O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(read(fd, buf, 8192) == 4096);
	EXPECT(read(fd, buf + 4096, 8192 - 4096) == 0);
	close(fd);
	for (i = 0; i < 4095 && buf[i] == 'a' + i % 26; i++)
		;
	EXPECT(i == 4095);
	EXPECT(buf[4095] == '\n');
	return true;
}

static bool t_show_error(void)
{
	char buf[16];
	int fd;

	reset();
	EXPECT(!put(IO "/show_ret", "-5"));
	events_clear();
	fd = open(IO "/data", O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(FAILS_WITH(read(fd, buf, 16), EIO));
	/* the failed show left nothing cached: the next read asks again */
	EXPECT(!put(IO "/show_ret", "0"));
	EXPECT(read(fd, buf, 16) == 1 && buf[0] == '\n');
	close(fd);
	EXPECT(events_are("show items/io/data\nshow items/io/data\n"));
	return true;
}

static bool t_truncating_open(void)
{
	int fd = open(IO "/data", O_WRONLY | O_TRUNC);

	EXPECT(fd >= 0);
	EXPECT(write(fd, "t\n", 2) == 2);
	close(fd);
	return true;
}

static bool t_name_is_item_name(void)
{
	char buf[64];

	EXPECT(slurp(IO "/name", buf, sizeof(buf)) == 3);
	EXPECT(!strcmp(buf, "io\n"));
	return true;
}

static const struct ktap_case cases[] = {
	{ "text_attr_modes_and_size_match_declaration", t_modes },
	{ "open_ro_attr_for_write_fails_eacces", t_ro_open_write },
	{ "open_wo_attr_for_read_fails_eacces", t_wo_open_read },
	{ "attr_mode_bits_bind_root_eacces", t_mode_binds_root },
	{ "ro_attr_chmod_writable_still_eacces", t_ro_chmod_no_store },
	{ "store_gets_exact_bytes_and_count_show_returns_them",
	  t_store_exact_bytes },
	{ "show_called_once_per_open_file", t_show_once_per_open },
	{ "open_without_read_calls_no_show", t_open_without_read_no_show },
	{ "partial_reads_return_page_in_pieces", t_partial_reads },
	{ "pread_at_offsets_and_past_end", t_pread },
	{ "lseek_set_cur_end_on_text_attr", t_lseek },
	{ "seek_back_shows_again",
	  t_seek_back_shows_again },
	{ "several_writes_on_one_fd_each_call_store", t_several_writes },
	{ "pwrite_offset_is_ignored_by_store", t_pwrite_ignores_offset },
	{ "read_after_write_on_same_fd_reshows_from_write_pos",
	  t_read_after_write_same_fd },
	{ "store_error_returned_by_write", t_store_error },
	{ "store_returning_fewer_bytes_is_write_result", t_store_short },
	{ "store_returning_count_is_write_result", t_store_zero },
	{ "write_over_page_stores_first_4095_bytes", t_store_over_page },
	{ "empty_write_fails_efault_calls_no_store", t_empty_write },
	{ "show_filling_whole_page_reads_4096_bytes", t_show_full_page },
	{ "show_error_returned_by_read_and_not_cached", t_show_error },
	{ "truncating_open_for_write_succeeds", t_truncating_open },
	{ "name_attr_shows_item_name", t_name_is_item_name },
};

int main(void)
{
	if (cng_load() ||
	    sh("mkdir " IO)) {
		ktap_skip_all("setup failed");
		sh("rmmod cng_test");
		return 1;
	}
	run_cases(cases, ARRAY_SIZE(cases));
	if (sh("rmdir " IO) || sh("rmmod cng_test"))
		ktap_failed++;
	return ktap_exit_status();
}
