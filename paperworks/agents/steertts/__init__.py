"""AgentSteerTTS's LLM roles (issue 14): the intent parser (instruction -> emotions with weights, intensity,
modifiers) and the Supervisor (measured profile vs intent -> agree, or a re-planned decomposition).
Pure text functions; ``paperworks.workflows.steertts`` makes the calls."""
