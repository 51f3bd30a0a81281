"""One module per sheet (or small group of sheets) of the plan workbook.

:mod:`planner.export.excel` calls them in dependency order: a sheet's formulas may
read cells that earlier sheets remembered in :class:`~planner.export.sheets.book.Book`.
"""
