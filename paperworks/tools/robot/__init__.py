"""A simulated kitchen robot for generated control policies (FCGraft's environment).

- ``sim`` — the simulator and its 22-function API, with preconditions and safety rules (stdlib only);
- ``skeletons`` — the environment's validated function-level policy skeletons;
- ``tasks`` — the benchmark: 60 generated tasks with goal predicates and reference plans;
- ``sandbox`` — runs a model-written policy in the sandbox and returns its call log;
- ``judge`` — replays a call log on a fresh simulator and decides.
"""
