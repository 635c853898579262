# Two commands: `make demo` (set up, then a real run on the embedded model, offline) and
# `make test` (set up, then lint, types and the whole test suite). Both are idempotent.
VENV ?= .venv
BIN := $(VENV)/bin
export LITELLM_LOCAL_MODEL_COST_MAP=True
export HF_HUB_OFFLINE=1
export TRANSFORMERS_OFFLINE=1
export ANONYMIZED_TELEMETRY=False
export DISABLE_REMOTE_CACHE=1
export RAY_USAGE_STATS_ENABLED=0

DEMO_TASK ?= A box holds 17 rows of 23 apples. How many apples are there?

# The project's best working feature: SPADA on a benchmark task (embedded model, offline), then the
# task's verified reference through the sandbox with renders. `make demo-agent`: the tool-using agent.
.PHONY: setup demo demo-agent demo-trained serve test test-fast lint bench clean

setup:
	@VENV=$(VENV) scripts/setup.sh

demo: setup
	BIN=$(BIN) scripts/demo.sh

demo-agent: setup
	$(BIN)/paperworks run agent --model local/smollm2-135m -c tool_choice=first -i "$(DEMO_TASK)"

# The agent with the adapter paperworks train made (benchmarks/results/train_arith/), set up as it was trained
# (the arith suite's calculator-only tools and instruction): it calls the calculator, then answers.
demo-trained: setup
	$(BIN)/paperworks run agent --model local/smollm2-135m@benchmarks/results/train_arith/adapter \
	  -c 'tools=[calculate]' -i "$(DEMO_TASK) Use the calculate tool for the arithmetic, then reply with just the final number."

serve: setup   # every workflow on a LangGraph server at http://127.0.0.1:2024 (paperworks serve --help)
	$(BIN)/paperworks serve

lint: setup
	$(BIN)/ruff check paperworks tests benchmarks
	$(BIN)/mypy paperworks

# Every core (pytest-xdist; idle workers steal queued tests); PYTEST_WORKERS=1 runs in one process.
PYTEST_WORKERS ?= auto
test: lint
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal

test-fast: setup
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal -m "not slow"

bench: setup
	$(BIN)/python benchmarks/local_model.py

clean:
	rm -rf runs .pytest_cache .mypy_cache .ruff_cache
