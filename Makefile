# Entry points for a fresh machine (Debian, Python 3.11). `make run` and
# `make test` create .venv/ and install the pinned dependencies on first use.
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
STAMP  := $(VENV)/.installed
# Stage commands call `python`, `snakemake` and `dvc` by name: put the venv first.
export PATH := $(BIN):$(PATH)

.PHONY: setup run test test-fast nightly dvc-yaml lint bench clean

$(STAMP): requirements.lock pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

## Run the whole pipeline on the default params (Snakemake, 4 cores).
run: setup
	snakemake --cores 4

## Run the whole test suite (unit, property, end-to-end pipeline, browser), one worker per
## core; each end-to-end file stays on one worker (its fixtures build one pipeline run).
test: setup
	pytest -n auto --dist loadfile

## Unit and property tests only (skips the end-to-end pipeline runs).
test-fast: setup
	pytest -n auto -m "not slow and not browser"

## Rerun everything from scratch and compare metrics with the committed ones.
nightly: setup
	python workflow/scripts/nightly.py

## Regenerate dvc.yaml from the Snakemake rules.
dvc-yaml: setup
	python -m nesybench.dvc_export

lint: setup
	ruff check .
	ruff format --check .
	snakemake --lint
	snakefmt --check Snakefile workflow/rules

bench: setup
	for b in bench/*.py; do echo "== $$b"; python $$b || exit 1; done

clean:
	rm -rf data reports/report.html reports/figures .snakemake
