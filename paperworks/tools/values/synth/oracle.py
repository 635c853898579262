"""Oracle predictors that know the generator (for ceilings and the ontology's effect; never a
baseline a workflow could use on real data).

``OracleModel`` knows the whole model (demographic effects, country offsets, item curves) and a set of
relations. Under it a respondent's 64 latents are jointly Gaussian given their demographics: with
base b ~ N(m, C) (m from ``base_mean``; C from the axis loadings and noise sds) and the relations as a
linear recursion, latents = M b with M = (I - N W)^-1 N (W: relation weights, N: the normalisers),
so latents ~ N(M m, M C M^T). Given a respondent's visible answers it finds the posterior mode of the
latents (Newton's method on the Gaussian prior plus the logistic item likelihoods, i.e. a Laplace
approximation) and predicts an item by the probit-approximated posterior predictive.

``OracleModel(model, seed)`` uses the ground-truth relations; ``OracleModel(model, seed, Ontology())``
knows everything but the ontology, which isolates what the ontology adds. ``latent_ceiling`` predicts
from the true latents themselves: the best any predictor could do.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from paperworks.tools.values.ontology import Ontology
from paperworks.tools.values.synth.generate import (
    Population,
    axis_means,
    base_mean,
    country_effects,
    item_parameters,
    sigmoid,
    standardise,
)
from paperworks.tools.values.synth.model import SynthModel

NEWTON_STEPS = 25


class OracleModel:
    """Posterior inference of a respondent's latents under the generator (see the module docstring)."""

    def __init__(self, model: SynthModel, seed: int, relations: Ontology | None = None) -> None:
        self.model = model
        self.relations = model.relations if relations is None else relations
        self.classes = model.taxonomy_order()
        self.index = {c: i for i, c in enumerate(self.classes)}
        self.fx = country_effects(model, seed)
        self.params = item_parameters(model, seed)
        self.items = {i.code: i for i in model.items}
        self.regions = {r.name: r for r in model.regions}
        n = len(self.classes)
        weights, norm = np.zeros((n, n)), np.ones(n)
        for cid in self.classes:
            parents = self.relations.parents(cid)
            norm[self.index[cid]] = 1.0 / math.sqrt(1.0 + sum(r.weight ** 2 for r in parents))
            for r in parents:
                weights[self.index[cid], self.index[r.subject]] = r.weight
        self.mix = np.linalg.solve(np.eye(n) - np.diag(norm) @ weights, np.diag(norm))
        t = np.array([model.classes[c].t for c in self.classes])
        s = np.array([model.classes[c].s for c in self.classes])
        base_cov = (model.axes["t"].noise_sd ** 2 * np.outer(t, t) + model.axes["s"].noise_sd ** 2 * np.outer(s, s)
                    + model.class_noise_sd ** 2 * np.eye(n))
        self.cov = self.mix @ base_cov @ self.mix.T
        self.precision = np.linalg.inv(self.cov)

    def prior_mean(self, demo: Mapping[str, Any]) -> np.ndarray:
        """E[latents | demographics, country] (classes in taxonomy order)."""
        z = standardise(dict(demo))
        fx = self.fx[str(demo["country"])]
        axes = axis_means(self.model, self.regions[str(demo["region"])], fx, z)
        return self.mix @ np.array([base_mean(self.model, c, axes, fx, z) for c in self.classes])

    def _design(self, codes: list[str]) -> tuple[np.ndarray, np.ndarray]:
        rows, offsets = np.zeros((len(codes), len(self.classes))), np.zeros(len(codes))
        for i, code in enumerate(codes):
            item, p = self.items[code], self.params[code]
            rows[i, self.index[item.class_id]] = p.discrimination * item.key
            offsets[i] = -p.discrimination * p.threshold
        return rows, offsets

    def posterior(self, demo: Mapping[str, Any], answers: Mapping[str, int]) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mode and covariance (Laplace) of the latents given the visible answers."""
        mean = self.prior_mean(demo)
        codes = [c for c in answers if c in self.items]
        rows, offsets = self._design(codes)
        y = np.array([float(answers[c]) for c in codes])
        eta = mean.copy()
        hess = self.precision
        for _ in range(NEWTON_STEPS):
            p = 1.0 / (1.0 + np.exp(-(rows @ eta + offsets)))
            grad = -self.precision @ (eta - mean) + rows.T @ (y - p)
            hess = self.precision + rows.T @ (rows * (p * (1 - p))[:, None])
            step = np.linalg.solve(hess, grad)
            eta = eta + step
            if float(np.abs(step).max()) < 1e-8:
                break
        return eta, np.linalg.inv(hess)

    def predict(self, demo: Mapping[str, Any], answers: Mapping[str, int], code: str) -> float:
        """P(answer 1 on ``code``) given demographics and the other visible answers."""
        visible = {c: a for c, a in answers.items() if c != code}
        eta, cov = self.posterior(demo, visible)
        row, offset = self._design([code])
        m = float(row[0] @ eta + offset[0])
        v = float(row[0] @ cov @ row[0])
        return sigmoid(m / math.sqrt(1.0 + math.pi * v / 8.0))


def latent_ceiling(population: Population, respondent_id: str, code: str) -> int:
    """The Bayes decision from the true latent: 1 when P(answer 1) > 0.5."""
    return 1 if population.answer_probability(respondent_id, code) > 0.5 else 0
