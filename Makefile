# GPU Ledger — the two commands of the README are `make demo` and `make test`.
VENV      ?= .venv
PYTHON    ?= python3
BIN       := $(VENV)/bin
STAMP     := $(VENV)/.installed
TEST_HOME ?= $(CURDIR)/.gpuledger-test

.PHONY: demo test test-envs lint dbt-test pytest clean bench bench-fixed bench-ingest-memory focus-validate

$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	scripts/venv_install.sh $(VENV) -c requirements.lock -e '.[dev]'
	touch $(STAMP)

# The FinOps Foundation's FOCUS validator in its own environment (numpy<2, pandas<3), built
# once: tests/e2e/test_focus_export.py runs it on the exports (scripts/focus_validator/).
FOCUS_VENV  ?= .venv-focus
FOCUS_STAMP := $(FOCUS_VENV)/.installed

$(FOCUS_STAMP): requirements-focus.lock
	rm -rf $(FOCUS_VENV)
	$(PYTHON) -m venv $(FOCUS_VENV)
	scripts/venv_install.sh $(FOCUS_VENV) -c requirements-focus.lock \
		'focus-validator==1.0.0' 'multimethod<1.11'
	touch $(FOCUS_STAMP)

# Apache Superset in its own environment, built once: tests/e2e/test_bi_superset.py starts it
# on loopback over the served copy (scripts/superset/).
SUPERSET_VENV  ?= .venv-superset
SUPERSET_STAMP := $(SUPERSET_VENV)/.installed

$(SUPERSET_STAMP): $(wildcard scripts/superset/*)
	PYTHON=$(PYTHON) SUPERSET_VENV=$(abspath $(SUPERSET_VENV)) scripts/superset/install.sh
	touch $(SUPERSET_STAMP)

# make focus-validate FOCUS_FILE=october.csv (a `gpuledger export --format focus` file)
focus-validate: $(FOCUS_STAMP)
	$(if $(FOCUS_FILE),,$(error FOCUS_FILE= names the export to validate))
	FOCUS_VENV=$(abspath $(FOCUS_VENV)) scripts/focus_validator/validate.sh $(FOCUS_FILE)

demo: $(STAMP)
	$(BIN)/gpuledger demo

# The linters run while the FOCUS validator's and Superset's environments install (each
# target's output kept together), then pytest. pytest runs what `make dbt-test` runs by hand
# over the session's demo month: its close builds every model, data test and contract, and
# tests/integration/test_dbt_project.py runs the unit tests and generates the docs.
test:
	$(MAKE) --no-print-directory --output-sync=target -j3 lint test-envs
	$(MAKE) --no-print-directory pytest

test-envs: $(FOCUS_STAMP) $(SUPERSET_STAMP)

# sqlfluff's dbt templater runs from inside its home, as gpuledger-dbt runs dbt (profiles.yml
# and the sources name the warehouse and the landed files relative to the home)
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	GPULEDGER_HOME=$(TEST_HOME)/lint $(BIN)/python -m gpuledger.devtools prepare-home $(TEST_HOME)/lint
	cd $(TEST_HOME)/lint && GPULEDGER_HOME=$(abspath $(TEST_HOME))/lint $(abspath $(BIN))/sqlfluff lint \
		--config $(CURDIR)/.sqlfluff $(CURDIR)/models $(CURDIR)/tests/dbt --processes 2

# Every dbt model, data test, contract and unit test, over the demo month; then the docs
# (models, semantic models, metrics, exposures) generate in the home's target.
dbt-test: $(STAMP)
	rm -rf $(TEST_HOME)/dbt
	$(BIN)/gpuledger --home $(TEST_HOME)/dbt demo > /dev/null
	env GPULEDGER_HOME=$(TEST_HOME)/dbt $$($(BIN)/python -m gpuledger.core.incremental $(TEST_HOME)/dbt) \
		$(BIN)/gpuledger-dbt build --project-dir . --profiles-dir . \
		--target-path $(TEST_HOME)/dbt/dbt/target --log-path $(TEST_HOME)/dbt/dbt/logs
	GPULEDGER_HOME=$(TEST_HOME)/dbt $(BIN)/gpuledger-dbt docs generate --project-dir . --profiles-dir . \
		--target-path $(TEST_HOME)/dbt/dbt/target --log-path $(TEST_HOME)/dbt/dbt/logs

# two workers (pytest-xdist), a test file each at a time, in the order tests/conftest.py gives
# (the longest files first); PYTEST_WORKERS=0 runs in one process. The 30 slowest setups and
# tests are listed at the end, so every CI log says where its time went.
PYTEST_WORKERS ?= 2
pytest: $(STAMP) $(FOCUS_STAMP) $(SUPERSET_STAMP)
	$(BIN)/pytest -q --durations=30 $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder)

clean:
	rm -rf $(VENV) $(FOCUS_VENV) $(SUPERSET_VENV) .gpuledger .gpuledger-demo $(TEST_HOME) target logs

# A fleet month through the real formats and `gpuledger ingest`, its close, the DuckDB floor
# and a daily run (results: benchmarks/results.md). The 4,096-GPU month writes ~20 GB under
# /tmp/gpuledger-bench; `make bench BENCH_ARGS="--gpus 64 --days 2"` is a quick run.
BENCH_ARGS ?= --gpus 4096 --days 31
bench: $(STAMP)
	$(BIN)/python -m benchmarks.close_benchmark $(BENCH_ARGS)

# What a build costs with nothing to compute (the demo's closed home, built three times).
bench-fixed: $(STAMP)
	$(BIN)/python -m benchmarks.fixed_cost

# ingest peak memory against file size: one file of 1, 4 and 16 fleet days of the pod watch,
# the gateway log and a pod List, of 1 and 2 of sacct --json (410 MiB a day), of 1 and 4 of
# hourly dcgm-exporter scrapes (75 MiB a day)
bench-ingest-memory: $(STAMP)
	$(BIN)/python -m benchmarks.ingest_memory --workdir /tmp/gpuledger-bench/ingest-memory
	$(BIN)/python -m benchmarks.ingest_memory --sources slurm-json --days 1 2 \
		--workdir /tmp/gpuledger-bench/ingest-memory
	$(BIN)/python -m benchmarks.ingest_memory --sources kubernetes-list --days 1 4 16 \
		--workdir /tmp/gpuledger-bench/ingest-memory
	$(BIN)/python -m benchmarks.ingest_memory --sources exposition --days 1 4 \
		--workdir /tmp/gpuledger-bench/ingest-memory

# The Dagster UI (dagster dev) on http://127.0.0.1:3000 over UI_HOME (default: $GPULEDGER_HOME,
# else the demo's home); DAGSTER_HOME is UI_HOME/dagster. README "Running the close from the UI".
UI_HOME ?= $(or $(GPULEDGER_HOME),$(CURDIR)/.gpuledger-demo)
.PHONY: ui
ui: $(STAMP)
	GPULEDGER_HOME=$(UI_HOME) $(BIN)/python -m orchestration.ui --port 3000
