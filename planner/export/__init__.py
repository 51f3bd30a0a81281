"""Excel output and input workbooks (openpyxl): injection-safe cells, atomic saves.

* :mod:`planner.export.cells` — writing text, numbers and formulas safely; formats,
  header styling, Excel tables, frozen headers, safe sheet titles.
* :mod:`planner.export.atomic` — write to a temporary file beside the target, then
  rename, so a failed export never leaves a half-written file.
* :mod:`planner.export.template` — the assumptions workbook (``planner template``).
* :mod:`planner.export.excel` — the result workbook of ``planner run``; one module per
  sheet (or group of sheets) in :mod:`planner.export.sheets`.
* :mod:`planner.export.charts` — native Excel charts; :mod:`planner.export.plots` — the
  same charts as PNG files (matplotlib, the optional ``plots`` extra).
"""
