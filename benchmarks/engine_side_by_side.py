"""The embedded model's engines side by side on whole commands (issue 10's "done when"):
``paperworks eval arith --limit 8 --concurrency 4`` and ``make demo``'s SPADA step, each on the torch
engine (``local/smollm2-135m-torch``, the engine before llama.cpp), on the llama.cpp engine as the default
name serves it (``local/smollm2-135m``: BF16 where llama.cpp has AVX512_BF16 kernels) and on the shipped
Q4_1 file (``local/smollm2-135m-q4_1``), alternating, ``--rounds`` times. Wall times are measured around
the CLI process (imports and model load included). Writes benchmarks/results/engine_side_by_side.json.

    .venv/bin/python benchmarks/engine_side_by_side.py [--rounds N] [--engines torch,llama.cpp,...]

Goal: each command at least 3x faster on the llama.cpp engine than on torch (median over rounds).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENGINES = {"torch": "local/smollm2-135m-torch", "llama.cpp": "local/smollm2-135m",
           "llama.cpp-q4_1": "local/smollm2-135m-q4_1"}


def _request(task: str) -> str:
    for line in (ROOT / "evals/spada_bench/data.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["id"] == task:
            return str(row["request"])
    raise SystemExit(f"no SPADA-Bench task {task}")


def commands(model: str, task: str) -> dict[str, list[str]]:
    """The timed commands for one engine."""
    cli = str(BIN / "paperworks")
    return {
        "eval_arith_8x4": [cli, "eval", "arith", "--limit", "8", "--concurrency", "4", "-m", model, "-q"],
        "demo_spada_step": [cli, "run", "spada", "--model", model, "-c", "max_iterations=1", "--gen",
                            "max_tokens=400", "--no-stream", "-q", "-i", _request(task)],
    }


def timed(cmd: list[str], env: dict[str, str]) -> dict[str, object]:
    """Run one command; its wall time, exit code, load, last output line and (for an eval) its metrics."""
    runs = Path(env["PAPERWORKS_RUNS_DIR"])
    before = set(runs.iterdir())
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    rec: dict[str, object] = {"wall_s": round(wall, 2), "rc": proc.returncode, "load_1min": os.getloadavg()[0],
                              "tail": (proc.stdout + proc.stderr).strip().splitlines()[-1:]}
    for run_dir in set(runs.iterdir()) - before:
        results = run_dir / "results.json"
        if results.is_file():
            metrics = json.loads(results.read_text()).get("metrics", {})
            rec["metrics"] = {k: v for k, v in metrics.items() if "accuracy" in k or k.endswith("/mean")}
    return rec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--task", default="hinge-01")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/engine_side_by_side.json"))
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated, of: %(default)s")
    args = parser.parse_args()
    chosen = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in chosen if e not in ENGINES]
    if unknown or not chosen:
        parser.error(f"--engines {args.engines!r}: choose from {', '.join(ENGINES)}")
    from paperworks.models.local.smollm import local_weights
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    runs: dict[str, dict[str, list[dict[str, object]]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        env["PAPERWORKS_RUNS_DIR"] = tmp
        for r in range(args.rounds):
            for engine in chosen:
                model = ENGINES[engine]
                for name, cmd in commands(model, args.task).items():
                    rec = timed(cmd, env)
                    runs.setdefault(name, {}).setdefault(engine, []).append(rec)
                    print(f"round {r + 1} {name:16s} {engine:9s} {rec['wall_s']:8.1f} s rc={rec['rc']}", flush=True)
    out: dict[str, object] = {"cpu_count": os.cpu_count(), "python": platform.python_version(),
                              "rounds": args.rounds, "task": args.task, "goal_speedup": 3.0,
                              "command": " ".join(["python", "benchmarks/engine_side_by_side.py", *sys.argv[1:]]),
                              "models": {e: ENGINES[e] for e in chosen},
                              "local_weights": local_weights(*(ENGINES[e] for e in chosen)), "runs": runs}
    for name, per_engine in runs.items():
        med = {e: statistics.median(float(str(x["wall_s"])) for x in recs) for e, recs in per_engine.items()}
        out[f"{name}_median_s"] = med
        if "torch" in med:  # each llama.cpp engine's speed-up over torch
            for engine in med:
                if engine != "torch":
                    key = f"{name}_speedup" + engine.removeprefix("llama.cpp").replace("-", "_")
                    out[key] = round(med["torch"] / med[engine], 2)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps({k: v for k, v in out.items() if k != "runs"}, indent=2))


if __name__ == "__main__":
    main()
