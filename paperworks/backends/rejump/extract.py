"""The extractor: a language model turns a reasoning trace into a ReJump, in the paper's two stages —
first the tree (prompt modelled on the authors' ``get_tree_prompt``), then the walk over that tree
(``get_walk_prompt``). The model is any ``Completion`` (messages → text), so this module imports no model
library; the CLI builds one from the gateway, the repro from the embedded model or a script.

A reply is read leniently (code fences, trailing commas, single quotes, unclosed brackets are repaired); a
reply with no usable JSON, or one that fails validation, raises :class:`ExtractionError` — one line naming
the stage and what was wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paperworks.backends.rejump.tree import ReJump, RejumpError, parse_rejump, parse_tree, parse_walk
from paperworks.models.local.lenient_json import balanced, loads_lenient

Completion = Callable[[list[dict[str, str]]], str]
"""A chat model: OpenAI-style messages in, the assistant's text out."""


class ExtractionError(RejumpError):
    """The extractor's reply could not be read as a valid tree or walk."""


_TASK_HINTS = {
    "game24": "Each node's Problem is a partial calculation using only numbers, + - * / and parentheses; the "
              "root is exactly the four numbers (e.g. \"9,3,12,8\"); a leaf is the full expression after the "
              "third calculation (e.g. \"(9-3)*(12-8)\") and its Result is its value.",
    "sudoku": "The root is the initial grid with 0 for empty cells; each other node fills exactly ONE cell "
              "(e.g. \"row 2, column 3 = 4\"); a leaf's Result is the complete (or attempted) grid.",
    "math": "The root is the problem; each node is one intermediate step (a sub-result); a leaf is a final "
            "answer and its Result is that answer.",
}

TREE_PROMPT = """Given the problem statement and reasoning process below, convert the reasoning into a reasoning \
tree. Do not try to solve the problem yourself; only convert the given reasoning.

PROBLEM:
{problem}

REASONING:
{trace}

Each node object has "Problem" (string), "parent" (a node id, or "none" for the root node1) and "Result" \
(string for leaves, null otherwise). {hint} Nodes with the same Problem are one node.
Answer with a single JSON object whose keys are node ids ("node1", "node2", ...) and whose values are node \
objects. Output only the JSON."""

WALK_PROMPT = """Trace the reasoning text against the reasoning tree and give the walk: the order in which the \
reasoning visited the tree's nodes.

PROBLEM:
{problem}

REASONING:
{trace}

TREE:
{tree}

Answer with a JSON list of steps {{"from": node id, "to": node id, "category": c}} where c is one of \
"calculation/derivation" (forward progress, parent to child), "backtracking" (abandoning a line and returning \
to an earlier node) or "verification" (re-checking earlier work; a general check of a result Z is Z -> node1 \
-> Z). The first step starts at node1. Output only the JSON list."""


@dataclass
class Extraction:
    """A successful extraction: the validated ReJump and the model's two replies."""

    rejump: ReJump
    tree_reply: str
    walk_reply: str


def read_json(text: str, want: type, stage: str) -> Any:
    """The first JSON value of type ``want`` (dict or list) in a model reply, repaired if need be."""
    fenced = re.findall(r"```(?:json)?\s*(.*?)```", text, flags=re.DOTALL)
    for segment in [*fenced, text]:
        opener = "{" if want is dict else "["
        start = segment.find(opener)
        while start >= 0:
            raw, end = balanced(segment, start)
            value = loads_lenient(raw)
            if isinstance(value, want) and value:
                return value
            start = segment.find(opener, start + 1)
    shown = " ".join(text.split())[:60]
    kind = "object" if want is dict else "list"
    raise ExtractionError(f"extractor {stage} reply: no JSON {kind} found (reply began: '{shown}')")


def extract(problem: str, trace: str, complete: Completion, task: str = "math") -> Extraction:
    """Two-stage extraction of ``trace`` (the model's reasoning about ``problem``) into a ReJump."""
    if task not in _TASK_HINTS:
        raise ExtractionError(f"extractor: unknown task '{task}'; known: {', '.join(_TASK_HINTS)}")
    if not trace.strip():
        raise ExtractionError("extractor: the trace is empty")
    tree_reply = complete([{"role": "user", "content": TREE_PROMPT.format(problem=problem, trace=trace,
                                                                          hint=_TASK_HINTS[task])}])
    tree_data = read_json(tree_reply, dict, "tree")
    try:
        nodes = parse_tree(tree_data)
        ReJump(nodes).validate()
    except RejumpError as exc:
        raise ExtractionError(f"extractor tree reply: {exc}") from exc
    tree_text = json.dumps(tree_data, ensure_ascii=False)
    walk_reply = complete([{"role": "user", "content": WALK_PROMPT.format(problem=problem, trace=trace,
                                                                          tree=tree_text)}])
    walk_data = read_json(walk_reply, list, "walk")
    try:
        parse_walk(walk_data)
        rj = parse_rejump(tree_data, walk_data)
    except RejumpError as exc:
        raise ExtractionError(f"extractor walk reply: {exc}") from exc
    return Extraction(rj, tree_reply, walk_reply)


def scripted_completion(replies: dict[str, tuple[str, str]]) -> Completion:
    """A :data:`Completion` replaying recorded extractions: ``replies[trace] = (tree_reply, walk_reply)``;
    the trace is recognised inside the prompt, the stage by which prompt it is."""

    def complete(messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        for trace, (tree_reply, walk_reply) in replies.items():
            if trace in prompt:
                return walk_reply if prompt.startswith(WALK_PROMPT[:40]) else tree_reply
        raise ExtractionError("scripted extractor: no recorded extraction for this trace")

    return complete
