"""Model-free baselines and oracle ceilings on the values_synth suite (issue 13). Writes
benchmarks/results/values_baselines.json (flat figures, plus per-region and per-domain accuracies).

Every predictor sees what a workflow sees: the question's item, the held-out respondent's demographics
and their visible answers (population/heldout.csv: the answers to every item of each question's class
are blank), and the training pool (population/train.csv). Predictors:

- ``item_majority``: the item's majority answer in the training pool.
- ``knn_k5`` (the floor an LLM method must beat) and ``knn_k15``: majority answer on the same item of
  the K demographically nearest training respondents (Gower distance).
- ``triple_vote_truth``: the answer favoured by the ground-truth triples touching the item's class,
  weighted by the respondent's visible scores on the other endpoints (kNN k=5 when no evidence);
  ``triple_vote_shuffled_signs``: the same triples with signs drawn at random (seeded) — the control.
- Oracles (they know the generator; ceilings, not baselines): ``oracle_ontology`` (posterior mode of the
  latents under the true model and relations, given demographics and visible answers),
  ``oracle_no_ontology`` (the same model without the relations), ``oracle_demographics_only`` (true model,
  no answers) and ``latent_ceiling`` (the Bayes decision from the true latents).

With --embeddings (default) also the topic classifier's accuracy (the question's domain in its top 1 /
top 2) and the triple retriever's hit rate (a retrieved triple touches the question's class: top 3 per
classified domain, 2 domains), on the packaged all-MiniLM-L6-v2.
Usage: python benchmarks/values_baselines.py [--suite DIR] [--no-embeddings]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paperworks.core.paths import set_offline_env  # noqa: E402

set_offline_env()

from paperworks.tools.values.baselines import item_majority, knn_majority, triple_vote  # noqa: E402
from paperworks.tools.values.ontology import Ontology  # noqa: E402
from paperworks.tools.values.profiles import value_profile  # noqa: E402
from paperworks.tools.values.suite_builder import HeldoutQuestion, ValuesSuite, read_suite  # noqa: E402
from paperworks.tools.values.synth.generate import sigmoid  # noqa: E402
from paperworks.tools.values.synth.model import load_model  # noqa: E402
from paperworks.tools.values.synth.oracle import OracleModel  # noqa: E402

SUITE = ROOT / "evals" / "values_synth"
Predictor = Callable[[HeldoutQuestion], int]


def _accuracy(questions: list[HeldoutQuestion], predictions: list[int]) -> dict[str, object]:
    hits = [int(p == q.answer_value) for q, p in zip(questions, predictions, strict=True)]
    n = len(hits)
    acc = sum(hits) / n
    groups: dict[str, dict[str, list[int]]] = {"region": defaultdict(list), "domain": defaultdict(list)}
    for q, h in zip(questions, hits, strict=True):
        groups["region"][q.region].append(h)
        groups["domain"][q.domain].append(h)
    out: dict[str, object] = {"accuracy": round(acc, 4), "stderr": round(math.sqrt(acc * (1 - acc) / n), 4)}
    for field, by in groups.items():
        out[f"by_{field}"] = {k: round(sum(v) / len(v), 4) for k, v in sorted(by.items())}
    return out


def predictors(suite: ValuesSuite) -> dict[str, Predictor]:
    train, heldout, taxonomy = suite.train, suite.heldout, suite.taxonomy
    truth = Ontology.from_turtle(suite.folder / "oracle" / "ontology.ttl")
    rng = random.Random(7)
    shuffled = Ontology(replace(r, sign=rng.choice((1, -1))) for r in truth)
    meta = json.loads((suite.folder / "oracle" / "generator.json").read_text())
    model = load_model()
    with_onto, without = OracleModel(model, meta["seed"]), OracleModel(model, meta["seed"], Ontology())
    latents = _csv(suite.folder / "oracle" / "heldout_latents.csv", "respondent_id")
    curves = _csv(suite.folder / "oracle" / "items.csv", "code")
    profiles = {r.id: value_profile(r, train.items, taxonomy) for r in heldout}

    def knn(k: int) -> Predictor:
        return lambda q: knn_majority(q.demographics, train, q.item, k)

    def vote(onto: Ontology) -> Predictor:
        def predict(q: HeldoutQuestion) -> int:
            got = triple_vote(profiles[q.respondent_id], train.items[q.item], onto)
            return knn_majority(q.demographics, train, q.item, 5) if got is None else got
        return predict

    def oracle(m: OracleModel, answers: bool) -> Predictor:
        return lambda q: int(m.predict(q.demographics, heldout.respondent(q.respondent_id).answers if answers else {},
                                       q.item) > 0.5)

    def ceiling(q: HeldoutQuestion) -> int:
        c = curves[q.item]
        eta = float(latents[q.respondent_id][c["class"]])
        return int(sigmoid(float(c["discrimination"]) * (int(c["key"]) * eta - float(c["threshold"]))) > 0.5)

    return {"item_majority": lambda q: item_majority(train.respondents, q.item), "knn_k5": knn(5), "knn_k15": knn(15),
            "triple_vote_truth": vote(truth), "triple_vote_shuffled_signs": vote(shuffled),
            "oracle_demographics_only": oracle(with_onto, False), "oracle_no_ontology": oracle(without, True),
            "oracle_ontology": oracle(with_onto, True), "latent_ceiling": ceiling}


def _csv(path: Path, key: str) -> dict[str, dict[str, str]]:
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        return {row[key]: row for row in csv.DictReader(fh)}


def retrieval_figures(suite: ValuesSuite) -> dict[str, object]:
    from paperworks.tools.values.embeddings import minilm_embedder
    from paperworks.tools.values.retrieval import TopicClassifier, TripleRetriever

    start = time.monotonic()
    embed = minilm_embedder()
    truth = Ontology.from_turtle(suite.folder / "oracle" / "ontology.ttl")
    classifier, retriever = TopicClassifier(suite.taxonomy, embed), TripleRetriever(truth, suite.taxonomy, embed)
    load_s = time.monotonic() - start
    top1 = top2 = hit = 0
    start = time.monotonic()
    for q in suite.questions:
        domains = classifier.classify(q.question, k=2)
        top1 += domains[0] == q.domain
        top2 += q.domain in domains
        hit += any(q.class_id in t.relation.pair for t in retriever.retrieve_flat(q.question, domains, 3))
    n = len(suite.questions)
    return {"topic_top1_accuracy": round(top1 / n, 4), "topic_top2_accuracy": round(top2 / n, 4),
            "triples_touch_question_class": round(hit / n, 4), "embedder_load_s": round(load_s, 2),
            "retrieval_ms_per_question": round(1000 * (time.monotonic() - start) / n, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--suite", type=Path, default=SUITE, help="suite folder (default evals/values_synth)")
    parser.add_argument("--no-embeddings", action="store_true", help="skip the topic classifier and retrieval")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "values_baselines.json")
    args = parser.parse_args(argv)
    suite = read_suite(args.suite)
    out: dict[str, object] = {"command": "python benchmarks/values_baselines.py" + (" --no-embeddings"
                                                                                   if args.no_embeddings else ""),
                              "cpu_count": os.cpu_count(), "python": platform.python_version(),
                              "numpy": version("numpy"), "rdflib": version("rdflib"),
                              "suite": str(args.suite.resolve().relative_to(ROOT)) if args.suite.resolve()
                              .is_relative_to(ROOT) else str(args.suite),
                              "questions": len(suite.questions), "train_respondents": len(suite.train),
                              "heldout_respondents": len(suite.heldout)}
    details: dict[str, object] = {}
    for name, predict in predictors(suite).items():
        start = time.monotonic()
        result = _accuracy(suite.questions, [predict(q) for q in suite.questions])
        out[f"{name}_accuracy"] = result["accuracy"]
        out[f"{name}_stderr"] = result["stderr"]
        details[name] = {**result, "seconds": round(time.monotonic() - start, 2)}
        print(f"{name:28s} {result['accuracy']:.3f} ± {result['stderr']:.3f}", flush=True)
    out["ontology_effect_oracle"] = round(float(str(out["oracle_ontology_accuracy"]))
                                          - float(str(out["oracle_no_ontology_accuracy"])), 4)
    out["ontology_effect_triple_vote"] = round(float(str(out["triple_vote_truth_accuracy"]))
                                               - float(str(out["triple_vote_shuffled_signs_accuracy"])), 4)
    if not args.no_embeddings:
        out.update(retrieval_figures(suite))
    out["details"] = details
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps({k: v for k, v in out.items() if k != "details"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
