"""``paperworks repro rejump``: ReJump metrics for contrasting trace styles, ReJump-guided Best-of-N, and the
embedded model's extraction validity.

1. Hand-written trees and walks (``data/traces.json``) replayed by a scripted extractor through the real
   two-stage extraction code, their metrics, and their drawings.
2. Metric distributions for contrasting styles of seeded Game-of-24 searchers (``simulate``), and how alike
   their walks are (walk similarity within and across styles).
3. Best-of-N on recorded candidate traces: keep the one with the largest filtered jump distance, against a
   random pick (paper: 0.838 vs 0.800 mean accuracy with LLM traces; here the traces are simulated).
4. The embedded SmolLM2-135M as extractor on the hand-written traces' text: the share of replies that give a
   valid tree and walk (full run only; quick skips it).
"""

from __future__ import annotations

import json
import random
import statistics
import time
from importlib import resources
from pathlib import Path
from typing import Any

from paperworks.backends.rejump import tasks
from paperworks.backends.rejump.bestofn import selection_accuracy
from paperworks.backends.rejump.extract import Completion, ExtractionError, extract, scripted_completion
from paperworks.backends.rejump.metrics import Judge, compute_metrics, walk_similarity
from paperworks.backends.rejump.plots import draw_rejump, plot_best_of_n, plot_distributions
from paperworks.backends.rejump.simulate import STYLES, Candidate, random_style, simulate24
from paperworks.backends.repro import Figure, Progress, ReproResult

SEED = 0


def load_traces() -> list[dict[str, Any]]:
    """The hand-written traces shipped with the backend."""
    text = resources.files("paperworks.backends.rejump").joinpath("data/traces.json").read_text(encoding="utf-8")
    return list(json.loads(text)["traces"])


def judge_for(item: dict[str, Any]) -> Judge:
    """The checker of a hand-written trace's task."""
    if item["task"] == "game24":
        return tasks.judge_game24(item["numbers"])
    if item["task"] == "sudoku":
        puzzle = tasks.parse_grid(item["puzzle"])
        assert puzzle is not None
        return tasks.judge_sudoku(puzzle)
    return tasks.judge_answer(item["answer"])


def scripted_extractor(items: list[dict[str, Any]]) -> Completion:
    """Replays each trace's hand-written tree and walk as fenced JSON replies."""
    return scripted_completion({it["trace"]: (f"```json\n{json.dumps(it['tree'])}\n```",
                                              f"Here is the walk:\n{json.dumps(it['walk'])}") for it in items})


def _mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else float("nan")


def run(out: Path, quick: bool, scale: str, progress: Progress) -> ReproResult:
    """The experiment (see the module docstring)."""
    n_styles, n_bon, ns = (20, 80, [2, 4]) if quick else (100, 400, [2, 4, 8])
    res = ReproResult(name="rejump", config={"seed": SEED, "style_problems": n_styles, "bon_problems": n_bon,
                                             "bon_ns": ns, "styles": {k: vars(v) for k, v in STYLES.items()}})
    out.mkdir(parents=True, exist_ok=True)
    _handwritten(res, out, progress)
    _styles(res, out, n_styles, progress)
    _best_of_n(res, out, n_bon, ns, progress)
    if quick:
        res.figures["embedded_extraction_validity"] = Figure(None, note="skipped in --quick (loads the model)")
    else:
        _embedded(res, progress)
    return res


def _handwritten(res: ReproResult, out: Path, progress: Progress) -> None:
    progress("hand-written traces through the scripted extractor")
    items = load_traces()
    complete = scripted_extractor(items)
    table = {}
    for it in items:
        ext = extract(it["problem"], it["trace"], complete, task=it["task"])
        m = compute_metrics(ext.rejump, judge_for(it))
        table[it["id"]] = {"style": it["style"], **m.to_dict()}
        name = f"tree_{it['id']}.png"
        draw_rejump(ext.rejump, out / name, f"{it['id']} ({it['style']}): jump distance {m.jump_distance:.2f}")
        res.plots.append(name)
    res.extra["handwritten"] = table
    ex, lin = table["g24-explorer"], table["g24-linear"]
    res.figures["handwritten_jump_distance_explorer_vs_linear"] = Figure(
        f"{ex['jump_distance']:.2f} vs {lin['jump_distance']:.2f}",
        paper="exploration shows as far jumps between solutions; a linear trace has none",
        note="same Game-of-24 problem and the same correct answer; hand-written trees via the scripted extractor")
    ov = table["g24-overthinker"]
    res.figures["handwritten_overthinking"] = Figure(
        round(ov["overthinking"], 4), paper="overthinking = leaves visited after the first correct one / leaves",
        note=f"g24-overthinker: filtered leaves {ov['filtered_leaves']} (a repeat reached only by verification "
             f"is dropped); success rate {ov['success_rate']:.2f}")
    res.figures["handwritten_forgetting"] = Figure(
        f"{table['math-forgetful']['forgetting']} vs {table['math-verifier']['forgetting']}",
        paper="forgetting = 1 when calculation steps >= nodes",
        note="math-forgetful (re-derives the same steps) vs math-verifier")


def _styles(res: ReproResult, out: Path, n: int, progress: Progress) -> None:
    progress(f"style distributions on {n} Game-of-24 problems")
    problems = tasks.make_game24(n, seed=SEED + 1)
    values: dict[str, dict[str, list[float]]] = {k: {} for k in
                                                 ("jump distance", "solution count", "verification rate",
                                                  "overthinking", "accuracy")}
    walks: dict[str, list[Candidate]] = {}
    for name, style in STYLES.items():
        rng = random.Random(f"{SEED}-{name}")
        cands = [simulate24(p, style, rng) for p in problems]
        walks[name] = cands
        ms = [compute_metrics(c.rejump, tasks.judge_game24(p)) for c, p in zip(cands, problems, strict=True)]
        values["jump distance"][name] = [m.jump_distance or 0.0 for m in ms]
        values["solution count"][name] = [float(m.solution_count) for m in ms]
        values["verification rate"][name] = [m.verification_rate for m in ms]
        values["overthinking"][name] = [m.overthinking or 0.0 for m in ms]
        values["accuracy"][name] = [float(c.correct) for c in cands]
    plot_distributions(values, out / "style_metrics.png", f"ReJump metrics of simulated Game-of-24 searchers "
                                                          f"({n} problems each)")
    res.plots.append("style_metrics.png")
    summary = {s: {k: round(_mean(v[s]), 4) for k, v in values.items()} for s in STYLES}
    res.extra["styles"] = summary
    for s, row in summary.items():
        res.figures[f"style[{s}]"] = Figure(
            f"acc {row['accuracy']:.2f}, jump {row['jump distance']:.2f}, leaves {row['solution count']:.2f}, "
            f"verif {row['verification rate']:.2f}, overthink {row['overthinking']:.2f}",
            note="means over the problems; the searcher's moves are the walk (no extraction)")
    a, b = "explorer (restarts)", "overthinker"
    same = _mean([walk_similarity(x.rejump, y.rejump) for x, y in zip(walks[a], walks[a][1:], strict=False)])
    cross = _mean([walk_similarity(x.rejump, y.rejump) for x, y in zip(walks[a], walks[b], strict=True)])
    res.figures["walk_similarity_within_vs_across"] = Figure(
        f"{same:.3f} vs {cross:.3f}",
        paper="models with similar accuracy reason differently (walk similarity separates them)",
        note=f"'{a}' (accuracy {summary[a]['accuracy']:.2f}) against itself on neighbouring problems vs against "
             f"'{b}' (accuracy {summary[b]['accuracy']:.2f}) on the same problems")


def _best_of_n(res: ReproResult, out: Path, n: int, ns: list[int], progress: Progress) -> None:
    progress(f"Best-of-N by jump distance on {n} problems")
    problems = tasks.make_game24(n, seed=SEED + 2)
    rng = random.Random(SEED + 3)
    pools = [[simulate24(p, random_style(rng), rng) for _ in range(max(ns))] for p in problems]
    jumps = {id(c): compute_metrics(c.rejump).jump_distance for pool in pools for c in pool}
    curves: dict[str, list[float]] = {"largest jump distance": [], "random (expected)": [],
                                      "smallest jump distance": []}
    for k in ns:
        groups = [pool[:k] for pool in pools]
        best, rand = selection_accuracy(groups, lambda c: c.correct, lambda c: jumps[id(c)])
        worst, _ = selection_accuracy(groups, lambda c: c.correct, lambda c: -(jumps[id(c)] or 0.0))
        curves["largest jump distance"].append(best)
        curves["random (expected)"].append(rand)
        curves["smallest jump distance"].append(worst)
    plot_best_of_n(ns, curves, out / "best_of_n.png", f"Best-of-N on {n} Game-of-24 problems (simulated traces)")
    res.plots.append("best_of_n.png")
    res.extra["best_of_n"] = {"ns": ns, **curves}
    k = ns.index(4)
    res.figures["best_of_4_jump_distance_vs_random"] = Figure(
        f"{curves['largest jump distance'][k]:.3f} vs {curves['random (expected)'][k]:.3f}",
        paper="0.838 vs 0.800 mean accuracy (Best-of-N by largest jump distance vs random)",
        note=f"N=4 simulated searchers per problem (restart, budget, verification and skill drawn at random), "
             f"{n} problems; smallest jump distance gives {curves['smallest jump distance'][k]:.3f}. "
             "A searcher that succeeds early stops with few, near leaves, so here the selection "
             + ("helps" if curves['largest jump distance'][k] > curves['random (expected)'][k] else
                "does not help: the paper's effect is not reproduced on these simulated traces"))


def _embedded(res: ReproResult, progress: Progress) -> None:
    progress("embedded SmolLM2-135M as extractor")
    try:
        from paperworks.models.local import get_engine

        engine = get_engine("smollm2-135m")
    except Exception as exc:  # missing weights or engine: report, do not fail the repro
        res.figures["embedded_extraction_validity"] = Figure(None, note=f"skipped: {exc}")
        return

    from paperworks.backends.rejump.extract import WALK_PROMPT

    def completion(forced: bool) -> Completion:
        def complete(messages: list[dict[str, str]]) -> str:
            walk = messages[-1]["content"].startswith(WALK_PROMPT[:40])
            prefix = ('[{"from": "node1", "to": "' if walk else '{"node1": {"Problem": "') if forced else ""
            return str(engine.generate(messages, max_tokens=300, temperature=0.0, prefix=prefix).text)

        return complete

    items = load_traces()
    rates = {}
    for forced in (False, True):
        label = "json_prefix" if forced else "plain"
        outcomes = []
        start = time.monotonic()
        complete = completion(forced)
        for it in items:
            progress(f"embedded extractor ({label}): {it['id']}")
            try:
                extract(it["problem"], it["trace"], complete, task=it["task"])
                outcomes.append({"id": it["id"], "valid": True})
            except ExtractionError as exc:
                outcomes.append({"id": it["id"], "valid": False, "error": str(exc)})
            except Exception as exc:  # a model failure (context too long, engine error) counts as invalid
                outcomes.append({"id": it["id"], "valid": False, "error": f"model error: {exc}"})
        ok = sum(o["valid"] for o in outcomes)
        rates[label] = ok / len(items)
        res.extra[f"embedded_extraction[{label}]"] = outcomes
        res.figures[f"embedded_extraction_validity[{label}]"] = Figure(
            round(ok / len(items), 4), paper="(the paper extracts with Gemini-2.5-Pro; no validity rate given)",
            note=f"{ok}/{len(items)} hand-written traces gave a valid tree and walk from SmolLM2-135M (greedy, 300 "
                 f"tokens a stage, {time.monotonic() - start:.0f} s"
                 + ("; each reply forced to begin with the JSON's first key" if forced else "")
                 + "); errors in extra")
    res.figures["embedded_extraction_validity"] = Figure(
        round(max(rates.values()), 4), note="the better of the plain and JSON-prefixed prompting, as measured")
