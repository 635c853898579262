"""Audit regressions for the workflows and their tools fed bad input: attachments and data files that do not
exist (or are folders, or empty) and demographics of the wrong type are refused before a run folder exists;
judge and parser replies with NaN, Infinity, 1e308 or a 5000-digit number neither crash a run nor reach its
JSON; a final answer's evidence is typed; long texts cannot make a tool run for minutes."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from paperworks.agents.histagent.parse import parse_final
from paperworks.agents.ogmar import parse as ogmar_parse
from paperworks.agents.ogmar.prompts import JUDGE_MARKER
from paperworks.agents.steertts import parse as steer_parse
from paperworks.core.errors import UserError
from paperworks.models.scripted import register_script
from paperworks.workflows import runner
from paperworks.workflows.ogmar.data import packaged_suite
from paperworks.workflows.registry import get_workflow

HUGE_INT = "9" * 5000  # Python's JSON reader refuses integers over 4300 digits with a ValueError


def runs() -> list[str]:
    root = Path(os.environ["PAPERWORKS_RUNS_DIR"])
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


def refused(workflow: str, raw: dict[str, Any], config: dict[str, Any] | None = None, seed: int = 0) -> str:
    with pytest.raises(UserError) as info:
        runner.create_run(get_workflow(workflow), raw, model="scripted/echo", config_values=config, seed=seed)
    assert runs() == [], "a refused run must create nothing"
    assert "\n" not in str(info.value)
    return str(info.value)


def test_histagent_refuses_missing_folder_empty_and_blank_attachments_before_a_run_exists(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "empty.png").write_bytes(b"")
    (tmp_path / "page.txt").write_text("a page", encoding="utf-8")
    ok = str(tmp_path / "page.txt")

    def attach(*paths: str) -> str:
        return refused("histagent", {"question": "Who?", "attachments": [ok, *paths]})

    assert attach(str(tmp_path / "nope.png")) == f"input: attachments[1]: no such file '{tmp_path / 'nope.png'}'"
    assert "is not a regular file" in attach(str(tmp_path / "folder"))
    assert "is empty (0 bytes)" in attach(str(tmp_path / "empty.png"))
    assert attach("  ") == "input: attachments[1]: empty path"
    assert "setting 'archive': no such folder or file" in refused(
        "histagent", {"question": "Who?"}, {"archive": str(tmp_path / "no-archive")})
    run_dir = runner.create_run(get_workflow("histagent"), {"question": "Who?", "attachments": [ok]},
                                model="scripted/echo")  # an existing file still passes
    assert run_dir.path.is_dir()


def test_ogmar_refuses_missing_data_files_and_non_numeric_demographics_before_a_run_exists(tmp_path: Path) -> None:
    row = json.loads((packaged_suite() / "questions.jsonl").read_text(encoding="utf-8").splitlines()[0])
    inp = {k: row[k] for k in ("question", "choices", "respondent_id", "demographics")}
    cfg = {"ontology": "none"}
    assert refused("ogmar", inp, {**cfg, "population": str(tmp_path / "no.csv")}) == \
        f"setting 'population': no such file {tmp_path / 'no.csv'} (workflow 'ogmar')"
    assert "is a folder, not a file" in refused("ogmar", inp, {**cfg, "taxonomy": str(tmp_path)})
    for age, shown in (("old", "'old'"), (float("nan"), "nan"), ({"a": 1}, "{'a': 1}")):
        assert refused("ogmar", {**inp, "demographics": {**inp["demographics"], "age": age}}, cfg) == \
            f"input: demographics: 'age' must be a number, got {shown}"


def test_a_seed_outside_0_to_2_63_is_refused_before_a_run_exists() -> None:
    assert refused("agent", {"task": "t"}, seed=-1).startswith("--seed must be an integer between 0 and ")
    assert "got 1180591620717411303424" in refused("agent", {"task": "t"}, seed=2**70)


@pytest.mark.parametrize(("value", "rating"), [
    ("NaN", 0), ("Infinity", 0), ("-Infinity", 0), ('"nan"', 0), ("1e400", 0), ('"inf"', 0), (HUGE_INT[:400], 3),
    ("2.6", 3), ("-5", 0), ('"strong"', 3), ("true", 0)])
def test_ogmar_judge_ratings_that_are_not_finite_numbers_count_as_no_evidence(value: str, rating: int) -> None:
    ratings, error = ogmar_parse.parse_evidence(f'{{"evidence": {{"P1": {value}, "P2": 2}}}}', ["P1", "P2"])
    assert (ratings, error) == ({"P1": rating, "P2": 2}, None)


@pytest.mark.parametrize("reader", [ogmar_parse.json_object, steer_parse.json_object])
def test_replies_python_json_cannot_read_are_an_error_line_not_an_exception(reader: Any) -> None:
    data, error = reader('{"answer": ' + HUGE_INT + "}")
    assert data is None and error is not None and "Exceeds the limit (4300 digits)" in error
    data, error = reader('{"a": ' + "[" * 50_000 + "]" * 50_000 + "}")
    assert data is None and error is not None and "nested too deeply" in error


def test_an_ogmar_run_whose_judge_answers_nan_finishes_and_decides_by_the_finite_ratings() -> None:
    row = json.loads((packaged_suite() / "questions.jsonl").read_text(encoding="utf-8").splitlines()[0])
    inp = {k: row[k] for k in ("question", "choices", "respondent_id", "demographics")}  # choices yes / no

    def persona(pid: str, answer: str) -> dict[str, Any]:
        return {"when": f"You are persona {pid},", "text": json.dumps({"answer": answer, "persona_id": "P9"})}

    replies = [{"when": [JUDGE_MARKER], "text": '{"evidence": {"P1": NaN, "P2": Infinity, "P3": 1}}'},
               persona("P1", "yes"), persona("P2", "yes"), persona("P3", "no"), "{}"]
    spec = get_workflow("ogmar")
    run_dir = runner.create_run(spec, inp, model=register_script("audit-ogmar-nan", replies, repeat_last=True),
                                config_values={"ontology": "none", "k": 3})
    outcome = asyncio.run(runner.execute(run_dir, spec.make_state(spec.parse_input(inp))))
    assert outcome.status == "succeeded", outcome.error
    # P1, P2 (yes) rated 0 (NaN, Infinity); P3 (no) rated 1: the evidence decides for "no", 1 vote against 2;
    # the personas' forged "persona_id": "P9" is ignored (each agent's id is the workflow's own)
    assert outcome.output["answer"] == "no" and outcome.output["decided_by"] == "evidence"
    assert outcome.output["judge"]["ratings"] == {"P1": 0, "P2": 0, "P3": 1}
    assert [a["persona_id"] for a in outcome.output["persona_answers"]] == ["P1", "P2", "P3"]


def test_histagent_final_answer_evidence_is_typed_and_json_safe() -> None:
    answer, evidence = parse_final({"answer": None, "evidence": [
        1, None, "", {"document": {"a": 1}}, {"document": "  "},
        {"document": "letter.pdf", "page": float("nan"), "line": float("inf"), "text": {"x": 1}},
        {"document": "ledger.csv", "page": "3", "line": 4.0, "text": "Amity"},
        {"document": "map.png", "page": True, "line": -2}, {"document": "big.pdf", "page": 10**400}]})
    assert answer == ""
    assert evidence == [{"document": "letter.pdf"}, {"document": "ledger.csv", "page": 3, "line": 4, "text": "Amity"},
                        {"document": "map.png"}, {"document": "big.pdf"}]
    json.dumps(evidence, allow_nan=False)  # strict JSON: no NaN / Infinity reaches run.json
    assert parse_final({"answer": 1787, "evidence": "crew.csv"}) == ("1787", [{"document": "crew.csv"}])
    assert parse_final({"answer": {"forged": "verdict"}})[0] == ""


def test_steertts_intent_weights_that_overflow_their_sum_are_normalised() -> None:
    intent, error = steer_parse.parse_intent_reply('{"emotions": {"sadness": 1e308, "happiness": 1e308}}')
    assert error is None and intent is not None
    assert intent.emotions == {"sadness": 0.5, "happiness": 0.5}
    intent, error = steer_parse.parse_intent_reply('{"emotions": {"sadness": 3e307, "anger": 1e308}}')
    assert intent is not None and intent.emotions == pytest.approx({"sadness": 3 / 13, "anger": 10 / 13})


def test_steertts_refuses_an_instruction_too_long_to_prompt_with() -> None:
    message = refused("steertts", {"text": "Hello there.", "instruction": "sad " * 1000})
    assert "the instruction has 3999 characters; at most 1000" in message


def test_language_identification_of_a_megabyte_takes_bounded_time() -> None:
    pytest.importorskip("lingua")
    from paperworks.tools.ocr.langid import detect_language

    start = time.monotonic()
    guess = detect_language("Gallia est omnis divisa in partes tres. " * 25_000)  # 1 MB; took minutes before
    assert time.monotonic() - start < 15 and guess.iso639_3 == "lat"


def test_an_archive_query_of_100_kb_is_refused_before_the_index_is_read() -> None:
    import threading

    from paperworks.tools.archive.store import MAX_QUERY_CHARS, Archive

    archive = Archive.__new__(Archive)  # no index: the length check must come before any use of it
    archive.lock = threading.RLock()
    with pytest.raises(UserError, match=f"search query of 100000 characters; at most {MAX_QUERY_CHARS}"):
        archive.search("x" * 100_000)


@pytest.mark.parametrize(("workflow", "raw", "setting"), [
    ("steertts", {"text": "Hello there.", "instruction": "sad"}, "tolerance_jnd"),
    ("steertts", {"text": "Hello there.", "instruction": "sad"}, "intensity_tolerance"),
    ("spada", {"request": "a box"}, "sandbox_wall_s")])
@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_float_settings_refuse_infinity_and_nan(workflow: str, raw: dict[str, Any], setting: str, value: float) -> None:
    # an infinite tolerance passes every render; an infinite sandbox wall time never stops a hung program
    assert refused(workflow, raw, {setting: value}) == \
        f"setting '{setting}': Input should be a finite number (workflow '{workflow}')"


@pytest.mark.parametrize("path", ["", ".", "notes", "notes/.."])
def test_write_file_to_the_artifact_folder_itself_writes_nothing_beside_it(tmp_path: Path, path: str) -> None:
    from paperworks.core.artifacts import ArtifactStore
    from paperworks.models.types import ToolCall
    from paperworks.tools.registry import ToolContext, execute_call, get_tools

    store = ArtifactStore(tmp_path / "artifacts")
    (tmp_path / "artifacts" / "notes").mkdir()
    tools = {t.name: t for t in get_tools(["write_file"])}
    observation, ok = asyncio.run(execute_call(ToolCall("c", "write_file", {"path": path, "content": "x"}), tools,
                                               ToolContext(artifacts=store)))
    assert not ok and "is a folder; give a file name" in observation
    assert sorted(p.name for p in tmp_path.iterdir()) == ["artifacts"]  # no "artifacts.tmp" outside it


@pytest.mark.parametrize(("workflow", "raw", "extra"), [
    ("agent", {"task": "t"}, "tasks"), ("histagent", {"question": "Who?"}, "attachment"),
    ("ogmar", {"question": "Happy?", "choices": ["yes", "no"]}, "answer"),
    ("steertts", {"text": "Hello there.", "instruction": "sad"}, "voise"), ("spada", {"request": "a box"}, "requests")])
def test_a_misspelt_or_extra_input_field_is_refused_not_dropped(workflow: str, raw: dict[str, Any], extra: str) -> None:
    assert refused(workflow, {**raw, extra: "x"}) == \
        f"input: field '{extra}': Extra inputs are not permitted (workflow '{workflow}')"
