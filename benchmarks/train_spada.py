"""One honest attempt at SPADA with the embedded SmolLM2-135M through ``paperworks train``: an oracle SFT warm
start on generated assemblies (``gen:spada``), then OTB RL through real SPADA runs, each judged by the hidden
tests in the sandbox; base model and adapter evaluated on SPADA-Bench's first items alike.

    python benchmarks/train_spada.py                       # train (examples/train_spada.yaml) and summarise
    python benchmarks/train_spada.py --work runs/x         # summarise a finished run (or finish it)
    # RL from that warm start, with the judge's sub-metrics as declared shaping terms
    python benchmarks/train_spada.py --config examples/train_spada_rl.yaml --sft-from runs/train_spada/adapter \
        --work runs/train_spada_rl --out benchmarks/results/train_spada_rl

Writes ``--out`` (default ``benchmarks/results/train_spada/``): ``results.json`` (accuracy, and the judge's
partial figures: the share of hidden tests and checks passed and the share of invalid programs, for the base
model and the adapter on the same SPADA-Bench items and on the generated held-out problems; time per phase, throughput,
peak RSS) and ``log.jsonl`` (one line per RL step). The adapter stays in the run folder (``--work``): at
20 MB, it is committed only when it solves something (this attempt's scores 0).
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
OUT = ROOT / "benchmarks" / "results" / "train_spada"


def judged(run_dir: str | None) -> dict[str, Any]:
    """Per-item verdicts of one eval run directory, and their means (``None`` where the run is missing)."""
    from paperworks.eval.samples_log import SamplesLog

    if not run_dir or not (Path(run_dir) / "samples.jsonl").is_file():
        return {}
    items: list[dict[str, Any]] = []
    for r in SamplesLog(Path(run_dir) / "samples.jsonl").read():
        score = (r.scores.get("spada") or next(iter(r.scores.values()), {})) if r.scores else {}
        metrics = (score.get("details") or {}).get("metrics") or {}
        items.append({"id": r.id, "passed": bool(score.get("passed")) and r.error is None,
                      "constraint_pass": float(metrics.get("constraint_pass", 0.0)),
                      "invalid": float(metrics.get("invalid", 1.0)), "error": r.error,
                      "compiled": float(metrics.get("compiled", 0.0)), "loaded": float(metrics.get("loaded", 0.0)),
                      "stage": (score.get("details") or {}).get("stage"),
                      "explanation": str(score.get("explanation") or "")[:160],
                      "tokens": int((r.usage or {}).get("total_tokens") or 0)})
    n = len(items) or 1
    def mean(key: str) -> float:
        return round(sum(float(i[key]) for i in items) / n, 4)

    return {"samples": len(items), "accuracy": mean("passed"), "constraint_pass_mean": mean("constraint_pass"),
            "invalid_share": mean("invalid"), "compiled_share": mean("compiled"), "loaded_share": mean("loaded"),
            "items": sorted(items, key=lambda i: str(i["id"]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=str(ROOT / "examples" / "train_spada.yaml"))
    parser.add_argument("--work", default=str(ROOT / "runs" / "train_spada"))
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--sft-from", default=None, help="Warm-start adapter folder (else the config's).")
    args = parser.parse_args()
    work, out = Path(args.work).resolve(), Path(args.out)
    if not (work / "results.json").is_file():
        cmd = ([sys.executable, "-m", "paperworks", "train", "--resume", str(work), "-q"]
               if (work / "train.json").is_file() else
               [sys.executable, "-m", "paperworks", "train", "--config-file", args.config, "--out", str(work), "-q",
                *(["--sft-from", args.sft_from] if args.sft_from else [])])
        done = subprocess.run(cmd, cwd=ROOT)
        if done.returncode != 0:
            raise SystemExit(done.returncode)
    started = time.monotonic()
    run: dict[str, Any] = json.loads((work / "results.json").read_text())
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copy2(work / "log.jsonl", out / "log.jsonl")
    heldout = sorted((work / "heldout").glob("step-*/*/run.json"))
    history = run.get("history") or []
    adapter = work / "adapter"
    try:
        adapter = adapter.relative_to(ROOT)
    except ValueError:
        pass
    limit = run.get("eval_limit")
    results = {
        "benchmark": "train_spada",
        "command": f"python benchmarks/train_spada.py {' '.join(sys.argv[1:])}".strip(),
        "train_command": f"paperworks train --config-file {Path(args.config).resolve().relative_to(ROOT)} --out DIR"
                         + (f" --sft-from {args.sft_from}" if args.sft_from else ""),
        "settings": run["settings"],
        "eval_model": f"{run['settings']['model']}@{adapter}",
        "eval_command": f"paperworks eval spada_bench -m {run['settings']['model']}@{adapter} "
                        f"-c max_iterations={run['settings']['config'].get('max_iterations', 3)}"
                        + (f" --limit {limit}" if limit else ""),
        "eval_note": f"SPADA-Bench's first {limit or 30} items, one attempt each (settings.config), greedy; the "
                     "base model and the adapter on the same items",
        "base": judged((run.get("base_eval") or {}).get("run_dir")),
        "trained": judged((run.get("final_eval") or {}).get("run_dir")),
        "heldout_note": "generated assemblies of other seeds in the generator's held-out phrasing, greedy; step 0 "
                        "is after the SFT warm start",
        "heldout": [{"step": int(p.parent.parent.name.split("-")[1]),
                     **{k: v for k, v in judged(str(p.parent)).items() if k != "items"}} for p in heldout],
        "steps_done": run.get("steps_done"), "stopped_by": run.get("stopped_by"), "sft": run.get("sft"),
        "train_reward": [h.get("reward") for h in history],
        "train_shaping": [h.get("shaping") for h in history],
        "train_tokens_trained": [h.get("tokens_trained") for h in history],
        "sft_loss": (run.get("scalars") or {}).get("sft/loss"),
        "rollout_tokens": run.get("rollout_tokens"), "rollout_samples": run.get("rollout_samples"),
        "samples_per_min": run.get("samples_per_min"), "phase_seconds": run.get("phase_seconds"),
        "phase_share": run.get("phase_share"), "swap_s_median": run.get("swap_s_median"),
        "train_wall_s": round(sum((run.get("phase_seconds") or {}).values()), 1),
        "peak_rss_mb": run.get("peak_rss_mb"), "phase_peak_rss_mb": run.get("phase_peak_rss_mb"),
        "adapter_mb": round((work / "adapter" / "adapter_model.safetensors").stat().st_size / 1e6, 2),
        "versions": run.get("versions"), "git_sha": run.get("git_sha"),
        "package_s": round(time.monotonic() - started, 1),
    }
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps({k: results[k] for k in ("eval_model", "heldout", "train_wall_s", "peak_rss_mb")}, indent=1))
    for which in ("base", "trained"):
        print(which, {k: v for k, v in results[which].items() if k != "items"})


if __name__ == "__main__":
    main()
