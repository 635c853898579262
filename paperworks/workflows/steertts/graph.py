"""``steertts``: AgentSteerTTS - closed-loop control of expressive speech from a composite instruction.

    START → prepare → parse_intent → retrieve → synthesize → render ─(in tolerance / budget spent)→ supervise
                                        ↑                        ↑  └─(else)→ correct ─┘
                                        └── replan ←─(disagree, re-plans left)── supervise
    supervise ─(agree, or no re-plan left)→ render_ladder → finish → END

- ``prepare``: the prototype library, surrogate and fusion module (``backends.steertts.resources``; built on
  first use and cached), and the neutral reading of the text by the voice (the reference of every measurement).
- ``parse_intent`` (model): instruction → emotions with weights, intensity, modifiers. A reply that cannot
  be read, or that contradicts what the keyword table reads in the instruction (none of its emotions, another
  stated percentage), falls back to the keyword table (recorded in ``parse``); when neither reads it, one
  clear error.
- ``retrieve`` (Retrieval Agent): nearest prototypes per intent component, pruned by perceptual distance.
- ``synthesize`` (Synthesis Agent): gated-attention fusion of the anchors into a control vector.
- ``render`` → ``correct`` (Fast Control Agent): render, measure against the neutral reading, and correct the
  control latent by gradient steps through the surrogate, until the measured expression is within tolerance
  or ``fast_budget`` renders of this plan are spent.
- ``supervise`` (Supervisor, model; ``supervisor: rules`` or an unreadable reply → the rule critique): reads the
  measured profile against the plan; on disagreement ``replan`` takes its corrected decomposition (or the
  rules' acoustic aim) and retrieval starts again, at most ``max_replans`` times.
- ``render_ladder`` (``ladder: true``): the same intent at 30/60/100% (for the monotonicity scorer).
- ``finish``: the best render (smallest control error against the final plan), report.json and an F0 plot.

Every render is a wav in the run's artifacts (``renders/``); state holds their paths and measured profiles.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any, TypedDict

import numpy as np

from paperworks.agents.steertts import parse, prompts
from paperworks.core.errors import UserError
from paperworks.workflows.context import RunContext
from paperworks.workflows.registry import WorkflowSpec
from paperworks.workflows.steertts.config import SteerConfig, SteerInput
from paperworks.workflows.steertts.score import SCORERS


class SteerState(TypedDict, total=False):
    text: str
    instruction: str
    voice: str
    neutral: dict[str, Any]
    intent: dict[str, Any]
    parse: dict[str, Any]
    aim: list[float] | None
    plan: int
    anchors: list[dict[str, Any]]
    retrieval: list[dict[str, Any]]
    control: list[float]
    correction: dict[str, float]
    fast_iter: int
    renders: list[dict[str, Any]]
    supervision: list[dict[str, Any]]
    verdict: dict[str, Any]
    ladder: list[dict[str, Any]]
    history: list[dict[str, Any]]
    best: dict[str, Any]
    status: str


def _gen(ctx: RunContext, cfg: SteerConfig) -> dict[str, Any]:
    return {"seed": ctx.seed, "temperature": 0, "max_tokens": cfg.max_tokens, **ctx.generation}


def _clip(text: str, n: int = 300) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


def _nan(values: list[Any] | None) -> np.ndarray | None:
    return None if values is None else np.array([math.nan if v is None else v for v in values], dtype=np.float32)


def build_graph(config: SteerConfig | None = None) -> Any:
    """The uncompiled AgentSteerTTS graph."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime

    from paperworks.backends.steertts import cues
    from paperworks.backends.steertts.critic import critique, residual_aim
    from paperworks.backends.steertts.loop import FastLoopConfig, within_tolerance
    from paperworks.backends.steertts.resources import get_resources
    from paperworks.tools.speech.intent import parse_intent as keyword_intent
    from paperworks.workflows.steertts import steps as steps

    cfg = config or SteerConfig.model_validate({})
    fast = FastLoopConfig(budget=cfg.fast_budget, tolerance_jnd=cfg.tolerance_jnd,
                          intensity_tolerance=cfg.intensity_tolerance)

    def intent_of(state: SteerState) -> Any:
        return cues.intent_from_dict(state["intent"])

    async def prepare(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        store = steps.store_of(runtime.context.artifacts)
        neutral = await asyncio.to_thread(steps.prepare, state["text"], state["voice"], cfg.library, store)
        return {"neutral": neutral, "plan": 0, "renders": [], "supervision": [], "history": [], "aim": None}

    async def parse_intent(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        instruction = state["instruction"]
        record: dict[str, Any] = {"source": "keyword", "model_error": None, "reply": None}
        intent = None
        if cfg.parser == "model":
            reply = (await runtime.context.get_model().generate(prompts.intent_messages(instruction),
                                                                 **_gen(runtime.context, cfg))).text
            intent, error = parse.parse_intent_reply(reply)
            if intent is not None and (error := parse.check_against_keywords(intent, instruction)):
                intent = None
            record.update(source="model" if intent else "keyword_fallback", model_error=error, reply=_clip(reply))
        if intent is None:
            try:
                intent = keyword_intent(instruction)
            except UserError as exc:
                why = f"the model's reply could not be read ({record['model_error']}) and " \
                    if record["model_error"] else ""
                raise UserError(f"instruction '{_clip(instruction, 80)}': {why}{exc}") from None
        entry = {"step": "parse", **record, "intent": cues.intent_to_dict(intent)}
        return {"intent": cues.intent_to_dict(intent), "parse": record, "history": [*state.get("history", []), entry]}

    async def retrieve(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        res = get_resources(cfg.library)
        plan = await asyncio.to_thread(steps.anchor_plan, res, intent_of(state), state["voice"], _nan(state.get("aim")),
                                       cfg.anchors, state["neutral"]["context"])
        return {"anchors": plan["anchors"], "retrieval": plan["retrieval"], "control": plan["unit"],
                "correction": {"gate_mean": round(float(np.mean(plan["gate"])), 4)}}

    def synthesize(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        # the fused control was computed with the anchors (one fusion call); this node records the plan start
        entry = {"step": "synthesize", "plan": state.get("plan", 0), "anchors": len(state.get("anchors", [])),
                 "control": state["control"]}
        return {"fast_iter": 0, "history": [*state.get("history", []), entry]}

    async def render(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        store = steps.store_of(runtime.context.artifacts)
        n = state.get("fast_iter", 0) + 1
        name = f"plan{state.get('plan', 0)}_r{n}"
        entry = await asyncio.to_thread(steps.render_one, state["text"], state["voice"], state["control"],
                                        state["neutral"]["features"], name, store)
        entry = steps.score_render(entry, cues.target_profile(intent_of(state)))
        entry.update(plan=state.get("plan", 0), iteration=n, correction=state.get("correction", {}))
        return {"renders": [*state.get("renders", []), entry], "fast_iter": n,
                "history": [*state.get("history", []), {"step": "render", "name": name, "error": entry["error"],
                                                         "ratio": entry["ratio"]}]}

    async def correct(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        res = get_resources(cfg.library)
        unit, info = await asyncio.to_thread(steps.next_control, res, state["neutral"]["context"], state["renders"],
                                             intent_of(state), _nan(state.get("aim")), fast)
        return {"control": unit, "correction": info}

    async def supervise(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        intent = intent_of(state)
        target = cues.target_profile(intent)
        best = min(state["renders"], key=lambda r: r["error"] if r["error"] is not None else math.inf)
        measured = _nan(best["measured"])
        assert measured is not None
        rules = critique(intent, target, measured, state["instruction"], cfg.tolerance_jnd, cfg.intensity_tolerance)
        verdict: dict[str, Any] = {"plan": state.get("plan", 0), "source": "rules", "agree": rules.agree,
                                   "critique": "; ".join(rules.reasons), "intent": None, "model_error": None,
                                   "aim": None if rules.aim is None else [None if math.isnan(x) else round(float(x), 4)
                                                                          for x in rules.aim]}
        if rules.intent is not None:
            verdict["intent"] = cues.intent_to_dict(rules.intent)
        if cfg.supervisor == "model":
            err, ratio = cues.control_error(measured, target), cues.intensity_ratio(measured, target)
            messages = prompts.supervisor_messages(state["instruction"], intent, cues.describe(measured, target),
                                                   rules.perceived, err if math.isfinite(err) else 0.0,
                                                   ratio if math.isfinite(ratio) else 1.0)
            reply = (await runtime.context.get_model().generate(messages, **_gen(runtime.context, cfg))).text
            read, error = parse.parse_verdict(reply)
            if read is None:
                verdict.update(source="rules_fallback", model_error=error, reply=_clip(reply))
            else:
                aim = verdict["aim"] or [None if math.isnan(x) else round(float(x), 4)
                                         for x in residual_aim(target, measured)]
                verdict.update(source="model", agree=read.agree, critique=read.critique or verdict["critique"],
                               reply=_clip(reply), aim=None if read.agree else aim,
                               intent=cues.intent_to_dict(read.intent) if read.intent else verdict["intent"])
        return {"verdict": verdict, "supervision": [*state.get("supervision", []), verdict],
                "history": [*state.get("history", []), {"step": "supervise", **verdict}]}

    def replan(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        verdict = state["verdict"]
        new_intent = verdict.get("intent") or state["intent"]
        aim = verdict.get("aim") if not verdict.get("intent") else None
        return {"intent": new_intent, "aim": aim, "plan": state.get("plan", 0) + 1,
                "history": [*state.get("history", []), {"step": "replan", "plan": state.get("plan", 0) + 1,
                                                         "intent": new_intent, "aimed": aim is not None}]}

    async def render_ladder(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        if not cfg.ladder:
            return {"ladder": []}
        res = get_resources(cfg.library)
        best = _best(state)
        rungs = await asyncio.to_thread(steps.ladder, res, state["text"], state["voice"], intent_of(state),
                                        state["neutral"], best, (0.3, 0.6, 1.0), cfg.ladder_budget, cfg.anchors,
                                        fast, steps.store_of(runtime.context.artifacts))
        return {"ladder": rungs}

    def finish(state: SteerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        best = _best(state)
        met = within_tolerance(_nan(best["measured"]), cues.target_profile(intent_of(state)), fast)  # type: ignore[arg-type]
        status = "within_tolerance" if met else "budget_spent"
        store = runtime.context.artifacts
        if store is not None:
            report = output({**state, "best": best, "status": status})
            store.write_text("report.json", json.dumps(report, indent=2, default=str))
            try:
                from paperworks.tools.speech import f0_plot, read_wav

                f0_plot(read_wav(best["wav"]), read_wav(state["neutral"]["wav"]), store.resolve("f0.png"),
                        title=f"{state['instruction']} - {state['voice']}")
            except Exception:  # a plot is a convenience; never fail the run for it  # noqa: BLE001
                pass
        return {"best": best, "status": status}

    def after_render(state: SteerState) -> str:
        last = state["renders"][-1]
        measured = _nan(last["measured"])
        assert measured is not None
        if within_tolerance(measured, cues.target_profile(intent_of(state)), fast) or \
                state.get("fast_iter", 0) >= cfg.fast_budget:
            return "supervise" if state.get("plan", 0) < cfg.max_replans else "render_ladder"
        return "correct"

    def after_supervise(state: SteerState) -> str:
        verdict = state.get("verdict") or {}
        return "render_ladder" if verdict.get("agree") or state.get("plan", 0) >= cfg.max_replans else "replan"

    graph = StateGraph(SteerState, context_schema=RunContext)
    for name, fn in [("prepare", prepare), ("parse_intent", parse_intent), ("retrieve", retrieve),
                     ("synthesize", synthesize), ("render", render), ("correct", correct), ("supervise", supervise),
                     ("replan", replan), ("render_ladder", render_ladder), ("finish", finish)]:
        graph.add_node(name, fn)
    graph.add_edge(START, "prepare")
    graph.add_edge("prepare", "parse_intent")
    graph.add_edge("parse_intent", "retrieve")
    graph.add_edge("retrieve", "synthesize")
    graph.add_edge("synthesize", "render")
    graph.add_conditional_edges("render", after_render, ["correct", "supervise", "render_ladder"])
    graph.add_edge("correct", "render")
    graph.add_conditional_edges("supervise", after_supervise, ["replan", "render_ladder"])
    graph.add_edge("replan", "retrieve")
    graph.add_edge("render_ladder", "finish")
    graph.add_edge("finish", END)
    return graph


def _best(state: Any) -> dict[str, Any]:
    """The render with the smallest control error against the final plan's target (re-scored)."""
    from paperworks.backends.steertts import cues
    from paperworks.workflows.steertts.steps import score_render

    target = cues.target_profile(cues.intent_from_dict(state["intent"]))
    scored = [score_render(r, target) for r in state.get("renders", [])]
    return min(scored, key=lambda r: r["error"] if r["error"] is not None else math.inf)


_RENDER_KEYS = ("name", "wav", "plan", "iteration", "error", "ratio", "control", "correction")


def make_state(inp: SteerInput) -> dict[str, Any]:
    """Initial state for an input."""
    return {"text": inp.text, "instruction": inp.instruction, "voice": inp.voice}


def output(state: dict[str, Any]) -> dict[str, Any]:
    """The best render's wav, control vector and measurements, and the loops' history."""
    best = state.get("best") or (_best(state) if state.get("renders") else {})
    from paperworks.backends.steertts import cues

    measured = best.get("measured")
    return {
        "wav": best.get("wav", ""), "control": best.get("control", {}),
        "measured": None if measured is None else dict(zip(cues.PROFILE_DIMS, measured, strict=True)),
        "features": best.get("features", {}), "error_jnd": best.get("error"), "intensity_ratio": best.get("ratio"),
        "intent": state.get("intent"), "parse": state.get("parse"), "neutral_wav": state.get("neutral", {}).get("wav"),
        "anchors": state.get("anchors", []), "retrieval": state.get("retrieval", []),
        "renders": [{k: r.get(k) for k in _RENDER_KEYS} for r in state.get("renders", [])],
        "supervision": state.get("supervision", []), "ladder": state.get("ladder", []),
        "history": state.get("history", []), "status": state.get("status", ""),
        "answer": best.get("wav", ""),
    }


SPEC = WorkflowSpec(
    name="steertts",
    description="AgentSteerTTS: composite emotional instructions -> speech, closed-loop on the measured audio.",
    build_graph=build_graph,
    input_model=SteerInput,
    config_model=SteerConfig,
    make_state=make_state,
    output=output,
    status=lambda state: "succeeded",
    scorers=SCORERS,
)
