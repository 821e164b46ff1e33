# Two commands matter on a fresh machine: `make run` (build, then speak UCI)
# and `make test` (build, then the test suite). Everything lives in .venv.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
JOBS   ?= 2
DEPS   := $(VENV)/.deps-installed
CORE   := build/.core-built

.PHONY: run build test test-all perft-full bench-perft clean

run: build
	@exec $(PY) uci_main.py

build: $(CORE)

test: build
	$(PY) -m pytest -q -n $(JOBS)

# Everything, the slow checks included (see the "slow" marker in pyproject.toml).
test-all: build
	$(PY) -m pytest -q -n $(JOBS) -m ''

# Every position of every suite in ../shared/data/perft (or $$NMM_DATA/perft), every depth.
perft-full: build
	$(PY) -m engine.cli perft --jobs $(JOBS) --hash 256 \
	    $(foreach f,$(wildcard $(or $(NMM_DATA),../shared/data)/perft/*.epd),--suite $(f))

bench-perft: build
	$(PY) -m engine.cli bench-perft --runs 5

$(DEPS): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q setuptools wheel "Cython>=3.0"
	$(PY) -m pip install -q --no-build-isolation -e '.[dev]'
	@touch $@

$(CORE): $(DEPS) setup.py $(wildcard ext/*.pyx ext/*.pxi)
	$(PY) setup.py -q build_ext --inplace
	@mkdir -p build && touch $@

clean:
	rm -rf build ext/*.c engine/*.so .pytest_cache
