"""Scenario analysis on top of ``plan()``: many optimisations, summarised.

* :mod:`planner.analysis.compare` — several scenarios solved and set side by side;
* :mod:`planner.analysis.params` — parameter paths, value lists and distributions, spec files;
* :mod:`planner.analysis.tasks` — one run as plain data, and the worker that solves it;
* :mod:`planner.analysis.executors` — a local process pool or a Dask cluster, with a
  results file that lets an interrupted run resume;
* :mod:`planner.analysis.sweep` — one-at-a-time sensitivity (tornado) and full grids;
* :mod:`planner.analysis.montecarlo` — seeded sampling and percentiles;
* :mod:`planner.analysis.vendors` — each vendor's hardware alone, and all together;
* :mod:`planner.analysis.alternatives` — near-optimal fleets (modelling to generate
  alternatives);
* :mod:`planner.analysis.report` — analysis workbooks and tidy per-run CSV.

Nothing here imports Pyomo except :mod:`planner.analysis.alternatives`, which needs to
add a constraint and an objective to the built model.
"""
