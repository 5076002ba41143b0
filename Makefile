# ircg -- build, test and benchmark.  `make help` lists the targets.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
SAN     ?=
# Release builds compile the assertions out; `make asan` and `make debug`
# keep them (DEFS=).
DEFS    ?= -DNDEBUG
# -fPIC: the solver's and the client's objects also make shared libraries.
CFLAGS  := -std=c11 $(OPT) -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -D_DEFAULT_SOURCE $(DEFS) -pthread -fPIC -MMD -MP $(SAN) $(EXTRA_CFLAGS)
LDFLAGS := -pthread $(SAN) $(EXTRA_LDFLAGS)

# Each layer sees only what it may use (docs/DESIGN.md, "Layers and
# rooms"; tests/tools/layers.py checks the same rules on the sources):
#   solver  its own headers                   storage  nothing of ours
#   api     the solver's public header         server   api, storage, solver's public header
#   clients the public headers they use       tests    everything
# Each library through pkg-config where its package ships a .pc file, else
# its plain name (a fresh machine before `make deps` has no pkg-config).
pc_cflags = $(or $(shell pkg-config --cflags $(1) 2>/dev/null),$(2))
pc_libs   = $(or $(shell pkg-config --libs $(1) 2>/dev/null),$(2))
CJSON_INC    := $(call pc_cflags,libcjson,-I/usr/include/cjson)
BLAS_INC     := $(call pc_cflags,openblas lapacke arpack,)
HTTP_INC     := $(call pc_cflags,libmicrohttpd,)
CURL_INC     := $(call pc_cflags,libcurl,)
INC_PUBLIC   := -Isolver/include
INC_SOLVER   := $(INC_PUBLIC) -Isolver/src $(BLAS_INC)
INC_API      := $(INC_PUBLIC) -Iapi $(CJSON_INC)
INC_STORAGE  := -Istorage
INC_SERVER   := $(INC_PUBLIC) -Iapi -Istorage -Iserver $(CJSON_INC) $(HTTP_INC)
INC_CLIENT   := -Iclients/c $(CJSON_INC) $(CURL_INC)
INC_CLI      := $(INC_PUBLIC) -Iapi -Iclients/cli -Iclients/c $(CJSON_INC)
INC_TESTS    := $(INC_SOLVER) -Iapi -Istorage -Iserver -Iclients/c -Iclients/cli -Itests \
                $(CJSON_INC) $(HTTP_INC) $(CURL_INC)
LIB_SOLVER  := $(call pc_libs,lapacke,-llapacke) $(call pc_libs,openblas,-lopenblas) \
               $(call pc_libs,arpack,-larpack) -lm
LIB_JSON    := $(call pc_libs,libcjson,-lcjson)
LIB_ZLIB    := $(call pc_libs,zlib,-lz)
LIB_SQL     := $(call pc_libs,sqlite3 nettle zlib,-lsqlite3 -lnettle -lz)
LIB_HTTP    := $(call pc_libs,libmicrohttpd gnutls zlib,-lmicrohttpd -lgnutls -lz)
LIB_CURL    := $(call pc_libs,libcurl,-lcurl)

SOLVER_SRC  := $(sort $(shell find solver/src -name '*.c'))
API_SRC     := $(wildcard api/*.c)
STORAGE_SRC := $(wildcard storage/*.c)
SERVER_SRC  := $(filter-out server/main.c,$(sort $(shell find server -name '*.c')))
CLIENT_SRC  := $(wildcard clients/c/*.c)
CLI_SRC     := $(wildcard clients/cli/*.c)
MPI_SRC     := $(wildcard clients/mpi/*.c)
# tests/study: measurements shared by the unit tests (assertions) and the
# study program (the tables of tests/paper/RESULTS.md)
STUDY_LIB   := $(filter-out tests/study/study_main.c,$(wildcard tests/study/*.c))
# The tests mirror the rooms of the code (docs/DESIGN.md, "Tests"):
# tests/unit/<room>/ (solver/<room>, api, storage, cli, datasets, tools),
# tests/integration/<room>/ (server, mpi, clients, deploy), and the helpers
# several rooms share in tests/common/; every .c file under them is built.
TEST_ROOMS  := tests/unit tests/integration tests/common
TEST_SRC    := tests/harness.c tests/harness_guard.c $(sort $(shell find $(TEST_ROOMS) -name '*.c')) \
               $(STUDY_LIB) $(wildcard tests/fuzz/*.c)
# The suites a target runs, named by the tests themselves: a line
# "/* make TARGET: FILTER */" in a test file (its suite, "suite.", or one
# test, "suite.test"); test_suite_lists checks each names its own file's.
marked = $(shell sed -n 's|^/\* make $(1): \([a-z0-9_.]*\) \*/$$|\1|p' $(TEST_SRC))
BENCH_SRC   := $(wildcard tests/bench/*.c)
# The cluster tests (tests/cluster/README.md): hosts made of network
# namespaces; their own runner, run by make test-cluster only.
CLUSTER_SRC := $(wildcard tests/cluster/*.c) tests/harness.c tests/harness_guard.c \
               $(wildcard tests/common/*.c)
SCALE_SRC   := $(wildcard tests/bench_scale/*.c)
BENCH_STO_SRC := $(wildcard tests/bench_sto/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBIRCG    := $(BUILD)/lib/libircg.a
LIBAPI     := $(BUILD)/lib/libircgapi.a
LIBSTORE   := $(BUILD)/lib/libircgstore.a
LIBSERVER  := $(BUILD)/lib/libircgserver.a
LIBCLIENT  := $(BUILD)/lib/libircgclient.a
# Shared libraries: libircg (the solver) and libircgclient (the C client),
# versioned sonames, exporting only their public API (the .map files).
VERSION    := 0.1.0
SOVERSION  := 0
LIBIRCG_SO   := $(BUILD)/lib/libircg.so.$(VERSION)
LIBCLIENT_SO := $(BUILD)/lib/libircgclient.so.$(VERSION)
IRCGD      := $(BUILD)/bin/ircgd
IRCG_CLI   := $(BUILD)/bin/ircg
IRCG_MPI   := $(BUILD)/bin/ircg-mpi
RUN_TESTS  := $(BUILD)/bin/run_tests
CLUSTER_TESTS := $(BUILD)/bin/run_cluster_tests
BENCH_BIN  := $(BUILD)/bin/bench
STUDY_BIN  := $(BUILD)/bin/study
SCALE_BIN  := $(BUILD)/bin/bench_scale
BENCH_STO_BIN := $(BUILD)/bin/bench_sto

UI_FILES      := $(sort $(shell find server/ui -type f))
EXAMPLES_JSON := $(BUILD)/gen/examples.json
GEN_ASSETS    := $(BUILD)/gen/assets.c
ASSETS_OBJ    := $(BUILD)/obj/gen/assets.o

# The data sets (datasets/README.md): DATASETS of datasets/MANIFEST into
# build/data, each from a local copy when DATA_DIR names one, else
# downloaded (curl) and checked against its sums; DATA_BASE_URL serves them
# from a mirror instead of their publishers.
DATA_DIR      ?=
DATASETS      ?= ml-100k ml-1m
DATA_MANIFEST ?= datasets/MANIFEST
DATA_BASE_URL ?=
DATA_OUT      := $(BUILD)/data

.PHONY: all lib test test-kernels loadtest deps-load valgrind deps-valgrind crashloop fuzz fuzz-bins \
        deps-fuzz tsan asan debug lint deps-lint bench bench-scale bench-stochastic bench-storage bench-mpi bench-data paper tta tta-run \
        bench-accuracy deps-accuracy \
        study study-scale study-directions results run deps deps-core deps-test deps-paper data data-local deps-node apt-install openapi-lint \
        screenshots install uninstall clean help \
        deps-unit unit-check deps-image image image-test test-cluster bench-cluster
# ircg-mpi (clients/mpi/) is the one program built with MPI (Open MPI's
# flags, from mpicc); libircg and ircgd know nothing of it.  Without mpicc
# it is not built, and its tests skip saying why.
MPI_CFLAGS ?= $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   ?= $(shell mpicc --showme:link 2>/dev/null)
# PARPACK (libparpack2-dev), the ARPACK engine of ircg-mpi only: pkg-config
# when it knows parpack, else the library's plain name.
PARPACK_CFLAGS ?= $(shell pkg-config --cflags parpack 2>/dev/null)
PARPACK_LIBS   ?= $(or $(shell pkg-config --libs parpack 2>/dev/null),-lparpack)
MPI_BIN    := $(if $(MPI_LIBS),$(IRCG_MPI))

#> build the library, the programs and the tests into build/ (BUILD=)
all: lib $(RUN_TESTS) $(BENCH_BIN) $(CLUSTER_TESTS) $(SCALE_BIN) $(BENCH_STO_BIN) $(STUDY_BIN) $(IRCGD) $(IRCG_CLI) $(MPI_BIN) $(LIBIRCG_SO) $(LIBCLIENT_SO)

# `make help`: the targets with a "#> " comment above them, in the order
# of the Makefile and mk/*.mk.
#> this list
help:
	@awk '/^#> /{d[n++]=substr($$0,4);next} /^[a-z][a-z0-9-]*:/&&n{t=$$0;sub(/:.*/,"",t); \
	  printf "make %-17s%s\n",t,d[0]; for(i=1;i<n;i++) printf "%22s%s\n","",d[i]} {n=0}' $(MAKEFILE_LIST)

lib: $(LIBIRCG)

# V=1 shows the full commands.
Q := $(if $(V),,@)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC    $<")
	$(Q)$(CC) $(CFLAGS) $(INC) -c $< -o $@

$(BUILD)/obj/solver/%.o:      INC = $(INC_SOLVER)
$(BUILD)/obj/api/%.o:         INC = $(INC_API)
$(BUILD)/obj/storage/%.o:     INC = $(INC_STORAGE)
$(BUILD)/obj/server/%.o:      INC = $(INC_SERVER)
$(BUILD)/obj/clients/c/%.o:   INC = $(INC_CLIENT)
$(BUILD)/obj/clients/cli/%.o: INC = $(INC_CLI)
$(BUILD)/obj/clients/mpi/%.o: INC = $(INC_CLI) -Iclients/mpi $(MPI_CFLAGS) $(PARPACK_CFLAGS)
$(BUILD)/obj/tests/%.o:       INC = $(INC_TESTS)
$(BUILD)/obj/tests/bench_scale/%.o: INC = $(INC_PUBLIC) -Istorage

$(LIBIRCG): $(call obj,$(SOLVER_SRC))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBAPI): $(call obj,$(API_SRC))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBSTORE): $(call obj,$(STORAGE_SRC))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBSERVER): $(call obj,$(SERVER_SRC)) $(ASSETS_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Files compiled into ircgd (server/routes/assets.h): the dashboard, the OpenAPI
# document, and the examples of `ircg example` (server/examples.sh).
$(EXAMPLES_JSON): $(IRCG_CLI) server/examples.sh
	@mkdir -p $(dir $@)
	$(Q)server/examples.sh $(IRCG_CLI) $@
$(GEN_ASSETS): server/embed.sh api/openapi.json $(UI_FILES) $(EXAMPLES_JSON)
	@mkdir -p $(dir $@)
	$(Q)server/embed.sh $@ /openapi.json=api/openapi.json /v1/examples=$(EXAMPLES_JSON) \
	  $(foreach f,$(UI_FILES),/ui/$(patsubst server/ui/%,%,$(f))=$(f))
$(ASSETS_OBJ): $(GEN_ASSETS)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC    $<")
	$(Q)$(CC) $(CFLAGS) -Iserver -c $< -o $@
$(LIBCLIENT): $(call obj,$(CLIENT_SRC))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# lib$(1).so.$(VERSION) from objects $(2), linked with $(3), exporting what
# the version script $(4) lists; soname lib$(1).so.$(SOVERSION).
define shared_lib
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,-soname,lib$(1).so.$(SOVERSION) -Wl,--version-script=$(4) \
	  -Wl,-z,defs -o $@ $(2) $(3)
endef
$(LIBIRCG_SO): $(call obj,$(SOLVER_SRC)) solver/libircg.map
	$(call shared_lib,ircg,$(call obj,$(SOLVER_SRC)),$(LIB_SOLVER),solver/libircg.map)
$(LIBCLIENT_SO): $(call obj,$(CLIENT_SRC)) clients/c/libircgclient.map
	$(call shared_lib,ircgclient,$(call obj,$(CLIENT_SRC)),$(LIB_CURL) $(LIB_JSON) -lm,clients/c/libircgclient.map)

# Each binary links only what it uses; dependents first.
$(IRCGD): $(call obj,server/main.c) $(LIBSERVER) $(LIBSTORE) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_HTTP) $(LIB_SQL) $(LIB_JSON) $(LIB_SOLVER)

# zlib: `ircg instance` writes an .npz (api/npz.c)
$(IRCG_CLI): $(call obj,$(CLI_SRC)) $(LIBCLIENT) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_CURL) $(LIB_JSON) $(LIB_ZLIB) $(LIB_SOLVER)

# ircg-mpi shares the CLI's output files and spec helpers.  -rdynamic:
# its crash report (mpi_crash.c) names its own functions, not offsets.
MPI_CLI_SRC := clients/cli/solve_output.c clients/cli/cli_util.c clients/cli/cli_opts.c
$(IRCG_MPI): $(call obj,$(MPI_SRC) $(MPI_CLI_SRC)) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -rdynamic -o $@ $^ $(PARPACK_LIBS) $(MPI_LIBS) $(LIB_JSON) -lz $(LIB_SOLVER)

$(RUN_TESTS): $(call obj,$(TEST_SRC)) $(LIBCLIENT) $(LIBSERVER) $(LIBSTORE) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_CURL) $(LIB_HTTP) $(LIB_SQL) $(LIB_JSON) $(LIB_SOLVER)

$(CLUSTER_TESTS): $(call obj,$(CLUSTER_SRC)) $(LIBCLIENT) $(LIBSERVER) $(LIBSTORE) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_CURL) $(LIB_HTTP) $(LIB_SQL) $(LIB_JSON) $(LIB_SOLVER)

$(STUDY_BIN): $(call obj,tests/study/study_main.c $(STUDY_LIB)) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_JSON) $(LIB_SOLVER)

# The scale benchmark links the library and the store (it seeds a long
# trace) and talks to a real daemon through libcurl.
$(SCALE_BIN): $(call obj,$(SCALE_SRC)) $(LIBSTORE) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_CURL) $(LIB_SQL) $(LIB_SOLVER)

# The stochastic methods' benchmark reads the problem's data (internal
# headers, as the tests do).
$(BENCH_STO_BIN): $(call obj,$(BENCH_STO_SRC)) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_SOLVER)

$(BENCH_BIN): $(call obj,$(BENCH_SRC))
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_JSON)

# The data files (never committed: datasets/fetch.sh).  `make data` takes
# them from the local copy or downloads them, and fails saying why when it
# can do neither; `data-local` never touches the network (the tests, which
# skip what is missing, saying so).
DATA_FETCH = datasets/fetch.sh --out $(DATA_OUT) --manifest $(DATA_MANIFEST) \
             $(if $(DATA_DIR),--local $(DATA_DIR)) $(if $(DATA_BASE_URL),--base-url $(DATA_BASE_URL))
#> the data sets DATASETS="ml-100k ml-1m" into build/data (datasets/README.md):
#> from a local copy DATA_DIR=DIR, else downloaded and checked
data:
	@$(DATA_FETCH) $(DATASETS)
data-local:
	@$(DATA_FETCH) --local-only $(DATASETS)

# IRCG_BUILD_DIR lets the tests find the daemon, the CLI and build/data.
# IRCG_SAN: the sanitizer flags, for what the tests compile themselves.
#> build and run the whole test suite (T=suite. runs one)
test: all data-local
	IRCG_BUILD_DIR=$(abspath $(BUILD)) IRCG_DATA_DIR=$(DATA_DIR) IRCG_SAN="$(SAN)" OPENBLAS_NUM_THREADS=1 ./$(RUN_TESTS) $(T)

# The cluster tests (tests/cluster/README.md): 3 or 4 hosts made of network
# namespaces (root, or CAP_SYS_ADMIN and CAP_NET_ADMIN; else they skip,
# saying why), Open MPI over TCP between them, ircgd launching jobs there
# with mpirun and with Slurm's srun, hosts lost mid-job.  A few minutes.
# tests/cluster/run.sh removes whatever the fixture made, whatever happens.
#> MPI and Slurm across hosts made of network namespaces (root; minutes)
test-cluster: all data-local
	IRCG_BUILD_DIR=$(abspath $(BUILD)) IRCG_SAN="$(SAN)" OPENBLAS_NUM_THREADS=1 \
	  tests/cluster/run.sh ./$(CLUSTER_TESTS) $(T)

# The numerical suites again under several OpenBLAS kernel sets
# (tests/tools/kernels.sh): a tolerance must hold on any CPU's kernels.
# Not golden.: it compares bits with traces made on the default kernels of
# this machine's CPU (tests/data/golden/README.md), which another kernel
# set rounds differently in the first rows.  The suites: those whose file
# says "make test-kernels: SUITE." (marked, above).
NUMERIC_SUITES = $(call marked,test-kernels)
#> the numerical suites under several OpenBLAS kernel sets
test-kernels: all data-local
	IRCG_BUILD_DIR=$(abspath $(BUILD)) tests/tools/kernels.sh ./$(RUN_TESTS) $(NUMERIC_SUITES)

# Fuzzing (tests/fuzz/README.md): one libFuzzer binary per target, built
# by clang with ASan and UBSan in build-fuzz/, each run FUZZ_SECONDS at
# nice 19 on its working corpus (build-fuzz/corpus/NAME, seeded from
# tests/fuzz/corpus/NAME and tests/fuzz/regress/NAME).  Crashes land in
# build-fuzz/artifacts/NAME/; `make test` replays the stored inputs.
FUZZ_TARGETS ?= spec movielens udata csv mtx vector libsvm decimal checkpoint trace_chunk http npy
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_PKGS := clang
FUZZ_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_SUPPORT := tests/fuzz/fuzz_util.c tests/fuzz/fuzz_ratings.c
#> every libFuzzer target FUZZ_SECONDS=60 each (clang, ASan, UBSan)
fuzz: deps-fuzz
	$(MAKE) BUILD=build-fuzz CC=clang OPT=-O1 DEFS= SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" fuzz-bins
	FUZZ_RUNS=$(FUZZ_RUNS) tests/tools/fuzz.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-bins: $(foreach t,$(FUZZ_TARGETS),$(BUILD)/fuzz/fuzz_$(t))

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SUPPORT) tests/fuzz/fuzz.h $(LIBSERVER) $(LIBSTORE) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  FUZZ  $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(INC_TESTS) -DFUZZ_LIBFUZZER -fsanitize=fuzzer \
	    -o $@ $(filter %.c,$^) $(filter %.a,$^) $(LIB_HTTP) $(LIB_SQL) $(LIB_JSON) $(LIB_SOLVER)

# ThreadSanitizer on the threaded tests (several workers, SSE clients,
# cancel and delete racing running jobs, shutdown during a solve); the
# daemons they start are the TSan build too.  Reports of any process go to
# build-tsan/tsan.PID; tests/tools/tsan.supp lists what is not ours, each
# entry with its reason.  Fails on any report.  The tests: those whose
# file says "make tsan: FILTER" (marked, above).
TSAN_TESTS = $(call marked,tsan)
# gcc instruments the load-time resolvers of target_clones functions, which
# run before the TSan runtime starts and crash: the files that use
# target_clones (numerical kernels, through SLV_CLONES of base/ksum.h)
# are built without TSan.
TSAN_PLAIN = $(shell grep -lE 'target_clones|SLV_CLONES' $(SOLVER_SRC))
ifeq ($(BUILD),build-tsan)
$(call obj,$(TSAN_PLAIN)): override CFLAGS := $(filter-out -fsanitize=thread,$(CFLAGS))
endif
#> the threaded tests under ThreadSanitizer
tsan:
	rm -f build-tsan/tsan.*
	$(MAKE) BUILD=build-tsan OPT=-O1 DEFS= SAN="-fsanitize=thread" all
	TSAN_OPTIONS="suppressions=$(abspath tests/tools/tsan.supp) log_path=$(abspath build-tsan)/tsan second_deadlock_stack=1" \
	IRCG_BUILD_DIR=$(abspath build-tsan) OPENBLAS_NUM_THREADS=1 ./build-tsan/bin/run_tests $(TSAN_TESTS)
	@if ls build-tsan/tsan.* >/dev/null 2>&1; then cat build-tsan/tsan.*; \
	  echo "tsan: $$(ls build-tsan/tsan.* | wc -l) process(es) reported data races"; exit 1; \
	else echo "tsan: no reports"; fi

#> the test suite under AddressSanitizer and UBSan (assertions on)
asan:
	$(MAKE) BUILD=build-asan OPT=-O1 DEFS= SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" test

# cppcheck and clang-tidy (.clang-tidy at the root) over the code we ship.
#> cppcheck and clang-tidy (.clang-tidy) over the shipped code
lint: deps-lint
	INC_SOLVER="$(INC_SOLVER)" INC_API="$(INC_API)" INC_STORAGE="$(INC_STORAGE)" \
	INC_SERVER="$(INC_SERVER)" INC_CLIENT="$(INC_CLIENT)" INC_CLI="$(INC_CLI)" \
	INC_MPI="$(INC_CLI) -Iclients/mpi $(MPI_CFLAGS) $(PARPACK_CFLAGS)" tests/tools/lint.sh

# The suite with assertions on and no optimization.
#> the test suite at -O0 with assertions on
debug:
	$(MAKE) BUILD=build-debug OPT=-O0 DEFS= test

# The ircg CLI under valgrind's memcheck on every example with every
# algorithm (tests/tools/valgrind.sh).
#> the ircg CLI under valgrind memcheck on every example
valgrind: all deps-valgrind
	tests/tools/valgrind.sh $(BUILD)

# Redocly CLI over the OpenAPI document (api/redocly.yaml); make test does
# the same when the tool is installed, CI always.
#> Redocly CLI over api/openapi.json
openapi-lint: deps-node
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
	  tests/node/node_modules/.bin/redocly lint --config api/redocly.yaml api/openapi.json

# The store and the data directory live in build/: specs may name the
# MovieLens files that `make data` put there ("path": "ratings.dat").
RUN_ARGS ?= --db $(BUILD)/ircg.db --data-dir $(DATA_OUT)
#> install what is missing, build and start the service
run: deps-core all data-local
	OPENBLAS_NUM_THREADS=1 ./$(IRCGD) $(RUN_ARGS)

# Dependencies, benchmarks, the paper's runs, images and installation.
include mk/deps.mk mk/bench.mk mk/paper.mk mk/release.mk

#> remove build/, build-asan/, build-debug/, build-fuzz/ and build-tsan/
clean:
	rm -rf $(BUILD) build-asan build-debug build-fuzz build-tsan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
