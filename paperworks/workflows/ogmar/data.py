"""OG-MAR's settings and the data its online phase reads: the taxonomy, the training population (the
retrieval pool), the held-out respondents' visible answers, the ontology and the respondent summaries.

Relative paths resolve against the suite folder in an eval run (``suite_path`` in run.json) and against
the current directory otherwise; the defaults are the packaged ``values_synth`` suite's files. What is
loaded is cached per process (keyed by the resolved paths and the files' modification times), so an
eval loads each file once.

The workflow never reads the suite's ``oracle/`` folder unless a setting names a file in it
(``ontology=oracle/ontology.ttl`` makes an oracle replay, and says so in its output).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

import paperworks
from paperworks.core.errors import UserError
from paperworks.tools.values.ontology import Ontology
from paperworks.tools.values.profiles import SummaryCache
from paperworks.tools.values.survey import ItemSpec, Respondent, SurveyData
from paperworks.tools.values.taxonomy import Taxonomy

MODES = ("ogmar", "valuesrag", "persona", "zero_shot", "knn")
BUILT_DIR = "built"
"""Where ``ontology=auto`` / ``summaries=auto`` look, inside the suite folder: the output of
``paperworks ogmar build --data SUITE --out SUITE/built``."""


def packaged_suite() -> Path:
    """The packaged values_synth suite folder (``paperworks/suites``, or ``evals/`` in a checkout)."""
    package = Path(paperworks.__file__).resolve().parent
    shipped = package / "suites" / "values_synth"
    return shipped if shipped.is_dir() else package.parent / "evals" / "values_synth"


def _default(name: str) -> str:
    return str(packaged_suite() / name)


class OgmarConfig(BaseModel):
    """Settings of ``ogmar`` (defaults: the paper's K = 5, top 2 domains, 3 triples per domain, temperature 0)."""

    mode: Literal["ogmar", "valuesrag", "persona", "zero_shot", "knn"] = Field(
        "ogmar", description="ogmar: triples + K persona agents + judge; valuesrag: similar respondents in one "
        "call, no ontology; persona: role-play prompt only; zero_shot: demographics and question only; knn: "
        "majority answer of the K nearest respondents (no model call).")
    population: str = Field(default_factory=lambda: _default("population/train.csv"),
                            description="Training respondents (the retrieval pool), a survey file read with `mapping`.")
    heldout: str = Field(default_factory=lambda: _default("population/heldout.csv"),
                         description="The held-out respondents' visible answers ('' for none: demographics only).")
    mapping: str = Field(default_factory=lambda: _default("population/mapping.yaml"),
                         description="The mapping file that reads both survey files.")
    taxonomy: str = Field(default_factory=lambda: _default("taxonomy.yaml"), description="The taxonomy file.")
    ontology: str = Field("auto", description="A Turtle file of relations; 'auto': the suite's built one "
                          f"({BUILT_DIR}/ontology.ttl) if present, else none; 'none': no triples.")
    summaries: str = Field("auto", description="Model-written respondent summaries: a build folder or its "
                           f"summaries.sqlite; 'auto': {BUILT_DIR}/ in the suite if present; 'none': the "
                           "deterministic per-class score lines only.")
    k: int = Field(5, ge=1, le=20, description="Similar respondents retrieved, and persona agents (paper: 5).")
    topic_k: int = Field(2, ge=1, le=12, description="Domains the topic classifier picks.")
    per_category: int = Field(3, ge=1, le=20, description="Triples retrieved per picked domain (paper: 3).")
    embedder: Literal["minilm", "hashing"] = Field("minilm", description="Embeddings for the topic classifier "
                                                   "and triple retrieval: the packaged all-MiniLM-L6-v2, or the "
                                                   "dependency-free hashed bag of words.")
    evidence: Literal["model", "triples", "none"] = Field(
        "model", description="Who rates evidence strength, the judge's first criterion: the judge model (0-3 "
        "per answer); 'triples': 1 for answers the retrieved triples favour (no judge call); 'none': skip it.")
    persona_format: Literal["json", "lenient"] = Field(
        "json", description="json: a persona reply must be the JSON asked for, anything else is an abstention; "
        "lenient: a reply without JSON that names one choice counts as that answer (marked unstructured).")
    profile_lines: int = Field(4, ge=0, le=20, description="Value lines shown per respondent in a prompt.")
    neighbour_answers: bool = Field(True, description="Show each similar respondent's own answer to the item.")
    fallback: Literal["none", "knn"] = Field("none", description="Answer when no reply can be read (every "
                                             "persona abstained): none ('' - scored wrong) or the kNN majority.")
    max_tokens: int = Field(64, ge=8, le=4096, description="Reply budget per call: at most this many tokens "
                            "(a smaller max_tokens in the suite's generation settings wins). Persona JSON and "
                            "the judge's ratings fit in 64; a 135M model given more rambles at CPU speed.")


def resolve(path: str, base: Path) -> Path:
    """``path`` made absolute against ``base``."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else base / p


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


@dataclass
class Resources:
    """Everything the online phase reads, loaded once."""

    taxonomy: Taxonomy
    train: SurveyData
    heldout: SurveyData | None
    ontology: Ontology | None
    ontology_path: str
    summaries: SummaryCache | None = None
    summary_variant: str = ""
    _by_text: dict[str, ItemSpec] = field(default_factory=dict)
    _retrieval: dict[str, Any] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._by_text = {_fold(i.text): i for i in self.train.items.values()}

    def item_for(self, question: str) -> ItemSpec | None:
        """The mapped item whose wording is ``question`` (case and spacing ignored)."""
        return self._by_text.get(_fold(question))

    def respondent(self, respondent_id: str, demographics: dict[str, Any]) -> Respondent:
        """The held-out respondent's visible answers (none when not in the held-out file), with the
        demographics the input gave."""
        found = None
        if self.heldout is not None and respondent_id:
            try:
                found = self.heldout.respondent(respondent_id)
            except KeyError:
                found = None
        return Respondent(respondent_id, dict(demographics), dict(found.answers) if found else {})

    def retrieval(self, embedder: str) -> tuple[Any, Any]:
        """(TopicClassifier, TripleRetriever or None) over this ontology, built once per embedder."""
        from paperworks.tools.values.embeddings import HashingEmbedder, minilm_embedder
        from paperworks.tools.values.retrieval import TopicClassifier, TripleRetriever

        with self._lock:
            if embedder not in self._retrieval:
                embed = HashingEmbedder() if embedder == "hashing" else minilm_embedder()
                retriever = TripleRetriever(self.ontology, self.taxonomy, embed) if self.ontology else None
                self._retrieval[embedder] = (TopicClassifier(self.taxonomy, embed), retriever)
            classifier, retriever = self._retrieval[embedder]
        return classifier, retriever


_CACHE: dict[tuple[Any, ...], Resources] = {}
_CACHE_LOCK = threading.Lock()


def _stamp(path: Path | None) -> tuple[str, float]:
    if path is None:
        return "", 0.0
    try:
        return str(path), path.stat().st_mtime
    except OSError:
        return str(path), -1.0


def _existing(path: Path, setting: str) -> Path:
    if not path.exists():
        raise UserError(f"setting '{setting}': no such file {path} (workflow 'ogmar')")
    return path


def ontology_file(cfg: OgmarConfig, base: Path) -> Path | None:
    """The Turtle file the ``ontology`` setting names (None: no triples)."""
    if cfg.ontology == "none":
        return None
    if cfg.ontology == "auto":
        found = base / BUILT_DIR / "ontology.ttl"
        return found if found.is_file() else None
    return _existing(resolve(cfg.ontology, base), "ontology")


def summaries_file(cfg: OgmarConfig, base: Path) -> tuple[Path | None, str]:
    """(the summaries database, its variant) the ``summaries`` setting names; the variant is read from the
    build folder's build.json."""
    if cfg.summaries == "none":
        return None, ""
    path = base / BUILT_DIR if cfg.summaries == "auto" else _existing(resolve(cfg.summaries, base), "summaries")
    folder = path if path.is_dir() else path.parent
    db = path / "summaries.sqlite" if path.is_dir() else path
    if not db.is_file():
        if cfg.summaries != "auto":
            raise UserError(f"setting 'summaries': no summaries.sqlite in {path} (workflow 'ogmar')")
        return None, ""
    try:
        variant = str(json.loads((folder / "build.json").read_text(encoding="utf-8")).get("summary_variant", ""))
    except (OSError, ValueError):
        variant = ""
    return db, variant


def resources(cfg: OgmarConfig, base: Path) -> Resources:
    """The loaded data of these settings (cached per process; see the module docstring)."""
    from paperworks.tools.values.loader import load_survey
    from paperworks.tools.values.taxonomy import load_taxonomy

    taxonomy_path = _existing(resolve(cfg.taxonomy, base), "taxonomy")
    mapping_path = _existing(resolve(cfg.mapping, base), "mapping")
    train_path = _existing(resolve(cfg.population, base), "population")
    heldout_path = _existing(resolve(cfg.heldout, base), "heldout") if cfg.heldout else None
    onto_path = ontology_file(cfg, base)
    db, variant = summaries_file(cfg, base)
    key = tuple(_stamp(p) for p in (taxonomy_path, mapping_path, train_path, heldout_path, onto_path, db))
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        taxonomy = load_taxonomy(taxonomy_path)
        train = load_survey(train_path, mapping_path, taxonomy)
        heldout = load_survey(heldout_path, mapping_path, taxonomy) if heldout_path else None
        ontology = Ontology.from_turtle(onto_path) if onto_path else None
        if ontology is not None:
            problems = ontology.check(taxonomy)
            if problems:
                raise UserError(f"setting 'ontology' ({onto_path}): {problems[0]}")
        found = Resources(taxonomy, train, heldout, ontology, str(onto_path or ""),
                          SummaryCache(db) if db else None, variant)
        _CACHE[key] = found
        return found


def preflight(inp: Any, cfg: Any, base: Path) -> None:
    """Before a run exists (``paperworks run``): the data files the settings name exist (relative paths against
    ``base``); a one-line ``UserError`` naming the setting otherwise. Nothing is loaded here."""
    if not isinstance(cfg, OgmarConfig):
        return
    for setting in ("taxonomy", "mapping", "population", "heldout"):
        value = getattr(cfg, setting)
        if value or setting != "heldout":
            path = _existing(resolve(value, base), setting)
            if path.is_dir():
                raise UserError(f"setting '{setting}': {path} is a folder, not a file (workflow 'ogmar')")
    ontology_file(cfg, base)
    summaries_file(cfg, base)
    if inp is not None:  # the respondent's demographics against the survey's schema (loads the data, cached)
        from paperworks.tools.values.neighbours import check_query

        check_query(dict(inp.demographics), resources(cfg, base).train.schema, "input: demographics")
