"""The offline engine: PSOLA and shaping move the measured features as commanded; voices, cache,
registry and one-line refusals."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from paperworks.core.errors import UserError
from paperworks.tools.speech import Audio, ControlVector, Features, espeak, measure, relative
from paperworks.tools.speech import engine as engine_mod
from paperworks.tools.speech.offline import NEUTRAL_RMS_DBFS, EspeakPsolaEngine

pytest.importorskip("parselmouth")
pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")

TEXT = "Well, the quick brown fox jumps over the lazy dog."


@pytest.fixture(scope="module")
def eng() -> EspeakPsolaEngine:
    return EspeakPsolaEngine()


@pytest.fixture(scope="module")
def base(eng: EspeakPsolaEngine) -> Features:
    return measure(eng.neutral(TEXT))


def moved(eng: EspeakPsolaEngine, base: Features, **control: float) -> tuple[Features, dict[str, float]]:
    f = measure(eng.render(TEXT, ControlVector(**control)))
    return f, relative(f, base).control_estimate()


def test_neutral_render_is_normalised_cached_and_deterministic(eng: EspeakPsolaEngine, base: Features) -> None:
    a = eng.neutral(TEXT)
    assert isinstance(a, Audio) and a.samples.dtype == np.float32 and a.sr == 22050
    assert base.energy_db == pytest.approx(NEUTRAL_RMS_DBFS, abs=0.1)
    assert base.pause_count >= 1  # the comma
    hits = eng.hits
    assert eng.neutral(" Well, the quick  brown fox jumps over the lazy dog. ") is a  # same key after whitespace
    assert eng.render(TEXT, ControlVector()) is a and eng.hits == hits + 2
    cv = ControlVector(f0_shift_st=2, breathiness=0.5, tilt_db_per_oct=-3)
    assert np.array_equal(eng.render(TEXT, cv).samples, eng.render(TEXT, cv).samples)


def test_f0_shift_moves_mean_f0(eng: EspeakPsolaEngine, base: Features) -> None:
    for shift in (4.0, -4.0):
        _, est = moved(eng, base, f0_shift_st=shift)
        assert est["f0_shift_st"] == pytest.approx(shift, abs=0.5)


def test_tempo_divides_duration(eng: EspeakPsolaEngine, base: Features) -> None:
    f, est = moved(eng, base, tempo_scale=1.3)
    assert f.duration_s == pytest.approx(base.duration_s / 1.3, rel=0.05)
    assert est["tempo_scale"] == pytest.approx(1.3, rel=0.1)


def test_intensity_moves_energy(eng: EspeakPsolaEngine, base: Features) -> None:
    f, est = moved(eng, base, intensity_db=6.0)
    assert est["intensity_db"] == pytest.approx(6.0, abs=1.0)
    assert f.f0_mean_st == pytest.approx(base.f0_mean_st, abs=0.1)


def test_tilt_moves_measured_tilt_not_level(eng: EspeakPsolaEngine, base: Features) -> None:
    darker, est = moved(eng, base, tilt_db_per_oct=-6.0)
    assert darker.spectral_tilt_db_per_oct < base.spectral_tilt_db_per_oct
    assert est["tilt_db_per_oct"] == pytest.approx(-6.0, abs=1.5)
    assert est["intensity_db"] == pytest.approx(0.0, abs=1.0)
    assert darker.pause_count == base.pause_count  # the filter does not fill the pauses


def test_range_slope_final_and_pauses(eng: EspeakPsolaEngine, base: Features) -> None:
    _, est = moved(eng, base, f0_range_scale=2.0)
    assert est["f0_range_scale"] == pytest.approx(2.0, rel=0.2)
    _, est = moved(eng, base, f0_range_scale=0.0)
    assert est["f0_range_scale"] < 0.2
    _, est = moved(eng, base, f0_slope_st_per_s=-4.0)
    assert est["f0_slope_st_per_s"] == pytest.approx(-4.0, abs=1.0)
    _, est = moved(eng, base, f0_slope_st_per_s=-4.0, tempo_scale=1.5)  # per output second
    assert est["f0_slope_st_per_s"] == pytest.approx(-4.0, abs=1.0)
    _, est = moved(eng, base, f0_final_st=6.0)
    assert est["f0_final_st"] == pytest.approx(6.0, abs=2.0)
    f, est = moved(eng, base, pause_scale=2.0)
    assert est["pause_scale"] == pytest.approx(2.0, rel=0.2)
    assert est["tempo_scale"] == pytest.approx(1.0, abs=0.05)


def test_breathiness_lowers_hnr_at_constant_level(eng: EspeakPsolaEngine, base: Features) -> None:
    f, est = moved(eng, base, breathiness=1.0)
    assert f.hnr_db < base.hnr_db - 5.0
    assert est["intensity_db"] == pytest.approx(0.0, abs=1.0)


def test_voices_differ_and_speakers_are_installed(eng: EspeakPsolaEngine) -> None:
    speakers = eng.voices()
    assert len(speakers) >= 10 and "en-us" in speakers and "en-us+f3" in speakers
    assert {v.name for v in espeak.languages()} >= {"en-us", "en-gb", "de"}
    assert "f3" in {v.name for v in espeak.variants()}
    male, female = measure(eng.neutral("Hello there.", "en-us")), measure(eng.neutral("Hello there.", "en-us+f3"))
    assert female.f0_mean_hz > 1.5 * male.f0_mean_hz
    assert espeak.resolve_voice("en+f3") == "en+f3"  # language aliases are accepted


@pytest.mark.parametrize(("text", "voice", "control", "expected"), [
    ("", None, None, "text to speak is empty"),
    ("   ", None, None, "text to speak is empty"),
    ("Hi.", "xx-yy", None, "unknown voice 'xx-yy':"),
    ("Hi.", "en-us+nosuch", None, "unknown voice variant 'nosuch' in 'en-us+nosuch'"),
    ("Hi.", "en-gb+f3", None, "voice 'en-gb+f3': espeak-ng ignores the variant 'f3' on 'en-gb' (it renders the "
                              "plain 'en-gb' voice); use 'en+f3'"),
])
def test_bad_input_is_one_line(eng: EspeakPsolaEngine, text: str, voice: str | None,
                               control: ControlVector | None, expected: str) -> None:
    with pytest.raises(UserError) as exc:
        eng.render(text, control, voice)
    msg = str(exc.value)
    assert msg.startswith(expected) and "\n" not in msg


def test_unknown_voice_names_valid_ones() -> None:
    with pytest.raises(UserError) as exc:
        espeak.resolve_voice("en-uk")
    assert "did you mean" in str(exc.value) and "en-us" in str(exc.value) and "tts voices" in str(exc.value)


def test_registry_plugs_in_an_engine() -> None:
    class Silence:
        name = "silence"
        default_voice = "none"

        def voices(self) -> list[str]:
            return ["none"]

        def render(self, text: str, control: ControlVector | None = None, voice: str | None = None) -> Audio:
            return Audio(np.zeros(160, dtype=np.float32), 16000)

        def neutral(self, text: str, voice: str | None = None) -> Audio:
            return self.render(text, None, voice)

    engine_mod.register_engine("silence", Silence, replace=True)
    try:
        assert "espeak" in engine_mod.engine_names() and "silence" in engine_mod.engine_names()
        assert isinstance(engine_mod.get_engine("silence"), engine_mod.Engine)
        assert engine_mod.render("x", engine="silence").duration == pytest.approx(0.01)
        with pytest.raises(UserError) as exc:
            engine_mod.register_engine("silence", Silence)
        assert "already registered" in str(exc.value)
    finally:
        engine_mod._FACTORIES.pop("silence", None)
        engine_mod._INSTANCES.pop("silence", None)
    with pytest.raises(UserError) as exc:
        engine_mod.get_engine("nope")
    assert str(exc.value) == "unknown speech engine 'nope'; registered engines: espeak"
