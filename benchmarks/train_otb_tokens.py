"""OTB's claim on a tool-integrated task: rollout tokens needed to reach the same held-out reward with OTB at
N=4 against GRPO at N=4 and at a larger N, same seeds, same warm start, same problems per step.

Each arm is a ``paperworks train`` run (agent workflow, calculator tool, generated arith problems) started
from the same supervised adapter (``--sft-from``); the held-out generated problems (other seeds, other
phrasings) are answered greedily every ``--eval-every`` steps, step 0 being the warm start itself.

The target is fixed before any arm runs: the warm start's held-out accuracy plus ``--delta`` (per seed; the
warm start is the same adapter for every arm of a seed, so its step-0 accuracy is too). Each arm's figure is
the cumulative rollout tokens (prompt + completion, every call) at its first held-out evaluation at or above
the target; an arm that never gets there is reported as not reached, with the tokens it spent (a lower bound).
The ratios compare the median tokens over the seeds where both arms reached the target, and say over how
many seeds that is.

    # the warm start: the train_arith recipe stopped after its SFT (deterministic for its seed)
    paperworks train --config-file examples/train_arith.yaml --steps 0 --no-final-eval --out runs/sft_arith
    python benchmarks/train_otb_tokens.py --sft-from runs/sft_arith/adapter --seeds 0,1,2 --steps 12 \\
        --batch 8 --big-n 16 --heldout 48 --eval-every 2 --delta 0.06 --lr 1e-4

Writes the JSON (and keeps each arm's run folder under ``--work``, so that a killed benchmark resumes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def arm(name: str, estimator: str, n: int, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    out = Path(args.work) / f"seed-{seed}" / name
    cmd = [sys.executable, "-m", "paperworks", "train", "agent", "--suite", "gen:arith", "--eval-suite", "arith",
           "--estimator", estimator, "--group-size", str(n), "--batch", str(args.batch), "--steps", str(args.steps),
           "--seed", str(seed), "--heldout", str(args.heldout), "--eval-every", str(args.eval_every),
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
    return {"name": name, "estimator": estimator, "group_size": n, "seed": seed,
            "run_s": round(sum(float(v) for v in results["phase_seconds"].values()), 1),
            "this_call_s": round(time.monotonic() - started, 1),
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


def summarise(arms: list[dict[str, Any]], delta: float) -> dict[str, Any]:
    """Per-seed targets (warm start + delta), each arm's tokens to its seed's target, and the ratios of the
    median tokens over the seeds where both arms of a ratio reached it."""
    targets: dict[int, float] = {}
    for a in arms:
        start = next((h["accuracy"] for h in a["heldout"] if h["step"] == 0), None)
        if start is None:
            raise SystemExit(f"{a['name']} seed {a['seed']}: no held-out evaluation at step 0 (the warm start)")
        targets.setdefault(a["seed"], start + delta)
    for a in arms:
        a["target"] = targets[a["seed"]]
        a["best_heldout_accuracy"] = max((h["accuracy"] or 0.0) for h in a["heldout"])
        a["tokens_to_target"] = tokens_to_reach([h for h in a["heldout"] if h["step"] > 0], a["target"])

    def ratio(x: str, y: str) -> dict[str, Any]:
        pairs = [(a["tokens_to_target"], b["tokens_to_target"]) for a in arms if a["name"] == x
                 for b in arms if b["name"] == y and b["seed"] == a["seed"]]
        both = [(u, v) for u, v in pairs if u and v]
        ratio_ = (statistics.median(u for u, _ in both) / statistics.median(v for _, v in both)) if both else None
        return {"ratio_of_medians": round(ratio_, 3) if ratio_ else None, "seeds_both_reached": len(both),
                "seeds": len(pairs), f"{x}_reached": sum(1 for u, _ in pairs if u),
                f"{y}_reached": sum(1 for _, v in pairs if v)}

    names = list(dict.fromkeys(a["name"] for a in arms))
    return {"targets": {str(k): v for k, v in targets.items()},
            "otb_n4_over_grpo_n4": ratio(names[0], names[1]),
            "otb_n4_over_grpo_big_n": ratio(names[0], names[2]),
            "at_matched_tokens": matched(arms)}


def accuracy_within(curve: list[dict[str, Any]], budget: int) -> dict[str, Any]:
    """The last and the best held-out accuracy among the evaluations made within ``budget`` rollout tokens
    (step 0 included), and how many steps' tokens that was."""
    inside = [p for p in curve if p["rollout_tokens"] <= budget and p["accuracy"] is not None]
    if not inside:
        return {"last": None, "best": None, "at_step": None}
    return {"last": inside[-1]["accuracy"], "best": max(p["accuracy"] for p in inside), "at_step": inside[-1]["step"]}


def matched(arms: list[dict[str, Any]]) -> dict[str, Any]:
    """Held-out accuracy of every arm within the same rollout-token budget, per seed: the smallest total any
    arm of that seed spent (the N=4 arms' whole run, a few steps of the large-N arm), and the mean over seeds."""
    per_seed: dict[str, dict[str, Any]] = {}
    for seed in sorted({a["seed"] for a in arms}):
        mine = [a for a in arms if a["seed"] == seed]
        budget = min(int(a["rollout_tokens"]) for a in mine)
        per_seed[str(seed)] = {"budget_tokens": budget,
                               **{a["name"]: accuracy_within(a["heldout"], budget) for a in mine}}
    names = list(dict.fromkeys(a["name"] for a in arms))
    mean: dict[str, float | None] = {}
    for name in names:
        values = [s[name]["last"] for s in per_seed.values() if s.get(name, {}).get("last") is not None]
        mean[name] = round(statistics.fmean(values), 4) if values else None
    return {"per_seed": per_seed, "mean_last": mean}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sft-from", default=None, help="The shared warm-start adapter folder.")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--big-n", type=int, default=16, help="GRPO's large group size.")
    parser.add_argument("--seeds", default="0", help="Comma-separated seeds (each runs every arm).")
    parser.add_argument("--heldout", type=int, default=48)
    parser.add_argument("--eval-every", type=int, default=2)
    parser.add_argument("--delta", type=float, default=0.1,
                        help="Target = the warm start's held-out accuracy + delta (fixed before the runs).")
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--work", default="runs/train_otb_tokens")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "train_otb_tokens.json"))
    args = parser.parse_args()
    try:
        seeds = [int(x) for x in args.seeds.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"--seeds: expected comma-separated integers, got {args.seeds!r}") from None
    if not seeds or args.delta <= 0 or args.big_n < 2:
        raise SystemExit("--seeds must name a seed, --delta must be > 0 and --big-n >= 2")
    arms = [a for seed in seeds for a in (arm("otb_n4", "otb", 4, seed, args), arm("grpo_n4", "grpo", 4, seed, args),
                                          arm(f"grpo_n{args.big_n}", "grpo", args.big_n, seed, args))]
    result = {
        "benchmark": "train_otb_tokens", "command": " ".join(["python", "benchmarks/train_otb_tokens.py",
                                                              *sys.argv[1:]]),
        "delta": args.delta, "seeds": seeds, **summarise(arms, args.delta), "arms": arms,
        "paper_claim": "OTB at N=4 matches GRPO at N=32 with over 65% fewer tokens",
        "cores": os.cpu_count(),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "arms"}, indent=1))


if __name__ == "__main__":
    main()
