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

#include "guest.h"

#define EXT	CFS "/cng_ext"
#define ITEMS	EXT "/items"

static inline int ext_load(void)
{
	return sh("insmod /lib/modules/cng/cng_ext.ko");
}

static inline int ext_run(const struct ktap_case *cases, int n, const char *why)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (on_stock()) {
		char skip[256];

		snprintf(skip, sizeof(skip), "expected to differ on stock: %s",
			 why);
		ktap_skip_all(skip);
		return 4;
	}
	if (ext_load()) {
		ktap_skip_all("setup failed");
		return 1;
	}
	run_cases(cases, n);
	sh("rmdir " ITEMS "/* 2>/dev/null");
	if (sh("rmmod cng_ext"))
		ktap_failed++;
	return ktap_exit_status();
}

#endif /* EXT_LIB_H */
