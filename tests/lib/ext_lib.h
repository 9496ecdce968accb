/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the tests of the extension (configfs-ng.h) through its sample
 * client cng_ext (samples/cng_ext.c), on top of ktap.h:
 *
 *   EXT, ITEMS       cng_ext's directory, and the group mkdir makes items in
 *   ext_load()       insmod cng_ext; 0 or the shell's status
 *   ext_run(cases, n, why)
 *                    the whole test: on stock, the plan "1..0 # SKIP
 *                    expected to differ on stock: WHY" and 4 (stock has
 *                    no extension, and cng_ext needs ours); else loads
 *                    cng_ext, runs the cases, removes the items left and
 *                    unloads it. The exit status: 0 when all passed.
 */
#ifndef EXT_LIB_H
#define EXT_LIB_H

#include "ktap.h"

#define EXT	CFS "/cng_ext"
#define ITEMS	EXT "/items"

static inline int ext_load(void)
{
	return sh("insmod /lib/modules/cng/cng_ext.ko");
}

static inline int ext_run(const struct tcase *cases, int n, const char *why)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (on_stock()) {
		printf("KTAP version 1\n1..0 # SKIP %s%s\n",
		       "expected to differ on stock: ", why);
		return 4;
	}
	if (ext_load()) {
		printf("KTAP version 1\n1..0 # SKIP setup failed\n");
		return 1;
	}
	run_cases(cases, n);
	sh("rmdir " ITEMS "/* 2>/dev/null");
	if (sh("rmmod cng_ext"))
		ktap_failed++;
	return ktap_failed ? 1 : 0;
}

#endif /* EXT_LIB_H */
