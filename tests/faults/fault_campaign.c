// SPDX-License-Identifier: GPL-2.0
/*
 * The fault-injection campaign (issue 6), on the debug kernel only: one
 * program for three names of 16-faults.list, each the table of one area's
 * operations (campaign/campaign.h):
 *
 *   fault_campaign   configfs's own operations (campaign/tree.c)
 *   ext_faults       the extension's allocations (campaign/ext.c)
 *   commit_faults    commit and un-commit (campaign/commit.c)
 *
 * The name it is run by picks the table: ext_faults and commit_faults are
 * links to fault_campaign. fault_lib.h sets failslab and fail_page_alloc
 * to fail GFP_KERNEL allocations too and to print nothing.
 *
 * Exits 4 (skip) on a kernel without fail-nth (Debian's), and on stock
 * for a table of what only ours has.
 */
#define _GNU_SOURCE
#include <string.h>

#include "campaign/campaign.h"

int fault_nth_fd = -1;

static const struct fault_table *const tables[] = {
	&fault_tree_table,
	&fault_ext_table,
	&fault_commit_table,
};

static const struct fault_table *table_named(const char *path)
{
	const char *prog = strrchr(path, '/');
	unsigned int i;

	prog = prog ? prog + 1 : path;
	for (i = 0; i < ARRAY_SIZE(tables); i++)
		if (!strcmp(tables[i]->prog, prog))
			return tables[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct fault_table *table;
	const char *skip;
	char name[128], why[256];
	unsigned int i;
	int ret;

	table = table_named(argc > 0 ? argv[0] : "");
	if (!table) {
		fprintf(stderr, "fault_campaign: run as %s, which names no table\n",
			argc > 0 ? argv[0] : "?");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (table->stock_differs && on_stock()) {
		snprintf(name, sizeof(name), "expected to differ on stock: %s",
			 table->stock_differs);
		ktap_skip_all(name);
		return 4;
	}
	ret = fault_setup();
	if (ret > 0)
		return fault_absent();
	if (ret < 0 || table->load())
		return 1;

	ktap_plan(table->n_ops);
	for (i = 0; i < table->n_ops; i++) {
		bool ok;

		snprintf(name, sizeof(name),
			 "%s_survives_every_allocation_failure",
			 table->op_name(i));
		ok = table->op_run(i);
		skip = table->op_stock_skip ? table->op_stock_skip(i) : NULL;
		if (!ok && on_stock() && skip) {
			snprintf(why, sizeof(why),
				 "SKIP expected to differ on stock: %s", skip);
			ktap_result(i + 1, name, true, why);
			continue;
		}
		ktap_result(i + 1, name, ok, NULL);
	}
	fault_end();
	ktap_failed += table->unload();
	return ktap_exit_status();
}
