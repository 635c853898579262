"""Where training problems come from: a procedural generator (``gen:NAME``) with its own seeds, never
the eval suite's items. Each step's problems are written as a suite folder so that the rollouts are a
plain ``paperworks eval`` of it.

Seeds: step ``k`` draws from ``seed·1,000,003 + k + 1``; the warm start from ``2·10⁹ + seed``; the
held-out problems (the generator's held-out phrasings) from ``10⁹ + seed``. A generated problem that
collides with an eval item is refused by the generator; ``check_disjoint`` refuses a run whose
problems overlap the eval suite in one line before anything is created.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError
from paperworks.eval.suite import Suite, load_suite

HELDOUT_SEED = 1_000_000_000
SFT_SEED = 2_000_000_000


def suite_rows(suite: Suite) -> list[dict[str, Any]]:
    """The raw data rows of a suite (its jsonl files, in order)."""
    rows: list[dict[str, Any]] = []
    for name in suite.spec.data:
        path = suite.folder / name
        if path.suffix != ".jsonl" or not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if isinstance(row, dict):
                    rows.append(row)
    return rows


class ProblemSource:
    """A generator of training problems shaped like one suite (``gen:arith`` → like ``arith``)."""

    def __init__(self, spec: str, eval_suite: str) -> None:
        from paperworks.train.generators import GENERATORS

        if not spec.startswith("gen:"):
            raise UserError(f"--suite {spec!r}: training problems come from a generator ('gen:NAME'; known: "
                            f"{', '.join('gen:' + n for n in sorted(GENERATORS))}), never from an eval suite's items")
        name = spec.removeprefix("gen:")
        if name not in GENERATORS:
            raise UserError(f"--suite {spec!r}: unknown generator; known: "
                            f"{', '.join('gen:' + n for n in sorted(GENERATORS))}")
        self.name = name
        self.module: Any = GENERATORS[name]
        self.like = getattr(self.module, "LIKE", name)
        self.eval_suite = load_suite(eval_suite)

    def check_disjoint(self, samples: list[list[dict[str, Any]]]) -> None:
        """Refuse (one line) when any generated row collides with an eval item."""
        theirs = suite_rows(self.eval_suite)
        for rows in samples:
            hits = self.module.overlap(rows, theirs)
            if hits:
                raise UserError(f"training problems overlap the eval suite '{self.eval_suite.spec.name}' "
                                f"({len(hits)} items, e.g. {hits[0]}); refusing to train on eval items")

    def step_rows(self, seed: int, step: int, n: int) -> list[dict[str, Any]]:
        """The problems of RL step ``step`` (0-based)."""
        rows: list[dict[str, Any]] = self.module.generate(n, seed * 1_000_003 + step + 1)
        return rows

    def heldout_rows(self, seed: int, n: int) -> list[dict[str, Any]]:
        """Held-out problems: other seeds and the generator's held-out phrasings."""
        rows: list[dict[str, Any]] = self.module.generate(n, HELDOUT_SEED + seed, phrasing="heldout")
        return rows

    def sft_rows(self, seed: int, n: int) -> list[dict[str, Any]]:
        """Problems for the supervised warm start."""
        rows: list[dict[str, Any]] = self.module.generate(n, SFT_SEED + seed)
        return rows

    def oracle(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        """The scripted oracle trajectory of a generated row."""
        calls: list[dict[str, Any]] = self.module.oracle_calls(row)
        return calls

    def write(self, rows: list[dict[str, Any]], folder: Path) -> Suite:
        """The rows as a suite folder shaped like the generator's suite; returns it loaded."""
        if not (folder / "suite.yaml").is_file():
            folder.parent.mkdir(parents=True, exist_ok=True)
            self.module.write_suite(rows, folder, like=self.like)
        return load_suite(str(folder))
