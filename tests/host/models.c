// SPDX-License-Identifier: GPL-2.0
/*
 * Client models for the fake configfs. Paths are split with depth() and
 * part() so each hook reads like the client's rule it stands for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

bool model_gadget_late_write;
bool model_tcm_loop_lun_early;

void user_mkdir(struct fake *fake, const char *path)
{
	if (fs_mkdir(&fake->fs, path))
		abort();
}

void user_set(struct fake *fake, const char *path, const char *value)
{
	if (fs_write_value(&fake->fs, path, value, strlen(value)))
		abort();
}

void user_link(struct fake *fake, const char *path, const char *target)
{
	if (fs_symlink(&fake->fs, target, path))
		abort();
}

static int depth(const char *path)
{
	int n = 1;

	while ((path = strchr(path, '/'))) {
		n++;
		path++;
	}
	return n;
}

/* Component @i of @path, in a static buffer. */
static const char *part(const char *path, int i)
{
	static char buf[8][256];
	static int slot;
	char *out = buf[slot++ % 8];
	const char *end;

	while (i-- > 0) {
		path = strchr(path, '/');
		if (!path)
			return "";
		path++;
	}
	end = strchrnul(path, '/');
	snprintf(out, 256, "%.*s", (int)(end - path), path);
	return out;
}

static const char *up(const char *path)
{
	static char buf[4][4096];
	static int slot;
	char *out = buf[slot++ % 4];
	const char *slash = strrchr(path, '/');

	snprintf(out, 4096, "%.*s", (int)(slash ? slash - path : 0), path);
	return out;
}

static const char *join(const char *dir, const char *name)
{
	static char buf[8][4096];
	static int slot;
	char *out = buf[slot++ % 8];

	snprintf(out, 4096, "%s/%s", dir, name);
	return out;
}

/* sub/<item>: two values, read-only, write-only, a default group. */
static int generic_mkdir(struct fake *fake, const char *path)
{
	if (depth(path) == 2) {
		fake_attr(fake, join(path, "a"), 0644, "0");
		fake_attr(fake, join(path, "b"), 0644, "");
		fake_attr(fake, join(path, "ro"), 0444, "r");
		fake_attr(fake, join(path, "wo"), 0200, NULL);
		fake_dir(fake, join(path, "dg"), true);
		fake_attr(fake, join(path, "dg/c"), 0644, "c0");
	} else {
		fake_attr(fake, join(path, "d"), 0644, "d0");
	}
	return 0;
}

static const struct fake_hooks generic_hooks = {
	.mkdir = generic_mkdir,
};

void model_generic(struct fake *fake)
{
	fake_init(fake, &generic_hooks);
	fake_dir(fake, "sub", false);
}

/* null_blk: any store while powered is EBUSY; badblocks "" is EINVAL. */
static int nullb_mkdir(struct fake *fake, const char *path)
{
	fake_attr(fake, join(path, "badblocks"), 0644, "");
	fake_attr(fake, join(path, "blocking"), 0644, "0");
	fake_attr(fake, join(path, "memory_backed"), 0644, "0");
	fake_attr(fake, join(path, "power"), 0644, "0");
	fake_attr(fake, join(path, "size"), 0644, "250");
	fake_attr(fake, join(path, "zone_offline"), 0200, NULL);
	fake_attr(fake, join(path, "zoned"), 0644, "0");
	return 0;
}

static int nullb_store(struct fake *fake, const char *path,
		       const char *value)
{
	const char *dir = up(path);
	const char *name = part(path, 2);

	if (!strcmp(name, "power")) {
		if (!strcmp(value, "1") &&
		    !strcmp(fake_value(fake, join(dir, "power")), "1"))
			return -EBUSY;
		return 0;
	}
	if (!strcmp(fake_value(fake, join(dir, "power")), "1"))
		return -EBUSY;
	if (!strcmp(name, "badblocks") && !value[0])
		return -EINVAL;
	if (!strcmp(name, "memory_backed") && !strcmp(value, "1"))
		fake_set(fake, join(dir, "blocking"), "1");
	return 0;
}

static const struct fake_hooks nullb_hooks = {
	.mkdir = nullb_mkdir,
	.store = nullb_store,
};

void model_nullb(struct fake *fake)
{
	fake_init(fake, &nullb_hooks);
	fake_dir(fake, "nullb", false);
}

/*
 * netconsole: enabling needs a remote address and fills in local_ip;
 * while enabled every store is EINVAL, the same value included.
 */
static int netconsole_mkdir(struct fake *fake, const char *path)
{
	fake_attr(fake, join(path, "dev_name"), 0644, "eth0");
	fake_attr(fake, join(path, "enabled"), 0644, "0");
	fake_attr(fake, join(path, "extended"), 0644, "0");
	fake_attr(fake, join(path, "local_ip"), 0644, "0.0.0.0");
	fake_attr(fake, join(path, "remote_ip"), 0644, "0.0.0.0");
	fake_attr(fake, join(path, "remote_port"), 0644, "6666");
	return 0;
}

static int netconsole_store(struct fake *fake, const char *path,
			    const char *value)
{
	const char *dir = up(path);
	const char *name = part(path, 2);
	bool enabled = !strcmp(fake_value(fake, join(dir, "enabled")), "1");

	if (!strcmp(name, "enabled")) {
		if (!strcmp(value, "1") == enabled)
			return -EINVAL;
		if (!enabled) {
			if (!strcmp(fake_value(fake, join(dir, "remote_ip")),
				    "0.0.0.0"))
				return -EINVAL;
			if (!strcmp(fake_value(fake, join(dir, "local_ip")),
				    "0.0.0.0"))
				fake_set(fake, join(dir, "local_ip"),
					 "127.0.0.1");
		}
		return 0;
	}
	return enabled ? -EINVAL : 0;
}

static const struct fake_hooks netconsole_hooks = {
	.mkdir = netconsole_mkdir,
	.store = netconsole_store,
};

void model_netconsole(struct fake *fake)
{
	fake_init(fake, &netconsole_hooks);
	fake_dir(fake, "netconsole", false);
}

/*
 * USB gadget: UDC binds only when every config has a function (EINVAL),
 * a bound gadget refuses links (EINVAL), a linked function refuses its
 * attributes (EBUSY), and a descriptor written while bound is taken but
 * too late: the host saw the old one.
 */
static int gadget_mkdir(struct fake *fake, const char *path)
{
	if (depth(path) == 2) {
		fake_attr(fake, join(path, "UDC"), 0644, "");
		fake_attr(fake, join(path, "idProduct"), 0644, "0x0000");
		fake_attr(fake, join(path, "idVendor"), 0644, "0x0000");
		fake_dir(fake, join(path, "configs"), true);
		fake_dir(fake, join(path, "functions"), true);
		fake_dir(fake, join(path, "strings"), true);
	} else if (!strcmp(part(path, 2), "functions")) {
		fake_attr(fake, join(path, "dev_addr"), 0644, "");
	} else if (!strcmp(part(path, 2), "configs")) {
		fake_attr(fake, join(path, "MaxPower"), 0644, "2");
	} else if (!strcmp(part(path, 2), "strings")) {
		fake_attr(fake, join(path, "product"), 0644, "");
	}
	return 0;
}

static bool gadget_bound(struct fake *fake, const char *gadget)
{
	return fake_value(fake, join(gadget, "UDC"))[0];
}

static int gadget_store(struct fake *fake, const char *path,
			const char *value)
{
	const char *gadget = join("usb_gadget", part(path, 1));
	const char *name = part(path, depth(path) - 1);
	struct arena arena = { 0 };
	char **names;
	size_t nr;
	size_t i;

	if (depth(path) == 5 && !strcmp(part(path, 2), "functions") &&
	    fake_nr_links_to(fake, up(path)))
		return -EBUSY;
	if (strcmp(name, "UDC")) {
		if (gadget_bound(fake, gadget))
			model_gadget_late_write = true;
		return 0;
	}
	if (!value[0])
		return 0;
	if (gadget_bound(fake, gadget))
		return -EBUSY;
	if (fs_list(&fake->fs, join(gadget, "configs"), &arena, &names, &nr))
		abort();
	for (i = 0; i < nr; i++) {
		const char *c = join(join(gadget, "configs"), names[i]);

		if (!fake_nr_links_in(fake, c))
			break;
	}
	arena_free(&arena);
	return !nr || i < nr ? -EINVAL : 0;
}

static int gadget_link(struct fake *fake, const char *path,
		       const char *target)
{
	(void)target;
	return gadget_bound(fake, join("usb_gadget", part(path, 1))) ?
	       -EINVAL : 0;
}

static const struct fake_hooks gadget_hooks = {
	.mkdir = gadget_mkdir,
	.store = gadget_store,
	.link = gadget_link,
};

void model_gadget(struct fake *fake)
{
	fake_init(fake, &gadget_hooks);
	fake_dir(fake, "usb_gadget", false);
	model_gadget_late_write = false;
}

/*
 * nvmet: a namespace enables only with a device and then refuses a new
 * one (EBUSY); a port link needs a transport (EINVAL) and then the
 * port refuses changes (EACCES); a linked subsystem refuses rmdir
 * (EBUSY); attr_serial is random per mkdir.
 */
static int nvmet_mkdir(struct fake *fake, const char *path)
{
	static unsigned int serial;
	const char *kind = part(path, 1);
	char buf[32];

	if (!strcmp(kind, "subsystems") && depth(path) == 3) {
		snprintf(buf, sizeof(buf), "%08x", ++serial * 2654435761u);
		fake_attr(fake, join(path, "attr_allow_any_host"), 0644, "0");
		fake_attr(fake, join(path, "attr_serial"), 0644, buf);
		fake_dir(fake, join(path, "allowed_hosts"), true);
		fake_dir(fake, join(path, "namespaces"), true);
	} else if (!strcmp(kind, "subsystems")) {
		fake_attr(fake, join(path, "device_path"), 0644, "(null)");
		fake_attr(fake, join(path, "enable"), 0644, "0");
		fake_attr(fake, join(path, "revalidate_size"), 0200, NULL);
	} else if (!strcmp(kind, "ports")) {
		fake_attr(fake, join(path, "addr_traddr"), 0644, "");
		fake_attr(fake, join(path, "addr_trtype"), 0644, "");
		fake_dir(fake, join(path, "subsystems"), true);
	}
	return 0;
}

static int nvmet_store(struct fake *fake, const char *path,
		       const char *value)
{
	const char *dir = up(path);
	const char *name = part(path, depth(path) - 1);

	if (!strcmp(part(path, 1), "ports"))
		return fake_nr_links_in(fake, join(dir, "subsystems")) ?
		       -EACCES : 0;
	if (!strcmp(name, "enable") && !strcmp(value, "1") &&
	    !strcmp(fake_value(fake, join(dir, "device_path")), "(null)"))
		return -EINVAL;
	if (!strcmp(name, "device_path") &&
	    !strcmp(fake_value(fake, join(dir, "enable")), "1"))
		return -EBUSY;
	return 0;
}

static int nvmet_link(struct fake *fake, const char *path,
		      const char *target)
{
	(void)target;
	if (!strcmp(part(path, 1), "ports") &&
	    !fake_value(fake, join(up(up(path)), "addr_trtype"))[0])
		return -EINVAL;
	return 0;
}

static int nvmet_rmdir(struct fake *fake, const char *path)
{
	return fake_nr_links_to(fake, path) ? -EBUSY : 0;
}

static const struct fake_hooks nvmet_hooks = {
	.mkdir = nvmet_mkdir,
	.store = nvmet_store,
	.link = nvmet_link,
	.rmdir = nvmet_rmdir,
};

void model_nvmet(struct fake *fake)
{
	fake_init(fake, &nvmet_hooks);
	fake_dir(fake, "nvmet", false);
	fake_dir(fake, "nvmet/hosts", true);
	fake_dir(fake, "nvmet/ports", true);
	fake_dir(fake, "nvmet/subsystems", true);
}

/*
 * LIO-like: target/core/<dev> backstores, target/tpg/lun/<lun> with a
 * link to a backstore, target/tpg/acls/<acl>/<mlun> linking to a lun. A
 * lun's backstore link cannot go while a mapped lun points at the lun
 * (EBUSY), nor a backstore while a lun links to it.
 */
static int lio_unlink(struct fake *fake, const char *path)
{
	if (!strcmp(part(path, 2), "lun") && fake_nr_links_to(fake, up(path)))
		return -EBUSY;
	return 0;
}

static const struct fake_hooks lio_hooks = {
	.unlink = lio_unlink,
	.rmdir = nvmet_rmdir,
};

void model_lio(struct fake *fake)
{
	fake_init(fake, &lio_hooks);
	fake_dir(fake, "target", false);
	fake_dir(fake, "target/core", true);
	fake_dir(fake, "target/tpg", true);
	fake_dir(fake, "target/tpg/lun", true);
	fake_dir(fake, "target/tpg/acls", true);
}

/*
 * tcm_loop: target/loopback/<wwn>/<tpg> has a nexus, written once
 * (EEXIST after); a link in <tpg>/lun/<lun> to a backstore adds a SCSI
 * device, which the initiator scans only if the nexus exists: a LUN
 * linked before it is taken, but the disk never appears. A backstore's
 * wwn/vpd_unit_serial shows a label before the serial it stores.
 */
#define VPD_LABEL	"T10 VPD Unit Serial Number: "

static int tcm_loop_mkdir(struct fake *fake, const char *path)
{
	if (!strcmp(part(path, 1), "loopback") && depth(path) == 4) {
		fake_attr(fake, join(path, "nexus"), 0644, "");
		fake_dir(fake, join(path, "lun"), true);
	} else if (!strcmp(part(path, 1), "core") && depth(path) == 4) {
		fake_attr(fake, join(path, "enable"), 0644, "0");
		fake_dir(fake, join(path, "wwn"), true);
		fake_attr(fake, join(path, "wwn/vpd_unit_serial"), 0644,
			  VPD_LABEL);
	}
	return 0;
}

static int tcm_loop_store(struct fake *fake, const char *path,
			  const char *value)
{
	char shown[256];

	if (!strcmp(part(path, depth(path) - 1), "vpd_unit_serial")) {
		snprintf(shown, sizeof(shown), "%s%s", VPD_LABEL, value);
		fake_set(fake, path, shown);
		return FAKE_TAKEN;
	}
	if (!strcmp(part(path, depth(path) - 1), "nexus") &&
	    fake_value(fake, path)[0])
		return -EEXIST;
	return 0;
}

static int tcm_loop_link(struct fake *fake, const char *path,
			 const char *target)
{
	if (strcmp(fake_value(fake, join(target, "enable")), "1"))
		return -ENODEV;
	if (!fake_value(fake, join(up(up(up(path))), "nexus"))[0])
		model_tcm_loop_lun_early = true;
	return 0;
}

static const struct fake_hooks tcm_loop_hooks = {
	.mkdir = tcm_loop_mkdir,
	.store = tcm_loop_store,
	.link = tcm_loop_link,
	.rmdir = nvmet_rmdir,
};

void model_tcm_loop(struct fake *fake)
{
	fake_init(fake, &tcm_loop_hooks);
	fake_dir(fake, "target", false);
	fake_dir(fake, "target/core", true);
	model_tcm_loop_lun_early = false;
}
