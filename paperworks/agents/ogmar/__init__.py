"""OG-MAR's LLM roles (issue 13): prompts and reply parsing for the respondent value summary, the
competency questions that build the ontology, the value-persona agents, the judge and the single-call
baselines. Pure text functions; the workflows in ``paperworks.workflows.ogmar`` make the calls."""
