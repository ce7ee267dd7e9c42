# servesim: top-level build.  `make run` and `make test` are the README's two
# commands; both install missing Debian packages first (make deps).
#
# Knobs (all build-time configuration lives here):
#   BUILD=dir      output folder (default build)
#   PREFIX=dir     install prefix (default /usr/local)
#   SAN=1          AddressSanitizer + UndefinedBehaviorSanitizer build (used by test-asan)
#   FUZZ_SECONDS=n how long `make fuzz` runs each libFuzzer harness (default 60); `make test`
#                  runs them too when CI=true (for FUZZ_CI_SECONDS each, default 30) or when
#                  FUZZ_SECONDS is given, unless TESTS= names some suites only (docs/fuzzing.md)
#   MPI=1          build with mpicc for `mpirun servesim sweep` (default folder build/mpi)
#   CFLAGS=...     optimisation and debug flags (default -O2 -g)
#   V=1            print full compiler command lines
#   PROBE_QUICK=1  `make probe` in its ~1-2 minute development mode, to build/probe-quick/
#                  (and `make probe-calibrate` from there); PROBE_OUT=dir picks another folder
#   PROBE_PY=path  the Python that has Debian's torch (default /usr/bin/python3)

CC      ?= cc
PREFIX  ?= /usr/local
ifeq ($(MPI),1)
BUILD   ?= build/mpi
CC      := mpicc
CPPFLAGS += -DSS_MPI
endif
BUILD   ?= build
CFLAGS  ?= -O2 -g
PKGS    := gsl libcjson yaml-0.1
TESTPKG := cunit
# pkg-config name -> Debian package, for `make deps`
DEB_gsl := libgsl-dev
DEB_libcjson := libcjson-dev
DEB_yaml-0.1 := libyaml-dev
DEB_cunit := libcunit1-dev

WARN     := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-unused-parameter -Werror=implicit-function-declaration
ifeq ($(SAN),1)
# float-cast-overflow: GCC's `undefined` leaves it out (a double too big for an integer cast).
CFLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow \
            -fno-sanitize-recover=undefined,float-cast-overflow
LDFLAGS  += -fsanitize=address,undefined,float-cast-overflow
endif
# FUZZ=1 (with SAN=1 and clang, set by `make fuzz`): the library's objects also
# get libFuzzer's coverage instrumentation; plugins do not (they are dlclose()d,
# and libFuzzer keeps pointers to every instrumented module's counters).
SIM_COV  := $(if $(filter 1,$(FUZZ)),-fsanitize=fuzzer-no-link)
Q := $(if $(V),,@)
PLUGIN_DIR := $(PREFIX)/lib/servesim/policies
MODEL_DIR  := $(PREFIX)/share/servesim/models
DATA_DIR   := $(PREFIX)/share/servesim
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -Isim \
            -DSS_PLUGIN_DIR='"$(PLUGIN_DIR)"' -DSS_MODEL_DIR='"$(MODEL_DIR)"' -DSS_DATA_DIR='"$(DATA_DIR)"' \
            -DSS_VERSION='"0.1.0"'
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CUNIT_LIBS = $(shell pkg-config --libs $(TESTPKG) 2>/dev/null)

SIM_SRC  := $(filter-out sim/cmd/main.c,$(sort $(wildcard sim/*/*.c)))
SIM_OBJ  := $(SIM_SRC:%.c=$(BUILD)/%.o)
POL_SRC  := $(sort $(wildcard policies/*.c))
POL_SO   := $(POL_SRC:policies/%.c=$(BUILD)/policies/%.so)
TEST_SRC := $(sort $(wildcard tests/*.c))
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
TPLUG_SO := $(patsubst tests/plugins/%.c,$(BUILD)/tests/plugins/%.so,$(sort $(wildcard tests/plugins/*.c)))
BIN      := $(BUILD)/servesim
# Fuzzing (the fuzz targets below): clang builds the library with SAN=1 FUZZ=1 into FUZZ_BUILD.
FUZZ_CC      ?= clang
FUZZ_BUILD   := build/fuzz
FUZZERS      := scenario profile trace sweep topo plan layers hwprofile calibrate transfers compare
FUZZ_BINS    := $(FUZZERS:%=$(FUZZ_BUILD)/fuzz_%)
# Not with TESTS=...: some suites only is the edit loop, never the fuzzers.
FUZZ_GIVEN   := $(filter command line environment,$(origin FUZZ_SECONDS))
FUZZ_IN_TEST := $(if $(TESTS),,$(if $(filter true,$(CI)),1,$(FUZZ_GIVEN)))
FUZZ_SECONDS ?= 60
# CI's slice per harness when FUZZ_SECONDS is not given: 11 harnesses x 30 s
# keep the fuzzing near the 5 minutes five harnesses x 60 s took.
FUZZ_CI_SECONDS ?= 30

.PHONY: all deps build run test test-quick profiles check-built mpi-for-tests test-asan fuzz fuzz-built fuzz-bins bench plots reference \
        install uninstall clean probe probe-deps probe-check probe-calibrate probe-transfer probe-memshare

all: build

deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"; \
	for p in $(PKGS) $(TESTPKG); do \
	  pkg-config --exists $$p 2>/dev/null || case $$p in \
	    gsl) missing="$$missing $(DEB_gsl)";; libcjson) missing="$$missing $(DEB_libcjson)";; \
	    yaml-0.1) missing="$$missing $(DEB_yaml-0.1)";; cunit) missing="$$missing $(DEB_cunit)";; esac; \
	done; \
	command -v gnuplot >/dev/null 2>&1 || missing="$$missing gnuplot-nox"; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3"; \
	command -v mpicc >/dev/null 2>&1 || missing="$$missing openmpi-bin libopenmpi-dev"; \
	command -v $(FUZZ_CC) >/dev/null 2>&1 || missing="$$missing clang"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing \
	    || { echo "deps: apt-get failed; install by hand:$$missing" >&2; exit 1; }; \
	fi; \
	probe=$$(mktemp); \
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' \
	  | $(FUZZ_CC) -x c -fsanitize=fuzzer -o "$$probe" - >/dev/null 2>&1; linked=$$?; rm -f "$$probe"; \
	if [ $$linked != 0 ]; then \
	  rt="libclang-rt-$$($(FUZZ_CC) -dumpversion | cut -d. -f1)-dev"; \
	  echo "deps: installing $$rt (libFuzzer, for make fuzz)"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$rt \
	    || { echo "deps: apt-get failed; install by hand: $$rt" >&2; exit 1; }; \
	fi

build: $(BIN) $(POL_SO)

$(BIN): $(BUILD)/sim/cmd/main.o $(BUILD)/libservesim.a
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -ldl -lm

$(BUILD)/libservesim.a: $(SIM_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	$(Q)ar rcs $@ $^

$(BUILD)/sim/%.o: sim/%.c $(wildcard sim/*/*.h) $(wildcard include/servesim/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(WARN) $(CFLAGS) $(SIM_COV) -c -o $@ $<

$(BUILD)/policies/%.so: policies/%.c $(wildcard include/servesim/*.h) $(wildcard policies/*.h)
	@mkdir -p $(dir $@)
	@echo "  PLUGIN  $<"
	$(Q)$(CC) -Iinclude $(WARN) $(CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ $<

# deepeye-frugal.c is deepeye.c built with FRUGAL.
$(BUILD)/policies/deepeye-frugal.so: policies/deepeye.c

$(BUILD)/tests/plugins/%.so: tests/plugins/%.c $(wildcard include/servesim/*.h)
	@mkdir -p $(dir $@)
	@echo "  PLUGIN  $<"
	$(Q)$(CC) -Iinclude $(WARN) $(CFLAGS) -fPIC -shared $(LDFLAGS) -o $@ $<

$(BUILD)/tests/%.o: tests/%.c tests/test.h $(wildcard sim/*/*.h) $(wildcard include/servesim/*.h) $(wildcard policies/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) -DSS_BUILD_DIR='"$(abspath $(BUILD))"' -DSS_SRC_DIR='"$(CURDIR)"' \
	  $(WARN) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/run_tests: $(TEST_OBJ) $(BUILD)/libservesim.a
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(CUNIT_LIBS) $(PKG_LIBS) -ldl -lm

# `make run`: build (on every core unless make was given -j), run the default scenario
# (scenarios/default.yaml: the table, results/serverless.csv and its 1 s samples
# results/serverless.timeseries.csv), then plot the samples beside the CSV (servesim plot).
NPROC := $(shell nproc 2>/dev/null || echo 1)
RUN_TITLE := GPT-2 XL and T5-3B scaled from zero by ATL on 1,600 A10 GPUs (spine-leaf fabric, storage behind 2 Gbit/s), \
  a Twitter-like hour each\nbaseline: every replica from storage; locality: host RAM, then a peer, then storage; \
  multicast: TCP chains; flashpoint: locality + multicast (replication 0)

run: deps
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC)) build
	$(BIN) run scenarios/default.yaml
	@$(BIN) plot timeseries results/serverless.timeseries.csv -o results/serverless.png --title "$$(printf '%b' "$(RUN_TITLE)")"
	@echo "plot: results/serverless.png (arrival rate, replicas up, cold-starting and queued over time, per model," \
	  "every variant; servesim plot timeseries)"

# The test command of the README and .ci/run.  TESTS="engine cfg" runs some suites only
# (build/tests/run_tests --list names them); test-quick below is the edit loop's.
test: deps
	@$(MAKE) --no-print-directory check-built
ifneq ($(FUZZ_IN_TEST),)
	@$(MAKE) --no-print-directory fuzz-built $(if $(FUZZ_GIVEN),,FUZZ_SECONDS=$(FUZZ_CI_SECONDS))
endif

# The sweep tests compare `mpirun` against -j 2: beside a plain build, an MPI
# build of the same sources is made in $(BUILD)/mpi when mpicc is there.
MPI_FOR_TESTS := $(if $(filter 1,$(SAN) $(MPI)),,$(if $(shell command -v mpicc),mpi-for-tests))

check-built: build $(BUILD)/tests/run_tests $(TPLUG_SO) $(MPI_FOR_TESTS)
	$(BUILD)/tests/run_tests $(TESTS)

# The edit loop: every suite but the doc test and the slow ones (over ~4 s each on the
# development machine), under 30 s there; no fuzzers and no MPI build (the sweep suite skips
# its mpirun comparison).  `make test` stays the full run.
QUICK_SKIP := docs probe-model layers partitioned substrate-queueing pipeline-compute tune flow-random \
              progress hwprofile run-queues outputs calibrate partition install optimize runner
test-quick: deps
	@$(MAKE) --no-print-directory build $(BUILD)/tests/run_tests $(TPLUG_SO)
	$(BUILD)/tests/run_tests $(QUICK_SKIP:%=-x %)

mpi-for-tests:
	@$(MAKE) --no-print-directory MPI=1 BUILD=$(BUILD)/mpi build

test-asan: deps
	@$(MAKE) --no-print-directory BUILD=build/asan SAN=1 check-built

# ---- fuzzing: libFuzzer harnesses of the input loaders (tests/fuzz/, docs/fuzzing.md) ----
# Each harness runs FUZZ_SECONDS on its seeds (tests/fuzz/NAME/) plus what earlier
# runs found (build/fuzz/corpus/NAME/); a crash, leak, UB or timeout fails the target.
fuzz: deps
	@$(MAKE) --no-print-directory fuzz-built

fuzz-built:
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) SAN=1 FUZZ=1 CC=$(FUZZ_CC) fuzz-bins
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZERS)

# The plugins beside the harnesses (build/fuzz/policies) are what sweep points load.
fuzz-bins: $(FUZZ_BINS) $(POL_SO)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.c tests/fuzz/fuzz.h $(BUILD)/libservesim.a
	@echo "  FUZZER  $@"
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) -DSS_SRC_DIR='"$(CURDIR)"' $(WARN) $(CFLAGS) -fsanitize=fuzzer \
	  $(LDFLAGS) -o $@ $< tests/fuzz/fuzz.c $(BUILD)/libservesim.a $(PKG_LIBS) -ldl -lm

bench: deps
	@$(MAKE) --no-print-directory build
	bench/run.sh $(BIN)
	bench/run.sh $(BIN) bench/mm1-ps.yaml 2
	bench/flows.sh $(BIN)
	bench/masa.sh $(BIN)
	bench/flashpoint.sh $(BIN)
	bench/roma.sh $(BIN)
	bench/ensemble.sh $(BIN)
	bench/big-inputs.sh $(BIN)
	bench/llm.sh $(BIN)

# Render the committed reference results (results/reference/) to PNG.
plots: deps
	@$(MAKE) --no-print-directory build
	plots/render.sh $(BIN)

# Rerun the reference sweeps, then render.
reference: deps
	@$(MAKE) --no-print-directory build
	plots/render.sh $(BIN) --rerun

# ---- the real block pipeline (issue 15, tools/probe/README.md) ----
# Debian's torch, torchvision and pyzmq, and OpenBLAS (OpenMP build) for torch's BLAS calls; the
# probe writes profiles/measured/probe-{micro,e2e}.json (quick mode: build/probe-quick/).
PROBE_PY   ?= /usr/bin/python3
PROBE_OUT  ?= $(if $(filter 1,$(PROBE_QUICK)),build/probe-quick,profiles/measured)

probe: probe-deps
	$(PROBE_PY) tools/probe/run.py $(if $(filter 1,$(PROBE_QUICK)),--quick) --out $(PROBE_OUT) $(PROBE_ARGS)

# After `make probe`: PROBE_OUT's micro-benchmarks -> servesim calibrate -> models/resnet50-cpu.json
# (a quick run's: PROBE_OUT/scenario/, models/ untouched) -> servesim validate against PROBE_OUT's
# end-to-end runs, the table into $(BUILD)/probe-validate.csv (tools/probe/calibrate.sh; exit 1:
# some prediction beyond its tolerance).
probe-calibrate: deps
	@$(MAKE) --no-print-directory build
	tools/probe/calibrate.sh $(BIN) $(PROBE_OUT) $(BUILD)/probe-validate.csv

# The transfer experiment (issue 41 item 1, tools/probe/transfer.py, docs/transfers.md; no torch):
# one sender to k = 1..8 receivers over loopback TCP, unicast and relay chain -> PROBE_OUT/
# probe-transfer.json -> servesim calibrate fits the machine's transfer law (its runs of use fit)
# into models/loopback-transfer.json (another PROBE_OUT: PROBE_OUT/transfer-law.json) -> servesim
# validate --transfer-law predicts the runs kept for validation, the table into
# $(BUILD)/probe-transfer-validate.csv (exit 1: a condition beyond 10%). ~6 min on 2 cores.
TRANSFER_LAW ?= $(if $(filter profiles/measured,$(PROBE_OUT)),models/loopback-transfer.json,$(PROBE_OUT)/transfer-law.json)
probe-transfer: deps
	@$(MAKE) --no-print-directory build
	$(PROBE_PY) tools/probe/transfer.py $(if $(filter 1,$(PROBE_QUICK)),--quick) --out $(PROBE_OUT)
	python3 tools/probe/check_profile.py $(PROBE_OUT)/probe-transfer.json
	$(BIN) calibrate $(PROBE_OUT)/probe-transfer.json -o $(TRANSFER_LAW) --name loopback-transfer
	$(BIN) validate $(PROBE_OUT)/probe-transfer.json --transfer-law $(TRANSFER_LAW) \
	  -o $(BUILD)/probe-transfer-validate.csv

# The memory-bandwidth benchmark (issue 41 item 5(ii), tools/probe/memshare.py, docs/calibration.md
# "Copies sharing memory bandwidth"; no torch): copies alone and one per core -> PROBE_OUT/
# probe-memshare.json -> servesim calibrate's scheduler.memory_bandwidth (printed; make
# probe-calibrate puts it in the probe's model file). ~30 s.
probe-memshare:
	@$(MAKE) --no-print-directory build
	$(PROBE_PY) tools/probe/memshare.py $(if $(filter 1,$(PROBE_QUICK)),--quick) --out $(PROBE_OUT)
	python3 tools/probe/check_profile.py $(PROBE_OUT)/probe-memshare.json
	$(BIN) calibrate $(PROBE_OUT)/probe-memshare.json -o $(BUILD)/probe-memshare-law.json --name memory-bandwidth

# The resident-memory probe (issue 44 item 1, tools/probe/memory.py, docs/memory.md): a fresh process
# per allocator, torchvision network and batch reads its VmRSS/VmHWM after import torch, after
# building the network, after forwards -> PROBE_OUT/probe-memory.json (glibc's default malloc) and
# probe-memory-mmap.json (MALLOC_MMAP_THRESHOLD_=131072) -> servesim calibrate's `resident` laws
# (models/resident-cpu.json and resident-cpu-mmap.json from profiles/measured; another PROBE_OUT:
# PROBE_OUT/resident-law.json and resident-law-mmap.json). ~10 min on 2 quiet cores.
RESIDENT_LAW ?= $(if $(filter profiles/measured,$(PROBE_OUT)),models/resident-cpu,$(PROBE_OUT)/resident-law)
.PHONY: probe-memory
probe-memory: probe-deps
	@$(MAKE) --no-print-directory build
	$(PROBE_PY) tools/probe/memory.py $(if $(filter 1,$(PROBE_QUICK)),--quick) --out $(PROBE_OUT)
	python3 tools/probe/check_profile.py $(PROBE_OUT)/probe-memory.json $(PROBE_OUT)/probe-memory-mmap.json
	$(BIN) calibrate $(PROBE_OUT)/probe-memory.json -o $(RESIDENT_LAW).json --name resident-cpu
	$(BIN) calibrate $(PROBE_OUT)/probe-memory-mmap.json -o $(RESIDENT_LAW)-mmap.json --name resident-cpu-mmap

probe-deps:
	@missing=""; \
	$(PROBE_PY) -c 'import torch, torchvision, zmq' >/dev/null 2>&1 || missing="python3-torch python3-torchvision python3-zmq"; \
	dpkg -s libopenblas0-openmp >/dev/null 2>&1 || missing="$$missing libopenblas0-openmp"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	if [ -n "$$missing" ]; then \
	  echo "probe-deps: installing $$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing \
	    || { echo "probe-deps: apt-get failed; install by hand: $$missing" >&2; exit 1; }; \
	fi

# The shipped profiles that come from published tables, rebuilt by `servesim calibrate --base` from
# their transcriptions (profiles/published/, docs/calibration.md "Published tables"); suite
# `published` checks the committed files are these bytes.
profiles: deps
	@$(MAKE) --no-print-directory build
	tools/published-profiles.sh $(BIN) models

# Without torch: the committed probe profiles against the format (and the checker's own cases,
# and the scheduler-trace diagnostic's analysis on its hand-made trace).
probe-check:
	python3 tools/probe/check_profile.py --self-test
	python3 tools/probe/schedtrace.py --self-test
	python3 tools/probe/check_profile.py $(wildcard profiles/measured/probe-*.json)
	python3 tools/probe/arrivals.py --check profiles/measured/probe-e2e.json

# `make install PREFIX=...` (DESTDIR=... to stage): the binary, plugins, headers, servesim.pc, the man
# page and bash/zsh completion made from the commands' --help, and under share/servesim/ the models,
# scenarios, traces, topologies, benchmark scenarios, plot scripts and docs (tools/install.sh, which
# lists every file and folder it made in share/servesim/install-manifest); `make uninstall PREFIX=...`
# removes exactly those.
install: build $(BUILD)/servesim.1 $(BUILD)/servesim.bash $(BUILD)/_servesim
	tools/install.sh install "$(DESTDIR)" "$(PREFIX)" "$(BUILD)"

uninstall:
	tools/install.sh uninstall "$(DESTDIR)" "$(PREFIX)"

$(BUILD)/servesim.1: $(BIN) tools/gen-man.sh
	tools/gen-man.sh $(BIN) >$@.tmp && mv $@.tmp $@

$(BUILD)/servesim.bash: $(BIN) tools/gen-completion.sh
	tools/gen-completion.sh $(BIN) bash >$@.tmp && mv $@.tmp $@

$(BUILD)/_servesim: $(BIN) tools/gen-completion.sh
	tools/gen-completion.sh $(BIN) zsh >$@.tmp && mv $@.tmp $@

clean:
	rm -rf $(BUILD)
