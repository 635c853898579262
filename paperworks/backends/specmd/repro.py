"""``paperworks repro specmd``: expert-cache policies on an OLMoE-shaped trace and a MoEfied SmolLM2 trace.

Reports, at 5% capacity, each policy's hit rate and share of Belady's hits with and without speculative
prefetching, LRU's and Least-Stale's collision misses and their ratio, and modeled TTFT (LRU without
prefetching included), beside the paper's claims (>88% hit rate, up to 85x fewer collision misses than LRU,
34.7% lower TTFT). A ratio whose denominator is 0 is reported as undefined (value ``None``) with both counts.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from paperworks.backends.repro import Figure, Progress, ReproResult, no_progress
from paperworks.backends.specmd import plots
from paperworks.backends.specmd.hardware import PRESETS
from paperworks.backends.specmd.metrics import SweepConfig, capacity_slots, collision_ratio, pick, sweep
from paperworks.backends.specmd.prefetch import PrefetchConfig, speculative_hints
from paperworks.backends.specmd.simulator import simulate
from paperworks.backends.specmd.synthetic import SyntheticConfig, synthetic_trace
from paperworks.backends.specmd.trace import Trace, to_stream

FRACTION = 0.05
HW = "a100-pcie4"
CLAIM_HIT = ">88% hit rate at 5% capacity (Least-Stale, OLMoE)"
CLAIM_COLLISION = "up to 85x fewer collision misses than LRU"
CLAIM_TTFT = "34.7% lower TTFT than LRU (OLMoE, 5% cache)"
def share_text(share: float | None) -> str:
    """A share of Belady's hits as text ("n/a" when Belady has no hits)."""
    return "n/a" if share is None else f"{share:.1%}"


BELADY_NOTE = {False: "Belady = the offline optimum of demand misses under the pinning rule",
               True: "Belady = offline farthest-next-use with the same hints: a reference, not an optimum "
                     "with prefetching (an online policy may exceed it)"}


@dataclass
class SpecmdReproConfig:
    """Sizes of the experiment (``--quick`` shrinks the traces)."""

    synthetic_tokens: int = 2048
    """Tokens in the OLMoE-shaped trace."""
    prompt_tokens: int = 128
    """Of which the prompt (prefilled in chunks; TTFT ends there)."""
    prefill_chunk: int = 8
    """Prompt tokens per prefill row (chunked prefill)."""
    skew: float = 0.8
    """Zipf exponent of expert popularity in the synthetic trace."""
    reuse: float = 0.5
    """Token-to-token expert reuse in the synthetic trace."""
    accuracy: float = 0.8
    """Accuracy of the speculative next-layer prefetcher."""
    smollm_tokens: int = 1024
    """Tokens of license text for the MoEfied SmolLM2-135M trace (0 skips it)."""
    seed: int = 0
    """Seed of generators, prefetch mistakes and the random policy."""


def _both(trace: Trace, cfg: SpecmdReproConfig, prompt: int) -> list[dict[str, Any]]:
    hinted = speculative_hints(trace, PrefetchConfig(ahead=1, accuracy=cfg.accuracy, seed=cfg.seed))
    stream = to_stream(hinted, prompt, cfg.prefill_chunk)
    hws = tuple(PRESETS)
    return (sweep(stream, SweepConfig(use_hints=False, hardware=hws, seed=cfg.seed))
            + sweep(stream, SweepConfig(use_hints=True, hardware=hws, seed=cfg.seed)))


def collision_figure(records: list[dict[str, Any]], mode: bool, where: str) -> Figure:
    """LRU's collision misses over Least-Stale's at 5% capacity, with both counts and the largest defined ratio
    over all capacities; ``None`` (undefined) when Least-Stale has none."""
    ratio, lru, ls = collision_ratio(records, FRACTION, mode)
    fracs = sorted({r["fraction"] for r in records if r["prefetch"] == mode})
    per = [(fr, *collision_ratio(records, fr, mode)) for fr in fracs]
    defined = [(x, fr, a, b) for fr, x, a, b in per if x is not None]
    zero = [f"{fr:.0%} (LRU {a})" for fr, x, a, _ in per if x is None and a > 0]
    note = f"{where}, 5% capacity: LRU {lru} vs Least-Stale {ls} collision misses"
    if ratio is None:
        note += " (ratio undefined: Least-Stale has none)" if lru else " (neither has any)"
    if defined:
        best, at, a, b = max(defined)
        note += f"; largest defined ratio over 1%-50%: {best}x at {at:.0%} (LRU {a} vs {b})"
    if zero:
        note += f"; Least-Stale has 0, ratio undefined, at {', '.join(zero)}"
    return Figure(ratio, paper=CLAIM_COLLISION, unit="x" if ratio is not None else "", note=note)


def _olmoe_figures(res: ReproResult, recs: list[dict[str, Any]], cfg: SpecmdReproConfig) -> None:
    f = res.figures
    for mode, tag in ((False, "no prefetch"), (True, f"next-layer prefetch, accuracy {cfg.accuracy}")):
        rows = [x for x in recs if x["prefetch"] == mode and x["fraction"] == FRACTION]
        for r in rows:
            pol = r["policy"]
            f[f"hit_rate[{pol}, {tag}]"] = Figure(
                r["hit_rate"], paper=CLAIM_HIT if pol == "least-stale" else None,
                note=f"OLMoE-shaped synthetic trace, 5% = {r['capacity']} of 1024 experts; "
                     f"{share_text(r['belady_share'])} of Belady's hits")
        above = [r["policy"] for r in rows if r["policy"] != "belady" and (r["belady_share"] or 0) > 1]
        for r in rows:
            f[f"belady_share[{r['policy']}, {tag}]"] = Figure(
                r["belady_share"], note=f"hits / Belady's hits, same hints; {BELADY_NOTE[mode]}"
                + (f"; above Belady here: {', '.join(above)}" if above else ""))
        for pol in ("lru", "least-stale"):
            f[f"collision_misses[{pol}, {tag}]"] = Figure(pick(recs, pol, FRACTION, mode)["collision_misses"],
                                                          note="misses on an expert evicted earlier in the same token")
        f[f"collision_ratio_lru_over_least_stale[{tag}]"] = collision_figure(recs, mode, "OLMoE-shaped")
        lru_t = pick(recs, "lru", FRACTION, mode)[f"ttft_ms[{HW}]"]
        ls_t = pick(recs, "least-stale", FRACTION, mode)[f"ttft_ms[{HW}]"]
        for pol, t in (("lru", lru_t), ("least-stale", ls_t)):
            f[f"ttft_ms[{pol}, {tag}]"] = Figure(t, unit="ms", note=f"modeled, {HW} preset (assumed figures), "
                                                 f"prompt {cfg.prompt_tokens} tokens in chunks of {cfg.prefill_chunk}")
        f[f"ttft_reduction_least_stale_vs_lru[{tag}]"] = Figure(
            round(1 - ls_t / lru_t, 4), paper=CLAIM_TTFT,
            note=f"modeled on {HW}: LRU {lru_t:.1f} ms, Least-Stale {ls_t:.1f} ms, both {tag}")
        f[f"decode_ms_per_token[least-stale, {tag}]"] = Figure(
            pick(recs, "least-stale", FRACTION, mode)[f"decode_ms[{HW}]"], unit="ms",
            note=f"{HW}; LRU: {pick(recs, 'lru', FRACTION, mode)[f'decode_ms[{HW}]']} ms")
    lru_plain = pick(recs, "lru", FRACTION, False)[f"ttft_ms[{HW}]"]
    ls_pf = pick(recs, "least-stale", FRACTION, True)[f"ttft_ms[{HW}]"]
    lru_pf = pick(recs, "lru", FRACTION, True)[f"ttft_ms[{HW}]"]
    fastest = min((x for x in recs if x["fraction"] == FRACTION and x["policy"] != "belady"),
                  key=lambda x: x[f"ttft_ms[{HW}]"])
    f["ttft_reduction_least_stale_prefetch_vs_lru_no_prefetch"] = Figure(
        round(1 - ls_pf / lru_plain, 4), paper=CLAIM_TTFT,
        note=f"modeled on {HW}: LRU without prefetching {lru_plain:.1f} ms, Least-Stale with prefetching "
             f"{ls_pf:.1f} ms, LRU with prefetching {lru_pf:.1f} ms (negative: slower); fastest online run at 5%: "
             f"{fastest['policy']} {'with' if fastest['prefetch'] else 'without'} prefetching, "
             f"{fastest[f'ttft_ms[{HW}]']:.1f} ms")


def run(out: Path, quick: bool = False, scale: str = "cpu", cfg: SpecmdReproConfig | None = None,
        progress: Progress = no_progress) -> ReproResult:
    """Run the experiment, write plots into ``out`` and return figures beside the paper's claims
    (``cfg`` overrides the sizes that ``quick`` picks; ``progress`` hears of each stage)."""
    if cfg is None:
        cfg = SpecmdReproConfig(synthetic_tokens=512, prompt_tokens=64, smollm_tokens=256) if quick \
            else SpecmdReproConfig()
    out.mkdir(parents=True, exist_ok=True)
    res = ReproResult(name="specmd", config=asdict(cfg))
    t0 = time.monotonic()
    progress(f"OLMoE-shaped trace: {cfg.synthetic_tokens} tokens x 16 layers; sweeping 7 policies x 7 capacities, "
             "without and with prefetching")
    trace = synthetic_trace(SyntheticConfig(n_tokens=cfg.synthetic_tokens, skew=cfg.skew, reuse=cfg.reuse,
                                            seed=cfg.seed))
    recs = _both(trace, cfg, cfg.prompt_tokens)
    res.extra["olmoe_shaped_sweep"] = recs
    _olmoe_figures(res, recs, cfg)
    f = res.figures
    progress("OLMoE-shaped trace: prefetching 2 layers ahead, and at accuracies 0.9 and 1.0")
    ahead = to_stream(speculative_hints(trace, PrefetchConfig(ahead=2, accuracy=cfg.accuracy, seed=cfg.seed)),
                      cfg.prompt_tokens, cfg.prefill_chunk)
    cap = capacity_slots(ahead, FRACTION)
    for pol in ("lru", "least-stale", "belady"):
        f[f"hit_rate[{pol}, prefetch 2 layers ahead]"] = Figure(round(simulate(ahead, pol, cap).hit_rate, 5),
                                                                note="OLMoE-shaped, 5% capacity")
    for acc in (0.9, 1.0):  # how accurate must speculation be for the paper's >88%?
        s = to_stream(speculative_hints(trace, PrefetchConfig(ahead=1, accuracy=acc, seed=cfg.seed)),
                      cfg.prompt_tokens, cfg.prefill_chunk)
        for pol in ("lru", "least-stale", "belady"):
            f[f"hit_rate[{pol}, next-layer prefetch, accuracy {acc}]"] = Figure(
                round(simulate(s, pol, cap).hit_rate, 5), paper=CLAIM_HIT if pol == "least-stale" else None,
                note="OLMoE-shaped, 5% capacity; the prefetcher's accuracy is an assumption")
    progress("plots")
    res.plots.append(plots.hit_rate_plot(recs, out / "hit_rate_vs_capacity.png", "OLMoE-shaped").name)
    res.plots.append(plots.collision_plot(recs, out / "collision_ratio.png").name)
    res.plots.append(plots.ttft_plot(recs, FRACTION, HW, out / "ttft_5pct.png").name)
    res.extra["seconds_synthetic"] = round(time.monotonic() - t0, 2)
    if cfg.smollm_tokens:
        _smollm(res, cfg, out, progress)
    return res


def _smollm(res: ReproResult, cfg: SpecmdReproConfig, out: Path, progress: Progress) -> None:
    """The same sweep on the MoEfied SmolLM2-135M trace (skipped with a note if the model won't load)."""
    from paperworks.backends.specmd.moefy import MoefyConfig, smollm2_trace

    progress(f"MoEfied SmolLM2-135M: tracing {cfg.smollm_tokens} tokens of license text")
    t0 = time.monotonic()
    try:
        trace = smollm2_trace(MoefyConfig(n_tokens=cfg.smollm_tokens, seed=cfg.seed))
    except Exception as exc:  # the embedded model is optional for this experiment
        res.figures["hit_rate[least-stale, moefied smollm2]"] = Figure(None, note=f"skipped: {exc}")
        return
    progress("MoEfied SmolLM2-135M: sweeping 7 policies x 7 capacities, without and with prefetching")
    recs = _both(trace, cfg, min(cfg.prompt_tokens, trace.n_tokens // 4))
    res.extra["smollm2_sweep"] = recs
    res.extra["smollm2_text"] = trace.meta.get("text", "")
    for mode, tag in ((False, "no prefetch"), (True, "prefetch")):
        for pol in ("lru", "least-stale", "belady"):
            r = pick(recs, pol, FRACTION, mode)
            res.figures[f"hit_rate[{pol}, moefied smollm2, {tag}]"] = Figure(
                r["hit_rate"], note=f"SmolLM2-135M MLPs clustered into 30x64 experts, top-8, {trace.n_tokens} "
                f"tokens of license text; 5% = {r['capacity']} experts; {share_text(r['belady_share'])} of "
                f"Belady's hits ({BELADY_NOTE[mode]})")
        res.figures[f"collision_ratio_lru_over_least_stale[moefied smollm2, {tag}]"] = collision_figure(
            recs, mode, "MoEfied SmolLM2")
    res.plots.append(plots.hit_rate_plot(recs, out / "hit_rate_vs_capacity_smollm2.png", "MoEfied SmolLM2").name)
    res.extra["seconds_smollm2"] = round(time.monotonic() - t0, 2)
