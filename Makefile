# The README's two commands, `make demo` and `make test`, do all set-up on a fresh machine.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test docs bench compare-conformal compare-mclust compare-weka lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# One stamp per set of extras, so a second run installs nothing.
$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$*]"
	touch $@

# the cli extra: matplotlib for the figure, pandas for the command's CSV tables
demo: $(VENV)/.installed-cli
	$(BIN)/bayesrule demo

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n 2 -q

# the documentation site into docs/_build/html (offline; warnings are errors); every
# example of the gallery and every code block of the guide runs as it builds
docs: $(VENV)/.installed-docs
	rm -rf docs/_build docs/auto_examples docs/api/generated docs/_runcode
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "the documentation: docs/_build/html/index.html"

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/bench.py $(BENCH_ARGS)

# ConformalSet's sets against MAPIE's and crepes' (the bench extra); records in results.md
compare-conformal: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/conformal_compare.py --record

# mclust's 14 models, EDDA, MclustDA and cvMclustDA side by side (needs Rscript with
# mclust: apt-get install r-base-core r-cran-mclust); writes benchmarks/mclust_results.md
compare-mclust: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/mclust_models.py --out benchmarks/mclust_results.md

# Semi-naive Bayes against Weka 3.6 (apt-get install weka) on the same folds and MDL bins,
# AODE's speed beside Weka's, and ESKDB against a random forest; writes
# benchmarks/weka_results.md and benchmarks/forest_results.md
compare-weka: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/weka_compare.py --check-cli --speed --record
	$(BIN)/python benchmarks/forest_compare.py --raw --record

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/lint-imports --no-cache

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache docs/_build docs/auto_examples docs/api/generated docs/_runcode
