"""Harness overhead per sample with the scripted mock model, and the speed-up of concurrency 8 over 1
with a mock model that waits 200 ms per reply. Writes benchmarks/results/eval_overhead.json.

Goals (issue 3): overhead < 20 ms per sample; speed-up >= 6x.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paperworks.core.paths import set_offline_env  # noqa: E402

set_offline_env()


def make_suite(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True)
    (folder / "suite.yaml").write_text(
        f"name: {folder.name}\nversion: '1'\ndescription: overhead\nworkflow: agent\ndata: [data.jsonl]\nid_field: id\n"
        "input: {task: '{question}'}\ntarget: answer\nscorers: [numeric]\nconfig: {max_steps: 2, tools: [calculate]}\n"
    )
    rows = [json.dumps({"id": f"s{i:05d}", "question": f"say {i}", "answer": i}) for i in range(n)]
    (folder / "data.jsonl").write_text("\n".join(rows) + "\n")
    return folder


def run(suite: Path, model: str, concurrency: int, logs: Path) -> float:
    from paperworks.eval import harness

    run_dir = harness.create_eval(harness.EvalArgs(suite=str(suite), model=model, concurrency=concurrency,
                                                   log_dir=str(logs)))
    start = time.perf_counter()
    asyncio.run(harness.run_eval(run_dir))
    return time.perf_counter() - start


def main() -> None:
    from importlib import metadata

    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        os.environ["PAPERWORKS_RUNS_DIR"] = str(t / "runs")
        fast = t / "fast.json"
        fast.write_text(json.dumps({"replies": [{"echo": True}], "repeat_last": True}))
        slow = t / "slow.json"
        slow.write_text(json.dumps({"replies": [{"echo": True, "delay_s": 0.2}], "repeat_last": True}))
        run(make_suite(t / "warm", 5), f"scripted/{fast}", 1, t / "logs")  # imports, first compile
        n_fast = 200
        fast_s = run(make_suite(t / "s1", n_fast), f"scripted/{fast}", 1, t / "logs")
        n_slow = 32
        suite = make_suite(t / "s2", n_slow)
        serial = run(suite, f"scripted/{slow}", 1, t / "logs")
        parallel = run(suite, f"scripted/{slow}", 8, t / "logs")
    overhead_ms = 1000 * fast_s / n_fast
    result = {
        "overhead_ms_per_sample": round(overhead_ms, 2),
        "overhead_goal_ms": 20,
        "overhead_ok": overhead_ms < 20,
        "samples_overhead_run": n_fast,
        "serial_s_200ms_model": round(serial, 3),
        "concurrency8_s_200ms_model": round(parallel, 3),
        "speedup_concurrency8": round(serial / parallel, 2),
        "speedup_goal": 6,
        "speedup_ok": serial / parallel >= 6,
        "samples_speedup_run": n_slow,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "langgraph": metadata.version("langgraph"),
        "litellm": metadata.version("litellm"),
    }
    out = ROOT / "benchmarks" / "results" / "eval_overhead.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
