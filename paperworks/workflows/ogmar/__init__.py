"""OG-MAR (``ogmar``): ontology-guided multi-agent prediction of a survey respondent's answer.

- ``graph``: the online phase's LangGraph graph (``build_graph``), its input and ``SPEC``;
- ``data``: settings and the data the online phase reads (taxonomy, training population, ontology);
- ``context``: what the online phase assembles deterministically before any model call;
- ``judge``: the judge's decision order, computed from its inputs;
- ``score``: the ``match`` scorer of the OG-MAR suites;
- ``build`` and ``elicit``: the offline phase (``paperworks ogmar build``): summaries and the ontology;
- ``replay``: scripted replays of the model for tests, benchmarks and demos.

The model's roles are in ``paperworks.agents.ogmar``.
"""

from paperworks.workflows.ogmar.data import OgmarConfig
from paperworks.workflows.ogmar.graph import SPEC, OgmarInput, build_graph
from paperworks.workflows.ogmar.score import SCORERS

__all__ = ["SCORERS", "SPEC", "OgmarConfig", "OgmarInput", "build_graph"]
