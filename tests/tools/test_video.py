"""Video frames on a video made in the test (PIL slides encoded by ffmpeg): the ``video_frames`` tool
lists frames whose times match what they show, OCR reads the text of a frame, and a corrupt video
is one clear line while the calls after it go on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.fixtures.hist_video import HAS_FFMPEG, make_video

pytestmark = pytest.mark.skipif(not HAS_FFMPEG, reason="ffmpeg is needed")

SLIDES = ["Anno 1648", "Folio 27 verso", "Pax Westphalica"]


def call(tool: str, ctx: object, **arguments: object) -> tuple[str, bool]:
    from paperworks.models.types import ToolCall
    from paperworks.tools.ocr import tools as ocr_tools
    from paperworks.tools.registry import execute_call
    from paperworks.tools.speech_rec import tools as sp

    tools = {"video_frames": sp.video_frames, "ocr": ocr_tools.ocr}
    return asyncio.run(execute_call(ToolCall("1", tool, dict(arguments)), tools, ctx))  # type: ignore[arg-type]


@pytest.fixture
def ctx(tmp_path: Path) -> object:
    from paperworks.core.artifacts import ArtifactStore
    from paperworks.tools.registry import ToolContext

    return ToolContext(artifacts=ArtifactStore(tmp_path / "artifacts"))


def test_frames_tool_then_ocr_reads_the_text_of_a_frame(tmp_path: Path, ctx: object) -> None:
    pytest.importorskip("pytesseract")
    video = make_video(tmp_path / "artifacts" / "clip.mp4", SLIDES, seconds_each=2.0)
    listing, ok = call("video_frames", ctx, path="clip.mp4", every_s=2.0)
    assert ok, listing
    lines = listing.splitlines()
    assert lines[0].startswith("3 frame(s) of clip.mp4, one every 2 s")
    assert lines[1:] == ["0.0s\tframes/clip_0001.png", "2.0s\tframes/clip_0002.png", "4.0s\tframes/clip_0003.png"]
    text, ok = call("ocr", ctx, path="frames/clip_0002.png")
    assert ok and "Folio 27 verso" in text, text
    assert video.is_file()


def test_frame_times_match_what_the_frames_show(tmp_path: Path) -> None:
    pytest.importorskip("pytesseract")
    from paperworks.tools.ocr import ocr_image
    from paperworks.tools.speech_rec import extract_frames

    video = make_video(tmp_path / "clip.mp4", SLIDES, seconds_each=2.0)
    frames = extract_frames(video, tmp_path / "frames", every_s=2.5)  # slots 0-2.5, 2.5-5, 5-6
    assert [t for t, _ in frames] == [0.0, 2.5, 5.0]
    assert [ocr_image(p, "eng", psm=7).text for _, p in frames] == SLIDES
    assert [t for t, _ in extract_frames(video, tmp_path / "frames", every_s=5.0)] == [0.0, 5.0]
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == ["clip_0001.png", "clip_0002.png"]  # replaced
    assert len(extract_frames(video, tmp_path / "frames", every_s=1.0, max_frames=4)) == 4


@pytest.mark.parametrize(("name", "content", "reason"), [
    ("garbage.mp4", b"this is not a video at all", "moov atom not found"),
    ("truncated.mp4", None, "moov atom not found"),
    ("empty.mp4", b"", "the file is empty"),
    ("header_only.wav", b"RIFF", "invalid data found when processing input"),
])
def test_a_corrupt_video_is_one_clear_line_and_the_next_call_goes_on(
        tmp_path: Path, ctx: object, name: str, content: bytes | None, reason: str) -> None:
    root = tmp_path / "artifacts"
    good = make_video(root / "clip.mp4", SLIDES[:1], seconds_each=1.0)
    bad = root / name
    bad.write_bytes(good.read_bytes()[:2000] if content is None else content)
    observation, ok = call("video_frames", ctx, path=name)
    assert not ok and "\n" not in observation
    assert observation.startswith(f"error: {bad}: not a readable video (") and reason in observation, observation
    listing, ok = call("video_frames", ctx, path="clip.mp4")
    assert ok and "frames/clip_0001.png" in listing


def test_audio_only_file_has_no_video_stream(tmp_path: Path) -> None:
    import wave

    from paperworks.tools.documents.model import BadFileError
    from paperworks.tools.speech_rec import extract_frames

    wav = tmp_path / "speech.wav"
    with wave.open(str(wav), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(b"\0\0" * 16000)
    with pytest.raises(BadFileError, match=r"speech\.wav: not a readable video \(no video stream\)$"):
        extract_frames(wav, tmp_path / "frames")
    with pytest.raises(BadFileError, match=r"gone\.mp4: no such file"):
        extract_frames(tmp_path / "gone.mp4", tmp_path / "frames")
