"""OCR on text rendered in the test: character error rate per language, preprocessing, word boxes,
orientation/script detection, language identification, and one-line errors for bad inputs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("pytesseract")
from PIL import Image, ImageFilter  # noqa: E402

from paperworks.core.errors import UserError  # noqa: E402
from paperworks.tools.documents.model import BadFileError  # noqa: E402
from paperworks.tools.ocr import Preprocess, detect_language, detect_orientation, ocr_image  # noqa: E402
from paperworks.tools.ocr.engine import join_words  # noqa: E402
from paperworks.tools.ocr.languages import installed_languages, tesseract_langs  # noqa: E402
from paperworks.tools.ocr.preprocess import estimate_skew, otsu_threshold, text_line_height  # noqa: E402
from tests.fixtures.hist_render import SAMPLES, cer, render  # noqa: E402

NO_SPACES = {"chi_sim", "chi_tra", "jpn"}
# Goal ≤ 2% on the clean Latin-script languages; other scripts: what was measured, plus margin.
MAX_CER = {"eng": 0.02, "lat": 0.02, "deu": 0.02, "fra": 0.02, "ita": 0.02, "spa": 0.02, "rus": 0.03,
           "ell": 0.03, "grc": 0.05, "heb": 0.05, "ara": 0.08, "chi_sim": 0.2, "chi_tra": 0.2, "jpn": 0.15,
           "frk": 0.06}
needs = pytest.mark.skipif(not set(MAX_CER) <= installed_languages(), reason="tesseract language packs missing")


@needs
@pytest.mark.parametrize("lang", list(MAX_CER))
def test_character_error_rate_per_language(lang: str) -> None:
    font, text = SAMPLES[lang]
    img = render(text, font, rtl=lang in ("heb", "ara"))
    result = ocr_image(img, lang, psm=6)
    assert cer(text, result.text, ignore_spaces=lang in NO_SPACES) <= MAX_CER[lang], result.text


def test_cer_metric_counts_edits() -> None:
    assert cer("abcd", "abcd") == 0
    assert cer("abcd", "abxd") == 0.25
    assert cer("a  b\nc", "a b c") == 0
    assert cer("学 而", "学而", ignore_spaces=True) == 0


@needs
def test_words_have_confidence_and_boxes_where_the_word_is(tmp_path: Path) -> None:
    img = render("Westphalia 1648", "serif", size=40, margin=50)
    result = ocr_image(img, "eng", psm=7)
    words = {w.text: w for w in result.words}
    assert set(words) == {"Westphalia", "1648"}
    left, top, width, height = words["Westphalia"].box
    assert 40 <= left <= 60 and 40 <= top <= 70 and width > 150 and 20 < height < 60
    assert words["1648"].box[0] > left + width  # second word to the right of the first
    assert all(50 < w.confidence <= 100 for w in result.words) and result.mean_confidence > 80


@needs
def test_deskew_straightens_a_rotated_scan() -> None:
    text = SAMPLES["lat"][1] + "\n" + SAMPLES["eng"][1]
    img = render(text, "serif", size=30, angle=3.0)
    import numpy as np

    assert abs(estimate_skew(np.asarray(img)) + 3.0) <= 0.5  # rotating back by -3°
    from paperworks.tools.ocr.preprocess import preprocess

    clean, _ = preprocess(img)
    assert estimate_skew(np.asarray(clean)) == 0.0  # straight after deskewing
    straight = ocr_image(img, "lat+eng", psm=6)
    assert cer(text, straight.text) <= 0.03, straight.text
    assert straight.preprocessing["skew_deg"] == pytest.approx(-3.0, abs=0.5)


@needs
def test_small_text_is_upscaled_and_noisy_paper_binarised() -> None:
    text = "Gallia est omnis divisa in partes tres"
    small = render(text, "serif", size=11, margin=10)
    arr = __import__("numpy").asarray(small)
    assert text_line_height(arr) < 20
    up = ocr_image(small, "lat", psm=7)
    assert up.preprocessing["scale"] > 1.5
    # boxes are in the coordinates of the image as given, not of the upscaled copy
    assert all(w.box[0] + w.box[2] <= small.width + 2 and w.box[1] + w.box[3] <= small.height + 2 for w in up.words)
    assert cer(text, up.text) <= 0.05, up.text
    # yellowed paper, grey ink, blur
    page = render(text, "serif", size=30)
    paper = Image.new("RGB", page.size, (225, 205, 160))
    aged = Image.composite(Image.new("RGB", page.size, (70, 60, 50)), paper, page.point(lambda v: 255 - v))
    aged = aged.filter(ImageFilter.GaussianBlur(1.0))
    assert cer(text, ocr_image(aged, "lat", psm=7).text) <= 0.03


def test_otsu_threshold_separates_two_levels() -> None:
    import numpy as np

    arr = np.array([[30] * 50 + [220] * 50], dtype=np.uint8)
    assert 30 <= otsu_threshold(arr) < 220


def test_preprocessing_can_be_switched_off() -> None:
    img = render("abc", "serif").convert("RGB")
    from paperworks.tools.ocr.preprocess import preprocess

    out, done = preprocess(img, Preprocess(grayscale=False, upscale=False, deskew=False, binarise=False))
    assert out.mode == "RGB" and done == {"scale": 1.0, "skew_deg": 0.0}


@needs
def test_orientation_and_script_detection() -> None:
    page = render("\n".join([SAMPLES["eng"][1]] * 4), "serif", size=30)
    o = detect_orientation(page.rotate(90, expand=True, fillcolor=255))
    assert o.rotate in (90, 270) and o.script == "Latin"
    text = SAMPLES["eng"][1]
    sideways = render(text + "\n" + text, "serif", size=30).rotate(90, expand=True, fillcolor=255)
    upright = ocr_image(sideways, "eng", auto_rotate=True)
    assert upright.preprocessing["rotated_deg"] in (90.0, 270.0) and cer(text + " " + text, upright.text) <= 0.02
    cyr = detect_orientation(render("\n".join([SAMPLES["rus"][1]] * 4), "serif", size=30))
    assert cyr.rotate == 0 and cyr.script == "Cyrillic"


def test_join_words_keeps_cjk_tight() -> None:
    assert join_words(["学", "而", "时", "?"]) == "学而时?"
    assert join_words(["It", "was", "1648."]) == "It was 1648."


@pytest.mark.slow
@pytest.mark.parametrize(("text", "code"), [
    ("Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae", "lat"),
    ("Es war einmal ein König, der hatte drei Töchter", "deu"),
    ("Le congrès de Vienne s'ouvrit en septembre 1814", "fra"),
    ("Все счастливые семьи похожи друг на друга", "rus"),
    ("ἄνδρα μοι ἔννεπε, μοῦσα, πολύτροπον", "grc"),
    ("Η Αθήνα είναι η πρωτεύουσα της Ελλάδας", "ell"),
    ("בראשית ברא אלהים את השמים ואת הארץ", "heb"),
    ("في البدء كان الكلمة والكلمة كانت عند الله", "ara"),
    ("学而时习之，不亦说乎", "zho"),
    ("ܐܒܘܢ ܕܒܫܡܝܐ ܢܬܩܕܫ ܫܡܟ", "syr"),
])
def test_language_identification(text: str, code: str) -> None:
    assert detect_language(text).iso639_3 == code


def test_language_identification_refuses_letterless_text() -> None:
    with pytest.raises(UserError, match="fewer than 3 letters"):
        detect_language("12 34 !!")


def test_bad_inputs_give_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(BadFileError, match=r"missing\.png: no such file"):
        ocr_image(tmp_path / "missing.png")
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    with pytest.raises(BadFileError) as info:
        ocr_image(broken)
    assert str(info.value).startswith(f"{broken}: not a readable image") and "\n" not in str(info.value)
    with pytest.raises(UserError, match="OCR language 'klingon' is not installed"):
        tesseract_langs("eng+klingon")
    assert tesseract_langs(["de", "Latin", "chi_sim"]) == "deu+lat+chi_sim"


@needs
def test_agent_tools_report_text_and_errors(tmp_path: Path) -> None:
    from paperworks.core.artifacts import ArtifactStore
    from paperworks.models.types import ToolCall
    from paperworks.tools.ocr import tools as ocr_tools
    from paperworks.tools.registry import ToolContext, execute_call

    store = ArtifactStore(tmp_path / "artifacts")
    render("Westphalia 1648", "serif", size=40).save(store.root / "page.png")
    tools = {t.name: t for t in (ocr_tools.ocr, ocr_tools.identify_language, ocr_tools.image_orientation)}
    ctx = ToolContext(artifacts=store)
    obs, ok = asyncio.run(execute_call(ToolCall("1", "ocr", {"path": "page.png", "words": True}), tools, ctx))
    assert ok and "Westphalia 1648" in obs and "Westphalia\t" in obs
    obs, ok = asyncio.run(execute_call(ToolCall("2", "ocr", {"path": "nope.png"}), tools, ctx))
    assert not ok and obs.startswith("error: ") and "nope.png: no such file" in obs
    obs, ok = asyncio.run(execute_call(ToolCall("3", "ocr", {"path": "/etc/hostname"}), tools, ctx))
    assert not ok and "outside the run's artifact folder" in obs
    obs, ok = asyncio.run(execute_call(ToolCall("4", "identify_language",
                                                {"text": "Gallia est omnis divisa in partes tres"}), tools, ctx))
    assert ok and obs.startswith("lat (Latin)")


@needs
def test_tesseract_runs_single_threaded_without_touching_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    import pytesseract.pytesseract as runner

    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    ocr_image(render("abc", "serif"), "eng", psm=7)
    assert runner.environ["OMP_THREAD_LIMIT"] == "1" and "OMP_THREAD_LIMIT" not in os.environ
    monkeypatch.setenv("PAPERWORKS_OCR_THREADS", "2")
    assert runner.environ["OMP_THREAD_LIMIT"] == "2" and runner.environ["PATH"] == os.environ["PATH"]
