"""``fray balance`` and ``fray knobs``: what setting of the content or the scenario makes
a fight fair (or 60/40, or six rounds long), how sure we are, and which knobs matter.

- :mod:`experiments.balance.knobs`: ``KEY=LOW..HIGH[:STEP]`` and ``KEY=a|b`` knobs over any
  value of the content files or the scenario, and a setting written out as a content
  folder and a scenario file.
- :mod:`experiments.balance.battles`: a batch of battles on given seeds, played in the
  engine, and the metrics of a tally of battles (party_win, monsters_win, rounds, draws).
- :mod:`experiments.balance.evaluation`: batches evaluated locally or on Ray and
  checkpointed to the output folder (``--resume`` replays them from there).
- :mod:`experiments.balance.target`: the band of a metric, the search's loss and the SPRT.
- :mod:`experiments.balance.optimisers`: Optuna (the default), nevergrad and grid search
  behind one ask/tell interface; :mod:`experiments.balance.compare` compares them.
- :mod:`experiments.balance.search`: independent repeats of the optimiser, a race of
  their winners, the knobs' effects and the final evaluation on fresh seeds.
- :mod:`experiments.balance.effects`: each knob's curve, sensitivity and alternatives.
- :mod:`experiments.balance.report`: ``balance.json``, ``report.html`` and the figures.
- :mod:`experiments.balance.nudge`: ``fray knobs``, every numeric knob nudged one step.
- :mod:`experiments.balance.fairness`: the shipped scenarios' measured balance.

docs/balance.md describes the method and how a designer uses it.
"""
