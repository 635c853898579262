"""The synthetic population generator (the model is documented in ``paperworks.tools.values.synth``).

Deterministic from a seed, independent of numpy: every random draw comes from Python's
``random.Random(<seed string>).random()`` (whose sequence Python keeps stable across versions), with
normal deviates by Box-Muller. Each respondent, country and item has its own stream, so the first
``n`` respondents of a region are the same whatever the population size.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paperworks.tools.values.ontology import Ontology
from paperworks.tools.values.survey import DemographicField, Respondent, SurveyData
from paperworks.tools.values.synth.model import RegionSpec, SynthModel, load_model

EDUCATION = ("primary", "secondary", "tertiary")
RELIGIOSITY = ("none", "low", "moderate", "high")
DISCRIMINATION = (1.6, 2.4)
"""Each item's discrimination is uniform in this range."""
THRESHOLD = 0.6
"""Each item's threshold is uniform in [-THRESHOLD, THRESHOLD]."""

SCHEMA: list[DemographicField] = [
    DemographicField("country", "categorical"),
    DemographicField("region", "categorical"),
    DemographicField("age", "numeric", range=(18.0, 90.0)),
    DemographicField("sex", "categorical"),
    DemographicField("education", "ordinal", levels=EDUCATION),
    DemographicField("income", "numeric", range=(1.0, 10.0)),
    DemographicField("religiosity", "ordinal", levels=RELIGIOSITY),
    DemographicField("urban", "categorical"),
]
"""The synthetic population's demographics (``urban`` is ``urban`` or ``rural``; income a decile 1-10)."""


class StableRng:
    """Uniform, normal and categorical draws from ``random.Random(seed).random()`` only."""

    def __init__(self, seed: str) -> None:
        self._random = random.Random(seed)

    def uniform(self, low: float = 0.0, high: float = 1.0) -> float:
        """A uniform draw in [low, high)."""
        return low + (high - low) * self._random.random()

    def normal(self, sd: float = 1.0) -> float:
        """A normal draw with mean 0 (Box-Muller, one value per two uniforms)."""
        u1, u2 = 1.0 - self._random.random(), self._random.random()
        return sd * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def categorical(self, probs: Sequence[float]) -> int:
        """An index drawn with the given probabilities."""
        u, acc = self._random.random(), 0.0
        for i, p in enumerate(probs):
            acc += p
            if u < acc:
                return i
        return len(probs) - 1


@dataclass(frozen=True)
class ItemParams:
    """An item's response curve: P(answer 1) = sigmoid(discrimination × (key × latent − threshold))."""

    threshold: float
    discrimination: float


@dataclass(frozen=True)
class CountryEffects:
    """A country's offsets on the two axes and on each subclass's latent base."""

    t: float
    s: float
    classes: dict[str, float]


@dataclass(frozen=True)
class SynthRespondent:
    """A generated respondent with the generator's hidden state (never shown to a predictor)."""

    respondent: Respondent
    axes: tuple[float, float]
    """(t, s) cultural-axis positions."""
    latents: dict[str, float]
    """Final latent per subclass (after the relations)."""


def sigmoid(x: float) -> float:
    """The logistic function."""
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def standardise(demo: dict[str, Any]) -> dict[str, float]:
    """The demographic predictors the model uses: age (age-45)/16, female ±0.5, education -1/0/1,
    income (decile-5.5)/2.9, religiosity (level-1.5)/1.1, urban ±0.5."""
    return {"age": (float(demo["age"]) - 45.0) / 16.0, "female": 0.5 if demo["sex"] == "female" else -0.5,
            "education": float(EDUCATION.index(str(demo["education"]))) - 1.0,
            "income": (float(demo["income"]) - 5.5) / 2.9,
            "religiosity": (float(RELIGIOSITY.index(str(demo["religiosity"]))) - 1.5) / 1.1,
            "urban": 0.5 if demo["urban"] == "urban" else -0.5}


def country_effects(model: SynthModel, seed: int) -> dict[str, CountryEffects]:
    """Each country's offsets, drawn from its own stream."""
    out = {}
    for region in model.regions:
        for code in region.countries:
            rng = StableRng(f"{seed}:country:{code}")
            t, s = rng.normal(model.axes["t"].country_sd), rng.normal(model.axes["s"].country_sd)
            out[code] = CountryEffects(t, s, {c: rng.normal(spec.country_sd) for c, spec in model.classes.items()})
    return out


def item_parameters(model: SynthModel, seed: int) -> dict[str, ItemParams]:
    """Each item's threshold and discrimination, drawn from its own stream."""
    out = {}
    for item in model.items:
        rng = StableRng(f"{seed}:item:{item.code}")
        out[item.code] = ItemParams(rng.uniform(-THRESHOLD, THRESHOLD), rng.uniform(*DISCRIMINATION))
    return out


def axis_means(model: SynthModel, region: RegionSpec, fx: CountryEffects, z: dict[str, float]) -> tuple[float, float]:
    """E[t], E[s] given region, country and standardised demographics (before individual noise)."""
    t = region.t + fx.t + sum(w * z[k] for k, w in model.axes["t"].effects.items())
    s = region.s + fx.s + sum(w * z[k] for k, w in model.axes["s"].effects.items())
    return t, s


def base_mean(model: SynthModel, class_id: str, axes: tuple[float, float], fx: CountryEffects,
              z: dict[str, float]) -> float:
    """A class latent's base given axis positions, country and demographics (before class noise)."""
    spec = model.classes[class_id]
    return (spec.t * axes[0] + spec.s * axes[1] + sum(w * z[k] for k, w in spec.demo.items())
            + fx.classes[class_id])


def propagate(model: SynthModel, base: dict[str, float], relations: Ontology) -> dict[str, float]:
    """Final latents: in topological order, latent_c = (base_c + Σ weight × latent_parent) / √(1 + Σ weight²)."""
    latent: dict[str, float] = {}
    for cid in model.order:
        parents = relations.parents(cid)
        total = base[cid] + sum(r.weight * latent[r.subject] for r in parents)
        latent[cid] = total / math.sqrt(1.0 + sum(r.weight ** 2 for r in parents))
    return latent


class Population:
    """A generated population: respondents with demographics and answers, plus the hidden state."""

    def __init__(self, model: SynthModel, seed: int, members: list[SynthRespondent], relations: Ontology) -> None:
        self.model = model
        self.seed = seed
        self.members = members
        self.relations = relations
        self.items = {i.code: i for i in model.items}
        self.item_params = item_parameters(model, seed)
        self._by_id = {m.respondent.id: m for m in members}

    def __len__(self) -> int:
        return len(self.members)

    def member(self, respondent_id: str) -> SynthRespondent:
        """The generated respondent with this id."""
        return self._by_id[respondent_id]

    def survey(self) -> SurveyData:
        """The observable part: respondents, items and demographic schema."""
        return SurveyData([m.respondent for m in self.members], dict(self.items), list(SCHEMA),
                          f"synthetic population (seed {self.seed})")

    def answer_probability(self, respondent_id: str, code: str) -> float:
        """P(answer 1) of one respondent on one item under the generator."""
        item, params = self.items[code], self.item_params[code]
        eta = self.member(respondent_id).latents[item.class_id]
        return sigmoid(params.discrimination * (item.key * eta - params.threshold))


def generate_population(n_per_region: int, seed: int = 0, model: SynthModel | None = None,
                        relations: Ontology | None = None) -> Population:
    """Generate ``n_per_region`` respondents in each region (ids ``EUR0001`` ...), answering every item.
    ``relations`` replaces the model's ground truth (pass ``Ontology()`` for a population without
    cross-class relations; the draws are otherwise identical)."""
    model = model or load_model()
    relations = model.relations if relations is None else relations
    fx = country_effects(model, seed)
    params = item_parameters(model, seed)
    members = []
    for region in model.regions:
        for j in range(n_per_region):
            rid = f"{region.id}{j + 1:04d}"
            rng = StableRng(f"{seed}:respondent:{rid}")
            members.append(_respondent(model, region, rid, rng, fx, params, relations))
    return Population(model, seed, members, relations)


def _respondent(model: SynthModel, region: RegionSpec, rid: str, rng: StableRng, fx: dict[str, CountryEffects],
                params: dict[str, ItemParams], relations: Ontology) -> SynthRespondent:
    country = region.countries[rng.categorical([1 / len(region.countries)] * len(region.countries))]
    sex = "female" if rng.uniform() < 0.5 else "male"
    age = int(min(90, max(18, round(region.age[0] + rng.normal(region.age[1])))))
    edu = rng.categorical(region.education)
    income = int(min(10, max(1, round(5.5 + 1.4 * (edu - 1) + rng.normal(2.2)))))
    relig = rng.categorical(region.religiosity)
    urban = "urban" if rng.uniform() < region.urban else "rural"
    demo: dict[str, Any] = {"country": country, "region": region.name, "age": age, "sex": sex,
                            "education": EDUCATION[edu], "income": income, "religiosity": RELIGIOSITY[relig],
                            "urban": urban}
    z = standardise(demo)
    t_mean, s_mean = axis_means(model, region, fx[country], z)
    axes = (t_mean + rng.normal(model.axes["t"].noise_sd), s_mean + rng.normal(model.axes["s"].noise_sd))
    base = {c: base_mean(model, c, axes, fx[country], z) + rng.normal(model.class_noise_sd)
            for c in model.taxonomy_order()}
    latents = propagate(model, base, relations)
    answers = {}
    for item in model.items:
        p = params[item.code]
        prob = sigmoid(p.discrimination * (item.key * latents[item.class_id] - p.threshold))
        answers[item.code] = 1 if rng.uniform() < prob else 0
    return SynthRespondent(Respondent(rid, demo, answers), axes, latents)
