/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one call item.c makes into the rest of the module, declared apart
 * from internal.h: item.c's exports take their modversion CRCs from the
 * types that file sees, and this header adds none.
 */
#ifndef _CNG_UNSHARE_H
#define _CNG_UNSHARE_H

struct config_item;

/**
 * cng_node_unshare_name() - stop a node sharing its item's name
 * @item: an item whose ci_name is about to change or be freed
 *
 * Context: process; sleeps; takes cng_tree_mutex (node.c). Never fails.
 */
void cng_node_unshare_name(const struct config_item *item);

#endif /* _CNG_UNSHARE_H */
