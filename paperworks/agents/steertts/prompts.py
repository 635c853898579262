"""AgentSteerTTS's prompts, kept short: the embedded 135M model reads every token at CPU speed.

Each role has a fixed marker line, so a scripted model can pick its reply with ``when`` substrings:
the intent parser ``Read the speaking instruction``, the Supervisor ``Compare the measured voice``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from paperworks.tools.speech.intent import EMOTION_CUES, MODIFIERS, Intent

Messages = list[dict[str, Any]]
INTENT_MARKER = "Read the speaking instruction"
SUPERVISOR_MARKER = "Compare the measured voice"
EMOTIONS = tuple(EMOTION_CUES)

INTENT_SYSTEM = ("You turn instructions for a speaking voice into JSON. Use only these emotions: "
                 f"{', '.join(EMOTIONS)}; and only these modifiers: {', '.join(MODIFIERS)}.")

SUPERVISOR_SYSTEM = ("You check whether a synthesised voice matches its speaking instruction, from measurements "
                     "against the neutral reading of the same text. Reply with JSON only.")


def intent_json(intent: Intent) -> str:
    """The intent as the JSON the parser is asked for."""
    return json.dumps({"emotions": {k: round(v, 2) for k, v in intent.emotions.items()},
                       "intensity": round(intent.intensity, 2), "modifiers": list(intent.modifiers)})


def intent_messages(instruction: str) -> Messages:
    """Messages asking for the structured intent of ``instruction``."""
    user = (f"{INTENT_MARKER} and reply with JSON only.\n"
            f"Instruction: {instruction.strip()}\n"
            'Format: {"emotions": {"<emotion>": <weight>}, "intensity": <0 to 1>, "modifiers": ["<modifier>"]}\n'
            'Example: "calm, a bit weary, 40%, quietly" -> {"emotions": {"tenderness": 0.5, "boredom": 0.5}, '
            '"intensity": 0.4, "modifiers": ["soft"]}')
    return [{"role": "system", "content": INTENT_SYSTEM}, {"role": "user", "content": user}]


def supervisor_messages(instruction: str, intent: Intent, lines: Sequence[str], perceived: str,
                        error_jnd: float, ratio: float) -> Messages:
    """Messages asking the Supervisor to compare the measured profile (``lines``: one per feature, with the
    plan's target beside it) with the instruction and the plan."""
    user = (f"{SUPERVISOR_MARKER} with the instruction.\n"
            f"Instruction: {instruction.strip()}\n"
            f"Plan: {intent_json(intent)}\n"
            "Measured change from neutral (target in brackets):\n" + "\n".join(f"- {line}" for line in lines) + "\n"
            f"Mean error {error_jnd:.2f} JND (1 JND = a just-noticeable step); strength {ratio:.0%} of the plan's; "
            f"the profile reads as {perceived}.\n"
            'If the voice matches, reply {"agree": true}. Otherwise reply {"agree": false, "critique": "<why>", '
            '"emotions": {...}, "intensity": <0 to 1>, "modifiers": [...]} with a corrected plan.')
    return [{"role": "system", "content": SUPERVISOR_SYSTEM}, {"role": "user", "content": user}]
