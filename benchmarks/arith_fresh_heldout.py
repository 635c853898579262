"""Trained arith adapters on a fresh set of generated held-out problems that no run chose an adapter by.

``--keep best_heldout`` picks a run's adapter by its generated held-out eval (36 problems, seed 10⁹ + the run's
seed), so that figure is optimistic for the adapter it picked. This draws ``--n`` other problems in the same
held-out phrasings from a seed no run uses (10⁹ + 7,777 by default; never the arith suite's items, which the
generator refuses) and evaluates each given model on them with ``paperworks eval`` at the CLI's defaults, so
runs and recipes can be compared without that bias and without looking at the arith suite:

    python benchmarks/arith_fresh_heldout.py -m local/smollm2-135m@benchmarks/results/train_arith/adapter \\
        -m local/smollm2-135m@benchmarks/results/train_arith_keep/adapter \\
        --out benchmarks/results/arith_fresh_heldout.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-m", "--model", action="append", required=True)
    parser.add_argument("--n", type=int, default=90)
    parser.add_argument("--seed", type=int, default=7777)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "arith_fresh_heldout.json"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from paperworks.train.generators import arith
    from paperworks.train.problems import HELDOUT_SEED

    rows = arith.generate(args.n, HELDOUT_SEED + args.seed, phrasing="heldout")
    results: dict[str, object] = {
        "benchmark": "arith_fresh_heldout",
        "command": f"python benchmarks/arith_fresh_heldout.py {' '.join(sys.argv[1:])}".strip(),
        "problems": len(rows), "generator_seed": HELDOUT_SEED + args.seed, "phrasing": "heldout",
        "categories": sorted({r["category"] for r in rows}), "models": {}}
    with tempfile.TemporaryDirectory(prefix="pw-fresh-heldout-") as tmp:
        suite = arith.write_suite(rows, Path(tmp) / "arith_fresh_heldout")
        for model in args.model:
            logs = Path(tmp) / f"logs-{len(results['models'])}"  # type: ignore[arg-type]
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "paperworks", "eval", str(suite), "-m", model, "-q",
                                   "--log-dir", str(logs)], cwd=ROOT)
            if done.returncode != 0:
                raise SystemExit(f"paperworks eval failed for {model} (exit {done.returncode})")
            run = sorted(logs.glob("*/results.json"))[-1]
            metrics = json.loads(run.read_text())["metrics"]["numeric/accuracy"]
            results["models"][model] = {  # type: ignore[index]
                "accuracy": metrics["value"], "stderr": metrics["stderr"], "n": metrics["n"],
                "elapsed_s": round(time.monotonic() - started, 1)}
            print(model, metrics["value"], flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
