"""Generated arithmetic word problems for training on the ``arith`` suite's task, never its items.

``generate(n, seed)`` draws problems round-robin over the categories of
:mod:`~paperworks.train.generators.arith_templates` (nine categories: the suite's six and three more), with
four training phrasings per category; ``phrasing="heldout"`` uses two other phrasings per category that
training never sees; ``phrasing="wide"`` adds two more training phrasings per category
(:mod:`~paperworks.train.generators.arith_templates_extra`; the ``gen:arith_wide`` generator). A drawn
problem that collides with a row of the shipped ``arith`` suite (``overlap``: the same question up to case,
spacing and punctuation, or the same category, numbers and answer) is dropped and drawn again. Deterministic for a seed.

Each row: ``id``, ``question``, ``answer`` (an int when whole, else a float to 4 decimals, as the suite),
``category``, ``expression`` (what a correct agent sends to ``calculate``; it evaluates exactly to the
answer) and ``phrasing``.
"""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from paperworks.train.generators.arith_templates import TEMPLATES, Template
from paperworks.train.generators.arith_templates_extra import EXTRA_TRAIN

LIKE = "arith"
PHRASINGS = ("train", "heldout", "wide")


def templates(category: str, phrasing: str) -> list[Template]:
    """The templates of one category in one phrasing set."""
    if phrasing == "wide":
        return [*TEMPLATES[category]["train"], *EXTRA_TRAIN[category]]
    return TEMPLATES[category][phrasing]


def _answer(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else round(float(value), 4)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _numbers(text: str) -> tuple[str, ...]:
    return tuple(sorted(re.findall(r"\d+(?:\.\d+)?", text)))


def suite_rows() -> list[dict[str, Any]]:
    """The shipped ``arith`` suite's rows (what generated problems must never repeat)."""
    path = Path(__file__).resolve().parents[2] / "suites" / LIKE / "data.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def overlap(rows: list[dict[str, Any]], suite: list[dict[str, Any]]) -> list[str]:
    """Ids of ``rows`` that repeat an item of ``suite``: the same normalised question, or the same category,
    numbers and answer (a renamed or reworded copy)."""
    questions = {_norm(str(r.get("question", ""))) for r in suite}
    shapes = {(str(r.get("category")), _numbers(str(r.get("question", ""))), str(r.get("answer"))) for r in suite}
    hits = []
    for row in rows:
        q = str(row.get("question", ""))
        if _norm(q) in questions or (str(row.get("category")), _numbers(q), str(row.get("answer"))) in shapes:
            hits.append(str(row.get("id")))
    return hits


def generate(n: int, seed: int, *, phrasing: str = "train") -> list[dict[str, Any]]:
    """``n`` problems from ``seed`` (round-robin over categories, a random phrasing of the set each)."""
    if phrasing not in PHRASINGS:
        raise ValueError(f"phrasing must be one of {PHRASINGS}, got {phrasing!r}")
    rng = random.Random(f"arith-{phrasing}-{seed}")
    banned = suite_rows()
    cats = sorted(TEMPLATES)
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    k = 0
    while len(rows) < n:
        cat = cats[len(rows) % len(cats)]
        template = rng.choice(templates(cat, phrasing))
        question, expression, value = template(rng)
        row = {"id": f"gen-arith-{phrasing}-{seed}-{k}", "question": question, "answer": _answer(value),
               "category": cat, "expression": expression, "phrasing": phrasing}
        k += 1
        if (value * 10_000).denominator != 1:  # the answer must be exact at 4 decimals (the suite's rule)
            continue
        if _norm(question) in seen or overlap([row], banned):
            continue
        seen.add(_norm(question))
        rows.append(row)
    return rows


def oracle_calls(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The scripted oracle trajectory: one ``calculate`` call with the row's expression, then the number."""
    answer = row["answer"]
    text = str(answer) if isinstance(answer, int) else f"{float(answer):.4f}".rstrip("0").rstrip(".")
    return [{"tool": "calculate", "arguments": {"expression": row["expression"]}}, {"answer": text}]


def write_suite(rows: list[dict[str, Any]], folder: Path, like: str = LIKE) -> Path:
    """``rows`` as a suite folder (the ``like`` suite's suite.yaml, named after the folder; data.jsonl)."""
    source = Path(__file__).resolve().parents[2] / "suites" / like / "suite.yaml"
    text = re.sub(r"(?m)^name: .*$", f"name: {folder.name}", source.read_text(encoding="utf-8"), count=1)
    text = re.sub(r"(?m)^data: .*$", "data: [data.jsonl]", text, count=1)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "suite.yaml").write_text(
        f"# Generated training problems (paperworks.train.generators.arith), shaped like suite '{like}'.\n" + text,
        encoding="utf-8")
    return folder
