# SPDX-License-Identifier: GPL-2.0
# configfs as user space sees it, through samples/configfs
# (scripts/intree.sh writes this file as the selftest's Makefile).

TEST_PROGS := configfs.sh
TEST_GEN_PROGS_EXTENDED := configfs_ext_util
CFLAGS += -Wall -O2 $(KHDR_INCLUDES)

include ../../lib.mk
