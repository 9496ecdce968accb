// SPDX-License-Identifier: GPL-2.0
/*
 * The system-call backend and the commands, on an ordinary directory
 * standing in for configfs (--root), as the tool itself runs them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "configfs.h"
#include "host.h"

static bool zero_writes;

/* fs.c's write(2) calls come here: the host cannot make a store return 0. */
ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	if (zero_writes)
		return 0;
	return __real_write(fd, buf, len);
}

static char root[64];

/* On tmpfs when there is one: creating files on a disk is slow here. */
static void mk_root(void)
{
	snprintf(root, sizeof(root), "%s",
		 access("/dev/shm", W_OK) ? "/tmp/cfs-host-XXXXXX" :
		 "/dev/shm/cfs-host-XXXXXX");
	if (!mkdtemp(root))
		abort();
	cfs_opts.root = root;
}

static void rm_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		abort();
	cfs_opts.root = NULL;
}

static const char *at(const char *rel)
{
	static char buf[4][512];
	static int slot;
	char *out = buf[slot++ % 4];

	snprintf(out, 512, "%s/%s", root, rel);
	return out;
}

static void put(const char *rel, mode_t mode, const char *value, size_t len)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || __real_write(fd, value, len) != (ssize_t)len)
		abort();
	fchmod(fd, mode);
	close(fd);
}

static void put_text(const char *rel, const char *text)
{
	put(rel, 0644, text, strlen(text));
}

/*
 * Removes the regular files under @rel, as configfs removes an item's
 * attributes with it: rm never removes a file of a stand-in root.
 */
static void drop_files(const char *rel)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "find '%s' -type f -delete", at(rel));
	if (system(cmd))
		abort();
}

static char *get(const char *rel)
{
	size_t len;
	char *text;

	if (read_whole_file(at(rel), &text, &len))
		return NULL;
	return text;
}

/* Runs a command as main() would; returns its status, stdout in @out. */
static int run(char **out, int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "tree", cmd_tree }, { "save", cmd_save },
		{ "restore", cmd_restore }, { "diff", cmd_diff },
		{ "rm", cmd_rm }, { "why", cmd_why },
	};
	FILE *cap = tmpfile();
	int saved = dup(1);
	size_t len;
	size_t i;
	int ret = -1;

	fflush(stdout);
	dup2(fileno(cap), 1);
	optind = 0;
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[0], cmds[i].name))
			ret = cmds[i].fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	len = ftell(cap);
	*out = calloc(1, len + 1);
	rewind(cap);
	if (fread(*out, 1, len, cap) != len)
		abort();
	fclose(cap);
	return ret;
}

#define RUN(out, ...)							\
	run(out, sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *),	\
	    (char *[]){ __VA_ARGS__, NULL })

/*
 * A plain directory does not bring back the files configfs would make
 * with the directory (write-only, binary): compare the statements only.
 */
static void drop_comments(char *text)
{
	char *out = text;
	char *p = text;

	while (*p) {
		char *nl = strchrnul(p, '\n');
		size_t len = (size_t)(nl - p) + (*nl ? 1 : 0);

		if (*p != '#') {
			memmove(out, p, len);
			out += len;
		}
		p += len;
	}
	*out = '\0';
}

static void build(void)
{
	mkdir(at("nvmet"), 0755);
	mkdir(at("nvmet/subsystems"), 0755);
	mkdir(at("nvmet/subsystems/nqn.2024-01.io:s1"), 0755);
	mkdir(at("nvmet/ports"), 0755);
	mkdir(at("nvmet/ports/1"), 0755);
	mkdir(at("nvmet/ports/1/subsystems"), 0755);
	put("nvmet/ports/1/addr_trtype", 0644, "tcp\n", 4);
	put("nvmet/ports/1/addr_tsas", 0644, "", 0);
	put("nvmet/ports/1/note", 0644, "two words\n\xc3\xa9\n", 13);
	put("nvmet/ports/1/ro", 0444, "x\n", 2);
	put("nvmet/ports/1/wo", 0200, "", 0);
	put("nvmet/ports/1/bin", 0644, "a\0b", 3);
	put("nvmet/ports/1/secret", 0600, "s\n", 2);
	/* The kernel's own form of a link: relative, from the link's dir. */
	if (symlink("../../../subsystems/nqn.2024-01.io:s1",
		    at("nvmet/ports/1/subsystems/nqn.2024-01.io:s1")))
		abort();
}

#define S1_LINK \
	"link nvmet/ports/1/subsystems/nqn.2024-01.io:s1 nvmet/subsystems/nqn.2024-01.io:s1\n"

static bool sys_save_rm_restore_save_gives_the_same_file(void)
{
	char *out;
	char *first;
	char *second;

	mk_root();
	build();
	EXPECT(RUN(&out, "save", "-o", (char *)at("../s1.save")) == 0);
	free(out);
	first = get("../s1.save");
	EXPECT(first && strstr(first, S1_LINK));
	EXPECT(first && strstr(first, "set nvmet/ports/1/note \"two words\\n\xc3\xa9\"\n"));
	EXPECT(first && strstr(first, "set nvmet/ports/1/addr_tsas \"\"\n"));
	EXPECT(first && strstr(first, "chmod nvmet/ports/1/secret 0600\n"));
	EXPECT(first && strstr(first, "# write-only, not saved: nvmet/ports/1/wo"));
	EXPECT(first && strstr(first, "set nvmet/ports/1/bin \"a\\x00b\"\n"));
	EXPECT(first && !strstr(first, "ports/1/ro"));
	drop_files("nvmet");
	EXPECT(RUN(&out, "rm", "-r", "nvmet") == 0);
	free(out);
	EXPECT(access(at("nvmet"), F_OK) && errno == ENOENT);
	EXPECT(RUN(&out, "restore", (char *)at("../s1.save")) == 0);
	free(out);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../s2.save")) == 0);
	free(out);
	second = get("../s2.save");
	EXPECT(first && second);
	if (first && second) {
		drop_comments(first);
		drop_comments(second);
		EXPECT_STR(second, first);
	}
	EXPECT(RUN(&out, "diff", (char *)at("../s1.save")) == 0);
	EXPECT_STR(out, "");
	free(out);
	free(first);
	free(second);
	unlink(at("../s1.save"));
	unlink(at("../s2.save"));
	rm_root();
	return true;
}

static mode_t mode_of(const char *rel)
{
	struct stat sb;

	return lstat(at(rel), &sb) ? (mode_t)-1 : sb.st_mode & 07777;
}

/*
 * Saved trees hold secrets: a file another user made 0666 received root's
 * dhchap_key. -o writes 0600 or narrower, and refuses another's file.
 */
static bool sys_save_o_writes_0600_and_refuses_another_users_file(void)
{
	mode_t umask_was = umask(0);
	struct stat sb;
	char *out;
	char *text;

	mk_root();
	build();
	EXPECT(RUN(&out, "save", "-o", (char *)at("../new.save")) == 0);
	free(out);
	EXPECT(mode_of("../new.save") == 0600);
	put("../old.save", 0666, "", 0);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../old.save")) == 0);
	free(out);
	EXPECT(mode_of("../old.save") == 0600);
	EXPECT(chmod(at("../old.save"), 0640) == 0);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../old.save")) == 0);
	free(out);
	EXPECT(mode_of("../old.save") == 0600);
	EXPECT(chmod(at("../old.save"), 0400) == 0);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../old.save")) == 0);
	free(out);
	EXPECT(mode_of("../old.save") == 0400);
	if (!geteuid()) {
		put("../theirs.save", 0666, "theirs\n", 7);
		EXPECT(chown(at("../theirs.save"), 1234, 5678) == 0);
		EXPECT(RUN(&out, "save", "-o", (char *)at("../theirs.save")) ==
		       CFS_EXIT_USAGE);
		free(out);
		EXPECT(strstr(ktap_stderr(), "theirs.save: owned by uid 1234"));
		text = get("../theirs.save");
		EXPECT_STR(text, "theirs\n");
		free(text);
		EXPECT(!stat(at("../theirs.save"), &sb) && sb.st_uid == 1234 &&
		       (sb.st_mode & 07777) == 0666);
	}
	umask(umask_was);
	unlink(at("../new.save"));
	unlink(at("../old.save"));
	unlink(at("../theirs.save"));
	rm_root();
	return true;
}

/*
 * rename(2) over a link or a device node replaced the node itself: refuse
 * both, leave them as they were, and take "-" as standard output.
 */
static bool sys_save_o_refuses_a_link_or_a_non_regular_file(void)
{
	struct stat sb;
	char *out;
	char *text;

	mk_root();
	build();
	put("../real.save", 0600, "old\n", 4);
	EXPECT(symlink(at("../real.save"), at("../link.save")) == 0);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../link.save")) ==
	       CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), "link.save: a symbolic link"));
	EXPECT(!lstat(at("../link.save"), &sb) && S_ISLNK(sb.st_mode));
	text = get("../real.save");
	EXPECT_STR(text, "old\n");
	free(text);
	EXPECT(mkfifo(at("../fifo.save"), 0600) == 0);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../fifo.save")) ==
	       CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), "fifo.save: not a regular file"));
	EXPECT(!lstat(at("../fifo.save"), &sb) && S_ISFIFO(sb.st_mode));
	EXPECT(RUN(&out, "save", "-o", "-", "nvmet/ports") == 0);
	EXPECT(strstr(out, "set nvmet/ports/1/addr_trtype tcp\n"));
	free(out);
	EXPECT(access("-", F_OK) && errno == ENOENT);
	unlink("-");
	unlink(at("../real.save"));
	unlink(at("../link.save"));
	unlink(at("../fifo.save"));
	rm_root();
	return true;
}

/*
 * "rm -r ." removed every subsystem's tree without a word. The root goes
 * only with --all, and a relative path is from the current directory when
 * that is in the tree.
 */
static bool sys_rm_refuses_the_root_without_all(void)
{
	int cwd = open(".", O_RDONLY | O_DIRECTORY);
	char *out;

	mk_root();
	build();
	EXPECT(RUN(&out, "rm", "-r", ".") == CFS_EXIT_USAGE);
	free(out);
	EXPECT(RUN(&out, "rm", "-r", "") == CFS_EXIT_USAGE);
	free(out);
	EXPECT(RUN(&out, "rm", "-r", root) == CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), ": the configfs root: every subsystem's"));
	EXPECT(!access(at("nvmet/ports/1/addr_trtype"), F_OK));
	EXPECT(chdir(at("nvmet/ports")) == 0);
	drop_files("nvmet/ports/1");
	EXPECT(RUN(&out, "rm", "-r", "1") == 0);
	free(out);
	EXPECT(access(at("nvmet/ports/1"), F_OK) && errno == ENOENT);
	EXPECT(!access(at("nvmet/subsystems"), F_OK));
	EXPECT(fchdir(cwd) == 0);
	EXPECT(RUN(&out, "rm", "--all", "nvmet") == CFS_EXIT_USAGE);
	free(out);
	drop_files("");
	EXPECT(RUN(&out, "rm", "--all") == 0);
	free(out);
	EXPECT(access(at("nvmet"), F_OK) && errno == ENOENT);
	close(cwd);
	rm_root();
	return true;
}

/*
 * On a stand-in root a link may point anywhere: restore walked through
 * one in the middle of a path and wrote outside ("set a/out/pwned").
 *
 *   ROOT/a/out -> OUTSIDE (a directory elsewhere, mode 0755)
 */
/*
 * "rm -r ." and "rm -r \"\"" in the tree removed the current subtree,
 * while the man page said they were refused: as POSIX rm, a last
 * component "." or "..", or an empty operand, is refused anywhere.
 */
static bool sys_rm_refuses_dot_dotdot_and_empty_inside_the_tree(void)
{
	static const char *const bad[] = {
		".", "./", "..", "1/.", "1/..", "1/./", "",
	};
	int cwd = open(".", O_RDONLY | O_DIRECTORY);
	char *out;
	size_t i;

	mk_root();
	build();
	EXPECT(chdir(at("nvmet/ports")) == 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT(RUN(&out, "rm", "-r", (char *)bad[i]) == CFS_EXIT_USAGE);
		free(out);
	}
	EXPECT(strstr(ktap_stderr(), "are refused, as by rm(1)"));
	EXPECT(!access(at("nvmet/ports/1/addr_trtype"), F_OK));
	EXPECT(fchdir(cwd) == 0);
	close(cwd);
	rm_root();
	return true;
}

static bool sys_restore_never_follows_a_link_out_of_the_root(void)
{
	static const char text[] = "mkdir a\n"
				   "set a/out/pwned x\n"
				   "mkdir a/out/d\n"
				   "link a/out/l a\n"
				   "chmod a/out 0700\n"
				   "chown a/out/pwned 1:1\n";
	char outside[] = "/tmp/cfs-outside-XXXXXX";
	struct stat sb;
	char *out;
	DIR *dir;
	int nr = 0;

	mk_root();
	EXPECT(mkdtemp(outside) && chmod(outside, 0755) == 0);
	mkdir(at("a"), 0755);
	EXPECT(symlink(outside, at("a/out")) == 0);
	put("../out.save", 0644, text, strlen(text));
	EXPECT(RUN(&out, "restore", (char *)at("../out.save")) ==
	       CFS_EXIT_FAIL);
	free(out);
	EXPECT(strstr(ktap_stderr(), "5 of 6 statements not applied"));
	dir = opendir(outside);
	while (dir && readdir(dir))
		nr++;
	EXPECT(dir && nr == 2);
	if (dir)
		closedir(dir);
	EXPECT(!stat(outside, &sb) && (sb.st_mode & 07777) == 0755);
	EXPECT(!lstat(at("a/out"), &sb) && S_ISLNK(sb.st_mode));
	unlink(at("../out.save"));
	rmdir(outside);
	rm_root();
	return true;
}

static bool sys_save_and_tree_use_a_path_under_the_root(void)
{
	char *out;

	mk_root();
	build();
	EXPECT(RUN(&out, "save", (char *)at("nvmet/ports/1")) == 0);
	EXPECT(strstr(out, "mkdir nvmet/ports/1\n"));
	EXPECT(!strstr(out, "mkdir nvmet/subsystems"));
	free(out);
	EXPECT(RUN(&out, "tree", "nvmet/ports/1/subsystems") == 0);
	EXPECT(strstr(out, "  nqn.2024-01.io:s1 -> nvmet/subsystems/nqn.2024-01.io:s1\n"));
	free(out);
	EXPECT(RUN(&out, "tree", "/elsewhere") == CFS_EXIT_USAGE);
	EXPECT(strstr(ktap_stderr(), "/elsewhere: not under the configfs root"));
	free(out);
	rm_root();
	return true;
}

static bool sys_tree_marks_read_only_write_only_and_binary(void)
{
	char *out;
	char *big;

	mk_root();
	build();
	big = calloc(1, CFS_VALUE_MAX + 1);
	put("nvmet/ports/1/big", 0644, big, CFS_VALUE_MAX + 1);
	free(big);
	EXPECT(RUN(&out, "tree", "nvmet") == 0);
	EXPECT(strstr(out, "      ro = x [read-only]\n"));
	EXPECT(strstr(out, "      wo [write-only]\n"));
	EXPECT(strstr(out, "      bin = \"a\\x00b\"\n"));
	EXPECT(strstr(out, "      big [binary, 65537 bytes]\n"));
	EXPECT(strstr(out, "      secret = s [mode 0600]\n"));
	free(out);
	rm_root();
	return true;
}

/* --json gives its schema's version: {"version":1,"entries":[...]}. */
static bool sys_tree_json_escapes_values(void)
{
	char *out;

	mk_root();
	build();
	put("nvmet/ports/1/latin1", 0644, "\xe9\n", 2);
	EXPECT(RUN(&out, "tree", "--json", "nvmet/ports/1") == 0);
	EXPECT(strstr(out, "{\"path\":\"nvmet/ports/1/note\",\"type\":\"attr\","));
	EXPECT(strstr(out, "\"mode\":\"0644\",\"uid\":0,\"gid\":0,\"access\":\"rw\","));
	EXPECT(strstr(out, "\"value\":\"two words\\n\xc3\xa9\"}"));
	EXPECT(strstr(out, "\"value_hex\":\"e9\""));
	EXPECT(strstr(out, "\"access\":\"wo\""));
	EXPECT(!strncmp(out, "{\"version\":1,\"entries\":[\n{", 26) &&
	       strstr(out, "}\n]}\n"));
	free(out);
	/* Names need not be UTF-8 either: hex, as values. */
	mkdir(at("nvmet/ports/1/\xff"), 0755);
	EXPECT(RUN(&out, "tree", "--json", "nvmet/ports/1") == 0);
	EXPECT(strstr(out, "{\"path_hex\":\"6e766d65742f706f7274732f312fff\",\"type\":\"dir\""));
	EXPECT(!memchr(out, 0xff, strlen(out)));
	free(out);
	rm_root();
	return true;
}

/*
 * Keys and passwords were printed in the clear by tree, diff, restore -n
 * and -v, and restore's messages (the journal, at boot); names and values
 * with terminal control bytes reached the terminal as they were.
 *
 *   ROOT/nvmet/hosts/h1/dhchap_key = KEY
 *   ROOT/target/iscsi/t/tpgt_1/auth/password = PASS
 *   ROOT/x/dhchap_ctrl_key/     (a directory: setting it fails)
 */
static bool sys_secrets_hidden_and_control_bytes_escaped(void)
{
	static const char key[] = "DHHC-1:00:c2VjcmV0a2V5:";
	char *out;
	char *text;

	mk_root();
	mkdir(at("nvmet"), 0755);
	mkdir(at("nvmet/hosts"), 0755);
	mkdir(at("nvmet/hosts/h1"), 0755);
	put_text("nvmet/hosts/h1/dhchap_key", "DHHC-1:00:c2VjcmV0a2V5:\n");
	mkdir(at("target"), 0755);
	mkdir(at("target/iscsi"), 0755);
	mkdir(at("target/iscsi/t"), 0755);
	mkdir(at("target/iscsi/t/tpgt_1"), 0755);
	mkdir(at("target/iscsi/t/tpgt_1/auth"), 0755);
	put_text("target/iscsi/t/tpgt_1/auth/password", "chappass\n");
	put_text("target/iscsi/t/tpgt_1/auth/userid", "chapuser\n");
	mkdir(at("x"), 0755);
	mkdir(at("x/dhchap_ctrl_key"), 0755);
	/* OSC (retitle), BEL, then C1 CSI (U+009B) "2J": clear the screen. */
	put_text("x/title", "\x1b]0;pwned\x07\xc2\x9b\x32J\n");
	EXPECT(RUN(&out, "tree") == 0);
	EXPECT(strstr(out, "dhchap_key = [secret]\n"));
	EXPECT(strstr(out, "password = [secret]\n"));
	EXPECT(strstr(out, "userid = chapuser\n"));
	EXPECT(!strstr(out, key) && !strstr(out, "chappass"));
	EXPECT(!strchr(out, '\x1b') && !strstr(out, "\xc2\x9b"));
	free(out);
	EXPECT(RUN(&out, "tree", "--json") == 0);
	EXPECT(strstr(out, "\"path\":\"nvmet/hosts/h1/dhchap_key\","));
	EXPECT(strstr(out, "\"access\":\"rw\",\"secret\":true}"));
	EXPECT(!strstr(out, key) && !strstr(out, "chappass"));
	EXPECT(!strstr(out, "\xc2\x9b") && strstr(out, "\\u009b"));
	free(out);
	EXPECT(RUN(&out, "tree", "--show-secrets", "nvmet") == 0);
	EXPECT(strstr(out, key));
	free(out);
	cfs_opts.show_secrets = false;
	EXPECT(RUN(&out, "save", "-o", (char *)at("../k.save")) == 0);
	free(out);
	text = get("../k.save");
	EXPECT(text && strstr(text, key) && strstr(text, "chappass"));
	free(text);
	put_text("../n.save", "version 1\n"
		 "set nvmet/hosts/h1/dhchap_key DHHC-1:00:bmV3a2V5:\n"
		 "set target/iscsi/t/tpgt_1/auth/password newpass\n"
		 "set x/dhchap_ctrl_key DHHC-1:00:Y3RybGtleQ==:\n"
		 "end\n");
	EXPECT(RUN(&out, "diff", (char *)at("../n.save")) == CFS_EXIT_FAIL);
	EXPECT(strstr(out, "-set nvmet/hosts/h1/dhchap_key [secret]\n"
			   "+set nvmet/hosts/h1/dhchap_key [secret]\n"));
	EXPECT(!strstr(out, key) && !strstr(out, "bmV3a2V5"));
	EXPECT(!strstr(out, "chappass") && !strstr(out, "newpass"));
	free(out);
	EXPECT(RUN(&out, "restore", "-n", (char *)at("../n.save")) ==
	       CFS_EXIT_FAIL);
	EXPECT(!strstr(out, key) && !strstr(out, "bmV3a2V5") &&
	       !strstr(out, "newpass") && !strstr(out, "Y3RybGtleQ"));
	free(out);
	EXPECT(RUN(&out, "restore", "-v", (char *)at("../n.save")) ==
	       CFS_EXIT_FAIL);
	EXPECT(strstr(out, "set nvmet/hosts/h1/dhchap_key [secret]\n"));
	EXPECT(!strstr(out, "bmV3a2V5") && !strstr(out, "newpass"));
	free(out);
	EXPECT(strstr(ktap_stderr(), "set x/dhchap_ctrl_key [secret]"));
	EXPECT(!strstr(ktap_stderr(), "Y3RybGtleQ"));
	text = get("nvmet/hosts/h1/dhchap_key");
	EXPECT(text && strstr(text, "bmV3a2V5"));
	free(text);
	EXPECT(RUN(&out, "tree", "no\x1b[2Jsuch") == CFS_EXIT_FAIL);
	free(out);
	EXPECT(strstr(ktap_stderr(), "no\\x1b[2Jsuch"));
	EXPECT(!strchr(ktap_stderr(), '\x1b'));
	unlink(at("../k.save"));
	unlink(at("../n.save"));
	rm_root();
	return true;
}

/*
 * Every problem of a file in one run, each with the whole file name and
 * its line: a syntax error and a conflict together.
 */
static bool sys_restore_reports_syntax_errors_and_conflicts_at_once(void)
{
	const char *name =
		"../a-save-file-with-a-name-longer-than-64-bytes-to-see-it-whole.save";
	const char *text = "version 1\nmkdir a\nset a/x \"1\nmkdir a\nend\n";
	char *out;

	mk_root();
	put(name, 0644, text, strlen(text));
	EXPECT(RUN(&out, "restore", (char *)at(name)) == CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), "-to-see-it-whole.save:3: unterminated quote"));
	EXPECT(strstr(ktap_stderr(), "-to-see-it-whole.save:4: a: given twice; first at (line 2)"));
	EXPECT(access(at("a"), F_OK));
	unlink(at(name));
	rm_root();
	return true;
}

static bool sys_restore_if_exists_is_no_error_without_a_file(void)
{
	char *out;

	mk_root();
	EXPECT(RUN(&out, "restore", "--if-exists", (char *)at("../none")) ==
	       0);
	EXPECT_STR(out, "");
	free(out);
	EXPECT_STR(ktap_stderr(), "");
	EXPECT(RUN(&out, "restore", (char *)at("../none")) ==
	       CFS_EXIT_SYSTEM);
	free(out);
	/* A file that is there but bad is an error all the same. */
	put("../bad.save", 0644, "mkdir\n", 6);
	EXPECT(RUN(&out, "restore", "--if-exists", (char *)at("../bad.save"))
	       == CFS_EXIT_USAGE);
	free(out);
	unlink(at("../bad.save"));
	rm_root();
	return true;
}

/*
 * A save records the modules that use configfs, through others too; a
 * restore loads those that are missing before anything else.
 */
/* As depmod writes it: a module's line lists all it needs, not only its own. */
#define MODULES_DEP							\
	"kernel/fs/configfs/configfs.ko.xz:\n"				\
	"kernel/fs/ext4/ext4.ko.xz: kernel/fs/mbcache.ko.xz\n"		\
	"kernel/drivers/nvme/target/nvmet.ko.xz: "			\
	"kernel/fs/configfs/configfs.ko.xz\n"				\
	"kernel/drivers/nvme/target/nvmet-tcp.ko.xz: "			\
	"kernel/drivers/nvme/target/nvmet.ko.xz "			\
	"updates/dkms/configfs.ko\n"					\
	"kernel/drivers/target/target_core_mod.ko: "			\
	"kernel/fs/configfs/configfs.ko\n"				\
	"extra/bad.ko: updates/dkms/configfs.ko\n"

static bool sys_save_records_client_modules_and_restore_loads_them(void)
{
	char *modprobe;
	char *mods;
	char *dep;
	char *out;
	char *text;

	mk_root();
	mkdir(at("zz"), 0755);
	mkdir(at("zz/mods"), 0755);
	mkdir(at("zz/mods/configfs"), 0755);
	mkdir(at("zz/mods/configfs/holders"), 0755);
	mkdir(at("zz/mods/configfs/holders/nvmet"), 0755);
	mkdir(at("zz/mods/nvmet"), 0755);
	mkdir(at("zz/mods/nvmet/holders"), 0755);
	mkdir(at("zz/mods/nvmet/holders/nvmet_tcp"), 0755);
	mkdir(at("zz/mods/nvmet_tcp"), 0755);
	mkdir(at("nvmet"), 0755);
	put("zz/modprobe", 0755, "#!/bin/sh\necho \"$@\" >> \"$0.log\"\n"
	    "[ \"$3\" != bad ]\n", 48);
	put("zz/modules.dep", 0644, MODULES_DEP, strlen(MODULES_DEP));
	/* at() reuses its buffers: copies. */
	mods = strdup(at("zz/mods"));
	modprobe = strdup(at("zz/modprobe"));
	dep = strdup(at("zz/modules.dep"));
	cfs_opts.modules = mods;
	cfs_opts.modprobe = modprobe;
	cfs_opts.modules_dep = dep;
	EXPECT(RUN(&out, "save", "nvmet") == 0);
	EXPECT(strstr(out, "version 1\nmodule nvmet\nmodule nvmet_tcp\n\n"));
	free(out);
	put("../m.save", 0644, "version 1\nmodule nvmet\nmodule nvmet_tcp\n"
	    "mkdir nvmet\nend\n", 56);
	EXPECT(RUN(&out, "diff", (char *)at("../m.save")) == 0);
	free(out);
	/* A name as its file spells it is the module /sys/module lists. */
	put_text("../h.save", "version 1\nmodule nvmet-tcp\nmkdir nvmet\nend\n");
	EXPECT(RUN(&out, "diff", (char *)at("../h.save")) == 0);
	EXPECT_STR(out, "");
	free(out);
	unlink(at("../h.save"));
	rmdir(at("zz/mods/nvmet_tcp"));
	EXPECT(RUN(&out, "diff", (char *)at("../m.save")) == CFS_EXIT_FAIL);
	EXPECT_STR(out, "+module nvmet_tcp\n");
	free(out);
	EXPECT(RUN(&out, "restore", "-v", (char *)at("../m.save")) == 0);
	EXPECT_STR(out, "module nvmet_tcp\n");
	free(out);
	text = get("zz/modprobe.log");
	EXPECT_STR(text, "-q -- nvmet_tcp\n");
	free(text);
	put("../b.save", 0644, "version 1\nmodule bad\nend\n", 25);
	EXPECT(RUN(&out, "restore", (char *)at("../b.save")) == CFS_EXIT_FAIL);
	free(out);
	EXPECT(strstr(ktap_stderr(), "bad: "));
	EXPECT(strstr(ktap_stderr(), "modprobe failed (exit status 1)"));
	cfs_opts.modules = NULL;
	cfs_opts.modprobe = NULL;
	cfs_opts.modules_dep = NULL;
	free(mods);
	free(modprobe);
	free(dep);
	unlink(at("../m.save"));
	unlink(at("../b.save"));
	rm_root();
	return true;
}

/*
 * "module" lines loaded any module, alias or modprobe option: "-c", a
 * name starting with '-', went to modprobe as an option. Only configfs
 * clients are loaded, by a name modules.dep has, after "--"; a file
 * naming a module that does not use configfs is refused whole.
 */
static bool sys_restore_loads_only_configfs_clients_by_name(void)
{
#define LOG_ARGS "#!/bin/sh\necho \"$@\" >> \"$0.log\"\n"
	char *modprobe;
	char *mods;
	char *dep;
	char *out;
	char *text;

	mk_root();
	mkdir(at("zz"), 0755);
	mkdir(at("zz/mods"), 0755);
	put("zz/modprobe", 0755, LOG_ARGS, strlen(LOG_ARGS));
	put("zz/modules.dep", 0644, MODULES_DEP, strlen(MODULES_DEP));
	mods = strdup(at("zz/mods"));
	modprobe = strdup(at("zz/modprobe"));
	dep = strdup(at("zz/modules.dep"));
	cfs_opts.modules = mods;
	cfs_opts.modprobe = modprobe;
	cfs_opts.modules_dep = dep;
	put_text("../o.save", "version 1\nmodule -c\nmkdir a\nend\n");
	EXPECT(RUN(&out, "restore", (char *)at("../o.save")) == CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), "bad module name \"-c\""));
	put_text("../x.save", "version 1\nmodule ext4\nmkdir a\nend\n");
	EXPECT(RUN(&out, "restore", "-n", (char *)at("../x.save")) ==
	       CFS_EXIT_USAGE);
	free(out);
	EXPECT(RUN(&out, "restore", (char *)at("../x.save")) == CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), "ext4: line 2: not a configfs client"));
	EXPECT(access(at("a"), F_OK) && errno == ENOENT);
	put_text("../y.save", "version 1\nmodule nvme-fabrics-alias\n"
	    "module target-core-mod\nmkdir a\nend\n");
	EXPECT(RUN(&out, "restore", (char *)at("../y.save")) == CFS_EXIT_FAIL);
	free(out);
	EXPECT(strstr(ktap_stderr(), "nvme-fabrics-alias: not loaded: no module of that name"));
	EXPECT(!access(at("a"), F_OK));
	text = get("zz/modprobe.log");
	EXPECT_STR(text, "-q -- target-core-mod\n");
	free(text);
	/* configfs built in: no client can be told, none is loaded. */
	put_text("zz/modules.dep", "kernel/drivers/target/target_core_mod.ko:\n");
	rmdir(at("a"));
	EXPECT(RUN(&out, "restore", (char *)at("../y.save")) == CFS_EXIT_FAIL);
	free(out);
	EXPECT(strstr(ktap_stderr(), "target-core-mod: not loaded: configfs is built in"));
	EXPECT(!access(at("a"), F_OK));
	text = get("zz/modprobe.log");
	EXPECT_STR(text, "-q -- target-core-mod\n");
	free(text);
	cfs_opts.modules = NULL;
	cfs_opts.modprobe = NULL;
	cfs_opts.modules_dep = NULL;
	free(mods);
	free(modprobe);
	free(dep);
	unlink(at("../o.save"));
	unlink(at("../x.save"));
	unlink(at("../y.save"));
	rm_root();
	return true;
}

static bool sys_restore_paths_applies_only_those_subtrees(void)
{
	char *out;

	mk_root();
	build();
	EXPECT(RUN(&out, "save", "-o", (char *)at("../p.save")) == 0);
	free(out);
	drop_files("nvmet");
	EXPECT(RUN(&out, "rm", "-r", "nvmet") == 0);
	free(out);
	EXPECT(RUN(&out, "restore", "-n", (char *)at("../p.save"),
		   "nvmet/subsystems") == 0);
	EXPECT(strstr(out, "+mkdir nvmet\n"));
	EXPECT(strstr(out, "+mkdir nvmet/subsystems/nqn.2024-01.io:s1\n"));
	EXPECT(!strstr(out, "ports"));
	free(out);
	EXPECT(RUN(&out, "restore", (char *)at("../p.save"),
		   "nvmet/subsystems") == 0);
	free(out);
	EXPECT(!access(at("nvmet/subsystems/nqn.2024-01.io:s1"), F_OK));
	EXPECT(access(at("nvmet/ports"), F_OK) && errno == ENOENT);
	EXPECT(RUN(&out, "restore", (char *)at("../p.save"), "nvmet/bogus") ==
	       CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), "nvmet/bogus: not in the file"));
	EXPECT(RUN(&out, "restore", (char *)at("../p.save"), "nvmet/ports/1",
		   "nvmet/subsystems") == 0);
	free(out);
	EXPECT(!access(at("nvmet/ports/1/subsystems/nqn.2024-01.io:s1"),
		       F_OK));
	EXPECT(RUN(&out, "diff", (char *)at("../p.save")) == 0);
	free(out);
	unlink(at("../p.save"));
	rm_root();
	return true;
}

static bool sys_tree_and_save_agree_on_a_missing_path(void)
{
	char *out;

	mk_root();
	EXPECT(RUN(&out, "tree", "nope") == CFS_EXIT_FAIL);
	free(out);
	EXPECT(RUN(&out, "save", "nope") == CFS_EXIT_FAIL);
	free(out);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../n.save"), "nope") ==
	       CFS_EXIT_FAIL);
	free(out);
	EXPECT(access(at("../n.save"), F_OK) && errno == ENOENT);
	rm_root();
	return true;
}

static bool sys_restore_exits_2_on_a_bad_file_and_changes_nothing(void)
{
	char *out;

	mk_root();
	put("../bad.save", 0644, "mkdir a\nset a/x \"1\nmkdir b\n", 27);
	EXPECT(RUN(&out, "restore", (char *)at("../bad.save")) ==
	       CFS_EXIT_USAGE);
	EXPECT(strstr(ktap_stderr(), "bad.save:2: unterminated quote"));
	EXPECT(access(at("a"), F_OK) && access(at("b"), F_OK));
	free(out);
	unlink(at("../bad.save"));
	rm_root();
	return true;
}

/*
 * restore -n exited 0 on a file the restore would fail: it exits as the
 * restore would, 2 for a refused file, 1 for a statement it cannot apply.
 */
static bool sys_restore_n_exits_as_the_restore_would(void)
{
	char *out;

	mk_root();
	put("a", 0644, "", 0);
	put("../f.save", 0644, "version 1\nmkdir a\nend\n", 22);
	EXPECT(RUN(&out, "restore", "-n", (char *)at("../f.save")) ==
	       CFS_EXIT_FAIL);
	EXPECT_STR(out, "!mkdir a\n#  ^ exists and is not a directory\n");
	free(out);
	EXPECT(RUN(&out, "restore", (char *)at("../f.save")) == CFS_EXIT_FAIL);
	free(out);
	put("../g.save", 0644, "version 1\nmkdir b\nend\n", 22);
	EXPECT(RUN(&out, "restore", "-n", (char *)at("../g.save")) == 0);
	EXPECT_STR(out, "+mkdir b\n");
	free(out);
	put("../h.save", 0644, "version 1\nmkdir b\nmkdir b\nend\n", 30);
	EXPECT(RUN(&out, "restore", "-n", (char *)at("../h.save")) ==
	       CFS_EXIT_USAGE);
	free(out);
	EXPECT(access(at("b"), F_OK) && errno == ENOENT);
	unlink(at("../f.save"));
	unlink(at("../g.save"));
	unlink(at("../h.save"));
	rm_root();
	return true;
}

static bool sys_diff_exits_1_when_the_tree_differs(void)
{
	char *out;

	mk_root();
	build();
	put("../d.save", 0644, "set nvmet/ports/1/addr_trtype rdma\n", 35);
	EXPECT(RUN(&out, "diff", (char *)at("../d.save")) == CFS_EXIT_FAIL);
	EXPECT_STR(out, "-set nvmet/ports/1/addr_trtype tcp\n"
		   "+set nvmet/ports/1/addr_trtype rdma\n");
	free(out);
	EXPECT(RUN(&out, "restore", "-n", (char *)at("../d.save")) == 0);
	free(out);
	free(out = get("nvmet/ports/1/addr_trtype"));
	EXPECT(RUN(&out, "restore", (char *)at("../d.save")) == 0);
	free(out);
	out = get("nvmet/ports/1/addr_trtype");
	EXPECT_STR(out, "rdma");
	free(out);
	unlink(at("../d.save"));
	rm_root();
	return true;
}

/*
 * A HID report descriptor or a UVC GUID holds any byte; a binary
 * attribute may be longer than a page. Both come back byte for byte,
 * their last newline included.
 */
static bool sys_save_restore_keeps_nul_bytes_and_binary_values(void)
{
	static const char desc[] = "\x05\x01\x09\x06\xa1\x00\x0a";
	static const char want[] =
		"set g/report_desc \"\\x05\\x01\\t\\x06\\xa1\\x00\\n\\x00\"\n";
	char *big = malloc(10000);
	char *first;
	char *out;
	size_t len;

	mk_root();
	memset(big, 'x', 10000);
	big[9999] = '\n';
	mkdir(at("g"), 0755);
	put("g/report_desc", 0644, desc, sizeof(desc));
	put("g/table", 0644, big, 10000);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../b.save")) == 0);
	free(out);
	first = get("../b.save");
	EXPECT(first && strstr(first, want));
	EXPECT(first && !strstr(first, "not saved"));
	drop_files("g");
	EXPECT(RUN(&out, "rm", "-r", "g") == 0);
	free(out);
	EXPECT(RUN(&out, "restore", (char *)at("../b.save")) == 0);
	free(out);
	EXPECT(!read_whole_file(at("g/report_desc"), &out, &len));
	EXPECT(len == sizeof(desc) && !memcmp(out, desc, len));
	free(out);
	EXPECT(!read_whole_file(at("g/table"), &out, &len));
	EXPECT(len == 10000 && !memcmp(out, big, len));
	free(out);
	EXPECT(RUN(&out, "diff", (char *)at("../b.save")) == 0);
	EXPECT_STR(out, "");
	free(out);
	free(first);
	free(big);
	unlink(at("../b.save"));
	rm_root();
	return true;
}

static bool sys_diff_is_two_sided_and_restore_prune_removes_extras(void)
{
	char *out;

	mk_root();
	build();
	EXPECT(RUN(&out, "save", "-o", (char *)at("../p.save")) == 0);
	free(out);
	/* After the save: an item, a subsystem, a link, a link moved. */
	mkdir(at("nvmet/ports/2"), 0755);
	mkdir(at("nvmet/subsystems/s2"), 0755);
	mkdir(at("other"), 0755);
	mkdir(at("other/x"), 0755);
	EXPECT(!unlink(at("nvmet/ports/1/subsystems/nqn.2024-01.io:s1")));
	EXPECT(!symlink("../../../subsystems/s2",
			at("nvmet/ports/1/subsystems/nqn.2024-01.io:s1")));
	EXPECT(!symlink("../../../subsystems/s2",
			at("nvmet/ports/1/subsystems/s2")));
	EXPECT(RUN(&out, "diff", (char *)at("../p.save")) == CFS_EXIT_FAIL);
	EXPECT(strstr(out, "!" S1_LINK));
	EXPECT(strstr(out, "-mkdir nvmet/ports/2\n"));
	EXPECT(strstr(out, "-mkdir nvmet/subsystems/s2\n"));
	EXPECT(strstr(out, "-link nvmet/ports/1/subsystems/s2 nvmet/subsystems/s2\n"));
	EXPECT(!strstr(out, "other"));
	free(out);
	EXPECT(RUN(&out, "diff", (char *)at("../p.save"), "nvmet/ports/2") ==
	       CFS_EXIT_FAIL);
	EXPECT_STR(out, "-mkdir nvmet/ports/2\n");
	free(out);
	EXPECT(RUN(&out, "restore", "-n", "--prune", (char *)at("../p.save")) ==
	       0);
	EXPECT(strstr(out, "-mkdir nvmet/ports/2\n"));
	free(out);
	EXPECT(!access(at("nvmet/ports/2"), F_OK));
	EXPECT(RUN(&out, "restore", (char *)at("../p.save")) == CFS_EXIT_FAIL);
	free(out);
	EXPECT(!access(at("nvmet/ports/2"), F_OK));
	EXPECT(RUN(&out, "restore", "--prune", "-v", (char *)at("../p.save")) ==
	       0);
	EXPECT(strstr(out, "rmdir nvmet/ports/2\n"));
	EXPECT(strstr(out, S1_LINK));
	free(out);
	EXPECT(access(at("nvmet/ports/2"), F_OK) && errno == ENOENT);
	EXPECT(access(at("nvmet/subsystems/s2"), F_OK) && errno == ENOENT);
	EXPECT(!access(at("other/x"), F_OK));
	EXPECT(RUN(&out, "diff", (char *)at("../p.save")) == 0);
	EXPECT_STR(out, "");
	free(out);
	unlink(at("../p.save"));
	rm_root();
	return true;
}

static bool sys_restore_writes_the_value_as_saved(void)
{
	struct script s = { 0 };
	struct plan p;
	struct fs fs;
	const char *text = "set v \"a\\n\"\nset e \"\"\nset w x\n";
	char *got;

	mk_root();
	put("v", 0644, "", 0);
	put("e", 0644, "z\n", 2);
	EXPECT(fs_open_sys(&fs, root, true) == 0);
	EXPECT(format_parse(&s, "f", text, strlen(text)) == 0);
	EXPECT(plan_build(&p, &s, "f") == 0);
	EXPECT(apply_plan(&p, &fs, "f", 0) == 0);
	got = get("v");
	EXPECT_STR(got, "a\n");
	free(got);
	got = get("e");
	EXPECT_STR(got, "\n");
	free(got);
	plan_free(&p);
	script_free(&s);
	fs_close(&fs);
	rm_root();
	return true;
}

static bool sys_zero_byte_write_is_an_error_not_a_loop(void)
{
	struct fs fs;

	mk_root();
	put("a", 0644, "1\n", 2);
	EXPECT(fs_open_sys(&fs, root, true) == 0);
	zero_writes = true;
	EXPECT(fs_write_value(&fs, "a", "", 0) == -CFS_EZEROWRITE);
	zero_writes = false;
	fs_close(&fs);
	rm_root();
	return true;
}

/*
 * Any directory counted as a stand-in: $CONFIGFS_ROOT at a home directory
 * made "rm --all" delete a user's documents; the root, looked up by path
 * on every call, could be swapped for a link mid-run (a file outside it
 * went); restore made setuid files. A stand-in needs -R, is held by one
 * descriptor, takes no set-id bit, and rm removes none of its files.
 *
 *   ROOT/docs/letter        a regular file
 *   ROOT/d/                 an empty directory
 *   OUTSIDE/d/              what ROOT's path leads to after the swap
 */
static bool sys_stand_in_root_only_with_R_and_held_by_one_fd(void)
{
	char outside[] = "/tmp/cfs-outside-XXXXXX";
	char moved[80];
	char path[160];
	struct fs fs;
	char *out;

	mk_root();
	mkdir(at("docs"), 0755);
	put_text("docs/letter", "dear\n");
	mkdir(at("d"), 0755);
	cfs_opts.root = NULL;
	setenv("CONFIGFS_ROOT", root, 1);
	EXPECT(RUN(&out, "rm", "--all") == CFS_EXIT_SYSTEM);
	free(out);
	EXPECT(strstr(ktap_stderr(), "not a configfs mount"));
	EXPECT(RUN(&out, "tree") == CFS_EXIT_SYSTEM);
	free(out);
	unsetenv("CONFIGFS_ROOT");
	cfs_opts.root = root;
	EXPECT(RUN(&out, "rm", "--all") == CFS_EXIT_FAIL);
	free(out);
	EXPECT(strstr(ktap_stderr(),
		      "docs: holds files: a stand-in root's files are never"));
	EXPECT(!access(at("docs/letter"), F_OK));
	EXPECT(RUN(&out, "rm", "docs/letter") == CFS_EXIT_FAIL);
	free(out);
	EXPECT(!access(at("docs/letter"), F_OK));
	put_text("../s.save", "version 1\nset docs/letter x\n"
		 "chmod docs/letter 4755\nchmod docs 2755\nend\n");
	EXPECT(RUN(&out, "restore", (char *)at("../s.save")) == CFS_EXIT_FAIL);
	free(out);
	EXPECT(mode_of("docs/letter") == 0644 && mode_of("docs") == 0755);
	unlink(at("../s.save"));
	EXPECT(fs_open_sys(&fs, root, true) == 0);
	EXPECT(fs_unlink(&fs, "docs/letter") == -EPERM);
	EXPECT(mkdtemp(outside));
	snprintf(path, sizeof(path), "%s/d", outside);
	EXPECT(mkdir(path, 0755) == 0);
	snprintf(moved, sizeof(moved), "%s.moved", root);
	EXPECT(rename(root, moved) == 0 && symlink(outside, root) == 0);
	EXPECT(fs_rmdir(&fs, "d") == 0);
	EXPECT(!access(path, F_OK));
	fs_close(&fs);
	EXPECT(unlink(root) == 0 && rename(moved, root) == 0);
	EXPECT(access(at("d"), F_OK) && errno == ENOENT);
	rmdir(path);
	rmdir(outside);
	rm_root();
	return true;
}

/*
 * LIO's write-only control was lost on save: the user had to add it by
 * hand. As rtslib, save rebuilds it from the backstore's info.
 *
 *   ROOT/target/core/HBA/DEV/{control (0200), info (0444), enable}
 */
static void lio_backstore(const char *dev, const char *info)
{
	char path[160];

	snprintf(path, sizeof(path), "target/core/%s", dev);
	*strchr(path + 12, '/') = '\0';
	mkdir(at(path), 0755);
	snprintf(path, sizeof(path), "target/core/%s", dev);
	mkdir(at(path), 0755);
	snprintf(path, sizeof(path), "target/core/%s/control", dev);
	put(path, 0200, "", 0);
	snprintf(path, sizeof(path), "target/core/%s/info", dev);
	put(path, 0444, info, strlen(info));
	snprintf(path, sizeof(path), "target/core/%s/enable", dev);
	put_text(path, "1\n");
}

#define FD_INFO(id, file, size, mode, async)				\
	"        TCM FILEIO ID: " id "        File: " file "  Size: " size \
	"  Mode: " mode " Async: " async "\n"
#define LIO_CTL(dev)	"set target/core/" dev "/control "
#define LIO_REBUILT	"# write-only, rebuilt from info: target/core/"
#define LIO_NOT_SAVED	"# write-only, not saved: target/core/"
#define RD_INFO	"        PAGES/PAGE_SIZE: 256*4096  SG_table_count: 1  nullio: 1 dummy: 0\n"
#define FD0_CTL	"\"fd_dev_name=/tmp/a disk,fd_dev_size=1048576\"\n"
#define FD1_CTL	"fd_dev_name=/tmp/wb,fd_dev_size=4096,fd_buffered_io=1,fd_async_io=1\n"

static bool sys_save_rebuilds_lio_control_from_info(void)
{
	char *out;

	mk_root();
	mkdir(at("target"), 0755);
	mkdir(at("target/core"), 0755);
	lio_backstore("fileio_0/disk", "Status: ACTIVATED  Max Queue Depth: 128\n"
		      FD_INFO("0", "/tmp/a disk", "1048576", "O_DSYNC", "0"));
	lio_backstore("fileio_1/wb",
		      FD_INFO("1", "/tmp/wb", "4096", "Buffered-WCE", "1"));
	lio_backstore("fileio_2/comma",
		      FD_INFO("2", "/tmp/a,b", "4096", "O_DSYNC", "0"));
	lio_backstore("iblock_0/blk", "Status: ACTIVATED\n"
		      "iBlock device: loop0  UDEV PATH: /dev/loop0  readonly: 1\n"
		      "        Major: 7 Minor: 0  CLAIMED: IBLOCK\n");
	lio_backstore("rd_mcp_0/rd", "        TCM RamDisk ID: 0\n" RD_INFO);
	lio_backstore("pscsi_0/p", "Status: ACTIVATED\n");
	EXPECT(RUN(&out, "save", "target") == 0);
	EXPECT(strstr(out, LIO_REBUILT "fileio_0/disk/control\n"
		      LIO_CTL("fileio_0/disk") FD0_CTL));
	EXPECT(strstr(out, LIO_CTL("fileio_1/wb") FD1_CTL));
	EXPECT(strstr(out, LIO_NOT_SAVED "fileio_2/comma/control"));
	EXPECT(strstr(out, LIO_CTL("iblock_0/blk") "udev_path=/dev/loop0,readonly=1\n"));
	EXPECT(strstr(out, LIO_CTL("rd_mcp_0/rd") "rd_pages=256,rd_nullio=1\n"));
	EXPECT(strstr(out, LIO_NOT_SAVED "pscsi_0/p/control"));
	free(out);
	put_text("../k.save", "version 1\n"
		 LIO_CTL("iblock_0/blk") "udev_path=/dev/sdz\nend\n");
	EXPECT(RUN(&out, "save", "-k", (char *)at("../k.save"), "target") == 0);
	EXPECT(strstr(out, LIO_CTL("iblock_0/blk") "udev_path=/dev/sdz\n"));
	free(out);
	unlink(at("../k.save"));
	rm_root();
	return true;
}

/*
 * A backstore that is there but not enabled (made by hand, or left by a
 * restore that stopped half way) takes its control from the file: a
 * write-only value is written where the directory's switch still reads
 * off, and left alone where it reads on.
 */
static bool sys_restore_writes_control_of_a_backstore_not_enabled(void)
{
	char *out;
	char *ctl;

	mk_root();
	mkdir(at("target"), 0755);
	mkdir(at("target/core"), 0755);
	lio_backstore("rd_mcp_0/off", "        TCM RamDisk ID: 0\n" RD_INFO);
	put_text("target/core/rd_mcp_0/off/enable", "0\n");
	lio_backstore("rd_mcp_0/on", "        TCM RamDisk ID: 1\n" RD_INFO);
	put_text("../c.save", "version 1\n"
		 LIO_CTL("rd_mcp_0/off") "rd_pages=256\n"
		 "set target/core/rd_mcp_0/off/enable 1\n"
		 LIO_CTL("rd_mcp_0/on") "rd_pages=512\n"
		 "set target/core/rd_mcp_0/on/enable 1\n"
		 "end\n");
	EXPECT(RUN(&out, "restore", "-v", (char *)at("../c.save")) == 0);
	EXPECT(strstr(out, "# write-only, left alone: " LIO_CTL("rd_mcp_0/on")));
	free(out);
	ctl = get("target/core/rd_mcp_0/off/control");
	EXPECT(ctl && !strcmp(ctl, "rd_pages=256"));
	free(ctl);
	ctl = get("target/core/rd_mcp_0/off/enable");
	EXPECT(ctl && !strcmp(ctl, "1"));
	free(ctl);
	ctl = get("target/core/rd_mcp_0/on/control");
	EXPECT(ctl && !strcmp(ctl, ""));
	free(ctl);
	unlink(at("../c.save"));
	rm_root();
	return true;
}

/*
 * A file that makes and enables a backstore with no control for it (as
 * configfs-ng 0.1.0 saved them) is told what mends it; a backstore the
 * file gives control, or one already there, is not mentioned.
 */
static bool sys_restore_says_a_new_backstore_lacks_control(void)
{
	char *out;

	mk_root();
	mkdir(at("target"), 0755);
	mkdir(at("target/core"), 0755);
	mkdir(at("target/core/rd_mcp_0"), 0755);
	lio_backstore("rd_mcp_0/there", "        TCM RamDisk ID: 1\n" RD_INFO);
	put_text("../n.save", "version 1\n"
		 "mkdir target/core/rd_mcp_0/old\n"
		 LIO_NOT_SAVED "rd_mcp_0/old/control (add: set PATH VALUE)\n"
		 "set target/core/rd_mcp_0/old/enable 1\n"
		 "mkdir target/core/rd_mcp_0/new\n"
		 LIO_CTL("rd_mcp_0/new") "rd_pages=256\n"
		 "set target/core/rd_mcp_0/new/enable 1\n"
		 "set target/core/rd_mcp_0/there/enable 1\n"
		 "end\n");
	EXPECT(RUN(&out, "restore", (char *)at("../n.save")) == 0);
	free(out);
	EXPECT(strstr(ktap_stderr(),
		      "rd_mcp_0/old: the file sets no control for this backstore"));
	EXPECT(strstr(ktap_stderr(),
		      "add \"set target/core/rd_mcp_0/old/control VALUE\""));
	EXPECT(!strstr(ktap_stderr(), "rd_mcp_0/new:"));
	EXPECT(!strstr(ktap_stderr(), "rd_mcp_0/there:"));
	unlink(at("../n.save"));
	rm_root();
	return true;
}

static bool sys_default_root_must_be_configfs(void)
{
	struct fs fs;

	mk_root();
	EXPECT(fs_open_sys(&fs, root, false) == -ENODEV);
	EXPECT(strstr(ktap_stderr(), "not a configfs mount"));
	rm_root();
	return true;
}

static bool sys_saves_ten_thousand_entries_in_seconds(void)
{
	struct timespec t0;
	struct timespec t1;
	char path[64];
	char *out;
	int i;

	mk_root();
	mkdir(at("s"), 0755);
	for (i = 0; i < 2500; i++) {
		snprintf(path, sizeof(path), "s/i%04d", i);
		mkdir(at(path), 0755);
		snprintf(path, sizeof(path), "s/i%04d/a", i);
		put(path, 0644, "1\n", 2);
		snprintf(path, sizeof(path), "s/i%04d/b", i);
		put(path, 0644, "2\n", 2);
		snprintf(path, sizeof(path), "s/i%04d/c", i);
		put(path, 0444, "3\n", 2);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../big.save")) == 0);
	free(out);
	EXPECT(RUN(&out, "restore", (char *)at("../big.save")) == 0);
	free(out);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT(t1.tv_sec - t0.tv_sec < 10);
	unlink(at("../big.save"));
	rm_root();
	return true;
}

/*
 * On a file system with user xattrs, a record set by hand is printed; on
 * one without (tmpfs before 6.6), why says that there are no records.
 */
static bool sys_why_reads_the_record_xattr(void)
{
	const char *rec = "T uid=0 pid=1 write rw '1\\n': -EINVAL\n"
			  "reason: \x01\n";
	char *out;

	mk_root();
	mkdir(at("i"), 0755);
	mkdir(at("j"), 0755);
	if (setxattr(at("i"), CFS_RECORD_XATTR, rec, strlen(rec) + 1, 0)) {
		EXPECT(errno == EOPNOTSUPP);
		EXPECT(RUN(&out, "why", "i") == CFS_EXIT_NO_RECORDS);
		EXPECT(strstr(ktap_stderr(), "configfs: i: this configfs keeps no error records"));
		free(out);
		rm_root();
		return true;
	}
	EXPECT(RUN(&out, "why", "i") == 0);
	EXPECT_STR(out, "T uid=0 pid=1 write rw '1\\n': -EINVAL\n"
		   "reason: \\x01\n");
	free(out);
	EXPECT(RUN(&out, "why", (char *)at("i")) == 0);
	EXPECT(strstr(out, "reason: \\x01\n"));
	free(out);
	EXPECT(RUN(&out, "why", "j") == CFS_EXIT_FAIL);
	EXPECT_STR(out, "j: no error recorded\n");
	free(out);
	rm_root();
	return true;
}

/*
 * A committable group as configfs shows one: pending/ and live/, no
 * attributes in them; item x committed, y pending, and links inside x,
 * out of x and into x.
 *
 *   grp/attr  grp/pending/y/  grp/live/x/{a, child/c, self -> child,
 *   tl -> other/t}  other/t/  other/links/x -> grp/live/x
 */
static void build_committable(void)
{
	mkdir(at("grp"), 0755);
	mkdir(at("grp/pending"), 0755);
	mkdir(at("grp/pending/y"), 0755);
	mkdir(at("grp/live"), 0755);
	mkdir(at("grp/live/x"), 0755);
	mkdir(at("grp/live/x/child"), 0755);
	mkdir(at("other"), 0755);
	mkdir(at("other/t"), 0755);
	mkdir(at("other/links"), 0755);
	put("grp/attr", 0644, "1\n", 2);
	put("grp/live/x/a", 0644, "5\n", 2);
	put("grp/live/x/child/c", 0644, "hi\n", 3);
	if (symlink("child", at("grp/live/x/self")) ||
	    symlink("../../../other/t", at("grp/live/x/tl")) ||
	    symlink("../../grp/live/x", at("other/links/x")))
		abort();
}

/* Is @a in @text, before @b? */
static bool before(const char *text, const char *a, const char *b)
{
	const char *pa = strstr(text, a);
	const char *pb = strstr(text, b);

	return pa && pb && pa < pb;
}

static bool sys_commit_restore_configures_in_pending_and_commits_last(void)
{
	char *out;
	char *first;
	char *second;
	char link[64] = "";

	mk_root();
	build_committable();
	EXPECT(RUN(&out, "save", "-o", (char *)at("../c1.save")) == 0);
	free(out);
	first = get("../c1.save");
	EXPECT(first && strstr(first, "mkdir grp/live/x\nset grp/live/x/a 5\n"));
	drop_files("grp");
	EXPECT(RUN(&out, "rm", "-r", "-v", "grp", "other") == 0);
	EXPECT(before(out, "unlink other/links/x\n", "uncommit grp/live/x\n"));
	EXPECT(before(out, "uncommit grp/live/x\n", "rmdir grp/pending/x\n"));
	EXPECT(before(out, "rmdir grp/pending/x\n", "rmdir grp/pending\n"));
	free(out);
	EXPECT(access(at("grp"), F_OK) && errno == ENOENT);
	EXPECT(RUN(&out, "restore", "-n", (char *)at("../c1.save")) == 0);
	EXPECT(before(out, "+link other/links/x grp/live/x\n",
		      "+commit grp/live/x\n"));
	free(out);
	EXPECT(RUN(&out, "restore", "-v", (char *)at("../c1.save")) == 0);
	EXPECT(before(out, "mkdir grp/pending\n", "mkdir grp/pending/x\n"));
	EXPECT(before(out, "mkdir grp/pending/x\n",
		      "set grp/pending/x/a 5\n"));
	EXPECT(before(out, "set grp/pending/x/child/c hi\n",
		      "commit grp/live/x\n"));
	EXPECT(before(out, "link grp/pending/x/self grp/pending/x/child\n",
		      "commit grp/live/x\n"));
	EXPECT(before(out, "link grp/pending/x/tl other/t\n",
		      "commit grp/live/x\n"));
	EXPECT(before(out, "commit grp/live/x\n",
		      "link other/links/x grp/live/x\n"));
	EXPECT(!strstr(out, "mkdir grp/live/x\n"));
	free(out);
	EXPECT(readlink(at("grp/live/x/self"), link, sizeof(link) - 1) == 5);
	EXPECT_STR(link, "child");
	EXPECT(access(at("grp/pending/x"), F_OK) && errno == ENOENT);
	EXPECT(RUN(&out, "save", "-o", (char *)at("../c2.save")) == 0);
	free(out);
	second = get("../c2.save");
	EXPECT(first && second);
	if (first && second)
		EXPECT_STR(second, first);
	EXPECT(RUN(&out, "diff", (char *)at("../c1.save")) == 0);
	EXPECT_STR(out, "");
	free(out);
	free(first);
	free(second);
	unlink(at("../c1.save"));
	unlink(at("../c2.save"));
	rm_root();
	return true;
}

static bool sys_commit_waits_until_the_item_is_configured_whole(void)
{
	char *out;

	mk_root();
	put("../c.save", 0644,
	    "mkdir grp\nmkdir grp/pending\nmkdir grp/live\n"
	    "mkdir grp/live/x\nset grp/live/x/a 5\nset grp/live/x/b 6\n", 98);
	mkdir(at("grp"), 0755);
	mkdir(at("grp/pending"), 0755);
	mkdir(at("grp/live"), 0755);
	mkdir(at("grp/pending/x"), 0755);
	/* Not an attribute: the write fails, so x must stay pending. */
	mkdir(at("grp/pending/x/a"), 0755);
	EXPECT(RUN(&out, "restore", (char *)at("../c.save")) ==
	       CFS_EXIT_FAIL);
	free(out);
	EXPECT(strstr(ktap_stderr(), "grp/live/x/a: not applied"));
	EXPECT(strstr(ktap_stderr(), "grp/live/x: not committed"));
	EXPECT(access(at("grp/live/x"), F_OK) && errno == ENOENT);
	out = get("grp/pending/x/b");
	EXPECT_STR(out, "6");
	free(out);
	/* pending/x is the item to commit, not one that --prune removes. */
	EXPECT(RUN(&out, "diff", (char *)at("../c.save")) == CFS_EXIT_FAIL);
	EXPECT(strstr(out, "+commit grp/live/x\n"));
	EXPECT(!strstr(out, "-mkdir"));
	free(out);
	unlink(at("../c.save"));
	rm_root();
	return true;
}

static bool sys_commit_refuses_a_name_both_pending_and_live(void)
{
	char *out;

	mk_root();
	put("../c.save", 0644,
	    "mkdir grp\nmkdir grp/pending\nmkdir grp/live\n"
	    "mkdir grp/live/x\nmkdir grp/pending/x\n", 80);
	EXPECT(RUN(&out, "restore", (char *)at("../c.save")) ==
	       CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), "c.save:4: grp/live/x: live, but also pending"));
	EXPECT(access(at("grp"), F_OK) && errno == ENOENT);
	unlink(at("../c.save"));
	rm_root();
	return true;
}

static bool sys_rm_uncommits_a_live_item_and_recommits_on_refusal(void)
{
	char *out;

	mk_root();
	build_committable();
	/* Not empty: rmdir refuses, and x goes back to live/. */
	EXPECT(RUN(&out, "rm", "-v", "grp/live/x") == CFS_EXIT_FAIL);
	EXPECT_STR(out, "uncommit grp/live/x\ncommit grp/live/x\n");
	free(out);
	EXPECT(!access(at("grp/live/x/child/c"), F_OK));
	EXPECT(access(at("grp/pending/x"), F_OK) && errno == ENOENT);
	drop_files("grp/live/x");
	EXPECT(RUN(&out, "rm", "-r", "grp/live/x") == 0);
	free(out);
	EXPECT(access(at("grp/live/x"), F_OK) && errno == ENOENT);
	EXPECT(access(at("grp/pending/x"), F_OK) && errno == ENOENT);
	EXPECT(access(at("other/links/x"), F_OK) && errno == ENOENT);
	EXPECT(!access(at("grp/pending/y"), F_OK));
	rm_root();
	return true;
}

/* A partial restore of a link into a live item that is there already. */
static bool sys_restore_paths_link_into_a_live_item_left_out(void)
{
	char *out;

	mk_root();
	build_committable();
	EXPECT(RUN(&out, "save", "-o", (char *)at("../c.save")) == 0);
	free(out);
	EXPECT(!unlink(at("other/links/x")));
	EXPECT(RUN(&out, "restore", (char *)at("../c.save"), "other") == 0);
	free(out);
	EXPECT(!access(at("other/links/x/a"), F_OK));
	unlink(at("../c.save"));
	rm_root();
	return true;
}

int cfs_main(int argc, char **argv);

/* The program's own main(), as the shell runs it; returns its status. */
static int run_main(char **out, int argc, char **argv)
{
	FILE *cap = tmpfile();
	int saved = dup(1);
	size_t len;
	int ret;

	fflush(stdout);
	dup2(fileno(cap), 1);
	optind = 0;
	ret = cfs_main(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	cfs_opts.prog = "configfs";
	len = ftell(cap);
	*out = calloc(1, len + 1);
	rewind(cap);
	if (fread(*out, 1, len, cap) != len)
		abort();
	fclose(cap);
	return ret;
}

#define MAIN(out, ...)							\
	run_main(out, sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *),	\
		 (char *[]){ __VA_ARGS__, NULL })

static bool cli_help_cmd_and_the_program_name(void)
{
	char *out;

	EXPECT(MAIN(&out, "/usr/sbin/configfs", "help", "save") == 0);
	EXPECT(!strncmp(out, "usage: configfs save [-o FILE]", 30));
	free(out);
	EXPECT(MAIN(&out, "configfs", "help", "bogus") == CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), "configfs: bogus: unknown command; see configfs --help"));
	EXPECT(MAIN(&out, "/opt/bin/cfs", "rm", "--help") == 0);
	EXPECT(strstr(out, "usage: cfs rm [-r] [-v] PATH...\n       cfs rm --all"));
	free(out);
	EXPECT(MAIN(&out, "/opt/bin/cfs", "bogus") == CFS_EXIT_USAGE);
	free(out);
	EXPECT(strstr(ktap_stderr(), "cfs: bogus: unknown command; see cfs --help"));
	return true;
}

static bool cli_help_and_usage_exit_codes(void)
{
	char *out;

	EXPECT(RUN(&out, "save", "--help") == 0);
	EXPECT(strstr(out, "usage: configfs save"));
	free(out);
	EXPECT(RUN(&out, "restore") == CFS_EXIT_USAGE);
	free(out);
	EXPECT(RUN(&out, "diff", "--bogus", "x") == CFS_EXIT_USAGE);
	free(out);
	EXPECT(RUN(&out, "why") == CFS_EXIT_USAGE);
	free(out);
	EXPECT(RUN(&out, "why", "a", "b") == CFS_EXIT_USAGE);
	free(out);
	EXPECT(RUN(&out, "why", "--help") == 0);
	EXPECT(strstr(out, "usage: configfs why PATH\n"));
	free(out);
	EXPECT(RUN(&out, "restore", "/nonexistent/file") == CFS_EXIT_SYSTEM);
	EXPECT(strstr(ktap_stderr(), "configfs: /nonexistent/file: No such file or directory"));
	free(out);
	return true;
}

const struct ktap_case sys_cases[] = {
	KTAP_CASE(sys_save_rm_restore_save_gives_the_same_file),
	KTAP_CASE(sys_save_o_writes_0600_and_refuses_another_users_file),
	KTAP_CASE(sys_save_o_refuses_a_link_or_a_non_regular_file),
	KTAP_CASE(sys_rm_refuses_the_root_without_all),
	KTAP_CASE(sys_rm_refuses_dot_dotdot_and_empty_inside_the_tree),
	KTAP_CASE(sys_restore_never_follows_a_link_out_of_the_root),
	KTAP_CASE(sys_save_and_tree_use_a_path_under_the_root),
	KTAP_CASE(sys_tree_marks_read_only_write_only_and_binary),
	KTAP_CASE(sys_tree_json_escapes_values),
	KTAP_CASE(sys_secrets_hidden_and_control_bytes_escaped),
	KTAP_CASE(sys_restore_exits_2_on_a_bad_file_and_changes_nothing),
	KTAP_CASE(sys_restore_reports_syntax_errors_and_conflicts_at_once),
	KTAP_CASE(sys_tree_and_save_agree_on_a_missing_path),
	KTAP_CASE(sys_restore_if_exists_is_no_error_without_a_file),
	KTAP_CASE(sys_restore_paths_applies_only_those_subtrees),
	KTAP_CASE(sys_save_records_client_modules_and_restore_loads_them),
	KTAP_CASE(sys_restore_loads_only_configfs_clients_by_name),
	KTAP_CASE(sys_restore_n_exits_as_the_restore_would),
	KTAP_CASE(sys_diff_exits_1_when_the_tree_differs),
	KTAP_CASE(sys_save_restore_keeps_nul_bytes_and_binary_values),
	KTAP_CASE(sys_diff_is_two_sided_and_restore_prune_removes_extras),
	KTAP_CASE(sys_restore_writes_the_value_as_saved),
	KTAP_CASE(sys_zero_byte_write_is_an_error_not_a_loop),
	KTAP_CASE(sys_save_rebuilds_lio_control_from_info),
	KTAP_CASE(sys_restore_writes_control_of_a_backstore_not_enabled),
	KTAP_CASE(sys_restore_says_a_new_backstore_lacks_control),
	KTAP_CASE(sys_default_root_must_be_configfs),
	KTAP_CASE(sys_stand_in_root_only_with_R_and_held_by_one_fd),
	KTAP_CASE(sys_saves_ten_thousand_entries_in_seconds),
	KTAP_CASE(sys_why_reads_the_record_xattr),
	KTAP_CASE(sys_commit_restore_configures_in_pending_and_commits_last),
	KTAP_CASE(sys_commit_waits_until_the_item_is_configured_whole),
	KTAP_CASE(sys_commit_refuses_a_name_both_pending_and_live),
	KTAP_CASE(sys_rm_uncommits_a_live_item_and_recommits_on_refusal),
	KTAP_CASE(sys_restore_paths_link_into_a_live_item_left_out),
	KTAP_CASE(cli_help_and_usage_exit_codes),
	KTAP_CASE(cli_help_cmd_and_the_program_name),
};

const size_t nr_sys_cases = ARRAY_SIZE(sys_cases);
