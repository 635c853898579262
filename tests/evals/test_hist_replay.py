"""hist_offline through ``paperworks eval`` with the real ``histagent`` workflow and a scripted model
that replays each row's oracle: the manager delegates to the specialist of every tool the row needs,
the specialist calls that tool on the row's attachment (or the archive), and the manager answers with
the row's answer and evidence (100%), or with a wrong answer (0%)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from paperworks.eval import harness
from paperworks.workflows.registry import get_workflow
from tests.conftest import ROOT

SUITE = ROOT / "evals" / "hist_offline"
ROWS = {r["id"]: r for r in map(json.loads, (SUITE / "samples.jsonl").read_text(encoding="utf-8").splitlines())}
SPECIALIST = {"ocr": "ocr", "translate": "translator", "archive_search": "archive", "read_file": "file_reader",
              "image_info": "image_analyst"}
EVIDENCE = get_workflow("histagent").scorers["evidence"]
OCR_LANG = {"deu": "deu+frk", "zho": "chi_tra"}


def _tool_call(tool: str, row: dict[str, Any]) -> dict[str, Any]:
    """The call the oracle specialist makes for one of the row's tools."""
    files = row["attachments"]
    quote = row["evidence"][0]["text"]
    if tool == "ocr":
        scan = next(f for f in files if f.endswith((".png", ".jpg")))
        lang = Path(scan).name.split("_")[0]
        return {"name": "ocr", "arguments": {"path": scan, "languages": OCR_LANG.get(lang, lang)}}
    if tool == "read_file":
        return {"name": "read_document", "arguments": {"path": files[0]}}
    if tool == "image_info":
        return {"name": "describe_image", "arguments": {"path": files[0]}}
    if tool == "archive_search":
        return {"name": "archive_search", "arguments": {"query": quote, "k": 5}}
    return {"name": "translate_text", "arguments": {"text": quote, "target": "eng", "engine": "freedict"}}


def oracle_replies(row: dict[str, Any], wrong: bool) -> list[dict[str, Any]]:
    """Scripted replies for one row, keyed by its question (``when``) and the role's step."""
    q = row["question"]
    out: list[dict[str, Any]] = []
    step = 0
    for tool in row["tools"]:
        step += 1
        if tool == "calculate":
            out.append({"when": [q, f"manager step {step} of"], "tool_calls": [
                {"name": "calculate", "arguments": {"expression": str(row["answer"])}}]})
            continue
        name = SPECIALIST[tool]
        out.append({"when": [q, f"manager step {step} of"], "tool_calls": [
            {"name": f"ask_{name}", "arguments": {"task": f"use {tool} on the attachment"}}]})
        role = f"[role: {name.replace('_', ' ')} specialist]"
        out.append({"when": [q, role, "specialist step 1 of"], "tool_calls": [_tool_call(tool, row)]})
        out.append({"when": [q, role, "specialist step 2 of"], "text": f"{tool} done"})
    answer = "no such thing" if wrong else str(row["answer"])
    out.append({"when": [q, f"manager step {step + 1} of"], "tool_calls": [
        {"name": "final_answer", "arguments": {"answer": answer, "evidence": row["evidence"]}}]})
    return out


def replay_model(tmp: Path, rows: list[dict[str, Any]], wrong: bool) -> str:
    replies = [r for row in rows for r in oracle_replies(row, wrong)]
    replies += [{"when": "Write a plan", "text": "1. read the attachment 2. answer"},
                {"when": "Revise the plan", "text": "answer now"},
                {"when": "[role: reformulator]", "text": "no such thing" if wrong else "(unused)"}]
    path = tmp / ("wrong.json" if wrong else "oracle.json")
    path.write_text(json.dumps({"replies": replies}), encoding="utf-8")
    return f"scripted/{path}"


def _eval(tmp: Path, ids: list[str], wrong: bool) -> tuple[float, Path]:
    rows = [ROWS[i] for i in ids]
    run = harness.create_eval(harness.EvalArgs(
        suite="hist_offline", model=replay_model(tmp, rows, wrong), sample_ids=ids, epochs=1, concurrency=2,
        log_dir=str(tmp / ("w" if wrong else "o"))))
    results = asyncio.run(harness.run_eval(run))
    assert results.errors == {}, results.errors
    return results.metrics["match/accuracy"]["value"], run.path


def _samples(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]


FAST = ["scan-03", "file-01", "file-07", "file-10", "file-12"]


@pytest.mark.slow
def test_oracle_replay_scores_100_and_a_wrong_answer_0(tmp_path: Path) -> None:
    acc, run_dir = _eval(tmp_path, FAST, wrong=False)
    assert acc == 1.0
    metrics = json.loads((run_dir / "results.json").read_text())["metrics"]
    for level in {ROWS[i]["level"] for i in FAST}:  # per level and per tool (suite.yaml group_by)
        assert metrics[f"match/accuracy[level={level}]"]["value"] == 1.0
        assert metrics[f"match/pass@1[level={level}]"]["n"] == sum(ROWS[i]["level"] == level for i in FAST)
    for tool in {t for i in FAST for t in ROWS[i]["tools"]}:
        assert metrics[f"match/accuracy[tools={tool}]"]["value"] == 1.0, tool
    for s in _samples(run_dir):
        row = ROWS[s["id"]]
        out = s["output"]
        assert out["evidence"] == row["evidence"], s["id"]
        used = [u["tool"] for u in out["tools_used"]]
        assert len(used) == len(row["tools"]) and all(u["ok"] for u in out["tools_used"]), (s["id"], used)
        sample = SimpleNamespace(metadata={"evidence": row["evidence"]})
        assert asyncio.run(EVIDENCE(sample, out, out["answer"], None)).passed is True
        assert asyncio.run(EVIDENCE(sample, {**out, "evidence": []}, out["answer"], None)).value == 0.0
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    assert {e["tool"] for e in events if e["type"] == "tool_call"} == {"ocr", "describe_image", "read_document",
                                                                         "calculate"}
    acc, _ = _eval(tmp_path, FAST, wrong=True)
    assert acc == 0.0


@pytest.mark.slow
def test_oracle_replay_with_the_archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERWORKS_HOME", str(tmp_path / "home"))  # ingests the suite's 222 documents afresh
    ids = [r["id"] for r in ROWS.values() if r["tools"] == ["archive_search"]][:2]
    acc, run_dir = _eval(tmp_path, ids, wrong=False)
    assert acc == 1.0
    for s in _samples(run_dir):
        search = s["output"]["tools_used"][0]
        assert search["tool"] == "archive_search" and search["ok"], search
        doc = Path(ROWS[s["id"]]["evidence"][0]["document"]).name
        assert doc in search["output"], (doc, search["output"][:300])  # the oracle's passage is retrieved
