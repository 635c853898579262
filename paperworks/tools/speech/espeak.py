"""espeak-ng: the installed languages and voice variants, and plain (neutral) synthesis.

A voice is ``LANGUAGE`` or ``LANGUAGE+VARIANT`` as espeak-ng spells them: ``en-us``, ``en-us+f3``,
``de+m2``. :func:`languages` and :func:`variants` read what this espeak-ng has installed
(``espeak-ng --voices`` and ``--voices=variant``). :data:`SPEAKERS` is a curated set of English
voices that sound distinct and keep a trackable pitch (no whisper variants), used as "speakers"
for corpora; :func:`speakers` returns the installed ones.

espeak-ng 1.51 ignores a variant after some language names (``en-gb+f3`` and ``fr-fr+f2`` sound
like ``en-gb`` and ``fr-fr``); such a voice is refused with a hint naming a spelling that works
(``en+f3``, ``fr+f2``).

MBROLA voices: Debian bookworm's main archive has no ``mbrola`` voice packages (they are in
non-free, not configured here), so only espeak-ng's own formant voices are used.
"""

from __future__ import annotations

import difflib
import functools
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from paperworks.core.errors import MissingDependencyError, UserError
from paperworks.tools.speech.audio import Audio, read_wav

DEFAULT_VOICE = "en-us"
"""Voice used when none is given."""
MAX_TEXT_CHARS = 2000
"""Longest text one render accepts."""

SPEAKERS: tuple[str, ...] = (
    # male (neutral mean F0 83-104 Hz)
    "en-us", "en-us+m3", "en-us+m7", "en-us+m8", "en-us+klatt", "en-us+robert", "en-us+quincy",
    "en-gb-x-rp", "en-gb-scotland+m4", "en-029+m5",
    # female (neutral mean F0 177-268 Hz)
    "en-us+f1", "en-us+f2", "en-us+f3", "en-us+f5", "en-us+steph", "en-us+Alicia", "en-us+belinda",
    "en-us+anika", "en-gb-x-rp+f2", "en-gb-scotland+f4",
)
"""Curated English voices with distinct timbre and pitch, usable as separate speakers."""


@dataclass(frozen=True)
class VoiceInfo:
    """One espeak-ng language voice or variant."""

    name: str
    """What goes into a voice string: ``en-us`` or (for a variant) ``f3``."""
    gender: str
    """``M``, ``F`` or ``-`` as espeak-ng lists it."""
    description: str
    """espeak-ng's display name, e.g. ``English_(America)`` or ``female3``."""
    aliases: tuple[str, ...] = ()
    """Other language codes espeak-ng accepts for this voice (e.g. ``en`` for ``en-gb``)."""


def espeak_binary() -> str:
    """Path of espeak-ng; one-line :class:`MissingDependencyError` when it is not installed."""
    found = shutil.which("espeak-ng")
    if not found:
        raise MissingDependencyError("espeak-ng is not installed (Debian: apt-get install espeak-ng)")
    return found


def _list(arg: str) -> list[VoiceInfo]:
    out = subprocess.run([espeak_binary(), arg], capture_output=True, text=True, timeout=30, check=False).stdout
    infos = []
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) < 5:
            continue
        gender = parts[2].split("/")[-1] or "-"
        if arg == "--voices":
            others = " ".join(parts[5:])  # "(en 10)(en-gb 3)": other language codes with priorities
            aliases = tuple(a.split()[0] for a in others.split("(")[1:] if a.split())
            infos.append(VoiceInfo(parts[1], gender, parts[3], aliases))
        else:  # variant rows: "5  variant  --/F  female3  !v/f3"; the file name is what '+' takes
            file = line.split("!v/", 1)[-1].strip() if "!v/" in line else ""
            if file and " " not in file:
                infos.append(VoiceInfo(file, gender, parts[3]))
    return infos


@functools.cache
def languages() -> tuple[VoiceInfo, ...]:
    """Installed espeak-ng language voices (``en-us``, ``de``, ...), sorted by name."""
    return tuple(sorted(_list("--voices"), key=lambda v: v.name))


@functools.cache
def variants() -> tuple[VoiceInfo, ...]:
    """Installed espeak-ng voice variants (``f3``, ``m2``, ``klatt``, ...), sorted by name."""
    return tuple(sorted(_list("--voices=variant"), key=lambda v: v.name.lower()))


def speakers() -> list[str]:
    """The installed voices of :data:`SPEAKERS`, in that order."""
    langs = {v.name for v in languages()}
    vars_ = {v.name for v in variants()}
    out = []
    for s in SPEAKERS:
        lang, _, var = s.partition("+")
        if lang in langs and (not var or var in vars_):
            out.append(s)
    return out


def resolve_voice(voice: str | None) -> str:
    """Check a voice string against what is installed; returns it (``DEFAULT_VOICE`` for None).

    One-line :class:`UserError` naming valid voices when the language or variant is unknown."""
    if voice is None:
        return DEFAULT_VOICE
    voice = voice.strip()
    lang, plus, var = voice.partition("+")
    langs = [v.name for v in languages()]
    vars_ = [v.name for v in variants()]
    if lang not in langs and lang not in {a for v in languages() for a in v.aliases}:
        close = difflib.get_close_matches(lang, langs, n=3)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise UserError(f"unknown voice '{voice}': {hint}valid voices are LANGUAGE[+VARIANT], e.g. "
                        f"{', '.join(speakers()[:6])} ({len(langs)} languages, {len(vars_)} variants; "
                        f"`paperworks tts voices` lists them)")
    if plus and var not in vars_:
        close = difflib.get_close_matches(var, vars_, n=3)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise UserError(f"unknown voice variant '{var}' in '{voice}': {hint}valid variants include "
                        f"{', '.join(v for v in ('m1', 'm2', 'm3', 'f1', 'f2', 'f3', 'klatt') if v in vars_)} "
                        f"({len(vars_)} in all; `paperworks tts voices` lists them)")
    if plus and _variant_ignored(voice):
        others = [f"{a}+{var}" for v in languages() if v.name == lang for a in v.aliases]
        working = [o for o in others if not _variant_ignored(o)][:2]
        hint = f"use {' or '.join(repr(w) for w in working)}" if working else "use another language voice"
        raise UserError(f"voice '{voice}': espeak-ng ignores the variant '{var}' on '{lang}' (it renders the "
                        f"plain '{lang}' voice); {hint}")
    return voice


@functools.cache
def _variant_ignored(voice: str) -> bool:
    """True when espeak-ng renders ``LANG+VARIANT`` exactly like ``LANG`` (1.51 does for ``en-gb+...``)."""
    lang = voice.partition("+")[0]
    return _raw_bytes("one two three", voice) == _raw_bytes("one two three", lang)


def _raw_bytes(text: str, voice: str) -> bytes:
    fd, name = tempfile.mkstemp(suffix=".wav", prefix="pw-espeak-")
    os.close(fd)
    try:
        subprocess.run([espeak_binary(), "-w", name, "-v", voice, "--stdin"], input=text, capture_output=True,
                       text=True, timeout=30, check=False)
        return Path(name).read_bytes()
    finally:
        Path(name).unlink(missing_ok=True)


def check_text(text: str) -> str:
    """The text to speak, stripped; one-line :class:`UserError` when empty or too long."""
    if not isinstance(text, str) or not text.strip():
        raise UserError("text to speak is empty")
    text = " ".join(text.split())
    if len(text) > MAX_TEXT_CHARS:
        raise UserError(f"text to speak has {len(text)} characters; at most {MAX_TEXT_CHARS} per render")
    return text


def synthesize(text: str, voice: str | None = None, rate_wpm: int = 175, pitch: int = 50) -> Audio:
    """espeak-ng's own rendering of ``text`` (22050 Hz mono), untrimmed and unnormalised.

    ``rate_wpm`` and ``pitch`` (0-99) are espeak-ng's ``-s`` and ``-p``; the engine keeps them
    at the defaults and does prosody by PSOLA instead."""
    text, voice = check_text(text), resolve_voice(voice)
    fd, name = tempfile.mkstemp(suffix=".wav", prefix="pw-espeak-")
    os.close(fd)
    try:
        proc = subprocess.run([espeak_binary(), "-w", name, "-v", voice, "-s", str(rate_wpm), "-p", str(pitch),
                               "--stdin"], input=text, capture_output=True, text=True, timeout=60, check=False)
        if proc.returncode != 0:
            msg = " ".join((proc.stderr or "").split())[:200]
            raise UserError(f"espeak-ng failed for voice '{voice}': {msg or f'exit status {proc.returncode}'}")
        audio = read_wav(Path(name))
    finally:
        Path(name).unlink(missing_ok=True)
    if audio.duration == 0.0:
        raise UserError(f"espeak-ng produced no audio for voice '{voice}' (text: {text[:40]!r})")
    return audio
