"""Coverage and speed of the symbolic (non-Lean) FPS answer checker. Writes
benchmarks/results/fps_symbolic.json.

Per benchmark file (FormalMath500, MiniF2F-Solving, PutnamBench-Solving): rows whose formal
reference parses, rows whose informal (LaTeX) answer parses, rows where the informal answer agrees
with the formal one as judged by the checker, and the commonest failure reasons. Then the checker's
latency on the test triples (tests/fixtures/fps_symbolic_triples.jsonl), in-process against the
isolated worker (the ratio is the worker's overhead; second, warm pass of each), and its agreement
with the triples' labels.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "data" / "fps"
FILES = ["formal_math500", "minif2f_solving", "putnam_solving"]
TRIPLES = ROOT / "tests" / "fixtures" / "fps_symbolic_triples.jsonl"


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def triples_speed(limit: int | None) -> dict[str, object]:
    from paperworks.tools.lean.symbolic import check_answer

    rows = {name: load(DATA / f"{name}.jsonl") for name in FILES}
    triples = load(TRIPLES)[:limit]
    out: dict[str, object] = {"triples": len(triples)}
    for isolate in (False, True):
        for _ in range(2):  # the first pass warms SymPy's caches (and starts the worker); the second is timed
            start = time.perf_counter()
            hits = 0
            for t in triples:
                row = rows[t["file"]][t["row"]] if t.get("row") is not None else None
                ref = t.get("formal_answer") or (row["formal_answer"] if row else "")
                ty = t.get("answer_type") or (row["formal_answer_type"] if row else "")
                intros = row["intros"] if row else None
                v = check_answer(t["submission"], ref, ty, intros=intros, timeout_s=5.0, isolate=isolate)
                hits += v.equivalent == t["expected"]
            wall = time.perf_counter() - start
        key = "worker" if isolate else "in_process"
        out[f"{key}_ms_per_check"] = round(1000 * wall / max(len(triples), 1), 2)
        out[f"{key}_matches_expected"] = hits
    out["worker_overhead_ratio"] = round(float(out["worker_ms_per_check"]) /  # type: ignore[arg-type]
                                         max(float(out["in_process_ms_per_check"]), 1e-6), 2)  # type: ignore[arg-type]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/fps_symbolic.json"))
    parser.add_argument("--limit", type=int, default=None, help="rows per file (default: all)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per row")
    args = parser.parse_args()
    from importlib import metadata

    from paperworks.tools.lean.symbolic import coverage, shutdown_worker

    command = "python benchmarks/fps_symbolic.py" + (f" --limit {args.limit}" if args.limit else "") + \
        (f" --timeout {args.timeout:g}" if args.timeout != 5.0 else "")
    result: dict[str, object] = {"command": command}
    start = time.perf_counter()
    for name in FILES:
        rows = load(DATA / f"{name}.jsonl")[: args.limit]
        t0 = time.perf_counter()
        figures = {**coverage(rows, timeout_s=args.timeout), "wall_s": round(time.perf_counter() - t0, 1)}
        result[name] = figures
        print(name, json.dumps({k: v for k, v in figures.items() if k != "top_failure_reasons"}))
    result["coverage_wall_s"] = round(time.perf_counter() - start, 1)
    if TRIPLES.exists():
        result["check_answer_on_triples"] = triples_speed(None)
    shutdown_worker()
    result.update({
        "label": "symbolic, not Lean-verified",
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "sympy": metadata.version("sympy"),
        "latex2sympy2_extended": metadata.version("latex2sympy2_extended"),
    })
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
