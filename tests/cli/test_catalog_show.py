"""`planner hardware show ID` and `planner models show ID`: every field, sourced."""

from __future__ import annotations

import json

from planner.catalog import hardware_catalog, model_catalog
from planner.catalog.schema import HardwareSpec, ModelSpec


def test_hardware_show_prints_every_field_with_its_value(run_cli) -> None:
    result = run_cli("hardware", "show", "H100-HGX", "--format", "json")  # any case
    assert result.code == 0, result.err
    fields = {row["field"]: row["value"] for row in json.loads(result.out)["fields"]}
    assert list(fields) == list(HardwareSpec.model_fields)
    h100 = hardware_catalog()["h100-hgx"]
    assert fields["price_usd"] == "280000.0"
    assert fields["source"] == h100.source
    assert fields["as_of"] == h100.as_of.isoformat()
    assert fields["notes"] == h100.notes
    assert fields["peak_tflops_fp4"] == ""  # None: not supported


def test_models_show_table_names_the_source(run_cli) -> None:
    model_id = next(iter(model_catalog()))
    result = run_cli("models", "show", model_id)
    assert result.code == 0, result.err
    joined = " ".join(result.out.split())
    assert f"Model {model_id}" in joined
    for field in ModelSpec.model_fields:
        assert f"│ {field} " in result.out


def test_an_unknown_id_exits_2_with_did_you_mean(run_cli) -> None:
    result = run_cli("hardware", "show", "h100-hg")
    assert result.code == 2
    err = " ".join(result.err.split())
    assert "no hardware 'h100-hg' in the catalog; did you mean h100-hgx" in err
    assert "planner hardware list" in err
    assert result.out == ""
    nothing_close = run_cli("models", "show", "zzzz")
    assert nothing_close.code == 2
    assert "did you mean" not in nothing_close.err
