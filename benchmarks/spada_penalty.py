"""Does the embedded model's repetition penalty keep its SPADA programs from compiling under greedy decoding?

The embedded SmolLM2-135M decodes with a repetition penalty of 1.15 over the last 64 generated tokens by
default (without it, greedy replies of a 135M model tend to loop). Code repeats brackets, quotes and
indentation, so the penalty pushes a program away from the very tokens that close it; in RL rollouts, turning
it off took the share of compiling programs from 0-1 of 8 to about 6 of 8 (README, SPADA RL). This benchmark
runs SPADA-Bench's first items greedily, one attempt each, for each model and each ``--penalties`` value, and
reports what the hidden-test judge says: passed, compiled, loaded, invalid, and the first error of each.

    python benchmarks/spada_penalty.py --models local/smollm2-135m,local/smollm2-135m@runs/train_spada/adapter \
        --penalties 1.0,1.15 --limit 3 --max-tokens 1024

Writes ``--out`` (default ``benchmarks/results/spada_penalty.json``); each eval's run folder stays under
``--log-dir``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "spada_penalty.json"


def _judged() -> Any:
    spec = importlib.util.spec_from_file_location("train_spada", ROOT / "benchmarks" / "train_spada.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.judged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="local/smollm2-135m")
    parser.add_argument("--penalties", default="1.0,1.15")
    parser.add_argument("--limit", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=2048)
    parser.add_argument("--log-dir", default=str(ROOT / "runs" / "spada_penalty"))
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    judged = _judged()
    models = [m for m in args.models.split(",") if m.strip()]
    penalties = [float(p) for p in args.penalties.split(",") if p.strip()]
    rows: list[dict[str, Any]] = []
    for model in models:
        for penalty in penalties:
            log_dir = Path(args.log_dir) / f"{model.replace('/', '_').replace('@', '_at_')}-rp{penalty}"
            log_dir.mkdir(parents=True, exist_ok=True)
            before = set(log_dir.iterdir())
            cmd = [sys.executable, "-m", "paperworks", "eval", "spada_bench", "-m", model, "-c", "max_iterations=1",
                   "--limit", str(args.limit), "--concurrency", str(args.concurrency), "--no-cache",
                   "--gen", f"repetition_penalty={penalty}", "--gen", f"max_tokens={args.max_tokens}",
                   "--log-dir", str(log_dir), "-q"]
            started = time.monotonic()
            done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            wall = round(time.monotonic() - started, 1)
            new = [p for p in set(log_dir.iterdir()) - before if (p / "samples.jsonl").is_file()]
            if done.returncode != 0 or len(new) != 1:
                raise SystemExit(f"eval failed ({model}, penalty {penalty}): {done.stderr.strip()[-400:]}")
            summary = judged(str(new[0]))
            rows.append({"model": model, "repetition_penalty": penalty, "wall_s": wall,
                         "eval_command": "paperworks eval " + " ".join(cmd[4:-3]), **summary})
            print(json.dumps({k: v for k, v in rows[-1].items() if k != "items"}))
    results = {"benchmark": "spada_penalty",
               "command": f"python benchmarks/spada_penalty.py {' '.join(sys.argv[1:])}".strip(),
               "note": f"SPADA-Bench's first {args.limit} items, one attempt each, greedy, replies up to "
                       f"{args.max_tokens} tokens, {args.concurrency} in flight",
               "runs": rows}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
