/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations of configfs-ng, one section per defining file.
 */
#ifndef _CNG_INTERNAL_H
#define _CNG_INTERNAL_H

/* mount.c */
int cng_mount_init(void);
void cng_mount_exit(void);

#endif /* _CNG_INTERNAL_H */
