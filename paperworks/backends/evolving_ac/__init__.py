"""Single-timescale actor–critic under Markovian sampling with an evolving reward (average reward, linear
critic), and its finite-time rate: ``(1/T) sum_t |grad J(theta_t)|^2 = O(1/sqrt(T))`` with all step sizes of
order ``1/sqrt(T)`` when the reward evolves slowly.

Modules (numpy only):

- ``mdp`` — random MDPs, tabular and linear-feature softmax policies, the exact gradient of the average
  reward from the stationary law (entropy-regularised rewards included);
- ``schedules`` — static, slowly drifting (decaying entropy coefficient), gradient-updated and fast-switching
  rewards;
- ``ac`` — the algorithm, vectorised over seeds, with the exact actor and critic errors along the run;
- ``repro`` — ``paperworks repro evolving_ac``.

No code of the paper is public: the updates follow the issue's reconstruction, the schedules are this
project's choices.
"""

from paperworks.backends.repro import REPROS

REPROS["evolving_ac"] = "paperworks.backends.evolving_ac.repro:run"
