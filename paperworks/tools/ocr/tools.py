"""Agent tools: OCR an image, detect its orientation and script, identify a text's language."""

from __future__ import annotations

from paperworks.core.errors import UserError
from paperworks.tools.base import ToolContext, ToolError, tool
from paperworks.tools.documents.inputs import resolve_input
from paperworks.tools.ocr.engine import detect_orientation, ocr_image
from paperworks.tools.ocr.langid import detect_language


@tool
def ocr(path: str, ctx: ToolContext, languages: str = "eng", words: bool = False, upright: bool = True) -> str:
    """Read the text of an image (scan, photo of a page, manuscript) with tesseract OCR, after
    grayscale, deskew, upscaling and binarisation.

    Args:
        path: the image file, relative to the run's files or an attachment path.
        languages: tesseract languages joined by "+", e.g. "lat", "deu+frk", "grc", "chi_tra", "ara",
            or "auto" to detect the script and language first.
        words: also list each word with its confidence (0-100) and box (left, top, width, height).
        upright: first turn a page that lies on its side or upside down (orientation detection).
    """
    try:
        result = ocr_image(resolve_input(path, ctx), languages, auto_rotate=upright)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    lines = [f"{path}: {len(result.words)} words, mean confidence {result.mean_confidence:.0f}, "
             f"languages {result.languages}" + (f" ({result.detected})" if result.detected else "")
             + (f", turned {result.preprocessing['rotated_deg']:.0f} degrees" if "rotated_deg" in result.preprocessing
                else ""), result.text or "(no text found)"]
    if words:
        lines.append("words (text, confidence, left, top, width, height):")
        lines += [f"{w.text}\t{w.confidence:.0f}\t{w.box[0]}\t{w.box[1]}\t{w.box[2]}\t{w.box[3]}"
                  for w in result.words]
    return "\n".join(lines)


@tool
def image_orientation(path: str, ctx: ToolContext) -> str:
    """Detect how an image of text is rotated and which script it is written in (tesseract OSD).

    Args:
        path: the image file.
    """
    try:
        o = detect_orientation(resolve_input(path, ctx))
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    return (f"rotate {o.rotate} degrees clockwise to make it upright (confidence {o.orientation_confidence:.1f}); "
            f"script {o.script} (confidence {o.script_confidence:.1f})")


@tool
def identify_language(text: str, candidates: str = "") -> str:
    """Identify the language of a text offline (Latin, German, Ancient Greek, Syriac, ...).

    Args:
        text: the text, at least a few words for a reliable answer.
        candidates: optional ISO codes to choose among, comma-separated, e.g. "la,it,fr".
    """
    try:
        guess = detect_language(text, [c.strip() for c in candidates.split(",") if c.strip()] or None)
    except UserError as exc:
        raise ToolError(str(exc)) from exc
    alts = ", ".join(f"{code} {conf:.2f}" for code, conf in guess.alternatives)
    return (f"{guess.iso639_3} ({guess.name}), confidence {guess.confidence:.2f}, script {guess.script}"
            + (f"; next: {alts}" if alts else ""))
