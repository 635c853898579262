"""Benchmark of ``paperworks view``'s HTML report on a synthetic 5,000-sample eval run.

Writes a run directory by hand (5,000 samples, a small trace of 6 events each, one 1 KB PNG for every
100th sample), then times ``load_run`` and ``write_report`` and measures the report's size. The
baseline, measured in the same run, is parsing every line of samples.jsonl and events.jsonl with
``json.loads``: ``report_vs_parse`` is how many times longer the whole report takes than that.
Writes ``benchmarks/results/view_report.json`` (a flat object) and prints it.

    .venv/bin/python benchmarks/view_report.py
"""

from __future__ import annotations

import json
import os
import platform
import tempfile
import time
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from paperworks.eval.records import Results, SampleRecord, Score
from paperworks.eval.report_assets import PAGE_SIZE
from paperworks.eval.view import load_run, write_report

RESULTS = Path(__file__).resolve().parent / "results" / "view_report.json"
N_SAMPLES = 5000
GOAL_S = 10.0
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + b"\0" * 1000


def _events(key: str, t0: float) -> list[dict[str, Any]]:
    return [
        {"t": t0, "type": "node_start", "node": "agent", "sample": key},
        {"t": t0 + 0.2, "type": "model_call", "model": "mock/m", "prompt_tokens": 120, "completion_tokens": 30,
         "latency_s": 0.2, "cached": False, "tool_calls": ["calculator"], "text": "", "sample": key},
        {"t": t0 + 0.21, "type": "tool_call", "tool": "calculator", "arguments": {"expression": "17*23"}, "ok": True,
         "observation": "391", "latency_s": 0.001, "sample": key},
        {"t": t0 + 0.4, "type": "model_call", "model": "mock/m", "prompt_tokens": 160, "completion_tokens": 12,
         "latency_s": 0.19, "cached": False, "tool_calls": [], "text": "The answer is 391.", "sample": key},
        {"t": t0 + 0.41, "type": "node_end", "node": "agent", "seconds": 0.41, "error": None,
         "update": {"answer": "391"}, "sample": key},
        {"t": t0 + 0.42, "type": "node_end", "node": "finish", "seconds": 0.0, "error": None, "sample": key},
    ]


def make_run(path: Path, n: int) -> None:
    """A finished eval run directory with ``n`` synthetic samples."""
    path.mkdir(parents=True)
    (path / "run.json").write_text(json.dumps({
        "kind": "eval", "suite": "arith", "suite_version": "1", "workflow": "agent", "model": "mock/m",
        "status": "succeeded", "epochs": 1, "seed": 0, "sample_ids": [f"arith-{i}" for i in range(n)], "args": {}}))
    passed_n = 0
    with open(path / "samples.jsonl", "w") as samples, open(path / "events.jsonl", "w") as events:
        for i in range(n):
            sid = f"arith-{i}"
            ok = i % 3 != 0
            passed_n += ok
            artifacts = []
            if i % 100 == 0:
                folder = path / "artifacts" / f"{sid}#1"
                folder.mkdir(parents=True)
                (folder / "plot.png").write_bytes(PNG)
                artifacts.append(f"artifacts/{sid}#1/plot.png")
            score = Score(value=float(ok), passed=ok, answer="391" if ok else "390",
                          explanation=None if ok else "|390 - 391| > 1e-06")
            rec = SampleRecord(
                id=sid, epoch=1, input={"question": f"A farmer has 17 rows of 23 apple trees ({i}). How many trees?"},
                target=391, output={"answer": score.answer, "reasoning": "17 rows times 23 trees. " * 5},
                scores={"numeric": score.to_dict()}, time_s=0.42,
                usage={"prompt_tokens": 280, "completion_tokens": 42, "total_tokens": 322, "cost": 0.0, "calls": 2},
                artifacts=artifacts)
            samples.write(json.dumps(rec.to_dict()) + "\n")
            for e in _events(f"{sid}#1", 1_700_000_000.0 + i):
                events.write(json.dumps(e) + "\n")
    acc = passed_n / n
    stderr = (acc * (1 - acc) / (n - 1)) ** 0.5
    results = Results(suite="arith", model="mock/m", n_samples=n, epochs=1, elapsed_s=600.0,
                      metrics={"numeric/accuracy": {"value": acc, "stderr": stderr, "n": n}})
    (path / "results.json").write_text(json.dumps(asdict(results)))


def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        make_run(run_dir, N_SAMPLES)
        start = time.perf_counter()
        for name in ("samples.jsonl", "events.jsonl"):
            with open(run_dir / name) as fh:
                for line in fh:
                    json.loads(line)
        parse_s = time.perf_counter() - start
        start = time.perf_counter()
        run = load_run(run_dir)
        load_s = time.perf_counter() - start
        start = time.perf_counter()
        out = write_report(run)
        write_s = time.perf_counter() - start
        size = out.stat().st_size
    total = load_s + write_s
    result = {
        "n_samples": N_SAMPLES,
        "events_per_sample": 6,
        "page_size": PAGE_SIZE,
        "load_s": round(load_s, 3),
        "write_report_s": round(write_s, 3),
        "total_s": round(total, 3),
        "goal_s": GOAL_S,
        "goal_ok": total < GOAL_S,
        "report_mb": round(size / 1e6, 2),
        "baseline_parse_s": round(parse_s, 3),
        "report_vs_parse": round(total / parse_s, 2) if parse_s else None,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "rich": metadata.version("rich"),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
