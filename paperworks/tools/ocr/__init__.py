"""OCR: tesseract with preprocessing, orientation/script detection and language identification."""

from paperworks.tools.ocr.engine import OcrResult, Orientation, Word, detect_orientation, ocr_image
from paperworks.tools.ocr.langid import LanguageGuess, detect_language
from paperworks.tools.ocr.preprocess import Preprocess, preprocess

__all__ = ["LanguageGuess", "OcrResult", "Orientation", "Preprocess", "Word", "detect_language",
           "detect_orientation", "ocr_image", "preprocess"]
