"""Solver back-ends, one module each; planner.optimize.solve picks one.

* :mod:`.types`: options, statuses and the result every back-end returns.
* :mod:`.highs`: HiGHS itself (highspy's quirks, statuses, runs, loading values back).
* :mod:`.handoff`: a Pyomo model as HiGHS's arrays, in one ``passModel``.
* :mod:`.highs_direct`: the default ``highs`` back-end and the ``lp-first`` strategy.
* :mod:`.contrib`: ``highs-pyomo`` and other ``pyomo.contrib.solver`` solvers.
* :mod:`.legacy`: everything else, through Pyomo's classic ``SolverFactory``.
"""
