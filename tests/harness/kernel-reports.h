/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Substrings that mark a kernel report of a bug in a kernel log: one
 * string literal a line, the list's only content. The guest's init
 * (init.c) includes it in its array of markers; the host's scripts read
 * the same lines (kernel_reports in tap-lib.sh) to judge a console, so
 * the guests and the host's checks fail on the same reports.
 */
	"BUG:", "BUG ", "kernel BUG", "WARNING:", "Oops", "refcount_t",
	"general protection", "list_add corruption", "list_del corruption",
	"slab error", "Poison overwritten", "Redzone", "Object padding",
	"INFO: task", "blocked for more than", "soft lockup", "hard LOCKUP",
	"UBSAN:", "KASAN:", "suspected memory leak", "unreferenced object",
	"possible circular locking", "possible recursive locking",
	"inconsistent lock state", "lock held when returning",
	"sleeping function called", "Call Trace:", "RIP:",
	"Call trace:",	/* arm64's spelling */
	"stack-protector", "usercopy:", "Kernel panic",
	"VFS: Busy inodes after unmount",
	"disagrees about version of symbol", "Unknown symbol",
	/* kmemleak turning itself off: no later leak would be seen. */
	"Kernel memory leak detector disabled",
	"Cannot allocate a kmemleak_object", "Memory pool empty",
