// SPDX-License-Identifier: GPL-2.0
/*
 * Save and restore against models of real clients: the save, rm -r,
 * restore, save cycle gives the same file, a second restore changes
 * nothing, and the order problems of the issue are solved without any
 * table of subsystems.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "configfs.h"
#include "host.h"
#include "models.h"

/* save @top, rm -r it, restore, save again: both saves must match. */
static void round_trip(struct fake *fake, const char *top)
{
	unsigned long changes;
	char *first;
	char *second;

	first = fake_save(fake, top);
	EXPECT(rm_paths(&fake->fs, (char *[]){ (char *)top }, 1, true,
			false) == 0);
	EXPECT(fake_restore_text(fake, first) == 0);
	second = fake_save(fake, top);
	EXPECT_STR(second, first);
	changes = fake->fs.nr_changes;
	EXPECT(fake_restore_text(fake, first) == 0);
	EXPECT(fake->fs.nr_changes == changes);
	free(first);
	free(second);
}

static bool save_skips_read_only_and_notes_write_only(void)
{
	struct fake f;
	char *s;

	model_generic(&f);
	user_mkdir(&f, "sub/i");
	user_set(&f, "sub/i/a", "5");
	s = fake_save(&f, "sub");
	EXPECT(strstr(s, "mkdir sub/i\n"));
	EXPECT(strstr(s, "set sub/i/a 5\n"));
	EXPECT(strstr(s, "set sub/i/b \"\"\n"));
	EXPECT(!strstr(s, "sub/i/ro"));
	EXPECT(strstr(s, "# write-only, not saved: sub/i/wo"));
	EXPECT(strstr(s, "mkdir sub/i/dg\nset sub/i/dg/c c0\n"));
	free(s);
	fake_free(&f);
	return true;
}

static bool save_notes_unreadable_values(void)
{
	struct fake f;
	char *s;

	model_generic(&f);
	user_mkdir(&f, "sub/i");
	fake_set(&f, "sub/i/a", "\001EIO");
	s = fake_save(&f, "sub");
	EXPECT(strstr(s, "# unreadable, not saved: sub/i/a (Input/output error)"));
	free(s);
	fake_free(&f);
	return true;
}

static bool save_is_byte_identical_twice(void)
{
	struct fake f;
	char *a;
	char *b;

	model_generic(&f);
	user_mkdir(&f, "sub/x y");
	user_mkdir(&f, "sub/\xc3\xa9");
	user_set(&f, "sub/x y/b", "two words\nand a line");
	a = fake_save(&f, "");
	b = fake_save(&f, "");
	EXPECT_STR(a, b);
	free(a);
	free(b);
	fake_free(&f);
	return true;
}

static bool restore_round_trips_awkward_names_and_values(void)
{
	struct fake f;

	model_generic(&f);
	user_mkdir(&f, "sub/x y");
	user_mkdir(&f, "sub/\xc3\xa9\"q\"");
	user_mkdir(&f, "sub/x y/dg/inner");
	user_set(&f, "sub/x y/b", "two words\n\tand \\ a line \xff");
	user_set(&f, "sub/x y/a", "");
	user_set(&f, "sub/x y/dg/inner/d", "#not a comment");
	fs_chmod(&f.fs, "sub/x y/a", 0600);
	fs_chown(&f.fs, "sub/x y", 1000, 1000);
	round_trip(&f, "sub");
	EXPECT_STR(fake_value(&f, "sub/x y/b"),
		   "two words\n\tand \\ a line \xff");
	fake_free(&f);
	return true;
}

static bool restore_onto_a_matching_tree_writes_nothing(void)
{
	struct fake f;
	char *s;

	model_netconsole(&f);
	user_mkdir(&f, "netconsole/t");
	user_set(&f, "netconsole/t/remote_ip", "10.0.0.2");
	user_set(&f, "netconsole/t/enabled", "1");
	s = fake_save(&f, "netconsole");
	f.nr_stores = 0;
	/* Writing "enabled" or anything else again would be EINVAL here. */
	EXPECT(fake_restore_text(&f, s) == 0);
	EXPECT(f.nr_stores == 0);
	free(s);
	fake_free(&f);
	return true;
}

/* LIO's auth strings keep what they are given, newline and all. */
static int verbatim_store(struct fake *fake, const char *path,
			  const char *value)
{
	if (value[0])
		return 0;
	fake_set(fake, path, "\n");	/* the "\n" an empty value is written as */
	return FAKE_TAKEN;
}

static const struct fake_hooks verbatim_hooks = {
	.store = verbatim_store,
};

static bool restore_takes_an_empty_value_kept_as_a_newline(void)
{
	struct fake f;

	fake_init(&f, &verbatim_hooks);
	fake_dir(&f, "auth", false);
	fake_attr(&f, "auth/userid", 0644, "NULL");
	EXPECT(fake_restore_text(&f, "version 1\nset auth/userid \"\"\n"
				 "end\n") == 0);
	EXPECT_STR(fake_value(&f, "auth/userid"), "\n");
	fake_free(&f);
	return true;
}

static bool restore_adds_what_a_partial_tree_lacks(void)
{
	struct fake f;
	char *s;

	model_generic(&f);
	user_mkdir(&f, "sub/i");
	user_mkdir(&f, "sub/j");
	user_set(&f, "sub/i/a", "1");
	user_set(&f, "sub/j/a", "2");
	s = fake_save(&f, "sub");
	fs_rmdir(&f.fs, "sub/j");
	f.nr_stores = 0;
	EXPECT(fake_restore_text(&f, s) == 0);
	EXPECT_STR(fake_value(&f, "sub/j/a"), "2");
	EXPECT(f.nr_stores == 1);
	free(s);
	fake_free(&f);
	return true;
}

static bool restore_powers_null_blk_after_its_size(void)
{
	struct fake f;

	model_nullb(&f);
	user_mkdir(&f, "nullb/n0");
	user_set(&f, "nullb/n0/size", "1024");
	user_set(&f, "nullb/n0/memory_backed", "1");
	user_set(&f, "nullb/n0/power", "1");
	round_trip(&f, "nullb");
	EXPECT_STR(fake_value(&f, "nullb/n0/size"), "1024");
	EXPECT_STR(fake_value(&f, "nullb/n0/power"), "1");
	fake_free(&f);
	return true;
}

static bool restore_undoes_a_power_that_came_too_early(void)
{
	struct fake f;

	/* zoned and power both go 0 -> 1; power sorts first. */
	model_nullb(&f);
	user_mkdir(&f, "nullb/n0");
	user_set(&f, "nullb/n0/zoned", "1");
	user_set(&f, "nullb/n0/power", "1");
	round_trip(&f, "nullb");
	EXPECT_STR(fake_value(&f, "nullb/n0/zoned"), "1");
	EXPECT_STR(fake_value(&f, "nullb/n0/power"), "1");
	EXPECT(fake_log_pos(&f, "set nullb/n0/power=0") >= 0);
	fake_free(&f);
	return true;
}

static bool restore_enables_netconsole_after_its_addresses(void)
{
	struct fake f;

	model_netconsole(&f);
	user_mkdir(&f, "netconsole/t");
	user_set(&f, "netconsole/t/remote_ip", "10.0.0.2");
	user_set(&f, "netconsole/t/remote_port", "514");
	user_set(&f, "netconsole/t/extended", "1");
	user_set(&f, "netconsole/t/enabled", "1");
	round_trip(&f, "netconsole");
	EXPECT_STR(fake_value(&f, "netconsole/t/enabled"), "1");
	EXPECT_STR(fake_value(&f, "netconsole/t/extended"), "1");
	EXPECT_STR(fake_value(&f, "netconsole/t/remote_port"), "514");
	EXPECT_STR(fake_value(&f, "netconsole/t/local_ip"), "127.0.0.1");
	fake_free(&f);
	return true;
}

static void build_gadget(struct fake *f)
{
	model_gadget(f);
	user_mkdir(f, "usb_gadget/g1");
	user_set(f, "usb_gadget/g1/idVendor", "0x1d6b");
	user_set(f, "usb_gadget/g1/idProduct", "0x0104");
	user_mkdir(f, "usb_gadget/g1/strings/0x409");
	user_set(f, "usb_gadget/g1/strings/0x409/product", "Test gadget");
	user_mkdir(f, "usb_gadget/g1/functions/ecm.usb0");
	user_mkdir(f, "usb_gadget/g1/functions/acm.gs0");
	user_set(f, "usb_gadget/g1/functions/ecm.usb0/dev_addr",
		 "02:00:00:00:00:01");
	user_mkdir(f, "usb_gadget/g1/configs/c.1");
	user_link(f, "usb_gadget/g1/configs/c.1/ecm.usb0",
		  "usb_gadget/g1/functions/ecm.usb0");
	user_link(f, "usb_gadget/g1/configs/c.1/acm.gs0",
		  "usb_gadget/g1/functions/acm.gs0");
	user_set(f, "usb_gadget/g1/UDC", "dummy_udc.0");
}

static bool restore_binds_a_gadget_after_its_links_and_descriptors(void)
{
	struct fake f;

	build_gadget(&f);
	round_trip(&f, "usb_gadget");
	EXPECT_STR(fake_value(&f, "usb_gadget/g1/UDC"), "dummy_udc.0");
	EXPECT_STR(fake_value(&f, "usb_gadget/g1/functions/ecm.usb0/dev_addr"),
		   "02:00:00:00:00:01");
	EXPECT(fake_nr_links_in(&f, "usb_gadget/g1/configs/c.1") == 2);
	EXPECT(!model_gadget_late_write);
	fake_free(&f);
	return true;
}

#define ACM_LINK \
	"link usb_gadget/g1/configs/c.1/acm.gs0=usb_gadget/g1/functions/acm.gs0"

static bool restore_links_a_partial_gadget_before_binding_it(void)
{
	struct fake f;
	char *s;

	/* One link missing and the gadget unbound: UDC must still wait. */
	build_gadget(&f);
	s = fake_save(&f, "usb_gadget");
	user_set(&f, "usb_gadget/g1/UDC", "");
	fs_unlink(&f.fs, "usb_gadget/g1/configs/c.1/acm.gs0");
	model_gadget_late_write = false;
	EXPECT(fake_restore_text(&f, s) == 0);
	EXPECT(fake_nr_links_in(&f, "usb_gadget/g1/configs/c.1") == 2);
	EXPECT_STR(fake_value(&f, "usb_gadget/g1/UDC"), "dummy_udc.0");
	EXPECT(fake_log_pos(&f, "set usb_gadget/g1/UDC=dummy_udc.0") >
	       fake_log_pos(&f, ACM_LINK));
	free(s);
	fake_free(&f);
	return true;
}

static void build_nvmet(struct fake *f)
{
	model_nvmet(f);
	user_mkdir(f, "nvmet/hosts/h1");
	user_mkdir(f, "nvmet/subsystems/s1");
	user_link(f, "nvmet/subsystems/s1/allowed_hosts/h1", "nvmet/hosts/h1");
	user_mkdir(f, "nvmet/subsystems/s1/namespaces/1");
	user_set(f, "nvmet/subsystems/s1/namespaces/1/device_path",
		 "/dev/nullb0");
	user_set(f, "nvmet/subsystems/s1/namespaces/1/enable", "1");
	user_mkdir(f, "nvmet/ports/1");
	user_set(f, "nvmet/ports/1/addr_trtype", "tcp");
	user_set(f, "nvmet/ports/1/addr_traddr", "127.0.0.1");
	user_link(f, "nvmet/ports/1/subsystems/s1", "nvmet/subsystems/s1");
}

static bool restore_configures_nvmet_ports_before_linking_them(void)
{
	struct fake f;

	build_nvmet(&f);
	round_trip(&f, "nvmet");
	EXPECT_STR(fake_value(&f, "nvmet/ports/1/addr_traddr"), "127.0.0.1");
	EXPECT_STR(fake_value(&f, "nvmet/subsystems/s1/namespaces/1/enable"),
		   "1");
	EXPECT(fake_nr_links_in(&f, "nvmet/ports/1/subsystems") == 1);
	fake_free(&f);
	return true;
}

static void build_tcm_loop(struct fake *f)
{
	model_tcm_loop(f);
	user_mkdir(f, "target/core/fileio_0");
	user_mkdir(f, "target/core/fileio_0/disk");
	user_set(f, "target/core/fileio_0/disk/enable", "1");
	user_set(f, "target/core/fileio_0/disk/wwn/vpd_unit_serial", "abc-1");
	user_mkdir(f, "target/loopback");
	user_mkdir(f, "target/loopback/naa.1");
	user_mkdir(f, "target/loopback/naa.1/tpgt_1");
	user_set(f, "target/loopback/naa.1/tpgt_1/nexus", "naa.2");
	user_mkdir(f, "target/loopback/naa.1/tpgt_1/lun/lun_0");
	user_link(f, "target/loopback/naa.1/tpgt_1/lun/lun_0/port",
		  "target/core/fileio_0/disk");
}

static bool restore_sets_a_tcm_loop_nexus_before_its_luns(void)
{
	struct fake f;

	/* Linking the LUN first succeeds, but the disk never shows. */
	build_tcm_loop(&f);
	EXPECT(!model_tcm_loop_lun_early);
	round_trip(&f, "target");
	EXPECT_STR(fake_value(&f, "target/loopback/naa.1/tpgt_1/nexus"),
		   "naa.2");
	EXPECT(fake_nr_links_in(&f, "target/loopback/naa.1/tpgt_1/lun/lun_0")
	       == 1);
	EXPECT(!model_tcm_loop_lun_early);
	fake_free(&f);
	return true;
}

#define VPD "target/core/fileio_0/disk/wwn/vpd_unit_serial"
#define ENABLE_X2 "set target/core/fileio_0/disk/enable \"x: 2\"\n"

static bool restore_writes_a_labelled_value_without_its_label_never_speculatively(void)
{
	struct fake f;
	char *s;

	/* round_trip() proves the fresh backstore's serial; now a change. */
	build_tcm_loop(&f);
	EXPECT_STR(fake_value(&f, VPD), "T10 VPD Unit Serial Number: abc-1");
	round_trip(&f, "target");
	s = fake_save(&f, "target");
	fs_unlink(&f.fs, "target/loopback/naa.1/tpgt_1/lun/lun_0/port");
	user_set(&f, VPD, "other");
	EXPECT(fake_restore_text(&f, s) == 0);
	EXPECT_STR(fake_value(&f, VPD), "T10 VPD Unit Serial Number: abc-1");
	/* A label that is part of what the attribute stores stays. */
	user_set(&f, "target/core/fileio_0/disk/enable", "x: 1");
	EXPECT(fake_restore_text(&f, ENABLE_X2) == 0);
	EXPECT_STR(fake_value(&f, "target/core/fileio_0/disk/enable"), "x: 2");
	/* Never a value the file does not hold: "2" was not written. */
	EXPECT(fake_log_pos(&f, "set target/core/fileio_0/disk/enable=2") ==
	       -1);
	free(s);
	fake_free(&f);
	return true;
}

static bool restore_undoes_a_link_that_blocks_port_changes(void)
{
	struct fake f;
	char *s;

	/* The port still has its old address when the link comes back. */
	build_nvmet(&f);
	s = fake_save(&f, "nvmet");
	fs_unlink(&f.fs, "nvmet/ports/1/subsystems/s1");
	user_set(&f, "nvmet/ports/1/addr_traddr", "10.1.1.1");
	EXPECT(fake_restore_text(&f, s) == 0);
	EXPECT_STR(fake_value(&f, "nvmet/ports/1/addr_traddr"), "127.0.0.1");
	EXPECT(fake_nr_links_in(&f, "nvmet/ports/1/subsystems") == 1);
	free(s);
	fake_free(&f);
	return true;
}

static bool restore_reports_what_it_could_not_apply(void)
{
	struct fake f;
	const char *err;

	model_nullb(&f);
	user_mkdir(&f, "nullb/n0");
	user_set(&f, "nullb/n0/power", "1");
	ktap_stderr_reset();
	/* Already powered before the run: the size cannot be changed. */
	EXPECT(fake_restore_text(&f, "mkdir nullb/n0\n"
				 "set nullb/n0/size 1024\n"
				 "set nullb/n0/power 1\n"
				 "set nullb/n0/badblocks \"\"\n") == 1);
	err = ktap_stderr();
	EXPECT(strstr(err, "configfs: nullb/n0/size: not applied (test:2: "));
	EXPECT(strstr(err, "set nullb/n0/size 1024): Device or resource busy"));
	EXPECT_STR(fake_value(&f, "nullb/n0/size"), "250");
	fake_free(&f);
	return true;
}

static bool restore_reports_statements_under_a_failed_mkdir(void)
{
	struct fake f;

	model_generic(&f);
	EXPECT(fake_restore_text(&f, "mkdir nope/i\nset nope/i/a 1\n") == 2);
	EXPECT(strstr(ktap_stderr(), "nope/i: not applied (test:1: mkdir"));
	EXPECT(strstr(ktap_stderr(), "nope/i): No such file or directory"));
	EXPECT(strstr(ktap_stderr(), "nope/i/a: not attempted (test:2"));
	fake_free(&f);
	return true;
}

static int zero_store(struct fake *fake, const char *path, const char *v)
{
	(void)fake;
	(void)v;
	return strstr(path, "qw_sign") ? FAKE_ZERO : 0;
}

static bool restore_reports_a_store_returning_zero(void)
{
	static const struct fake_hooks hooks = { .store = zero_store };
	struct fake f;

	fake_init(&f, &hooks);
	fake_dir(&f, "g", false);
	fake_dir(&f, "g/os_desc", false);
	fake_attr(&f, "g/os_desc/qw_sign", 0644, "MSFT100");
	EXPECT(fake_restore_text(&f, "set g/os_desc/qw_sign \"\"\n") == 1);
	EXPECT(strstr(ktap_stderr(), "write(2) returned 0"));
	EXPECT(f.nr_stores == 0);
	fake_free(&f);
	return true;
}

/* LIO's: a new dbroot only while no backstore exists. */
static int dbroot_store(struct fake *fake, const char *path, const char *v)
{
	(void)fake;
	(void)v;
	return strcmp(path, "target/dbroot") &&
	       strcmp(path, "target/core/alua/b") ? 0 : -EINVAL;
}

/*
 * target/dbroot, which rtslib-fb-targetctl may have set first and the
 * kernel then refuses to change, is a warning: the rest of the tree is
 * restored, and the run does not fail on it (the deb guest's seventh
 * run: the boot unit failed on it once rtslib had started).
 */
static bool restore_warns_of_a_refused_dbroot_and_goes_on(void)
{
	static const struct fake_hooks hooks = { .store = dbroot_store };
	struct fake f;

	fake_init(&f, &hooks);
	fake_dir(&f, "target", false);
	fake_attr(&f, "target/dbroot", 0644, "/etc/rtslib-fb-target");
	fake_dir(&f, "target/core", false);
	fake_dir(&f, "target/core/alua", false);
	fake_attr(&f, "target/core/alua/a", 0644, "0");
	fake_attr(&f, "target/core/alua/b", 0644, "0");
	EXPECT(fake_restore_text(&f, "set target/dbroot /var/target\n"
				 "set target/core/alua/a 1\n") == 0);
	EXPECT(strstr(ktap_stderr(), "target/dbroot: warning: left as it is"));
	EXPECT(strstr(ktap_stderr(),
		      "(test:1: set target/dbroot /var/target): Invalid argument"));
	EXPECT_STR(fake_value(&f, "target/core/alua/a"), "1");
	EXPECT_STR(fake_value(&f, "target/dbroot"), "/etc/rtslib-fb-target");
	/* Any other refused value still counts. */
	EXPECT(fake_restore_text(&f, "set target/dbroot /var/target\n"
				 "set target/core/alua/b 1\n") == 1);
	EXPECT(strstr(ktap_stderr(), "target/core/alua/b: not applied"));
	fake_free(&f);
	return true;
}

static bool restore_writes_write_only_values_only_into_new_dirs(void)
{
	struct fake f;
	const char *text = "mkdir nvmet/subsystems/s1\n"
			   "mkdir nvmet/subsystems/s1/namespaces/1\n"
			   "set nvmet/subsystems/s1/namespaces/1/revalidate_size 1\n";

	model_nvmet(&f);
	EXPECT(fake_restore_text(&f, text) == 0);
	EXPECT(f.nr_stores == 1);
	f.nr_stores = 0;
	EXPECT(fake_restore_text(&f, text) == 0);
	EXPECT(f.nr_stores == 0);
	fake_free(&f);
	return true;
}

#define H1_TO_S2 \
	"link nvmet/subsystems/s1/allowed_hosts/h1 nvmet/subsystems/s2\n"

static bool restore_does_not_replace_a_link_pointing_elsewhere(void)
{
	struct fake f;

	build_nvmet(&f);
	user_mkdir(&f, "nvmet/subsystems/s2");
	EXPECT(fake_restore_text(&f, H1_TO_S2) == 1);
	EXPECT(strstr(ktap_stderr(), "exists, pointing to nvmet/hosts/h1"));
	fake_free(&f);
	return true;
}

static bool restore_rejects_a_bad_file_and_changes_nothing(void)
{
	struct fake f;

	model_generic(&f);
	EXPECT(fake_restore_text(&f, "mkdir sub/i\nset sub/i/a \"1\nmkdir sub/j\n")
	       == -1);
	EXPECT(!fake_exists(&f, "sub/i") && !fake_exists(&f, "sub/j"));
	EXPECT(f.fs.nr_changes == 0);
	fake_free(&f);
	return true;
}

static bool keep_carries_write_only_values_into_the_next_save(void)
{
	struct script keep = { 0 };
	const char *old = "set sub/i/wo \"secret value\"\nset sub/gone/wo 1\n";
	char *text = NULL;
	size_t len = 0;
	struct fake f;
	FILE *out;

	model_generic(&f);
	user_mkdir(&f, "sub/i");
	EXPECT(format_parse(&keep, "old", old, strlen(old)) == 0);
	out = open_memstream(&text, &len);
	EXPECT(save_tree(&f.fs, "sub", &keep, 0, out) == 0);
	fclose(out);
	EXPECT(strstr(text, "set sub/i/wo \"secret value\"\n"));
	EXPECT(!strstr(text, "# write-only"));
	EXPECT(!strstr(text, "gone"));
	free(text);
	script_free(&keep);
	fake_free(&f);
	return true;
}

static bool diff_shows_changed_added_and_failing_statements(void)
{
	struct script s = { 0 };
	const char *text = "mkdir sub/i\nset sub/i/a 7\nset sub/i/zz 1\n"
			   "mkdir sub/new\nset sub/new/a 3\nset sub/i/b \"\"\n";
	char *out = NULL;
	size_t len = 0;
	struct plan p;
	struct fake f;
	FILE *mem;

	model_generic(&f);
	user_mkdir(&f, "sub/i");
	f.fs.nr_changes = 0;
	EXPECT(format_parse(&s, "f", text, strlen(text)) == 0);
	EXPECT(plan_build(&p, &s, "f") == 0);
	mem = open_memstream(&out, &len);
	EXPECT(apply_describe(&p, &f.fs, NULL, APPLY_BY_LINE, mem, NULL) == 4);
	fclose(mem);
	EXPECT_STR(out, "-set sub/i/a 0\n+set sub/i/a 7\n"
		   "!set sub/i/zz 1\n#  ^ No such file or directory\n"
		   "+mkdir sub/new\n+set sub/new/a 3\n");
	EXPECT(f.fs.nr_changes == 0);
	free(out);
	plan_free(&p);
	script_free(&s);
	fake_free(&f);
	return true;
}

static bool restore_handles_ten_thousand_items_quickly(void)
{
	struct fake f;
	char path[64];
	char *s;
	int i;

	model_generic(&f);
	for (i = 0; i < 2500; i++) {
		snprintf(path, sizeof(path), "sub/i%04d", i);
		user_mkdir(&f, path);
	}
	/* 2,500 items of 8 entries each: 20,000 nodes. */
	s = fake_save(&f, "sub");
	EXPECT(rm_paths(&f.fs, (char *[]){ "sub" }, 1, true, false) == 0);
	f.fs.nr_changes = 0;
	EXPECT(fake_restore_text(&f, s) == 0);
	EXPECT(f.fs.nr_changes == 2500);
	free(s);
	fake_free(&f);
	return true;
}

/*
 * A LIO-like device: enable resets attrib/block_size to the hardware's
 * 512, as a fileio device does; with @refuse_when_enabled, block_size
 * is EBUSY once enabled.
 */
static bool lio_dev_refuse_when_enabled;
static bool lio_dev_refuse_when_linked;

static int lio_dev_mkdir(struct fake *fake, const char *path)
{
	char sub[256];

	snprintf(sub, sizeof(sub), "%s/enable", path);
	fake_attr(fake, sub, 0644, "0");
	snprintf(sub, sizeof(sub), "%s/attrib", path);
	fake_dir(fake, sub, true);
	snprintf(sub, sizeof(sub), "%s/attrib/block_size", path);
	fake_attr(fake, sub, 0644, "512");
	return 0;
}

static int lio_dev_store(struct fake *fake, const char *path,
			 const char *value)
{
	size_t len = strlen(path);

	if (len > 7 && !strcmp(path + len - 7, "/enable") &&
	    !strcmp(value, "1")) {
		fake_set(fake, "core/d/attrib/block_size", "512");
		return 0;
	}
	if (lio_dev_refuse_when_enabled &&
	    !strcmp(fake_value(fake, "core/d/enable"), "1"))
		return -EBUSY;
	/* LIO: no block_size once a LUN exports the device. */
	if (lio_dev_refuse_when_linked && fake_nr_links_to(fake, "core/d"))
		return -EINVAL;
	return 0;
}

static const struct fake_hooks lio_dev_hooks = {
	.mkdir = lio_dev_mkdir,
	.store = lio_dev_store,
};

#define LIO_DEV_FILE \
	"mkdir core\nmkdir core/d\nmkdir core/d/attrib\n" \
	"set core/d/attrib/block_size 4096\nset core/d/enable 1\n"

static bool restore_rewrites_a_value_a_later_write_reset(void)
{
	struct fake f;

	fake_init(&f, &lio_dev_hooks);
	fake_dir(&f, "core", false);
	lio_dev_refuse_when_enabled = false;
	EXPECT(fake_restore_text(&f, LIO_DEV_FILE) == 0);
	EXPECT_STR(fake_value(&f, "core/d/attrib/block_size"), "4096");
	EXPECT_STR(fake_value(&f, "core/d/enable"), "1");
	EXPECT(fake_log_pos(&f, "set core/d/attrib/block_size=4096") <
	       fake_log_pos(&f, "set core/d/enable=1"));
	fake_free(&f);
	return true;
}

/*
 * The reset value is written again right after the switch, before the
 * links: once the device is exported, it would be refused.
 */
static bool restore_rewrites_a_reset_value_before_the_links(void)
{
	struct fake f;

	fake_init(&f, &lio_dev_hooks);
	fake_dir(&f, "core", false);
	fake_dir(&f, "lun", false);
	lio_dev_refuse_when_linked = true;
	EXPECT(fake_restore_text(&f, LIO_DEV_FILE "link lun/d core/d\n") ==
	       0);
	EXPECT_STR(fake_value(&f, "core/d/attrib/block_size"), "4096");
	EXPECT(fake_nr_links_to(&f, "core/d") == 1);
	lio_dev_refuse_when_linked = false;
	fake_free(&f);
	return true;
}

static bool restore_reports_a_value_the_kernel_changed(void)
{
	struct fake f;

	fake_init(&f, &lio_dev_hooks);
	fake_dir(&f, "core", false);
	lio_dev_refuse_when_enabled = true;
	EXPECT(fake_restore_text(&f, LIO_DEV_FILE) == 1);
	EXPECT(strstr(ktap_stderr(),
		      "block_size 4096): changed by the kernel after it"));
	EXPECT(strstr(ktap_stderr(),
		      "; reads 512; writing it again: Device or resource busy"));
	lio_dev_refuse_when_enabled = false;
	fake_free(&f);
	return true;
}

/* A UDC class directory: a.udc bound to g0, b.udc and c.udc free. */
static char *make_udc_class(void)
{
	char *dir = strdup("/tmp/cfs-udc-XXXXXX");
	char path[256];
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/c.udc", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/b.udc", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/b.udc/function", dir);
	f = fopen(path, "w");
	fputs("\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/a.udc", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/a.udc/function", dir);
	f = fopen(path, "w");
	fputs("g0\n", f);
	fclose(f);
	return dir;
}

static bool save_portable_binds_a_gadget_to_any_free_udc(void)
{
	char *dir = make_udc_class();
	char *text = NULL;
	char cmd[128];
	size_t n = 0;
	struct fake f;
	FILE *out;

	build_gadget(&f);
	out = open_memstream(&text, &n);
	EXPECT(save_tree(&f.fs, "usb_gadget", NULL, SAVE_PORTABLE, out) == 0);
	fclose(out);
	EXPECT(strstr(text, "\nudc usb_gadget/g1/UDC\n"));
	EXPECT(!strstr(text, "dummy_udc.0"));
	EXPECT(rm_paths(&f.fs, (char *[]){ "usb_gadget/g1" }, 1, true,
			false) == 0);
	cfs_opts.udc_class = dir;
	EXPECT(fake_restore_text(&f, text) == 0);
	EXPECT_STR(fake_value(&f, "usb_gadget/g1/UDC"), "b.udc");
	EXPECT(fake_nr_links_in(&f, "usb_gadget/g1/configs/c.1") == 2);
	/* Bound to any: nothing to do. */
	f.nr_stores = 0;
	EXPECT(fake_restore_text(&f, text) == 0);
	EXPECT(f.nr_stores == 0);
	cfs_opts.udc_class = "/nonexistent";
	user_set(&f, "usb_gadget/g1/UDC", "");
	EXPECT(fake_restore_text(&f, text) == 1);
	EXPECT(strstr(ktap_stderr(), "no free USB device controller"));
	cfs_opts.udc_class = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		abort();
	free(dir);
	free(text);
	fake_free(&f);
	return true;
}

const struct ktap_case restore_cases[] = {
	KTAP_CASE(restore_takes_an_empty_value_kept_as_a_newline),
	KTAP_CASE(save_skips_read_only_and_notes_write_only),
	KTAP_CASE(save_notes_unreadable_values),
	KTAP_CASE(save_is_byte_identical_twice),
	KTAP_CASE(restore_round_trips_awkward_names_and_values),
	KTAP_CASE(restore_onto_a_matching_tree_writes_nothing),
	KTAP_CASE(restore_adds_what_a_partial_tree_lacks),
	KTAP_CASE(restore_powers_null_blk_after_its_size),
	KTAP_CASE(restore_undoes_a_power_that_came_too_early),
	KTAP_CASE(restore_enables_netconsole_after_its_addresses),
	KTAP_CASE(restore_binds_a_gadget_after_its_links_and_descriptors),
	KTAP_CASE(restore_links_a_partial_gadget_before_binding_it),
	KTAP_CASE(restore_configures_nvmet_ports_before_linking_them),
	KTAP_CASE(restore_sets_a_tcm_loop_nexus_before_its_luns),
	KTAP_CASE(restore_writes_a_labelled_value_without_its_label_never_speculatively),
	KTAP_CASE(restore_undoes_a_link_that_blocks_port_changes),
	KTAP_CASE(restore_reports_what_it_could_not_apply),
	KTAP_CASE(restore_reports_statements_under_a_failed_mkdir),
	KTAP_CASE(restore_reports_a_store_returning_zero),
	KTAP_CASE(restore_writes_write_only_values_only_into_new_dirs),
	KTAP_CASE(restore_does_not_replace_a_link_pointing_elsewhere),
	KTAP_CASE(restore_rejects_a_bad_file_and_changes_nothing),
	KTAP_CASE(keep_carries_write_only_values_into_the_next_save),
	KTAP_CASE(diff_shows_changed_added_and_failing_statements),
	KTAP_CASE(restore_handles_ten_thousand_items_quickly),
	KTAP_CASE(restore_rewrites_a_value_a_later_write_reset),
	KTAP_CASE(restore_rewrites_a_reset_value_before_the_links),
	KTAP_CASE(restore_reports_a_value_the_kernel_changed),
	KTAP_CASE(restore_warns_of_a_refused_dbroot_and_goes_on),
	KTAP_CASE(save_portable_binds_a_gadget_to_any_free_udc),
};

const size_t nr_restore_cases = ARRAY_SIZE(restore_cases);
