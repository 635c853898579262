"""AgentSteerTTS (``steertts``): closed-loop multi-agent control of expressive speech.

- ``graph``: the LangGraph graph (``build_graph``) and ``SPEC``;
- ``config``: its input and settings;
- ``steps``: the nodes' synchronous work (rendering, measuring, retrieval, fusion, correction);
- ``score``: the scorers of ``steer_instructions``, measured on the audio.

The model's roles are in ``paperworks.agents.steertts``; the speech tools in ``paperworks.tools.speech``
and the paper's methods in ``paperworks.backends.steertts``.
"""

from paperworks.workflows.steertts.config import SteerConfig, SteerInput
from paperworks.workflows.steertts.graph import SPEC, build_graph
from paperworks.workflows.steertts.score import SCORERS

__all__ = ["SCORERS", "SPEC", "SteerConfig", "SteerInput", "build_graph"]
