/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Models of real configfs clients for the fake, each built from the
 * behaviour recorded in shared/notes/client-quirks.md and the clients'
 * sources: null_blk, netconsole, a USB gadget, nvmet, and a LIO-like
 * target for removal order.
 */
#ifndef _MODELS_H
#define _MODELS_H

#include "fake.h"

void model_generic(struct fake *fake);
void model_nullb(struct fake *fake);
void model_netconsole(struct fake *fake);
void model_gadget(struct fake *fake);
void model_nvmet(struct fake *fake);
void model_lio(struct fake *fake);
void model_tcm_loop(struct fake *fake);

/* Whether the gadget model saw a descriptor written while bound. */
extern bool model_gadget_late_write;
/* Whether the tcm_loop model saw a LUN linked before its TPG's nexus. */
extern bool model_tcm_loop_lun_early;

/* Do as user space would: through the hooks. Aborts on failure. */
void user_mkdir(struct fake *fake, const char *path);
void user_set(struct fake *fake, const char *path, const char *value);
void user_link(struct fake *fake, const char *path, const char *target);

#endif /* _MODELS_H */
