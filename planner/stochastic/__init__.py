"""Two-stage planning under uncertainty: the first stage's irreversible decisions shared
by every future of a scenario's ``uncertainty:`` tree, each future's recourse its own
(:mod:`planner.stochastic.solve`), and what that is worth (:mod:`.values`)."""
