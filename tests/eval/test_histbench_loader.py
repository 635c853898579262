"""The HistBench loader on small spreadsheets written here: rows, attachments and one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openpyxl import Workbook

from paperworks.core.errors import UserError
from paperworks.eval.histbench import answer_type, attachment_names, histbench_suite, load_histbench, sheet_level

ROOT = Path(__file__).resolve().parents[2]
HEAD = ["ID", "Question", "Answer", "Data Requirements", "Answer Type"]


def _book(path: Path, sheets: dict[str, list[list[Any]]]) -> Path:
    wb = Workbook()
    for i, (name, rows) in enumerate(sheets.items()):
        ws = wb.active if i == 0 else wb.create_sheet()
        assert ws is not None
        ws.title = name
        for row in rows:
            ws.append(row)
    wb.save(path)
    return path


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    files = tmp_path / "attachments"
    (files / "level2").mkdir(parents=True)
    (files / "scroll_12.jpg").write_bytes(b"jpg")
    (files / "level2" / "Chronicle 3.pdf").write_bytes(b"%PDF")
    (files / "map.tif").write_bytes(b"tif")
    _book(tmp_path / "HistBench.xlsx", {
        "Level 1": [HEAD,
                    [1, "Who signed the charter?", "Aldric", "None", "Exact Match"],
                    [2, "How many ships sailed?", 12.0, "", "numeric"],
                    [None, None, None, None, None]],
        "Level 2": [["answer type", "id", "question", "answer", "data_requirements"],
                    ["Multiple Choice", 7, "Which script is this? A) Latin B) Greek", "B", "Image: scroll_12.jpg"],
                    ["open-ended", 8, "Summarise the entry.", "A grant of land.", "PDF: Chronicle 3.pdf; map.tif"]],
        "Level 3": [HEAD, [1, "Date the map.", 1650, "map.tif", "Numeric"]],
    })
    return tmp_path


def test_rows_from_every_sheet(bench: Path) -> None:
    rows = load_histbench(bench / "HistBench.xlsx")
    assert [r["id"] for r in rows] == ["histbench-L1-1", "histbench-L1-2", "histbench-L2-7", "histbench-L2-8",
                                       "histbench-L3-1"]
    assert [r["level"] for r in rows] == [1, 1, 2, 2, 3]
    assert [r["answer_type"] for r in rows] == ["exact", "numeric", "multiple_choice", "open", "numeric"]
    first, second, mc, open_, last = rows
    assert first["question"] == "Who signed the charter?" and first["answer"] == "Aldric"
    assert first["attachments"] == [] and first["data_requirements"] == "None"
    assert second["answer"] == 12 and isinstance(second["answer"], int)
    att = bench / "attachments"
    assert mc["attachments"] == [str((att / "scroll_12.jpg").resolve())]
    assert open_["attachments"] == [str((att / "level2" / "Chronicle 3.pdf").resolve()),
                                    str((att / "map.tif").resolve())]
    assert last["answer"] == 1650 and last["source_id"] == "1"
    assert last["sources"] == ["HistBench, sheet 'Level 3', row 2"]
    # the same shape as evals/hist_offline rows
    assert {"id", "question", "answer", "answer_type", "level", "tools", "attachments", "evidence"} <= set(first)


def test_folder_argument_finds_the_workbook(bench: Path) -> None:
    assert len(load_histbench(bench)) == 5
    assert len(load_histbench(bench / "HistBench.xlsx", attachments=bench / "attachments")) == 5


def _error(tmp_path: Path, sheets: dict[str, list[list[Any]]], **kw: Any) -> str:
    book = _book(tmp_path / "bad.xlsx", sheets)
    (tmp_path / "attachments").mkdir(exist_ok=True)
    with pytest.raises(UserError) as info:
        load_histbench(book, attachments=tmp_path / "attachments", **kw)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_missing_column(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"Level 1": [["ID", "Question", "Answer", "Answer Type"], [1, "q", "a", "exact"]]})
    assert "sheet 'Level 1'" in msg and "missing column 'Data Requirements'" in msg and "bad.xlsx" in msg


def test_bad_level(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"Level 4": [HEAD, [1, "q", "a", "", "exact"]]})
    assert "sheet 'Level 4': level 4 from the sheet name is outside 1-3" in msg
    assert "sheet 'Notes'" in _error(tmp_path, {"Notes": [HEAD, [1, "q", "a", "", "exact"]]})


def test_missing_attachment(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"Level 2": [HEAD, [1, "q", "a", "", "exact"], [5, "q", "a", "gone.png", "exact"]]})
    assert "sheet 'Level 2', row 3 (ID 5)" in msg
    assert "column 'Data Requirements'" in msg and "'gone.png' not found" in msg


def test_bad_cells(tmp_path: Path) -> None:
    msg = _error(tmp_path, {"Level 1": [HEAD, [1, "q", "a", "", "essayish"]]})
    assert "row 2" in msg and "column 'Answer Type'" in msg and "'essayish'" in msg
    msg = _error(tmp_path, {"Level 1": [HEAD, [1, "q", None, "", "exact"]]})
    assert "row 2: column 'Answer' is empty" in msg
    msg = _error(tmp_path, {"Level 1": [HEAD, [3, "q", "a", "", "exact"], [3, "r", "b", "", "exact"]]})
    assert "row 3: column 'ID': duplicate ID '3' (first at row 2)" in msg


def test_not_a_workbook(tmp_path: Path) -> None:
    bad = tmp_path / "broken.xlsx"
    bad.write_bytes(b"not a zip")
    with pytest.raises(UserError, match="broken.xlsx: not a readable .xlsx workbook"):
        load_histbench(bad)
    with pytest.raises(UserError, match="no such file"):
        load_histbench(tmp_path / "absent.xlsx")


def test_helpers() -> None:
    assert sheet_level("Level 2") == 2 and sheet_level("L3") == 3 and sheet_level("Notes") is None
    assert answer_type("Exact Match") == "exact" and answer_type("Open-ended") == "open"
    assert answer_type("MCQ") == "multiple_choice" and answer_type("riddle") is None
    assert attachment_names("Image: 12_scroll.jpg; see https://example.org/x.png, notes.txt") == \
        ["12_scroll.jpg", "notes.txt"]
    assert attachment_names("none") == [] and attachment_names("v3.2 of the text") == []


def test_suite_with_hist_offline_settings(bench: Path) -> None:
    suite = histbench_suite(bench, template=ROOT / "evals" / "hist_offline" / "suite.yaml")
    assert suite.name == "histbench" and suite.spec.epochs == 2 and suite.spec.workflow == "histagent"
    assert [s.name for s in suite.spec.scorers] == ["match"]  # the judge needs --judge-model: opt in
    assert [s.id for s in suite.samples][:2] == ["histbench-L1-1", "histbench-L1-2"]
    mc = suite.samples[2]
    assert mc.input == {"question": "Which script is this? A) Latin B) Greek",
                        "attachments": [str((bench / "attachments" / "scroll_12.jpg").resolve())]}
    assert mc.target == "B" and mc.metadata["level"] == 2 and mc.metadata["answer_type"] == "multiple_choice"
    assert mc.metadata["data_requirements"] == "Image: scroll_12.jpg"
    assert mc.source == "HistBench, sheet 'Level 2', row 2"


def test_eval_histbench_data_creates_and_resumes(bench: Path, tmp_path: Path) -> None:
    """`paperworks eval histbench --data PATH`: the suite comes from the workbook, also on resume."""
    from paperworks.core.errors import UserError
    from paperworks.eval import harness
    from paperworks.eval.sample_runner import EvalSetup

    logs = tmp_path / "runs"
    run = harness.create_eval(harness.EvalArgs(suite="histbench", model="scripted/echo", data=str(bench),
                                               log_dir=str(logs), limit=2))
    record = run.read_record()
    assert record["suite"] == "histbench" and record["suite_data"] == str(bench.resolve())
    assert record["sample_ids"] == ["histbench-L1-1", "histbench-L1-2"]
    setup = EvalSetup.from_record(run.path, record)
    assert setup.suite.spec.name == "histbench" and len(setup.suite.samples) == len(histbench_suite(bench).samples)
    with pytest.raises(UserError, match=r"^suite 'histbench' is built from your copy of its data: pass --data"):
        harness.create_eval(harness.EvalArgs(suite="histbench", model="scripted/echo", log_dir=str(logs)))
    with pytest.raises(UserError, match=r"^--data/--attachments are only for histbench, not 'arith'"):
        harness.create_eval(harness.EvalArgs(suite="arith", model="scripted/echo", data=str(bench), log_dir=str(logs)))
    assert [p.name for p in logs.iterdir()] == [run.path.name]  # nothing created for the refused ones
