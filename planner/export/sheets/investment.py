"""``Investment``: revenue, cash flow, payback, IRR and NPV of profit, all live formulas.

Layout (periods across, as on Costs, one column each from C, then a total):

* revenue: per priced workload, served output Mtok (a sum of Demand vs served's served
  tokens ÷ 10⁶) × its price per output Mtok (an input cell: edit it and revenue moves);
  per valued run, its completion (Training runs) × its value, in the window's last
  period; total revenue;
* cash: operating cost (Costs' rent, energy, facility and maintenance cells), gross
  margin = revenue − operating cost, capex (Costs), cash flow = gross margin − capex,
  cumulative cash, residual credit (Costs, last period: book value, not cash);
* returns: PV of revenue (× Costs' discount factors, named ``revenue_pv``), NPV of
  profit = ``revenue_pv − npv_tco`` (named ``npv_profit``), IRR of the cash flows where
  the NPV books them (capex paid mid-period on a half-period grid; see :func:`_irr`)
  with the residual at the horizon end, annualised, and the payback year: the
  first period from which cumulative cash stays at or above zero.

The planner's figures for every formula come from the Plan's ``revenue``, ``costs``
and ``investment`` tables (:mod:`planner.results.investment`).
"""

from __future__ import annotations

from itertools import accumulate

from openpyxl.utils import get_column_letter

from planner.export import cells
from planner.export.sheets.book import PERIOD, SECTION_FONT, Book, criterion, sum_where, table
from planner.export.sheets.costs import CASH_ROW, FACTOR_ROW, sheet_categories
from planner.export.sheets.sales import has_sales
from planner.results import COST_CATEGORIES, Plan
from planner.results.costs import RESALE
from planner.results.investment import CAPEX_CATEGORIES, OPERATING_CATEGORIES
from planner.units import MTOK

TITLE = "Investment"
FIRST_COL = 3  # periods from column C (A: measure, B: workload or run)


def _costs_cell(category: str, j: int, categories: tuple[str, ...] = COST_CATEGORIES) -> str:
    """Costs' cash cell of ``category`` in the ``j``-th period (periods from column B);
    ``categories``: the sheet's rows (:func:`planner.export.sheets.costs.sheet_categories`)."""
    return f"'Costs'!{get_column_letter(2 + j)}{CASH_ROW + categories.index(category)}"


def _resale_cell(j: int) -> str:
    """Costs' resale-proceeds cell (a credit, right after the residual) of period ``j``."""
    row = CASH_ROW + COST_CATEGORIES.index("residual") + 1
    return f"'Costs'!{get_column_letter(2 + j)}{row}"


def write_investment(book: Book, plan: Plan) -> None:
    ws = book.sheet(TITLE)
    periods = table(plan, "periods")
    labels = list(periods[PERIOD])
    n = len(labels)
    letters = [get_column_letter(FIRST_COL + j) for j in range(n)]
    total_col = FIRST_COL + n
    book.text(ws, 1, 1, "USD ($K, $M, $B)")
    book.text(ws, 1, 2, "work")
    for j, value in enumerate(labels):
        book.value(ws, 1, FIRST_COL + j, value, cells.YEAR)
    book.text(ws, 1, total_col, "Total")
    cells.style_header_row(ws, 1, total_col)
    book.text(ws, 2, 1, "year")
    for j, year in enumerate(periods["year"]):
        book.value(ws, 2, FIRST_COL + j, int(year), cells.YEAR)
    revenue = table(plan, "revenue")
    if revenue.empty:
        book.note(ws, 4, "No workload carries a price and no run a value: no revenue to show.")
        cells.freeze_header(ws, 1, 2)
        book.fit_widths(ws)
        return
    row = _section(book, ws, 4, "Revenue (USD)")
    earned = [0.0] * n
    revenue_rows = []
    for (kind, work), rows in revenue.groupby(["kind", "work"], sort=False):
        at = {p: r for p, r in zip(rows[PERIOD], rows.to_dict("records"), strict=True)}
        if kind == "inference":
            row = _workload_rows(book, ws, row, str(work), labels, letters, at)
        else:
            row = _run_rows(book, ws, row, str(work), labels, letters, at)
        revenue_rows.append(row - 1)
        for j, t in enumerate(labels):
            earned[j] += float(at[t]["revenue_usd"]) if t in at else 0.0
    total_revenue = row
    book.text(ws, row, 1, "Total revenue")
    for j, letter in enumerate(letters):
        parts = "+".join(f"{letter}{r}" for r in revenue_rows)
        book.formula(ws, row, FIRST_COL + j, f"={parts}", earned[j], cells.USD_SCALED)
    _row_total(book, ws, row, letters, sum(earned))
    cash = _cash_rows(book, ws, row + 2, plan, labels, letters, total_revenue, earned)
    _returns(book, ws, cash, plan, labels, letters, total_revenue, earned)
    cells.freeze_header(ws, 1, 2)
    book.fit_widths(ws)
    ws.column_dimensions["A"].width = 44


def _section(book: Book, ws, row: int, text: str) -> int:
    book.text(ws, row, 1, text, track=False).font = SECTION_FONT
    return row + 1


def _row_total(book: Book, ws, row: int, letters: list[str], expected: float) -> None:
    col = FIRST_COL + len(letters)
    book.formula(
        ws, row, col, f"=SUM({letters[0]}{row}:{letters[-1]}{row})", expected, cells.USD_SCALED
    )


def _workload_rows(book: Book, ws, row: int, w: str, labels, letters, at: dict) -> int:
    """Served Mtok, price and revenue of workload ``w``; the row after them."""
    served = book.tables["Demand_vs_served"]
    for offset, what in enumerate(("served (output Mtok)", "price (USD per output Mtok)")):
        book.text(ws, row + offset, 1, what)
        book.text(ws, row + offset, 2, w)
    book.text(ws, row + 2, 1, "revenue (USD)")
    book.text(ws, row + 2, 2, w)
    for j, (t, letter) in enumerate(zip(labels, letters, strict=True)):
        col = FIRST_COL + j
        conditions = [
            (served.range(PERIOD), f"{letter}$1", criterion(t)),
            (served.range("workload"), f"$B{row}", False),
        ]
        mtok = float(at[t]["served_mtok"]) if t in at else 0.0
        total = sum_where(served.range("served_tokens"), conditions)
        book.formula(ws, row, col, f"={total[1:]}/{MTOK:.0f}", mtok, cells.THOUSANDS)
        if t in at:
            book.value(ws, row + 1, col, float(at[t]["revenue_usd_per_mtok"]), cells.USD_PRECISE)
        usd = float(at[t]["revenue_usd"]) if t in at else 0.0
        book.formula(ws, row + 2, col, f"={letter}{row}*{letter}{row + 1}", usd, cells.USD_SCALED)
    _row_total(book, ws, row + 2, letters, sum(float(r["revenue_usd"]) for r in at.values()))
    return row + 3


def _run_rows(book: Book, ws, row: int, r: str, labels, letters, at: dict) -> int:
    """Completion, value and revenue of run ``r`` (in its window's last period)."""
    runs = book.tables["Training_runs"]
    for offset, what in enumerate(("completion (share)", "value if finished (USD)")):
        book.text(ws, row + offset, 1, what)
        book.text(ws, row + offset, 2, r)
    book.text(ws, row + 2, 1, "revenue (USD)")
    book.text(ws, row + 2, 2, r)
    for j, (t, letter) in enumerate(zip(labels, letters, strict=True)):
        col = FIRST_COL + j
        if t in at:
            done = sum_where(runs.range("completion"), [(runs.range("run"), f"$B{row}", False)])
            book.formula(ws, row, col, done, float(at[t]["completion"]), cells.PCT)
            book.value(ws, row + 1, col, float(at[t]["value_usd"]), cells.USD_SCALED)
        usd = float(at[t]["revenue_usd"]) if t in at else 0.0
        book.formula(ws, row + 2, col, f"={letter}{row}*{letter}{row + 1}", usd, cells.USD_SCALED)
    _row_total(book, ws, row + 2, letters, sum(float(x["revenue_usd"]) for x in at.values()))
    return row + 3


def _cash_rows(book: Book, ws, row: int, plan: Plan, labels, letters, revenue_row, earned):
    """Operating cost, gross margin, capex, cash flow, cumulative cash, residual."""
    row = _section(book, ws, row, "Cash (USD)")
    costs = table(plan, "costs")
    usd = {(r[PERIOD], r["category"]): float(r["usd"]) for r in costs.to_dict("records")}
    rows = sheet_categories(plan)
    running_rows = [c for c in OPERATING_CATEGORIES if c in rows]
    capex_rows = [c for c in CAPEX_CATEGORIES if c in rows]
    operating = [sum(usd[(t, c)] for c in running_rows) for t in labels]
    sold = has_sales(plan)  # capex net of the proceeds of units sold early
    capex = [
        sum(usd[(t, c)] for c in capex_rows) + (usd[(t, RESALE)] if sold else 0.0) for t in labels
    ]
    flow = [e - o - c for e, o, c in zip(earned, operating, capex, strict=True)]
    cumulative = list(accumulate(flow))
    residual = [-usd[(t, "residual")] + 0.0 for t in labels]
    names = ("operating", "margin", "capex", "flow", "cumulative", "residual")
    at = {name: row + i for i, name in enumerate(names)}
    texts = (
        "Operating cost (" + ", ".join(c.replace("_", " ") for c in running_rows) + ")",
        "Gross margin (revenue − operating cost)",
        ("Capex (purchases, datacenter builds" if len(capex_rows) > 1 else "Capex (purchases")
        + (", less resale proceeds)" if sold else ")"),
        "Cash flow (gross margin − capex)",
        "Cumulative cash",
        "Residual credit at the horizon end (book value, not cash)",
    )
    for name, text in zip(names, texts, strict=True):
        book.text(ws, at[name], 1, text)
    for j, letter in enumerate(letters):
        col = FIRST_COL + j
        running = "+".join(_costs_cell(c, j, rows) for c in running_rows)
        book.formula(ws, at["operating"], col, f"={running}", operating[j], cells.USD_SCALED)
        book.formula(
            ws,
            at["margin"],
            col,
            f"={letter}{revenue_row}-{letter}{at['operating']}",
            earned[j] - operating[j],
            cells.USD_SCALED,
        )
        spent = "+".join(_costs_cell(c, j, rows) for c in capex_rows)
        spent += f"+{_resale_cell(j)}" if sold else ""
        book.formula(ws, at["capex"], col, f"={spent}", capex[j], cells.USD_SCALED)
        book.formula(
            ws,
            at["flow"],
            col,
            f"={letter}{at['margin']}-{letter}{at['capex']}",
            flow[j],
            cells.USD_SCALED,
        )
        previous = f"{letters[j - 1]}{at['cumulative']}+" if j else ""
        book.formula(
            ws,
            at["cumulative"],
            col,
            f"={previous}{letter}{at['flow']}",
            cumulative[j],
            cells.USD_SCALED,
        )
        book.formula(
            ws,
            at["residual"],
            col,
            f"=-{_costs_cell('residual', j)}",
            residual[j],
            cells.USD_SCALED,
        )
    totals = {
        "operating": sum(operating),
        "margin": sum(earned) - sum(operating),
        "capex": sum(capex),
        "flow": sum(flow),
        "residual": sum(residual),
    }
    for name, expected in totals.items():
        _row_total(book, ws, at[name], letters, expected)
    return at


def _returns(book: Book, ws, at: dict, plan: Plan, labels, letters, revenue_row, earned) -> None:
    """PV of revenue, NPV of profit, IRR, payback."""
    row = _section(book, ws, at["residual"] + 2, "Returns")
    factors = list(table(plan, "periods")["discount_factor"].astype(float))
    head = plan.headline
    book.text(ws, row, 1, "Discount factor at the period start (Costs)")
    book.text(ws, row + 1, 1, "PV of revenue")
    for j, letter in enumerate(letters):
        col = FIRST_COL + j
        cost_letter = get_column_letter(2 + j)
        book.formula(ws, row, col, f"='Costs'!{cost_letter}${FACTOR_ROW}", factors[j], cells.FACTOR)
        book.formula(
            ws,
            row + 1,
            col,
            f"={letter}{revenue_row}*{letter}{row}",
            earned[j] * factors[j],
            cells.USD_SCALED,
        )
    _row_total(book, ws, row + 1, letters, head["revenue_usd_pv"])
    total_col = FIRST_COL + len(letters)
    book.define("revenue_pv", ws, row + 1, total_col)
    book.text(ws, row + 2, 1, "NPV of profit (PV of revenue − NPV cost)")
    book.formula(
        ws, row + 2, total_col, "=revenue_pv-npv_tco", head["npv_profit_usd"], cells.USD_SCALED
    )
    book.define("npv_profit", ws, row + 2, total_col)
    _irr(book, ws, row + 4, at, plan, letters)
    _payback(book, ws, row + 7, at, plan, letters)


def _irr(book: Book, ws, row: int, at: dict, plan: Plan, letters: list[str]) -> None:
    """The IRR row: the cash flows where the NPV books them, then the IRR.

    Without deliveries through the period each period's cash flow sits at its start
    (one column a period) and the residual at the horizon end. With them a period whose
    purchases arrive through it pays its capex at its middle (``capex_paid_at_year``),
    so the row is a grid of half periods: at each start the cash flow with that capex
    added back, at each middle the capex, at the end the residual; the IRR of the grid
    is per half period, annualised. Either way it is the headline's IRR
    (planner.results.investment.profit_stream)."""
    periods = table(plan, "periods")
    costs = table(plan, "costs")
    rows = costs.to_dict("records")
    capex = {r[PERIOD]: float(r["usd"]) for r in rows if r["category"] == "capex"}
    labels = list(periods[PERIOD])
    paid = periods.get("capex_paid_at_year", periods["start_year"])
    middle = [float(m) > float(s) for m, s in zip(paid, periods["start_year"], strict=True)]
    steps = 2 if any(middle) else 1
    cash = [book.expected[f"'{TITLE}'!${letter}${at['flow']}"] for letter in letters]
    book.text(
        ws,
        row,
        1,
        "Cash flow for the IRR (last column: residual at the horizon end)"
        if steps == 1
        else "Cash flow for the IRR by half period (start: cash flow before capex paid at "
        "the middle; middle: that capex; last column: residual at the horizon end)",
    )
    for j, letter in enumerate(letters):
        col = FIRST_COL + steps * j
        paid_mid = _costs_cell("capex", j) if middle[j] else None
        start = f"={letter}{at['flow']}" + (f"+{paid_mid}" if paid_mid else "")
        spent = capex[labels[j]] if middle[j] else 0.0
        book.formula(ws, row, col, start, cash[j] + spent, cells.USD_SCALED)
        if steps == 2:
            mid = f"=-{paid_mid}" if paid_mid else "=0"
            book.formula(ws, row, col + 1, mid, -spent + 0.0, cells.USD_SCALED)
    last = FIRST_COL + steps * len(letters)
    end = get_column_letter(FIRST_COL + len(letters))
    residual = float(plan.tables["investment"]["residual_credit_usd"].sum())
    book.formula(ws, row, last, f"={end}{at['residual']}", residual, cells.USD_SCALED)
    book.text(ws, row + 1, 1, "IRR (per year)")
    rate = plan.headline.get("irr")
    if rate is None:
        book.text(ws, row + 1, FIRST_COL, "n/a: the cash flows do not change sign exactly once")
        return
    per_year = int(plan.parameters.get("periods_per_year", 1))
    span = f"{get_column_letter(FIRST_COL)}{row}:{get_column_letter(last)}{row}"
    book.formula(ws, row + 1, FIRST_COL, f"=(1+IRR({span}))^{steps * per_year}-1", rate, cells.PCT)


def _payback(book: Book, ws, row: int, at: dict, plan: Plan, letters: list[str]) -> None:
    """A flag per period (cumulative cash at or above zero from here to the end), and
    the year of the first flagged period."""
    cumulative = [book.expected[f"'{TITLE}'!${letter}${at['cumulative']}"] for letter in letters]
    flags = [0.0] * len(letters)
    stays = True
    for j in reversed(range(len(letters))):
        stays = stays and cumulative[j] >= 0
        flags[j] = 1.0 if stays else 0.0
    book.text(ws, row, 1, "Cumulative cash stays ≥ 0 from here (1 = yes)")
    for j in reversed(range(len(letters))):
        letter = letters[j]
        here = f"{letter}{at['cumulative']}>=0"
        after = f",{letters[j + 1]}{row}=1" if j < len(letters) - 1 else ""
        book.formula(
            ws, row, FIRST_COL + j, f"=IF(AND({here}{after}),1,0)", flags[j], cells.GENERAL
        )
    book.text(ws, row + 1, 1, "Payback year")
    year = plan.headline.get("payback_year")
    if year is None:
        book.text(ws, row + 1, FIRST_COL, "not inside the horizon")
        return
    span = f"{letters[0]}{row}:{letters[-1]}{row}"
    years = f"{letters[0]}$2:{letters[-1]}$2"
    book.formula(ws, row + 1, FIRST_COL, f"=INDEX({years},MATCH(1,{span},0))", year, cells.YEAR)
