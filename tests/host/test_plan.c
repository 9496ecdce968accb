// SPDX-License-Identifier: GPL-2.0
/*
 * The restore planner: the order it first tries statements in, and the
 * conflicts it refuses.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "configfs.h"
#include "host.h"

static const char *const kind_names[] = {
	[STMT_MKDIR] = "mkdir", [STMT_SET] = "set", [STMT_LINK] = "link",
	[STMT_CHMOD] = "chmod", [STMT_CHOWN] = "chown",
};

/* The plan's order as "kind path" lines, or NULL when it was refused. */
static char *order(const char *text, int *nr_bad)
{
	struct script s = { 0 };
	char *out = NULL;
	size_t len = 0;
	struct plan p;
	FILE *f;
	size_t i;

	if (format_parse(&s, "f", text, strlen(text))) {
		script_free(&s);
		return NULL;
	}
	*nr_bad = plan_build(&p, &s, "f");
	if (!*nr_bad) {
		f = open_memstream(&out, &len);
		for (i = 0; i < p.nr_ops; i++)
			fprintf(f, "%s %s\n", kind_names[p.ops[i]->st->kind],
				p.ops[i]->st->path);
		fclose(f);
	}
	plan_free(&p);
	script_free(&s);
	return out;
}

static bool plan_makes_parents_before_children(void)
{
	int bad;
	char *o = order("mkdir a/b/c\nmkdir a\nmkdir a/b\nmkdir a/a\n", &bad);

	EXPECT_STR(o, "mkdir a\nmkdir a/a\nmkdir a/b\nmkdir a/b/c\n");
	free(o);
	return true;
}

static bool plan_writes_subdirectories_before_their_parent(void)
{
	int bad;
	char *o = order("mkdir g\nset g/UDC x\nset g/id 1\nmkdir g/f\n"
			"set g/f/addr y\n", &bad);

	EXPECT_STR(o, "mkdir g\nmkdir g/f\nset g/f/addr\nset g/UDC\n"
		      "set g/id\n");
	free(o);
	return true;
}

/* A LIO backstore: control, enable, then attrib/ (LIO oopses otherwise). */
static bool plan_writes_a_lio_backstores_own_attributes_first(void)
{
	int bad;
	char *o = order("mkdir target\nmkdir target/core\n"
			"mkdir target/core/fileio_0\n"
			"mkdir target/core/fileio_0/d\n"
			"set target/core/fileio_0/d/attrib/emulate_tpu 1\n"
			"set target/core/fileio_0/d/enable 1\n"
			"set target/core/fileio_0/d/control x\n"
			"mkdir g\nset g/UDC x\nmkdir g/f\nset g/f/a y\n", &bad);

	EXPECT_STR(o, "mkdir g\nmkdir g/f\nmkdir target\n"
		      "mkdir target/core\nmkdir target/core/fileio_0\n"
		      "mkdir target/core/fileio_0/d\n"
		      "set g/f/a\nset g/UDC\n"
		      "set target/core/fileio_0/d/control\n"
		      "set target/core/fileio_0/d/enable\n"
		      "set target/core/fileio_0/d/attrib/emulate_tpu\n");
	free(o);
	return true;
}

static bool plan_links_after_every_attribute(void)
{
	int bad;
	char *o = order("mkdir g\nmkdir g/c\nmkdir g/f\nlink g/c/l g/f\n"
			"set g/f/addr y\nset g/c/power 1\nset g/UDC u\n"
			"mkdir h\nlink g/f/m h\n", &bad);

	/* g/c/l after g/f/m, the link under its target. */
	EXPECT_STR(o, "mkdir g\nmkdir g/c\nmkdir g/f\nmkdir h\n"
		      "set g/c/power\nset g/f/addr\nset g/UDC\n"
		      "link g/f/m\nlink g/c/l\n");
	free(o);
	return true;
}

static bool plan_puts_modes_and_owners_last(void)
{
	int bad;
	char *o = order("chmod a/x 0600\nchown a 1:1\nmkdir a\nset a/x 1\n",
			&bad);

	EXPECT_STR(o, "mkdir a\nset a/x\nchown a\nchmod a/x\n");
	free(o);
	return true;
}

static bool plan_survives_links_in_a_cycle(void)
{
	int bad;
	char *o = order("mkdir a\nmkdir b\nlink a/to_b b\nlink b/to_a a\n"
			"link a/self a\nset a/x 1\nset b/y 2\n", &bad);

	EXPECT(o);
	EXPECT(o && strstr(o, "link a/to_b") && strstr(o, "link b/to_a") &&
	       strstr(o, "link a/self"));
	free(o);
	return true;
}

/*
 * d0/next -> d1, d1/next -> d2, ...: each link waits for those under its
 * target, and a crafted file made the planner recurse once per link.
 */
static bool plan_takes_a_chain_of_150000_links_without_recursion(void)
{
	enum { NR = 150000 };
	struct script s = { 0 };
	size_t cap = (size_t)NR * 48;
	char *text = malloc(cap);
	const struct stmt *first = NULL;
	const struct stmt *last = NULL;
	size_t len = 0;
	struct plan p;
	size_t i;

	for (i = 0; i < NR; i++)
		len += snprintf(text + len, cap - len,
				"mkdir d%zu\nlink d%zu/next d%zu\n", i, i, i + 1);
	len += snprintf(text + len, cap - len, "mkdir d%d\n", NR);
	EXPECT(format_parse(&s, "f", text, len) == 0);
	EXPECT(plan_build(&p, &s, "f") == 0);
	EXPECT(p.nr_ops == 2 * NR + 1);
	for (i = 0; i < p.nr_ops; i++) {
		if (p.ops[i]->st->kind != STMT_LINK)
			continue;
		if (!first)
			first = p.ops[i]->st;
		last = p.ops[i]->st;
	}
	EXPECT(first && !strcmp(first->path, "d149999/next"));
	EXPECT(last && !strcmp(last->path, "d0/next"));
	plan_free(&p);
	script_free(&s);
	free(text);
	return true;
}

static bool plan_rejects_a_statement_given_twice(void)
{
	int bad;
	char *o = order("mkdir a\nset a/x 1\nset a/x 2\n", &bad);

	EXPECT(!o && bad == 1);
	EXPECT(strstr(ktap_stderr(), "f:3: a/x: given twice; first at (line 2)"));
	free(o);
	return true;
}

static bool plan_rejects_an_attribute_used_as_a_directory(void)
{
	int bad;
	char *o = order("set a/x 1\nmkdir a/x/y\nlink a/l a/x\n"
			"mkdir b\nlink b/l a\nset b/l/z 1\nmkdir c\nmkdir c/d\n"
			"set c/d 1\n", &bad);

	EXPECT(!o && bad == 4);
	free(o);
	return true;
}

static bool plan_takes_ten_thousand_items_quickly(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int bad = 1;
	char *o;
	int i;

	for (i = 0; i < 10000; i++) {
		fprintf(f, "mkdir s/item%d\nset s/item%d/a %d\n", i, i, i);
		fprintf(f, "link s/item%d/peer s/item%d\n", i, i / 100 * 100);
	}
	fclose(f);
	o = order(text, &bad);
	EXPECT(o && bad == 0);
	free(o);
	free(text);
	return true;
}

/*
 * Each path of a file 2,000 levels deep: every prefix of every path was
 * kept, and an 800 KB file took 1.7 GB. In a child, so that its peak is
 * its own: 40 such lines (160 KB) must stay far under the 320 MB that
 * took.
 */
static bool plan_memory_is_linear_in_the_file(void)
{
	const size_t nr_lines = 40;
	const size_t depth = 1997;
	struct rusage before;
	struct rusage after;
	char *text;
	char *p;
	size_t i;
	size_t k;
	int status;
	pid_t pid;

	text = malloc(nr_lines * (depth * 2 + 16) + 32);
	p = text + sprintf(text, "version 1\n");
	for (i = 0; i < nr_lines; i++) {
		p += sprintf(p, "mkdir b%zu", i);
		for (k = 0; k < depth; k++)
			p += sprintf(p, "/a");
		*p++ = '\n';
	}
	strcpy(p, "end\n");
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		struct script s = { 0 };
		struct plan plan;
		long grew;
		int bad;

		getrusage(RUSAGE_SELF, &before);
		bad = format_parse(&s, "f", text, strlen(text)) ||
		      plan_build(&plan, &s, "f");
		getrusage(RUSAGE_SELF, &after);
		grew = (after.ru_maxrss - before.ru_maxrss) >> 10;
		_exit(bad ? 255 : grew > 254 ? 254 : grew);
	}
	EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) < 64);
	if (WIFEXITED(status) && WEXITSTATUS(status) >= 64)
		ktap_note("grew (MiB)",
			  WEXITSTATUS(status) == 255 ? "refused" : ">= 64");
	free(text);
	return true;
}

const struct ktap_case plan_cases[] = {
	KTAP_CASE(plan_makes_parents_before_children),
	KTAP_CASE(plan_writes_subdirectories_before_their_parent),
	KTAP_CASE(plan_writes_a_lio_backstores_own_attributes_first),
	KTAP_CASE(plan_links_after_every_attribute),
	KTAP_CASE(plan_puts_modes_and_owners_last),
	KTAP_CASE(plan_survives_links_in_a_cycle),
	KTAP_CASE(plan_takes_a_chain_of_150000_links_without_recursion),
	KTAP_CASE(plan_rejects_a_statement_given_twice),
	KTAP_CASE(plan_rejects_an_attribute_used_as_a_directory),
	KTAP_CASE(plan_takes_ten_thousand_items_quickly),
	KTAP_CASE(plan_memory_is_linear_in_the_file),
};

const size_t nr_plan_cases = ARRAY_SIZE(plan_cases);
