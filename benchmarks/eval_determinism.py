"""Are repeated greedy evals of one model reproducible, and does that depend on how many samples are in flight?

llama.cpp batches the requests in flight into one decode; with more than one, a request's logits can depend
on what is batched beside it (where its KV cells land, the order of the reduction), so greedy output can
change between two evals of the same adapter. ``paperworks train --eval-concurrency 1`` runs the held-out
evals one sample at a time for that reason. This benchmark measures it: the same suite items, the same model,
``--repeats`` fresh ``paperworks eval`` processes (a fresh engine each, no answer cache) at each concurrency,
and every model call's reply (text and tool calls) compared call by call with the first repeat's.

    python benchmarks/eval_determinism.py                      # arith, the committed arith adapter
    python benchmarks/eval_determinism.py --suite values_synth --model local/smollm2-135m --limit 12

Writes ``--out`` (default ``benchmarks/results/eval_determinism.json``): per concurrency, the share of samples
whose whole transcript equals the first repeat's, the share of model calls that do, the calls whose prompt was
identical but whose reply was not (engine non-determinism, told apart from a workflow that asked something
else), and the accuracy of each repeat; the ratio of identical samples at the highest concurrency to those at 1;
and samples that differ between concurrency 1 and the highest (first repeats).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "eval_determinism.json"


def transcripts(run_dir: Path) -> dict[str, list[str]]:
    """Each sample's model replies in order (text and tool calls, as one JSON string per call)."""
    calls: dict[str, list[str]] = {}
    for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("type") == "model_call":
            reply = {"text": event.get("text"), "tool_calls": [(c.get("name"), c.get("arguments"))
                                                               for c in event.get("tool_calls") or []]}
            calls.setdefault(str(event["sample"]), []).append(json.dumps(reply, sort_keys=True))
    return calls


def prompts(run_dir: Path) -> dict[str, list[str | None]]:
    """Each sample's prompts in call order, as the content hash the event log names them by (messages, tools
    and generation settings): two calls with the same name were asked exactly the same thing."""
    asked: dict[str, list[str | None]] = {}
    for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("type") == "model_call":
            asked.setdefault(str(event["sample"]), []).append(event.get("prompt"))
    return asked


def accuracy(run_dir: Path) -> float | None:
    """The run's first ``<scorer>/accuracy`` metric."""
    metrics = json.loads((run_dir / "results.json").read_text(encoding="utf-8")).get("metrics") or {}
    found = [v["value"] for k, v in sorted(metrics.items()) if k.endswith("/accuracy") and isinstance(v, dict)]
    return float(found[0]) if found else None


def one_eval(args: argparse.Namespace, concurrency: int, log_dir: Path) -> tuple[Path, float]:
    cmd = [sys.executable, "-m", "paperworks", "eval", args.suite, "-m", args.model, "--limit", str(args.limit),
           "--concurrency", str(concurrency), "--no-cache", "--log-dir", str(log_dir), "-q",
           *[x for c in args.config for x in ("-c", c)], *[x for g in args.gen for x in ("--gen", g)]]
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"eval failed ({' '.join(cmd[2:])}): {done.stderr.strip()[-500:]}")
    runs = [p for p in log_dir.iterdir() if (p / "events.jsonl").is_file()]
    if len(runs) != 1:
        raise SystemExit(f"{log_dir}: expected one run directory, found {len(runs)}")
    return runs[0], round(time.monotonic() - started, 1)


def compare(a: dict[str, list[str]], b: dict[str, list[str]],
            asked_a: dict[str, list[str | None]] | None = None,
            asked_b: dict[str, list[str | None]] | None = None) -> dict[str, Any]:
    """Call-by-call comparison of two evals' transcripts. With the prompts (``prompts``) as well, each sample's
    first difference is told apart: ``same_prompt`` (the engine gave another reply to the very same request:
    batch or run-to-run non-determinism) or ``prompt_differs`` (the workflow asked something else, e.g. tool or
    test feedback that is not reproducible); and replies that differ although the prompt was the same are
    counted over all calls."""
    samples = sorted(set(a) | set(b))
    same_samples = [s for s in samples if a.get(s) == b.get(s)]
    pairs = [(x, y) for s in samples for x, y in zip(a.get(s, []), b.get(s, []), strict=False)]
    differ = {s: next((i for i, (x, y) in enumerate(zip(a.get(s, []), b.get(s, []), strict=False)) if x != y),
                      min(len(a.get(s, [])), len(b.get(s, []))))
              for s in samples if s not in same_samples}
    out: dict[str, Any] = {
        "samples": len(samples), "identical_samples": len(same_samples),
        "identical_sample_share": round(len(same_samples) / max(len(samples), 1), 4),
        "calls_compared": len(pairs), "identical_calls": sum(x == y for x, y in pairs),
        "first_differing_call": differ}
    if asked_a is not None and asked_b is not None:
        def same_prompt(s: str, i: int) -> bool:
            pa, pb = asked_a.get(s, []), asked_b.get(s, [])
            return i < len(pa) and i < len(pb) and pa[i] is not None and pa[i] == pb[i]

        out["first_difference_kind"] = {
            s: ("same_prompt" if same_prompt(s, i) else "prompt_differs") if i < min(len(a.get(s, [])),
                                                                                  len(b.get(s, [])))
            else "call_count_differs" for s, i in differ.items()}
        out["same_prompt_calls"] = sum(same_prompt(s, i) for s in samples
                                       for i in range(min(len(a.get(s, [])), len(b.get(s, [])))))
        out["same_prompt_different_reply"] = sum(
            same_prompt(s, i) and x != y for s in samples
            for i, (x, y) in enumerate(zip(a.get(s, []), b.get(s, []), strict=False)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default="arith")
    parser.add_argument("--model", default="local/smollm2-135m@benchmarks/results/train_arith/adapter")
    parser.add_argument("--limit", type=int, default=24)
    parser.add_argument("--concurrency", default="1,8", help="Comma-separated concurrencies (the first is the "
                                                            "reference, normally 1).")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("-c", "--config", action="append", default=[])
    parser.add_argument("--gen", action="append", default=[])
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    levels = [int(x) for x in args.concurrency.split(",") if x.strip()]
    if not levels or min(levels) < 1 or args.repeats < 2 or args.limit < 1:
        raise SystemExit("--concurrency needs positive integers, --repeats at least 2, --limit at least 1")
    per: dict[str, Any] = {}
    firsts: dict[int, tuple[dict[str, list[str]], dict[str, list[str | None]]]] = {}
    with tempfile.TemporaryDirectory(prefix="pw-determinism-") as tmp:
        for level in levels:
            runs = [one_eval(args, level, Path(tmp) / f"c{level}-r{r}") for r in range(args.repeats)]
            texts = [transcripts(run) for run, _ in runs]
            asked = [prompts(run) for run, _ in runs]
            firsts[level] = (texts[0], asked[0])
            against = [compare(texts[0], t, asked[0], q) for t, q in zip(texts[1:], asked[1:], strict=True)]
            per[str(level)] = {
                "wall_s": [w for _, w in runs], "accuracy": [accuracy(run) for run, _ in runs],
                "repeats_vs_first": against,
                "identical_sample_share": min(c["identical_sample_share"] for c in against),
                "identical_call_share": round(sum(c["identical_calls"] for c in against)
                                              / max(sum(c["calls_compared"] for c in against), 1), 4),
                "same_prompt_different_reply": sum(c["same_prompt_different_reply"] for c in against),
                "same_prompt_calls": sum(c["same_prompt_calls"] for c in against)}
    low, high = levels[0], max(levels)
    results = {
        "benchmark": "eval_determinism",
        "command": f"python benchmarks/eval_determinism.py {' '.join(sys.argv[1:])}".strip(),
        "suite": args.suite, "model": args.model, "limit": args.limit, "repeats": args.repeats,
        "config": args.config, "gen": args.gen, "by_concurrency": per,
        "identical_share_ratio_high_to_low": (
            round(per[str(high)]["identical_sample_share"] / per[str(low)]["identical_sample_share"], 4)
            if per[str(low)]["identical_sample_share"] else None),
        "low_vs_high_first_repeats": (compare(firsts[low][0], firsts[high][0], firsts[low][1], firsts[high][1])
                                      if high != low else None),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: {c: {x: v[x] for x in ("identical_sample_share", "identical_call_share", "accuracy")}
                          for c, v in per.items()} if k == "by_concurrency" else results[k]
                      for k in ("by_concurrency", "identical_share_ratio_high_to_low")}, indent=1))


if __name__ == "__main__":
    main()
