# mk/bench.mk -- benchmarks and the long crash loop: measurements, never
# run by `make test`.

# The crash loop of `make test` (tests/integration/server/test_http_crashloop.c)
# with many more kills: CRASHLOOP_KILLS (200 by default; about ten minutes
# here), CRASHLOOP_SEED to replay a sequence of kill moments.
CRASHLOOP_KILLS ?= 200
#> kill -9 at random moments CRASHLOOP_KILLS=200 times, four jobs running
crashloop: all
	IRCG_BUILD_DIR=$(abspath $(BUILD)) OPENBLAS_NUM_THREADS=1 \
	IRCG_CRASHLOOP_KILLS=$(CRASHLOOP_KILLS) $(if $(CRASHLOOP_SEED),IRCG_CRASHLOOP_SEED=$(CRASHLOOP_SEED)) \
	./$(RUN_TESTS) http_crashloop.

#> the MovieLens benchmark (its ratings: make data)
bench: all data
	OPENBLAS_NUM_THREADS=1 ./$(BENCH_BIN) $(BENCH_ARGS)

# A benchmark of the service under load (tests/bench/loadtest.sh): wrk
# LOAD_SECONDS=60 at LOAD_CONNECTIONS=64 on job status and lists while
# jobs solve, SSE clients listen and submissions arrive; a burst of
# LOAD_BURST=500 submissions.  Latency, errors, RSS, jobs lost.
#> wrk on a real ircgd with jobs, SSE clients and submits; a burst of 500
loadtest: all deps-load
	tests/bench/loadtest.sh $(BUILD)

# Big instances (issue 12): several GB of memory and minutes of CPU at 100M;
# SCALE_ARGS="--sizes 1,10" for a quick look.  Scratch files go to
# $(BUILD)/bench-scale and are removed.
#> synthetic 1M/10M/100M ratings, readers, submit latency, a 1M-row trace,
#> the file 1,000 least-norm jobs leave (SCALE_ARGS=)
bench-scale: all
	OPENBLAS_NUM_THREADS=1 ./$(SCALE_BIN) --bin $(BUILD)/bin --tmp $(BUILD)/bench-scale $(SCALE_ARGS)

# The stochastic methods (issue 28): the LIBSVM reader's throughput, the
# follow-up paper's experiment on an instance of its shape, then least
# squares and logistic regression at m = 1e6 and 1e7 rows, n = 1e3 and
# 1e5, each IR-CG step rule against IR-SCG and IR-FSCG (two batch sizes
# each).  About 12 GB of memory at its peak (1e7 rows) and hours of CPU: run it once,
# not in make test.  BENCH_STO_ARGS="--sizes 1e6 --budget 30" for a quick
# look (tests/bench_sto/bench_sto.c lists the options).
#> IR-SCG and IR-FSCG against IR-CG at 1e6 and 1e7 rows, the LIBSVM
#> reader, the follow-up's experiment (hours, ~12 GB at its peak; BENCH_STO_ARGS=)
bench-stochastic: all
	OPENBLAS_NUM_THREADS=1 nice ./$(BENCH_STO_BIN) --tmp $(BUILD) $(BENCH_STO_ARGS)

# Data in and answers out (issue 39): a 200,000 x 500 dense least-squares
# problem with a validation split, from NumPy arrays to a solved job and
# back in one Client.solve call, from a fresh venv (Debian's python3 with
# its NumPy and SciPy: make deps); the upload against the same data inline
# as JSON, the daemon's peak RSS against its per-job budget, x against
# ircg solve's (tests/bench_data/README.md).  ~3 GB for the daemon and
# ~2 GB for the client at their peaks, a few minutes.
#> arrays to a solved job and back through ircgd: upload vs inline JSON,
#> peak RSS vs budget, x vs ircg solve (BENCH_DATA_ARGS=)
bench-data: all
	/usr/bin/python3 tests/bench_data/bench_data.py --build $(BUILD) $(BENCH_DATA_ARGS)

# Storage (issue 12, item 4): the streamed download of a 1M-row trace and
# the file that 1,000 least-norm jobs of 2,000 iterations leave, table by
# table (~2 minutes on 2 cores).
#> only the last two of bench-scale: the 1M-row trace download and the 1,000 jobs' file
bench-storage: all
	OPENBLAS_NUM_THREADS=1 ./$(SCALE_BIN) --bin $(BUILD)/bin --tmp $(BUILD)/bench-scale \
	  --no-solver --no-readers --sizes 1 --file-gb 0 $(SCALE_ARGS)

# ircg-mpi on 1, 2 and 4 ranks (issue 14): seconds per iteration, peak
# RSS per rank, communication against computation.  BENCH_MPI_ARGS="--sizes
# 10,100" adds the 100M instance (~6 GB over the ranks, minutes).
#> ircg-mpi on 1, 2, 4 ranks: s/iteration, RSS per rank, comm vs compute (BENCH_MPI_ARGS=)
bench-mpi: all
	python3 tests/bench_mpi/bench_mpi.py --bin $(BUILD)/bin $(BENCH_MPI_ARGS)

# ircg-mpi across the hosts of tests/cluster (network namespaces; root):
# one ordered sum timed on 2-4 hosts and the cost model fitted to it, the
# 10M and 100M synthetic jobs on 1-4 hosts, the model's prediction error,
# and 1B ratings predicted (tests/bench_cluster/bench_cluster.py).  ~15 min
# and 5 GB; BENCH_CLUSTER_ARGS="--sizes 10" for the 10M job alone.
#> ircg-mpi on 1-4 hosts (namespaces): per-iteration split, bytes, the cost model fitted
bench-cluster: all
	python3 tests/bench_cluster/bench_cluster.py --bin $(BUILD)/bin --tmp $(BUILD)/bench-cluster \
	  $(BENCH_CLUSTER_ARGS)

# Accuracy on demand (issue 37): every example of `ircg example --list` and
# the paper's instance, every method `ircg solve` accepts for each, timed to
# the certified (inner, outer) = (1e-6, 1e-3) and (1e-8, 1e-4) relative of
# the spec's "stop", ACC_BUDGET seconds a run at most, CVXOPT's exact
# answer beside (tests/accuracy/reference.py, at benchmark time: never a
# dependency of ircg); then only the accuracy section of
# tests/paper/RESULTS.md (results.py).  About an hour at 60 s;
# ACC_ARGS="--examples least-norm --methods ircg-ls" for a quick look
# (tests/bench_accuracy/bench_accuracy.py lists the options).
ACC_BUDGET ?= 60
ACC_OUT ?= $(BUILD)/bench-accuracy
#> time and iterations to certified (1e-6, 1e-3) and (1e-8, 1e-4): every example
#> and method, CVXOPT's reference beside (ACC_BUDGET=60 s a run), into RESULTS.md
bench-accuracy: all data deps-accuracy
	@mkdir -p $(ACC_OUT)
	tests/paper/provenance.sh > $(ACC_OUT)/provenance.json
	/usr/bin/python3 tests/bench_accuracy/bench_accuracy.py --bin $(BUILD)/bin --out $(ACC_OUT) \
	  --ratings $(DATA_OUT)/ratings.dat --budget $(ACC_BUDGET) $(ACC_ARGS)
	python3 tests/paper/results.py --accuracy $(ACC_OUT) --into tests/paper --only accuracy
