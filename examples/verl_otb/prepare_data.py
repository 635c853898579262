"""Write verl's RL parquet files (``train.parquet``, ``test.parquet``) from paperworks' tasks.

Run: ``python examples/verl_otb/prepare_data.py --out ~/data/paperworks_otb`` (see README.md here).

One row per prompt, in the columns verl's RL dataset reads: ``data_source`` (picks the reward:
``paperworks/<task>``), ``prompt`` (chat messages; verl applies the model's chat template), ``ability``,
``reward_model`` (``{"style": "rule", "ground_truth": ...}``) and ``extra_info`` (what ``reward.py``
needs to re-verify: the raw task prompt and its settings, or the SPADA task's hidden-test path and
constraints). ``extra_info`` has the same fields in every row (empty strings where one does not apply), so
the parquet schema is one struct.

- Verifiable tasks (:mod:`paperworks.backends.otb.tasks`): the distinct prompts found in 20,000 seeded
  draws are shuffled; the first ones (up to ``--test``, at most a fifth of them) are the test split, and the
  train split draws ``--train`` prompts (with repetition) from the rest, so no test prompt is trained on.
- SPADA (``--cad-suite``): every ``--cad-test-every``-th task of the suite is a test row, the others are
  train rows (each once); the prompt asks for one CadQuery program under SPADA's program convention.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from paperworks.backends.otb.tasks import ArithmeticTask, RepeatTask, VerifiableTask
from paperworks.core.errors import UserError

INSTRUCTIONS = {
    "arithmetic": "What is {expr}? Reply with the final number inside <answer></answer>.",
    "repeat": ("The prompt '{q}' means: write the letter before the number, that many times, with nothing "
               "between the letters. Reply with the result inside <answer></answer>."),
}
"""User message per task; ``{q}`` is the raw task prompt, ``{expr}`` the same without a trailing ``=``."""
EXTRA_FIELDS = ("split", "index", "task", "task_prompt", "task_config", "suite", "task_id", "hidden_tests",
                "constraints", "line")
"""The fields of ``extra_info`` (all rows)."""


def _extra(**values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(EXTRA_FIELDS, "")
    row["index"] = row["line"] = 0
    row.update(values)
    return row


def task_row(task: VerifiableTask, config: dict[str, Any], prompt: str, split: str, index: int) -> dict[str, Any]:
    """One verl row for a verifiable-task prompt."""
    template = INSTRUCTIONS.get(task.name, "{q} Reply with the answer inside <answer></answer>.")
    return {
        "data_source": f"paperworks/{task.name}",
        "prompt": [{"role": "user", "content": template.format(q=prompt, expr=prompt.rstrip("="))}],
        "ability": "math" if task.name == "arithmetic" else "text",
        "reward_model": {"style": "rule", "ground_truth": task.answer(prompt)},
        "extra_info": _extra(split=split, index=index, task=task.name, task_prompt=prompt,
                             task_config=json.dumps(config, sort_keys=True)),
    }


def task_splits(task: VerifiableTask, config: dict[str, Any], n_train: int, n_test: int,
                seed: int) -> dict[str, list[dict[str, Any]]]:
    """Train and test rows for ``task`` with disjoint prompts (see the module docstring)."""
    rng = random.Random(seed)
    pool = sorted(set(task.prompts(rng, 20_000)))
    rng.shuffle(pool)
    k = min(n_test, len(pool) // 5)
    test, rest = pool[:k], pool[k:]
    train = [rng.choice(rest) for _ in range(n_train)]
    return {"train": [task_row(task, config, p, "train", i) for i, p in enumerate(train)],
            "test": [task_row(task, config, p, "test", i) for i, p in enumerate(test)]}


def cad_prompt(request: str) -> list[dict[str, str]]:
    """SPADA's program request (its system line and program convention, without the spec step)."""
    from paperworks.agents.spada.prompts import CONVENTION

    return [{"role": "system", "content": "You write CadQuery assembly programs. Reply with one ```python block."},
            {"role": "user", "content": f"Design request:\n{request}\n\n{CONVENTION}"}]


def cad_splits(suite: str, test_every: int, suites: Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """Train and test rows for the SPADA suite ``suite`` (every ``test_every``-th task is a test row)."""
    import paperworks

    folder = (suites or Path(paperworks.__file__).parent / "suites") / suite
    data = folder / "data.jsonl"
    if not data.is_file():
        raise UserError(f"prepare_data: no SPADA suite at {folder}")
    if test_every < 2:
        raise UserError(f"prepare_data: --cad-test-every must be at least 2, got {test_every}")
    out: dict[str, list[dict[str, Any]]] = {"train": [], "test": []}
    key = "request_abstract" if suite.endswith("_abstract") else "request"
    for line, text in enumerate(data.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        row = json.loads(text)
        split = "test" if line % test_every == 0 else "train"
        out[split].append({
            "data_source": f"paperworks/{suite}",
            "prompt": cad_prompt(str(row.get(key) or row["request"])),
            "ability": "cad",
            "reward_model": {"style": "rule", "ground_truth": row["id"]},
            "extra_info": _extra(split=split, index=len(out[split]), task="spada", suite=suite, task_id=row["id"],
                                 hidden_tests=row["hidden_tests"], constraints=json.dumps(row.get("constraints", {})),
                                 line=line),
        })
    return out


def build(tasks: list[str], n_train: int, n_test: int, seed: int = 0, max_operand: int = 99,
          repeat_max_len: int = 12, cad_suite: str = "spada_bench", cad_test_every: int = 5
          ) -> dict[str, list[dict[str, Any]]]:
    """All rows by split for ``tasks`` (any of arithmetic, repeat, spada)."""
    known = ("arithmetic", "repeat", "spada")
    bad = [t for t in tasks if t not in known]
    if bad or not tasks:
        raise UserError(f"prepare_data: --tasks {','.join(tasks)!r}; choose from {', '.join(known)}")
    if n_train < 0 or n_test < 0:
        raise UserError("prepare_data: --train and --test must be non-negative")
    splits: dict[str, list[dict[str, Any]]] = {"train": [], "test": []}
    for i, name in enumerate(tasks):
        if name == "spada":
            part = cad_splits(cad_suite, cad_test_every)
        elif name == "arithmetic":
            part = task_splits(ArithmeticTask(max_operand=max_operand), {"max_operand": max_operand}, n_train,
                               n_test, seed + i)
        else:
            part = task_splits(RepeatTask(max_len=repeat_max_len), {"max_len": repeat_max_len}, n_train, n_test,
                               seed + i)
        for split in splits:
            splits[split].extend(part[split])
    return splits


def write_parquet(rows: list[dict[str, Any]], path: Path) -> None:
    """Write ``rows`` as one parquet file (pyarrow)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def main(argv: list[str] | None = None) -> None:
    """Command line: see ``--help``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, default=Path("~/data/paperworks_otb").expanduser())
    ap.add_argument("--tasks", default="arithmetic,repeat,spada", help="comma-separated: arithmetic, repeat, spada")
    ap.add_argument("--train", type=int, default=2048, help="train prompts per verifiable task")
    ap.add_argument("--test", type=int, default=128, help="test prompts per verifiable task (at most)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-operand", type=int, default=99)
    ap.add_argument("--repeat-max-len", type=int, default=12)
    ap.add_argument("--cad-suite", default="spada_bench", help="spada_bench or spada_bench_abstract")
    ap.add_argument("--cad-test-every", type=int, default=5)
    args = ap.parse_args(argv)
    splits = build([t.strip() for t in args.tasks.split(",") if t.strip()], args.train, args.test, args.seed,
                   args.max_operand, args.repeat_max_len, args.cad_suite, args.cad_test_every)
    for split, rows in splits.items():
        write_parquet(rows, args.out / f"{split}.parquet")
        print(f"{args.out / f'{split}.parquet'}: {len(rows)} rows")


if __name__ == "__main__":
    try:
        main()
    except UserError as exc:
        raise SystemExit(f"error: {exc}") from None
