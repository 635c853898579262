"""``ogmar``: OG-MAR, ontology-guided multi-agent reasoning about a survey respondent's values (issue 13),
and its baselines as the ``mode`` setting.

    START → prepare ─(ogmar)→ persona_agent × K (in parallel, LangGraph Send) → judge → finish → END
                    ├─(valuesrag, persona, zero_shot)→ answer_once → finish
                    └─(knn)→ knn_vote → finish            (no model call)

``prepare`` (deterministic, ``ogmar_context``): the question's item by its wording, the respondent's
visible value profile, topic classification (embedding ``TopicClassifier``, top ``topic_k`` domains),
triple retrieval (``TripleRetriever`` over the ``ontology`` setting, ``per_category`` per domain), and the
K most similar training respondents (Gower distance over demographics). Each persona agent is one
similar respondent's value profile (or its model-written summary) answering for the target in JSON
(persona id, chosen answer, reasoning, alignment factors); an unreadable reply is one error line and an
abstention. The judge applies the paper's order: evidence strength (rated by the judge model), then
vote count, then demographic relevance (``ogmar_judge``). Temperature 0 unless the suite says otherwise.

Output: the answer (one of the choices, or '' when nothing could be read and ``fallback=none``), the
votes, the persona answers, the triples used, the neighbours, and ``consistency``: whether the answer is
the one the retrieved triples favour (``triple_evidence`` over the respondent's visible scores; None
without such evidence).
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from pydantic import BaseModel, ConfigDict, Field, field_validator

from paperworks.agents.ogmar import parse, prompts
from paperworks.workflows.context import RunContext, base_dir
from paperworks.workflows.ogmar.data import OgmarConfig, preflight, resources
from paperworks.workflows.ogmar.judge import decide, triple_ratings
from paperworks.workflows.ogmar.score import SCORERS
from paperworks.workflows.registry import WorkflowSpec


class OgmarInput(BaseModel):
    """One survey question for one respondent (never their answer)."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not silently dropped

    question: str = Field(min_length=1, description="The item's wording.")
    choices: list[str] = Field(min_length=2, description="The answer choices (the item's first choice first).")
    respondent_id: str = Field("", description="The respondent's id (their visible answers come from the "
                               "'heldout' file).")
    demographics: dict[str, Any] = Field(default_factory=dict, description="The respondent's demographics.")

    @field_validator("choices")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len({c.strip().casefold() for c in value}) < len(value) or any(not c.strip() for c in value):
            raise ValueError("expected distinct, non-empty choices")
        return value


class OgmarState(TypedDict, total=False):
    question: str
    choices: list[str]
    respondent_id: str
    demographics: dict[str, Any]
    item: str | None
    class_id: str | None
    ontology: str
    target_text: str
    target_lines: list[str]
    visible_answers: int
    domains: list[str]
    triples: list[dict[str, Any]]
    favoured: str | None
    triple_evidence: float | None
    neighbours: list[dict[str, Any]]
    knn_answer: str | None
    persona: dict[str, Any]
    persona_answers: Annotated[list[dict[str, Any]], operator.add]
    errors: Annotated[list[str], operator.add]
    judge: dict[str, Any]
    answer: str
    decided_by: str
    consistency: bool | None


def _gen(ctx: RunContext, cfg: OgmarConfig) -> dict[str, Any]:
    gen = {"temperature": 0, "seed": ctx.seed, **ctx.generation}
    gen["max_tokens"] = min(cfg.max_tokens, int(gen.get("max_tokens") or cfg.max_tokens))
    return gen


async def _ask(ctx: RunContext, cfg: OgmarConfig, messages: list[dict[str, Any]], stream: bool = False) -> str:
    return (await ctx.get_model().generate(messages, stream=stream and ctx.stream, **_gen(ctx, cfg))).text


def build_graph(config: OgmarConfig | None = None) -> Any:
    """The uncompiled OG-MAR graph for these settings."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime
    from langgraph.types import Send

    cfg = config or OgmarConfig.model_validate({})

    async def prepare(state: OgmarState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        from paperworks.workflows.ogmar.context import gather

        base = base_dir(runtime.context.run_dir)
        res = await asyncio.to_thread(resources, cfg, base)
        return await asyncio.to_thread(gather, res, cfg, state["question"], list(state["choices"]),
                                       state.get("respondent_id", ""), dict(state.get("demographics") or {}))

    def route(state: OgmarState) -> Any:
        if cfg.mode == "knn":
            return "knn_vote"
        if cfg.mode != "ogmar":
            return "answer_once"
        personas = state.get("neighbours") or []
        if not personas:
            return "judge"
        return [Send("persona_agent", {**_shared(state), "persona": p}) for p in personas]

    async def persona_agent(state: OgmarState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        p, choices = state["persona"], list(state["choices"])
        messages = prompts.persona_messages(
            p["persona_id"], p["text"], p.get("lines") or [], p.get("answer"), state.get("respondent_id", ""),
            state.get("target_text", ""), state.get("target_lines") or [],
            [t["text"] for t in state.get("triples") or []], state["question"], choices)
        reply = await _ask(runtime.context, cfg, messages)
        parsed = parse.parse_persona(reply, p["persona_id"], choices, lenient=cfg.persona_format == "lenient")
        row = {**parsed.as_dict(), "respondent_id": p["respondent_id"], "distance": p["distance"]}
        return {"persona_answers": [row], "errors": [parsed.error] if parsed.error else []}

    async def judge(state: OgmarState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        answers = sorted(state.get("persona_answers") or [], key=lambda a: int(str(a["persona_id"])[1:] or 0))
        choices = list(state["choices"])
        valid = [a for a in answers if a.get("answer") in choices]
        errors: list[str] = []
        ratings: dict[str, int] = {}
        called = False
        if len({a["answer"] for a in valid}) > 1:
            if cfg.evidence == "model":
                messages = prompts.judge_messages(
                    state.get("respondent_id", ""), state.get("target_text", ""), state.get("target_lines") or [],
                    [t["text"] for t in state.get("triples") or []], state["question"], choices, valid)
                reply = await _ask(runtime.context, cfg, messages, stream=True)
                called = True
                ratings, error = parse.parse_evidence(reply, [str(a["persona_id"]) for a in valid])
                errors += [error] if error else []
            elif cfg.evidence == "triples":
                ratings = triple_ratings(valid, state.get("favoured"))
        decision = decide(answers, choices, ratings)
        answer, decided_by = decision.answer, decision.decided_by
        if answer is None:
            answer, decided_by = _fallback(state)
        return {"answer": answer, "decided_by": decided_by, "errors": errors,
                "judge": {**decision.as_dict(), "ratings": ratings, "model_called": called,
                          "shown": [a["persona_id"] for a in valid] if called else []}}

    async def answer_once(state: OgmarState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        rid, target, q, choices = (state.get("respondent_id", ""), state.get("target_text", ""), state["question"],
                                   list(state["choices"]))
        if cfg.mode == "zero_shot":
            messages = prompts.zero_shot_messages(rid, target, q, choices)
        elif cfg.mode == "persona":
            messages = prompts.roleplay_messages(rid, target, q, choices)
        else:
            messages = prompts.valuesrag_messages(rid, target, state.get("target_lines") or [],
                                                  state.get("neighbours") or [], q, choices)
        reply = await _ask(runtime.context, cfg, messages, stream=True)
        answer = parse.parse_choice(reply, choices)
        if answer is not None:
            return {"answer": answer, "decided_by": "model"}
        fallback, how = _fallback(state)
        return {"answer": fallback, "decided_by": how,
                "errors": [f"{cfg.mode}: the reply names no choice of {choices}: {reply.strip()[:80]!r}"]}

    def knn_vote(state: OgmarState) -> dict[str, Any]:
        return {"answer": state.get("knn_answer") or "", "decided_by": "knn"}

    def _fallback(state: OgmarState) -> tuple[str, str]:
        if cfg.fallback == "knn" and state.get("item"):
            votes = [n["own_answer"] for n in state.get("neighbours") or [] if n.get("own_answer")]
            choices = list(state["choices"])
            if votes:
                counts = {c: votes.count(c) for c in choices}
                return max(choices, key=lambda c: (counts[c], -choices.index(c))), "fallback_knn"
        return "", "abstained"

    def finish(state: OgmarState) -> dict[str, Any]:
        favoured, answer = state.get("favoured"), state.get("answer", "")
        return {"consistency": None if favoured is None or not answer else answer == favoured}

    graph = StateGraph(OgmarState, context_schema=RunContext)
    graph.add_node("prepare", prepare)
    graph.add_node("persona_agent", persona_agent)
    graph.add_node("judge", judge)
    graph.add_node("answer_once", answer_once)
    graph.add_node("knn_vote", knn_vote)
    graph.add_node("finish", finish)
    graph.add_edge(START, "prepare")
    graph.add_conditional_edges("prepare", route, ["knn_vote", "answer_once", "persona_agent", "judge"])
    graph.add_edge("persona_agent", "judge")
    for node in ("judge", "answer_once", "knn_vote"):
        graph.add_edge(node, "finish")
    graph.add_edge("finish", END)
    return graph


def _shared(state: OgmarState) -> dict[str, Any]:
    keys = ("question", "choices", "respondent_id", "target_text", "target_lines", "triples")
    return {k: state.get(k) for k in keys}


def make_state(inp: OgmarInput) -> dict[str, Any]:
    """Initial state for one question."""
    return {**inp.model_dump(), "persona_answers": [], "errors": []}


def output(state: dict[str, Any]) -> dict[str, Any]:
    """The answer and everything it rests on (see the module docstring)."""
    answers = sorted(state.get("persona_answers") or [], key=lambda a: int(str(a["persona_id"])[1:] or 0))
    judge = state.get("judge") or {}
    return {
        "answer": state.get("answer", ""), "decided_by": state.get("decided_by", ""),
        "votes": judge.get("votes") or {}, "persona_answers": answers,
        "abstentions": sum(1 for a in answers if a.get("answer") is None), "judge": judge,
        "item": state.get("item"), "class": state.get("class_id"), "domains": state.get("domains") or [],
        "triples": state.get("triples") or [], "ontology": state.get("ontology", ""),
        "neighbours": [{k: n[k] for k in ("persona_id", "respondent_id", "distance", "own_answer")}
                       for n in state.get("neighbours") or []],
        "visible_answers": state.get("visible_answers", 0), "favoured_by_triples": state.get("favoured"),
        "triple_evidence": state.get("triple_evidence"), "consistency": state.get("consistency"),
        "errors": state.get("errors") or [],
    }


SPEC = WorkflowSpec(
    name="ogmar",
    description="OG-MAR: ontology-guided multi-agent prediction of a survey respondent's answer (and baselines).",
    build_graph=build_graph,
    input_model=OgmarInput,
    config_model=OgmarConfig,
    make_state=make_state,
    output=output,
    scorers=SCORERS,
    preflight=preflight,
)
