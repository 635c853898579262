"""``dfps``: D-FPS (formal problem solving in Lean 4 by forward derivation and backward verification).

    START → setup → derive → check_forward ─(steps accepted, answer submitted)→ verify → check_backward → finish
                       ↑          ├─(a step failed, repairs left)→ repair ─→ check_forward
                       │          └─(attempt failed, samples left)→ derive (a new sample)
                       └──────────────────────────────────────────────────────────────────
    check_backward ─(failed, tries left)→ verify;  otherwise → finish → END

Forward derivation: the model writes ``have`` steps from the hypotheses toward the answer (hybrid CoT,
the paper's 10 in-context demonstrations); Lean checks them one at a time from the problem's goal state
and the first error goes back to the model (bounded repairs); the proof ends by proving
``answer = <term>``, and that term is the submission. Backward verification: the model proves that the
submitted answer satisfies the problem's conclusion, checked in Lean, with bounded repair. RPE (answer
equivalence) is not done here but by the ``rpe`` scorer, in a Lean process of its own, against the
reference answer the workflow never sees.

Without a Lean toolchain (``paperworks lean info``) the workflow still derives and submits an answer,
with every step marked unchecked and no backward verification; the suites then score the answer with
the ``symbolic_answer`` scorer ("symbolic, not Lean-verified"). ``fps`` is the single-shot baseline:
the answer and the whole proof in one reply.
"""

from __future__ import annotations

import asyncio
import json
import operator
import uuid
from typing import Annotated, Any, TypedDict

from pydantic import BaseModel, Field

from paperworks.agents.dfps import parse, prompts
from paperworks.tools.lean.text import split_steps
from paperworks.workflows.context import RunContext
from paperworks.workflows.dfps import lean as dfps_lean
from paperworks.workflows.dfps.score import SCORERS
from paperworks.workflows.registry import WorkflowSpec


class Binder(BaseModel):
    """One Lean binder of the problem: ``(name : t)``, or ``(name : t := v)``."""

    t: str = Field(min_length=1, description="The binder's type (a Lean term).")
    v: str | None = Field(None, description="Its value, for a let binder.")
    name: str | None = Field(None, description="Its name (None: anonymous).")


class DfpsInput(BaseModel):
    """An FPS problem: find ``answer : formal_answer_type`` with ``∀ intros, ∃ answer, outros``."""

    informal_problem: str = Field(min_length=1, description="The problem in words (LaTeX allowed).")
    formal_answer_type: str = Field(min_length=1, description="Lean type of the answer, e.g. ℝ or ℕ → ℕ.")
    intros: list[Binder] = Field(default_factory=list, description="Binders before the answer.")
    outros: list[Binder] = Field(min_length=1, description="Binders after it; the last is the conclusion.")
    header: str | None = Field(None, description="Lean header lines (opens); default the FPS one.")


class DfpsConfig(BaseModel):
    """Settings of ``dfps`` and ``fps`` (defaults: the paper's sampling settings)."""

    samples: int = Field(16, ge=1, le=256, description="Forward attempts per problem (paper: 16); without "
                         "Lean the first attempt that submits an answer is kept, since none can be checked.")
    samples_without_lean: int = Field(2, ge=1, le=256, description="Attempts without Lean (until one "
                                      "submits an answer).")
    temperature: float = Field(1.0, ge=0, le=2, description="Sampling temperature (paper: 1.0).")
    top_p: float = Field(0.95, gt=0, le=1, description="Nucleus sampling (paper: 0.95).")
    max_repairs: int = Field(2, ge=0, le=20, description="Repairs of a rejected forward step per attempt.")
    backward_tries: int = Field(3, ge=0, le=20, description="Backward proofs tried (0: no backward step).")
    demonstrations: int = Field(10, ge=0, le=10, description="In-context demonstrations (paper: 10).")
    prompt_chars: int = Field(12000, ge=1000, description="Prompt budget in characters; demonstrations "
                              "that do not fit are left out (the count used is recorded).")
    banned: list[str] = Field(default_factory=lambda: list(dfps_lean.BANNED),
                              description="Tokens that make a proof invalid (sorry, admit, apply?, rw?, ...).")
    lean: str = Field("auto", pattern="^(auto|on|off)$",
                      description="auto: use Lean where found; on: require it; off: never.")
    tactic_timeout_s: float = Field(60, gt=0, description="Seconds one Lean step may take.")
    problem_timeout_s: float = Field(600, gt=0, description="Lean seconds per problem, all steps together.")


class DfpsState(TypedDict, total=False):
    problem: dict[str, Any]
    lean: bool
    context: str
    n_demos: int
    attempt: int
    repairs: int
    proof: str
    accepted: int
    feedback: str
    forward_ok: bool | None
    submission: str | None
    backward_goal: str
    backward_proof: str
    backward_tries: int
    backward_ok: bool | None
    history: Annotated[list[dict[str, Any]], operator.add]
    status: str


def _gen(ctx: RunContext, cfg: DfpsConfig) -> dict[str, Any]:
    return {"seed": ctx.seed, "max_tokens": 2048, "temperature": cfg.temperature, "top_p": cfg.top_p,
            **ctx.generation}


async def _ask(ctx: RunContext, cfg: DfpsConfig, messages: list[dict[str, Any]], attempt: int) -> str:
    gen = _gen(ctx, cfg)
    gen["seed"] = int(gen.get("seed") or 0) + attempt  # each sample its own seed, reproducibly
    return (await ctx.get_model().generate(messages, stream=ctx.stream, **gen)).text


def _banned_in(text: str, banned: list[str]) -> str | None:
    return dfps_lean.banned_token(text, banned)


def build_graph(config: DfpsConfig | None = None) -> Any:
    """The uncompiled D-FPS graph."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime

    cfg = config or DfpsConfig.model_validate({})

    async def setup(state: DfpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        problem = {**state["problem"], "label": f"dfps-{uuid.uuid4().hex[:12]}"}  # this thread's Lean budget
        use_lean = dfps_lean.use_lean(cfg.lean)
        context = (await asyncio.to_thread(dfps_lean.forward_context, problem, cfg) if use_lean else
                   dfps_lean.context_without_lean(problem))
        return {"problem": problem, "lean": use_lean, "context": context, "attempt": 0, "history": [
            {"phase": "setup", "lean": use_lean, "context": context}]}

    async def derive(state: DfpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        problem = state["problem"]
        messages, n_demos = prompts.forward_messages(problem["informal_problem"], state["context"],
                                                     n_demos=cfg.demonstrations, budget_chars=cfg.prompt_chars)
        attempt = state.get("attempt", 0) + 1
        reply = await _ask(runtime.context, cfg, messages, attempt)
        return {"proof": parse.extract_code(reply), "attempt": attempt, "repairs": 0, "n_demos": n_demos,
                "accepted": 0, "feedback": ""}

    async def check_forward(state: DfpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        proof = state.get("proof", "")
        submission = parse.submission_from_proof(proof)
        banned = _banned_in(proof, cfg.banned)
        entry: dict[str, Any] = {"phase": "forward", "attempt": state.get("attempt", 0),
                                 "repair": state.get("repairs", 0), "submission": submission}
        if banned:
            entry.update(ok=False, error=f"banned token '{banned}' in the proof")
            return {"forward_ok": False, "feedback": entry["error"], "submission": None, "accepted": 0,
                    "history": [entry]}
        if not state.get("lean"):
            entry.update(ok=None, checked=False, steps=len(split_steps(proof)))
            return {"forward_ok": None, "submission": submission, "feedback": "", "history": [entry]}
        check = await asyncio.to_thread(dfps_lean.check_forward, state["problem"], proof, cfg)
        entry.update(ok=check.ok, accepted=check.accepted, steps=check.steps, error=check.error)
        if check.submission is not None:
            submission = check.submission  # Lean's own reading of the assigned goal wins over the text's
        return {"forward_ok": check.ok, "accepted": check.accepted, "feedback": check.error or "",
                "submission": submission if check.ok else None, "history": [entry]}

    async def repair(state: DfpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        problem = state["problem"]
        messages = prompts.repair_messages(problem["informal_problem"], state["context"], state.get("proof", ""),
                                           state.get("feedback", ""))
        reply = await _ask(runtime.context, cfg, messages, 1000 * state.get("attempt", 0) + state.get("repairs", 0))
        return {"proof": parse.extract_code(reply), "repairs": state.get("repairs", 0) + 1}

    async def verify(state: DfpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        problem, submission = state["problem"], str(state.get("submission"))
        goal = str(state.get("backward_goal") or await asyncio.to_thread(dfps_lean.backward_goal, problem,
                                                                         submission, cfg))
        tries = state.get("backward_tries", 0)
        messages = prompts.backward_messages(problem["informal_problem"], goal, submission,
                                             state.get("feedback") if tries else None,
                                             state.get("backward_proof") if tries else None)
        reply = await _ask(runtime.context, cfg, messages, 5000 + tries)
        return {"backward_goal": goal, "backward_proof": parse.extract_code(reply), "backward_tries": tries + 1}

    async def check_backward(state: DfpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        proof = state.get("backward_proof", "")
        banned = _banned_in(proof, cfg.banned)
        ok: bool
        error: str | None
        if banned:
            ok, error = False, f"banned token '{banned}' in the proof"
        else:
            ok, error = await asyncio.to_thread(dfps_lean.check_backward, state["problem"],
                                                str(state.get("submission")), proof, cfg)
        return {"backward_ok": ok, "feedback": error or "", "history": [
            {"phase": "backward", "try": state.get("backward_tries", 0), "ok": ok, "error": error}]}

    def finish(state: DfpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        if state.get("submission") is None:
            status = "no_submission"
        elif not state.get("lean"):
            status = "submitted_unchecked"
        else:
            status = "verified" if state.get("backward_ok") else "submitted"
        store = runtime.context.artifacts
        if store is not None:
            store.write_text("solution.lean", dfps_lean.solution_text(state["problem"], state.get("proof", ""),
                                                                       state.get("backward_proof", "")))
            store.write_text("report.json", json.dumps(output({**state, "status": status}), indent=2, default=str))
        return {"status": status}

    def after_forward(state: DfpsState) -> str:
        if state.get("submission") is not None and state.get("forward_ok") is not False:
            return "verify" if state.get("lean") and cfg.backward_tries > 0 else "finish"
        if state.get("lean") and state.get("forward_ok") is False and state.get("repairs", 0) < cfg.max_repairs:
            return "repair"
        budget = cfg.samples if state.get("lean") else min(cfg.samples, cfg.samples_without_lean)
        return "derive" if state.get("attempt", 0) < budget else "finish"

    def after_backward(state: DfpsState) -> str:
        if state.get("backward_ok") or state.get("backward_tries", 0) >= cfg.backward_tries:
            return "finish"
        return "verify"

    graph = StateGraph(DfpsState, context_schema=RunContext)
    for name, fn in [("setup", setup), ("derive", derive), ("check_forward", check_forward), ("repair", repair),
                     ("verify", verify), ("check_backward", check_backward), ("finish", finish)]:
        graph.add_node(name, fn)
    graph.add_edge(START, "setup")
    graph.add_edge("setup", "derive")
    graph.add_edge("derive", "check_forward")
    graph.add_conditional_edges("check_forward", after_forward, ["verify", "repair", "derive", "finish"])
    graph.add_edge("repair", "check_forward")
    graph.add_edge("verify", "check_backward")
    graph.add_conditional_edges("check_backward", after_backward, ["verify", "finish"])
    graph.add_edge("finish", END)
    return graph


def make_state(inp: DfpsInput) -> dict[str, Any]:
    """Initial state for a problem."""
    return {"problem": inp.model_dump(), "attempt": 0, "history": []}


def output(state: dict[str, Any]) -> dict[str, Any]:
    """The submission and how far its checking went (``lean`` False: nothing was checked in Lean)."""
    submission = state.get("submission")
    return {
        "submission": submission or "", "lean": bool(state.get("lean")),
        "forward_ok": state.get("forward_ok"), "backward_ok": state.get("backward_ok"),
        "forward_proof": state.get("proof", ""), "backward_proof": state.get("backward_proof", ""),
        "attempts": state.get("attempt", 0), "repairs": state.get("repairs", 0),
        "backward_tries": state.get("backward_tries", 0), "demonstrations": state.get("n_demos", 0),
        "status": state.get("status", ""),
        "answer": submission or "",
    }


SPEC = WorkflowSpec(
    name="dfps",
    description="D-FPS: formal problem solving in Lean 4 - forward derivation, backward verification, RPE.",
    build_graph=build_graph,
    input_model=DfpsInput,
    config_model=DfpsConfig,
    make_state=make_state,
    output=output,
    status=lambda state: "succeeded",
    scorers=SCORERS,
)
