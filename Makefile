# SPDX-License-Identifier: GPL-2.0
# pi-futex: fetch the pinned kernel, apply the series, build, boot under
# QEMU, run the suites, print a verdict.  `make help` lists the targets.

ROOT      := $(CURDIR)
BUILD     := $(ROOT)/build
# Kernel pins: one file per kernel line in pins/ (pins/7.3 explains the
# fields); pins/default names the mainline pin.
PINS      := $(filter-out default,$(notdir $(wildcard $(ROOT)/pins/*)))
MAINLINE  := $(shell readlink $(ROOT)/pins/default)
KERNEL    ?= $(MAINLINE)
ifeq ($(filter $(KERNEL),$(PINS)),)
$(error unknown KERNEL=$(KERNEL); pins: $(PINS))
endif
include $(ROOT)/pins/$(KERNEL)
export KERNEL
SRC       := $(BUILD)/linux-$(subst :,_,$(subst ~,_,$(PIN_VERSION)))
# Kernel flavour: fragments from kernel-config/ merged onto tinyconfig.
FLAVOUR   ?= debug
FRAGS_base  := base.config
FRAGS_debug := base.config debug.config
FRAGS_kasan := base.config debug.config kasan.config
FRAGS     := $(addprefix $(ROOT)/kernel-config/,$(FRAGS_$(FLAVOUR)))
OBJ       := $(BUILD)/obj-$(KERNEL)-$(FLAVOUR)
BZIMAGE   := $(OBJ)/arch/x86/boot/bzImage
INITRAMFS := $(BUILD)/initramfs-$(KERNEL)-$(FLAVOUR).cpio.gz
GUESTBIN  := $(BUILD)/guest-bin
SELFTESTS := $(BUILD)/selftests-$(KERNEL)-$(FLAVOUR)
LOGS      := $(BUILD)/logs
SMP       ?= 2
MEM       ?= 512M
TIMEOUT   ?= 1800
APPEND    ?=
RTTEST_EXTRA ?=
STAGE     := $(ROOT)/tools/stage.sh

GUEST_C   := $(wildcard tests/guest/*.c)
GUEST_BINS := $(patsubst tests/guest/%.c,$(GUESTBIN)/%,$(GUEST_C))

ifeq ($(FRAGS_$(FLAVOUR)),)
$(error unknown FLAVOUR=$(FLAVOUR); known: base debug kasan)
endif

.PHONY: help deps fetch kernel patch config initramfs guest-bins selftests run check \
	lint export apply-check bisect-check bench bench-guest stress matrix check-full \
	campaign \
	check-host check-negative shell clean distclean repin prove-fixes

help:
	@echo "pi-futex targets:"
	@echo "  make run        fetch, patch, build, boot, run the suites, print the verdict"
	@echo "  make check      host tests, lint, the suite on $(MAINLINE) at SMP 1/2/4 and on"
	@echo "                  the other pins at SMP $(STABLE_SMP), a negative control,"
	@echo "                  apply-check, bisect-check (what CI runs)"
	@echo "  make check-full make check, prove-fixes, then the KASAN flavour at SMP 1/2/4"
	@echo "  make matrix     the whole guest suite at each of MATRIX_SMP='$(MATRIX_SMP)' vCPUs"
	@echo "  make deps       install the Debian packages needed (done automatically)"
	@echo "  make fetch      download + verify + extract the pinned kernel (pins/KERNEL)"
	@echo "  make patch      apply the quilt series (incremental)"
	@echo "  make config     merge kernel-config/ fragments, verify every option survived"
	@echo "  make kernel     fetch + patch + config + bzImage"
	@echo "  make initramfs  BusyBox + python3 + guest suites, via gen_init_cpio"
	@echo "  make shell      boot the kernel with an interactive BusyBox shell"
	@echo "  make lint       checkpatch --strict and mail headers of every patch"
	@echo "  make export     build/outgoing/KERNEL/{fixes,tester}/: mails + cover letters (DCO='Name <addr>')"
	@echo "  make prove-fixes boot the series with each fix taken out: its tests must fail"
	@echo "  make apply-check  git am the exported mails onto a clean import, compare with quilt;"
	@echo "                  git am the fixes onto every other pin"
	@echo "  make bisect-check build the kernel after each patch in turn"
	@echo "  make stress     rt-random 2000x50, futex-stress 60 s, bad-input 200000 calls"
	@echo "  make campaign   rt-random alone: SCENARIOS=N from SEED=S, DL_PCT=P"
	@echo "  make bench      PI fast path / hand-off / inversion on the host and on every"
	@echo "                  pin (BENCH_PINS), one table and plots in build/bench/"
	@echo "  make repin      move pins/KERNEL to the newest served version of its line"
	@echo "  make clean      remove build outputs, keep the extracted tree"
	@echo "  make distclean  remove build/ entirely (the download cache stays)"
	@echo "variables: KERNEL=$(KERNEL) ($(PINS)) FLAVOUR=$(FLAVOUR) (base|debug|kasan)"
	@echo "  SMP=$(SMP) MEM=$(MEM)"
	@echo "  TIMEOUT=$(TIMEOUT) APPEND='...' RTTEST_EXTRA=DIR TIMEOUT_FACTOR=N"

deps:
	@$(ROOT)/tools/deps.sh

# Every stage below first makes sure the tools are installed.
fetch:
	@$(ROOT)/tools/deps.sh
	@$(STAGE) fetch $(ROOT)/tools/fetch-kernel.sh $(BUILD)

patch: fetch
	@$(STAGE) patch $(ROOT)/tools/apply-series.sh $(SRC)

config: patch
	@$(STAGE) config $(ROOT)/tools/make-config.sh $(SRC) $(OBJ) $(FRAGS)

kernel: config
	@$(STAGE) build $(ROOT)/tools/build-kernel.sh $(SRC) $(OBJ)

$(GUESTBIN)/%: tests/guest/%.c tests/guest/task-stat.h tests/guest/sched-attr.h
	@mkdir -p $(GUESTBIN)
	@gcc -static -O2 -Wall -Werror -o $@ $< -lpthread

guest-bins: $(GUEST_BINS)

selftests: kernel
	@$(STAGE) selftests $(ROOT)/tools/build-selftests.sh $(SRC) $(OBJ) \
		$(SELFTESTS)

initramfs: kernel guest-bins selftests
	@$(STAGE) initramfs $(ROOT)/tools/mkinitramfs.sh --src $(SRC) \
		--release $(OBJ)/include/config/kernel.release \
		--bindir $(GUESTBIN) --out $(INITRAMFS) \
		--selftests $(SELFTESTS) \
		--host-bin pi_stress --host-bin pip_stress \
		$(if $(RTTEST_EXTRA),--extra-tst $(RTTEST_EXTRA))

# bootlog KERNEL,VCPUS: a boot's serial log, less its .log (the verdict
# is the .json beside it).
bootlog = $(LOGS)/boot-$(1)-$(FLAVOUR)-smp$(2)
# boot VCPUS: the whole suite of rootfs/runlist, then the verdict.
boot = $(STAGE) boot-$(KERNEL)-$(FLAVOUR)-smp$(1) $(ROOT)/tools/run-qemu.sh \
	--kernel $(BZIMAGE) --initrd $(INITRAMFS) --smp $(1) --mem $(MEM) \
	--timeout $(TIMEOUT) $(if $(APPEND),--append "$(APPEND)") \
	--log $(call bootlog,$(KERNEL),$(1)).log

run: initramfs
	@$(call boot,$(SMP))

# The matrix: the whole suite once per vCPU count, for this FLAVOUR.
MATRIX_SMP ?= 1 2 4
matrix: initramfs
	@$(foreach n,$(MATRIX_SMP),$(call boot,$(n)) &&) true

shell: initramfs
	$(ROOT)/tools/run-qemu.sh --shell --kernel $(BZIMAGE) \
		--initrd $(INITRAMFS) --smp $(SMP) --mem $(MEM) \
		$(if $(APPEND),--append "$(APPEND)")

# Host tests need the patched tree for scripts/rt-tester/.
check-host: patch
	@$(STAGE) host-tests env PIFUTEX_SRC=$(SRC) $(ROOT)/tests/host/run.sh

# A canned failing suite, booted for real: the verdict must be FAIL.
check-negative: initramfs
	@$(STAGE) negative $(ROOT)/tests/host/negative-boot.sh \
		$(SRC) $(OBJ) $(BZIMAGE) $(GUESTBIN)

lint: patch
	@$(STAGE) checkpatch $(ROOT)/tools/checkpatch-series.sh $(SRC)
	@$(STAGE) headers $(ROOT)/tools/check-patch-headers.py $(ROOT)/$(PIN_SERIES) $(ROOT)/patches

# The identity on the exported mails' From: and Signed-off-by: lines,
# "Name <address>"; empty means git's user.name and user.email.
DCO ?=
export: patch
	@$(STAGE) export env RUN_VERDICT=$(call bootlog,$(KERNEL),$(SMP)).json \
		PIFUTEX_DCO="$(DCO)" $(ROOT)/tools/export-series.sh export

# Both mail series onto the pin, then the fixes onto every other pin.
apply-check: export
	@$(STAGE) apply-check $(ROOT)/tools/export-series.sh apply-check
	@$(foreach k,$(filter-out $(KERNEL),$(PINS)),\
		$(MAKE) --no-print-directory fetch KERNEL=$(k) && \
		$(STAGE) apply-fixes-$(k) env KERNEL=$(k) \
			$(ROOT)/tools/export-series.sh apply-fixes \
			$(BUILD)/outgoing/$(PIN_LINE)/fixes &&) true

# Each fix of tests/prove-fixes taken out in turn: its tests must fail,
# everything else pass; then the full series (see tools/prove-fixes.sh).
prove-fixes: export initramfs
	@$(STAGE) prove-fixes-$(KERNEL) $(ROOT)/tools/prove-fixes.sh $(SRC) $(OBJ) \
		$(INITRAMFS) $(SMP) $(LOGS)

bisect-check: patch
	@$(STAGE) bisect $(ROOT)/tools/bisect-check.sh $(FRAGS)

# Not part of check: randomized tester scenarios, futex stress and the
# bad-input campaign at stress size (rootfs/runlist-stress).
stress: initramfs
	@$(STAGE) stress-initramfs $(ROOT)/tools/mkinitramfs.sh --src $(SRC) \
		--release $(OBJ)/include/config/kernel.release \
		--bindir $(GUESTBIN) --runlist $(ROOT)/rootfs/runlist-stress \
		--out $(BUILD)/initramfs-stress-$(KERNEL).cpio.gz
	@$(STAGE) stress-$(KERNEL) $(ROOT)/tools/run-qemu.sh --kernel $(BZIMAGE) \
		--initrd $(BUILD)/initramfs-stress-$(KERNEL).cpio.gz --smp $(SMP) \
		--mem $(MEM) --timeout 7200 $(if $(APPEND),--append "$(APPEND)") \
		--log $(LOGS)/stress-$(KERNEL)-$(FLAVOUR)-smp$(SMP).log

# Not part of check: rt-random alone, SCENARIOS x 50 steps from SEED on SMP
# vCPUs, DL_PCT percent SCHED_DEADLINE picks; the log is
# build/logs/campaign-KERNEL-FLAVOUR-smpSMP-seedSEED.log.
SEED      ?= 1
SCENARIOS ?= 2000
DL_PCT    ?= 0
CAMPAIGN  := campaign-$(KERNEL)-$(FLAVOUR)-smp$(SMP)-seed$(SEED)
campaign: initramfs
	@mkdir -p $(LOGS)
	@echo "rt-random $$(($(SCENARIOS) * 4 + 600)) python3 /usr/share/pi-futex/tests/rt-random.py --seed $(SEED) --scenarios $(SCENARIOS) --steps 50 --dl-pct $(DL_PCT)" \
		>$(BUILD)/runlist-$(CAMPAIGN)
	@$(STAGE) campaign-initramfs $(ROOT)/tools/mkinitramfs.sh --src $(SRC) \
		--release $(OBJ)/include/config/kernel.release \
		--bindir $(GUESTBIN) --runlist $(BUILD)/runlist-$(CAMPAIGN) \
		--out $(BUILD)/initramfs-$(CAMPAIGN).cpio.gz
	@$(STAGE) $(CAMPAIGN) $(ROOT)/tools/run-qemu.sh --kernel $(BZIMAGE) \
		--initrd $(BUILD)/initramfs-$(CAMPAIGN).cpio.gz --smp $(SMP) \
		--mem $(MEM) --timeout $$(($(SCENARIOS) * 4 + 900)) \
		$(if $(APPEND),--append "$(APPEND)") --log $(LOGS)/$(CAMPAIGN).log

# Not part of check: absolute numbers under TCG mean little, the ratios
# are the result.  The host and every pin of BENCH_PINS, one table and one
# set of plots (a regression between kernels is a finding).
# BENCH_SCALE=0.2 for a quick run.
BENCH_SCALE ?= 1
BENCH_PINS ?= $(MAINLINE) $(filter-out $(MAINLINE),$(PINS))
BENCH     := $(BUILD)/bench
bench:
	@$(ROOT)/tools/deps.sh
	@$(STAGE) bench-host $(ROOT)/tools/run-bench.sh host $(BENCH)/bin $(BENCH_SCALE)
	@$(foreach k,$(BENCH_PINS),\
		$(MAKE) --no-print-directory bench-guest KERNEL=$(k) &&) true
	@$(firstword $(wildcard /usr/bin/python3) python3) \
		$(ROOT)/tools/bench-report.py $(BENCH) $(BENCH)/host.txt \
		$(foreach k,$(BENCH_PINS),"$(k) (TCG)=$(BENCH)/guest-$(k).log")

bench-guest: kernel
	@$(STAGE) bench-$(KERNEL) $(ROOT)/tools/run-bench.sh guest $(SRC) $(OBJ) \
		$(BZIMAGE) $(BENCH)/bin $(BENCH_SCALE)

# What CI runs.  The mainline pin gets the whole matrix and every check
# of the series; every other pin (the stable targets) boots the whole
# suite at STABLE_SMP vCPUs.
STABLE_SMP ?= 2
check:
	@$(MAKE) --no-print-directory check-host KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory lint KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory matrix KERNEL=$(MAINLINE)
	@$(foreach k,$(filter-out $(MAINLINE),$(PINS)),\
		$(MAKE) --no-print-directory matrix KERNEL=$(k) MATRIX_SMP="$(STABLE_SMP)" &&) true
	@$(MAKE) --no-print-directory check-negative KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory apply-check KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory bisect-check KERNEL=$(MAINLINE)
	@$(ROOT)/tools/verdict.py --summary \
		$(foreach n,$(MATRIX_SMP),$(call bootlog,$(MAINLINE),$(n)).json) \
		$(foreach k,$(filter-out $(MAINLINE),$(PINS)),\
			$(foreach n,$(STABLE_SMP),$(call bootlog,$(k),$(n)).json))
	@echo "check: all stages passed"

# Everything of check, then the KASAN flavour's matrix on KERNEL (too slow
# for CI: see README, "Times").
check-full: check
	@$(MAKE) --no-print-directory prove-fixes KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory matrix FLAVOUR=kasan
	@echo "check-full: all stages passed"

repin:
	@$(ROOT)/tools/deps.sh
	@$(ROOT)/tools/repin.sh

clean:
	rm -rf $(BUILD)/obj-* $(BUILD)/initramfs-* $(GUESTBIN) $(BUILD)/logs

distclean:
	rm -rf $(BUILD)
