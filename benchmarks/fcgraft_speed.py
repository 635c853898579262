"""Time to a policy for free generation, RAGCache-style and FCGraft on the same kitchen tasks, as ratios
measured in one run; plus the graft itself against prefilling the same tokens.
Writes benchmarks/results/fcgraft_speed.json. (GradMem's write time per step: benchmarks/gradmem_speed.py.)

Per task, the three methods run back to back (interleaved, so machine noise hits them alike); figures are
medians over tasks of ``ttft_s`` (request to first decoded token) and ``total_s`` (to the finished program),
and the ratios ``ragcache_to_fcgraft`` and ``free_to_fcgraft``. ``graft_s`` / ``prefill_s``: stitching the
header and four skeleton segments (re-positioned) against prefilling the same tokens from scratch.
``gradmem_write_step_s``: one GradMem write step (m = 8, plain SGD) of a story into SmolLM2-135M's frozen
user turn, median over writes of 1, 2 and 4 steps divided by their steps, and its ratio to one plain
forward pass over the same tokens (``gradmem_step_to_forward``); benchmarks/gradmem_speed.py has more.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paperworks.core.paths import set_offline_env  # noqa: E402

set_offline_env()


def gradmem_step(local: object) -> tuple[float, float]:
    """(seconds per GradMem write step, seconds per plain forward over the same prompt)."""
    import torch

    from paperworks.backends.gradmem.lm_stories import frozen, story_prompt
    from paperworks.backends.gradmem.memory import GradMem, GradMemConfig
    from paperworks.backends.gradmem.stories import make_stories

    p = story_prompt(local, make_stories(4, 1, 4)[0])
    model = local.model  # type: ignore[attr-defined]
    per_step = []
    with frozen(model):
        gm = GradMem(model, GradMemConfig(steps=1))
        gm.write(p.story, prefix_ids=p.prefix)  # warm-up
        for steps in (1, 2, 4):
            start = time.perf_counter()
            gm.write(p.story, prefix_ids=p.prefix, steps=steps)
            per_step.append((time.perf_counter() - start) / steps)
    ids = torch.cat([p.prefix[None] if p.prefix.dim() == 1 else p.prefix, p.story], dim=1)
    fwd = []
    with torch.no_grad():
        for _ in range(3):
            start = time.perf_counter()
            model(input_ids=ids)
            fwd.append(time.perf_counter() - start)
    return statistics.median(per_step), statistics.median(fwd)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=8)
    ap.add_argument("--max-new-tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "fcgraft_speed.json")
    args = ap.parse_args()
    if args.tasks < 1 or args.max_new_tokens < 1 or args.threads < 1:
        sys.exit("fcgraft_speed: --tasks, --max-new-tokens and --threads must be positive")
    import torch

    from paperworks.backends.fcgraft import kv
    from paperworks.backends.fcgraft.library import build_library
    from paperworks.backends.fcgraft.methods import Synthesizer
    from paperworks.models.local import get_local_model
    from paperworks.tools.robot.tasks import make_tasks

    torch.set_num_threads(args.threads)
    local = get_local_model("smollm2-135m-torch")
    tasks = make_tasks(60)
    with tempfile.TemporaryDirectory() as tmp:
        lib = build_library(Path(tmp), local.model, local.tokenizer, local.name, tasks)
        syn = Synthesizer(local.model, local.tokenizer, lib, max_new_tokens=args.max_new_tokens)
        chosen = random.Random(1).sample(tasks, args.tasks)
        for m in ("free", "ragcache", "fcgraft"):  # warm-up, not measured
            getattr(syn, m)(tasks[0])
        rows: dict[str, list[tuple[float, float, int]]] = {m: [] for m in ("free", "ragcache", "fcgraft")}
        graft, prefill = [], []
        for t in chosen:
            for m in rows:
                s = getattr(syn, m)(t)
                rows[m].append((s.ttft_s, s.total_s, s.decoded_tokens))
            names = syn.retriever.top(t.text, syn.k)
            head, parts = lib.header(), [lib.segment(n) for n in names]
            start = time.perf_counter()
            kv.stitch(local.model, head, parts)
            graft.append(time.perf_counter() - start)
            start = time.perf_counter()
            kv.prefill(local.model, head.ids + [i for p in parts for i in p.ids])
            prefill.append(time.perf_counter() - start)
    gm_step, fwd = gradmem_step(local)
    med = {m: {"ttft_s": statistics.median(r[0] for r in v), "total_s": statistics.median(r[1] for r in v),
               "decoded_tokens": statistics.median(r[2] for r in v)} for m, v in rows.items()}
    result = {
        "tasks": args.tasks, "max_new_tokens": args.max_new_tokens, "model": local.name,
        "median": med,
        "ragcache_to_fcgraft_total": round(med["ragcache"]["total_s"] / med["fcgraft"]["total_s"], 2),
        "free_to_fcgraft_total": round(med["free"]["total_s"] / med["fcgraft"]["total_s"], 2),
        "ragcache_to_fcgraft_ttft": round(med["ragcache"]["ttft_s"] / med["fcgraft"]["ttft_s"], 2),
        "free_to_fcgraft_ttft": round(med["free"]["ttft_s"] / med["fcgraft"]["ttft_s"], 2),
        "graft_s": round(statistics.median(graft), 4), "prefill_s": round(statistics.median(prefill), 4),
        "prefill_to_graft": round(statistics.median(prefill) / statistics.median(graft), 2),
        "gradmem_write_step_s": round(gm_step, 4), "plain_forward_s": round(fwd, 4),
        "gradmem_step_to_forward": round(gm_step / fwd, 2),
        "cpu_count": os.cpu_count(), "torch_threads": args.threads, "load_1min": os.getloadavg()[0],
        "versions": {"python": platform.python_version(), "torch": torch.__version__},
        "command": "python " + " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
