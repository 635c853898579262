"""The arith training benchmark: SmolLM2-135M trained with ``paperworks train`` (oracle SFT warm start, then RL
through real ``agent`` workflow runs with the calculator tool, on generated problems only), evaluated on the
whole ``arith`` suite before and after; the adapter is committed so that anyone can evaluate it.

    python benchmarks/train_arith.py                       # train (examples/train_arith_long_sft.yaml) and package
    python benchmarks/train_arith.py --work runs/x         # package a finished run (or finish it)

Writes ``benchmarks/results/train_arith/``: ``adapter/`` (PEFT files), ``results.json`` (``eval_model``: the
model string that evaluates the adapter with ``paperworks eval``, ``arith_accuracy``: the trained adapter on
the whole arith suite, the base model's accuracy, the held-out curve, time per phase, throughput, peak RSS)
and ``log.jsonl`` (one line per RL step).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "train_arith"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "examples" / "train_arith_long_sft.yaml"))
    parser.add_argument("--work", default=str(ROOT / "runs" / "train_arith_long_sft"))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--reeval", action="store_true",
                        help="Only evaluate the committed adapter again from its files (paperworks eval at the "
                             "CLI's defaults) and write reeval.json beside it.")
    args = parser.parse_args()
    if args.reeval:
        reeval(Path(args.out))
        return
    work, out = Path(args.work), Path(args.out).resolve()
    started = time.monotonic()
    if not (work / "results.json").is_file():
        cmd = ([sys.executable, "-m", "paperworks", "train", "--resume", str(work), "-q"]
               if (work / "train.json").is_file() else
               [sys.executable, "-m", "paperworks", "train", "--config-file", args.config, "--out", str(work), "-q"])
        done = subprocess.run(cmd, cwd=ROOT)
        if done.returncode != 0:
            raise SystemExit(done.returncode)
    run: dict[str, Any] = json.loads((work / "results.json").read_text())
    if out.exists():
        shutil.rmtree(out)
    (out / "adapter").mkdir(parents=True)
    kept = Path(str(run["eval_model"]).rpartition("@")[2])  # adapter/, or adapter_best/ under --keep best_heldout
    kept = kept if kept.is_absolute() else ROOT / kept
    for name in ("adapter_config.json", "adapter_model.safetensors"):
        shutil.copy2(kept / name, out / "adapter" / name)
    shutil.copy2(work / "log.jsonl", out / "log.jsonl")
    final, base = run.get("final_eval") or {}, run.get("base_eval") or {}
    history = run.get("history") or []
    results = {
        "benchmark": "train_arith",
        "command": f"paperworks train --config-file {Path(args.config).resolve().relative_to(ROOT)} --out {args.work}",
        "settings": run["settings"],
        "eval_model": f"local/{run['settings']['model'].removeprefix('local/')}@{(out / 'adapter').relative_to(ROOT)}",
        "eval_command": f"paperworks eval arith -m local/smollm2-135m@{(out / 'adapter').relative_to(ROOT)}",
        "kept": run.get("kept"),
        "arith_accuracy": final.get("accuracy"), "arith_stderr": final.get("stderr"),
        "arith_samples": final.get("samples"),
        "base_accuracy": base.get("accuracy"), "base_samples": base.get("samples"),
        "heldout": [{k: h.get(k) for k in ("step", "rollout_tokens", "accuracy")} for h in run.get("heldout", [])],
        "heldout_note": "generated problems of other seeds in the generator's held-out phrasings, greedy",
        "steps_done": run.get("steps_done"), "stopped_by": run.get("stopped_by"), "sft": run.get("sft"),
        "rollout_tokens": run.get("rollout_tokens"), "rollout_samples": run.get("rollout_samples"),
        "samples_per_min": run.get("samples_per_min"), "phase_seconds": run.get("phase_seconds"),
        "phase_share": run.get("phase_share"), "swap_s_median": run.get("swap_s_median"),
        "train_wall_s": round(sum((run.get("phase_seconds") or {}).values()), 1),
        "peak_rss_mb": run.get("peak_rss_mb"), "phase_peak_rss_mb": run.get("phase_peak_rss_mb"),
        "final_train_reward": history[-1]["reward"] if history else None,
        "mismatch_abs_mean": (sum(h.get("mismatch_abs", 0.0) for h in history) / len(history)) if history else None,
        "truncated_share_mean": (sum(h.get("truncated_share", 0.0) for h in history) / len(history))
        if history else None,
        "adapter_mb": round((out / "adapter" / "adapter_model.safetensors").stat().st_size / 1e6, 2),
        "versions": run.get("versions"), "git_sha": run.get("git_sha"),
        "package_s": round(time.monotonic() - started, 1),
    }
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps({k: results[k] for k in ("eval_model", "arith_accuracy", "base_accuracy", "heldout",
                                              "train_wall_s", "peak_rss_mb")}, indent=1))


def reeval(out: Path) -> None:
    """``paperworks eval arith`` of the committed adapter, as a user runs it, into ``out/reeval.json``."""
    import tempfile

    packaged = json.loads((out / "results.json").read_text())
    model = packaged["eval_model"]
    with tempfile.TemporaryDirectory() as logs:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "paperworks", "eval", "arith", "-m", model, "-q",
                               "--log-dir", logs], cwd=ROOT)
        if done.returncode != 0:
            raise SystemExit(done.returncode)
        runs = sorted(Path(logs).glob("*/results.json"))
        metrics = json.loads(runs[-1].read_text())["metrics"]["numeric/accuracy"]
        result = {"command": f"paperworks eval arith -m {model}",
                  "purpose": "the committed adapter evaluated again, from its committed files, after the training "
                             "run (python benchmarks/train_arith.py --reeval)",
                  "arith_accuracy": metrics["value"], "arith_stderr": metrics["stderr"], "samples": metrics["n"],
                  "training_run_final_eval": packaged.get("arith_accuracy"),
                  "elapsed_s": round(time.monotonic() - started, 1)}
    (out / "reeval.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
