"""The ``steertts`` workflow with scripted models on the tiny prototype library: the model's intent parse,
the keyword fallback on broken JSON, retrieval and fusion, the fast loop, the Supervisor's re-plan, the
ladder, every render kept as a wav, and bad input as one clear line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from paperworks.core.errors import UserError
from paperworks.models.scripted import register_script
from paperworks.workflows import runner
from paperworks.workflows.registry import get_workflow
from tests.conftest import cli

INPUT = {"text": "You said you would call me before nine.", "instruction": "sad yet hopeful, 60%", "voice": "en-us+f3"}
PARSE = {"when": "Read the speaking instruction",
         "text": '{"emotions": {"sadness": 0.5, "happiness": 0.5}, "intensity": 0.6, "modifiers": []}'}
AGREE = {"when": "Compare the measured voice", "text": '{"agree": true}'}


def run(replies: list[Any], config: dict[str, Any] | None = None, inp: dict[str, Any] | None = None,
        name: str = "steertts") -> tuple[Path, Any]:
    spec = get_workflow("steertts")
    data = inp or INPUT
    run_dir = runner.create_run(spec, data, model=register_script(name, replies),
                                config_values={"library": "tiny", **(config or {})})
    outcome = asyncio.run(runner.execute(run_dir, spec.make_state(spec.parse_input(data))))
    return run_dir.path, outcome


def test_model_parse_retrieval_fusion_and_renders_kept() -> None:
    run_dir, outcome = run([PARSE, AGREE])
    out = outcome.output
    assert outcome.status == "succeeded"
    assert out["parse"]["source"] == "model" and out["parse"]["model_error"] is None
    assert out["intent"]["emotions"] == {"sadness": 0.5, "happiness": 0.5} and out["intent"]["intensity"] == 0.6
    rule, *acoustic = out["anchors"]  # the rule stream's anchor first, then the retrieved prototypes
    assert rule["component"] == "rule" and rule["index"] == -1
    assert {a["component"] for a in acoustic} == {"sadness", "happiness"} and all(a["weight"] == 0.5 for a in acoustic)
    assert sum(a["attention"] for a in out["anchors"]) == pytest.approx(1.0, abs=1e-3)
    assert out["retrieval"] and all("pruned_radius" in r for r in out["retrieval"])
    assert Path(out["wav"]).is_file() and Path(out["neutral_wav"]).is_file()
    assert set(out["control"]) >= {"f0_shift_st", "tempo_scale", "breathiness"}
    assert out["measured"] and "f0_shift" in out["measured"] and out["features"]["f0_mean_hz"] > 0
    for r in out["renders"]:  # every render is a wav inside the run's artifacts
        assert Path(r["wav"]).is_file() and Path(r["wav"]).is_relative_to(run_dir.resolve())
    assert out["supervision"][0]["source"] == "model" and out["supervision"][0]["agree"] is True
    steps = [h["step"] for h in out["history"]]
    assert steps[:3] == ["parse", "synthesize", "render"] and "supervise" in steps and "replan" not in steps
    report = json.loads((run_dir / "artifacts" / "report.json").read_text())
    assert report["wav"] == out["wav"] and (run_dir / "artifacts" / "f0.png").is_file()


def test_broken_json_falls_back_to_the_keyword_parser_and_rules() -> None:
    _, outcome = run(["this is {not json"], name="steertts-broken")
    out = outcome.output
    assert out["parse"]["source"] == "keyword_fallback" and "JSON" in out["parse"]["model_error"]
    assert out["intent"]["emotions"] == {"sadness": 0.5, "happiness": 0.5}  # the keyword table's reading
    sup = out["supervision"][0]
    assert sup["source"] == "rules_fallback" and sup["model_error"]


def test_fast_loop_corrects_until_the_budget_is_spent() -> None:
    _, outcome = run([PARSE, AGREE], {"tolerance_jnd": 0.001, "fast_budget": 3, "max_replans": 0},
                     name="steertts-fast")
    renders = outcome.output["renders"]
    assert [r["iteration"] for r in renders] == [1, 2, 3] and all(r["plan"] == 0 for r in renders)
    assert renders[1]["correction"]["predicted_fit_end"] <= renders[1]["correction"]["predicted_fit_start"]
    assert outcome.output["status"] == "budget_spent" and outcome.output["supervision"] == []  # no re-plan left
    assert outcome.output["error_jnd"] == min(r["error"] for r in renders)


def test_supervisor_replans_the_decomposition() -> None:
    replan = {"when": "Compare the measured voice",
              "text": '{"agree": false, "critique": "not hopeful enough", "emotions": {"sadness": 0.3, '
                      '"happiness": 0.7}, "intensity": 0.6, "modifiers": []}'}
    _, outcome = run([PARSE, replan], {"max_replans": 1, "fast_budget": 1}, name="steertts-replan")
    out = outcome.output
    assert out["supervision"][0]["agree"] is False and out["supervision"][0]["critique"] == "not hopeful enough"
    assert out["intent"]["emotions"] == {"sadness": 0.3, "happiness": 0.7}
    assert [r["name"] for r in out["renders"]] == ["plan0_r1", "plan1_r1"]
    steps = [h["step"] for h in out["history"]]
    assert steps.count("replan") == 1 and steps.count("supervise") == 1  # bounded by max_replans


def test_ladder_renders_three_intensities() -> None:
    _, outcome = run([PARSE, AGREE], {"ladder": True, "ladder_budget": 1, "max_replans": 0}, name="steertts-ladder")
    ladder = outcome.output["ladder"]
    assert [r["intensity"] for r in ladder] == [0.3, 0.6, 1.0]
    assert all(Path(r["wav"]).is_file() for r in ladder) and ladder[1]["reused"] is True


def test_bad_input_is_one_clear_line() -> None:
    spec = get_workflow("steertts")
    with pytest.raises(UserError) as err:
        spec.parse_input({**INPUT, "text": "   "})
    assert "field 'text'" in str(err.value) and "empty" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(UserError) as err:
        spec.parse_input({**INPUT, "voice": "en-xx+zz"})
    assert "field 'voice'" in str(err.value) and "unknown voice" in str(err.value) and "\n" not in str(err.value)
    _, outcome = run(["no idea"], inp={**INPUT, "instruction": "in the manner of a teapot"}, name="steertts-bad")
    assert outcome.status == "failed" and "\n" not in outcome.error
    assert "could not be read" in outcome.error and "names no known emotion" in outcome.error
    assert outcome.error.startswith("instruction 'in the manner of a teapot':")  # a user error, not a crash


def test_cli_bad_voice_prints_one_line(tmp_path: Path) -> None:
    proc = cli("run", "steertts", "-i", json.dumps({**INPUT, "voice": "klingon"}), "-m", "scripted/echo",
               env={"PAPERWORKS_RUNS_DIR": str(tmp_path)})
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "unknown voice 'klingon'" in lines[0], proc.stderr


def test_a_readable_reply_that_contradicts_the_instruction_falls_back() -> None:
    copied = {"when": "Read the speaking instruction",
              "text": '{"emotions": {"tenderness": 1.0}, "intensity": 0.4, "modifiers": ["soft"]}'}
    _, outcome = run([copied, AGREE], {"max_replans": 0}, name="steertts-copied")
    parsed = outcome.output["parse"]
    assert parsed["source"] == "keyword_fallback" and "share none" in parsed["model_error"]
    assert outcome.output["intent"]["emotions"] == {"sadness": 0.5, "happiness": 0.5}
