"""Word-by-word glossing from FreeDict dictionaries (Debian ``dict-freedict-<src>-<tgt>``), read
directly from their dictd ``.index`` and ``.dict.dz`` files."""

from __future__ import annotations

import functools
import gzip
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from paperworks.core.errors import UserError
from paperworks.tools.translate.codes import normalise

DICT_DIR = Path("/usr/share/dictd")
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_TOKEN = re.compile(r"(\w+(?:[-'’]\w+)*)|(\W+)", re.UNICODE)


def dict_dir() -> Path:
    """Where dictd dictionaries live (``FREEDICT_DIR`` overrides, for tests)."""
    return Path(os.environ.get("FREEDICT_DIR", str(DICT_DIR)))


def freedict_pairs() -> dict[tuple[str, str], Path]:
    """Installed FreeDict dictionaries: (source, target) in ISO 639-3 → path of the ``.index`` file."""
    out: dict[tuple[str, str], Path] = {}
    for index in sorted(dict_dir().glob("freedict-*-*.index")):
        parts = index.name[len("freedict-"):-len(".index")].split("-")
        if len(parts) == 2 and index.with_suffix(".dict.dz").exists():
            try:
                out[(normalise(parts[0]), normalise(parts[1]))] = index
            except UserError:
                continue
    return out


def _b64(value: str) -> int:
    n = 0
    for ch in value:
        n = n * 64 + _B64.index(ch)
    return n


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@dataclass
class Dictionary:
    """One dictd dictionary: headword → definitions (raw dictd entries)."""

    index: dict[str, list[tuple[int, int]]]
    folded: dict[str, str]
    data: bytes

    def entries(self, word: str) -> list[str]:
        """Raw entries for ``word``: exact, then lower-case, then accent-folded match."""
        for key in (word, word.lower(), self.folded.get(_fold(word), "")):
            if key and key in self.index:
                return [self.data[o:o + n].decode("utf-8", "replace") for o, n in self.index[key]]
        return []

    def gloss(self, word: str, senses: int = 2) -> str | None:
        """The first ``senses`` short definitions of ``word`` joined by ``; `` (None if unknown)."""
        found: list[str] = []
        for entry in self.entries(word):
            for line in entry.splitlines()[1:]:
                numbered = re.match(r"^\s*\d+\.\s*", line) is not None
                text = re.sub(r"<[^>]*>", "", re.sub(r"^\s*\d+\.\s*", "", line)).strip()
                if not text or text.startswith(("see:", "Synonym", "Note", "[")):
                    continue
                first = text.split(", ")[0] if len(text) > 40 else text
                if first not in found:
                    found.append(first)
                if not numbered or len(found) >= senses:
                    break
            if len(found) >= senses:
                break
        return "; ".join(found[:senses]) if found else None


@functools.cache
def load_dictionary(index_path: Path) -> Dictionary:
    """Parse a dictd index and decompress its ``.dict.dz`` (gzip-compatible dictzip), once per process."""
    index: dict[str, list[tuple[int, int]]] = {}
    folded: dict[str, str] = {}
    with index_path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or parts[0].startswith("00database"):
                continue
            word = parts[0].strip()
            if not word:
                continue
            index.setdefault(word, []).append((_b64(parts[1]), _b64(parts[2])))
            folded.setdefault(_fold(word), word)
    with gzip.open(index_path.with_suffix(".dict.dz")) as fh:
        data = fh.read()
    return Dictionary(index, folded, data)


def gloss_text(text: str, source: str, target: str) -> tuple[str, float]:
    """Word-by-word gloss: each known word becomes ``word [gloss]``; unknown words stay as they are.

    Returns the glossed text and the share of words found in the dictionary.
    """
    index = freedict_pairs().get((normalise(source), normalise(target)))
    if index is None:
        raise UserError(f"no FreeDict dictionary {source}→{target} is installed (Debian: dict-freedict-*)")
    dictionary = load_dictionary(index)
    out: list[str] = []
    words = known = 0
    for match in _TOKEN.finditer(text):
        word, other = match.groups()
        if other is not None:
            out.append(other)
            continue
        words += 1
        meaning = dictionary.gloss(word)
        if meaning:
            known += 1
            out.append(f"{word} [{meaning}]")
        else:
            out.append(word)
    return "".join(out), (known / words if words else 0.0)
