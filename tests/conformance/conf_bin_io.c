// SPDX-License-Identifier: GPL-2.0
/*
 * Binary attributes: the sizing read, reads at offsets, writes gathered up
 * to cb_max_size and handed over once at the last close, overflow errors,
 * mixing reads and writes, and the callbacks' errors.
 *
 *   cng_test/
 *   `-- items/
 *       `-- bin/     blob (RW, max 10000), blob_small (RO, max 16),
 *                    blob_wo (WO, max 64), bin_ret
 */
#include "guest.h"

#define BIN	T "/items/bin"
#define BLOB	BIN "/blob"

static char wbuf[20000], rbuf[20000];

/* Sets the blob to n bytes of a known pattern, through one open file. */
static bool set_blob(size_t n)
{
	size_t i;
	int fd;

	for (i = 0; i < n; i++)
		wbuf[i] = (char)(i * 7 + 3);
	fd = open(BLOB, O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(n == 0 || write(fd, wbuf, n) == (ssize_t)n);
	EXPECT(!close(fd));
	return true;
}

static void reset(void)
{
	put(BIN "/bin_ret", "0");
	set_blob(0);
	events_clear();
}

static bool mode_is(const char *path, mode_t mode)
{
	struct stat st = { 0 };

	EXPECT(!stat(path, &st));
	if (st.st_mode != (S_IFREG | mode) || st.st_size != 0) {
		say("%s: mode %o size %lld, want %o size 0", path, st.st_mode,
		    (long long)st.st_size, S_IFREG | mode);
		return false;
	}
	return true;
}

static bool t_modes(void)
{
	return mode_is(BLOB, 0644) && mode_is(BIN "/blob_small", 0444) &&
	       mode_is(BIN "/blob_wo", 0200);
}

static bool t_open_modes(void)
{
	EXPECT(FAILS_WITH(open(BIN "/blob_small", O_WRONLY), EACCES));
	EXPECT(FAILS_WITH(open(BIN "/blob_wo", O_RDONLY), EACCES));
	return true;
}

static bool t_empty_read(void)
{
	int fd;

	reset();
	fd = open(BLOB, O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(read(fd, rbuf, 100) == 0);
	close(fd);
	/* size 0 from the sizing call: no second call */
	EXPECT(events_are("bin_read items/bin/blob NULL\n"));
	return true;
}

static bool t_sizing_read(void)
{
	int fd;

	reset();
	EXPECT(set_blob(5000));
	events_clear();
	fd = open(BLOB, O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(read(fd, rbuf, 100) == 100);
	EXPECT(read(fd, rbuf + 100, 19000) == 4900);
	EXPECT(read(fd, rbuf, 100) == 0);
	close(fd);
	EXPECT(!memcmp(rbuf, wbuf, 5000));
	EXPECT(events_are("bin_read items/bin/blob NULL\n"
			  "bin_read items/bin/blob 5000\n"));
	return true;
}

static bool t_pread(void)
{
	int fd;

	reset();
	EXPECT(set_blob(300));
	fd = open(BLOB, O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(pread(fd, rbuf, 10, 250) == 10);
	EXPECT(!memcmp(rbuf, wbuf + 250, 10));
	EXPECT(pread(fd, rbuf, 100, 290) == 10);
	EXPECT(pread(fd, rbuf, 100, 300) == 0);
	EXPECT(read(fd, rbuf, 5) == 5 && !memcmp(rbuf, wbuf, 5));
	close(fd);
	return true;
}

static bool t_lseek(void)
{
	int fd = open(BLOB, O_RDONLY);

	EXPECT(fd >= 0);
	EXPECT(FAILS_WITH(lseek(fd, 0, SEEK_SET), ESPIPE));
	EXPECT(FAILS_WITH(lseek(fd, 0, SEEK_CUR), ESPIPE));
	close(fd);
	return true;
}

static bool t_write_at_last_close(void)
{
	int fd, fd2;

	reset();
	memset(wbuf, 'w', 8100);
	fd = open(BLOB, O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, wbuf, 4000) == 4000);
	EXPECT(write(fd, wbuf, 4000) == 4000);
	fd2 = dup(fd);
	EXPECT(write(fd2, wbuf, 100) == 100);
	EXPECT(events_are(""));
	EXPECT(!close(fd));
	EXPECT(events_are(""));
	EXPECT(!close(fd2));
	EXPECT(events_are("bin_write items/bin/blob 8100\n"));
	EXPECT(slurp(BLOB, rbuf, sizeof(rbuf)) == 8100);
	EXPECT(!memcmp(rbuf, wbuf, 8100));
	return true;
}

static bool t_pwrite_gap(void)
{
	int fd;

	reset();
	fd = open(BLOB, O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(pwrite(fd, "AB", 2, 5) == 2);
	EXPECT(pwrite(fd, "c", 1, 1) == 1);
	EXPECT(!close(fd));
	EXPECT(events_are("bin_write items/bin/blob 7\n"));
	EXPECT(slurp(BLOB, rbuf, sizeof(rbuf)) == 7);
	EXPECT(!memcmp(rbuf, "\0c\0\0\0AB", 7));
	return true;
}

static bool t_write_max(void)
{
	int fd;

	reset();
	memset(wbuf, 'm', 10000);
	fd = open(BLOB, O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, wbuf, 10000) == 10000);
	EXPECT(FAILS_WITH(write(fd, "z", 1), EFBIG));
	EXPECT(!close(fd));
	EXPECT(events_are("bin_write items/bin/blob 10000\n"));
	return true;
}

static bool t_write_over_max(void)
{
	int fd;

	reset();
	fd = open(BLOB, O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(FAILS_WITH(write(fd, wbuf, 10001), EFBIG));
	EXPECT(write(fd, wbuf, 6000) == 6000);
	EXPECT(FAILS_WITH(write(fd, wbuf, 5000), EFBIG));
	EXPECT(!close(fd));
	/* what fitted is still delivered */
	EXPECT(events_are("bin_write items/bin/blob 6000\n"));
	return true;
}

static bool t_read_over_max(void)
{
	int fd;

	reset();
	EXPECT(set_blob(17));
	fd = open(BIN "/blob_small", O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(FAILS_WITH(read(fd, rbuf, 100), EFBIG));
	close(fd);
	EXPECT(set_blob(16));
	EXPECT(slurp(BIN "/blob_small", rbuf, sizeof(rbuf)) == 16);
	return true;
}

static bool t_read_then_write(void)
{
	int fd;

	reset();
	EXPECT(set_blob(10));
	events_clear();
	fd = open(BLOB, O_RDWR);
	EXPECT(fd >= 0);
	EXPECT(read(fd, rbuf, 5) == 5);
	EXPECT(FAILS_WITH(write(fd, "x", 1), ETXTBSY));
	EXPECT(!close(fd));
	EXPECT(events_are("bin_read items/bin/blob NULL\n"
			  "bin_read items/bin/blob 10\n"));
	return true;
}

static bool t_write_then_read(void)
{
	int fd;

	reset();
	fd = open(BLOB, O_RDWR);
	EXPECT(fd >= 0);
	EXPECT(write(fd, "xyz", 3) == 3);
	EXPECT(FAILS_WITH(read(fd, rbuf, 5), ETXTBSY));
	EXPECT(!close(fd));
	EXPECT(events_are("bin_write items/bin/blob 3\n"));
	return true;
}

static bool t_open_close_no_write(void)
{
	int fd;

	reset();
	fd = open(BLOB, O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(!close(fd));
	EXPECT(events_are(""));
	return true;
}

static bool t_empty_write(void)
{
	ssize_t n;
	int fd;

	reset();
	fd = open(BLOB, O_WRONLY);
	EXPECT(fd >= 0);
	n = write(fd, "", 0);
	EXPECT(!close(fd));
	EXPECT(FAILS_WITH(n, EFAULT));
	/* yet it counts as a write: close delivers an empty value */
	EXPECT(events_are("bin_write items/bin/blob 0\n"));
	return true;
}

static bool t_read_error(void)
{
	int fd;

	reset();
	EXPECT(set_blob(10));
	EXPECT(!put(BIN "/bin_ret", "-71"));
	events_clear();
	fd = open(BLOB, O_RDONLY);
	EXPECT(fd >= 0);
	EXPECT(FAILS_WITH(read(fd, rbuf, 100), EPROTO));
	close(fd);
	EXPECT(events_are("bin_read items/bin/blob NULL\n"));
	return true;
}

static bool t_write_error_lost(void)
{
	int fd;

	reset();
	EXPECT(set_blob(4));
	EXPECT(!put(BIN "/bin_ret", "-5"));
	events_clear();
	fd = open(BLOB, O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, "abcdef", 6) == 6);
	/* the callback's error has nowhere to go: close() succeeds */
	EXPECT(!close(fd));
	EXPECT(events_are("bin_write items/bin/blob 6\n"));
	EXPECT(!put(BIN "/bin_ret", "0"));
	EXPECT(slurp(BLOB, rbuf, sizeof(rbuf)) == 4);
	return true;
}

static bool t_wo(void)
{
	int fd;

	reset();
	fd = open(BIN "/blob_wo", O_WRONLY);
	EXPECT(fd >= 0);
	EXPECT(write(fd, wbuf, 64) == 64);
	EXPECT(FAILS_WITH(write(fd, wbuf, 1), EFBIG));
	EXPECT(!close(fd));
	EXPECT(events_are("bin_write items/bin/blob_wo 64\n"));
	return true;
}

static bool t_two_opens_two_writes(void)
{
	int a, b;

	reset();
	a = open(BLOB, O_WRONLY);
	b = open(BLOB, O_WRONLY);
	EXPECT(a >= 0 && b >= 0);
	EXPECT(write(a, "first", 5) == 5);
	EXPECT(write(b, "second", 6) == 6);
	EXPECT(!close(b));
	EXPECT(!close(a));
	EXPECT(events_are("bin_write items/bin/blob 6\n"
			  "bin_write items/bin/blob 5\n"));
	EXPECT(slurp(BLOB, rbuf, sizeof(rbuf)) == 5);
	return true;
}

static const struct ktap_case cases[] = {
	{ "bin_attr_modes_and_zero_size", t_modes },
	{ "bin_open_against_mode_fails_eacces", t_open_modes },
	{ "bin_read_of_empty_blob_sizes_once_returns_0", t_empty_read },
	{ "bin_read_sizes_with_null_then_fills_once", t_sizing_read },
	{ "bin_pread_at_offsets", t_pread },
	{ "bin_lseek_fails_espipe", t_lseek },
	{ "bin_writes_delivered_once_at_last_close", t_write_at_last_close },
	{ "bin_pwrite_past_end_zero_fills_gap", t_pwrite_gap },
	{ "bin_write_up_to_max_then_efbig", t_write_max },
	{ "bin_write_over_max_fails_efbig_keeps_rest", t_write_over_max },
	{ "bin_read_over_max_fails_efbig", t_read_over_max },
	{ "bin_write_after_read_fails_etxtbsy", t_read_then_write },
	{ "bin_read_after_write_fails_etxtbsy", t_write_then_read },
	{ "bin_open_close_without_write_calls_nothing",
	  t_open_close_no_write },
	{ "bin_empty_write_fails_efault_close_delivers_empty", t_empty_write },
	{ "bin_read_callback_error_returned_by_read", t_read_error },
	{ "bin_write_callback_error_not_reported_close_ok",
	  t_write_error_lost },
	{ "bin_wo_attr_write_delivered_max_efbig", t_wo },
	{ "bin_each_open_file_delivers_its_own_write",
	  t_two_opens_two_writes },
};

int main(void)
{
	if (cng_load() ||
	    sh("mkdir " BIN)) {
		ktap_skip_all("setup failed");
		sh("rmmod cng_test");
		return 1;
	}
	run_cases(cases, ARRAY_SIZE(cases));
	if (sh("rmdir " BIN) || sh("rmmod cng_test"))
		ktap_failed++;
	return ktap_exit_status();
}
