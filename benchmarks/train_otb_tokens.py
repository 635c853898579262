"""OTB's claim on a tool-integrated task: rollout tokens needed to reach the same held-out reward with OTB at
N=4 against GRPO at N=4 and at a larger N, same seeds, same warm start, same problems per step.

Each arm is a ``paperworks train`` run (agent workflow, calculator tool, generated arith problems) started
from the same supervised adapter (``--sft-from``); the held-out generated problems (other seeds, other
phrasings) are answered greedily every ``--eval-every`` steps. The target reward is the lowest of the arms'
best held-out accuracies (so every arm reaches it); each arm's figure is the cumulative rollout tokens
(prompt + completion, every call) at the first held-out evaluation that reaches it.

    # the warm start: the train_arith recipe stopped after its SFT (deterministic for its seed)
    paperworks train --config-file examples/train_arith.yaml --steps 0 --no-final-eval --out runs/sft_arith
    python benchmarks/train_otb_tokens.py --sft-from runs/sft_arith/adapter --steps 4 --batch 6 --big-n 8 \\
        --heldout 24 --eval-every 2 --lr 1e-4

Writes the JSON (and keeps each arm's run folder under ``--work``).
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


def arm(name: str, estimator: str, n: int, args: argparse.Namespace) -> dict[str, Any]:
    out = Path(args.work) / name
    cmd = [sys.executable, "-m", "paperworks", "train", "agent", "--suite", "gen:arith", "--eval-suite", "arith",
           "--estimator", estimator, "--group-size", str(n), "--batch", str(args.batch), "--steps", str(args.steps),
           "--seed", str(args.seed), "--heldout", str(args.heldout), "--eval-every", str(args.eval_every),
           "--no-final-eval", "-q", "--out", str(out)]
    if args.sft_from:
        cmd += ["--sft-from", args.sft_from]
    if args.lr:
        cmd += ["--lr", str(args.lr)]
    if (out / "train.json").exists():
        cmd = [sys.executable, "-m", "paperworks", "train", "--resume", str(out), "-q"]
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=os.environ.copy())
    if done.returncode != 0:
        raise SystemExit(f"{name}: {done.stderr.strip()[-500:]}")
    results = json.loads((out / "results.json").read_text())
    return {"name": name, "estimator": estimator, "group_size": n, "wall_s": round(time.monotonic() - started, 1),
            "heldout": [{"step": h["step"], "rollout_tokens": h["rollout_tokens"], "accuracy": h["accuracy"]}
                        for h in results["heldout"]],
            "rollout_tokens": results["rollout_tokens"], "phase_seconds": results["phase_seconds"],
            "peak_rss_mb": results["peak_rss_mb"], "run": str(out)}


def tokens_to_reach(curve: list[dict[str, Any]], target: float) -> int | None:
    """Rollout tokens at the first held-out evaluation at or above ``target`` (None: never)."""
    for point in curve:
        if point["accuracy"] is not None and point["accuracy"] >= target - 1e-12:
            return int(point["rollout_tokens"])
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sft-from", default=None, help="The shared warm-start adapter folder.")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--big-n", type=int, default=16, help="GRPO's large group size.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--heldout", type=int, default=48)
    parser.add_argument("--eval-every", type=int, default=2)
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--work", default="runs/train_otb_tokens")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "train_otb_tokens.json"))
    args = parser.parse_args()
    arms = [arm("otb_n4", "otb", 4, args), arm("grpo_n4", "grpo", 4, args),
            arm(f"grpo_n{args.big_n}", "grpo", args.big_n, args)]
    best = [max((h["accuracy"] or 0.0) for h in a["heldout"]) for a in arms]
    target = min(best)
    for a, b in zip(arms, best, strict=True):
        a["best_heldout_accuracy"] = b
        a["tokens_to_target"] = tokens_to_reach(a["heldout"], target)
    otb, big = arms[0]["tokens_to_target"], arms[2]["tokens_to_target"]
    result = {
        "benchmark": "train_otb_tokens", "command": " ".join(["python", "benchmarks/train_otb_tokens.py",
                                                              *sys.argv[1:]]),
        "target_heldout_accuracy": target, "arms": arms,
        "otb_n4_tokens_over_grpo_big_n": round(otb / big, 3) if otb and big else None,
        "otb_n4_tokens_over_grpo_n4": round(otb / arms[1]["tokens_to_target"], 3)
        if otb and arms[1]["tokens_to_target"] else None,
        "paper_claim": "OTB at N=4 matches GRPO at N=32 with over 65% fewer tokens",
        "cores": os.cpu_count(),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "arms"}, indent=1))


if __name__ == "__main__":
    main()
