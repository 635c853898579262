"""A synthetic survey population with a known cultural ontology (written for paperworks, CC0-1.0).

It stands in for World Values Survey microdata, which cannot be redistributed. Parameters live in
``data/synth_model.yaml`` and the item bank in ``data/synth_items.yaml``; ``generate_population`` draws
from them deterministically (``synth.generate``), ``OracleModel`` inverts them (``synth.oracle``).

The model, per respondent:

1. Demographics given the region (6 regions × 3 invented countries such as ``EUR-2``): country uniform
   in the region; sex 50/50; age ~ Normal(region mean, sd) rounded, clipped to 18-90; education
   (primary/secondary/tertiary) and religiosity (none/low/moderate/high) by the region's shares;
   urban with the region's urban share; income decile = round(5.5 + 1.4·(education level - 1) +
   Normal(0, 2.2)) clipped to 1-10. Standardised predictors z: age (age-45)/16, female ±0.5, education
   -1/0/1, income (decile-5.5)/2.9, religiosity (level-1.5)/1.1, urban ±0.5.
2. Two cultural axes, t (traditional → secular-rational) and s (survival → self-expression):
   axis = region mean + country offset + Σ effect·z + Normal(0, 0.5). Region means are stylised after
   the broad layout of the Inglehart-Welzel map; they are not estimates.
3. Each of the 64 subclasses c gets a base b_c = t_c·t + s_c·s + Σ_k d_ck·z_k + country offset_c +
   Normal(0, class_noise_sd) (loadings t_c, s_c and effects d_ck per class in the model file).
4. The ground-truth ontology: 132 typed relations (``strongly_supports`` ... ``strongly_undermines``,
   weight = sign × strength with strengths 1.0 / 0.65 / 0.35) forming a DAG over the subclasses, mostly
   across domains, e.g. (religious_exclusivism, strongly_undermines, outgroup_tolerance). In topological
   order each latent is latent_c = (b_c + Σ_{a→c} w_ac·latent_a) / √(1 + Σ w_ac²): a respondent's latent
   for class B depends on their latents for the classes that point at B.
5. Two binary items per subclass (128): P(answer 1) = sigmoid(κ_i·(key_i·latent_c - τ_i)), with
   discrimination κ_i ~ U(1.6, 2.4) and threshold τ_i ~ U(-0.6, 0.6) per item; key_i = ±1 says whether
   the first choice means more or less of the class.

What the data can show: whether a method uses demographics, the respondent's other answers and the
ontology's typed relations the way the generator does. Because the relations move the latents, a
predictor that knows them beats one that does not (measured in benchmarks/values_baselines.json:
the oracle with and without the ontology, and a simple triple-vote heuristic with true against
shuffled signs); an LLM method that reasons along retrieved triples can gain the same way.

What it cannot show: anything about real people or real countries. The regions' positions, the
effects, the relations and their strengths are modelling choices; the countries are invented; the
items are not survey questions. An LLM's knowledge of real cultures may help here only where the
stylised choices happen to agree with it, and may hurt elsewhere, so accuracy on this data says nothing
about cultural alignment with real populations (the paper's EVS, GSS, CGSS, ISD, Afrobarometer and LAPOP
results need those surveys; ``load_survey`` reads them when a user has them).
"""

from paperworks.tools.values.synth.generate import (
    SCHEMA,
    Population,
    SynthRespondent,
    generate_population,
)
from paperworks.tools.values.synth.model import SynthModel, load_model

__all__ = ["SCHEMA", "Population", "SynthModel", "SynthRespondent", "generate_population", "load_model"]
