#!/usr/bin/env python
"""Generate the composite-instruction suite ``evals/steer_instructions/`` (AgentSteerTTS, issue 14).

    python scripts/make_steer_instructions.py              # (re)write evals/steer_instructions/
    python scripts/make_steer_instructions.py --out DIR    # write a copy elsewhere
    python scripts/make_steer_instructions.py --check      # regenerate into a temp dir and compare bytes

24 intents (8 single emotions, 16 composites such as "angry but restrained" and "sad yet hopeful") x 3
intensities (30/60/100%) x 2 (text, voice) pairs = 144 instructions, over 6 texts written for this project
and 6 of the curated espeak-ng voices (3 lower, 3 higher). One pair of each intent words the intensity as a
percentage, the other with an intensity word (slightly / moderately / very). Every row keeps its ground-
truth intent (equal weights for the named emotions, the modifiers, the intensity) in metadata, hidden
from the workflow; every instruction is readable by the keyword table (checked here), so the open-loop
baseline starts from the right intent and the benchmark isolates control. No randomness: byte-identical
on every run.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paperworks.backends.steertts.library import LIBRARY_TEXTS, SMALL_VOICES  # noqa: E402
from paperworks.tools.speech.intent import MODIFIERS, parse_intent  # noqa: E402

DEFAULT_OUT = ROOT / "evals" / "steer_instructions"
VERSION = "1.0"

TEXTS: tuple[str, ...] = (
    "Nobody told me the shop would close early today.",
    "I left the keys on the kitchen counter.",
    "The results came back this afternoon.",
    "You said you would call me before nine.",
    "We can still catch the last bus, if we hurry.",
    "The garden looks different after the storm.",
)
"""Benchmark texts (written for this project; none is a library text)."""

VOICES: tuple[str, ...] = ("en-us", "en-us+m3", "en-gb-x-rp", "en-us+f1", "en-us+f3", "en-us+steph")
"""Benchmark voices (all in the small prototype library, so ``speaker_leakage`` knows them)."""

# id, kind, emotions, modifiers, phrase (adjectives), adverbial phrase
INTENTS: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...], str], ...] = (
    ("angry", "single", ("anger",), (), "angry"),
    ("happy", "single", ("happiness",), (), "happy"),
    ("sad", "single", ("sadness",), (), "sad"),
    ("fearful", "single", ("fear",), (), "fearful"),
    ("tender", "single", ("tenderness",), (), "tender"),
    ("surprised", "single", ("surprise",), (), "surprised"),
    ("bored", "single", ("boredom",), (), "bored"),
    ("disgusted", "single", ("disgust",), (), "disgusted"),
    ("angry-restrained", "composite", ("anger",), ("restrained",), "angry but restrained"),
    ("sad-hopeful", "composite", ("sadness", "happiness"), (), "sad yet hopeful"),
    ("fearful-hurried", "composite", ("fear",), ("hurried",), "fearful and hurried"),
    ("happy-tired", "composite", ("happiness", "boredom"), (), "happy but tired"),
    ("calm-soft", "composite", ("tenderness",), ("soft",), "calm and soft"),
    ("surprised-questioning", "composite", ("surprise",), ("questioning",), "surprised, almost questioning"),
    ("disgusted-restrained", "composite", ("disgust",), ("restrained",), "disgusted yet restrained"),
    ("angry-loud", "composite", ("anger",), ("loud",), "angry and loud"),
    ("sad-whispered", "composite", ("sadness",), ("whispered",), "sad and whispered"),
    ("nervous-hopeful", "composite", ("fear", "happiness"), (), "nervous yet hopeful"),
    ("bored-monotone", "composite", ("boredom",), ("monotone",), "bored and monotone"),
    ("tender-slow", "composite", ("tenderness",), ("slow",), "tender and slow"),
    ("angry-afraid", "composite", ("anger", "fear"), (), "angry and afraid"),
    ("joyful-surprised", "composite", ("happiness", "surprise"), (), "joyful and surprised"),
    ("sad-calm", "composite", ("sadness", "tenderness"), (), "sad but calm"),
    ("irritated-hurried", "composite", ("anger",), ("hurried",), "irritated, speaking quickly"),
)
"""The 24 intents: (id, kind, emotions, modifiers, wording)."""

LEVELS: tuple[tuple[int, str], ...] = ((30, "slightly"), (60, "moderately"), (100, "very"))
TEMPLATES_PCT = ("Say it {w}, at {p}% intensity.", "Read this {w} - {p}% strength.", "{W}, {p}% intensity, please.")
TEMPLATES_WORD = ("Say it {i} {w}.", "Sound {i} {w}.", "Read this {i} {w}.")


def rows() -> list[dict[str, object]]:
    """All suite rows, in a fixed order."""
    out: list[dict[str, object]] = []
    for n, (iid, kind, emotions, modifiers, wording) in enumerate(INTENTS):
        for pair in range(2):
            text = TEXTS[(n + 3 * pair) % len(TEXTS)]
            voice = VOICES[(n + pair * 2) % len(VOICES)]
            for level, (pct, word) in enumerate(LEVELS):
                if pair == 0:
                    t = TEMPLATES_PCT[(n + level) % len(TEMPLATES_PCT)]
                    instruction = t.format(w=wording, W=wording[0].upper() + wording[1:], p=pct)
                else:
                    instruction = TEMPLATES_WORD[(n + level) % len(TEMPLATES_WORD)].format(i=word, w=wording)
                intent = {"emotions": {e: round(1.0 / len(emotions), 6) for e in emotions},
                          "intensity": pct / 100, "modifiers": [m for m in MODIFIERS if m in modifiers]}
                out.append({"id": f"{iid}-p{pair}-{pct}", "text": text, "voice": voice, "instruction": instruction,
                            "intent": intent, "kind": kind, "intensity_level": f"{pct}%",
                            "group": f"{iid}-p{pair}", "intent_id": iid})
    return out


def check_rows(data: list[dict[str, object]]) -> None:
    """Every instruction is read by the keyword table as its ground truth; ids unique; texts not library texts."""
    ids = [r["id"] for r in data]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert not set(TEXTS) & set(LIBRARY_TEXTS), "a benchmark text is a library text"
    assert set(VOICES) <= set(SMALL_VOICES), "a benchmark voice is not in the small library"
    for r in data:
        got = parse_intent(str(r["instruction"]))
        want = r["intent"]
        assert isinstance(want, dict)
        ok = (set(got.emotions) == set(want["emotions"]) and abs(got.intensity - float(want["intensity"])) < 1e-9
              and list(got.modifiers) == list(want["modifiers"]))
        assert ok, f"{r['id']}: keyword table reads {got}, ground truth {want}"


SUITE_YAML = """# Composite-instruction benchmark of AgentSteerTTS (issue 14).
# Generated by python scripts/make_steer_instructions.py (deterministic; --check verifies this folder).
# 144 rows: 24 intents (8 single emotions, 16 composites) x 30/60/100% x 2 (text, voice) pairs, over
# 6 texts written for this project and 6 curated espeak-ng voices. Each row's ground-truth intent is in
# metadata (the workflow sees only text, instruction and voice). Scorers measure the workflow's wav files
# themselves, against a neutral reading they render themselves:
#   intent_compliance       each targeted feature moves in the intended direction, by the intended amount
#   intensity_monotonicity  the workflow's 30/60/100% ladder (ladder: true) rises on every targeted feature
#   speaker_leakage         the requested speaker is still identified (disentangled speaker encoder)
# The optional model judge (profile_judge, needs --judge-model) is not listed here.
name: steer_instructions
version: "{version}"
description: Composite emotional speech instructions at 30/60/100% intensity, judged on the measured audio.
workflow: steertts
data: [instructions.jsonl]
id_field: id
input:
  text: "{{text}}"
  instruction: "{{instruction}}"
  voice: "{{voice}}"
metadata: [intent, kind, intensity_level, group, intent_id]
group_by: [kind, intensity_level]
scorers: [intent_compliance, intensity_monotonicity, speaker_leakage]
answer_field: answer
metrics: [accuracy, stderr]
epochs: 1
limits: {{time_s: 900, tokens: 20000, cost: null}}
config:
  library: small
  ladder: true
  fast_budget: 3
  max_replans: 1
# The embedded 135M model is slow on CPU: short replies (an intent or a verdict is a small JSON object).
generation: {{temperature: 0, max_tokens: 96}}
"""

README = """# steer_instructions

Composite-instruction benchmark for the `steertts` workflow (AgentSteerTTS, issue 14). Generated by
`scripts/make_steer_instructions.py`; do not edit by hand (`--check` verifies the folder).

- 144 instructions = 24 intents x 3 intensities (30/60/100%) x 2 (text, voice) pairs.
- Singles: angry, happy, sad, fearful, tender, surprised, bored, disgusted. Composites: angry but
  restrained, sad yet hopeful, fearful and hurried, happy but tired, calm and soft, surprised (almost
  questioning), disgusted yet restrained, angry and loud, sad and whispered, nervous yet hopeful, bored
  and monotone, tender and slow, angry and afraid, joyful and surprised, sad but calm, irritated and quick.
- Texts are the project's own; voices are espeak-ng voices (en-us, en-us+m3, en-gb-x-rp, en-us+f1,
  en-us+f3, en-us+steph).
- Ground truth: `intent` (emotions with equal weights, intensity, modifiers); the target profile is the
  keyword table's cue profile read as measured deltas (`paperworks/backends/steertts/cues.py`, sources
  cited there). Every instruction is readable by the keyword table, so the benchmark isolates control
  rather than parsing.
- `group` ties the three intensities of one (intent, text, voice); the workflow also renders its own
  30/60/100% ladder (`ladder: true`) so that `intensity_monotonicity` is a per-sample scorer.
"""


def write(out: Path) -> None:
    """Write the suite folder."""
    data = rows()
    check_rows(data)
    out.mkdir(parents=True, exist_ok=True)
    (out / "instructions.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in data),
                                            encoding="utf-8")
    (out / "suite.yaml").write_text(SUITE_YAML.format(version=VERSION), encoding="utf-8")
    (out / "README.md").write_text(README, encoding="utf-8")


def main() -> int:
    """CLI entry: generate, or with --check compare a fresh generation to the folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="verify --out matches a fresh generation")
    args = parser.parse_args()
    if not args.check:
        write(args.out)
        print(f"wrote {len(rows())} rows to {args.out}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp))
        names = ["instructions.jsonl", "suite.yaml", "README.md"]
        bad = [n for n in names if not (args.out / n).is_file() or not filecmp.cmp(Path(tmp) / n, args.out / n,
                                                                                   shallow=False)]
    if bad:
        print(f"{args.out}: differs from a fresh generation: {', '.join(bad)}", file=sys.stderr)
        return 1
    print(f"{args.out}: matches a fresh generation ({len(rows())} rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
