"""Speech recognition on speech synthesised in the test (espeak-ng), and video frames (ffmpeg)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("pocketsphinx")
pytestmark = pytest.mark.skipif(not (shutil.which("espeak-ng") and shutil.which("ffmpeg")),
                                reason="espeak-ng and ffmpeg are needed")

from paperworks.core.errors import UserError  # noqa: E402
from paperworks.tools.documents.model import BadFileError  # noqa: E402
from paperworks.tools.speech_rec import decode_pcm, extract_frames, transcribe  # noqa: E402

CHOICES = ["the battle of hastings", "the treaty of westphalia", "the congress of vienna", "the fall of rome"]


def speak(text: str, path: Path) -> Path:
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "130", "-w", str(path), text], check=True)
    return path


@pytest.mark.parametrize("spoken", ["the treaty of westphalia", "the battle of hastings", "the fall of rome"])
def test_phrase_choice_from_synthesised_speech(tmp_path: Path, spoken: str) -> None:
    result = transcribe(speak(spoken, tmp_path / "q.wav"), CHOICES)
    assert result.choice == spoken and result.duration_s > 0.5
    assert result.words and all(0 <= a <= b <= result.duration_s + 0.1 for _, a, b in result.words)


def test_free_dictation_returns_timed_words(tmp_path: Path) -> None:
    result = transcribe(speak("the king signed the treaty", tmp_path / "s.wav"))
    assert result.text and result.engine == "pocketsphinx en-us" and result.choice is None
    starts = [a for _, a, _ in result.words]
    assert starts == sorted(starts)


def test_audio_errors(tmp_path: Path) -> None:
    bad = tmp_path / "noise.wav"
    bad.write_bytes(b"RIFF nonsense")
    with pytest.raises(BadFileError, match=r"noise\.wav: not readable audio"):
        decode_pcm(bad)
    with pytest.raises(BadFileError, match=r"gone\.mp3: no such file"):
        transcribe(tmp_path / "gone.mp3")
    with pytest.raises(UserError, match="not in the en-us pronunciation dictionary: qwxzt"):
        transcribe(speak("hello", tmp_path / "h.wav"), ["qwxzt"])


def test_video_frames_carry_readable_text(tmp_path: Path) -> None:
    pytest.importorskip("pytesseract")
    from paperworks.tools.ocr import ocr_image
    from tests.fixtures.hist_render import render

    for i, text in enumerate(["Anno 1648", "Anno 1815"]):
        render(text, "serif", size=48).resize((400, 160)).save(tmp_path / f"slide{i}.png")
    video = tmp_path / "film.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-framerate", "1/3", "-i", str(tmp_path / "slide%d.png"),
                    "-vf", "fps=10,format=yuv420p", "-c:v", "mpeg4", str(video)], check=True)
    frames = extract_frames(video, tmp_path / "frames", every_s=3.0)
    assert [t for t, _ in frames][:2] == [0.0, 3.0]
    texts = [ocr_image(p, "eng", psm=7).text for _, p in frames[:2]]
    assert texts == ["Anno 1648", "Anno 1815"]
    with pytest.raises(BadFileError, match="not a readable video"):
        extract_frames(speak("hi", tmp_path / "a.wav"), tmp_path / "f2")  # sound only


def test_tools(tmp_path: Path) -> None:
    from paperworks.core.artifacts import ArtifactStore
    from paperworks.models.types import ToolCall
    from paperworks.tools.registry import ToolContext, execute_call
    from paperworks.tools.speech_rec import tools as sp

    store = ArtifactStore(tmp_path / "artifacts")
    speak("the congress of vienna", store.root / "q.wav")
    ctx = ToolContext(artifacts=store)
    call = ToolCall("1", "transcribe_audio", {"path": "q.wav", "phrases": "|".join(CHOICES)})
    obs, ok = asyncio.run(execute_call(call, {"transcribe_audio": sp.transcribe_audio}, ctx))
    assert ok and "best matching phrase: the congress of vienna" in obs
