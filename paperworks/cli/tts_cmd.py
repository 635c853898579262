"""``paperworks tts say TEXT [--intent ...] [--voice V] [--control k=v ...] --out FILE.wav``,
``paperworks tts voices [--all]``, ``paperworks tts measure FILE.wav [--neutral FILE.wav] [--json]``.

The offline speech engine (espeak-ng + PSOLA). ``--intent`` is read by the keyword table of
``paperworks.tools.speech.intent`` (no model); ``--control`` values are applied on top of it.
Every flag is checked before anything is rendered or written. numpy/parselmouth load inside commands.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from paperworks.core.errors import UserError

tts_app = typer.Typer(name="tts", help="Speech with continuous prosody control (offline: espeak-ng + PSOLA).",
                      no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
console = Console(soft_wrap=True)


def _wav_path(path: Path, flag: str) -> Path:
    if path.suffix.lower() != ".wav":
        raise UserError(f"{flag} must name a .wav file, got '{path}'")
    if path.exists() and path.is_dir():
        raise UserError(f"{flag} '{path}' is a folder, not a .wav file")
    return path


@tts_app.command("say")
def say(
    text: Annotated[str, typer.Argument(help="What to say.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="WAV file to write.")],
    intent: Annotated[str | None, typer.Option("--intent", help="Instruction such as \"angry but restrained, "
                                               "60%\" (keyword table; see `tts say --help`).")] = None,
    voice: Annotated[str | None, typer.Option("--voice", "-v", help="espeak-ng voice LANGUAGE[+VARIANT] "
                                              "(default en-us; `paperworks tts voices`).")] = None,
    control: Annotated[list[str] | None, typer.Option("--control", "-c", help="Control key=value, e.g. "
                                                      "f0_shift_st=4 (repeatable; over --intent).")] = None,
    plot: Annotated[Path | None, typer.Option("--plot", help="Also write a PNG of the F0 contour against "
                                              "the neutral reading.")] = None,
    measure_: Annotated[bool, typer.Option("--measure", help="Print the measured features relative to "
                                           "the neutral reading.")] = False,
) -> None:
    """Render TEXT with a control vector (from --intent and/or --control) and write a WAV file."""
    from paperworks.tools.speech import espeak
    from paperworks.tools.speech.control import ControlVector
    from paperworks.tools.speech.intent import control_for

    out = _wav_path(out, "--out")
    if plot is not None and plot.suffix.lower() != ".png":
        raise UserError(f"--plot must name a .png file, got '{plot}'")
    text = espeak.check_text(text)
    base = control_for(intent) if intent is not None else ControlVector()
    cv = ControlVector.parse(control or [], base=base)
    voice = espeak.resolve_voice(voice)

    from paperworks.tools.speech.engine import get_engine

    engine = get_engine()
    audio = engine.render(text, cv, voice)
    audio.write(out)
    clipped = " (peaks above full scale were clipped)" if audio.peak > 1.0 else ""
    console.print(f"wrote {escape(str(out))}: {audio.duration:.2f} s, voice {voice}, control {cv}{clipped}",
                  highlight=False)
    if plot is not None or measure_:
        from paperworks.tools.speech.features import measure
        from paperworks.tools.speech.plots import f0_plot
        from paperworks.tools.speech.relative import relative

        ref = engine.neutral(text, voice)
        if plot is not None:
            f0_plot(audio, ref, plot, title=f"{voice}: {cv}")
            console.print(f"wrote {escape(str(plot))}", highlight=False)
        if measure_:
            rel = relative(measure(audio), measure(ref))
            for key, value in rel.control_estimate().items():
                console.print(f"{key:18} commanded {getattr(cv, key):8.3f}   measured {value:8.3f}", highlight=False)


@tts_app.command("voices")
def voices(
    all_: Annotated[bool, typer.Option("--all", help="Also list every installed language and variant.")] = False,
) -> None:
    """List the curated speakers (and with --all every espeak-ng language and variant)."""
    from paperworks.tools.speech import espeak

    console.print("speakers: " + " ".join(espeak.speakers()), highlight=False)
    if all_:
        console.print("languages: " + " ".join(v.name for v in espeak.languages()), highlight=False)
        console.print("variants: " + " ".join(v.name for v in espeak.variants()), highlight=False)
    else:
        console.print(f"any LANGUAGE[+VARIANT] of espeak-ng also works ({len(espeak.languages())} languages, "
                      f"{len(espeak.variants())} variants: --all lists them)", highlight=False)


@tts_app.command("measure")
def measure_cmd(
    path: Annotated[Path, typer.Argument(help="WAV file.")],
    neutral: Annotated[Path | None, typer.Option("--neutral", help="Neutral reading of the same text and "
                                                 "voice: also print the deltas.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Print the feature vector of a WAV file (and its deltas against --neutral)."""
    from paperworks.tools.speech.audio import read_wav
    from paperworks.tools.speech.features import measure
    from paperworks.tools.speech.relative import relative

    audio = read_wav(_wav_path(path, "FILE"))
    ref = read_wav(_wav_path(neutral, "--neutral")) if neutral is not None else None
    feats = measure(audio)
    rel = relative(feats, measure(ref)) if ref is not None else None
    if as_json:
        doc = {"file": str(path), "features": feats.as_dict()}
        if rel is not None:
            doc["relative"] = rel.as_dict()
        print(json.dumps(doc))
        return
    for name, value in feats.as_dict().items():
        console.print(f"{name:26} {_num(value)}", highlight=False)
    if rel is not None:
        console.print("relative to the neutral reading:", highlight=False)
        for name, value in rel.as_dict().items():
            console.print(f"{name:26} {_num(value)}", highlight=False)


def _num(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.4g}"
