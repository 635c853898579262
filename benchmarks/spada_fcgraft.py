"""SPADA with FCGraft: time to the first code token with the retrieved reference programs grafted
(cached KV segments) against prefilling the same prompt, on SPADA-Bench requests, measured in one run.
Writes benchmarks/results/spada_fcgraft.json.

Per task (interleaved, after one warm-up): the first program's prompt with ``k`` references, one greedy
token; medians of both times and their ratio, and the prompt tokens each had to prefill. The segments
are prefilled once before timing (that is the library); a task's own reference is never retrieved.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paperworks.core.paths import set_offline_env  # noqa: E402

set_offline_env()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=8)
    ap.add_argument("--k", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "spada_fcgraft.json")
    args = ap.parse_args()
    if args.tasks < 1 or args.k < 1 or args.threads < 1:
        sys.exit("spada_fcgraft: --tasks, --k and --threads must be positive")
    import torch

    from paperworks.agents.spada.prompts import CONVENTION
    from paperworks.backends.fcgraft.cad import CadGrafter, load_references
    from paperworks.models.local import get_local_model

    torch.set_num_threads(args.threads)
    local = get_local_model("smollm2-135m-torch")
    refs = load_references()
    g = CadGrafter(local.model, local.tokenizer, local.name, refs=refs)
    for r in refs:  # the library: every reference's segment, prefilled once
        g._segment(r.name, f"```python\n{r.code.rstrip()}\n```\n", g.head())
    g.generate(refs[0].request, {}, CONVENTION, k=args.k, max_new_tokens=1)  # warm-up
    rows = []
    for r in refs[1: args.tasks + 1]:
        a = g.generate(r.request, {}, CONVENTION, k=args.k, max_new_tokens=1, graft=True)
        b = g.generate(r.request, {}, CONVENTION, k=args.k, max_new_tokens=1, graft=False)
        rows.append({"task": r.name, "references": a.references, "graft_ttft_s": a.ttft_s, "full_ttft_s": b.ttft_s,
                     "graft_prefilled": a.prefilled_tokens, "full_prefilled": b.prefilled_tokens})
    med_g = statistics.median(x["graft_ttft_s"] for x in rows)
    med_f = statistics.median(x["full_ttft_s"] for x in rows)
    result = {"tasks": len(rows), "k": args.k, "model": local.name,
              "graft_ttft_s": round(med_g, 4), "full_prefill_ttft_s": round(med_f, 4),
              "full_to_graft_ttft": round(med_f / med_g, 2),
              "prefilled_tokens_graft": statistics.median(x["graft_prefilled"] for x in rows),
              "prefilled_tokens_full": statistics.median(x["full_prefilled"] for x in rows),
              "per_task": rows, "cpu_count": os.cpu_count(), "torch_threads": args.threads,
              "load_1min": os.getloadavg()[0],
              "versions": {"python": platform.python_version(), "torch": torch.__version__},
              "command": "python " + " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "per_task"}, indent=2))


if __name__ == "__main__":
    main()
