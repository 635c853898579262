"""The verl OTB recipe's reward function and data preparation (examples/verl_otb), without verl."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from paperworks.core.errors import UserError

HERE = Path(__file__).resolve().parents[2] / "examples" / "verl_otb"
SUITE = Path(__file__).resolve().parents[2] / "paperworks" / "suites" / "spada_bench"


def load(name: str) -> ModuleType:
    """Load a recipe file by path, as verl does with custom_reward_function.path."""
    spec = importlib.util.spec_from_file_location(f"verl_otb_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reward = load("reward")
prep = load("prepare_data")


def call(row: dict, response: str, **kw) -> float:
    """compute_score as verl's reward manager calls it for a parquet row."""
    return reward.compute_score(data_source=row["data_source"], solution_str=response,
                                ground_truth=row["reward_model"]["ground_truth"], extra_info=row["extra_info"], **kw)


def test_verifiable_task_rows_are_scored_by_the_task() -> None:
    splits = prep.build(["arithmetic", "repeat"], n_train=30, n_test=10, seed=3, max_operand=20, repeat_max_len=5)
    arith = next(r for r in splits["train"] if r["data_source"] == "paperworks/arithmetic")
    q = arith["extra_info"]["task_prompt"]
    a, b = (int(v) for v in q.rstrip("=").split("+"))
    assert arith["reward_model"]["ground_truth"] == str(a + b)
    assert f"What is {a}+{b}?" in arith["prompt"][0]["content"]
    assert call(arith, f"{a} plus {b} is <answer> {a + b} </answer>") == 1.0
    assert call(arith, f"<answer>{a + b + 1}</answer>") == 0.0
    assert call(arith, f"<answer>{a + b + 1}</answer> no, <ANSWER>{a + b}</ANSWER>") == 1.0  # the last one counts
    assert call(arith, f"{a + b}") == 1.0  # bare answer
    assert call(arith, f"The answer is {a + b}.") == 0.0  # exact match only, as the task's verifier
    rep = next(r for r in splits["test"] if r["data_source"] == "paperworks/repeat")
    letter, k = rep["extra_info"]["task_prompt"][0], int(rep["extra_info"]["task_prompt"][1:-1])
    assert call(rep, f"<answer>{letter * k}</answer>") == 1.0
    assert call(rep, f"<answer>{letter * (k + 1)}</answer>") == 0.0


def test_splits_are_disjoint_and_parquet_round_trips(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    splits = prep.build(["arithmetic", "repeat", "spada"], n_train=40, n_test=12, seed=0, max_operand=9,
                        repeat_max_len=4)
    for name in ("arithmetic", "repeat"):
        train = {r["extra_info"]["task_prompt"] for r in splits["train"] if r["extra_info"]["task"] == name}
        test = {r["extra_info"]["task_prompt"] for r in splits["test"] if r["extra_info"]["task"] == name}
        assert train and test and not train & test, name
    # repeat(max_len=4) has 16 prompts: at most a fifth (3) are held out.
    assert sum(r["extra_info"]["task"] == "repeat" for r in splits["test"]) == 3
    n_cad = sum(1 for line in (SUITE / "data.jsonl").read_text().splitlines() if line.strip())
    cad_test = [r for r in splits["test"] if r["ability"] == "cad"]
    assert len(cad_test) == n_cad // 5 and len(splits["train"]) == 40 * 2 + n_cad - n_cad // 5
    for split, rows in splits.items():
        prep.write_parquet(rows, tmp_path / f"{split}.parquet")
        back = pq.read_table(tmp_path / f"{split}.parquet").to_pylist()
        assert back == rows
        assert set(back[0]) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}


def test_bad_rows_raise_user_errors() -> None:
    row = prep.build(["arithmetic"], n_train=1, n_test=0)["train"][0]
    with pytest.raises(UserError, match="data_source"):
        reward.compute_score("openai/gsm8k", "1", "1", row["extra_info"])
    with pytest.raises(UserError, match="is not the answer"):
        reward.compute_score(row["data_source"], "1", "-1", row["extra_info"])
    with pytest.raises(UserError, match="task_prompt"):
        reward.compute_score(row["data_source"], "1", "1", {})
    with pytest.raises(UserError, match="unknown task"):
        reward.compute_score("paperworks/chess", "1", "1", row["extra_info"])
    with pytest.raises(UserError, match="--tasks"):
        prep.build(["sudoku"], n_train=1, n_test=1)


@pytest.mark.slow
def test_cad_rows_are_judged_by_spada() -> None:
    pytest.importorskip("cadquery")
    rows = prep.cad_splits("spada_bench", test_every=5)["train"]
    row = next(r for r in rows if r["reward_model"]["ground_truth"] == "pin-plate-01")
    assert json.loads(row["extra_info"]["constraints"])["min_parts"] == 2
    assert "cq.Assembly" in row["prompt"][1]["content"]
    task = SUITE / "tasks" / "pin-plate-01"
    good = (task / "reference.py").read_text()
    bad = (task / "mutants" / "pin_too_thick.py").read_text()
    assert call(row, f"Here is the program:\n```python\n{good}```\nDone.") == 1.0
    assert call(row, f"```python\n{bad}```") == 0.0
    partial = call(row, f"```python\n{bad}```", cad_partial_credit=True)
    assert 0.0 < partial < 1.0  # some hidden tests and checks pass, not all
    assert call(row, "I cannot do that.", cad_partial_credit=True) == 0.0
    with pytest.raises(UserError, match="task id"):
        reward.compute_score(row["data_source"], good, "bolt-nut-01", row["extra_info"])
