"""The value taxonomy: 12 domains and 64 subclasses (76 classes), stored as data in
``paperworks/tools/values/data/taxonomy.yaml``.

Each row has ``id`` (lower_snake_case, unique), ``name``, ``kind`` (``domain`` or ``subclass``),
``domain`` (the id of a domain row; a domain row names itself) and ``description``. ``load_taxonomy``
validates a file and reports every bad row as one line naming the file, line, row, field and what was
expected, e.g. ``taxonomy.yaml:40: row 9 (id 'happines'): field 'domain': expected the id of a domain
row, got 'wellbeeing' (did you mean 'wellbeing'?)``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from paperworks.tools.values.errors import raise_if
from paperworks.tools.values.yamlrows import Row, hint, list_rows, read_yaml, row_where

DATA_DIR = Path(__file__).resolve().parent / "data"
TAXONOMY_FILE = DATA_DIR / "taxonomy.yaml"
ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
KINDS = ("domain", "subclass")
FIELDS = ("id", "name", "kind", "domain", "description")
MIN_DESCRIPTION = 20


@dataclass(frozen=True)
class ValueClass:
    """One class of the taxonomy."""

    id: str
    name: str
    kind: str
    """``domain`` or ``subclass``."""
    domain: str
    """The domain's id (a domain names itself)."""
    description: str

    @property
    def is_domain(self) -> bool:
        """True for one of the 12 domains."""
        return self.kind == "domain"

    def text(self) -> str:
        """``Name: description`` — what retrieval embeds for this class."""
        return f"{self.name}: {self.description}"


class Taxonomy:
    """The classes in file order, with look-ups by id and by domain."""

    def __init__(self, classes: list[ValueClass], version: str = "1", source: str = "") -> None:
        self.classes = list(classes)
        self.version = version
        self.source = source
        self._by_id = {c.id: c for c in self.classes}

    def __len__(self) -> int:
        return len(self.classes)

    def __iter__(self) -> Iterator[ValueClass]:
        return iter(self.classes)

    def __contains__(self, class_id: object) -> bool:
        return class_id in self._by_id

    def get(self, class_id: str) -> ValueClass:
        """The class with this id; ``KeyError`` naming a near miss otherwise."""
        try:
            return self._by_id[class_id]
        except KeyError:
            raise KeyError(f"no class '{class_id}' in the taxonomy{hint(class_id, self._by_id)}") from None

    @property
    def domains(self) -> list[ValueClass]:
        """The domain rows, in file order."""
        return [c for c in self.classes if c.is_domain]

    @property
    def subclasses(self) -> list[ValueClass]:
        """The subclass rows, in file order."""
        return [c for c in self.classes if not c.is_domain]

    def subclasses_of(self, domain: str) -> list[ValueClass]:
        """The subclasses of one domain, in file order."""
        return [c for c in self.classes if c.domain == domain and not c.is_domain]

    def domain_of(self, class_id: str) -> str:
        """The domain id of a class (a domain's is itself)."""
        return self.get(class_id).domain

    def content_hash(self) -> str:
        """sha256 over the classes' fields: changes whenever an id, name or description does."""
        blob = json.dumps([asdict(c) for c in self.classes], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def to_rows(self) -> list[dict[str, str]]:
        """The classes as plain rows (the file's ``classes`` list)."""
        return [asdict(c) for c in self.classes]


def validate_taxonomy_rows(rows: list[Row], shown: str) -> list[str]:
    """One line per bad row of a taxonomy file (missing or unknown field, bad id, duplicate id, unknown
    kind, a domain that is not a domain row, a short description); an empty list when all are good."""
    problems: list[str] = []
    domains = {str(r.data.get("id")) for r in rows if r.data.get("kind") == "domain"}
    seen: dict[str, int] = {}
    for row in rows:
        where = row_where(shown, row)
        d = row.data
        missing = [f for f in FIELDS if f not in d or d[f] is None or d[f] == ""]
        if missing:
            problems.append(f"{where}: field '{missing[0]}': expected a value (rows need {', '.join(FIELDS)})")
            continue
        extra = [k for k in d if k not in FIELDS]
        if extra:
            problems.append(f"{where}: field '{extra[0]}': unknown field{hint(extra[0], FIELDS)}; expected only "
                            f"{', '.join(FIELDS)}")
            continue
        bad_type = next((f for f in FIELDS if not isinstance(d[f], str)), None)
        if bad_type:
            problems.append(f"{where}: field '{bad_type}': expected a string, got {type(d[bad_type]).__name__}")
            continue
        ident, kind, domain = d["id"], d["kind"], d["domain"]
        if not ID_PATTERN.match(ident):
            problems.append(f"{where}: field 'id': expected lower_snake_case ([a-z][a-z0-9_]*), got {ident!r}")
        elif ident in seen:
            problems.append(f"{where}: field 'id': expected a unique id, got {ident!r} (also row {seen[ident]})")
        else:
            seen[ident] = row.index
        if kind not in KINDS:
            problems.append(f"{where}: field 'kind': expected 'domain' or 'subclass', got {kind!r}{hint(kind, KINDS)}")
        elif kind == "domain" and domain != ident:
            problems.append(f"{where}: field 'domain': expected a domain row to name itself ({ident!r}), got "
                            f"{domain!r}")
        elif kind == "subclass" and domain not in domains:
            problems.append(f"{where}: field 'domain': expected the id of a domain row, got {domain!r}"
                            f"{hint(domain, domains)}")
        if len(d["description"].strip()) < MIN_DESCRIPTION:
            problems.append(f"{where}: field 'description': expected at least {MIN_DESCRIPTION} characters, got "
                            f"{len(d['description'].strip())}")
    return problems


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Read and validate a taxonomy file (YAML or JSON with a ``classes`` list; default: the packaged
    76-class taxonomy). Raises ``ValuesDataError`` with one line per bad row."""
    if path is None:
        return _packaged()
    return _read(Path(path))


@functools.cache
def _packaged() -> Taxonomy:
    return _read(TAXONOMY_FILE)


def _read(path: Path) -> Taxonomy:
    shown = str(path)
    raw, node = read_yaml(path)
    rows = list_rows(raw, node, "classes", shown)
    raise_if(validate_taxonomy_rows(rows, shown))
    classes = [ValueClass(**{f: str(r.data[f]).strip() for f in FIELDS}) for r in rows]
    version = str(raw.get("version", "1")) if isinstance(raw, dict) else "1"
    return Taxonomy(classes, version=version, source=shown)

