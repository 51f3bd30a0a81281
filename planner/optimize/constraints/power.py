"""Power cap per site and period."""

from __future__ import annotations

import pyomo.environ as pyo

from planner.optimize.data import ModelData


def add_power(m: pyo.ConcreteModel, d: ModelData) -> None:
    """Installed IT power × PUE stays within the site's facility cap (MW)::

        Σ_h installed[h,s,t] · power_kw_h · PUE_s / 1000 ≤ cap_MW[s,t]

    The cap holds from the last year the scenario gives. Installed units draw
    power whether busy or idle (the cap is a provisioning limit); rented capacity is
    someone else's data centre and is excluded.
    """
    m.power = pyo.Constraint(
        list(d.site_fleet),
        rule=lambda m, s, t: (
            sum(
                m.installed[h, s, t] * d.power_kw[h] * d.pue[s] / 1000.0
                for h in d.site_fleet[(s, t)]
            )
            <= d.power_cap_mw[(s, t)]
        ),
    )
