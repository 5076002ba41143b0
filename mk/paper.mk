# mk/paper.mk -- the paper's experiment, the studies beyond it, and
# tests/paper/RESULTS.md made from their outputs.

PAPER_BUDGET ?= 600
PAPER_BUDGET_100K ?= 120
PAPER_OUT ?= $(BUILD)/paper
STUDY_OUT ?= $(BUILD)/study

# The paper's experiment on both MovieLens files (Table 1, Figure 1), the
# time to accuracy on ML-1M, the studies beyond the paper, and
# tests/paper/RESULTS.md made from all of their outputs (with the commit
# that produced them).  OpenBLAS runs one thread: ours split the passes.
PAPER_RUN = OPENBLAS_NUM_THREADS=1 ./$(IRCG_CLI) paper
#> the paper's experiment, per method PAPER_BUDGET=600 s (ML-1M), PAPER_BUDGET_100K=120 s,
#> the time to accuracy (TTA_BUDGET=600 s), then make study and make results
paper: all data deps-paper
	@mkdir -p $(PAPER_OUT)
	tests/paper/provenance.sh > $(PAPER_OUT)/provenance.json
	$(PAPER_RUN) --ratings $(DATA_OUT)/ratings.dat --out $(PAPER_OUT)/ml-1m --budget $(PAPER_BUDGET) $(PAPER_ARGS)
	$(PAPER_RUN) --ratings $(DATA_OUT)/u.data --out $(PAPER_OUT)/ml-100k --budget $(PAPER_BUDGET_100K) $(PAPER_ARGS)
	$(MAKE) tta-run study results

# The measurements beyond the paper's experiment (tests/study): the rate
# table of Section 5, the selection instance, over-parameterized regression,
# the instances in other units (study-scale, with the paper's instance
# when the MovieLens 1M ratings are in build/data), IR-CG's away-step and
# pairwise directions on the polytopes' examples (study-directions).
STUDY_ENV = OPENBLAS_NUM_THREADS=1 $(if $(wildcard $(DATA_OUT)/ratings.dat),STUDY_RATINGS=$(DATA_OUT)/ratings.dat)
#> the rates of Section 5, the selection instance, over-parameterized regression,
#> the instances in other units (study-scale), the directions (study-directions)
study: all
	$(STUDY_ENV) ./$(STUDY_BIN) all --out $(STUDY_OUT)
	@if command -v gnuplot >/dev/null; then cd $(STUDY_OUT) && gnuplot overparam.gp; \
	else echo "gnuplot is not installed (make deps-paper): $(STUDY_OUT)/overparam.gp not run"; fi

# Only the instances in other units: the scale-free varsigma against the
# absolute one of before and a grid (tests/study/scale_study.c), and the
# grid of varsigma_rel the default's constant is chosen from
# (varsigma_study.c); `make test` runs its short version (test_scale_study.c).
#> the scale-free varsigma: six examples and the paper's instance at 5 scales,
#> and the grid of varsigma_rel that chose the default
study-scale: all data
	$(STUDY_ENV) ./$(STUDY_BIN) scale --out $(STUDY_OUT)
	$(STUDY_ENV) ./$(STUDY_BIN) varsigma --out $(STUDY_OUT)

# Only IR-CG's away-step and pairwise directions against its Frank-Wolfe
# steps (tests/study/directions_study.c), then only their section of
# tests/paper/RESULTS.md.
#> away-step and pairwise directions against Frank-Wolfe's, then their RESULTS.md section
study-directions: all
	$(STUDY_ENV) ./$(STUDY_BIN) directions --out $(STUDY_OUT)
	python3 tests/paper/results.py --study $(STUDY_OUT) --into tests/paper --only directions

# tests/paper/RESULTS.md (from its template RESULTS.in.md) and its copies
# of the outputs, from the last runs.
#> tests/paper/RESULTS.md (from RESULTS.in.md) from the last paper, tta and study runs
results:
	python3 tests/paper/results.py --paper $(PAPER_OUT) --study $(STUDY_OUT) --into tests/paper --check

# Time to accuracy on ML-1M, each method with the paper's parameters
# (tta-run: the run, part of make paper).  make tta: the run, then only
# the time-to-accuracy section of tests/paper/RESULTS.md, by results.py.
TTA_BUDGET ?= 600
TTA_THREADS ?= 2
TTA_METHODS ?= ircg-open,ircg-closed,ircg-ls,cgbio,irpg,bisg
TTA_OUT := $(PAPER_OUT)/tta-ml-1m
tta-run: all data
	@mkdir -p $(TTA_OUT)
	tests/paper/provenance.sh > $(TTA_OUT)/provenance.json
	$(PAPER_RUN) --ratings $(DATA_OUT)/ratings.dat --out $(TTA_OUT) --budget $(TTA_BUDGET) \
	  --threads $(TTA_THREADS) --time-to 1e-4,1e-6 --methods $(TTA_METHODS)
#> time to g - g_opt <= 1e-4, 1e-6 per method on ML-1M (TTA_BUDGET=600 s each),
#> then only the time-to-accuracy section of tests/paper/RESULTS.md (results.py)
tta: tta-run
	python3 tests/paper/results.py --paper $(PAPER_OUT) --into tests/paper --only tta
