# SPDX-License-Identifier: GPL-2.0
# pi-futex: fetch the pinned kernel, apply the series, build, boot under
# QEMU, run the suites, print a verdict.  `make help` lists the targets.

ROOT      := $(CURDIR)
BUILD     := $(ROOT)/build
export PIFUTEX_BUILD := $(BUILD)
# Kernel pins: one file per kernel line in pins/ (pins/7.3 explains the
# fields); pins/default names the mainline pin.
PINS      := $(filter-out default,$(notdir $(wildcard $(ROOT)/pins/*)))
MAINLINE  := $(shell readlink $(ROOT)/pins/default)
# A developer's own tree (docs/tree.md): TREE=DIR, a git tree of Linux
# 6.12 or newer, never written to.  The pin whose series fits its
# version (tools/kernel/tree.sh pin) lends the series and the fragments;
# the tree is cloned into build/tree-NAME/src.
TREE      ?=
TREE_TESTS_ONLY ?=
ifneq ($(TREE),)
TREE_DIR  := $(abspath $(TREE))
override KERNEL := $(shell $(ROOT)/tools/kernel/tree.sh pin $(TREE_DIR))
ifeq ($(KERNEL),)
$(error TREE=$(TREE): not a tree the series can run on (see above))
endif
TREE_DESCRIBE := $(shell $(ROOT)/tools/kernel/tree.sh describe $(TREE_DIR))
endif
KERNEL    ?= $(MAINLINE)
ifeq ($(filter $(KERNEL),$(PINS)),)
$(error unknown KERNEL=$(KERNEL); pins: $(PINS))
endif
include $(ROOT)/pins/$(KERNEL)
export KERNEL
# NAME: what the outputs of this kernel are called.
NAME      := $(if $(TREE),tree-$(notdir $(TREE_DIR)),$(KERNEL))
SRC       := $(if $(TREE),$(BUILD)/$(NAME)/src,$(BUILD)/linux-$(subst :,_,$(subst ~,_,$(PIN_VERSION))))
# Kernel flavour: fragments from kernel-config/ merged onto tinyconfig.
FLAVOUR   ?= debug
FLAVOURS  := base debug kasan rt
FRAGS_base  := base.config
FRAGS_debug := base.config debug.config
FRAGS_kasan := base.config debug.config kasan.config
FRAGS_rt    := base.config debug.config rt.config
FRAGS     := $(addprefix $(ROOT)/kernel-config/,$(FRAGS_$(FLAVOUR)))
OBJ       := $(BUILD)/obj-$(NAME)-$(FLAVOUR)
BZIMAGE   := $(OBJ)/arch/x86/boot/bzImage
INITRAMFS := $(BUILD)/initramfs-$(NAME)-$(FLAVOUR).cpio.gz
GUESTBIN  := $(BUILD)/guest-bin
SELFTESTS := $(BUILD)/selftests-$(NAME)
LOGS      := $(BUILD)/logs
# Boot settings (tools/run-qemu.sh --help); TIMEOUT empty means
# run-qemu.sh's default for the flavour.  The defaults are those of the
# boot description, tools/guest/machine.py.
MACHINE   := $(ROOT)/tools/guest/machine.py
DEFAULT_SMP := $(shell sed -n 's/^DEFAULT_SMP = //p' $(MACHINE))
SMP       ?= $(DEFAULT_SMP)
MEM       ?= $(shell sed -n "s/^DEFAULT_MEM = '\(.*\)'/\1/p" $(MACHINE))
TIMEOUT   ?=
ACCEL     ?= auto
APPEND    ?=
RTTEST_EXTRA ?=
STAGE     := $(ROOT)/tools/stage.sh

# Everything that runs in the guest is in rootfs/: /init, the runlists,
# and in rootfs/tests/ the suites, helpers and static C programs.
GUEST     := $(ROOT)/rootfs/tests
GUEST_C   := $(wildcard $(GUEST)/*.c)
GUEST_BINS := $(patsubst $(GUEST)/%.c,$(GUESTBIN)/%,$(GUEST_C))

ifeq ($(FRAGS_$(FLAVOUR)),)
$(error unknown FLAVOUR=$(FLAVOUR); known: $(FLAVOURS))
endif

.PHONY: help deps fetch kernel patch config initramfs guest-bins selftests run check \
	lint export export-check apply-check apply-fixes b4-check bisect-check bench bench-guest \
	bench-guest-without stress matrix \
	check-full campaign soak lava-jobs lava-cell lava-validate lava-check lava-agree \
	check-host check-negative shell clean distclean repin prove-fixes inject check-tree \
	check-inject model model-prove mutate

# The help table: `make help` prints the "#:" lines as they are and,
# for each "#= NAME text" line, NAME's value now and its text.  README's
# "Targets and variables" is this output (a host test compares them).
#: pi-futex targets:
#:   make run          fetch, patch, build, boot, run the suites, print the verdict
#:   make check        what CI runs: check-host, lint, model, the suite on the
#:                     mainline pin at CHECK_SMP vCPUs, on the other pins at
#:                     STABLE_SMP, on mainline rt at RT_SMP and on mainline base
#:                     at BASE_SMP, check-negative, check-inject, the LAVA jobs
#:                     validated, apply-check, a summary of the boots
#:   make check-full   check, bisect-check, prove-fixes on debug and rt, the
#:                     rest of the debug and rt matrices, the KASAN matrix,
#:                     then lava-check
#:   make check-host   host tests of the harness (tests/host), no kernel booted
#:   make check-negative  a canned failing suite, booted: the verdict must be FAIL
#:   make check-inject one bug of tests/inject booted with the suite that must
#:                     catch it: the named test must fail
#:   make lint         shellcheck and pyflakes of the harness; checkpatch
#:                     --strict and the mail headers of every patch
#:   make matrix       the whole guest suite at each of MATRIX_SMP vCPUs
#:   make check-tree   with TREE=DIR: the matrix on your own tree, and a summary
#:   make deps         install the Debian packages needed (done automatically)
#:   make fetch        download, verify and extract the pinned kernel (pins/KERNEL)
#:   make patch        apply the quilt series (incremental)
#:   make config       merge kernel-config/ fragments, verify every option survived
#:   make kernel       fetch, patch, config and bzImage
#:   make selftests    the tree's futex selftests, static, for the guest
#:   make guest-bins   the static guest programs of rootfs/tests/
#:   make initramfs    BusyBox, python3, the guest suites, via gen_init_cpio
#:   make shell        boot the kernel with an interactive BusyBox shell
#:   make export       build/outgoing/KERNEL/GROUP/ for each "# mail: GROUP"
#:                     (fixes-locking, fixes-sched, tester): mails and cover
#:                     letters signed by DCO
#:   make export-check the same mails with the placeholder identity (never mailed)
#:   make apply-check  git am the exported mails onto a clean import, compare
#:                     with quilt; git am each fix series alone onto every pin
#:   make apply-fixes  git am the mails of FIXES onto this pin
#:   make b4-check     the exported mails through b4 prep and b4 send -o (dry
#:                     run): same subjects, trailers and changes (in apply-check)
#:   make bisect-check compile after each patch in turn what it can break
#:   make prove-fixes  boot the series with each fix taken out: its tests must fail
#:   make model        rtmutex.c of the patched tree in user space under a
#:                     deterministic scheduler (tools/testing/rtmutex)
#:   make model-prove  the model with each rt_mutex fix taken out, 60 s each
#:   make inject       re-introduce each upstream PI bug of tests/inject, boot
#:                     the suite, table of what caught it in build/inject/
#:   make mutate       mutation testing of the PI code (tests/mutate/scope):
#:                     model first, then boots; resumable, in build/mutate/
#:   make stress       rt-random 2000x50, futex-stress 60 s, bad-input 200000 calls
#:   make campaign     rt-random alone: SCENARIOS from SEED, DL_PCT deadline picks
#:   make soak         the fixes' timeout cases SOAK_RUNS times beside busy loops
#:   make bench        PI fast path, hand-off, inversion on the host and every
#:                     pin of BENCH_PINS; cyclictest under pi_stress in the
#:                     guests; table and plots in build/bench/
#:   make bench-guest  the guest half of bench for this kernel
#:   make bench-guest-without  the same kernel without BENCH_WITHOUT's fix
#:   make lava-jobs    build/lava/CELL/: kernel, initramfs and LAVA job of every
#:                     cell of LAVA_KERNELS x LAVA_SMP, and the stress job
#:   make lava-cell    the LAVA jobs of this kernel only
#:   make lava-validate  every job of build/lava/: LAVA's schema, lava-run --validate
#:   make lava-check   lava-jobs, lava-validate, lava-agree
#:   make lava-agree   pass, fail and panic cells run by lava-run and by
#:                     run-qemu.sh: the verdicts must agree
#:   make repin        move pins/KERNEL to the newest served version of its line
#:   make clean        remove build outputs, keep the extracted tree
#:   make distclean    remove build/ entirely (the download cache stays)
#:   make help         this text
#= KERNEL the pin (pins/): mainline or a stable line
#= TREE your own kernel git tree (docs/tree.md); never written to
#= TREE_TESTS_ONLY with TREE: no kernel patch, the tester suites SKIP
#= FLAVOUR kernel-config fragments: base, debug, kasan or rt
#= SMP vCPUs of a boot
#= MEM guest memory
#= ACCEL auto (KVM if a probe vCPU runs, else TCG), kvm or tcg
#= TIMEOUT seconds per boot; empty: measured time of the flavour (machine.py)
#= APPEND more kernel command line
#= RTTEST_EXTRA a directory of extra .tst scenarios for the guest
#= MATRIX_SMP the vCPU counts of make matrix
#= CHECK_SMP vCPUs of the mainline debug boots in make check
#= STABLE_SMP vCPUs of the other pins' boots in make check
#= RT_SMP vCPUs of the rt boots in make check
#= BASE_SMP vCPUs of the base (production configuration) boot in make check
#= DCO "Name <addr>" on the exported mails; empty: git's user
#= FIX prove-fixes: only the fixes whose name starts so
#= FIXES apply-fixes: a directory of another pin's fix mails
#= BUGS inject: entries of tests/inject (default: those of FLAVOUR)
#= INJECT_TIMEOUT inject: seconds per boot
#= MUTATE_SAMPLE mutate: at most N mutants not yet tried (0: all)
#= MUTATE_SEED mutate: the order of a sample
#= MUTATE_PHASE mutate: model or boot; empty: both
#= MUTATE_FILES mutate: only these files of the scope
#= MUTATE_IDS mutate: only these mutant ids
#= MUTATE_RETRY mutate: also try again the mutants of these outcomes (survived ...)
#= MUTATE_TIMEOUT mutate: seconds per boot
#= MUTATE_JOBS mutate: model mutants tried at once (boots: one at a time)
#= MUTATE_ARGS mutate: more options of mutate.py run (the model's runs)
#= MODEL_RUNS model: seeds 1..N (0: for MODEL_BUDGET seconds)
#= MODEL_BUDGET model: seconds per program, or of random runs
#= MODEL_WIDE model: wider scopes after the programs, OPTIONS:SEEDS each
#= MODEL_BOUND model: preemptions per schedule of its programs
#= MODEL_ARGS model: more options (-C cycles, -p setprio)
#= SEED campaign: first seed
#= SCENARIOS campaign: scenarios
#= DL_PCT campaign: percent of SCHED_DEADLINE picks
#= SOAK_RUNS soak: runs per case
#= BENCH_SCALE bench: work per figure (0.2: quick)
#= BENCH_PINS bench: the pins
#= BENCH_WITHOUT bench: also each kernel without this fix (0005)
#= LAVA_KERNELS lava-jobs: PIN:FLAVOUR cells
#= LAVA_SMP lava-jobs: vCPU counts
#= LAVA_STRESS lava-jobs: PIN:FLAVOUR of the stress job
#= LAVA_STRESS_SMP lava-jobs: vCPUs of the stress job
#= IMAGES_URL lava-jobs: where the lab fetches the images
#= LAVA_KVM lava-jobs: non-empty lets the lab use KVM
#= LAVA_TSC_KHZ lava-jobs: the workers' TSC rate; empty: this machine's
# TIMEOUT_FACTOR (environment) multiplies every boot's timeout.
HELP_VARS := $(shell sed -n 's/^#= \([A-Z_0-9]*\) .*/\1/p' $(ROOT)/Makefile)
help:
	@sed -n 's/^#: \{0,1\}//p' $(ROOT)/Makefile
	@echo "variables (make NAME=value; the value now):"
	@$(foreach v,$(HELP_VARS),printf '  %-20s %s\n' '$(v)=$($(v))' \
		"$$(sed -n 's/^#= $(v) //p' $(ROOT)/Makefile)";)

deps:
	@$(ROOT)/tools/deps.sh

# Every stage below first makes sure the tools are installed.
fetch:
	@$(ROOT)/tools/deps.sh
	@$(STAGE) fetch $(ROOT)/tools/kernel/fetch-kernel.sh $(SRC)

# The series' "# mail: NAME" groups; the fix series (fixes-NAME) git am
# onto every pin.
MAIL_GROUPS := $(shell sed -n 's/^\# mail: \([a-z][a-z0-9-]*\)$$/\1/p' $(ROOT)/$(PIN_SERIES))
FIX_GROUPS  := $(filter fixes-%,$(MAIL_GROUPS))

ifeq ($(TREE),)
patch: fetch
	@$(STAGE) patch $(ROOT)/tools/kernel/apply-series.sh $(SRC)
else
# The pin's mails (make export-check), then the tree's clone with them
# applied by git am -3 (tools/kernel/tree.sh prepare).
# The series' patches that are not mailed (# mail: -): the localversion.
UNMAILED  := $(shell sed -n '/^\# mail: -$$/,$$p' $(ROOT)/$(PIN_SERIES) | grep -v '^\#')
patch:
	@$(ROOT)/tools/deps.sh
	@$(MAKE) --no-print-directory export-check KERNEL=$(KERNEL) TREE=
	@$(STAGE) tree $(ROOT)/tools/kernel/tree.sh prepare \
		$(if $(TREE_TESTS_ONLY),--tests-only) --objects $(BUILD)/export-work-$(PIN_LINE) \
		$(TREE_DIR) $(SRC) $(addprefix $(BUILD)/outgoing-check/$(PIN_LINE)/,$(MAIL_GROUPS)) \
		$(addprefix $(ROOT)/patches/,$(UNMAILED))
endif

config: patch
	@$(STAGE) config env $(if $(TREE),KCONFIG_UNKNOWN_IN=$(SRC)) \
		$(ROOT)/tools/kernel/make-config.sh $(SRC) $(OBJ) $(FRAGS)

kernel: config
	@$(STAGE) build $(ROOT)/tools/kernel/build-kernel.sh $(SRC) $(OBJ)

# Static guest programs; they report KTAP with the kernel's kselftest.h,
# from the patched tree.
$(GUESTBIN)/%: $(GUEST)/%.c $(wildcard $(GUEST)/*.h) | patch
	@mkdir -p $(GUESTBIN)
	@gcc -static -O2 -Wall -Werror -I$(SRC)/tools/testing/selftests \
		-o $@ $< -lpthread

guest-bins: $(GUEST_BINS)

selftests: patch
	@$(STAGE) selftests $(ROOT)/tools/kernel/build-selftests.sh $(SRC) $(SELFTESTS)

# image NAME,RUNLISTS[,MORE]: build/initramfs-NAME.cpio.gz, the guest of
# this kernel with the suites of RUNLISTS (tools/guest/mkinitramfs.sh).
image = $(STAGE) initramfs-$(1) $(ROOT)/tools/guest/mkinitramfs.sh --src $(SRC) \
	--release $(OBJ)/include/config/kernel.release --bindir $(GUESTBIN) \
	$(foreach r,$(2),--runlist $(r)) $(3) --out $(BUILD)/initramfs-$(1).cpio.gz

# TREE_TESTS_ONLY=1: the suites of rootfs/needs-series report SKIP with
# their reason instead of running.
TESTS_ONLY := $(and $(TREE),$(TREE_TESTS_ONLY))
RUNLIST   := $(if $(TESTS_ONLY),$(BUILD)/runlist-$(NAME)-tests-only,$(ROOT)/rootfs/runlist)
ifneq ($(TESTS_ONLY),)
$(RUNLIST): $(ROOT)/rootfs/needs-series $(ROOT)/rootfs/runlist
	@mkdir -p $(BUILD)
	@awk 'NR == FNR { if ($$0 !~ /^#/ && NF) { n = $$1; \
		sub(/^[^ ]+ /, ""); why[n] = $$0 }; next } \
		!/^#/ && NF && ($$1 in why) { print $$1, 30, \
		"/usr/share/pi-futex/tests/skip.sh", why[$$1]; next } { print }' \
		$^ >$@
endif
initramfs: kernel guest-bins selftests $(RUNLIST)
	@$(call image,$(NAME)-$(FLAVOUR),$(RUNLIST) \
		$(if $(RTTEST_EXTRA),$(ROOT)/rootfs/runlist-rttest-extra),\
		--selftests $(SELFTESTS) --host-bin pi_stress --host-bin pip_stress \
		$(if $(RTTEST_EXTRA),--extra-tst $(RTTEST_EXTRA)))

# The options of every boot of this kernel but its initramfs, vCPUs and log.
QEMU_OPTS = --kernel $(BZIMAGE) --mem $(MEM) --accel $(ACCEL) --flavour $(FLAVOUR) \
	$(if $(TREE),--name "$(TREE_DESCRIBE)") \
	$(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(APPEND),--append "$(APPEND)")
# boot LOG,IMAGE,VCPUS[,MORE]: boot build/initramfs-IMAGE.cpio.gz; serial log
# build/logs/LOG.log and the verdict beside it as LOG.json.
boot = $(STAGE) $(1) $(ROOT)/tools/run-qemu.sh $(QEMU_OPTS) \
	--initrd $(BUILD)/initramfs-$(2).cpio.gz --smp $(3) $(4) --log $(LOGS)/$(1).log
# bootlog KERNEL,VCPUS[,FLAVOUR]: the main boot's log name (the verdict is
# its .json).
bootlog = boot-$(1)-$(or $(3),$(FLAVOUR))-smp$(2)
# mainboot VCPUS: the whole suite of rootfs/runlist.
mainboot = $(call boot,$(call bootlog,$(NAME),$(1)),$(NAME)-$(FLAVOUR),$(1))

run: initramfs
	@$(call mainboot,$(SMP))

# The matrix: the whole suite once per vCPU count, for this FLAVOUR.
MATRIX_SMP ?= 1 2 4
matrix: initramfs
	@$(foreach n,$(MATRIX_SMP),$(call mainboot,$(n)) &&) true

# The matrix on a developer's own tree, and the sum of its boots.
check-tree: $(if $(TREE),matrix)
	@[ -n "$(TREE)" ] || { echo "make check-tree: TREE=DIR is required (docs/tree.md)" >&2; exit 2; }
	@$(ROOT)/tools/judge/verdict.py --summary \
		$(foreach n,$(MATRIX_SMP),$(LOGS)/$(call bootlog,$(NAME),$(n)).json)

shell: initramfs
	$(ROOT)/tools/run-qemu.sh --shell $(QEMU_OPTS) --initrd $(INITRAMFS) \
		--smp $(SMP)

# Host tests need the patched tree for scripts/rt-tester/.
check-host: patch
	@$(STAGE) host-tests env PIFUTEX_SRC=$(SRC) $(ROOT)/tests/host/run.sh

# A canned failing suite, booted for real: the verdict must be FAIL.
check-negative: initramfs
	@$(call image,negative-$(NAME)-$(FLAVOUR),$(ROOT)/rootfs/runlist-negative)
	@$(STAGE) negative $(ROOT)/tests/host/negative-boot.sh $(LOGS)/negative \
		$(QEMU_OPTS) --initrd $(BUILD)/initramfs-negative-$(NAME)-$(FLAVOUR).cpio.gz

lint: patch
	@$(STAGE) shellcheck $(ROOT)/tools/lint-shell.sh
	@$(STAGE) pyflakes $(ROOT)/tools/lint-python.sh
	@$(STAGE) checkpatch $(ROOT)/tools/mail/checkpatch-series.sh $(SRC)
	@$(STAGE) headers $(ROOT)/tools/mail/check-patch-headers.py $(ROOT)/$(PIN_SERIES) $(ROOT)/patches

# The identity on the exported mails' From: and Signed-off-by: lines,
# "Name <address>"; empty means git's user.name and user.email.  make
# export refuses the patch files' placeholder.
DCO ?=
export: patch
	@$(STAGE) export env RUN_VERDICT=$(LOGS)/$(call bootlog,$(NAME),$(SMP)).json \
		PIFUTEX_SRC=$(SRC) PIFUTEX_DCO="$(DCO)" \
		$(ROOT)/tools/mail/export-series.sh export

# The same mails with the placeholder identity, for the checks below
# (build/outgoing-check/; never mailed).
export-check: patch
	@$(STAGE) export-check env PIFUTEX_SRC=$(SRC) \
		$(ROOT)/tools/mail/export-series.sh export-check

# Every mail series onto the pin, then each fix series on its own onto
# every pin, this one included (they go to different trees).
apply-check: export-check
	@$(STAGE) apply-check env PIFUTEX_SRC=$(SRC) \
		$(ROOT)/tools/mail/export-series.sh apply-check
	@$(foreach k,$(PINS),$(foreach g,$(FIX_GROUPS),\
		$(MAKE) --no-print-directory apply-fixes KERNEL=$(k) \
			FIXES=$(BUILD)/outgoing-check/$(PIN_LINE)/$(g) &&)) true
	@$(STAGE) b4-check env PIFUTEX_SRC=$(SRC) \
		$(ROOT)/tools/mail/export-series.sh b4-check

# Each mail series of export-check through b4 prep and b4 send -o (a dry
# run): the same subjects, trailers and changes.
b4-check: export-check
	@$(STAGE) b4-check env PIFUTEX_SRC=$(SRC) \
		$(ROOT)/tools/mail/export-series.sh b4-check

# The mails in FIXES (another pin's fixes series) onto this pin.
apply-fixes: fetch
	@$(STAGE) apply-fixes-$(KERNEL) env PIFUTEX_SRC=$(SRC) \
		$(ROOT)/tools/mail/export-series.sh apply-fixes $(FIXES)

# Each fix of tests/prove-fixes that holds on FLAVOUR (FIX=0007: only the
# fixes whose name starts so) taken out in turn: its tests must fail,
# everything else pass; then the full series (see tools/prove/prove-fixes.sh).
FIX       ?=
prove-fixes: export-check initramfs
	@$(STAGE) prove-fixes-$(NAME)-$(FLAVOUR) $(ROOT)/tools/prove/prove-fixes.sh \
		$(SRC) $(OBJ) $(LOGS) $(FLAVOUR) "$(FIX)" \
		$(QEMU_OPTS) --initrd $(INITRAMFS) --smp $(SMP)

# Not part of check: a campaign, one build and boot per bug
# (docs/inject.md).  BUGS='name ...' picks entries of tests/inject/, whatever
# their flavour; without it, the entries for FLAVOUR.  The corpus is
# written against the mainline pin with the series applied.
INJECT := $(BUILD)/inject
BUGS ?=
# Per boot: the whole suite takes about 3 min under TCG; a kernel that
# hangs is stopped here and the suite it hung in is named.
INJECT_TIMEOUT ?= 900
inject: export-check initramfs
	@[ "$(KERNEL)" = "$(MAINLINE)" ] || { echo "make inject: the corpus is for KERNEL=$(MAINLINE)" >&2; exit 2; }
	@$(STAGE) inject-$(FLAVOUR) $(ROOT)/tools/prove/inject.sh $(SRC) $(OBJ) $(INJECT) \
		$(FLAVOUR) "$(BUGS)" $(QEMU_OPTS) --initrd $(INITRAMFS) --smp $(SMP) \
		--timeout $(INJECT_TIMEOUT)
	@python3 $(ROOT)/tools/prove/inject-report.py --json $(INJECT)/results.json \
		--markdown $(INJECT)/results.md --svg $(INJECT)/results.svg \
		$(ROOT)/tests/inject $(INJECT) $(BUGS)

# Mutation testing (tools/prove/mutate.py), a campaign: never in check.
# Results per mutant id in build/mutate/results.json (a second run goes on
# where the first stopped); the table, survivors and plot beside it.
MUTATE_DIR     := $(BUILD)/mutate
MUTATE_SAMPLE  ?= 40
MUTATE_SEED    ?= 1
MUTATE_PHASE   ?=
MUTATE_FILES   ?=
MUTATE_IDS     ?=
MUTATE_RETRY   ?=
MUTATE_TIMEOUT ?= 600
MUTATE_JOBS    ?= 2
MUTATE_ARGS    ?= --model-runs 5000 --program-budget 3
MUTATE_RUNLISTS := locking futex exit sched
mutate: initramfs
	@[ "$(KERNEL)" = "$(MAINLINE)" ] || { echo "make mutate: the scope is for KERNEL=$(MAINLINE)" >&2; exit 2; }
	@$(foreach r,$(MUTATE_RUNLISTS),$(call image,mutate-$(r),$(ROOT)/tests/mutate/runlist-$(r),\
		--selftests $(SELFTESTS) --host-bin pi_stress --host-bin pip_stress) &&) true
	@$(STAGE) mutate python3 $(ROOT)/tools/prove/mutate.py run --src $(SRC) \
		--out $(MUTATE_DIR) --sample $(MUTATE_SAMPLE) --seed $(MUTATE_SEED) --jobs $(MUTATE_JOBS) \
		$(MUTATE_ARGS) \
		$(if $(MUTATE_PHASE),--phase $(MUTATE_PHASE)) \
		$(if $(MUTATE_FILES),--files $(MUTATE_FILES)) \
		$(if $(MUTATE_IDS),--ids $(MUTATE_IDS)) \
		$(if $(MUTATE_RETRY),--retry $(MUTATE_RETRY)) \
		--model-wide="$(filter-out -p:%,$(MODEL_WIDE))" \
		--obj $(OBJ) --initrd-dir $(BUILD) \
		--qemu-opt $(QEMU_OPTS) --smp $(SMP) --timeout $(MUTATE_TIMEOUT)
	@python3 $(ROOT)/tools/prove/mutate.py report --src $(SRC) --out $(MUTATE_DIR) \
		--markdown $(MUTATE_DIR)/results.md --svg $(MUTATE_DIR)/results.svg \
		--json-out $(MUTATE_DIR)/report.json

# make check's second negative control: one bug of the corpus, booted with
# the suites that must catch it; the named test must fail.
INJECT_CONTROL      := unlock-by-non-owner
INJECT_CONTROL_TEST := futex-pi:global.lock_pi_errors
INJECT_CONTROL_DIR  := $(BUILD)/inject-control
check-inject: initramfs
	@mkdir -p $(INJECT_CONTROL_DIR)
	@grep -E '^(sanity|$(firstword $(subst :, ,$(INJECT_CONTROL_TEST)))) ' \
		$(ROOT)/rootfs/runlist >$(INJECT_CONTROL_DIR)/runlist
	@$(call image,inject-control-$(NAME)-$(FLAVOUR),$(INJECT_CONTROL_DIR)/runlist,\
		--selftests $(SELFTESTS))
	@$(STAGE) inject-control $(ROOT)/tools/prove/inject.sh $(SRC) $(OBJ) \
		$(INJECT_CONTROL_DIR) $(FLAVOUR) $(INJECT_CONTROL) $(QEMU_OPTS) --smp $(SMP) \
		--initrd $(BUILD)/initramfs-inject-control-$(NAME)-$(FLAVOUR).cpio.gz
	@python3 $(ROOT)/tools/prove/inject-report.py --expect $(INJECT_CONTROL_TEST) \
		$(ROOT)/tests/inject $(INJECT_CONTROL_DIR) $(INJECT_CONTROL)

# The rtmutex model (patch 0022): the patched tree's rtmutex.c in user
# space.  Random programs of seeds 1..MODEL_RUNS (a fixed window, the
# same on every machine; MODEL_RUNS=0: for MODEL_BUDGET seconds instead),
# and, at the same time, every schedule of each program of
# tools/testing/rtmutex/programs with at most MODEL_BOUND preemptions
# (more if its "preemptions" line asks; at most MODEL_BUDGET seconds
# each), then the wider scopes of MODEL_WIDE,
# OPTIONS:SEEDS each: a manager's and every task's priority changes (-p,
# -P), lock cycles (-C), and lock cycles with either (-Cp, -CP).  In make
# check on the mainline pin.  The series passes seeds 1-20000 of each;
# docs/model.md lists the counterexamples beyond.
MODEL_WIDE   ?= -p:20000 -P:20000 -C:20000 -Cp:20000 -CP:20000
MODEL_RUNS   ?= 150000
MODEL_BUDGET ?= 60
MODEL_BOUND  ?= 1
MODEL_ARGS   ?=
MODEL_DIR    := $(BUILD)/model-$(KERNEL)
model: patch
	@mkdir -p $(MODEL_DIR)
	@$(MAKE) -s -C $(SRC)/tools/testing/rtmutex OUTPUT=$(MODEL_DIR)/
	@$(STAGE) model $(MODEL_DIR)/rtmutex_model -t $(MODEL_BUDGET) \
		$(if $(filter-out 0,$(MODEL_RUNS)),-n $(MODEL_RUNS)) $(MODEL_ARGS) & \
	random=$$!; \
	for p in $(SRC)/tools/testing/rtmutex/programs/*.txt; do \
		$(STAGE) model-$$(basename $$p .txt) $(MODEL_DIR)/rtmutex_model \
			-f $$p -e $(MODEL_BOUND) -t $(MODEL_BUDGET) || \
			{ kill $$random 2>/dev/null; exit 1; }; \
	done; \
	for w in $(MODEL_WIDE); do \
		$(STAGE) model$${w%%:*} $(MODEL_DIR)/rtmutex_model $${w%%:*} \
			-n $${w#*:} -t $(MODEL_BUDGET) || \
			{ kill $$random 2>/dev/null; exit 1; }; \
	done; \
	wait $$random

# Not part of check: the model with each of the series' rt_mutex fixes
# taken out (tools/prove/model-prove.sh), 60 s each, and the 0003 question.
model-prove: patch
	@$(STAGE) model-prove $(ROOT)/tools/prove/model-prove.sh $(SRC) $(BUILD)/model-prove \
		"$(filter-out 0,$(MODEL_RUNS))" "$(MODEL_WIDE)"

bisect-check: kernel
	@$(STAGE) bisect $(ROOT)/tools/kernel/bisect-check.sh $(SRC) $(OBJ) $(FRAGS)

# Not part of check: randomized tester scenarios, futex stress and the
# bad-input campaign at stress size (rootfs/runlist-stress).
stress: initramfs
	@$(call image,stress-$(NAME)-$(FLAVOUR),$(ROOT)/rootfs/runlist-stress)
	@$(call boot,stress-$(NAME)-$(FLAVOUR)-smp$(SMP),stress-$(NAME)-$(FLAVOUR),$(SMP),\
		--timeout 7200)

# Not part of check: rt-random alone, SCENARIOS x 50 steps from SEED on SMP
# vCPUs, DL_PCT percent SCHED_DEADLINE picks; the log is
# build/logs/campaign-KERNEL-FLAVOUR-smpSMP-seedSEED.log.
SEED      ?= 1
SCENARIOS ?= 2000
DL_PCT    ?= 0
CAMPAIGN  := campaign-$(NAME)-$(FLAVOUR)-smp$(SMP)-seed$(SEED)
campaign: initramfs
	@mkdir -p $(BUILD)
	@echo "rt-random $$(($(SCENARIOS) * 4 + 600)) python3 /usr/share/pi-futex/tests/rt-random.py --seed $(SEED) --scenarios $(SCENARIOS) --steps 50 --dl-pct $(DL_PCT)" \
		>$(BUILD)/runlist-$(CAMPAIGN)
	@$(call image,$(CAMPAIGN),$(BUILD)/runlist-$(CAMPAIGN))
	@$(call boot,$(CAMPAIGN),$(CAMPAIGN),$(SMP),--timeout $$(($(SCENARIOS) * 4 + 900)))

# Not part of check: the fixes' selftest cases whose waiter leaves by
# timeout, SOAK_RUNS times each beside a busy loop per vCPU
# (rootfs/tests/timeout-soak.sh); the log is
# build/logs/soak-KERNEL-FLAVOUR-smpSMP.log.
SOAK_RUNS ?= 20
SOAK      := soak-$(NAME)-$(FLAVOUR)-smp$(SMP)
soak: initramfs
	@mkdir -p $(BUILD)
	@echo "timeout-soak $$(($(SOAK_RUNS) * 120 + 300)) /usr/share/pi-futex/tests/timeout-soak.sh $(SOAK_RUNS)" \
		>$(BUILD)/runlist-$(SOAK)
	@$(call image,$(SOAK),$(BUILD)/runlist-$(SOAK),--selftests $(SELFTESTS))
	@$(call boot,$(SOAK),$(SOAK),$(SMP),--timeout $$(($(SOAK_RUNS) * 120 + 600)))

# Not part of check: absolute numbers under TCG mean little, the ratios
# are the result.  The host and every pin of BENCH_PINS, one table and one
# set of plots (a regression between kernels is a finding).  FLAVOUR=rt
# boots each pin twice, PREEMPT_RT beside the debug flavour it is layered
# on, so that PREEMPT_RT is the only difference between the two columns.
# BENCH_SCALE=0.2 for a quick run.
BENCH_SCALE ?= 1
BENCH_PINS ?= $(MAINLINE) $(filter-out $(MAINLINE),$(PINS))
BENCH_FLAVOURS := $(if $(filter rt,$(FLAVOUR)),debug rt,$(FLAVOUR))
BENCH     := $(BUILD)/bench
# BENCH_WITHOUT=0005: each kernel also without that fix, a column of its
# own ("7.3 base -0005"); the report gives the ratios of the contended
# hand-off (tools/bench/bench-without.sh).
BENCH_WITHOUT ?=
bench:
	@$(ROOT)/tools/deps.sh
	@$(STAGE) bench-host $(ROOT)/tools/bench/run-bench.sh host $(BENCH)/bin $(BENCH_SCALE)
	@$(foreach k,$(BENCH_PINS),$(foreach f,$(BENCH_FLAVOURS),\
		$(MAKE) --no-print-directory bench-guest KERNEL=$(k) FLAVOUR=$(f) &&\
		$(if $(BENCH_WITHOUT),$(MAKE) --no-print-directory bench-guest-without \
			KERNEL=$(k) FLAVOUR=$(f) &&))) true
	@$(firstword $(wildcard /usr/bin/python3) python3) \
		$(ROOT)/tools/bench/bench-report.py $(BENCH) $(BENCH)/host.txt \
		$(foreach k,$(BENCH_PINS),$(foreach f,$(BENCH_FLAVOURS),\
			"$(k) $(f)=$(BENCH)/guest-$(k)-$(f).log" \
			$(if $(BENCH_WITHOUT),"$(k) $(f) -$(BENCH_WITHOUT)=$(BENCH)/guest-$(k)-$(f)-without-$(BENCH_WITHOUT).log")))

bench-guest: kernel
	@$(STAGE) bench-$(NAME)-$(FLAVOUR) $(ROOT)/tools/bench/run-bench.sh guest \
		$(SRC) $(OBJ) $(BENCH)/bin $(BENCH_SCALE) \
		$(BENCH)/guest-$(NAME)-$(FLAVOUR).log $(QEMU_OPTS)

bench-guest-without: kernel export-check
	@$(STAGE) bench-$(NAME)-$(FLAVOUR)-without-$(BENCH_WITHOUT) \
		$(ROOT)/tools/bench/bench-without.sh $(BENCH_WITHOUT) \
		$(SRC) $(OBJ) $(BENCH)/bin $(BENCH_SCALE) \
		$(BENCH)/guest-$(NAME)-$(FLAVOUR)-without-$(BENCH_WITHOUT).log $(QEMU_OPTS)

# What CI runs.  The mainline pin gets every check of the series and
# boots the whole suite at CHECK_SMP vCPUs (check-full adds the rest of
# 1, 2, 4), its PREEMPT_RT flavour at RT_SMP and its base flavour at
# BASE_SMP; every other pin (the stable targets) boots it at STABLE_SMP.
CHECK_SMP ?= $(DEFAULT_SMP)
STABLE_SMP ?= $(DEFAULT_SMP)
RT_SMP    ?= $(DEFAULT_SMP)
BASE_SMP  ?= $(DEFAULT_SMP)
# The kernels make check builds, as PIN:FLAVOUR: their LAVA jobs are
# written and validated.
CHECK_KERNELS := $(foreach k,$(PINS),$(k):debug) $(MAINLINE):rt
# The host-side checks run beside boots, never beside a kernel build
# (tools/beside.sh): a TCG boot keeps about one of two cores busy.
# Not $(MAKE) on the line itself, which make -n would run.
BESIDE    := $(ROOT)/tools/beside.sh $(LOGS)/beside
BESIDE_MAKE = $(MAKE) --no-print-directory
check:
	@$(MAKE) --no-print-directory initramfs KERNEL=$(MAINLINE)
	@$(BESIDE) start host-lint $(BESIDE_MAKE) check-host lint KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory matrix KERNEL=$(MAINLINE) MATRIX_SMP="$(CHECK_SMP)"
	@$(BESIDE) wait host-lint
	@$(foreach k,$(filter-out $(MAINLINE),$(PINS)),\
		$(MAKE) --no-print-directory matrix KERNEL=$(k) MATRIX_SMP="$(STABLE_SMP)" &&) true
	@$(MAKE) --no-print-directory initramfs KERNEL=$(MAINLINE) FLAVOUR=rt
	@$(BESIDE) start model $(BESIDE_MAKE) model KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory matrix KERNEL=$(MAINLINE) FLAVOUR=rt \
		MATRIX_SMP="$(RT_SMP)"
	@$(BESIDE) wait model
	@$(MAKE) --no-print-directory initramfs KERNEL=$(MAINLINE) FLAVOUR=base
	@$(BESIDE) start apply-check $(BESIDE_MAKE) apply-check KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory matrix KERNEL=$(MAINLINE) FLAVOUR=base \
		MATRIX_SMP="$(BASE_SMP)"
	@$(BESIDE) wait apply-check
	@$(MAKE) --no-print-directory check-negative KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory check-inject KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory lava-jobs LAVA_KERNELS="$(CHECK_KERNELS)"
	@$(MAKE) --no-print-directory lava-validate
	@$(ROOT)/tools/judge/verdict.py --summary \
		$(foreach n,$(CHECK_SMP),$(LOGS)/$(call bootlog,$(MAINLINE),$(n)).json) \
		$(foreach k,$(filter-out $(MAINLINE),$(PINS)),\
			$(foreach n,$(STABLE_SMP),$(LOGS)/$(call bootlog,$(k),$(n)).json)) \
		$(foreach n,$(RT_SMP),$(LOGS)/$(call bootlog,$(MAINLINE),$(n),rt).json) \
		$(foreach n,$(BASE_SMP),$(LOGS)/$(call bootlog,$(MAINLINE),$(n),base).json)
	@echo "check: all stages passed"

# Everything of check, then prove-fixes on the debug and the PREEMPT_RT
# flavour, the rest of the debug and PREEMPT_RT matrices and the KASAN
# flavour's matrix on KERNEL (too slow for CI: see docs/times.md).
check-full: check
	@$(MAKE) --no-print-directory bisect-check KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory prove-fixes KERNEL=$(MAINLINE)
	@$(MAKE) --no-print-directory prove-fixes KERNEL=$(MAINLINE) FLAVOUR=rt
	@$(MAKE) --no-print-directory matrix KERNEL=$(MAINLINE) \
		MATRIX_SMP="$(filter-out $(CHECK_SMP),1 2 4)"
	@$(MAKE) --no-print-directory matrix KERNEL=$(MAINLINE) FLAVOUR=rt \
		MATRIX_SMP="$(filter-out $(RT_SMP),1 2 4)"
	@$(MAKE) --no-print-directory matrix FLAVOUR=kasan
	@$(MAKE) --no-print-directory lava-check
	@echo "check-full: all stages passed"

# LAVA (docs/lava.md): one job per cell of the matrix,
# with the images it boots, in build/lava/CELL/.
LAVA      := $(BUILD)/lava
# Not base: it has no KUnit, which the jobs' first monitor waits for.
LAVA_FLAVOURS := $(filter-out base,$(FLAVOURS))
LAVA_KERNELS ?= $(foreach k,$(MAINLINE) $(filter-out $(MAINLINE),$(PINS)),\
	$(foreach f,$(LAVA_FLAVOURS),$(k):$(f)))
LAVA_SMP  ?= 1 2 4
# The stress runlist's job: one cell, PIN:FLAVOUR at LAVA_STRESS_SMP vCPUs.
LAVA_STRESS ?= $(MAINLINE):debug
LAVA_STRESS_SMP ?= $(DEFAULT_SMP)
IMAGES_URL ?=
LAVA_KVM  ?=
# Under TCG the guest's TSC runs at the worker's rate: tsc_early_khz= in
# the jobs (as run-qemu.sh does); empty: lava-job.py takes this machine's.
LAVA_TSC_KHZ ?=
PY3       := /usr/bin/python3
# The series' commit: the checkout's, "-dirty" when the work tree differs.
SERIES_COMMIT = $(shell c=$$(git -C $(ROOT) rev-parse HEAD 2>/dev/null) || c=unknown; \
	git -C $(ROOT) diff --quiet HEAD 2>/dev/null || c=$$c-dirty; echo $$c)
# lava_job DIR,CELL,INITRAMFS,VCPUS[,MORE]: DIR/CELL/ for this kernel.
lava_job = $(STAGE) lava-job-$(2) $(PY3) $(ROOT)/tools/lava/lava-job.py --out $(1)/$(2) \
	--kernel $(BZIMAGE) --initrd $(3) --smp $(4) --pin $(KERNEL) --flavour $(FLAVOUR) \
	--commit $(SERIES_COMMIT) $(if $(IMAGES_URL),--images-url $(IMAGES_URL)) \
	$(if $(LAVA_KVM),--kvm,$(if $(LAVA_TSC_KHZ),--tsc-khz $(LAVA_TSC_KHZ))) $(5)

lava-jobs:
	@$(ROOT)/tools/deps.sh
	@rm -rf $(LAVA)
	@$(foreach kf,$(LAVA_KERNELS),$(MAKE) --no-print-directory lava-cell \
		KERNEL=$(word 1,$(subst :, ,$(kf))) FLAVOUR=$(word 2,$(subst :, ,$(kf))) &&) true
	@echo "lava-jobs: $$(ls $(LAVA) | wc -l) job(s) in $(LAVA)"

lava-cell: initramfs
	@$(foreach n,$(LAVA_SMP),\
		$(call lava_job,$(LAVA),$(KERNEL)-$(FLAVOUR)-smp$(n),$(INITRAMFS),$(n)) &&) true
ifneq ($(filter $(KERNEL):$(FLAVOUR),$(LAVA_STRESS)),)
	@$(call image,stress-$(KERNEL)-$(FLAVOUR),$(ROOT)/rootfs/runlist-stress)
	@$(call lava_job,$(LAVA),$(KERNEL)-$(FLAVOUR)-stress-smp$(LAVA_STRESS_SMP),\
		$(BUILD)/initramfs-stress-$(KERNEL)-$(FLAVOUR).cpio.gz,$(LAVA_STRESS_SMP),\
		--runlist stress)
endif

lava-validate:
	@$(ROOT)/tools/deps.sh --lava
	@$(STAGE) lava-validate $(ROOT)/tools/lava/lava-check.sh validate $(LAVA)

# The jobs of the whole matrix, validated; then one cell run for real by
# lava-run and by run-qemu.sh, three times: the real suite (pass), the
# negative control's suites (fail) and a kernel that panics because its
# init exits (infra; rdinit=/bin/busybox prints its help and returns).
lava-check: lava-jobs
	@$(MAKE) --no-print-directory lava-validate
	@$(MAKE) --no-print-directory lava-agree KERNEL=$(MAINLINE) FLAVOUR=debug SMP=2
	@echo "lava-check: LAVA and run-qemu.sh agree on pass, fail and infra"

# lava_agree CASE,EXPECT,INITRAMFS[,APPEND]: the cell of this kernel at SMP
# vCPUs, by lava-run and by run-qemu.sh, in build/lava-check/CASE/.
LAVA_RUNS := $(BUILD)/lava-check
lava_agree = $(call lava_job,$(LAVA_RUNS)/$(1),$(KERNEL)-$(FLAVOUR)-smp$(SMP),$(3),$(SMP),\
		$(if $(4),--append $(4))) && \
	$(STAGE) lava-$(1) $(ROOT)/tools/lava/lava-check.sh agree $(2) $(LAVA_RUNS)/$(1) \
		$(LAVA_RUNS)/$(1)/$(KERNEL)-$(FLAVOUR)-smp$(SMP)/job.yaml \
		$(QEMU_OPTS) --initrd $(3) --smp $(SMP) $(if $(4),--append $(4))

lava-agree: initramfs
	@$(ROOT)/tools/deps.sh --lava
	@rm -rf $(LAVA_RUNS)
	@$(call image,negative-$(KERNEL)-$(FLAVOUR),$(ROOT)/rootfs/runlist-negative)
	@$(call lava_agree,pass,pass,$(INITRAMFS))
	@$(call lava_agree,fail,fail,$(BUILD)/initramfs-negative-$(KERNEL)-$(FLAVOUR).cpio.gz)
	@$(call lava_agree,panic,infra,$(INITRAMFS),rdinit=/bin/busybox)

repin:
	@$(ROOT)/tools/deps.sh
	@$(ROOT)/tools/kernel/repin.sh

clean:
	rm -rf $(BUILD)/obj-* $(BUILD)/initramfs-* $(GUESTBIN) $(BUILD)/logs

distclean:
	rm -rf $(BUILD)
