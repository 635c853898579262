#!/usr/bin/env bash
# `make demo`: SPADA on one SPADA-Bench task, offline, on the embedded model — then the same task's
# verified reference through the same sandbox, checks and renders, to show what passing looks like.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
TASK=${DEMO_TASK_ID:-hinge-01}
request=$("$BIN/python" - "$TASK" <<'PY'
import json, sys
for line in open("evals/spada_bench/data.jsonl"):
    row = json.loads(line)
    if row["id"] == sys.argv[1]:
        print(row["request"])
PY
)
echo "== 1. SPADA, embedded SmolLM2-135M, task $TASK (a 135M model rarely writes working CadQuery) =="
"$BIN/paperworks" run spada --model local/smollm2-135m -c max_iterations=1 --gen max_tokens=400 \
  --no-stream -i "$request" || true
echo
echo "== 2. The task's verified reference with its hidden tests: sandbox, checks, STEP/STL, renders =="
"$BIN/paperworks" cad check "evals/spada_bench/tasks/$TASK/reference.py" \
  --tests "evals/spada_bench/tasks/$TASK/hidden_tests.py" --out "runs/demo-$TASK-reference"
