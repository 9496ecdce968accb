// SPDX-License-Identifier: GPL-2.0
/*
 * configfs watch: the engine on the model, fed the events inotify would
 * send (each test changes the model, then says what happened), and the
 * command itself on a real directory with inotify and SIGINT.
 *
 *   t/            the top watched
 *   |-- i/        an item: v = 1, wo (write-only), bin, bad (EIO)
 *   `-- x/        an item whose removal ends a watch of t/x
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "configfs.h"
#include "fake.h"
#include "host.h"

#define TW_MAX_WDS	64

struct tw {
	struct fake fake;
	struct watch w;
	char *out;
	size_t out_len;
	char *paths[TW_MAX_WDS];	/* by wd */
	int nr_wds;
	bool removed[TW_MAX_WDS];
};

static int tw_add(void *priv, const char *path)
{
	struct tw *tw = priv;
	int wd;

	for (wd = 1; wd < tw->nr_wds; wd++)
		if (tw->paths[wd] && !tw->removed[wd] &&
		    !strcmp(tw->paths[wd], path))
			return wd;
	if (tw->nr_wds == TW_MAX_WDS)
		return -ENOSPC;
	if (!tw->nr_wds)
		tw->nr_wds = 1;
	tw->paths[tw->nr_wds] = strdup(path);
	return tw->nr_wds++;
}

static void tw_rm(void *priv, int wd)
{
	struct tw *tw = priv;

	tw->removed[wd] = true;
}

/* Item directories get the attributes of the picture above. */
static int tw_mkdir(struct fake *fake, const char *path)
{
	char name[256];

	snprintf(name, sizeof(name), "%s/v", path);
	fake_attr(fake, name, 0644, "1");
	snprintf(name, sizeof(name), "%s/dg", path);
	fake_dir(fake, name, true);
	return 0;
}

static const struct fake_hooks tw_hooks = {
	.mkdir = tw_mkdir,
};

static void tw_init(struct tw *tw, const char *top, bool json)
{
	char *big = malloc(5000);

	memset(tw, 0, sizeof(*tw));
	fake_init(&tw->fake, &tw_hooks);
	fake_dir(&tw->fake, "t", true);
	fake_dir(&tw->fake, "t/i", false);
	fake_attr(&tw->fake, "t/i/v", 0644, "1");
	fake_attr(&tw->fake, "t/i/wo", 0200, NULL);
	memset(big, 'b', 4999);
	big[4999] = '\0';
	fake_attr(&tw->fake, "t/i/bin", 0644, big);
	free(big);
	fake_attr(&tw->fake, "t/i/bad", 0644, "\001EIO");
	fake_dir(&tw->fake, "t/x", false);
	tw->w.fs = &tw->fake.fs;
	tw->w.out = open_memstream(&tw->out, &tw->out_len);
	tw->w.json = json;
	tw->w.add = tw_add;
	tw->w.rm = tw_rm;
	tw->w.priv = tw;
	EXPECT(watch_start(&tw->w, top) == 0);
}

static int tw_wd(struct tw *tw, const char *path)
{
	int wd;

	for (wd = 1; wd < tw->nr_wds; wd++)
		if (!tw->removed[wd] && !strcmp(tw->paths[wd], path))
			return wd;
	return 999;
}

static void tw_event(struct tw *tw, const char *dir, uint32_t mask,
		     const char *name)
{
	watch_event(&tw->w, tw_wd(tw, dir), mask, name);
}

/* What was printed since the last call; the caller frees it. */
static char *tw_take(struct tw *tw)
{
	char *s;

	fflush(tw->w.out);
	s = strndup(tw->out, tw->out_len);
	fclose(tw->w.out);
	free(tw->out);
	tw->out = NULL;
	tw->out_len = 0;
	tw->w.out = open_memstream(&tw->out, &tw->out_len);
	return s;
}

#define EXPECT_OUT(tw, want)						\
	do {								\
		char *_s = tw_take(tw);					\
		EXPECT_STR(_s, want);					\
		free(_s);						\
	} while (0)

static void tw_free(struct tw *tw)
{
	int wd;

	watch_stop(&tw->w);
	fclose(tw->w.out);
	free(tw->out);
	for (wd = 0; wd < tw->nr_wds; wd++)
		free(tw->paths[wd]);
	fake_free(&tw->fake);
}

static bool watch_scan_prints_nothing_and_watches_every_dir(void)
{
	struct tw tw;

	tw_init(&tw, "t", false);
	EXPECT_OUT(&tw, "");
	EXPECT(tw.w.nr_watched == 3);
	EXPECT(tw_wd(&tw, "t/i") != 999 && tw_wd(&tw, "t/x") != 999);
	tw_free(&tw);
	return true;
}

static bool watch_prints_directories_as_they_come_and_go(void)
{
	struct tw tw;

	tw_init(&tw, "t", false);
	EXPECT(fs_mkdir(&tw.fake.fs, "t/j") == 0);
	tw_event(&tw, "t", IN_CREATE | IN_ISDIR, "j");
	EXPECT_OUT(&tw, "create t/j/\ncreate t/j/dg/\n");
	/* The default group's own event, after its listing: once only. */
	tw_event(&tw, "t/j", IN_CREATE | IN_ISDIR, "dg");
	tw_event(&tw, "t", IN_CREATE | IN_ISDIR, "j");
	EXPECT_OUT(&tw, "");
	EXPECT(tw.w.nr_watched == 5);
	/* The removal, bottom-up; the watches' own events add nothing. */
	EXPECT(fs_rmdir(&tw.fake.fs, "t/j") == 0);
	tw_event(&tw, "t", IN_DELETE | IN_ISDIR, "j");
	EXPECT_OUT(&tw, "remove t/j/dg/\nremove t/j/\n");
	EXPECT(tw.w.nr_watched == 3);
	EXPECT(tw.removed[5] && tw.removed[4]);
	watch_event(&tw.w, 4, IN_DELETE_SELF, NULL);
	watch_event(&tw.w, 4, IN_IGNORED, NULL);
	EXPECT_OUT(&tw, "");
	tw_free(&tw);
	return true;
}

static bool watch_prints_links_with_their_targets(void)
{
	struct tw tw;

	tw_init(&tw, "t", false);
	EXPECT(fs_symlink(&tw.fake.fs, "t/i", "t/x/to i") == 0);
	tw_event(&tw, "t/x", IN_CREATE, "to i");
	EXPECT_OUT(&tw, "create \"t/x/to i\" -> t/i\n");
	EXPECT(fs_unlink(&tw.fake.fs, "t/x/to i") == 0);
	tw_event(&tw, "t/x", IN_DELETE, "to i");
	tw_event(&tw, "t/x", IN_DELETE, "to i");
	EXPECT_OUT(&tw, "remove \"t/x/to i\" -> t/i\n");
	tw_free(&tw);
	return true;
}

static bool watch_prints_value_changes_old_and_new(void)
{
	struct tw tw;

	tw_init(&tw, "t", false);
	fake_set(&tw.fake, "t/i/v", "two words");
	tw_event(&tw, "t/i", IN_MODIFY, "v");
	EXPECT_OUT(&tw, "change t/i/v 1 -> \"two words\"\n");
	/* A write of the same value, or a second event: nothing new. */
	tw_event(&tw, "t/i", IN_MODIFY, "v");
	EXPECT_OUT(&tw, "");
	fake_set(&tw.fake, "t/i/v", "");
	tw_event(&tw, "t/i", IN_MODIFY, "v");
	EXPECT_OUT(&tw, "change t/i/v \"two words\" -> \"\"\n");
	tw_event(&tw, "t/i", IN_MODIFY, "wo");
	EXPECT_OUT(&tw, "write t/i/wo [write-only]\n");
	tw_event(&tw, "t/i", IN_MODIFY, "bin");
	EXPECT_OUT(&tw, "change t/i/bin [binary, 5000 bytes]\n");
	tw_event(&tw, "t/i", IN_MODIFY, "bad");
	EXPECT_OUT(&tw, "");
	fake_set(&tw.fake, "t/i/bad", "ok");
	tw_event(&tw, "t/i", IN_MODIFY, "bad");
	EXPECT_OUT(&tw, "change t/i/bad ? [unreadable: Input/output error] -> ok\n");
	tw_free(&tw);
	return true;
}

static bool watch_directory_event_rereads_its_values(void)
{
	struct tw tw;

	tw_init(&tw, "t", false);
	fake_set(&tw.fake, "t/i/v", "7");
	tw_event(&tw, "t/i", IN_MODIFY, NULL);
	EXPECT_OUT(&tw, "change t/i/v 1 -> 7\n");
	tw_event(&tw, "t/i", IN_MODIFY, "v");
	tw_event(&tw, "t/i", IN_ATTRIB, NULL);
	EXPECT_OUT(&tw, "");
	tw_free(&tw);
	return true;
}

#define TW_CHANGE	"{\"event\":\"change\",\"path\":\"t/i/v\","
#define TW_V_JSON	"\"a \\\"q\\\" \\\\ \\t\\u0001\\n\xc3\xa9\""

static bool watch_json_escapes_every_field(void)
{
	struct tw tw;

	tw_init(&tw, "t", true);
	fake_set(&tw.fake, "t/i/v", "a \"q\" \\ \t\x01\n\xc3\xa9");
	tw_event(&tw, "t/i", IN_MODIFY, "v");
	EXPECT_OUT(&tw, TW_CHANGE "\"old\":\"1\",\"new\":" TW_V_JSON "}\n");
	fake_set(&tw.fake, "t/i/v", "\xff");
	tw_event(&tw, "t/i", IN_MODIFY, "v");
	EXPECT_OUT(&tw, TW_CHANGE "\"old\":" TW_V_JSON ",\"new_hex\":\"ff\"}\n");
	tw_event(&tw, "t/i", IN_MODIFY, "wo");
	tw_event(&tw, "t/i", IN_MODIFY, "bin");
	EXPECT_OUT(&tw, "{\"event\":\"write\",\"path\":\"t/i/wo\"}\n"
		   "{\"event\":\"change\",\"path\":\"t/i/bin\",\"binary_size\":5000}\n");
	EXPECT(fs_mkdir(&tw.fake.fs, "t/\"j\"") == 0);
	EXPECT(fs_symlink(&tw.fake.fs, "t/i", "t/x/l") == 0);
	tw_event(&tw, "t", IN_CREATE | IN_ISDIR, "\"j\"");
	tw_event(&tw, "t/x", IN_CREATE, "l");
	EXPECT_OUT(&tw, "{\"event\":\"create\",\"path\":\"t/\\\"j\\\"\",\"type\":\"dir\"}\n"
		   "{\"event\":\"create\",\"path\":\"t/\\\"j\\\"/dg\",\"type\":\"dir\"}\n"
		   "{\"event\":\"create\",\"path\":\"t/x/l\",\"type\":\"link\",\"target\":\"t/i\"}\n");
	tw_free(&tw);
	return true;
}

/* A key's change showed the key: "[secret]", or "secret":true in JSON. */
static bool watch_hides_secret_values(void)
{
	struct tw tw;

	tw_init(&tw, "t", false);
	fake_attr(&tw.fake, "t/i/dhchap_key", 0644, "DHHC-1:00:b2xk:");
	tw_event(&tw, "t/i", IN_CREATE, "dhchap_key");
	free(tw_take(&tw));
	fake_set(&tw.fake, "t/i/dhchap_key", "DHHC-1:00:bmV3:");
	tw_event(&tw, "t/i", IN_MODIFY, "dhchap_key");
	EXPECT_OUT(&tw, "change t/i/dhchap_key [secret] -> [secret]\n");
	cfs_opts.show_secrets = true;
	fake_set(&tw.fake, "t/i/dhchap_key", "DHHC-1:00:Mw==:");
	tw_event(&tw, "t/i", IN_MODIFY, "dhchap_key");
	cfs_opts.show_secrets = false;
	EXPECT_OUT(&tw, "change t/i/dhchap_key DHHC-1:00:bmV3: -> DHHC-1:00:Mw==:\n");
	tw_free(&tw);
	tw_init(&tw, "t", true);
	fake_attr(&tw.fake, "t/i/dhchap_key", 0644, "DHHC-1:00:b2xk:");
	tw_event(&tw, "t/i", IN_CREATE, "dhchap_key");
	free(tw_take(&tw));
	fake_set(&tw.fake, "t/i/dhchap_key", "DHHC-1:00:bmV3:");
	tw_event(&tw, "t/i", IN_MODIFY, "dhchap_key");
	EXPECT_OUT(&tw, "{\"event\":\"change\",\"path\":\"t/i/dhchap_key\",\"secret\":true}\n");
	tw_free(&tw);
	return true;
}

static bool watch_overflow_looks_at_everything_again(void)
{
	struct tw tw;

	tw_init(&tw, "t", false);
	fake_set(&tw.fake, "t/i/v", "9");
	EXPECT(fs_mkdir(&tw.fake.fs, "t/x/n") == 0);
	EXPECT(fs_symlink(&tw.fake.fs, "t/i", "t/l") == 0);
	watch_event(&tw.w, -1, IN_Q_OVERFLOW, NULL);
	EXPECT(strstr(ktap_stderr(), "events were lost"));
	EXPECT_OUT(&tw, "change t/i/v 1 -> 9\n"
		   "create t/l -> t/i\n"
		   "create t/x/n/\ncreate t/x/n/dg/\n");
	EXPECT(fs_unlink(&tw.fake.fs, "t/l") == 0);
	watch_event(&tw.w, -1, IN_Q_OVERFLOW, NULL);
	EXPECT_OUT(&tw, "remove t/l -> t/i\n");
	tw_free(&tw);
	return true;
}

static bool watch_ends_when_its_top_is_removed(void)
{
	struct tw tw;

	tw_init(&tw, "t/x", false);
	EXPECT(tw.w.nr_watched == 1);
	EXPECT(fs_mkdir(&tw.fake.fs, "t/x/n") == 0);
	tw_event(&tw, "t/x", IN_CREATE | IN_ISDIR, "n");
	EXPECT_OUT(&tw, "create t/x/n/\ncreate t/x/n/dg/\n");
	watch_event(&tw.w, tw_wd(&tw, "t/x"), IN_DELETE_SELF, NULL);
	EXPECT_OUT(&tw, "remove t/x/n/dg/\nremove t/x/n/\nremove t/x/\n");
	EXPECT(tw.w.top_gone && tw.w.nr_watched == 0);
	watch_event(&tw.w, 1, IN_IGNORED, NULL);
	EXPECT_OUT(&tw, "");
	tw_free(&tw);
	return true;
}

static bool watch_ignores_what_it_never_saw(void)
{
	struct tw tw;
	struct watch w = { .fs = &tw.fake.fs };

	tw_init(&tw, "t", false);
	watch_event(&tw.w, 998, IN_CREATE, "a");
	watch_event(&tw.w, 0, IN_MODIFY, "a");
	tw_event(&tw, "t", IN_DELETE | IN_ISDIR, "nothing");
	tw_event(&tw, "t", IN_CREATE | IN_ISDIR, "vanished");
	tw_event(&tw, "t/i", IN_MODIFY, "vanished");
	EXPECT_OUT(&tw, "");
	EXPECT(watch_start(&w, "t/i/v") == -ENOTDIR);
	EXPECT(watch_start(&w, "t/nothing") == -ENOENT);
	tw_free(&tw);
	return true;
}

/* The command itself, on a directory of the host, until SIGINT. */
static bool watch_command_follows_a_real_directory_until_sigint(void)
{
	char root[] = "/tmp/cfs-watch-XXXXXX";
	char out[64];
	char err[64];
	char *text = NULL;
	size_t len;
	int status;
	pid_t pid;
	int fd;
	int i;

	if (!mkdtemp(root))
		abort();
	snprintf(out, sizeof(out), "%s.out", root);
	snprintf(err, sizeof(err), "%s.err", root);
	fd = open(root, O_RDONLY);
	mkdirat(fd, "a", 0755);
	close(fd);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		cfs_opts.root = root;
		optind = 0;
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(99);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(99);
		_exit(cmd_watch(2, (char *[]){ "watch", "--json", NULL }));
	}
	for (i = 0; i < 500; i++) {
		free(text);
		text = NULL;
		if (!read_whole_file(err, &text, &len) && strstr(text, "watching"))
			break;
		usleep(10000);
	}
	EXPECT(text && strstr(text, "configfs: /: watching 2 directories\n"));
	free(text);
	text = NULL;
	fd = open(root, O_RDONLY);
	mkdirat(fd, "a/b", 0755);
	close(fd);
	for (i = 0; i < 500; i++) {
		free(text);
		text = NULL;
		if (!read_whole_file(out, &text, &len) &&
		    strstr(text, "\"event\""))
			break;
		usleep(10000);
	}
	kill(pid, SIGINT);
	EXPECT(waitpid(pid, &status, 0) == pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_STR(text, "{\"version\":1}\n"
		   "{\"event\":\"create\",\"path\":\"a/b\",\"type\":\"dir\"}\n");
	free(text);
	unlink(out);
	unlink(err);
	snprintf(out, sizeof(out), "%s/a/b", root);
	rmdir(out);
	snprintf(out, sizeof(out), "%s/a", root);
	rmdir(out);
	rmdir(root);
	return true;
}

static bool watch_command_usage(void)
{
	optind = 0;
	EXPECT(cmd_watch(2, (char *[]){ "watch", "--bogus", NULL }) ==
	       CFS_EXIT_USAGE);
	optind = 0;
	EXPECT(cmd_watch(3, (char *[]){ "watch", "a", "b", NULL }) ==
	       CFS_EXIT_USAGE);
	EXPECT(strstr(ktap_stderr(), "usage: configfs watch [--json] [-q] [PATH]\n"));
	return true;
}

const struct ktap_case watch_cases[] = {
	KTAP_CASE(watch_scan_prints_nothing_and_watches_every_dir),
	KTAP_CASE(watch_prints_directories_as_they_come_and_go),
	KTAP_CASE(watch_prints_links_with_their_targets),
	KTAP_CASE(watch_prints_value_changes_old_and_new),
	KTAP_CASE(watch_directory_event_rereads_its_values),
	KTAP_CASE(watch_json_escapes_every_field),
	KTAP_CASE(watch_hides_secret_values),
	KTAP_CASE(watch_overflow_looks_at_everything_again),
	KTAP_CASE(watch_ends_when_its_top_is_removed),
	KTAP_CASE(watch_ignores_what_it_never_saw),
	KTAP_CASE(watch_command_follows_a_real_directory_until_sigint),
	KTAP_CASE(watch_command_usage),
};

const size_t nr_watch_cases = ARRAY_SIZE(watch_cases);
