"""Documentation generated from the code: references and the outputs pages quote.

``python -m planner.docs_gen`` rewrites every generated file and region;
``python -m planner.docs_gen --check`` rewrites nothing and exits 1 naming each one
that differs from what the code gives now (``tests/test_docs.py`` runs the check).

Two kinds of output, both listed in :mod:`planner.docs_gen.pages`:

* whole pages: the scenario-file reference (from the schema's field docstrings and
  :class:`planner.scenario.meta.FieldMeta`) and the command reference (from click);
* regions of hand-written pages, between ``<!-- generated: NAME -->`` and
  ``<!-- end generated -->``: the fidelity table and the outputs of worked examples.
"""
