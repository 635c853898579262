"""OG-MAR's offline phase (``paperworks ogmar build``): respondent value summaries by the model, and the
ontology elicited with competency questions under personas (``ogmar_elicit``), saved as Turtle.

Everything is written as it is produced, so a killed build resumes where it stopped:

- ``build.json``: the settings, the model and the prompt version (a rerun with another model or prompt
  version is refused: use another ``--out``), the status and the seconds spent over all runs
  (``elapsed_s``; a killed run's time is lost);
- ``personas.json``, ``pairs.json``: who is asked about which class pairs;
- ``summaries.sqlite``: one summary per respondent (``SummaryCache``, keyed by the respondent's evidence and
  ``summary_variant`` = model + prompt version); a respondent already there is not asked again;
- ``answers.jsonl``: one line per answered (persona, subject, object) competency question, appended as
  each reply arrives; a rerun skips those (a half-written last line is dropped and asked again);
- ``ontology.ttl``: the aggregated relations (RDF, with provenance) and ``screen.ttl`` (what the pair
  screen alone implies); ``report.json``: counts, and precision/recall at every level against a
  reference when the data has one (a suite's ``oracle/ontology.ttl``, used for scoring only).

Answers are deterministic per question at temperature 0, so an interrupted and resumed build ends with
the same ontology as an uninterrupted one.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from paperworks.agents.ogmar import prompts
from paperworks.agents.ogmar.parse import parse_relation
from paperworks.core.errors import UserError
from paperworks.tools.values.ontology import Ontology
from paperworks.tools.values.ontology_eval import compare_ontologies
from paperworks.tools.values.profiles import SummaryCache, value_profile
from paperworks.tools.values.survey import Respondent, SurveyData
from paperworks.tools.values.taxonomy import Taxonomy
from paperworks.workflows.context import RunContext
from paperworks.workflows.ogmar.elicit import (
    Persona,
    aggregate,
    partial_correlations,
    screen_ontology,
    select_pairs,
    select_personas,
)


@dataclass
class BuildSettings:
    """Settings of the offline phase (defaults small enough for the embedded model)."""

    model: str
    """litellm model string that writes summaries and answers the competency questions."""
    personas_per_region: int = 1
    """Personas per region (the paper: 20, with 6 regions = 120)."""
    pairs: int = 24
    """Class pairs asked about (0: every screened pair)."""
    pair_selection: str = "partial"
    """``partial`` (screened by partial correlation of class scores) or ``all``."""
    directions: str = "both"
    """``both``: ask A→B and B→A; ``one``: only A→B in taxonomy order."""
    summaries: int = 12
    """Respondents summarised (0: none; -1: all), the held-out respondents' neighbours first."""
    min_agreement: float = 0.5
    """Share of the personas asked that must give the winning sign for a relation to be kept."""
    concurrency: int = 4
    """Model calls in flight at once."""
    seed: int = 0
    """Seed of the persona draw and of the model calls."""
    max_tokens: int = 16
    """Reply budget of a competency answer."""
    summary_max_tokens: int = 80
    """Reply budget of a summary."""

    def check(self) -> None:
        """One-line ``UserError`` naming the flag of a bad value."""
        if self.personas_per_region < 1:
            raise UserError(f"--personas-per-region must be at least 1, got {self.personas_per_region}")
        if self.pairs < 0:
            raise UserError(f"--pairs must be 0 (all) or more, got {self.pairs}")
        if self.pair_selection not in ("partial", "all"):
            raise UserError(f"--pair-selection must be 'partial' or 'all', got '{self.pair_selection}'")
        if self.directions not in ("both", "one"):
            raise UserError(f"--directions must be 'both' or 'one', got '{self.directions}'")
        if self.summaries < -1:
            raise UserError(f"--summaries must be -1 (all), 0 (none) or more, got {self.summaries}")
        if not 0 < self.min_agreement <= 1:
            raise UserError(f"--min-agreement must be in (0, 1], got {self.min_agreement}")
        if self.concurrency < 1:
            raise UserError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.max_tokens < 1 or self.summary_max_tokens < 1:
            raise UserError("--max-tokens must be at least 1")


@dataclass
class BuildData:
    """What the offline phase reads: the taxonomy, the training pool, optionally held-out respondents
    (their neighbours are summarised first) and a reference ontology (for the report only)."""

    taxonomy: Taxonomy
    train: SurveyData
    heldout: SurveyData | None = None
    reference: Ontology | None = None
    source: str = ""


@dataclass
class BuildReport:
    """What a build did and produced."""

    out: str
    relations: int
    answers: int
    asked_now: int
    summaries: int
    summarised_now: int
    seconds: float
    scores: dict[str, Any] = field(default_factory=dict)
    screen_scores: dict[str, Any] = field(default_factory=dict)


def summary_variant(model: str) -> str:
    """The SummaryCache variant of a build's summaries."""
    return f"{model}|{prompts.PROMPT_VERSION}"


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _start(out: Path, settings: BuildSettings, data: BuildData) -> dict[str, Any]:
    meta_path = out / "build.json"
    old: dict[str, Any] = {}
    if meta_path.is_file():
        old = json.loads(meta_path.read_text(encoding="utf-8"))
        for key, now in (("model", settings.model), ("prompt_version", prompts.PROMPT_VERSION)):
            if old.get(key) != now:
                raise UserError(f"{out} was built with {key} {old.get(key)!r}, not {now!r}: use another --out")
    out.mkdir(parents=True, exist_ok=True)
    meta = {"model": settings.model, "prompt_version": prompts.PROMPT_VERSION, "data": data.source,
            "settings": asdict(settings), "summary_variant": summary_variant(settings.model), "status": "running",
            "elapsed_s": float(old.get("elapsed_s", 0.0)), "runs": int(old.get("runs", 0)) + 1}
    _write_json(meta_path, meta)
    return meta


def read_answers(path: Path) -> list[dict[str, Any]]:
    """The answered questions of ``answers.jsonl``; a torn last line (a killed writer) is cut off."""
    if not path.is_file():
        return []
    raw = path.read_bytes()
    good = raw[: raw.rfind(b"\n") + 1]
    if len(good) != len(raw):
        with open(path, "r+b") as fh:
            fh.truncate(len(good))
    rows = []
    for line in good.decode("utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def summary_order(data: BuildData, k: int = 5) -> list[Respondent]:
    """Training respondents to summarise: the held-out respondents' K nearest first, then the rest."""
    from paperworks.tools.values.neighbours import nearest_respondents

    first: dict[str, Respondent] = {}
    for h in data.heldout or []:
        for n in nearest_respondents(h.demographics, data.train.respondents, data.train.schema, k, [h.id]):
            first.setdefault(n.respondent.id, n.respondent)
    return list(first.values()) + [r for r in data.train if r.id not in first]


async def build(data: BuildData, settings: BuildSettings, out: Path,
                progress: Callable[[str, int, int], None] | None = None) -> BuildReport:
    """Run (or resume) the offline phase into ``out`` (see the module docstring)."""
    settings.check()
    start = time.monotonic()
    meta = _start(out, settings, data)
    ctx = RunContext(model=settings.model, seed=settings.seed)
    model = ctx.get_model()
    semaphore = asyncio.Semaphore(settings.concurrency)
    tell = progress or (lambda phase, done, total: None)

    async def ask(messages: list[dict[str, Any]], max_tokens: int) -> str:
        async with semaphore:
            reply = await model.generate(messages, temperature=0, max_tokens=max_tokens, seed=settings.seed)
            return reply.text

    # summaries
    cache = SummaryCache(out / "summaries.sqlite")
    variant = summary_variant(settings.model)
    order = summary_order(data)
    chosen = order if settings.summaries == -1 else order[: settings.summaries]
    todo = [(r, value_profile(r, data.train.items, data.taxonomy)) for r in chosen]
    todo = [(r, p) for r, p in todo if cache.get(p, variant) is None]
    done_summaries = len(chosen) - len(todo)

    async def summarise(r: Respondent, profile: Any) -> None:
        nonlocal done_summaries
        lines = [line.split(" — ")[0] for line in profile.lines(data.taxonomy)]
        strongest = {c.class_id for c in profile.strongest(8)}
        lines = [ln for c, ln in zip(profile.classes, lines, strict=True) if c in strongest]
        text = await ask(prompts.summary_messages(r.id, r.demographics, lines), settings.summary_max_tokens)
        cache.put(profile, text.strip(), variant, {"model": settings.model})
        done_summaries += 1
        tell("summaries", done_summaries, len(chosen))

    try:
        await _all([summarise(r, p) for r, p in todo])
    finally:
        summarised = len(cache)
        cache.close()

    # competency questions
    personas = select_personas(data.train, settings.personas_per_region, settings.seed)
    partial = partial_correlations(data.train, data.taxonomy)
    pairs = select_pairs(data.train, data.taxonomy, settings.pairs, settings.pair_selection, partial)
    ordered = [p for a, b in pairs for p in ([(a, b), (b, a)] if settings.directions == "both" else [(a, b)])]
    _write_json(out / "personas.json", [asdict(p) for p in personas])
    _write_json(out / "pairs.json", [list(p) for p in pairs])
    answers_path = out / "answers.jsonl"
    done = {(a["persona"], a["subject"], a["object"]): a for a in read_answers(answers_path)}
    wanted = [(p, s, o) for p in personas for s, o in ordered]
    missing = [(p, s, o) for p, s, o in wanted if (p.id, s, o) not in done]
    asked_now = 0

    with open(answers_path, "a", encoding="utf-8") as fh:
        async def question(persona: Persona, s: str, o: str) -> None:
            nonlocal asked_now
            messages = prompts.competency_messages(persona.text, data.taxonomy.get(s), data.taxonomy.get(o))
            text = await ask(messages, settings.max_tokens)
            predicate, understood = parse_relation(text)
            row = {"persona": persona.id, "subject": s, "object": o, "predicate": predicate,
                   "understood": understood, "reply": text.strip()[:120]}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()
            done[(persona.id, s, o)] = row
            asked_now += 1
            tell("questions", len(wanted) - len(missing) + asked_now, len(wanted))

        await _all([question(p, s, o) for p, s, o in missing])

    rows = [done[(p.id, s, o)] for p, s, o in wanted]
    order_ids = [c.id for c in data.taxonomy]
    ontology = aggregate(rows, settings.min_agreement, f"model:{settings.model}", order_ids)
    ontology.to_turtle(out / "ontology.ttl", data.taxonomy)
    screen = screen_ontology(data.train, data.taxonomy, pairs, partial)
    screen.to_turtle(out / "screen.ttl", data.taxonomy)
    report = BuildReport(str(out), len(ontology), len(rows), asked_now, summarised, len(todo),
                         round(time.monotonic() - start, 2))
    if data.reference is not None:
        report.scores = {k: v.as_dict() for k, v in compare_ontologies(ontology, data.reference).items()}
        report.screen_scores = {k: v.as_dict() for k, v in compare_ontologies(screen, data.reference).items()}
    understood = sum(1 for r in rows if r.get("understood"))
    _write_json(out / "report.json", {**asdict(report), "personas": len(personas), "pairs": len(pairs),
                                      "questions": len(wanted), "understood_replies": understood,
                                      "predicates": ontology.counts()})
    _write_json(out / "build.json", {**meta, "status": "complete", "relations": len(ontology),
                                     "elapsed_s": round(meta["elapsed_s"] + report.seconds, 2)})
    return report


async def _all(coros: list[Any]) -> None:
    """Await every coroutine; on a failure (or cancellation) the others are cancelled and awaited first."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def load_build_data(data: Path, mapping: Path | None = None, taxonomy: Path | None = None) -> BuildData:
    """A suite folder (``questions.jsonl`` + ``population/``; its ``oracle/ontology.ttl``, if any, is the
    report's reference) or a survey file read through ``mapping``."""
    from paperworks.tools.values.loader import load_survey
    from paperworks.tools.values.suite_builder import read_suite
    from paperworks.tools.values.taxonomy import load_taxonomy

    if data.is_dir():
        suite = read_suite(data)
        truth = data / "oracle" / "ontology.ttl"
        return BuildData(suite.taxonomy, suite.train, suite.heldout,
                         Ontology.from_turtle(truth) if truth.is_file() else None, str(data))
    if mapping is None:
        raise UserError(f"--data {data} is a survey file: give its --mapping too")
    tax = load_taxonomy(taxonomy)
    return BuildData(tax, load_survey(data, mapping, tax), None, None, str(data))
