/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fault campaign's tables (fault_campaign.c runs them). A table is
 * the operations of one area, each failed at its 1st, 2nd, ... fault
 * point (fault_lib.h) until a call runs without an injection; how a
 * failed call is judged is the table's own:
 *
 *   tree.c     configfs's own operations, on cng_test: the tree is left
 *              exactly as before, or as a plain call leaves it
 *   ext.c      the extension's allocations, on cng_ext: the call still
 *              fails as it should, and its record is whole or none
 *   commit.c   commit and un-commit, on cng_commit: the item is whole,
 *              on exactly one side, and counted when it moved
 *
 * Each case of a table is "OP_survives_every_allocation_failure".
 */
#ifndef FAULT_CAMPAIGN_H
#define FAULT_CAMPAIGN_H

#include "../fault_lib.h"

struct fault_table {
	const char *prog;		/* the name the lists run it by */
	const char *stock_differs;	/* ours only: why it skips on stock */
	unsigned int n_ops;
	const char *(*op_name)(unsigned int i);
	bool (*op_run)(unsigned int i);	/* true: every round was clean */
	/* NULL, or why op i may fail on stock: then a skip there */
	const char *(*op_stock_skip)(unsigned int i);
	int (*load)(void);		/* 0, or the table cannot run */
	int (*unload)(void);		/* the failures its cleanup counts */
};

extern const struct fault_table fault_tree_table;
extern const struct fault_table fault_ext_table;
extern const struct fault_table fault_commit_table;

#endif /* FAULT_CAMPAIGN_H */
