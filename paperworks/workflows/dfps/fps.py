"""``fps``: the plain formal-problem-solving baseline — one reply gives the answer and the whole proof.

    START → setup → solve → check ─(proof accepted, or no samples left)→ finish → END
                      ↑        └─(rejected, samples left)──┘

The model states ``Answer: <Lean term>`` and a tactic proof of the problem with that answer; Lean checks
the proof (in the workflow's own Lean process; the ``rpe`` scorer judges the answer in another).
Without Lean the answer is submitted unchecked. Settings and input are ``dfps``'s.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any, TypedDict

from paperworks.agents.dfps import parse, prompts
from paperworks.workflows.context import RunContext
from paperworks.workflows.dfps import lean as dfps_lean
from paperworks.workflows.dfps.graph import DfpsConfig, DfpsInput, _ask
from paperworks.workflows.dfps.score import SCORERS
from paperworks.workflows.registry import WorkflowSpec


class FpsState(TypedDict, total=False):
    problem: dict[str, Any]
    lean: bool
    attempt: int
    reply: str
    proof: str
    submission: str | None
    proof_ok: bool | None
    error: str
    history: list[dict[str, Any]]
    status: str


def build_graph(config: DfpsConfig | None = None) -> Any:
    """The uncompiled single-shot FPS graph."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime

    cfg = config or DfpsConfig.model_validate({})

    def setup(state: FpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        problem = {**state["problem"], "label": f"fps-{uuid.uuid4().hex[:12]}"}  # this thread's Lean budget
        return {"problem": problem, "lean": dfps_lean.use_lean(cfg.lean), "attempt": 0, "history": []}

    async def solve(state: FpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        p = state["problem"]
        goal = dfps_lean.backward_display(p)
        attempt = state.get("attempt", 0) + 1
        reply = await _ask(runtime.context, cfg, prompts.single_shot_messages(p["informal_problem"], goal), attempt)
        return {"reply": reply, "attempt": attempt, "proof": parse.extract_code(reply),
                "submission": parse.submission_from_answer_line(reply)}

    async def check(state: FpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        submission, proof = state.get("submission"), state.get("proof", "")
        entry: dict[str, Any] = {"attempt": state.get("attempt"), "submission": submission}
        banned = dfps_lean.banned_token(proof, cfg.banned) or dfps_lean.banned_token(submission or "", cfg.banned)
        if submission is None:
            ok, error = False, "no 'Answer:' line in the reply"
        elif banned:
            ok, error = False, f"banned token '{banned}' in the proof"
        elif not state.get("lean"):
            ok, error = None, None
        else:
            ok, error = await asyncio.to_thread(dfps_lean.check_backward, state["problem"], submission, proof, cfg)
        entry.update(ok=ok, error=error)
        return {"proof_ok": ok, "error": error or "", "history": [*state.get("history", []), entry]}

    def finish(state: FpsState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        if not state.get("submission"):
            status = "no_submission"
        elif not state.get("lean"):
            status = "submitted_unchecked"
        else:
            status = "verified" if state.get("proof_ok") else "submitted"
        store = runtime.context.artifacts
        if store is not None:
            store.write_text("report.json", json.dumps(output({**state, "status": status}), indent=2, default=str))
        return {"status": status}

    def route(state: FpsState) -> str:
        if state.get("proof_ok"):
            return "finish"
        if not state.get("lean") and state.get("submission"):
            return "finish"
        budget = cfg.samples if state.get("lean") else min(cfg.samples, cfg.samples_without_lean)
        return "solve" if state.get("attempt", 0) < budget else "finish"

    graph = StateGraph(FpsState, context_schema=RunContext)
    for name, fn in [("setup", setup), ("solve", solve), ("check", check), ("finish", finish)]:
        graph.add_node(name, fn)
    graph.add_edge(START, "setup")
    graph.add_edge("setup", "solve")
    graph.add_edge("solve", "check")
    graph.add_conditional_edges("check", route, ["solve", "finish"])
    graph.add_edge("finish", END)
    return graph


def make_state(inp: DfpsInput) -> dict[str, Any]:
    """Initial state for a problem."""
    return {"problem": inp.model_dump(), "attempt": 0, "history": []}


def output(state: dict[str, Any]) -> dict[str, Any]:
    """The submission, the proof and whether Lean accepted it (None: not checked, no Lean)."""
    submission = state.get("submission") or ""
    ok = state.get("proof_ok")
    return {"submission": submission, "lean": bool(state.get("lean")), "forward_ok": ok, "backward_ok": ok,
            "forward_proof": "", "backward_proof": state.get("proof", ""), "attempts": state.get("attempt", 0),
            "status": state.get("status", ""), "answer": submission}


SPEC = WorkflowSpec(
    name="fps",
    description="FPS baseline: the answer and the whole Lean proof in one reply (no forward/backward split).",
    build_graph=build_graph,
    input_model=DfpsInput,
    config_model=DfpsConfig,
    make_state=make_state,
    output=output,
    status=lambda state: "succeeded",
    scorers=SCORERS,
)
