# SPDX-License-Identifier: GPL-2.0
# softcx: top-level build. `make check` and `make demo` set everything up on a
# fresh Debian 12 machine (apt packages, guest images, the test kernel); slow
# artefacts are cached under $(SOFTCX_CACHE), outside the repo.

SOFTCX_CACHE ?= /var/cache/softcx
# The kernel the stock guests boot: pinned, as its Debian packages are what
# the tests extract. `make module` builds for KVER instead.
GUEST_KVER ?= 6.1.0-57-amd64
KDIR_STOCK ?= /usr/src/linux-headers-$(GUEST_KVER)
# `make module`: the running kernel unless KVER= names another.
KVER ?= $(shell uname -r)
# Debian's other flavours of the guests' kernel: make check builds for them.
FLAVOUR_KVERS := $(patsubst %-amd64,%-cloud-amd64,$(GUEST_KVER)) $(patsubst %-amd64,%-rt-amd64,$(GUEST_KVER))
BUILD ?= $(CURDIR)/build
export SOFTCX_CACHE GUEST_KVER

HOST_PKGS := build-essential g++ cmake libgtest-dev qemu-system-x86 linux-headers-$(GUEST_KVER) \
	$(addprefix linux-headers-,$(FLAVOUR_KVERS)) \
	linux-source-6.1 busybox-static flex bison libelf-dev libssl-dev bc ccache dwarves kmod \
	cpio zstd rsync python3 clang libclang-rt-14-dev libibverbs-dev rdma-core dkms tshark

KMOD_SRCS := Kbuild VERSION scripts/cxx.mk $(shell find kmod core_cpp kunit uapi -type f 2>/dev/null)

.PHONY: all deps host-test module module-stock module-flavours module-testk test-kernel check demo bench clean deb

all: module-stock host-test

# Install the host packages this project needs when any is missing.
deps: $(SOFTCX_CACHE)/.deps-ok
$(SOFTCX_CACHE)/.deps-ok: Makefile
	@missing=$$(for p in $(HOST_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@bash -c '. tests/vm/lib.sh && ensure_ksrc'
	@mkdir -p $(SOFTCX_CACHE) && touch $@

# --- kernel module -----------------------------------------------------------
# Kbuild of 6.1 writes objects beside the sources; each target kernel gets its
# own copy of the tree under build/ so the two builds never mix.
kmod_build = scripts/build-module.sh $(BUILD)/$(1) $(2) $(3)

# For a machine's own kernel (KVER, default the running one): its headers
# must be installed; the script says which package when they are not.
module:
	@scripts/module-for.sh "$(KVER)" $(BUILD)/kmod-$(KVER)

# The module for each of FLAVOUR_KVERS, warnings failing as for the others.
module-flavours: deps
	@for k in $(FLAVOUR_KVERS); do scripts/module-for.sh $$k $(BUILD)/kmod-$$k || exit 1; done

# For the guests' pinned kernel (make check, demo, bench, soak).
module-stock: deps $(BUILD)/kmod-stock/src/softcx.ko
$(BUILD)/kmod-stock/src/softcx.ko: $(KMOD_SRCS)
	$(call kmod_build,kmod-stock,$(KDIR_STOCK),)

# softcx-dkms_<version>_all.deb: the sources under /usr/src for DKMS, built
# for every kernel with headers at install and on each new kernel.
deb:
	@scripts/make-deb.sh .

test-kernel: deps
	@tests/vm/build-test-kernel.sh >$(BUILD)/.testk-dir.tmp || exit 1; mkdir -p $(BUILD); \
		mv $(BUILD)/.testk-dir.tmp $(BUILD)/testk-dir

module-testk: test-kernel
	$(call kmod_build,kmod-testk,$$(cat $(BUILD)/testk-dir),KUNIT_FAIL_DEMO=$(KUNIT_FAIL_DEMO))

check:
	@scripts/check.sh

# The long variants: robust.sh for DURATION seconds on the test kernel,
# a million fuzzed WQEs on the stock one (scripts/soak.sh).
DURATION ?= 3600
soak: deps
	@scripts/soak.sh $(DURATION)

demo: module-stock
	@scripts/demo.sh

clean:
	rm -rf $(BUILD)

# --- host tests: the same core_cpp, host env, GoogleTest, ASan + UBSan -------
HOST_CXX ?= g++
SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
HOST_CORE_FLAGS := -std=gnu++20 -fno-exceptions -fno-rtti -Wall -Wextra -Werror \
	-Wno-missing-field-initializers -Wno-sign-compare -g -O1 $(SAN) \
	-Icore_cpp -Icore_cpp/include -Iuapi -MMD -MP
HOST_TEST_FLAGS := -std=gnu++20 -Wall -Wextra -Werror -Wno-missing-field-initializers -Wno-sign-compare \
	-g -O1 $(SAN) -Icore_cpp -Icore_cpp/include -Iuapi -Itests/host -MMD -MP
CORE_CPP_SRCS := $(sort $(wildcard core_cpp/*/*.cpp))
HOST_CORE_OBJS := $(patsubst %.cpp,$(BUILD)/host/%.o,$(filter-out core_cpp/lib/cxxrt.cpp,$(CORE_CPP_SRCS)))
HOST_TEST_SRCS := $(sort $(wildcard tests/host/*.cpp))
HOST_TEST_OBJS := $(patsubst %.cpp,$(BUILD)/host/%.o,$(HOST_TEST_SRCS))

$(BUILD)/host/core_cpp/%.o: core_cpp/%.cpp
	@mkdir -p $(dir $@)
	$(HOST_CXX) $(HOST_CORE_FLAGS) -c -o $@ $<
$(BUILD)/host/tests/%.o: tests/%.cpp
	@mkdir -p $(dir $@)
	$(HOST_CXX) $(HOST_TEST_FLAGS) -c -o $@ $<
# test_prm_ifc checks core_cpp/prm against the kernel's own mlx5 layouts,
# extracted by scripts/ifc_offsets.py (only those files are unpacked when the
# kernel tree is not there yet; the test-kernel build unpacks it fully later).
IFC_KSRC ?= $(SOFTCX_CACHE)/src/linux-source-6.1
IFC_KFILES := include/linux/mlx5/mlx5_ifc.h include/linux/mlx5/mlx5_ifc_fpga.h \
	include/linux/mlx5/device.h include/linux/mlx5/qp.h include/linux/mlx5/cq.h \
	include/linux/mlx5/driver.h include/linux/mlx5/doorbell.h \
	$(addprefix drivers/net/ethernet/mellanox/mlx5/core/,cmd.c eq.c mlx5_core.h)
$(addprefix $(IFC_KSRC)/,$(IFC_KFILES)):
	@mkdir -p $(dir $(IFC_KSRC))
	tar -C $(dir $(IFC_KSRC)) -xJf /usr/src/linux-source-6.1.tar.xz \
		$(addprefix linux-source-6.1/,$(IFC_KFILES))
$(BUILD)/host/gen/ifc_offsets.h: scripts/ifc_offsets.py $(wildcard core_cpp/prm/*.h) \
		$(addprefix $(IFC_KSRC)/,$(IFC_KFILES))
	@mkdir -p $(dir $@)
	python3 scripts/ifc_offsets.py --ifc $(IFC_KSRC)/include/linux/mlx5/mlx5_ifc.h \
		$(foreach f,$(filter-out %mlx5_ifc.h %fpga.h %device.h %qp.h %cq.h,$(IFC_KFILES)), \
			--ifc-extra $(IFC_KSRC)/$(f)) \
		$(foreach h,device qp cq,--device $(IFC_KSRC)/include/linux/mlx5/$(h).h) \
		--prm core_cpp/prm -o $@
$(BUILD)/host/tests/host/test_prm_ifc.o: $(BUILD)/host/gen/ifc_offsets.h
$(BUILD)/host/tests/host/test_prm_ifc.o: HOST_TEST_FLAGS += -I$(BUILD)/host/gen

$(BUILD)/host/softcx_tests: $(HOST_CORE_OBJS) $(HOST_TEST_OBJS)
	$(HOST_CXX) $(SAN) -o $@ $^ -lgtest -lgtest_main -pthread
-include $(HOST_CORE_OBJS:.o=.d) $(HOST_TEST_OBJS:.o=.d)

host-test: deps $(BUILD)/host/softcx_tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(BUILD)/host/softcx_tests --gtest_brief=1

# --- benchmarks (numbers, not tests) -----------------------------------------
# softcx against rdma_rxe in one stock guest (perftest bandwidth and latency,
# memcpy ceiling, idle CPU with 1000 QPs): build/bench/verbs.txt; NOP
# commands/s and latency: build/bench/nop.txt; two guests on a link,
# softcx↔softcx, softcx→rxe and rxe↔rxe side by side: build/bench/wire.txt;
# the packet engine natively, on this host: build/bench/engine.txt.
BENCH_BIN := $(BUILD)/bench-bin
bench: module-stock $(BENCH_BIN)/memcpy_bw $(BENCH_BIN)/idle_qps $(BENCH_BIN)/engine \
	$(BENCH_BIN)/trap_floor $(BENCH_BIN)/wake_floor
	@bench/run.sh
$(BENCH_BIN)/memcpy_bw: bench/memcpy_bw.c
	@mkdir -p $(dir $@)
	gcc -std=c11 -O2 -Wall -Wextra -Werror -o $@ $<
$(BENCH_BIN)/idle_qps: bench/idle_qps.c
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $< -libverbs
$(BENCH_BIN)/trap_floor: bench/trap_floor.c
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $< -libverbs -lmlx5
$(BENCH_BIN)/wake_floor: bench/wake_floor.c
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $<
# The core as the module builds it (-O2), no sanitizers, with the host
# tests' env and Dp fixture.
ENGINE_DIR := $(BUILD)/bench-engine
ENGINE_FLAGS := -std=gnu++20 -Wall -Wextra -Werror -Wno-missing-field-initializers -Wno-sign-compare \
	-g -O2 -Icore_cpp -Icore_cpp/include -Iuapi -Itests/host -MMD -MP
ENGINE_SRCS := $(filter-out core_cpp/lib/cxxrt.cpp,$(CORE_CPP_SRCS)) tests/host/host_env.cpp \
	tests/host/hca_harness.cpp tests/host/test_platform.cpp bench/engine.cpp
ENGINE_OBJS := $(patsubst %.cpp,$(ENGINE_DIR)/%.o,$(ENGINE_SRCS))
$(ENGINE_DIR)/core_cpp/%.o: core_cpp/%.cpp
	@mkdir -p $(dir $@)
	$(HOST_CXX) $(ENGINE_FLAGS) -fno-exceptions -fno-rtti -c -o $@ $<
$(ENGINE_DIR)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(HOST_CXX) $(ENGINE_FLAGS) -c -o $@ $<
$(BENCH_BIN)/engine: $(ENGINE_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CXX) -o $@ $^ -lgtest -lgtest_main -pthread
-include $(ENGINE_OBJS:.o=.d)

# --- fuzzing: libFuzzer over the hca's command interface ---------------------
# `make fuzz` builds tests/fuzz/fuzz_cmdq, fuzzes for FUZZ_SECONDS starting
# from the corpus and fresh seeds, then minimises everything back into the
# corpus (by edges only, -use_counters=0, which keeps it to a few hundred
# small files); `make fuzz-replay` runs the corpus and the regression inputs
# once.
FUZZ_CXX ?= clang++
FUZZ_SECONDS ?= 600
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_BIN := $(FUZZ_DIR)/fuzz_cmdq
FUZZ_CORPUS := tests/fuzz/corpus/cmdq
FUZZ_REGRESS := tests/fuzz/regress/cmdq
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
# Everything without RTTI, like the hca itself (UBSan's vptr check needs it).
FUZZ_FLAGS := -std=gnu++20 -fno-exceptions -fno-rtti -Wall -Wextra -Werror \
	-Wno-missing-field-initializers -Wno-sign-compare -g -O1 $(FUZZ_SAN) \
	-Icore_cpp -Icore_cpp/include -Iuapi -Itests/host -MMD -MP
FUZZ_CORE_SRCS := $(filter-out core_cpp/lib/cxxrt.cpp,$(sort $(wildcard core_cpp/lib/*.cpp core_cpp/hca/*.cpp)))
FUZZ_CORE_OBJS := $(patsubst %.cpp,$(FUZZ_DIR)/obj/%.o,$(FUZZ_CORE_SRCS) tests/fuzz/fuzz_cmdq.cpp)
FUZZ_ENV_OBJ := $(FUZZ_DIR)/obj/tests/host/host_env.o
FUZZ_RUN := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
FUZZ_OPTS := -timeout=10 -rss_limit_mb=4096 -max_len=16384 -print_final_stats=1

.PHONY: fuzz fuzz-build fuzz-replay
fuzz-build: $(FUZZ_BIN)

# Coverage on the hca and the target; the host env (threads, locks, the
# IOMMU map) only gets the sanitizers.
$(FUZZ_DIR)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
$(FUZZ_ENV_OBJ): tests/host/host_env.cpp
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -c -o $@ $<
$(FUZZ_BIN): $(FUZZ_CORE_OBJS) $(FUZZ_ENV_OBJ)
	$(FUZZ_CXX) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ -pthread
-include $(FUZZ_CORE_OBJS:.o=.d) $(FUZZ_ENV_OBJ:.o=.d)

fuzz: $(FUZZ_BIN)
	rm -rf $(FUZZ_DIR)/seeds $(FUZZ_DIR)/new $(FUZZ_DIR)/merged
	mkdir -p $(FUZZ_DIR)/new $(FUZZ_DIR)/merged $(FUZZ_DIR)/artifacts $(FUZZ_CORPUS) $(FUZZ_REGRESS)
	SCX_FUZZ_SEEDS=$(FUZZ_DIR)/seeds $(FUZZ_BIN)
	$(FUZZ_RUN) $(FUZZ_BIN) $(FUZZ_OPTS) -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_DIR)/new $(FUZZ_CORPUS) $(FUZZ_DIR)/seeds
	$(FUZZ_RUN) $(FUZZ_BIN) $(FUZZ_OPTS) -merge=1 -use_counters=0 $(FUZZ_DIR)/merged \
		$(FUZZ_CORPUS) $(FUZZ_DIR)/seeds $(FUZZ_DIR)/new
	rm -f $(FUZZ_CORPUS)/*
	cp $(FUZZ_DIR)/merged/* $(FUZZ_CORPUS)/
	@echo "corpus: $$(ls $(FUZZ_CORPUS) | wc -l) files, $$(du -sk $(FUZZ_CORPUS) | cut -f1) KiB"

fuzz-replay: $(FUZZ_BIN)
	$(FUZZ_RUN) $(FUZZ_BIN) $(FUZZ_OPTS) -runs=0 $(FUZZ_CORPUS) $(FUZZ_REGRESS)

# --- userspace verbs tests: libibverbs (+ mlx5dv), run in the guest ----------
# tests/vm/guest/verbs-objects.sh runs build/verbs/verbs_objects on rxe and
# softcx, tests/vm/guest/wqe-fuzz.sh build/verbs/wqe_fuzz on softcx,
# tests/vm/guest/iommu.sh build/verbs/iommu_bug on softcx; host and
# guest share Debian 12's rdma-core, so they are built here.
VERBS_DIR := $(BUILD)/verbs
VERBS_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror

.PHONY: verbs-tests soak
VERBS_PROGS := verbs_objects wqe_fuzz iommu_bug robust uverbs_fuzz ctx_leak_repro async_events uar_doorbells counted_errors big_wqe devx_other uar_objects devx_events devx_isolation
verbs-tests: $(addprefix $(VERBS_DIR)/,$(VERBS_PROGS)) $(VERBS_DIR)/idle_qps
# The benchmark's 1000 idle QPs, for the doorbell-scheduling test too.
$(VERBS_DIR)/idle_qps: $(BENCH_BIN)/idle_qps
	@mkdir -p $(dir $@)
	cp $< $@
# Each program with vt.c (the helpers they share); -lpthread for robust.
$(VERBS_DIR)/%: tests/verbs/%.c tests/verbs/vt.c tests/verbs/vt.h
	@mkdir -p $(dir $@)
	gcc $(VERBS_CFLAGS) -o $@ $< tests/verbs/vt.c -libverbs -lmlx5 -lpthread
