"""Training learned agents: ``fray train`` (DESIGN.md "Experiments").

- :mod:`experiments.train.sb3`: MaskablePPO runs (checkpoints, evaluation, resume);
- :mod:`experiments.train.sb3_components`: a run's policy network and vector env;
- :mod:`agents.features` (re-exported here): the ``fray`` policy's features extractor;
- :mod:`experiments.train.opponents`: per-episode opponent pools and the self-play league;
- :mod:`experiments.train.evaluation`: win rates with Wilson intervals and comparisons;
- :mod:`experiments.train.rllib`: RLlib PPO on Ray, multi-agent, action-masked.

torch, stable-baselines3 and ray are imported by these modules, never by ``import
experiments``.
"""
