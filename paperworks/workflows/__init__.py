"""What every workflow shares (registry, runner, run context, the plain ``agent``), and one package per
system: ``spada``, ``histagent``, ``ogmar``, ``dfps`` (with ``fps``), ``steertts``."""
