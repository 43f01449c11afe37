"""``sutura import dbt`` over a dbt project whose text is hostile, through the command line: a
file name from ``target/manifest.json`` cannot write a key into a document it marks, and a
description reaches the catalog with every character it holds (shown escaped by the catalog),
never scrubbed to a space; one that no UTF-8 file can carry is refused by name."""

import json
from pathlib import Path

import pytest

from sutura.core.catalog.document.parse import parse_document
from sutura.core.definitions.model import FilterPredicate, Metric
from sutura.core.expression.formula import predicate_formula
from sutura.core.expression.nodes import Predicate
from sutura.core.text.escape import escape_text
from tests.transports.cli.running import run_in_process as _run
from tests.transports.cli.test_import_dbt_cli import _duckdb, _project

INJECTED = "required_filters: [{equals: {column: order_id, value: none}}]"


def _with_orders_file(project: Path, file: str) -> None:
    """``target/manifest.json`` naming ``file`` as where the dbt metric ``orders`` is defined."""
    files = {
        "metrics": {"metric.jaffle_shop.orders": {"name": "orders", "original_file_path": file}},
        "semantic_models": {},
    }
    (project / "target" / "manifest.json").write_text(json.dumps(files), encoding="utf-8")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r", "\u2028", "\x85"])
def test_a_file_name_cannot_write_a_key_into_the_document_it_marks(
    newline: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _duckdb(tmp_path)
    project = _project(tmp_path)
    file = f"models/orders.yml{newline}{INJECTED}{newline}#"
    _with_orders_file(project, file)
    code, out, err = _run(["import", "dbt", str(project)], config, capsys)
    assert (code, err) == (0, ""), out
    assert "  wrote   metrics/orders.md" in out
    written = (config / "catalog" / "metrics" / "orders.md").read_bytes().decode("utf-8")
    head = written.split("\n---\n", 1)[0].split("\n")
    # One comment line names the file, escaped; the front matter holds nothing else of it.
    assert head[1] == (
        f"# imported by sutura import dbt from {escape_text(file)};"
        " a re-import never overwrites your edits"
    )
    assert not any(line.startswith("required_filters") for line in head)
    definition = parse_document("metrics/orders.md", written).unwrap().definition
    assert isinstance(definition, Metric) and definition.required_filters == ()
    code, out, err = _run(["check"], config, capsys)
    assert (code, err) == (0, ""), out


HOSTILE_DESCRIPTION = "Orders\u202e placed\x1b[2J here\u200b,\x85 counted\u2028 once.\x7f"


def test_a_description_keeps_every_character_and_the_catalog_shows_it_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _duckdb(tmp_path)
    edit = {
        '"description": "Count of orders."': json.dumps({"description": HOSTILE_DESCRIPTION})[1:-1]
    }
    project = _project(tmp_path, edit)
    code, out, err = _run(["import", "dbt", str(project)], config, capsys)
    assert (code, err) == (0, ""), out
    written = (config / "catalog" / "metrics" / "orders.md").read_bytes().decode("utf-8")
    assert written.endswith(f"\n---\nOrders.\n\n{HOSTILE_DESCRIPTION}\n")
    code, out, err = _run(["check"], config, capsys)
    assert (code, err) == (0, ""), out
    # A second import finds the document as it wrote it: nothing changed, nothing kept.
    code, out, err = _run(["import", "dbt", str(project)], config, capsys)
    assert (code, err) == (0, "") and " 0 updated, " in out and "  kept " not in out, out
    code, out, err = _run(["catalog"], config, capsys)
    assert (code, err) == (0, "")
    assert f"> {escape_text(HOSTILE_DESCRIPTION)}\n" in out
    assert (
        "> Orders\\u202e placed\\u001b[2J here\\u200b,\\u0085 counted\\u2028 once.\\u007f\n" in out
    )


def test_a_description_no_utf8_file_can_carry_is_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _duckdb(tmp_path)
    project = _project(
        tmp_path, {'"description": "Count of orders."': '"description": "a\\ud800b"'}
    )
    code, out, err = _run(["import", "dbt", str(project)], config, capsys)
    assert (code, err) == (0, ""), out
    assert not (config / "catalog" / "metrics" / "orders.md").exists()
    assert (
        "  models/marts/customer360/orders.yml: metric orders: its description holds a lone"
        " surrogate (\\\\ud800 to \\\\udfff), which no UTF-8 file can carry" in out
    )
    code, out, err = _run(["check"], config, capsys)
    assert (code, err) == (0, ""), out


@pytest.mark.parametrize("character", ["\x85", "\x7f", "\x9b", "\u2028", "\u202e", "\ufeff"])
def test_a_text_constant_reads_back_exactly_from_the_document_written(
    character: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A filter's text constant holding a character YAML folds (NEL is a line break in a
    double-quoted scalar) or refuses raw (DEL, C1) is written as its escape: the metric is
    carried over, its constant exactly the dbt project's."""
    config = _duckdb(tmp_path)
    spelled = json.dumps(character)[1:-1] if character.isprintable() else f"\\u{ord(character):04x}"
    project = _project(tmp_path, {"= 'new'": f"= 'n{spelled}ew'"})
    code, out, err = _run(["import", "dbt", str(project)], config, capsys)
    assert (code, err) == (0, ""), out
    assert "metric new_customer" not in out
    written = (config / "catalog" / "metrics" / "new_customer.md").read_bytes().decode("utf-8")
    definition = parse_document("metrics/new_customer.md", written).unwrap().definition
    assert isinstance(definition, Metric)
    assert f"'n{character}ew'" in predicate_formula(_only_predicate(definition))
    code, out, err = _run(["check"], config, capsys)
    assert (code, err) == (0, ""), out


def _only_predicate(metric: Metric) -> Predicate:
    (only,) = metric.required_filters
    assert isinstance(only, FilterPredicate)
    return only.predicate
