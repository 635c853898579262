"""Translation: a model through the gateway, Apertium pairs, or FreeDict word-by-word glosses."""

from paperworks.tools.translate.apertium import apertium_pairs
from paperworks.tools.translate.core import Translation, choose_engine, translate
from paperworks.tools.translate.freedict import freedict_pairs

__all__ = ["Translation", "apertium_pairs", "choose_engine", "freedict_pairs", "translate"]
