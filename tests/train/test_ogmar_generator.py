"""The ogmar training-problem generator: training respondents only, never values_synth's held-out ones; the
asked respondent leaves the retrieval pool, the asked class is blank, the target is the real answer."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from paperworks.core.errors import UserError
from paperworks.eval.suite import load_suite
from paperworks.train.generators import ogmar

SHIPPED = ogmar.suite_folder()


def _csv(path: Path) -> tuple[list[str], dict[str, dict[str, str]]]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], {r[0]: dict(zip(rows[0], r, strict=True)) for r in rows[1:]}


def _eval_respondents() -> set[str]:
    return {r["respondent_id"] for r in ogmar.suite_rows()}


def test_deterministic_and_seed_dependent() -> None:
    assert ogmar.generate(30, 3) == ogmar.generate(30, 3)
    assert ogmar.generate(30, 3, phrasing="heldout") == ogmar.generate(30, 3, phrasing="heldout")
    assert [r["id"] for r in ogmar.generate(30, 3)] != [r["id"] for r in ogmar.generate(30, 4)]
    rows = ogmar.generate(30, 3)
    assert len(rows) == 30 and len({r["id"] for r in rows}) == 30
    assert len({r["respondent_id"] for r in rows}) == 30  # one item per respondent while they last
    assert list(rows[0]) == list(ogmar.suite_rows()[0])  # the shipped row shape, key for key
    with pytest.raises(ValueError, match="phrasing"):
        ogmar.generate(3, 0, phrasing="test")


def test_no_eval_respondent_ever_appears() -> None:
    eval_rows = ogmar.suite_rows()
    held = _eval_respondents()
    _, pool = _csv(SHIPPED / "population" / "train.csv")
    for seed in range(21):
        for phrasing in ("train", "heldout"):
            rows = ogmar.generate(40, seed, phrasing=phrasing)
            assert not {r["respondent_id"] for r in rows} & held
            assert {r["respondent_id"] for r in rows} <= set(pool)
            assert ogmar.overlap(rows, eval_rows) == []


def test_overlap_flags_a_shared_respondent_or_pair() -> None:
    eval_rows = ogmar.suite_rows()
    rows = ogmar.generate(3, 0)
    assert ogmar.overlap(rows, eval_rows) == []
    same_person = dict(rows[0], id="x1", respondent_id=eval_rows[0]["respondent_id"])
    same_pair = dict(rows[1], id="x2", respondent_id=eval_rows[5]["respondent_id"], item=eval_rows[5]["item"])
    assert ogmar.overlap([rows[2], same_person, same_pair], eval_rows) == ["x1", "x2"]
    assert ogmar.overlap(rows, [dict(rows[1], id="e")]) == [rows[1]["id"]]


def test_train_and_heldout_phrasings_use_disjoint_respondents() -> None:
    train = {r["respondent_id"] for s in range(5) for r in ogmar.generate(200, s)}
    heldout = {r["respondent_id"] for s in range(5) for r in ogmar.generate(200, s, phrasing="heldout")}
    assert train and heldout and not train & heldout
    assert heldout <= set(ogmar.heldout_respondents())
    assert len(ogmar.heldout_respondents()) == 252


def test_draws_are_balanced_and_can_exceed_the_respondents() -> None:
    rows = ogmar.generate(120, 1)
    assert set(Counter(r["region"] for r in rows).values()) == {20}
    assert set(Counter(r["domain"] for r in rows).values()) == {10}
    many = ogmar.generate(600, 2, phrasing="heldout")  # 252 respondents: up to 3 items each
    assert len(many) == 600 and len({r["id"] for r in many}) == 600
    for rid in {r["respondent_id"] for r in many}:
        mine = [r for r in many if r["respondent_id"] == rid]
        assert len({r["domain"] for r in mine}) == len(mine)
        assert all(r["hidden_items"] == mine[0]["hidden_items"] for r in mine)
    with pytest.raises(ValueError, match="at most"):
        ogmar.generate(252 * 12 + 1, 0, phrasing="heldout")


def test_oracle_calls_refuses() -> None:
    with pytest.raises(UserError, match="no scripted oracle for ogmar"):
        ogmar.oracle_calls(ogmar.generate(1, 0)[0])


@pytest.mark.parametrize("phrasing", ["train", "heldout"])
def test_written_suite_hides_the_answer(tmp_path: Path, phrasing: str) -> None:
    rows = ogmar.generate(12, 7, phrasing=phrasing)
    folder = ogmar.write_suite(rows, tmp_path / f"gen_{phrasing}")
    header, original = _csv(SHIPPED / "population" / "train.csv")
    theirs_header, _ = _csv(SHIPPED / "population" / "heldout.csv")
    train_header, train = _csv(folder / "population" / "train.csv")
    held_header, held = _csv(folder / "population" / "heldout.csv")
    assert header == train_header == held_header == theirs_header
    asked = {r["respondent_id"] for r in rows}
    assert set(held) == asked and not asked & set(train)
    assert set(train) <= set(original) and not set(train) & _eval_respondents()
    if phrasing == "train":  # the held-out phrasing's respondents are out of the training pool too
        assert not set(train) & set(ogmar.heldout_respondents())
        assert len(train) == 1200 - 252 - len(asked)
    else:
        assert len(train) == 1200 - len(asked)
    for row in rows:
        rid, item = row["respondent_id"], row["item"]
        real = original[rid]
        assert str(row["answer_value"]) == real[item]
        assert row["answer"] == row["choices"][0 if real[item] == "1" else 1]
        same_class = [r["item"] for r in rows if r["respondent_id"] == rid]
        assert item in row["hidden_items"] and len(row["hidden_items"]) == 2 * len(same_class)
        for column in header[9:]:
            if column in row["hidden_items"]:
                assert held[rid][column] == "", (rid, column)
            else:
                assert held[rid][column] == real[column] != "", (rid, column)
        assert [held[rid][c] for c in header[:9]] == [real[c] for c in header[:9]]
    assert not (folder / "oracle").exists()
    for name in ("population/mapping.yaml", "taxonomy.yaml"):
        assert (folder / name).read_bytes() == (SHIPPED / name).read_bytes()
    lines = (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == rows
    suite = load_suite(str(folder))
    shipped = load_suite(str(SHIPPED))
    assert suite.name == folder.name and suite.spec.data == ["questions.jsonl"]
    assert suite.spec.config == shipped.spec.config and suite.spec.workflow == "ogmar"
    assert [s.target for s in suite.samples] == [r["answer"] for r in rows]


@pytest.mark.slow
def test_generated_suite_runs_in_paperworks_eval(tmp_path: Path) -> None:
    rows = ogmar.generate(2, 11)
    folder = ogmar.write_suite(rows, tmp_path / "gen_run")
    proc = subprocess.run([sys.executable, "-m", "paperworks", "eval", str(folder), "-m", "local/smollm2-135m",
                           "--limit", "2", "-c", "mode=knn", "--log-dir", str(tmp_path / "runs"), "-q"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    samples = [json.loads(line) for line in next((tmp_path / "runs").glob("*/samples.jsonl")).read_text().splitlines()]
    assert [s["status"] for s in samples] == ["succeeded", "succeeded"]
    banned = {r["respondent_id"] for r in rows} | set(ogmar.heldout_respondents()) | _eval_respondents()
    for sample in samples:
        output = sample["output"]
        assert output["decided_by"] == "knn" and output["answer"] in sample["input"]["choices"]
        assert output["visible_answers"] == 126  # the folder's heldout.csv, with the asked class blank
        assert len(output["neighbours"]) == 5
        assert not {n["respondent_id"] for n in output["neighbours"]} & banned
