"""Translation: engine choice (model, Apertium, FreeDict, error), each engine on real input, and
the model prompt that keeps names, dates and numbers."""

from __future__ import annotations

import asyncio
import gzip
import shutil
from pathlib import Path

import pytest

from paperworks.core.errors import UserError
from paperworks.models.scripted import register_script
from paperworks.tools.translate import apertium_pairs, choose_engine, freedict_pairs, translate
from paperworks.tools.translate.codes import normalise
from paperworks.tools.translate.freedict import gloss_text, load_dictionary

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _b64(n: int) -> str:
    out = ""
    while True:
        out = B64[n % 64] + out
        n //= 64
        if n == 0:
            return out


def write_dictd(folder: Path, name: str, entries: dict[str, str]) -> Path:
    """A real dictd dictionary (``.index`` + gzip ``.dict.dz``) with the given headword → body."""
    folder.mkdir(parents=True, exist_ok=True)
    data, index = b"", []
    for word, body in sorted(entries.items()):
        entry = f"{word} /{word}/\n{body}\n".encode()
        index.append(f"{word}\t{_b64(len(data))}\t{_b64(len(entry))}")
        data += entry
    (folder / f"{name}.index").write_text("00databaseinfo\tA\tB\n" + "\n".join(index) + "\n", encoding="utf-8")
    with gzip.open(folder / f"{name}.dict.dz", "wb") as fh:
        fh.write(data)
    return folder / f"{name}.index"


@pytest.fixture
def fake_engines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Apertium modes eng→spa and spa→eng, and a FreeDict lat→eng, in folders of the test."""
    modes = tmp_path / "modes"
    modes.mkdir()
    for name in ("eng-spa", "spa-eng", "spa-eng_US", "eco-es-fr"):
        (modes / f"{name}.mode").write_text("cat\n")
    write_dictd(tmp_path / "dictd", "freedict-lat-eng", {"rex": "king", "bellum": "1. war\n2. battle",
                                                         "urbs": "city"})
    monkeypatch.setenv("APERTIUM_MODES_DIR", str(modes))
    monkeypatch.setenv("FREEDICT_DIR", str(tmp_path / "dictd"))
    load_dictionary.cache_clear()
    return tmp_path


needs_apertium = pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium not installed")


@needs_apertium
def test_engine_choice(fake_engines: Path) -> None:
    assert set(apertium_pairs()) == {("eng", "spa"), ("spa", "eng")}  # variants and debug modes left out
    assert set(freedict_pairs()) == {("lat", "eng")}
    assert choose_engine("en", "es") == "apertium"
    assert choose_engine("la", "en") == "freedict"
    assert choose_engine("la", "en", model="openai/gpt-4o") == "model"  # a model wins when given
    assert choose_engine("eng", "spa", model="openai/gpt-4o", engine="apertium") == "apertium"
    assert choose_engine("Latin", "latin") == "none"
    with pytest.raises(UserError, match=r"no offline translation engine for lat→fra .*give a model"):
        choose_engine("lat", "fra")
    with pytest.raises(UserError, match=r"no Apertium pair lat→eng; installed: eng→spa, spa→eng"):
        choose_engine("lat", "eng", engine="apertium")
    with pytest.raises(UserError, match="needs a model"):
        choose_engine("lat", "eng", engine="model")
    with pytest.raises(UserError, match="not one of"):
        choose_engine("lat", "eng", engine="google")


def test_freedict_gloss_on_a_dictionary_written_here(fake_engines: Path) -> None:
    text, coverage = gloss_text("Rex bellum gessit, urbs cecidit.", "lat", "eng")
    assert text == "Rex [king] bellum [war; battle] gessit, urbs [city] cecidit."
    assert coverage == pytest.approx(3 / 5)
    result = asyncio.run(translate("Rex bellum gessit", "en", "la"))
    assert result.engine == "freedict" and result.render().startswith("[freedict, lat→eng, 67% of words glossed]")


def test_model_engine_gets_a_prompt_that_keeps_names_dates_numbers(fake_engines: Path) -> None:
    model = register_script("hist-translate", [{"when": ["Keep every personal name", "date, number",
                                                         "Translate from deu into fra", "Karl IV. starb 1378"],
                                                "text": "<text>\nCharles IV mourut en 1378.\n</text>"}])
    result = asyncio.run(translate("Karl IV. starb 1378 in Prag.", "fra", "deu", model=model))
    assert (result.engine, result.model, result.text) == ("model", model, "Charles IV mourut en 1378.")
    assert result.render().startswith(f"[model {model}, deu→fra]")


def test_source_language_is_detected(fake_engines: Path) -> None:
    result = asyncio.run(translate("Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae", "eng"))
    assert result.source == "lat" and result.engine == "freedict"


def test_bad_requests(fake_engines: Path) -> None:
    with pytest.raises(UserError, match="text is empty"):
        asyncio.run(translate("  ", "eng", "lat"))
    with pytest.raises(UserError, match="'x1' is not a language code"):
        normalise("x1")
    assert normalise("German") == normalise("de") == normalise("ger") == "deu"


@needs_apertium
@pytest.mark.skipif(("eng", "spa") not in apertium_pairs(), reason="apertium-eng-spa not installed")
def test_real_apertium_pair() -> None:
    result = asyncio.run(translate("The house is big.", "spa", "eng"))
    assert result.engine == "apertium" and result.text == "La casa es grande."


@pytest.mark.slow
@pytest.mark.skipif(("deu", "eng") not in freedict_pairs(), reason="dict-freedict-deu-eng not installed")
def test_real_freedict_dictionary() -> None:
    result = asyncio.run(translate("Der König", "eng", "deu"))
    assert result.engine == "freedict" and "König [king]" in result.text


def test_translate_tool_reports_engine_and_errors(fake_engines: Path) -> None:
    from paperworks.models.types import ToolCall
    from paperworks.tools.registry import execute_call
    from paperworks.tools.translate import tools as tr_tools

    tools = {"translate_text": tr_tools.translate_text}
    obs, ok = asyncio.run(execute_call(ToolCall("1", "translate_text", {"text": "rex", "source": "lat"}), tools, None))
    assert ok and obs.startswith("[freedict, lat→eng")
    obs, ok = asyncio.run(execute_call(ToolCall("2", "translate_text", {"text": "rex", "source": "lat",
                                                                        "target": "fra"}), tools, None))
    assert not ok and obs.startswith("error: no offline translation engine for lat→fra")
