"""``Costs``: cash cost by period and category, discounting and NPV, all live formulas.

Layout (periods across, one column each, then a total):

* discount factors ``(1 + wacc)^−(period start − horizon_start)`` (cash flows are
  booked at the period start; capex, when the period's purchases arrive through it,
  at its middle: the factor times ``(1 + wacc)^−(length/2)`` in its present value)
  and ``(1 + wacc)^−(horizon_end − horizon_start)`` for the residual value, named
  ``discount_factor_end``;
* cash cost by category: sums of the detail sheets' cost cells in that period
  (Purchases, Rentals, Fleet, Demand vs served, Training runs); the residual value is
  a credit in the last period; totals are ``SUM`` of the cells above;
* present value by category: cash × discount factor; totals, and the NPV of cash
  costs (named ``npv_tco``, penalties for unmet demand excluded) and with penalties
  (``npv_with_penalties``: the optimiser's objective).

Change ``wacc`` or an electricity price on Assumptions and every total moves.
"""

from __future__ import annotations

from openpyxl.styles import Font
from openpyxl.utils import get_column_letter

from planner.economics import discount_factor
from planner.export import cells
from planner.export.sheets.book import (
    PERIOD,
    SECTION_FONT,
    Book,
    absolute,
    criterion,
    sum_where,
    table,
)
from planner.export.sheets.datacenter import TABLE as DATACENTER
from planner.export.sheets.datacenter import datacenter_capex_formula
from planner.export.sheets.sales import has_sales
from planner.results import COST_CATEGORIES, Plan
from planner.results.costs import POWER_CONTRACT, RESALE
from planner.results.procurement import PROCUREMENT_CATEGORIES
from planner.units import KW_PER_MW

TITLE = "Costs"
LABELS = {
    "capex": "Capex: purchases",
    "rent": "Rent",
    "energy": "Energy",
    "facility": "Facility (data-centre space and power)",
    "maintenance": "Maintenance",
    "residual": "Residual value at the horizon end (credit)",
    "resale_proceeds": "Resale proceeds of units sold early (credit)",
    "penalty_unmet_inference": "Notional penalty: unmet inference demand (not a cost)",
    "penalty_unmet_training": "Notional penalty: unmet training work (not a cost)",
    "commitment": "Committed rentals (the plan's amounts)",
    "datacenter_capex": "Datacenter build capex (Datacenter sheet)",
    "datacenter_om": "Datacenter O&M of built capacity (the plan's amounts)",
    "datacenter_lease": "Datacenter leases (the plan's amounts)",
    "power_contract": "Contracted power (take-or-pay on the whole cap)",
}
PENALTIES = ("penalty_unmet_inference", "penalty_unmet_training")
# Detail table and column summed into each category (residual is handled apart).
SOURCES = {
    "capex": ("Purchases", "capex_usd", None),
    "rent": ("Rentals", "cost_usd", None),
    "energy": ("Fleet", "energy_usd", None),
    "facility": ("Fleet", "facility_usd", None),
    "maintenance": ("Fleet", "maintenance_usd", None),
    "penalty_unmet_inference": ("Demand_vs_served", "penalty_usd", None),
    "penalty_unmet_training": ("Training_runs", "penalty_usd", "penalty_period"),
    "resale_proceeds": ("Sales", "proceeds_usd", None),  # a credit: minus the sum
}
CREDITS = ("residual", RESALE)
START_ROW, LENGTH_ROW, FACTOR_ROW, END_FACTOR_ROW = 2, 3, 4, 5
CASH_ROW = 8  # first category row of the cash block
PV_ROW = CASH_ROW + len(COST_CATEGORIES) + 5  # first category row of the present values
"""(without early sales; :func:`pv_row` in general)"""
TOTAL_FONT = Font(bold=True)


def sheet_categories(plan: Plan) -> tuple[str, ...]:
    """The category rows of the sheet: the fleet's, resale proceeds right after the
    residual when the plan sold units early, and the procurement categories the plan
    has (commitments, datacenter builds and leases) before the penalties (the rows
    above keep their places; the penalties stay last)."""
    after = COST_CATEGORIES.index("residual") + 1
    costs = plan.tables["costs"]
    present = set(costs.loc[costs["usd"] != 0, "category"])
    extra = tuple(c for c in PROCUREMENT_CATEGORIES if c in present)
    if contracted_sites(plan):
        extra = (*extra, POWER_CONTRACT)
    credits = (RESALE,) if has_sales(plan) else ()
    return (*COST_CATEGORIES[:after], *credits, *extra, *COST_CATEGORIES[after:])


def contracted_sites(plan: Plan) -> tuple[str, ...]:
    """The sites whose power is contracted (``power_cost: contracted``), in order."""
    given = plan.parameters.get("power_contract") or []
    return tuple(dict.fromkeys(str(site) for site, _, _ in given))


def power_contract_formula(book: Book, plan: Plan, period: object, length: str) -> str:
    """The period's take-or-pay power: Σ over contracted sites of the cap (Assumptions,
    facility MW) · 1000 kW/MW · the contract rate (Assumptions) · ``length`` (a cell)."""
    parts = [
        f"{book.ref(('power_cap', s, period))}*{KW_PER_MW:g}*{book.ref(('contract', s, period))}"
        f"*{length}"
        for s in contracted_sites(plan)
    ]
    return "=" + "+".join(parts)


def pv_row(categories: tuple[str, ...]) -> int:
    """First category row of the present values."""
    return CASH_ROW + len(categories) + 5


def horizon(plan: Plan) -> tuple[float, float, dict]:
    """(horizon start, horizon end, period label → start), in years."""
    periods = table(plan, "periods")
    label = PERIOD
    starts = dict(zip(periods[label], periods["start_year"].astype(float), strict=True))
    end = float(periods["start_year"].iloc[-1] + periods["length_years"].iloc[-1])
    return float(periods["start_year"].iloc[0]), end, starts


def npv_at(plan: Plan, wacc: float, *, penalties: bool = False) -> float:
    """Present value of the plan's cash costs at ``wacc`` (the Costs sheet's ``npv_tco``).

    The same fleet and cash flows, discounted as the optimiser does: each period's
    costs at its start (capex at its middle when its purchases arrive through it), the
    residual value at the horizon end. ``penalties`` adds
    the penalties for unmet demand (the objective's convention).
    """
    first, end, starts = horizon(plan)
    ramp = plan.ramp_periods
    periods = table(plan, "periods")
    lengths = dict(zip(periods[PERIOD], periods["length_years"].astype(float), strict=True))
    costs = table(plan, "costs")
    label = PERIOD
    total = 0.0
    for row in costs.to_dict(orient="records"):
        if row["category"] in PENALTIES and not penalties:
            continue
        years = end - first if row["category"] == "residual" else starts[row[label]] - first
        if row["category"] == "capex" and str(row[label]) in ramp:
            years += 0.5 * lengths[row[label]]
        total += row["usd"] * discount_factor(wacc, years)
    return total


def write_costs(book: Book, plan: Plan) -> None:
    ws = book.sheet(TITLE)
    periods = table(plan, "periods")
    label = PERIOD
    labels = list(periods[label])
    costs = table(plan, "costs")
    amount = {(r[PERIOD], r["category"]): r for r in costs.to_dict("records")}
    n = len(labels)
    first_col, total_col = 2, 2 + n
    letters = [get_column_letter(first_col + j) for j in range(n)]

    book.text(ws, 1, 1, "USD ($K, $M, $B)")
    for j, value in enumerate(labels):
        book.value(ws, 1, first_col + j, value, cells.YEAR)
    book.text(ws, 1, total_col, "Total")
    cells.style_header_row(ws, 1, total_col)

    book.text(ws, START_ROW, 1, "period start (year)")
    book.text(ws, LENGTH_ROW, 1, "period length (years)")
    book.text(ws, FACTOR_ROW, 1, "discount factor at the period start")
    book.text(ws, END_FACTOR_ROW, 1, "discount factor at the horizon end (residual value)")
    for j, row in enumerate(periods.to_dict("records")):
        col = first_col + j
        book.value(ws, START_ROW, col, row["start_year"], cells.GENERAL)
        book.value(ws, LENGTH_ROW, col, row["length_years"], cells.GENERAL)
        start = f"{letters[j]}{START_ROW}"
        book.formula(
            ws,
            FACTOR_ROW,
            col,
            f"=(1+wacc)^-({start}-horizon_start)",
            row["discount_factor"],
            cells.FACTOR,
        )
    book.formula(
        ws,
        END_FACTOR_ROW,
        first_col,
        "=(1+wacc)^-(horizon_end-horizon_start)",
        plan.parameters["discount_factor_end"],
        cells.FACTOR,
    )
    book.define("discount_factor_end", ws, END_FACTOR_ROW, first_col)

    categories = sheet_categories(plan)
    cash = _cash_block(book, plan, ws, labels, letters, amount, categories)
    _present_value_block(book, ws, labels, letters, amount, cash, categories, plan.ramp_periods)
    for col in range(first_col, total_col + 1):
        letter = get_column_letter(col)
        ws.column_dimensions[letter].width = max(ws.column_dimensions[letter].width or 0, 16)
    for credit in (c for c in categories if c in CREDITS):
        at = categories.index(credit)
        for row in (CASH_ROW + at, pv_row(categories) + at):  # credits: never positive
            for col in range(first_col, total_col + 1):
                value = book.expected.get(absolute(ws.title, row, col))
                ws.cell(row=row, column=col).number_format = (
                    cells.USD_SCALED_CREDIT if value is None else cells.usd_scaled_single(value)
                )
    cells.freeze_header(ws, 1, 1)
    book.fit_widths(ws)
    ws.column_dimensions["A"].width = 48


def _section(book: Book, ws, row: int, text: str) -> None:
    book.text(ws, row, 1, text, track=False).font = SECTION_FONT


def _totals(
    book: Book,
    ws,
    first: int,
    labels: list,
    letters: list[str],
    values: dict[str, list[float]],
    prefix: str,
    categories: tuple[str, ...] = COST_CATEGORIES,
) -> int:
    """Total, penalties and total-without-penalties rows under a category block."""
    last = first + len(categories) - 1
    inference = first + categories.index("penalty_unmet_inference")
    training = first + categories.index("penalty_unmet_training")
    total_row, penalty_row, net_row = last + 1, last + 2, last + 3
    book.text(ws, total_row, 1, f"Total {prefix} incl. notional penalties")
    book.text(ws, penalty_row, 1, "of which notional penalties for unmet demand (not a cost)")
    book.text(ws, net_row, 1, f"Total {prefix} (TCO, excl. penalties)")
    for j, letter in enumerate(letters):
        col = 2 + j
        all_in = sum(v[j] for v in values.values())
        pen = sum(values[c][j] for c in PENALTIES)
        book.formula(
            ws, total_row, col, f"=SUM({letter}{first}:{letter}{last})", all_in, cells.USD_SCALED
        )
        book.formula(
            ws, penalty_row, col, f"={letter}{inference}+{letter}{training}", pen, cells.USD_SCALED
        )
        book.formula(
            ws,
            net_row,
            col,
            f"={letter}{total_row}-{letter}{penalty_row}",
            all_in - pen,
            cells.USD_SCALED,
        )
    for row in (total_row, net_row):
        for col in range(1, 3 + len(letters)):
            ws.cell(row=row, column=col).font = TOTAL_FONT
    return total_row


def _row_totals(book: Book, ws, rows: range, letters: list[str]) -> None:
    """The Total column: each row summed across periods."""
    col = 2 + len(letters)
    for row in rows:
        parts = [ws.cell(row=row, column=2 + j) for j in range(len(letters))]
        expected = [book.expected.get(f"'Costs'!${c.column_letter}${row}") for c in parts]
        known = [
            e if e is not None else (c.value or 0.0) for e, c in zip(expected, parts, strict=True)
        ]
        book.formula(
            ws,
            row,
            col,
            f"=SUM({letters[0]}{row}:{letters[-1]}{row})",
            sum(known),
            cells.USD_SCALED,
        )


def _cash_block(
    book: Book,
    plan: Plan,
    ws,
    labels: list,
    letters: list[str],
    amount: dict,
    categories: tuple[str, ...],
) -> dict:
    _section(book, ws, CASH_ROW - 1, "Cash cost by period (USD)")
    values: dict[str, list[float]] = {}
    for i, category in enumerate(categories):
        row = CASH_ROW + i
        book.text(ws, row, 1, LABELS[category])
        values[category] = [float(amount[(t, category)]["usd"]) for t in labels]
        for j, t in enumerate(labels):
            col, usd = 2 + j, values[category][j]
            if category == "residual":
                if j == len(labels) - 1:
                    residual = f"=-SUM({book.tables['Purchases'].range('residual_usd')})"
                    if DATACENTER in book.tables:  # built blocks' residual too
                        residual += f"-SUM({book.tables[DATACENTER].range('residual_usd')})"
                    book.formula(ws, row, col, residual, usd, cells.USD_SCALED)
                else:
                    book.value(ws, row, col, usd, cells.USD_SCALED)
                continue
            if category == "capex":
                book.formula(
                    ws,
                    row,
                    col,
                    capex_paid_formula(book, f"{letters[j]}$1", t),
                    usd,
                    cells.USD_SCALED,
                )
                continue
            if category == "datacenter_capex" and DATACENTER in book.tables:
                paid = datacenter_capex_formula(book, f"{letters[j]}$1", t)
                book.formula(ws, row, col, "=" + paid[1:], usd, cells.USD_SCALED)
                continue
            if category == POWER_CONTRACT:  # cap × rate on Assumptions × the length
                formula = power_contract_formula(book, plan, t, f"{letters[j]}${LENGTH_ROW}")
                book.formula(ws, row, col, formula, usd, cells.USD_SCALED)
                continue
            if category in PROCUREMENT_CATEGORIES:  # no detail sheet to sum: the plan's
                book.value(ws, row, col, usd, cells.USD_SCALED)
                continue
            table, column, key = SOURCES[category]
            source = book.tables[table]
            key = key or PERIOD
            condition = (source.range(key), f"{letters[j]}$1", criterion(t))
            formula = sum_where(source.range(column), [condition])
            if category == RESALE:  # proceeds are a credit
                formula = "=-" + formula[1:]
            book.formula(ws, row, col, formula, usd, cells.USD_SCALED)
    total_row = _totals(book, ws, CASH_ROW, labels, letters, values, "cash cost", categories)
    _row_totals(book, ws, range(CASH_ROW, total_row + 3), letters)
    book.define("undiscounted_cost", ws, total_row + 2, 2 + len(letters))
    return values


def capex_paid_formula(book: Book, cell: str, period: object) -> str:
    """Purchase capex paid in the period in ``cell``: delivered there less the part
    paid at order, plus the at-order part of what is ordered there (Purchases sheet)."""
    source = book.tables["Purchases"]
    numeric = criterion(period)
    capex, at_order = source.range("capex_usd"), source.range("capex_at_order_usd")
    delivered = [(source.range(PERIOD), cell, numeric)]
    ordered = [(source.range("order_period"), cell, numeric)]
    return (
        f"{sum_where(capex, delivered)}-{sum_where(at_order, delivered)[1:]}"
        f"+{sum_where(at_order, ordered)[1:]}"
    )


def _present_value_block(
    book: Book,
    ws,
    labels: list,
    letters: list[str],
    amount: dict,
    cash: dict,
    categories: tuple[str, ...],
    ramp: frozenset[str] = frozenset(),
) -> None:
    first = pv_row(categories)
    _section(book, ws, first - 1, "Present value at the horizon start (USD)")
    values: dict[str, list[float]] = {}
    for i, category in enumerate(categories):
        row, cash_row = first + i, CASH_ROW + i
        book.text(ws, row, 1, LABELS[category])
        values[category] = [float(amount[(t, category)]["usd_pv"]) for t in labels]
        for j, letter in enumerate(letters):
            factor = "discount_factor_end" if category == "residual" else f"{letter}${FACTOR_ROW}"
            if category == "capex" and str(labels[j]) in ramp:  # paid mid-period on average
                factor += f"*(1+wacc)^-({letter}${LENGTH_ROW}/2)"
            book.formula(
                ws,
                row,
                2 + j,
                f"={letter}{cash_row}*{factor}",
                values[category][j],
                cells.USD_SCALED,
            )
    total_row = _totals(book, ws, first, labels, letters, values, "present value", categories)
    _row_totals(book, ws, range(first, total_row + 3), letters)
    total_col = 2 + len(letters)
    book.define("npv_with_penalties", ws, total_row, total_col)
    book.define("penalties_pv", ws, total_row + 1, total_col)
    book.define("npv_tco", ws, total_row + 2, total_col)
