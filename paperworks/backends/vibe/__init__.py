"""VIBE: group emotion recognition that does not take the background shortcut.

Reconstructed (the paper's text and code are not readable here): variational per-modality latents (video,
audio, text), attention between the people of a group re-weighted by their pairwise kinematic synchrony
(phase-locking value of their raw motion), a background-invariance constraint (the fused latent decorrelated
from the scene's background features within each class), and classification by projection onto class
prototypes embedded in the text space.

Modules (torch loads only when one of them is imported):

- ``data`` — groups of skeletons moving as coupled (Kuramoto) oscillators whose synchrony and energy set the
  emotion, class-correlated backgrounds, audio features and short texts, all generated here;
- ``sync`` — Hilbert phase and the pairwise phase-locking value;
- ``model`` — :class:`VIBE` and its losses (KL, the background constraint);
- ``train`` — training of the variants and accuracy in and out of the background shortcut;
- ``loader`` — an ``.npz`` layout for users with real extracted features (skeletons, audio, text ids);
- ``repro`` — ``paperworks repro vibe``.
"""

from paperworks.backends.repro import REPROS

REPROS["vibe"] = "paperworks.backends.vibe.repro:run"
