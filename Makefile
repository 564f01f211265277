# Two commands do all set-up on a fresh machine:
#   make demo   builds .venv, reproduces a real DDP failure and explains it
#   make test   builds .venv, runs ruff, mypy, the knowledge-base lint and the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# torch is pinned for development and CI: 2.13.0 is the CPU build that lies on this machine's disk.
TORCH_PIN ?= torch==2.13.0

.PHONY: demo test lint typecheck kb-lint pytest bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH_PIN)"
	$(BIN)/python -m pip install --quiet -e ".[dev,torch]" "$(TORCH_PIN)"
	touch $@

demo: $(BIN)/.installed
	$(BIN)/ddpdoctor reproduce main-oom

lint: $(BIN)/.installed
	$(BIN)/ruff check ddpdoctor tests $(wildcard bench)
	$(BIN)/ruff format --check ddpdoctor tests $(wildcard bench)

typecheck: $(BIN)/.installed
	$(BIN)/mypy

kb-lint: $(BIN)/.installed
	$(BIN)/ddpdoctor kb lint

# Two workers: many tests wait on subprocesses, timeouts and torchrun jobs, so a second one overlaps
# that waiting with work even on 2 cores; tests/conftest.py schedules the worker groups.
PYTEST_WORKERS ?= 2

# The slowest tests are listed at the end of each run: the suite's time budget is about ten minutes.
pytest: $(BIN)/.installed
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --durations=25

test: lint typecheck kb-lint pytest

bench: $(BIN)/.installed
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
