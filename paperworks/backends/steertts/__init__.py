"""AgentSteerTTS's torch methods: prototype library, disentanglement, gated-attention fusion, surrogate.

Modules (torch loads only when a module that needs it is imported):

- ``cues`` — the JND-unit profile space, the emotion -> prosodic-cue mapping with sources, control error;
- ``acoustics`` — spectral envelope, neutral context, encoder input (numpy);
- ``library`` — the prototype library builder (renders x measures x labels, cached on disk);
- ``index`` — a torch nearest-neighbour index over the library with perceptual (JND) pruning;
- ``surrogate`` — the differentiable surrogate: an MLP of measured profile given the control vector;
- ``fusion`` — the gated-attention fusion of anchors into a control vector;
- ``disentangle`` — speaker and emotion encoders with gradient reversal and a cross-covariance penalty;
- ``loop`` — the fast loop's correction step (gradient steps on the control latent through the surrogate);
- ``critic`` — the rule-based supervisor (the workflow's fallback, and the repro's stand-in for the model);
- ``resources`` — trained modules per library preset, cached;
- ``repro`` — ``paperworks repro steertts``.

No code of the paper is public: every rule and architecture here is a reconstruction from its abstract,
and says so where it matters.
"""

from paperworks.backends.repro import REPROS

REPROS["steertts"] = "paperworks.backends.steertts.repro:run"
