"""Reward function for the verl OTB recipe: paperworks' verifiable tasks, and SPADA's CAD verifier.

verl imports this file by path (``custom_reward_function.path``) and calls ``compute_score`` (the
``custom_reward_function.name``) once per sampled response with the row's ``data_source``, the decoded
response (``solution_str``, the response only, without the prompt), ``reward_model.ground_truth`` and
``extra_info`` (rows written by ``prepare_data.py`` in this folder). Extra keyword arguments come from
``custom_reward_function.reward_kwargs``. It returns one float.

- ``paperworks/arithmetic``, ``paperworks/repeat``: the answer is the text of the last
  ``<answer>...</answer>`` in the response (the whole response when there is none), scored by the task's own
  verifier (:class:`paperworks.backends.otb.tasks.VerifiableTask.reward`, 1.0 on an exact match, else 0.0),
  which recomputes the correct answer from the task prompt kept in ``extra_info``.
- ``paperworks/spada_bench`` (and ``paperworks/spada_bench_abstract``): the CadQuery program is the longest
  fenced Python block of the response (SPADA's own ``extract_code``), judged by SPADA's scorer
  (:func:`paperworks.workflows.spada.score.score_spada`): the program builds its geometry in the CAD
  sandbox, the task's hidden tests and engineering checks run in a separate judge sandbox, and the reward is
  1.0 when all pass, else 0.0; with ``cad_partial_credit=True`` it is the share of hidden tests and checks
  passed (0 for a program that does not build), a denser signal for a weak starting policy.

Needs only ``paperworks`` (and CadQuery for CAD rows); verl itself is not imported, so the function can be
unit-tested without it (``tests/backends/test_verl_reward.py``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from paperworks.core.errors import UserError

PREFIX = "paperworks/"
"""``data_source`` prefix of this recipe's rows."""
CAD_SUITES = ("spada_bench", "spada_bench_abstract")
"""SPADA suites whose rows are judged by the CAD verifier."""
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)


def extract_answer(text: str) -> str:
    """The content of the last ``<answer>...</answer>`` in ``text``, else ``text`` itself."""
    found = _ANSWER.findall(text)
    return found[-1] if found else text


def suites_dir() -> Path:
    """Where paperworks' suites live (inside the installed package)."""
    import paperworks

    return Path(paperworks.__file__).parent / "suites"


def _info(extra_info: Any, key: str) -> Any:
    if not isinstance(extra_info, dict) or extra_info.get(key) in (None, ""):
        raise UserError(f"verl_otb reward: extra_info has no {key!r} (rows must come from prepare_data.py)")
    return extra_info[key]


def score_task(name: str, solution_str: str, ground_truth: Any, extra_info: Any) -> float:
    """Reward of one response to a paperworks verifiable task (see the module docstring)."""
    from paperworks.backends.otb.tasks import TASKS

    if name not in TASKS:
        raise UserError(f"verl_otb reward: unknown task {name!r}; expected one of {', '.join(TASKS)}")
    prompt = str(_info(extra_info, "task_prompt"))
    try:
        config = json.loads(str(extra_info.get("task_config") or "{}"))
        task = TASKS[name](**config)
    except (json.JSONDecodeError, TypeError) as exc:
        raise UserError(f"verl_otb reward: bad task_config for {name!r}: {exc}") from None
    try:
        answer = task.answer(prompt)
    except ValueError as exc:
        raise UserError(f"verl_otb reward: {exc}") from None
    if answer != str(ground_truth):
        raise UserError(f"verl_otb reward: ground_truth {ground_truth!r} is not the answer {answer!r} to {prompt!r}")
    return task.reward(prompt, extract_answer(solution_str))


def _run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` to completion, also when called from inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def score_cad(suite: str, solution_str: str, ground_truth: Any, extra_info: Any, partial_credit: bool = False,
              suites: Path | None = None) -> float:
    """Reward of one CadQuery program for a SPADA task, from SPADA's scorer (see the module docstring)."""
    from paperworks.agents.spada.parse import extract_code
    from paperworks.core.scoring import Sample
    from paperworks.workflows.spada.score import score_spada

    task_id = str(_info(extra_info, "task_id"))
    if task_id != str(ground_truth):
        raise UserError(f"verl_otb reward: ground_truth {ground_truth!r} is not the row's task id {task_id!r}")
    folder = (suites or suites_dir()) / suite
    hidden = str(_info(extra_info, "hidden_tests"))
    if not (folder / hidden).is_file():
        raise UserError(f"verl_otb reward: hidden tests {hidden!r} not found in {folder}")
    constraints = json.loads(str(extra_info.get("constraints") or "{}"))
    sample = Sample(id=task_id, input={}, target=hidden, metadata={"constraints": constraints},
                    source=f"{folder / 'data.jsonl'}:{int(extra_info.get('line') or 0)}")
    score = _run(score_spada(sample, {"code": extract_code(solution_str), "iterations": 1}, "", None))
    if partial_credit:
        return float(score.details.get("metrics", {}).get("constraint_pass", 0.0))
    return float(score.value)


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                  cad_partial_credit: bool = False, **_: Any) -> float:
    """verl's reward hook: one float for one response (see the module docstring).

    Raises :class:`~paperworks.core.errors.UserError` for a row this recipe did not write (unknown
    ``data_source``, missing ``extra_info`` fields, a ground truth that disagrees with the task)."""
    if not str(data_source).startswith(PREFIX):
        raise UserError(f"verl_otb reward: data_source {data_source!r} does not start with {PREFIX!r}")
    name = str(data_source)[len(PREFIX):]
    if name in CAD_SUITES:
        return score_cad(name, solution_str, ground_truth, extra_info, partial_credit=cad_partial_credit)
    return score_task(name, solution_str, ground_truth, extra_info)
