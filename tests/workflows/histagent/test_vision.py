"""HistAgent's image analyst and images: a vision model gets the image attachments and the video frames
as image content parts (base64 JPEG data URLs, downscaled), a model without vision gets text only and the
text tools; and the image analyst calls the frames tool on a video attachment, then OCR on a frame."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from paperworks.agents.histagent.vision import frames_listed, spread, with_images
from paperworks.core.events import read_events
from paperworks.core.runs import RunDir
from paperworks.eval.transcript import load_prompt
from paperworks.models.gateway import supports_vision
from paperworks.models.scripted import register_script
from tests.fixtures.hist_video import HAS_FFMPEG, make_video
from tests.workflows.histagent.test_graph import CSV, JPG, PLAN, call, manager, specialist

ANALYST = "[role: image analyst specialist]"


def analyst_prompts(run_dir: RunDir) -> list[list[dict[str, Any]]]:
    """The messages of every request the image analyst made, in order."""
    out = []
    for event in read_events(run_dir.events_path):
        if event["type"] == "model_call":
            prompt = load_prompt(run_dir.events_path.parent, event) or {}
            messages = prompt.get("messages") or []
            if messages and ANALYST in str(messages[0].get("content")):
                out.append(messages)
    return out


def image_parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [p for p in content if p.get("type") == "image_url"] if isinstance(content, list) else []


def decoded(part: dict[str, Any]) -> Image.Image:
    url = part["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def test_scripted_models_declare_vision(tmp_path: Path) -> None:
    assert supports_vision(register_script("v-yes", ["x"], vision=True))
    assert not supports_vision(register_script("v-no", ["x"]))
    assert not supports_vision(register_script("v-yes", ["x"]))  # re-registered without vision
    script = tmp_path / "eyes.json"
    script.write_text(json.dumps({"replies": ["x"], "vision": True}))
    assert supports_vision(f"scripted/{script}")
    script.write_text(json.dumps(["x"]))
    assert not supports_vision(f"scripted/{script}") and not supports_vision("local/smollm2-135m")


def run_with_vision(name: str, replies: list[Any], vision: bool, **kw: Any) -> tuple[RunDir, Any]:
    """``run`` with the script registered as a vision model (or not)."""
    import asyncio

    from paperworks.workflows import runner
    from paperworks.workflows.registry import get_workflow

    spec = get_workflow("histagent")
    raw = {"question": kw.pop("question", "What is written?"), "attachments": kw.pop("attachments", [])}
    run_dir = runner.create_run(spec, raw, model=register_script(name, replies, vision=vision),
                                config_values=kw.pop("config", None))
    return run_dir, asyncio.run(runner.execute(run_dir, spec.make_state(spec.parse_input(raw))))


def image_replies() -> list[Any]:
    return [*PLAN, specialist("image analyst", 1, call("describe_image", path="stkea_headstone_112.jpg")),
            specialist("image analyst", 2, "a headstone photograph, 760x860"),
            manager(1, call("ask_image_analyst", task="what does the image show?")),
            manager(2, call("final_answer", answer="a headstone"))]


@pytest.mark.parametrize(("vision", "mode", "sees"), [
    (True, "auto", True), (False, "auto", False), (True, "never", False), (False, "always", True)])
def test_the_image_analyst_sends_image_parts_only_to_a_vision_model(vision: bool, mode: str, sees: bool) -> None:
    run_dir, outcome = run_with_vision(f"hv-{vision}-{mode}", image_replies(), vision, attachments=[JPG, CSV],
                                       config={"vision": mode, "vision_side": 256, "replan_every": 0})
    assert supports_vision(run_dir.read_record()["model"]) is vision
    assert outcome.status == "succeeded", outcome.error
    used = outcome.output["tools_used"]
    assert [(u["specialist"], u["tool"], u["ok"]) for u in used] == [("image_analyst", "describe_image", True)]
    assert "760x860 pixels" in used[0]["output"]  # the text tools work for every model
    prompts = analyst_prompts(run_dir)
    assert len(prompts) == 2
    for messages in prompts:
        task = messages[1]
        if not sees:
            assert isinstance(task["content"], str) and "stkea_headstone_112.jpg" in task["content"]
            assert not any(image_parts(m) for m in messages)
            continue
        [part] = image_parts(task)  # the JPEG, not the CSV
        texts = [p["text"] for p in task["content"] if p["type"] == "text"]
        assert "Task from the manager: what does the image show?" in texts[0] and "at most 256 px" in texts[0]
        assert texts[1] == "[image: stkea_headstone_112.jpg]"
        img = decoded(part)
        assert max(img.size) == 256 and img.size == (round(760 * 256 / 860), 256)
    every = [json.dumps(e) for e in read_events(run_dir.events_path) if e["type"] == "model_call"]
    assert not any("image_url" in e for e in every)  # the events hold a prompt reference, not the bytes


@pytest.mark.skipif(not HAS_FFMPEG, reason="ffmpeg is needed")
@pytest.mark.parametrize("vision", [True, False])
def test_the_image_analyst_takes_frames_of_a_video_attachment_and_reads_one(tmp_path: Path, vision: bool) -> None:
    pytest.importorskip("pytesseract")
    video = make_video(tmp_path / "clip.mp4", ["Anno 1648", "Folio 27 verso", "Pax Westphalica"])
    replies = [*PLAN,
               specialist("image analyst", 1, call("video_frames", path="clip.mp4", every_s=2)),
               specialist("image analyst", 2, call("ocr", path="frames/clip_0002.png")),
               specialist("image analyst", 3, "the frame at 2.0 s reads 'Folio 27 verso'"),
               manager(1, call("ask_image_analyst", task="read the text shown at 2 s")),
               manager(2, call("final_answer", answer="Folio 27 verso",
                               evidence=[{"document": str(video), "text": "Folio 27 verso"}]))]
    run_dir, outcome = run_with_vision(f"hv-video-{vision}", replies, vision, attachments=[str(video)],
                                       config={"replan_every": 0, "vision_images": 2})
    assert outcome.status == "succeeded", outcome.error
    used = outcome.output["tools_used"]
    assert [(u["tool"], u["ok"]) for u in used] == [("video_frames", True), ("ocr", True)], used
    assert used[0]["arguments"]["path"] == str(video.resolve())  # the attachment, named by its file name
    assert "2.0s\tframes/clip_0002.png" in used[0]["output"] and "Folio 27 verso" in used[1]["output"]
    assert outcome.output["answer"] == "Folio 27 verso"
    assert (run_dir.path / "artifacts" / "frames" / "clip_0003.png").is_file()
    first, second, third = analyst_prompts(run_dir)
    assert not any(image_parts(m) for m in first)  # a video is not an image attachment
    if not vision:
        assert not any(image_parts(m) for m in [*second, *third])
        return
    roles = [m["role"] for m in second]
    assert roles == ["system", "user", "assistant", "tool", "user"]  # the frames follow the tool result
    frames = second[-1]["content"]
    labels = [p["text"] for p in frames if p["type"] == "text"]
    assert labels == ["Frames of the video from the video_frames result above (time: file):",
                      "[image: 0.0s: frames/clip_0001.png]", "[image: 2.0s: frames/clip_0002.png]"]  # 2 of 3
    assert [decoded(p).size for p in image_parts(second[-1])] == [(480, 160), (480, 160)]
    assert [m["role"] for m in third] == ["system", "user", "assistant", "tool", "user", "assistant", "tool"]


def test_with_images_places_frames_after_all_tool_results_and_names_bad_images(tmp_path: Path) -> None:
    root = tmp_path / "artifacts"
    (root / "frames").mkdir(parents=True)
    for i in range(1, 5):
        Image.new("RGB", (64, 32), (i * 40, 0, 0)).save(root / "frames" / f"v_000{i}.png")
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    listing = "4 frame(s) of v.mp4, one every 1 s:\n" + "\n".join(f"{i - 1}.0s\tframes/v_000{i}.png"
                                                                   for i in range(1, 5))
    messages: list[Any] = [
        {"role": "system", "content": "sys"}, {"role": "user", "content": "task"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "a"}, {"id": "b"}]},
        {"role": "tool", "tool_call_id": "a", "name": "video_frames", "content": listing},
        {"role": "tool", "tool_call_id": "b", "name": "ocr", "content": "text"},
        {"role": "assistant", "content": "report"}]
    before = json.dumps(messages)
    out = with_images(messages, [str(bad), str(tmp_path / "notes.csv")], root, max_images=3, max_side=32)
    assert json.dumps(messages) == before  # a new list; the state is not changed
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool", "tool", "user", "assistant"]
    task_texts = [p["text"] for p in out[1]["content"]]
    assert task_texts[1].startswith("[bad.png: could not be attached as an image: ") and "not a readable image" in \
        task_texts[1]
    assert not image_parts(out[1])
    frames = out[5]["content"]
    # the bad attachment used one of the 3 slots: 2 of the 4 frames, evenly spaced
    assert [p["text"] for p in frames if p["type"] == "text"][1:] == ["[image: 0.0s: frames/v_0001.png]",
                                                                      "[image: 2.0s: frames/v_0003.png]"]
    assert [decoded(p).size for p in image_parts(out[5])] == [(32, 16), (32, 16)]
    escaped = with_images([{"role": "user", "content": "t"},
                           {"role": "tool", "name": "video_frames", "content": "0.0s\t../../etc/passwd"}],
                          [], root)
    assert len(escaped) == 2  # a listed path outside the artifact folder is not read
    assert frames_listed("error: clip.mp4: not a readable video (x)") == []
    assert spread([1, 2, 3, 4, 5, 6], 3) == [1, 3, 5] and spread([1, 2], 5) == [1, 2] and spread([1], 0) == []
