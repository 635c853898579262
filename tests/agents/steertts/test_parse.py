"""Reading the intent parser's and the Supervisor's replies (pure text; never raises)."""

from __future__ import annotations

import pytest

from paperworks.agents.steertts import parse, prompts
from paperworks.tools.speech.intent import Intent


@pytest.mark.parametrize(("reply", "emotions", "intensity", "modifiers"), [
    ('{"emotions": {"anger": 1.0}, "intensity": 0.6, "modifiers": ["restrained"]}', {"anger": 1.0}, 0.6,
     ("restrained",)),
    ('Sure!\n```json\n{"emotions": {"sad": 2, "hopeful": 2}, "intensity": "30%"}\n```', {"sadness": 0.5,
                                                                                      "happiness": 0.5}, 0.3, ()),
    ('{"emotions": ["furious"], "intensity": 100, "modifiers": "quietly"}', {"anger": 1.0}, 1.0, ("soft",)),
    ('{"emotions": {}, "modifiers": ["whispered", "slow"]}', {}, 1.0, ("whispered", "slow")),
])
def test_intent_replies_are_read(reply: str, emotions: dict[str, float], intensity: float,
                                 modifiers: tuple[str, ...]) -> None:
    intent, error = parse.parse_intent_reply(reply)
    assert error is None and intent is not None
    assert intent.emotions == pytest.approx(emotions) and intent.intensity == pytest.approx(intensity)
    assert intent.modifiers == modifiers


@pytest.mark.parametrize(("reply", "why"), [
    ("I think it is angry.", "no JSON object"),
    ('{"emotions": {"anger": 1.0', "unterminated"),
    ('{"emotions": {"anger": 1.0}, "intensity": 0.6,}', "invalid JSON"),
    ('{"emotions": {"grumpy": 1.0}}', "unknown emotion 'grumpy'"),
    ('{"emotions": {"anger": 1.0}, "intensity": 250}', "outside 0-1"),
    ('{"emotions": {"anger": 1.0}, "intensity": 2}', "outside 0-1"),
    ('{"emotions": {}, "modifiers": []}', "names no emotion"),
    ('{"emotions": {"anger": 1}, "modifiers": ["zesty"]}', "unknown modifier 'zesty'"),
])
def test_broken_intent_replies_give_one_line(reply: str, why: str) -> None:
    intent, error = parse.parse_intent_reply(reply)
    assert intent is None and error is not None and why in error and "\n" not in error


def test_verdicts() -> None:
    v, err = parse.parse_verdict('{"agree": true}')
    assert err is None and v is not None and v.agree and v.intent is None
    v, err = parse.parse_verdict('{"agree": "no", "critique": "too flat", "emotions": {"sadness": 1}, '
                                 '"intensity": 0.6}')
    assert v is not None and not v.agree and v.critique == "too flat" and v.intent == Intent({"sadness": 1.0}, 0.6, ())
    v, err = parse.parse_verdict('{"agree": false, "emotions": {"zzz": 1}}')
    assert v is not None and not v.agree and v.intent is None  # the critique stands, the unreadable plan does not
    v, err = parse.parse_verdict('{"agree": "maybe"}')
    assert v is None and err is not None and "'agree'" in err
    v, err = parse.parse_verdict("looks fine to me")
    assert v is None and err is not None


def test_prompts_carry_their_markers() -> None:
    msgs = prompts.intent_messages("  sad yet hopeful  ")
    assert prompts.INTENT_MARKER in msgs[-1]["content"] and "Instruction: sad yet hopeful" in msgs[-1]["content"]
    assert all(e in msgs[0]["content"] for e in prompts.EMOTIONS)
    sup = prompts.supervisor_messages("angry", Intent({"anger": 1.0}, 0.6, ()), ["f0_shift: +2.0 st (target +2.4)"],
                                      "anger", 0.4, 0.9)
    text = sup[-1]["content"]
    assert prompts.SUPERVISOR_MARKER in text and '"anger": 1.0' in text and "- f0_shift" in text and "90%" in text


def test_readable_replies_that_contradict_the_instruction_are_caught() -> None:
    copied = Intent({"tenderness": 1.0}, 0.4, ("soft",))  # the prompt's example, copied by a small model
    why = parse.check_against_keywords(copied, "Say it angry, at 30% intensity.")
    assert why is not None and "share none" in why and "anger" in why
    why = parse.check_against_keywords(Intent({"anger": 1.0}, 0.6, ()), "Say it angry, at 30% intensity.")
    assert why is not None and "60%" in why and "30%" in why
    assert parse.check_against_keywords(Intent({"anger": 0.7, "fear": 0.3}, 0.3, ()), "angry, 30%") is None
    assert parse.check_against_keywords(Intent({"anger": 1.0}, 0.8, ()), "Sound very angry.") is None  # no %
    assert parse.check_against_keywords(Intent({"fear": 1.0}, 0.5, ()), "like a teapot") is None  # unreadable
