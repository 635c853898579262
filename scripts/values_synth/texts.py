# ruff: noqa: E501  (markdown table rows)
"""README.md and SOURCE.md of evals/values_synth."""

from __future__ import annotations

README = """\
# values_synth — synthetic survey prediction with a known cultural ontology

OG-MAR (issue 13) predicts how a survey respondent answers a values question. World Values Survey
microdata cannot be redistributed, so this suite uses a synthetic population drawn by a documented
model written for paperworks (`paperworks/tools/values/synth/`, parameters in
`paperworks/tools/values/data/synth_model.yaml`, items in `synth_items.yaml`). Regenerate or verify
with `python scripts/make_values_synth.py [--check]`.

## What is here

| file | contents |
|---|---|
| `questions.jsonl` | {questions} questions: a held-out respondent × an item; `answer` is the chosen choice's text, `answer_value` 1 for the first choice; `demographics`, `region`, `country`, `domain`, `class`, `item`, `hidden_items` |
| `population/train.csv` | {train} training respondents (id, 8 demographics, 128 binary items): the retrieval pool |
| `population/heldout.csv` | the {heldout} held-out respondents with every item of their questions' classes blank |
| `population/mapping.yaml` | reads both CSVs with `paperworks.tools.values.load_survey` (item → class, key, wording, choices) |
| `taxonomy.yaml` | the 76-class taxonomy (12 domains, 64 subclasses) |
| `oracle/` | the generator's ground truth — **for oracle replays only**: `ontology.ttl` ({relations} relations, RDF), the held-out respondents' true latents, the item curves, `generator.json` |

20 respondents per region (6 regions × 3 invented countries) are held out, each with 3 questions from 3
different domains (every region sees every domain 5 times). For each question the respondent's answers
to *both* items of its class are hidden, so an answer has to come from the respondent's other classes
(through the ontology) and from similar respondents, not from a sibling item. Scored by exact match of
the choice text; accuracy overall and per region and per domain (`group_by: [region, domain]`).

## Measured (benchmarks/values_baselines.py → benchmarks/results/values_baselines.json)

| predictor | accuracy |
|---|---|
| item majority in the training pool | 0.556 |
| **K = 5 nearest respondents' majority (model-free floor)** | **0.703** |
| ground-truth triples × the respondent's other classes (triple vote) | 0.781 |
| the same triples with random signs (control) | 0.547 |
| oracle: true model, no ontology | 0.700 |
| oracle: true model and ontology, demographics only | 0.744 |
| oracle: true model and ontology, demographics + visible answers | 0.792 |
| ceiling: Bayes decision from the true latents | 0.842 |

So knowing the ontology is worth about 9 points to the oracle and 23 points to the simple triple vote
(against shuffled signs): an oracle-ontology replay shows the ontology's effect. The packaged
all-MiniLM-L6-v2 topic classifier puts the question's domain first for 76% of questions and in its top 2
for 89%.

## What this data can and cannot show

It can show whether a method uses demographics, a respondent's other answers and typed, signed
relations between value classes the way the generator does, and how much a recovered ontology
(precision/recall against `oracle/ontology.ttl`) helps.

It cannot show anything about real people or cultures: the region positions (stylised after the broad
layout of the Inglehart–Welzel cultural map), every effect size, the relations and the item curves are
modelling choices; the countries are invented and the items are not survey questions. An LLM's
knowledge of real cultures helps here only where those choices happen to agree with it. The paper's
figures (OG-MAR 0.60–0.63 against ValuesRAG 0.53–0.60 average binary accuracy over four backbones, on
EVS, GSS, CGSS, ISD, Afrobarometer and LAPOP) are about real surveys and cannot be compared with these;
`paperworks.tools.values.load_survey` reads such files when a user has them.
"""


def readme(counts: dict[str, int], relations: int) -> str:
    """The suite's README (figures as measured by benchmarks/values_baselines.py on this data)."""
    return README.format(questions=counts["questions"], train=counts["train"], heldout=counts["heldout"],
                         relations=relations)


def source() -> str:
    """The suite's SOURCE.md."""
    return """\
# Sources and licence of values_synth

Everything in this folder was generated for paperworks by `scripts/make_values_synth.py` from
`paperworks/tools/values/` and is released under CC0-1.0:

- The taxonomy (names, descriptions), the 128 item wordings and choices, the 132 ground-truth relations
  and every parameter of the population model were written for paperworks. No survey microdata, no
  questionnaire text and no published estimates were used.
- The 12 domains are named after the thematic sections of the World Values Survey wave 7 questionnaire
  (the section names only). The six regions' positions on the two cultural axes are stylised after the
  broad, publicly described layout of the Inglehart–Welzel cultural map (R. Inglehart and C. Welzel,
  *Modernization, Cultural Change, and Democracy*, 2005); they are not estimates.
- The countries (`EUR-1` … `AFR-3`) and all respondents are invented.
"""
