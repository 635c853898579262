"""The embedded model (SmolLM2-135M, offline) on the shipped suites, each run as a user would run it:
``paperworks eval SUITE --model local/smollm2-135m --limit N``. Records each run's metrics and the measured
wall time of the CLI process in benchmarks/results/embedded_evals.json — the source of the README's
"measured offline on the embedded model" figures. Suites not named in a run keep their last record
(each with its date and the command that made it). A 135M model scores near zero; the point is that every
workflow runs end to end offline, and how long it takes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = str(Path(sys.executable).parent / "paperworks")
DEFAULT = ["arith:8", "spada_bench:3", "hist_offline:3"]


def run_one(suite: str, limit: int, runs: Path, env: dict[str, str]) -> dict[str, object]:
    """One eval; its command, exit code, wall time and results.json metrics."""
    cmd = [CLI, "eval", suite, "--model", "local/smollm2-135m", "--limit", str(limit), "-q"]
    before = set(runs.iterdir())
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    rec: dict[str, object] = {"command": "paperworks " + " ".join(cmd[1:]), "rc": proc.returncode,
                              "wall_s": round(time.monotonic() - start, 1), "load_1min_after": os.getloadavg()[0]}
    for run_dir in set(runs.iterdir()) - before:
        if (run_dir / "results.json").is_file():
            results = json.loads((run_dir / "results.json").read_text())
            rec["metrics"] = results.get("metrics", results)
            rec["errors"] = results.get("errors", {})
            rec["outputs"] = [{"id": r.get("id"), "status": r.get("status"), "error": r.get("error"),
                               "answer": str((r.get("output") or {}).get("answer", ""))[:200]
                               if isinstance(r.get("output"), dict) else None}
                              for r in map(json.loads, (run_dir / "samples.jsonl").read_text().splitlines())]
            skipped = json.loads((run_dir / "run.json").read_text()).get("skipped_scorers")
            if skipped:
                rec["skipped_scorers"] = skipped
    notes = [line for line in proc.stderr.splitlines() if "skipped" in line]
    if notes:
        rec["notes"] = notes
    if "metrics" not in rec:
        rec["error"] = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
    return rec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("suites", nargs="*", default=DEFAULT, help="SUITE:LIMIT pairs")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/embedded_evals.json"))
    args = parser.parse_args()
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               ANONYMIZED_TELEMETRY="False")
    path = Path(args.out)
    out: dict[str, object] = json.loads(path.read_text()) if path.is_file() else {}  # other suites' runs stay
    out.update({"cpu_count": os.cpu_count(), "python": platform.python_version(),
                "command": "python benchmarks/embedded_evals.py SUITE:LIMIT ... (each suite's record names the run "
                           "that made it: made_by)"})
    with tempfile.TemporaryDirectory() as tmp:
        env["PAPERWORKS_RUNS_DIR"] = tmp
        for item in args.suites:
            suite, _, limit = item.partition(":")
            rec = run_one(suite, int(limit or 3), Path(tmp), env)
            rec["date"] = time.strftime("%Y-%m-%d")
            rec["made_by"] = f"python benchmarks/embedded_evals.py {item}"
            out[suite] = rec
            print(f"{suite}: rc={rec['rc']} {rec['wall_s']} s", flush=True)
    path.write_text(json.dumps(out, indent=2, default=str) + "\n")
    print(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    main()
