"""The control vector (bounds, array forms, parsing) and the keyword intent table."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.core.errors import UserError
from paperworks.tools.speech.control import (
    CONTROL_NAMES,
    DIMENSIONS,
    ControlVector,
    dimension,
    lower_bounds,
    neutral_array,
    upper_bounds,
)
from paperworks.tools.speech.intent import EMOTION_CUES, Intent, control_for, intent_to_control, parse_intent


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    msg = str(exc.value)
    assert msg and "\n" not in msg
    return msg


def test_neutral_defaults_and_array_order() -> None:
    cv = ControlVector()
    assert cv == ControlVector.neutral() and str(cv) == "neutral" and cv.changed() == {}
    assert np.array_equal(cv.to_array(), neutral_array())
    assert CONTROL_NAMES == tuple(d.name for d in DIMENSIONS) and len(CONTROL_NAMES) == 9
    arr = ControlVector(f0_shift_st=4, tempo_scale=1.3).to_array()
    assert arr.dtype == np.float32 and arr[CONTROL_NAMES.index("f0_shift_st")] == 4.0
    assert arr[CONTROL_NAMES.index("tempo_scale")] == pytest.approx(1.3)


def test_array_and_unit_round_trips() -> None:
    cv = ControlVector(f0_shift_st=-3.5, f0_range_scale=2.0, intensity_db=6.0, breathiness=0.25)
    assert ControlVector.from_array(cv.to_array()).to_array() == pytest.approx(cv.to_array())
    unit = cv.to_unit()
    assert ((unit >= 0) & (unit <= 1)).all()
    assert ControlVector.from_unit(unit).to_array() == pytest.approx(cv.to_array(), abs=1e-5)
    assert ControlVector.from_unit(np.zeros(9)).to_array() == pytest.approx(lower_bounds())
    assert ControlVector.from_array(upper_bounds()) == ControlVector.from_unit(np.ones(9))


def test_from_array_clips_or_refuses() -> None:
    wild = np.array([40, -1, 0, 0, 9, 1, 0, 0, 2], dtype=np.float32)
    with pytest.raises(UserError) as exc:
        ControlVector.from_array(wild)
    assert "f0_shift_st=40 is out of bounds [-12, 12]" in one_line(exc)
    clipped = ControlVector.from_array(wild, clip=True)
    assert clipped.f0_shift_st == 12 and clipped.f0_range_scale == 0 and clipped.tempo_scale == 2
    with pytest.raises(UserError) as exc:
        ControlVector.from_array([1.0, 2.0])
    assert "must have 9 values" in one_line(exc)
    assert ControlVector(intensity_db=3.0).clip() == ControlVector(intensity_db=3.0)


@pytest.mark.parametrize(("kwargs", "expected"), [
    ({"f0_shift_st": 13.0}, "control f0_shift_st=13 is out of bounds [-12, 12]"),
    ({"tempo_scale": 0.1}, "control tempo_scale=0.1 is out of bounds [0.5, 2]"),
    ({"breathiness": -0.5}, "control breathiness=-0.5 is out of bounds [0, 1]"),
    ({"intensity_db": float("nan")}, "control intensity_db must be a finite number, got nan"),
])
def test_out_of_bounds_is_one_line(kwargs: dict[str, float], expected: str) -> None:
    with pytest.raises(UserError) as exc:
        ControlVector(**kwargs)
    assert one_line(exc).startswith(expected)


def test_parse_assignments() -> None:
    cv = ControlVector.parse(["f0_shift_st=4", " tempo_scale = 1.25"])
    assert cv.f0_shift_st == 4 and cv.tempo_scale == 1.25 and cv.changed() == {"f0_shift_st": 4.0, "tempo_scale": 1.25}
    assert ControlVector.parse(["intensity_db=3"], base=cv).f0_shift_st == 4
    for bad, msg in [("pitch=3", "unknown control 'pitch'; valid controls: f0_shift_st,"),
                     ("f0_shift_st", "--control expects key=value, got 'f0_shift_st'"),
                     ("f0_shift_st=high", "control f0_shift_st must be a number, got 'high'")]:
        with pytest.raises(UserError) as exc:
            ControlVector.parse([bad])
        assert one_line(exc).startswith(msg)
    assert cv.replace(f0_shift_st=-2).f0_shift_st == -2
    assert dimension("pause_scale").high == 4.0
    with pytest.raises(UserError):
        dimension("nope")


def test_intent_parsing() -> None:
    i = parse_intent("Angry but restrained, 60%")
    assert i == Intent({"anger": 1.0}, 0.6, ("restrained",))
    mixed = parse_intent("sad yet hopeful")
    assert mixed.emotions == {"sadness": 0.5, "happiness": 0.5} and mixed.intensity == 1.0
    assert parse_intent("slightly fearful, questioning").intensity == 0.3
    assert parse_intent("whispered and hurried").modifiers == ("whispered", "hurried")
    assert control_for("neutral") == ControlVector()
    with pytest.raises(UserError) as exc:
        parse_intent("purple elephant")
    assert one_line(exc).startswith("intent 'purple elephant' names no known emotion or modifier")
    with pytest.raises(UserError) as exc:
        parse_intent("angry 150%")
    assert "between 0% and 100%" in one_line(exc)


def test_intent_to_control_scales_with_intensity_and_modifiers() -> None:
    full, half = control_for("angry 100%"), control_for("angry 50%")
    cues = EMOTION_CUES["anger"]
    assert full.f0_shift_st == cues["f0_shift_st"] and full.intensity_db == cues["intensity_db"]
    assert half.f0_shift_st == pytest.approx(cues["f0_shift_st"] / 2)
    assert half.tempo_scale == pytest.approx(cues["tempo_scale"] ** 0.5)  # scales mix in the log domain
    assert control_for("angry but restrained").intensity_db == pytest.approx(half.intensity_db)
    sad = control_for("sad")
    assert sad.f0_shift_st < 0 and sad.tempo_scale < 1 and sad.intensity_db < 0 and sad.f0_range_scale < 1
    whisper = control_for("whispered")
    assert whisper.breathiness == 1.0 and whisper.intensity_db < 0
    extreme = intent_to_control(Intent({"fear": 1.0}, 1.0, ("hurried", "loud", "questioning")))
    assert extreme.validate() is extreme  # always within bounds
    with pytest.raises(UserError):
        intent_to_control(Intent({"glee": 1.0}))
