"""``paperworks tts say | voices | measure``, and the report helpers (F0 plot, audio HTML)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paperworks.cli.app import _main
from paperworks.tools.speech import Audio, read_wav
from paperworks.tools.speech.plots import audio_html, f0_plot
from tests.conftest import ROOT

pytest.importorskip("parselmouth")
pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")


def ok(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    try:
        _main(list(argv))
    except SystemExit as exc:
        assert exc.code in (0, None), capsys.readouterr().err
    return capsys.readouterr().out


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exc:
        _main(list(argv))
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 1, err
    assert err.startswith("error: ") and "\n" not in err, err
    return err


def test_say_writes_wav_plot_and_measures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, png = tmp_path / "o" / "angry.wav", tmp_path / "angry.png"
    text = ok(capsys, "tts", "say", "I told you twice already.", "--intent", "angry but restrained, 60%",
              "--voice", "en-us+f3", "-c", "intensity_db=4", "--out", str(out), "--plot", str(png), "--measure")
    audio = read_wav(out)
    assert audio.sr == 22050 and 0.8 < audio.duration < 4.0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "wrote" in text and "voice en-us+f3" in text and "intensity_db=4" in text
    assert "f0_shift_st" in text and "commanded" in text


def test_measure_prints_features_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, n = tmp_path / "a.wav", tmp_path / "n.wav"
    assert "voice en-us, control f0_shift_st=4" in ok(capsys, "tts", "say", "Hello there.", "-c", "f0_shift_st=4",
                                                      "--out", str(a))
    ok(capsys, "tts", "say", "Hello there.", "--out", str(n))
    text = ok(capsys, "tts", "measure", str(a))
    assert "f0_mean_hz" in text and "spectral_tilt_db_per_oct" in text
    doc = json.loads(ok(capsys, "tts", "measure", str(a), "--neutral", str(n), "--json"))
    assert doc["relative"]["f0_shift_st"] == pytest.approx(4.0, abs=0.5)
    assert list(doc["features"])[0] == "f0_mean_hz"


def test_voices(capsys: pytest.CaptureFixture[str]) -> None:
    text = ok(capsys, "tts", "voices")
    assert text.startswith("speakers: en-us ") and "en-us+f3" in text
    assert "languages:" not in text
    full = ok(capsys, "tts", "voices", "--all")
    assert "\nlanguages: " in full and " de " in full and "\nvariants: " in full and " f3 " in full


@pytest.mark.parametrize(("argv", "expected"), [
    (["say", ""], "error: text to speak is empty"),
    (["say", "hi", "--voice", "xx-yy"], "error: unknown voice 'xx-yy'"),
    (["say", "hi", "-c", "f0_shift_st=40"], "error: control f0_shift_st=40 is out of bounds [-12, 12]"),
    (["say", "hi", "-c", "pitch=2"], "error: unknown control 'pitch'; valid controls: f0_shift_st"),
    (["say", "hi", "-c", "tempo_scale"], "error: --control expects key=value, got 'tempo_scale'"),
    (["say", "hi", "--intent", "purple elephant"], "error: intent 'purple elephant' names no known emotion"),
])
def test_say_refuses_bad_flags_before_writing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              argv: list[str], expected: str) -> None:
    out = tmp_path / "x.wav"
    assert refused(capsys, "tts", *argv, "--out", str(out)).startswith(expected)
    assert not out.exists()


def test_bad_paths_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(capsys, "tts", "say", "hi", "--out", str(tmp_path / "x.mp3")) == \
        f"error: --out must name a .wav file, got '{tmp_path / 'x.mp3'}'"
    assert refused(capsys, "tts", "say", "hi", "--out", str(tmp_path / "x.wav"), "--plot", "p.jpg").startswith(
        "error: --plot must name a .png file")
    assert not (tmp_path / "x.wav").exists()
    assert refused(capsys, "tts", "measure", str(tmp_path / "missing.wav")) == \
        f"error: no audio file {tmp_path / 'missing.wav'}"
    (tmp_path / "junk.wav").write_text("not audio")
    assert "is not a PCM WAV file" in refused(capsys, "tts", "measure", str(tmp_path / "junk.wav"))


def test_help_does_not_load_audio_libraries() -> None:
    code = ("import sys; import paperworks.cli.app; "
            "print(sorted(m for m in ('parselmouth', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_f0_plot_and_audio_html(tmp_path: Path) -> None:
    from paperworks.tools.speech import ControlVector, neutral, render

    ref = neutral("Are you sure?")
    up = render("Are you sure?", ControlVector(f0_final_st=6))
    png = f0_plot(up, ref, tmp_path / "f0.png", title="final rise")
    assert png.stat().st_size > 5000
    silent = f0_plot(Audio(np.zeros(8000, dtype=np.float32), 16000), None, tmp_path / "none.png")
    alone = f0_plot(up, None, tmp_path / "alone.png")  # the rendered contour is drawn without a neutral too
    assert alone.stat().st_size > 1.3 * silent.stat().st_size
    wav = up.write(tmp_path / "say it.wav")
    assert audio_html(wav) == '<audio controls preload="none" src="say it.wav"></audio>'
    assert audio_html(wav, href="a/b&c.wav") == '<audio controls preload="none" src="a/b&amp;c.wav"></audio>'
    assert audio_html(wav, inline=True).startswith('<audio controls preload="none" src="data:audio/wav;base64,UklGR')
