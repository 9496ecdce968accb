# SPDX-License-Identifier: GPL-2.0
#
# configfs-ng: build, run, check. See README.md.
#
#   make              build the module, the samples, the tool, the tests
#   make run          boot a throwaway VM with our configfs and the sample
#   make check        every check and test; CONFIGFS=stock|ours|"ours stock"
#   make guest        the guest suite alone (LIST=file for one list)
#   make check-debug  the suites on a debug kernel built from Debian's source
#   make check-kernel the suites on the second kernel (6.12) alone
#   make check-arm64  both kernels' arm64 twins: cross-built, CRCs vs stock
#                     (ARM64_BOOT=1: also booted, the lists run in them)
#   make check-ppc64el  both kernels' ppc64el twins, 64K pages: cross-built,
#                     CRCs vs stock, booted, the lists run in them
#   make check-targetcli  the tool against targetcli, in a Debian guest
#   make series       the patch series against linux-source-6.12, into
#                     build/series (docs/upstream.md)
#   make check-intree the series built into a 6.12 kernel, booted, tested
#                     (INTREE_MODE=quick: no KASAN/lockdep, fewer lists;
#                     INTREE_MODULAR=1: configfs=m; INTREE_AT=N: patch N)
#   make fuzz         differential fuzzing, ours vs stock (SEEDS=N,
#                     CONCURRENT=N seeds of several processes at once)
#   make fuzz-debug   the differential fuzzer on the debug kernel
#   make fuzz-syscalls  trinity for ten minutes on the debug kernel
#   make soak         real clients at once for MINUTES (30), ours and stock
#   make bench        benchmarks, ours vs stock vs tmpfs (QUICK=1: short)
#   make bench-fakenbd  fakenbd's I/O against nbd.ko's, with fio
#   make bench-profile  where the time of a mkdir goes (function_graph)
#   make bench-smp      two processes over one, on two vCPUs (issue 37)
#   make bench-perf     where it goes, sampled by perf (PERF_READS=1: reads;
#                       PERF_STATS=1: stats)
#   make bench-clients  targetcli, nvmetcli and the tool on big trees, ours
#                       vs stock (BENCH_CLIENTS_QUICK=1: 20 LUNs, one round)
#   make lint         the static checks alone
#   make deb          the Debian packages, into build/deb (docs/packaging.md)
#   make deb-arm64    the same cross-built for arm64, into build/deb-arm64
#   make check-deb    the packages proved in a Debian guest (GUEST_KVERS=...)
#   make install      DKMS source (and dkms install), tool, man page; PREFIX
#   make uninstall    what make install put there, and DKMS's module
#   make clean        back to the tree as cloned

CNG_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/configfs-ng
ifdef KVER
ENV_MK := $(CNG_CACHE)/env-$(KVER).mk
else
ENV_MK := $(CNG_CACHE)/env.mk
endif

# Goals that need no target kernel do not run scripts/prereqs.sh.
NO_ENV_GOALS := clean deb deb-arm64 series install dkms-install install-tool install-fallback \
	uninstall
ifneq ($(filter-out $(NO_ENV_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(ENV_MK)
endif

TOP := $(CURDIR)
BUILD := $(TOP)/build
CONFIGFS ?= ours stock
# make check also proves a second kernel (the newest 6.12 of Debian 12, or
# SECOND_KVER=release); not when KVER picks one kernel on the command line.
ifeq ($(origin KVER),command line)
SECOND_KVER ?= none
endif
export CNG_CACHE KVER KDIR KIMG KSRC TOP BUILD CONFIGFS QUICK SECOND_KVER

USER_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror
# The fault campaign's other names: its tables run by the name they are
# run by (tests/faults/fault_campaign.c).
FAULT_LINKS := $(BUILD)/tests/bin/ext_faults $(BUILD)/tests/bin/commit_faults
# Guest programs: each area's tests/<area>/*.c and the shared library's
# helpers (tests/lib), one program each, by the name of its source.
GUEST_AREAS := $(filter-out tests/harness/ tests/host/ tests/modules/ \
		 tests/deb/ tests/debian/,$(sort $(dir $(wildcard tests/*/))))
GUEST_SRCS := $(wildcard $(addsuffix *.c,$(GUEST_AREAS)) tests/lib/clients/*.c)
GUEST_PROGS := $(addprefix $(BUILD)/tests/bin/,$(notdir $(GUEST_SRCS:.c=))) \
	$(BUILD)/tests/bin/bench_driver $(FAULT_LINKS)
vpath %.c $(sort $(dir $(GUEST_SRCS)))

all: module helpers samples testmods drivers tool guest-progs

# The KVER the user gave, not the one $(ENV_MK) itself set: else a stale
# env.mk would be rewritten as env-$(KVER).mk, and stay stale.
$(ENV_MK): scripts/prereqs.sh
	KVER=$(if $(filter file,$(origin KVER)),,$(KVER)) scripts/prereqs.sh

prereqs:
	KVER=$(KVER) scripts/prereqs.sh

module:
	$(MAKE) -C $(KDIR) M=$(TOP)/module W=1 KCFLAGS=-Werror modules

# The helpers' library, configfs_helpers.ko (include/configfs-ng-helpers.h):
# stock's exports alone, so the kernel's Module.symvers is all it needs.
helpers:
	$(MAKE) -C $(KDIR) M=$(TOP)/helpers W=1 KCFLAGS=-Werror modules

# What a client links to: our module's exports and the helpers'.
CLIENT_SYMBOLS := $(TOP)/module/Module.symvers $(TOP)/helpers/Module.symvers

samples: module helpers
	$(MAKE) -C $(KDIR) M=$(TOP)/samples W=1 KCFLAGS=-Werror \
		KBUILD_EXTRA_SYMBOLS="$(CLIENT_SYMBOLS)" modules
	rm -rf $(BUILD)/samples
	mkdir -p $(BUILD)/samples
	# What this kernel built (cng_visible needs 6.12), not a stale .ko.
	cp $$(sed 's/\.o$$/.ko/' samples/modules.order) $(BUILD)/samples/

# Test-only client modules (tests/modules/), beside the samples in the
# guest's /lib/modules/cng.
testmods: module helpers
	$(MAKE) -C $(KDIR) M=$(TOP)/tests/modules W=1 KCFLAGS=-Werror \
		KBUILD_EXTRA_SYMBOLS="$(CLIENT_SYMBOLS)" modules
	rm -rf $(BUILD)/testmods
	mkdir -p $(BUILD)/testmods
	cp $$(sed 's/\.o$$/.ko/' tests/modules/modules.order) $(BUILD)/testmods/

# Drivers built on the module: fakenbd (drivers/fakenbd/README.md)
drivers: module helpers
	$(MAKE) -C $(KDIR) M=$(TOP)/drivers/fakenbd W=1 KCFLAGS=-Werror \
		KBUILD_EXTRA_SYMBOLS="$(CLIENT_SYMBOLS)" modules
	rm -rf $(BUILD)/drivers
	mkdir -p $(BUILD)/drivers
	# None on a kernel it is not written for (drivers/fakenbd/Kbuild).
	for ko in $$(sed 's/\.o$$/.ko/' drivers/fakenbd/modules.order); do \
		cp $$ko $(BUILD)/drivers/; done

tool:
	if [ -f tools/configfs/Makefile ]; then $(MAKE) -C tools/configfs; fi

$(BUILD)/tests/init: tests/harness/init.c tests/harness/kernel-reports.h
	mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -static -o $@ $<

$(BUILD)/tests/bin/%: %.c
	mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Itests/lib -static -pthread -o $@ $< -lrt

# A program is rebuilt when a shared header changes, as when its source does.
$(GUEST_PROGS): $(wildcard tests/lib/*.h $(addsuffix *.h,$(GUEST_AREAS)))
# better_runas includes the library's conf_sys.c whole.
$(BUILD)/tests/bin/better_runas: tests/lib/conf_sys.c

# The differential fuzzer is two files; diff/ is out of the wildcard (a
# folder named as a list entry would shadow the program in the guest).
$(BUILD)/tests/bin/fuzz_diff: tests/fuzz/fuzz_diff.c \
		tests/fuzz/diff/conc.c tests/fuzz/diff/fuzz_diff.h
	mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Itests/lib -static -pthread -o $@ \
		$(filter %.c,$^) -lrt

# The fault campaign is its driver and a table per area, in campaign/.
$(BUILD)/tests/bin/fault_campaign: tests/faults/fault_campaign.c \
		$(wildcard tests/faults/campaign/*.c tests/faults/campaign/*.h)
	mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -Itests/lib -static -pthread -o $@ \
		$(filter %.c,$^) -lrt

$(FAULT_LINKS): $(BUILD)/tests/bin/fault_campaign
	ln -sf fault_campaign $@

# The benchmark's driver itself, for tests/bench/bench_quick.sh.
$(BUILD)/tests/bin/bench_driver: bench/cng_bench_driver.c
	mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -static -pthread -o $@ $< -lrt

# The tool the guest runs: the one built here, or (GUEST_TOOL=) another,
# as scripts/check-cross.sh gives its cross-built one with BUILD= and CC=.
GUEST_TOOL ?= tools/configfs/configfs

guest-progs: $(BUILD)/tests/init $(GUEST_PROGS)
	mkdir -p $(BUILD)/tests/bin
	if [ -x $(GUEST_TOOL) ]; then \
		cp $(GUEST_TOOL) $(BUILD)/tests/bin/; fi

run: all
	scripts/run-demo.sh

check: all
	tests/harness/check.sh

# The guest suite alone, or one list: make guest LIST=tests/AREA/NN-AREA.list
guest: all
	tests/harness/check.sh guest

# The suites again on a debug kernel (KASAN, lockdep, kmemleak, ...)
check-debug: all
	tests/harness/check.sh debug

# The second kernel alone: make check-kernel [SECOND_KVER=release]
check-kernel: all
	tests/harness/check.sh kernel

# Debian's arm64 kernels of both lines: the modules and the tool
# cross-built, the exports' CRCs checked against arm64 stock; with
# ARM64_BOOT=1, each kernel booted in qemu-system-aarch64 and the smoke,
# ABI, conformance, differences, extensions, helpers and fakenbd lists
# and the USB gadget tests run there on ours and on stock
# (scripts/check-cross.sh; ARM64_LISTS=...). Its own output directory: it may run beside
# make check.
check-arm64:
	CHECK_OUT=$${CHECK_OUT:-$(BUILD)/check-arm64} tests/harness/check.sh arm64

# The same for Debian's ppc64el kernels, whose pages are 64K (the 6.1
# flavour and 6.12's -64k), always booted in qemu-system-ppc64: the
# smoke, ABI, conformance, differences, extensions, helpers and fakenbd
# lists and a show of a whole 64K page on ours and on stock
# (PPC64EL_LISTS=...).
check-ppc64el:
	CHECK_OUT=$${CHECK_OUT:-$(BUILD)/check-ppc64el} tests/harness/check.sh ppc64el

# The tool against targetcli, in a Debian guest (issue 22; ~3 min quiet)
check-targetcli: all
	tests/harness/check.sh targetcli

# configfs-ng as a patch series for Debian's linux-source-6.12
series:
	scripts/series.sh $(BUILD)/series

# The series built in (CONFIG_CONFIGFS_FS=y), booted, the lists run there
check-intree: all
	tests/harness/check.sh intree

# Differential fuzzing, ours against stock: SEEDS=N (200), FIRST=, NOPS=;
# then CONCURRENT=N (20) seeds of PROCS=N (4) processes at once, checked
fuzz: all
	CONC=$(or $(CONCURRENT),20) PROCS=$(or $(PROCS),4) \
	scripts/fuzz-diff.sh $(or $(SEEDS),200) $(or $(FIRST),0) $(or $(NOPS),60)

# The differential fuzzer's default job on the debug kernel (KASAN,
# lockdep, kmemleak on both modules): tests/fuzz/fuzz-diff-debug.list
fuzz-debug: all
	DEBUG_LISTS=tests/fuzz/fuzz-diff-debug.list DEBUG_SELFTEST=0 \
	CONFIGFS=ours tests/harness/check.sh debug

# System-call fuzzing: trinity for ten minutes as an unprivileged user on
# the debug kernel (tests/fuzz/fuzz-syscalls.list); ours unless CONFIGFS
# is given on the command line
fuzz-syscalls: all
	DEBUG_LISTS=tests/fuzz/fuzz-syscalls.list DEBUG_SELFTEST=0 \
	CONFIGFS="$(if $(filter command line,$(origin CONFIGFS)),$(CONFIGFS),ours)" \
		tests/harness/check.sh debug

# Soak with real clients (tests/soak/soak.sh) for MINUTES minutes (30),
# one boot per module of CONFIGFS at once; make check runs its short form
soak: all
	scripts/soak.sh $(or $(MINUTES),30)

# Benchmarks: ours vs stock vs tmpfs in one boot (QUICK=1: a reduced set)
bench: all
	scripts/bench.sh

# fakenbd's disk against the kernel's NBD client, one export, one boot
bench-fakenbd: all
	scripts/bench-fakenbd.sh

# Where a mkdir's time goes: function_graph in the guest, ours/tmpfs/stock
bench-profile: all
	scripts/bench-profile.sh

bench-perf: all
	scripts/bench-perf.sh

# One process against two at once on a 2-vCPU guest: ours, stock, tmpfs
bench-smp: all
	scripts/bench-smp.sh

# Real clients on big trees, ours against stock, in one Debian guest:
# BENCH_CLIENTS_N (LUNs: 1000 4000), BENCH_CLIENTS_M (nvmet subsystems:
# 1000), BENCH_CLIENTS_ROUNDS (3); BENCH_CLIENTS_QUICK=1: 20, 20, 1
bench-clients: all
	scripts/bench-clients.sh

lint: module helpers
	tests/harness/check.sh lint

# The Debian packages, built from a copy of the tree (scripts/mkdeb.sh).
deb:
	TOP=$(TOP) BUILD=$(BUILD) scripts/mkdeb.sh

# The same for arm64, cross-built, into build/deb-arm64.
deb-arm64:
	DEB_ARCH=arm64 TOP=$(TOP) BUILD=$(BUILD) scripts/mkdeb.sh

# Both packages installed, used and purged in a guest, on each kernel.
check-deb: deb
	scripts/check-deb.sh $(or $(GUEST_KVERS),$(KVER))

# The non-Debian install. The module's source goes where DKMS looks
# (dkms.conf beside module/ and include/); without DESTDIR, DKMS (when
# present) then builds and installs it for the running kernel, after
# removing any other version of configfs-ng from DKMS (so that only this
# one is built for kernels installed later). modprobe's fallback to the
# kernel's configfs.ko (modprobe.d, libexec) and its initramfs hook go
# where configfs-ng-dkms puts them. make uninstall undoes it all.
PREFIX ?= /usr/local
CNG_VERSION := $(shell cat module/VERSION)
DKMS_SRC := $(DESTDIR)/usr/src/configfs-ng-$(CNG_VERSION)
LIBEXEC := $(DESTDIR)/usr/libexec/configfs-ng
MODPROBE_CONF := $(DESTDIR)/lib/modprobe.d/configfs-ng.conf
INITRAMFS_HOOK := $(DESTDIR)/usr/share/initramfs-tools/hooks/configfs-ng
# The versions DKMS knows other than this one.
DKMS_OTHERS = dkms status configfs-ng 2> /dev/null | \
	sed -n 's|^configfs-ng/\([^,:]*\)[,:].*|\1|p' | sort -u | \
	grep -vxF '$(CNG_VERSION)'

dkms-install:
	install -d $(DKMS_SRC)/module $(DKMS_SRC)/include
	install -m 0644 module/Kbuild module/Makefile module/VERSION \
		module/dkms-make.sh module/*.c module/*.h $(DKMS_SRC)/module/
	install -m 0644 include/*.h $(DKMS_SRC)/include/
	sed 's/#MODULE_VERSION#/$(CNG_VERSION)/' module/dkms.conf \
		> $(DKMS_SRC)/dkms.conf

install-fallback:
	install -d $(LIBEXEC)
	sed 's/#MODULE_VERSION#/$(CNG_VERSION)/' module/system/modprobe-configfs \
		> $(LIBEXEC)/modprobe-configfs
	chmod 0755 $(LIBEXEC)/modprobe-configfs
	install -D -m 0644 module/system/configfs-ng.conf $(MODPROBE_CONF)
	install -D -m 0755 module/system/initramfs-hook $(INITRAMFS_HOOK)

install-tool: tool
	install -D -m 0755 tools/configfs/configfs $(DESTDIR)$(PREFIX)/sbin/configfs
	install -D -m 0644 tools/configfs/configfs.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/configfs.8

install: dkms-install install-fallback install-tool
	if [ -z "$(DESTDIR)" ] && command -v dkms > /dev/null; then \
		for v in $$($(DKMS_OTHERS)); do \
			echo "removing configfs-ng $$v from DKMS"; \
			dkms remove configfs-ng/$$v --all || exit 1; \
			rm -rf /usr/src/configfs-ng-$$v; \
		done; \
		dkms install configfs-ng/$(CNG_VERSION); \
	else \
		echo "DKMS source in $(DKMS_SRC); build it with: dkms install configfs-ng/$(CNG_VERSION)"; \
	fi
	echo "the initramfs still holds the configfs.ko it had: update-initramfs -u -k all"

uninstall:
	if [ -z "$(DESTDIR)" ] && command -v dkms > /dev/null && \
	   dkms status configfs-ng/$(CNG_VERSION) | grep -q .; then \
		dkms remove configfs-ng/$(CNG_VERSION) --all; \
	fi
	rm -rf $(DKMS_SRC) $(LIBEXEC)
	rm -f $(MODPROBE_CONF) $(INITRAMFS_HOOK) \
		$(DESTDIR)$(PREFIX)/sbin/configfs \
		$(DESTDIR)$(PREFIX)/share/man/man8/configfs.8
	echo "the initramfs still holds the configfs.ko it had: update-initramfs -u -k all"

clean:
	find module helpers samples tests/modules drivers \( -name '*.o' \
		-o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.symvers' \
		-o -name 'modules.order' -o -name '.*.d' \) -delete
	rm -rf module/.tmp_versions helpers/.tmp_versions samples/.tmp_versions \
		tests/modules/.tmp_versions \
		drivers/fakenbd/.tmp_versions $(BUILD)
	if [ -f tools/configfs/Makefile ]; then $(MAKE) -C tools/configfs clean; fi
	if [ -f tests/host/Makefile ]; then $(MAKE) -C tests/host clean; fi

.PHONY: all prereqs module helpers samples testmods drivers tool guest-progs series check-intree \
	run check guest \
	check-debug check-kernel check-arm64 check-ppc64el check-targetcli fuzz fuzz-debug fuzz-syscalls \
	soak bench bench-fakenbd bench-profile bench-perf bench-smp bench-clients \
	lint clean deb deb-arm64 check-deb \
	install-fallback uninstall \
	dkms-install install-tool install
