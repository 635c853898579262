"""HistAgent (``histagent``): a history research agent, a planning manager over specialist subgraphs.

- ``graph``: the manager's LangGraph graph (``build_graph``) and ``SPEC``;
- ``state``: its input, settings and graph state;
- ``specialist``: one specialist as a ReAct subgraph with its own tools and step budget;
- ``tools``: the specialists and their tools (archive, OCR, translation, files, images, speech);
- ``score``: the ``evidence`` scorer (did the answer cite the documents its evidence is in?).

The model's roles are in ``paperworks.agents.histagent``; the tools themselves in ``paperworks.tools``.
"""

from paperworks.workflows.histagent.graph import SPEC, build_graph
from paperworks.workflows.histagent.score import evidence
from paperworks.workflows.histagent.state import HistConfig, HistInput, HistState

SCORERS = SPEC.scorers

__all__ = ["SCORERS", "SPEC", "HistConfig", "HistInput", "HistState", "build_graph", "evidence"]
