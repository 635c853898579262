"""GradMem write time per step against the forward writer's write, on the tiny Llama and on SmolLM2-135M.
Writes benchmarks/results/gradmem_speed.json.

For each model, at a given context length and batch, medians over repeats of:
- ``*_gradmem_step_s``: one GradMem write step (forward + backward to the memory, plain inference write);
- ``*_forward_write_s``: one forward-writer write (a single forward pass over ``[M; context; M]``);
- ``*_plain_forward_s``: one forward pass over ``[M; context]`` without gradients (the unit of cost);
- ``*_meta_step_s[K=k]`` (tiny only): one second-order MAML outer step through ``k`` inner steps;
and the ratios ``*_step_to_forward_write`` and ``*_step_to_plain_forward`` measured in the same run, since
the machine is noisy. ``--tiny-only`` skips SmolLM2. One torch thread (the cores are shared).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paperworks.core.paths import set_offline_env  # noqa: E402

set_offline_env()


def median_s(fn: Callable[[], Any], repeats: int, warmup: int = 1) -> float:
    """Median wall seconds of ``fn()`` over ``repeats`` calls after ``warmup``."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(prefix: str, model: Any, ctx: Any, repeats: int, meta: bool) -> dict[str, Any]:
    """The figures for one model and context batch ``ctx (B, S)``."""
    import torch

    from paperworks.backends.gradmem.forward import ForwardWriter
    from paperworks.backends.gradmem.memory import GradMem, GradMemConfig

    gm = GradMem(model, GradMemConfig(steps=1))
    fw = ForwardWriter(model)
    mem = gm.mem0.detach().unsqueeze(0).expand(ctx.shape[0], -1, -1)

    def plain() -> None:
        with torch.no_grad():
            model(inputs_embeds=torch.cat([mem, model.get_input_embeddings()(ctx)], 1))

    step = median_s(lambda: gm.write(ctx, steps=1), repeats)
    fwd = median_s(lambda: fw.write(ctx), repeats)
    base = median_s(plain, repeats)
    out: dict[str, Any] = {
        f"{prefix}_context_tokens": int(ctx.shape[1]), f"{prefix}_batch": int(ctx.shape[0]),
        f"{prefix}_gradmem_step_s": round(step, 5), f"{prefix}_forward_write_s": round(fwd, 5),
        f"{prefix}_plain_forward_s": round(base, 5),
        f"{prefix}_step_to_forward_write": round(step / fwd, 3),
        f"{prefix}_step_to_plain_forward": round(step / base, 3),
    }
    if meta:
        qry = ctx[:, :4]
        for k in (1, 2, 5):
            gk = GradMem(model, GradMemConfig(steps=k))

            def outer(gk: GradMem = gk) -> None:
                gk.zero_grad(set_to_none=True)
                gk.score(gk.write(ctx, create_graph=True).memory, qry, qry).loss.mean().backward()

            def fw_outer() -> None:
                fw.zero_grad(set_to_none=True)
                fw.score(fw.write(ctx, create_graph=True).memory, qry, qry).loss.mean().backward()

            out[f"{prefix}_meta_step_s[K={k}]"] = round(median_s(outer, max(2, repeats // 2)), 4)
        out[f"{prefix}_meta_step_s[forward writer]"] = round(median_s(fw_outer, max(2, repeats // 2)), 4)
        for k in (1, 2, 5):
            out[f"{prefix}_meta_step_to_forward[K={k}]"] = round(
                out[f"{prefix}_meta_step_s[K={k}]"] / out[f"{prefix}_meta_step_s[forward writer]"], 3)
    return out


def main() -> None:
    from importlib import metadata

    import torch

    from paperworks.backends.gradmem.data import CharTokenizer, KVTaskConfig, make_kv_batch
    from paperworks.backends.gradmem.tiny import tiny_llama

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiny-only", action="store_true", help="skip SmolLM2-135M")
    ap.add_argument("--pairs", type=int, default=8, help="key-value pairs per tiny context (1-char keys/values)")
    ap.add_argument("--tiny-batch", type=int, default=16)
    ap.add_argument("--lm-tokens", type=int, default=128, help="SmolLM2 context length in tokens")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    tok = CharTokenizer()
    samples = make_kv_batch(0, args.tiny_batch, args.pairs, KVTaskConfig(key_len=1, value_len=1))
    ctx = torch.tensor([tok.encode(s.context) for s in samples])
    result: dict[str, Any] = {"tiny_model": "Llama L4 H4 d128 (eager attention)", "memory_vectors": 8}
    result.update(measure("tiny", tiny_llama(tok.vocab_size), ctx, args.repeats, meta=True))
    if not args.tiny_only:
        from paperworks.models.local import get_local_model

        local = get_local_model("smollm2-135m-torch")
        ids = torch.randint(100, 40000, (1, args.lm_tokens))
        for p in local.model.parameters():
            p.requires_grad_(False)
        result["lm_model"] = "SmolLM2-135M-Instruct (fp32, sdpa attention, frozen)"
        result.update(measure("lm", local.model, ids, max(3, args.repeats // 2), meta=False))
    versions = {"python": platform.python_version()}
    for dist in ("torch", "transformers"):
        versions[dist] = metadata.version(dist)
    result.update({"cpu_count": os.cpu_count(), "torch_threads": 1, "load_1min": os.getloadavg()[0],
                   "versions": versions, "command": "python " + " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])})
    path = ROOT / "benchmarks" / "results" / "gradmem_speed.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
