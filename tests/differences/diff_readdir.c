// SPDX-License-Identifier: GPL-2.0
/*
 * Differences from stock in readdir (docs/differences.md #9): ours lists a
 * directory's attributes in the type's order, then its directories and
 * links oldest first; stock lists newest first, so a user-made child
 * comes before the attributes made with its parent. A readdir interrupted
 * by creations and removals neither repeats nor skips a surviving entry,
 * and returns no child made after it began, so a name removed and made
 * again during it is listed once (on ours by design; stock's cursor
 * happens to give the same).
 *
 *   cng_test/
 *   |-- items/x/          link target
 *   |-- items/e00..e09    listed in small steps while e* come and go
 *   `-- n1/               made, then c a lz b made in it, in that order
 *       |-- c/ a/ b/      user-made NODEs
 *       |-- lz -> items/x
 *       `-- sub/          its default group
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/syscall.h>

#include "guest.h"

#define N1	T "/n1"
#define ITEMS	T "/items"
#define NAMES	64

/* What the last case saw on stock, for its SKIP line. */
static char stock_saw[1024];

/*
 * Appends the names of one getdents64() of at most @bufsize bytes to
 * @names (space-separated, "." and ".." left out); returns how many
 * entries it read, or -1.
 */
static int list_some(int fd, size_t bufsize, char *names, size_t size)
{
	char buf[4096];
	long n, off;
	int count = 0;

	n = syscall(SYS_getdents64, fd, buf, bufsize);
	if (n < 0)
		return -1;
	for (off = 0; off < n; count++) {
		struct dirent64 *d = (struct dirent64 *)(buf + off);

		off += d->d_reclen;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (*names)
			strncat(names, " ", size - strlen(names) - 1);
		strncat(names, d->d_name, size - strlen(names) - 1);
	}
	return count;
}

/* Every name of @dir, in readdir order, into @names. */
static bool list_all(const char *dir, char *names, size_t size)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	int n;

	*names = '\0';
	if (fd < 0)
		return false;
	while ((n = list_some(fd, 4096, names, size)) > 0)
		;
	close(fd);
	return n == 0;
}

/* The @n words, space-separated, into @out. */
static void join(const char *const *words, size_t n, char *out, size_t size)
{
	size_t i;

	*out = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strncat(out, " ", size - strlen(out) - 1);
		strncat(out, words[i], size - strlen(out) - 1);
	}
}

static bool t_order(void)
{
	static const char *const ours_words[] = {
		"data", "store_ret", "show_ret", "name", "big", "wo", "bin_ret",
		"link_ret", "blob", "blob_small", "blob_wo",
		"sub", "c", "a", "lz", "b",
	};
	static const char *const stock_words[] = {
		"b", "lz", "a", "c", "sub",
		"blob_wo", "blob_small", "blob", "link_ret", "bin_ret", "wo",
		"big", "name", "show_ret", "store_ret", "data",
	};
	char got[1024], ours[256], stock[256];
	bool ok;

	join(ours_words, ARRAY_SIZE(ours_words), ours, sizeof(ours));
	join(stock_words, ARRAY_SIZE(stock_words), stock, sizeof(stock));
	EXPECT(!mkdir(N1, 0755));
	EXPECT(!mkdir(N1 "/c", 0755));
	EXPECT(!mkdir(N1 "/a", 0755));
	EXPECT(!symlink(ITEMS "/x", N1 "/lz"));
	EXPECT(!mkdir(N1 "/b", 0755));
	EXPECT(list_all(N1, got, sizeof(got)));
	say("listed: %s", got);
	ok = !strcmp(got, on_stock() ? stock : ours);
	if (!ok)
		say("want: %s", on_stock() ? stock : ours);
	if (on_stock())
		snprintf(stock_saw, sizeof(stock_saw),
			 "lists newest first, children before attributes: %s",
			 got);
	EXPECT(!unlink(N1 "/lz"));
	EXPECT(!rmdir(N1 "/a") && !rmdir(N1 "/b") && !rmdir(N1 "/c"));
	EXPECT(!rmdir(N1));
	return ok;
}

/* How many times @name is a word of @names. */
static int count_word(const char *names, const char *name)
{
	size_t len = strlen(name);
	const char *p = names;
	int n = 0;

	while ((p = strstr(p, name))) {
		if ((p == names || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\0'))
			n++;
		p += len;
	}
	return n;
}

/* One getdents of three "eNN" records; "." is 24 bytes. */
#define STEP	(3 * 24 + 8)

/*
 * Makes items/e00..e09 and lists items/ two steps in: returns the open
 * directory, the names seen in @seen, the last of them in @last.
 */
static int listing_begin(char *seen, size_t size, char *last, size_t lsize)
{
	char path[256];
	int fd, i;

	for (i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), ITEMS "/e%02d", i);
		EXPECT(!mkdir(path, 0755));
	}
	fd = open(ITEMS, O_RDONLY | O_DIRECTORY);
	EXPECT(fd >= 0);
	for (i = 0; i < 2; i++)
		EXPECT(list_some(fd, STEP, seen, size) > 0);
	say("first steps: %s", seen);
	*last = '\0';
	if (strrchr(seen, ' '))
		snprintf(last, lsize, "%s", strrchr(seen, ' ') + 1);
	return fd;
}

/* Lists the rest of @fd into @seen and closes it. */
static void listing_end(int fd, char *seen, size_t size)
{
	int n;

	while ((n = list_some(fd, STEP, seen, size)) > 0)
		;
	EXPECT(n == 0);
	close(fd);
	say("seen in all: %s", seen);
}

/*
 * Each of e00..e09 but @gone1 and @gone2 was seen once; removes them.
 * Returns false if one was not.
 */
static bool survivors_seen_once(const char *seen, const char *gone1,
				const char *gone2)
{
	char path[256];
	bool ok = true;
	int i;

	for (i = 0; i < 10; i++) {
		snprintf(path, sizeof(path), "e%02d", i);
		if (!strcmp(path, gone1) || !strcmp(path, gone2))
			continue;
		if (count_word(seen, path) != 1) {
			say("%s seen %d times", path, count_word(seen, path));
			ok = false;
		}
		snprintf(path, sizeof(path), ITEMS "/e%02d", i);
		EXPECT(!rmdir(path));
	}
	return ok;
}

/*
 * Lists items/ three entries at a time. After two steps it removes the
 * last entry seen and the lowest-numbered one not seen yet, and makes
 * three more (named before, between and after the others); then reads
 * to the end.
 * Each of e00..e09 that survives must be seen exactly once.
 */
static bool t_interrupted(void)
{
	char seen[1024] = "", path[256], gone_seen[16], gone_next[16] = "";
	static const char *const added[] = { "a0", "e045", "z9" };
	int fd, i;
	bool ok;

	fd = listing_begin(seen, sizeof(seen), gone_seen, sizeof(gone_seen));
	for (i = 0; i < 10 && !*gone_next; i++) {
		snprintf(gone_next, sizeof(gone_next), "e%02d", i);
		if (count_word(seen, gone_next))
			*gone_next = '\0';
	}
	say("removing %s (seen) and %s (not yet)", gone_seen, gone_next);
	snprintf(path, sizeof(path), ITEMS "/%s", gone_seen);
	EXPECT(!rmdir(path));
	snprintf(path, sizeof(path), ITEMS "/%s", gone_next);
	EXPECT(!rmdir(path));
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), ITEMS "/%s", added[i]);
		EXPECT(!mkdir(path, 0755));
	}
	listing_end(fd, seen, sizeof(seen));
	ok = survivors_seen_once(seen, gone_seen, gone_next);
	if (count_word(seen, gone_seen) != 1) {
		say("%s, removed after it was seen, seen %d times", gone_seen,
		    count_word(seen, gone_seen));
		ok = false;
	}
	for (i = 0; i < 3; i++) {
		if (count_word(seen, added[i]) > 1) {
			say("%s seen twice", added[i]);
			ok = false;
		}
		snprintf(path, sizeof(path), ITEMS "/%s", added[i]);
		EXPECT(!rmdir(path));
	}
	return ok;
}

/*
 * Lists items/ three entries at a time. After two steps it removes the
 * last entry seen and makes it again, and makes one more name; then
 * reads to the end. The remade name is listed once (a listing returns
 * no child made after it began: stock's, because new children go first,
 * before its cursor; ours, because the listing ends at the child that
 * was last when it began), and so is every other, the new one not at
 * all.
 */
static bool t_remade(void)
{
	char seen[1024] = "", path[256], remade[16];
	bool ok;
	int fd;

	fd = listing_begin(seen, sizeof(seen), remade, sizeof(remade));
	say("removing and making %s again, and zz", remade);
	snprintf(path, sizeof(path), ITEMS "/%s", remade);
	EXPECT(!rmdir(path));
	EXPECT(!mkdir(path, 0755));
	EXPECT(!mkdir(ITEMS "/zz", 0755));
	listing_end(fd, seen, sizeof(seen));
	ok = survivors_seen_once(seen, "", "");
	if (count_word(seen, "zz")) {
		say("zz, made after the listing began, listed");
		ok = false;
	}
	EXPECT(!rmdir(ITEMS "/zz"));
	return ok;
}

int main(void)
{
	const char *same = on_stock() ? "stock behaves the same" : NULL;
	char differs[sizeof(stock_saw) + 64];
	int base;
	bool ok;

	if (cng_load()) {
		ktap_skip_all("insmod failed");
		return 1;
	}
	base = read_int(T "/live");
	EXPECT(!mkdir(ITEMS "/x", 0755));
	ktap_plan(3);

	case_failed = false;
	ok = t_order() && !case_failed;
	snprintf(differs, sizeof(differs),
		 "SKIP expected to differ on stock: %s", stock_saw);
	ktap_result(1, "readdir_attrs_in_type_order_then_children_oldest_first",
		    ok, on_stock() ? differs : NULL);

	case_failed = false;
	ok = t_interrupted() && !case_failed;
	ktap_result(2, "readdir_interrupted_by_changes_repeats_no_survivor",
		    ok, same);

	case_failed = false;
	ok = t_remade() && !case_failed;
	ktap_result(3, "readdir_lists_a_name_remade_during_it_once", ok, same);

	rmdir(ITEMS "/x");
	if (read_int(T "/live") != base) {
		say("objects not released: %d, want %d", read_int(T "/live"),
		    base);
		ktap_failed++;
	}
	if (sh("rmmod cng_test"))
		ktap_failed++;
	return ktap_exit_status();
}
