"""A second workflow trained by the same command: OG-MAR (ValuesRAG mode) on generated values_synth-shaped
problems, OTB RL from the base SmolLM2-135M (no warm start: survey answers have no oracle trajectory).

    python benchmarks/train_ogmar.py                      # train (examples/train_ogmar.yaml), then compare
    python benchmarks/train_ogmar.py --work runs/x        # compare a finished run (or finish it)
    python benchmarks/train_ogmar.py --suite-limit 48     # also the adapter vs the base on values_synth items

Held-out problems are generated from training respondents never asked in training (``gen:ogmar``'s held-out
fifth), each run greedily: at step 0 (the untrained model: LoRA B starts at zero) and every ``eval_every``
steps. On the same held-out folder the model-free kNN-5 majority (``-c mode=knn``) is measured, so the three
figures share their problems. With ``--suite-limit N`` the first N items of the real ``values_synth`` suite are
evaluated with the base model and with the trained adapter (greedy, ValuesRAG mode).

Writes ``benchmarks/results/train_ogmar.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _eval(suite: str, model: str, config: list[str], log_dir: Path, limit: int | None = None) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "paperworks", "eval", suite, "-m", model, "-q", "--log-dir", str(log_dir)]
    for c in config:
        cmd += ["-c", c]
    if limit:
        cmd += ["--limit", str(limit)]
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=os.environ.copy())
    if done.returncode != 0:
        raise SystemExit(f"eval {suite} -m {model}: {done.stderr.strip()[-400:]}")
    run = max(log_dir.iterdir(), key=lambda p: p.stat().st_mtime)
    res = json.loads((run / "results.json").read_text())
    metrics = res.get("metrics", res)
    acc = metrics.get("match/accuracy")
    value = acc.get("value") if isinstance(acc, dict) else acc
    err = acc.get("stderr") if isinstance(acc, dict) else metrics.get("match/accuracy_stderr")
    n = acc.get("n") if isinstance(acc, dict) else None
    return {"accuracy": value, "stderr": err, "n": n, "run_dir": str(run),
            "wall_s": round(time.monotonic() - started, 1), "command": " ".join(["paperworks", *cmd[3:]])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "examples" / "train_ogmar.yaml"))
    parser.add_argument("--work", default=str(ROOT / "runs" / "train_ogmar"))
    parser.add_argument("--suite-limit", type=int, default=0, help="values_synth items to evaluate (0: none).")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "train_ogmar.json"))
    args = parser.parse_args()
    work = Path(args.work).resolve()
    if not (work / "results.json").is_file():
        cmd = ([sys.executable, "-m", "paperworks", "train", "--resume", str(work), "-q"]
               if (work / "train.json").is_file() else
               [sys.executable, "-m", "paperworks", "train", "--config-file", args.config, "--out", str(work), "-q"])
        if subprocess.run(cmd, cwd=ROOT).returncode != 0:
            raise SystemExit("training failed")
    run: dict[str, Any] = json.loads((work / "results.json").read_text())
    model = run["settings"]["model"]
    config = [f"{k}={v}" for k, v in (run["settings"].get("config") or {}).items()]
    knn = _eval(str(work / "heldout" / "suite"), model, ["mode=knn"], work / "compare" / "knn")
    history = run.get("history") or []
    result: dict[str, Any] = {
        "benchmark": "train_ogmar", "command": f"python benchmarks/train_ogmar.py {' '.join(sys.argv[1:])}".strip(),
        "train_command": f"paperworks train --config-file {Path(args.config).relative_to(ROOT)} --out DIR",
        "settings": run["settings"], "heldout_note": "generated problems about training respondents never asked "
        "in training (held out from the retrieval pool too), greedy; step 0 is the untrained model",
        "heldout": [{k: h.get(k) for k in ("step", "rollout_tokens", "accuracy")} for h in run["heldout"]],
        "untrained_heldout_accuracy": run["heldout"][0]["accuracy"] if run["heldout"] else None,
        "trained_heldout_accuracy": run["heldout"][-1]["accuracy"] if run["heldout"] else None,
        "knn_heldout_accuracy": knn["accuracy"], "knn_heldout": knn,
        "knn_values_synth_reference": 0.703,
        "train_reward": [h.get("reward") for h in history],
        "mismatch_abs": [h.get("mismatch_abs") for h in history],
        "mismatch_logratio": [h.get("mismatch_logratio") for h in history],
        "truncated_share": [h.get("truncated_share") for h in history],
        "steps_done": run.get("steps_done"), "stopped_by": run.get("stopped_by"),
        "rollout_samples": run.get("rollout_samples"), "samples_per_min": run.get("samples_per_min"),
        "phase_seconds": run.get("phase_seconds"), "phase_share": run.get("phase_share"),
        "peak_rss_mb": run.get("peak_rss_mb"), "phase_peak_rss_mb": run.get("phase_peak_rss_mb"),
        "cores": os.cpu_count(), "git_sha": run.get("git_sha"),
    }
    if args.suite_limit:
        adapter = f"{model}@{work / 'adapter'}"
        result["values_synth_limit"] = args.suite_limit
        result["values_synth_base"] = _eval("values_synth", model, config, work / "compare" / "base",
                                            args.suite_limit)
        result["values_synth_trained"] = _eval("values_synth", adapter, config, work / "compare" / "trained",
                                               args.suite_limit)
        result["values_synth_knn"] = _eval("values_synth", model, ["mode=knn"], work / "compare" / "knn_suite",
                                           args.suite_limit)
    Path(args.out).write_text(json.dumps(result, indent=1, default=str) + "\n")
    print(json.dumps({k: v for k, v in result.items() if not isinstance(v, dict | list)}, indent=1))


if __name__ == "__main__":
    main()
