"""The spada training-problem generator: deterministic draws, distinct phrasings, no spada_bench item ever
(refused by ``overlap``, redrawn by ``generate``, refused by ``train``), a suite folder the harness loads,
and — through the real judge (the ``spada`` scorer and its CAD sandbox) — references that pass their
generated hidden tests and mutants that fail them; the oracle trajectory passes the real SPADA graph and
becomes one SFT example per model call."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paperworks.core.errors import UserError
from paperworks.eval.suite import load_suite
from paperworks.train.generators import GENERATORS, spada
from paperworks.train.problems import ProblemSource

ROOT = Path(__file__).resolve().parents[2]

# SPADA-Bench's pin-plate-01 and shaft-bore-01, as parameters of the generator's families
PIN_PLATE_01 = {"plate": "plate", "pin": "pin", "length": 80, "width": 50, "t": 6, "hx": 0, "hy": 0, "hole": 8.4,
                "d": 8, "shank": 20, "head": 14, "head_h": 3}
SHAFT_BORE_01 = {"housing": "housing", "shaft": "shaft", "lx": 60, "ly": 50, "lz": 50, "axis": 30, "bore": 20.2,
                 "d": 20, "start": -40.0, "length": 110, "collar": 28, "collar_len": 5}


def test_registered_and_deterministic() -> None:
    assert GENERATORS["spada"] is spada
    rows = spada.generate(10, 3)
    assert rows == spada.generate(10, 3)
    assert spada.generate(10, 3, phrasing="heldout") == spada.generate(10, 3, phrasing="heldout")
    assert [r["request"] for r in rows] != [r["request"] for r in spada.generate(10, 4)]
    assert len({r["id"] for r in rows}) == 10
    assert {r["family"] for r in rows} == set(spada.FAMILIES)  # round-robin: each family twice
    suite_keys = set(spada.suite_rows()[0])
    assert all(suite_keys <= set(r) for r in rows)  # every key of a SPADA-Bench row
    with pytest.raises(ValueError, match="phrasing"):
        spada.generate(2, 0, phrasing="test")


def test_parameters_vary_with_the_seed() -> None:
    for name in spada.FAMILIES:
        drawn = [spada.FAMILIES[name].draw(random.Random(s)) for s in range(8)]
        assert len({tuple(sorted(p.items())) for p in drawn}) == 8, name
        assert len({v for p in drawn for k, v in p.items() if isinstance(v, str)}) > 2, name  # part names vary


def test_phrasings_word_the_same_contract_differently() -> None:
    rng = random.Random(0)
    for name, fam in spada.FAMILIES.items():
        params = fam.draw(rng)
        train = [w(params) for w in fam.requests["train"]]
        heldout = [w(params) for w in fam.requests["heldout"]]
        texts = [spada._norm(t) for t in train + heldout]
        assert len(set(texts)) == len(texts), name
        for text in train + heldout:  # every wording names every part (numbered parts by their prefix)
            assert all((part.rsplit("_", 1)[0] if part[-1].isdigit() else f"`{part}`") in text
                       for part in fam.parts(params)), (name, text)
    heldout_rows = spada.generate(10, 3, phrasing="heldout")
    for row in heldout_rows:
        fam = spada.FAMILIES[row["family"]]
        assert row["request"] not in {w(row["params"]) for w in fam.requests["train"]}
    assert not {r["request"] for r in heldout_rows} & {r["request"] for r in spada.generate(10, 3)}


def test_overlap_finds_suite_items_by_text_and_by_parameters() -> None:
    suite = spada.suite_rows()
    for family, params in (("pin_plate", PIN_PLATE_01), ("shaft_bore", SHAFT_BORE_01)):
        for wording in (0, 1):  # our own wordings of the suite's problem: same family numbers
            assert spada.overlap([spada.make_row(family, params, "x", wording=wording)], suite) == ["x"]
        near = dict(params, d=params["d"] - 1)  # one number off: a different problem
        assert spada.overlap([spada.make_row(family, near, "y")], suite) == []
    row = spada.generate(1, 0)[0]
    assert spada.overlap([row], suite) == []
    assert spada.overlap([dict(row, id="t", request=suite[7]["request"].upper())], suite) == ["t"]
    assert spada.overlap([dict(row, id="a", request_abstract=suite[2]["request_abstract"])], suite) == ["a"]
    for seed in range(2):
        for phrasing in spada.PHRASINGS:
            assert spada.overlap(spada.generate(10, seed, phrasing=phrasing), suite) == []
    rows = spada.generate(5, 1)
    renamed = [dict(r, id=f"c{k}", request="reworded") for k, r in enumerate(rows)]  # same family and params
    assert spada.overlap(renamed, rows) == [f"c{k}" for k in range(5)]


def test_generate_redraws_problems_that_collide(monkeypatch: pytest.MonkeyPatch) -> None:
    first = spada.generate(6, 9)
    monkeypatch.setattr(spada, "suite_rows", lambda like=spada.LIKE: first)
    again = spada.generate(6, 9)
    assert len(again) == 6 and spada.overlap(again, first) == []


def test_train_refuses_problems_that_overlap_the_eval_suite(tmp_path: Path) -> None:
    source = ProblemSource("gen:spada", "spada_bench")
    rows = source.step_rows(3, 0, 4)
    source.check_disjoint([rows, source.heldout_rows(3, 4), source.sft_rows(3, 4)])
    written = source.write(rows, tmp_path / "rollouts" / "step-000000" / "suite")  # what a training step runs
    assert written.spec.workflow == "spada" and [s.id for s in written.samples] == [r["id"] for r in rows]
    copy = spada.make_row("pin_plate", PIN_PLATE_01, "gen-copy", wording=1)
    with pytest.raises(UserError, match="overlap the eval suite 'spada_bench'.*gen-copy"):
        source.check_disjoint([[copy]])


def test_write_suite_is_a_suite_like_spada_bench(tmp_path: Path) -> None:
    rows = spada.generate(5, 6)
    folder = spada.write_suite(rows, tmp_path / "gen-suite")
    suite, bench = load_suite(str(folder)), load_suite("spada_bench")
    assert suite.spec.name == "gen-suite"
    for key in ("workflow", "scorers", "limits", "config", "generation", "target", "metadata", "input"):
        assert getattr(suite.spec, key) == getattr(bench.spec, key), key
    assert [s.id for s in suite.samples] == [r["id"] for r in rows]
    for sample, row in zip(suite.samples, rows, strict=True):
        assert sample.input == {"request": row["request"]}
        assert sample.metadata["constraints"]["min_parts"] == row["parts"] == len(
            spada.FAMILIES[row["family"]].parts(row["params"]))
        for rel in [sample.target, row["reference"], *row["mutants"]]:
            assert (folder / rel).is_file(), rel
        tests = (folder / sample.target).read_text()
        assert "def test_" in tests and all(repr(p) in tests for p in spada.FAMILIES[row["family"]].parts(row["params"])
                                            if not p[-1].isdigit())
    abstract = spada.write_suite(rows, tmp_path / "gen-abstract", like="spada_bench_abstract")
    assert load_suite(str(abstract)).samples[0].input == {"request": rows[0]["request_abstract"]}


def _score(sample: Any, code: str) -> tuple[float, dict[str, Any]]:
    from paperworks.workflows.spada.score import score_spada

    score = asyncio.run(score_spada(sample, {"code": code, "iterations": 1}, "assembly.py", None))
    return score.value, score.details


@pytest.mark.slow
def test_references_pass_and_mutants_fail_through_the_judge(tmp_path: Path) -> None:
    """pin_plate, box_lid and bolt_circle (one module each): the generated reference scores 1 with the
    generated hidden tests in the spada scorer's sandbox, a mutant scores 0, and hidden tests generated
    for other dimensions fail the reference."""
    pytest.importorskip("cadquery")
    wanted = ("pin_plate", "box_lid", "bolt_circle")
    rows = [r for r in spada.generate(5, 21) if r["family"] in wanted]
    folder = spada.write_suite(rows, tmp_path / "judge")
    suite = load_suite(str(folder))
    for sample, row in zip(suite.samples, rows, strict=True):
        reference = (folder / row["reference"]).read_text()
        value, details = _score(sample, reference)
        assert value == 1.0, (row["family"], details)
        assert len(details["tests"]) >= 4 and all(t["passed"] for t in details["tests"])
        mutant = row["mutants"][len(row["id"]) % len(row["mutants"])]
        value, details = _score(sample, (folder / mutant).read_text())
        assert value == 0.0, (mutant, details)
    # the hidden tests judge the parameters: tests written for a 1 mm thicker pin fail the reference
    row = next(r for r in rows if r["family"] == "pin_plate")
    other = spada.make_row("pin_plate", dict(row["params"], d=row["params"]["d"] + 1, hole=row["params"]["hole"] + 1),
                           row["id"])
    spada.write_suite([other], tmp_path / "other")
    sample = load_suite(str(tmp_path / "other")).samples[0]
    value, details = _score(sample, (folder / row["reference"]).read_text())
    assert value == 0.0
    assert {t["name"] for t in details["tests"] if not t["passed"]} >= {"test_plate_hole", "test_pin_shank"}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paperworks", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)


@pytest.mark.slow
def test_train_cli_accepts_gen_spada_with_and_without_oracle_sft() -> None:
    base = ["train", "spada", "--suite", "gen:spada", "--eval-suite", "spada_bench", "--steps", "0"]
    for extra in ([], ["--sft-from", "oracle"], ["--eval-suite", "spada_bench_abstract"]):
        got = _cli(*base, *extra)  # every check passes; only the run folder is missing
        lines = got.stderr.strip().splitlines()
        assert got.returncode == 1 and len(lines) == 1 and "give --out DIR" in lines[0], got.stderr


class _Engine:
    """A stand-in for the served model: prompt ids are the rendered messages' characters, tokens the text's."""

    def __init__(self) -> None:
        self.rendered: list[list[dict[str, str]]] = []
        self.core = self

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        self.rendered.append(messages)
        return [ord(c) for c in json.dumps(messages)]

    def tokenize(self, text: str, special: bool = False) -> list[int]:
        return [-1] if special else [ord(c) for c in text]


def test_oracle_sft_examples_are_the_graph_prompts_and_the_oracle_replies(tmp_path: Path) -> None:
    from paperworks.agents.spada import prompts
    from paperworks.train.sft import oracle_examples

    rows = spada.generate(2, 4)
    suite = spada.write_suite(rows, tmp_path / "sft")
    items = [(s.input, r) for s, r in zip(load_suite(str(suite)).samples, rows, strict=True)]
    engine = _Engine()
    examples = oracle_examples(items, spada.oracle_calls, "spada", {}, engine)
    assert len(examples) == 6  # write_spec, write_code, write_tests per problem
    row, calls = rows[1], spada.oracle_calls(rows[1])
    assert [c["node"] for c in calls] == ["write_spec", "write_code", "write_tests"]
    code = (suite / row["reference"]).read_text()
    assert calls[1]["reply"] == f"```python\n{code}```"
    hidden = (suite / row["hidden_tests"]).read_text().split("\n", 1)
    assert "Hidden tests" in hidden[0] and calls[2]["reply"] == f"```python\n{spada.ORACLE_TESTS_DOC}{hidden[1]}```"
    spec_prompt, code_prompt, tests_prompt = engine.rendered[3:6]
    assert spec_prompt[-1]["content"] == prompts.spec_messages(row["request"])[-1]["content"]
    assert all(f'"name": "{p["name"]}"' in code_prompt[-1]["content"] for p in spada.oracle_spec(row)["parameters"])
    assert code in tests_prompt[-1]["content"] and row["request"] in tests_prompt[-1]["content"]
    for (prompt, target), rendered, call in zip(examples[3:], engine.rendered[3:], calls, strict=True):
        assert prompt == [ord(c) for c in json.dumps(rendered)]
        assert target == [ord(c) for c in call["reply"]] + [-1]
    assert len(oracle_examples(items, spada.oracle_calls, "spada", {"write_tests": False}, engine)) == 4
    with pytest.raises(UserError, match="fcgraft_references"):
        oracle_examples(items, spada.oracle_calls, "spada", {"fcgraft_references": 2}, engine)


@pytest.mark.slow
def test_the_oracle_trajectory_passes_the_real_spada_graph(tmp_path: Path) -> None:
    """The oracle's replies, served by a scripted model, make a SPADA run that passes its own tests and
    checks first time, and whose program the scorer passes."""
    pytest.importorskip("cadquery")
    from paperworks.models.scripted import register_script
    from paperworks.workflows import runner
    from paperworks.workflows.registry import get_workflow

    row = next(r for r in spada.generate(5, 13) if r["family"] == "standoff_stack")
    replies = {c["node"]: c["reply"] for c in spada.oracle_calls(row)}
    model = register_script("spada-oracle", [
        {"when": "Reply with JSON only", "text": replies["write_spec"]},
        {"when": "You write CadQuery assembly programs", "text": replies["write_code"]},
        {"when": "You write tests for CadQuery", "text": replies["write_tests"]},
    ])
    spec = get_workflow("spada")
    run = runner.create_run(spec, row["request"], model=model, config_values={"renders": False,
                                                                               "max_iterations": 1})
    outcome = asyncio.run(runner.execute(run, spec.make_state(spec.parse_input(row["request"]))))
    assert outcome.status == "succeeded", outcome.error
    out = outcome.output
    assert out["ok"] and out["iterations"] == 1 and out["tests_passed"] == out["tests_total"] >= 3, out
    folder = spada.write_suite([row], tmp_path / "oracle")
    value, details = _score(load_suite(str(folder)).samples[0], out["code"])
    assert value == 1.0, details
