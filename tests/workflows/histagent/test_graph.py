"""The ``histagent`` workflow through the runner with scripted models: delegation to each specialist,
plan revision every k turns, specialist step budgets, tool errors as observations, the manager's
budget, chat follow-ups keeping evidence, and resume after a kill."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import wave
from pathlib import Path
from typing import Any

import pytest

from paperworks.core.events import read_events
from paperworks.core.runs import RunDir
from paperworks.models.scripted import register_script
from paperworks.workflows import runner
from paperworks.workflows.registry import get_workflow
from tests.conftest import ROOT, cli

SUITE = ROOT / "evals" / "hist_offline"
CSV = str(SUITE / "attachments" / "tables" / "amity_crew_1787.csv")
JPG = str(SUITE / "attachments" / "images" / "stkea_headstone_112.jpg")
PLAN = [{"when": "Write a plan", "text": "1. ask a specialist 2. answer"},
        {"when": "Revise the plan", "text": "revised: answer now"}]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": name, "arguments": arguments}]}


def manager(step: int, reply: Any) -> dict[str, Any]:
    reply = {"text": reply} if isinstance(reply, str) else reply
    return {**reply, "when": f"manager step {step} of"}


def specialist(name: str, step: int, reply: Any) -> dict[str, Any]:
    reply = {"text": reply} if isinstance(reply, str) else reply
    return {**reply, "when": [f"[role: {name} specialist]", f"specialist step {step} of"]}


def run(script: str, replies: list[Any], question: str = "How many?", attachments: list[str] | None = None,
        config: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    spec = get_workflow("histagent")
    raw = {"question": question, "attachments": attachments or []}
    run_dir = runner.create_run(spec, raw, model=register_script(script, replies), config_values=config)
    outcome = asyncio.run(runner.execute(run_dir, spec.make_state(spec.parse_input(raw))))
    return run_dir, outcome


def tool_events(run_dir: RunDir) -> list[dict[str, Any]]:
    return [e for e in read_events(run_dir.events_path) if e["type"] == "tool_call"]


def test_delegates_to_the_file_reader_and_answers_with_evidence() -> None:
    evidence = [{"document": CSV, "page": 1, "line": 3, "text": "Tregothnan"}]
    replies = [*PLAN,
               specialist("file reader", 1, call("read_document", path=CSV)),
               specialist("file reader", 2, "the crew list has 46 rows (amity_crew_1787.csv)"),
               manager(1, call("ask_file_reader", task="count the crew in the CSV")),
               manager(2, call("final_answer", answer="Final answer: 46.", evidence=evidence))]
    run_dir, outcome = run("h-file", replies, attachments=[CSV])
    assert outcome.status == "succeeded", outcome.error
    out = outcome.output
    assert out["answer"] == "46" and out["evidence"] == evidence and out["status"] == "done"
    used = [(u["specialist"], u["tool"], u["ok"]) for u in out["tools_used"]]
    assert used == [("file_reader", "read_document", True)]
    assert "amity_crew_1787.csv" in out["tools_used"][0]["output"]
    assert out["reports"][0]["specialist"] == "file_reader" and "46 rows" in out["reports"][0]["report"]
    assert out["plan"].startswith("1. ask")
    events = tool_events(run_dir)
    assert [(e["tool"], e["ok"]) for e in events] == [("read_document", True)]
    nodes = [e["node"] for e in read_events(run_dir.events_path) if e["type"] == "node_end"]
    assert nodes[:4] == ["read_question", "write_plan", "manage", "dispatch"] and "ask_file_reader" in nodes


@pytest.mark.parametrize(("name", "tool", "args"), [
    ("archive", "archive_list", {}),
    ("ocr", "identify_language", {"text": "In principio erat verbum et verbum erat apud Deum"}),
    ("translator", "identify_language", {"text": "Im Anfang war das Wort, und das Wort war bei Gott"}),
    ("file reader", "calculate", {"expression": "312 - 46"}),
    ("image analyst", "describe_image", {"path": JPG}),
    ("speech", "transcribe_audio", {"path": "silence.wav"}),
])
def test_each_specialist_uses_its_own_tools(name: str, tool: str, args: dict[str, Any], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERWORKS_HOME", str(tmp_path / "home"))  # the archive's cached index goes there
    key = name.replace(" ", "_")
    replies = [*PLAN, specialist(name, 1, call(tool, **args)), specialist(name, 2, f"{name} report"),
               manager(1, call(f"ask_{key}", task="look")), manager(2, call("final_answer", answer="x"))]
    config = {"archive": str(tmp_path / "empty-archive")} if key == "archive" else None
    wav = tmp_path / "silence.wav"
    with wave.open(str(wav), "wb") as out:  # one second of silence, an attachment named by its file name
        out.setnchannels(1), out.setsampwidth(2), out.setframerate(16000), out.writeframes(b"\0\0" * 16000)
    if config:
        (tmp_path / "empty-archive").mkdir()
        (tmp_path / "empty-archive" / "note.md").write_text("# Note\n\nThe mill burned in 1711.\n")
    _, outcome = run(f"h-each-{key}", replies, attachments=[JPG, str(wav)], config=config)
    assert outcome.status == "succeeded", outcome.error
    used = outcome.output["tools_used"]
    assert [(u["specialist"], u["tool"], u["ok"]) for u in used] == [(key, tool, True)], used
    assert outcome.output["reports"][0]["report"] == f"{name} report"


def test_uncited_answers_fall_back_to_what_the_tools_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERWORKS_HOME", str(tmp_path / "home"))
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "mill.md").write_text("# Mill accounts\n\nThe mill at Penvose burned in 1711.\n")
    replies = [*PLAN, specialist("archive", 1, call("archive_search", query="Penvose mill burned", k=1)),
               specialist("archive", 2, "it burned in 1711 (mill.md)"),
               manager(1, call("ask_archive", task="when did the mill burn?")), manager(2, "1711")]
    _, outcome = run("h-fallback", replies, config={"archive": str(folder)})
    assert outcome.status == "succeeded", outcome.error
    assert outcome.output["answer"] == "1711"
    [item] = outcome.output["evidence"]
    assert item["document"] == str((folder / "mill.md").resolve()) and item["tool"] == "archive_search"
    assert item["line"] >= 1
    assert "Penvose burned in 1711" in outcome.output["tools_used"][0]["output"]


def test_a_tool_outside_the_specialists_set_and_a_bad_file_are_observations() -> None:
    replies = [*PLAN,
               specialist("ocr", 1, {"text": "", "tool_calls": [
                   {"name": "read_document", "arguments": {"path": CSV}},
                   {"name": "ocr", "arguments": {"path": str(SUITE / "no-such.png")}}]}),
               specialist("ocr", 2, "both tools failed"),
               manager(1, call("ask_ocr", task="read it")),
               manager(2, call("ask_nobody", task="?")),
               manager(3, "I could not read the file.")]
    run_dir, outcome = run("h-err", replies, config={"replan_every": 0, "reformulate": "never"})
    assert outcome.status == "succeeded", outcome.error
    used = outcome.output["tools_used"]
    assert [(u["tool"], u["ok"]) for u in used] == [("read_document", False), ("ocr", False), ("ask_nobody", False)]
    assert used[0]["output"].startswith("error: no tool named 'read_document'")
    assert used[1]["output"].startswith("error:") and "no-such.png" in used[1]["output"]
    assert outcome.output["answer"] == "I could not read the file"
    assert [e["ok"] for e in tool_events(run_dir)] == [False, False, False]


def test_long_observations_and_reports_are_cut_in_the_prompts_but_not_the_trace() -> None:
    replies = [*PLAN,
               {"when": ["[role: file reader specialist]", "more characters cut; ask for less"], "text": "R" * 900},
               specialist("file reader", 1, call("read_document", path=CSV)),
               {"when": ["manager step 2 of", "RRRR", "more characters cut"], **call("final_answer", answer="cut")},
               manager(1, call("ask_file_reader", task="read")), manager(2, call("final_answer", answer="whole"))]
    run_dir, outcome = run("h-clip", replies, attachments=[CSV],
                           config={"observation_chars": 200, "report_chars": 300, "replan_every": 0})
    assert outcome.status == "succeeded", outcome.error
    assert outcome.output["answer"] == "cut"  # the manager saw the report cut
    assert outcome.output["reports"][0]["report"] == "R" * 900  # the output keeps it whole
    [event] = tool_events(run_dir)
    assert len(event["observation"]) > 200 and "more characters cut" not in event["observation"]


def test_a_specialist_is_stopped_at_its_step_budget() -> None:
    replies = [*PLAN, {"when": "[role: file reader specialist]", **call("calculate", expression="1+1")},
               manager(1, call("ask_file_reader", task="loop")), manager(2, call("final_answer", answer="2"))]
    _, outcome = run("h-sub-limit", replies, config={"specialist_steps": 3, "replan_every": 0})
    assert outcome.status == "succeeded", outcome.error
    assert len(outcome.output["tools_used"]) == 2  # turns 1, 2 ran their tools; turn 3 was cut off
    report = outcome.output["reports"][0]["report"]
    assert report.startswith("(stopped after its budget of 3 steps") and "Last observation: 2" in report


def test_the_plan_is_revised_every_k_turns_and_the_manager_has_a_budget() -> None:
    replies = [*PLAN, {"when": "manager step", **call("calculate", expression="2*3")}]
    _, outcome = run("h-replan", replies, config={"replan_every": 2, "max_steps": 5})
    assert outcome.status == "step_limit"
    out = outcome.output
    assert out["steps"] == 5 and out["revisions"] == 2  # after turns 2 and 4
    assert out["plan"] == "revised: answer now" and len(out["tools_used"]) == 4
    _, never = run("h-replan", replies, config={"replan_every": 0, "max_steps": 3})
    assert never.output["revisions"] == 0 and never.output["plan"].startswith("1. ask")


def test_a_long_answer_is_reformulated_by_the_model() -> None:
    replies = [*PLAN, {"when": "[role: reformulator]", "text": "Eben Tregothnan."},
               manager(1, "The pilot who brought the brig over the bar was, according to line 7, Eben Tregothnan.")]
    _, outcome = run("h-reform", replies)
    assert outcome.output["answer"] == "Eben Tregothnan"


def test_chat_keeps_the_evidence_across_turns() -> None:
    evidence = [{"document": CSV, "page": 1, "line": 2, "text": "Jory"}]
    replies = [*PLAN,
               {"when": ["Who else?", "Evidence found so far", "amity_crew_1787.csv, page 1, line 2"],
                **call("final_answer", answer="Jory again")},
               manager(1, call("final_answer", answer="Jory", evidence=evidence))]
    spec = get_workflow("histagent")
    run_dir = runner.create_run(spec, None, model=register_script("h-chat", replies), kind="chat")
    first = asyncio.run(runner.execute(run_dir, spec.chat_turn("Who is first?")))
    assert first.output["answer"] == "Jory" and first.output["evidence"] == evidence
    second = asyncio.run(runner.execute(run_dir, spec.chat_turn("Who else?")))
    assert second.status == "succeeded", second.error
    assert second.output["answer"] == "Jory again" and second.output["evidence"] == evidence


def _hang_script(path: Path, marker: Path) -> None:
    """A script file: the file reader's report waits on a marker file (so a test can kill it there)."""
    replies = [*PLAN,
               specialist("file reader", 1, call("read_document", path=CSV)),
               {"when": ["[role: file reader specialist]", "specialist step 2 of"], "text": "46 rows",
                "delay_s": 60},
               manager(1, call("ask_file_reader", task="count")),
               manager(2, call("final_answer", answer="46"))]
    path.write_text(json.dumps(replies))
    marker.write_text("hang")


@pytest.mark.slow
def test_resume_after_a_kill_mid_specialist(tmp_path: Path) -> None:
    script = tmp_path / "hang.json"
    _hang_script(script, tmp_path / "marker")
    runs = Path(os.environ["PAPERWORKS_RUNS_DIR"])
    proc = subprocess.Popen(
        [sys.executable, "-m", "paperworks", "run", "histagent", "--model", f"scripted/{script}",
         "-i", json.dumps({"question": "How many crew?", "attachments": [CSV]})],
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            logs = list(runs.glob("*/events.jsonl"))
            if logs and any(e["type"] == "tool_call" for e in read_events(logs[0])):
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the run never reached its tool call")
        time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    run_dir = RunDir(next(runs.iterdir()))
    assert run_dir.read_record()["status"] == "running"
    replies = json.loads(script.read_text())
    for r in replies:
        r.pop("delay_s", None) if isinstance(r, dict) else None
    script.write_text(json.dumps(replies))
    result = cli("run", "--resume", run_dir.id)
    assert result.returncode == 0, result.stderr
    record = run_dir.read_record()
    assert record["status"] == "succeeded" and record["output"]["answer"] == "46"
    # the tool call that finished before the kill was checkpointed: it is not made again
    assert [e["tool"] for e in tool_events(run_dir)] == ["read_document"]
    assert [u["tool"] for u in record["output"]["tools_used"]] == ["read_document"]


@pytest.mark.slow
def test_paperworks_chat_keeps_evidence_and_resumes(tmp_path: Path) -> None:
    evidence = [{"document": CSV, "page": 1, "line": 2, "text": "Jory"}]
    script = tmp_path / "chat.json"
    script.write_text(json.dumps([
        *PLAN,
        {"when": ["Who else?", "Evidence found so far", "amity_crew_1787.csv, page 1, line 2"],
         **call("final_answer", answer="Pascoe")},
        manager(1, call("final_answer", answer="Jory", evidence=evidence))]))
    first = cli("chat", "--workflow", "histagent", "-m", f"scripted/{script}", input="Who is first?\n/exit\n")
    assert first.returncode == 0, first.stderr
    assert "assistant> Jory" in first.stdout
    run_id = first.stdout.split("paperworks chat --resume ")[-1].split()[0]
    again = cli("chat", "--resume", run_id, input="Who else?\n")
    assert again.returncode == 0, again.stderr
    assert "assistant> Pascoe" in again.stdout  # only found with the first turn's evidence in the prompt
