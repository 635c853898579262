"""Prompts of the D-FPS roles: forward derivation (hybrid CoT with in-context demonstrations), repair
of a failed step, backward verification, and the single-shot ``fps`` baseline.

The forward prompt follows the FPS paper's hybrid-CoT format: the informal problem, the Lean goal state
(the hypotheses, with ``answer`` among them, and the unknown goal ``?w``), and a formal proof of ``have``
steps with informal comments that ends by proving ``answer = <term>`` and submitting it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DEMONSTRATIONS = Path(__file__).with_name("demonstrations.jsonl")

SYSTEM = "You are a helpful assistant."

HEADER_NOTE = """\
Please assume the following header code has already been executed, and do not add any imports or openings.
```lean4
import Mathlib
import Aesop
```
"""


@cache
def demonstrations() -> tuple[dict[str, str], ...]:
    """The 10 in-context demonstrations of the FPS paper (informal problem, goal state, formal proof)."""
    rows = [json.loads(line) for line in DEMONSTRATIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return tuple({k: str(r[k]) for k in ("informal_problem", "forward_context", "formal_solution")} for r in rows)


def format_sample(informal_problem: str, context: str, proof: str | None = None) -> str:
    """One problem block: informal problem, goal state and (for a demonstration) its formal proof."""
    text = f'# Informal Problem\n"""\n{informal_problem}\n"""\n# Goal State\n```lean4\n{context}\n```\n'
    if proof is not None:
        text += f"# Formal Proof\n```lean4\n{proof}\n```\n"
    return text


def pick_demonstrations(n: int, budget_chars: int, used_chars: int) -> list[dict[str, str]]:
    """The first ``n`` demonstrations that fit in ``budget_chars`` (in order; one that does not fit is
    skipped, so a short later one can still go in)."""
    picked, size = [], used_chars
    for demo in demonstrations()[:max(n, 0)]:
        cost = len(format_sample(demo["informal_problem"], demo["forward_context"], demo["formal_solution"])) + 8
        if size + cost <= budget_chars:
            picked.append(demo)
            size += cost
    return picked


def forward_messages(informal_problem: str, context: str, *, n_demos: int = 10,
                     budget_chars: int = 16000) -> tuple[list[dict[str, Any]], int]:
    """The hybrid-CoT forward-derivation prompt and how many demonstrations it holds."""
    head = ("Given an informal math problem and a corresponding Lean 4 goal state, please think step by step "
            "and construct a formal proof deducing the answer.\n" + HEADER_NOTE +
            "Write `have` steps from the hypotheses toward the answer, each with its own proof, then prove "
            "`answer = <value>` as `h_answer` and finish with `exact h_answer -- submit`.\n\n")
    tail = ("Now, please generate a formal proof for the following problem.\n\n"
            + format_sample(informal_problem, context) + "\n")
    demos = pick_demonstrations(n_demos, budget_chars, len(head) + len(tail))
    body = "Here are some examples:\n\n" if demos else ""
    for demo in demos:
        body += format_sample(demo["informal_problem"], demo["forward_context"], demo["formal_solution"])
        body += "\n---\n\n"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": head + body + tail}], len(demos)


def repair_messages(informal_problem: str, context: str, proof: str, feedback: str) -> list[dict[str, Any]]:
    """Ask for a corrected forward proof after Lean rejected a step."""
    user = (format_sample(informal_problem, context) +
            f"\n# Your Formal Proof\n```lean4\n{proof}\n```\n# Lean's Feedback\n```\n{feedback}\n```\n"
            "The steps before the failing one were accepted. Rewrite the formal proof from the failing step "
            "on (keep the accepted steps), ending with `exact h_answer -- submit`. Reply with one lean4 "
            "code block.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": HEADER_NOTE + "\n" + user}]


def backward_messages(informal_problem: str, goal: str, submission: str, feedback: str | None = None,
                      previous: str | None = None) -> list[dict[str, Any]]:
    """Backward verification: prove that the derived answer satisfies the problem's conditions."""
    user = (f'# Informal Problem\n"""\n{informal_problem}\n"""\n'
            f"# Derived Answer\n`{submission}`\n# Goal State\n```lean4\n{goal}\n```\n"
            "Prove this goal in Lean 4: the derived answer satisfies the problem's conditions. Reply with "
            "the tactic proof in one lean4 code block.")
    if previous is not None:
        user += f"\n# Your Previous Proof\n```lean4\n{previous}\n```\n# Lean's Feedback\n```\n{feedback}\n```\n"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": HEADER_NOTE + "\n" + user}]


def single_shot_messages(informal_problem: str, goal: str) -> list[dict[str, Any]]:
    """The plain FPS baseline: the answer and the whole proof at once. ``goal`` is the backward goal with
    the answer left open (``h_submission : answer = <your answer>``)."""
    user = (f'# Informal Problem\n"""\n{informal_problem}\n"""\n# Goal State\n```lean4\n{goal}\n```\n'
            "Find the answer and prove the goal with it. Reply with the line `Answer: <Lean term>` and then "
            "the complete Lean 4 tactic proof of the goal (with your answer in h_submission) in one lean4 "
            "code block.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": HEADER_NOTE + "\n" + user}]

