"""The example: deterministic data, a catalog that loads, anchors that match independent SQL."""

import re
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from returns.pipeline import is_successful

from sutura.boundary.catalog_files import load_catalog
from sutura.boundary.example import write_example
from sutura.core.definitions.model import Catalog, FilterNotEquals, RatioMeasure, ZeroDenominator
from sutura.core.definitions.pinned import PinnedDefinitions

SMALL = 2_000


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("example")
    write_example(target, orders=SMALL)
    return target


def _pinned(target: Path) -> PinnedDefinitions:
    result = load_catalog(target / "catalog", "example-1")
    assert is_successful(result), [e.sentence() for e in result.failure()]
    return result.unwrap()


def _rows(target: Path, table: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(target / "data" / "example.duckdb"), read_only=True) as connection:
        return connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()


def test_the_example_writes_catalog_data_and_settings(example: Path) -> None:
    assert (example / "data" / "example.duckdb").is_file()
    assert yaml.safe_load((example / "base.yaml").read_text(encoding="utf-8")) == {
        "catalog": {"dir": "catalog", "version": "example-1"},
        "sources": {"main": {"kind": "duckdb", "path": "data/example.duckdb"}},
        "security": {
            "identity": "single-user",
            "single_user_because": "the example serves one person on one machine",
        },
    }
    assert len(list((example / "catalog").glob("*.md"))) == 15


def test_the_example_catalog_loads_with_the_promised_metrics(example: Path) -> None:
    catalog = _pinned(example).catalog
    assert {m.name for m in catalog.metrics} >= {
        "revenue",
        "order_count",
        "active_customers",
        "return_rate",
        "average_order_value",
    }
    revenue = catalog.metric("revenue")
    assert revenue is not None
    assert FilterNotEquals(column="order_status", value="cancelled") in revenue.required_filters
    aov = catalog.metric("average_order_value")
    assert aov is not None and isinstance(aov.measure, RatioMeasure)
    assert aov.measure.zero_denominator is ZeroDenominator.FAILS


def test_the_example_dimensions_cover_via_allowlists_and_unlisted_values(example: Path) -> None:
    revenue = _pinned(example).catalog.metric("revenue")
    assert revenue is not None
    region, channel, segment = (revenue.dimension(n) for n in ("region", "channel", "segment"))
    assert region is not None and region.via and region.values == ("east", "north", "south", "west")
    assert channel is not None and not channel.via and channel.values is not None
    assert segment is not None and segment.via and segment.values is None


def test_the_same_orders_give_the_same_rows_and_the_same_catalog(
    example: Path, tmp_path: Path
) -> None:
    write_example(tmp_path, orders=SMALL)
    for table in ("customers", "orders"):
        assert _rows(tmp_path, table) == _rows(example, table)
    for path in sorted((example / "catalog").glob("*.md")):
        assert (tmp_path / "catalog" / path.name).read_bytes() == path.read_bytes()
    assert _pinned(tmp_path).digest == _pinned(example).digest


def test_writing_again_replaces_the_example_files(example: Path, tmp_path: Path) -> None:
    write_example(tmp_path, orders=100)
    write_example(tmp_path, orders=SMALL)
    assert _rows(tmp_path, "orders") == _rows(example, "orders")


def test_the_data_has_the_promised_shape(example: Path) -> None:
    with duckdb.connect(str(example / "data" / "example.duckdb"), read_only=True) as connection:
        counts = connection.execute(
            "SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM customers)"
        ).fetchone()
        bounds = connection.execute(
            "SELECT min(ordered_on), max(ordered_on) FROM orders"
        ).fetchone()
        statuses = connection.execute("SELECT DISTINCT order_status FROM orders").fetchall()
        orphans = connection.execute(
            "SELECT count(*) FROM orders o LEFT JOIN customers c USING (customer_id) "
            "WHERE c.customer_id IS NULL"
        ).fetchone()
    assert counts == (SMALL, SMALL // 20)
    assert bounds is not None and str(bounds[0]) >= "2023-01-01" and str(bounds[1]) <= "2025-12-31"
    assert {s for (s,) in statuses} == {"placed", "shipped", "cancelled", "returned"}
    assert orphans == (0,)


def _independent_anchor(example: Path, select: str) -> str:
    sql = (
        f"SELECT {select} FROM orders WHERE order_status != 'cancelled' "
        "AND ordered_on BETWEEN '2024-01-01' AND '2024-12-31'"
    )
    with duckdb.connect(str(example / "data" / "example.duckdb"), read_only=True) as connection:
        row = connection.execute(sql).fetchone()
    assert row is not None
    value = row[0]
    return format(value, "f") if isinstance(value, Decimal) else str(value)


@pytest.mark.parametrize(
    ("metric", "select"), [("revenue", "sum(amount)"), ("order_count", "count(*)")]
)
def test_each_anchor_matches_an_independent_query(example: Path, metric: str, select: str) -> None:
    found = _pinned(example).catalog.metric(metric)
    assert found is not None and found.anchor is not None
    assert str(found.anchor.start) == "2024-01-01" and str(found.anchor.end) == "2025-01-01"
    assert found.anchor.value == _independent_anchor(example, select)
    assert re.fullmatch(r"[0-9]+(\.[0-9]{2})?", found.anchor.value)


def _prose_words(catalog: Catalog) -> set[str]:
    texts = [m.description for m in catalog.metrics]
    texts += [d.description for m in catalog.metrics for d in m.dimensions]
    knowledge = catalog.knowledge
    for term in knowledge.glossary:
        texts += [term.term, *term.synonyms, term.description]
    for phrase in knowledge.not_defined:
        texts += [phrase.phrase, *phrase.synonyms, phrase.description]
    texts += [caveat.description for caveat in knowledge.caveats]
    for example in knowledge.examples:
        texts += [*example.asked, example.description]
    return {word for text in texts for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)}


def test_no_table_or_column_name_is_a_metric_or_dimension_name_or_appears_in_prose(
    example: Path,
) -> None:
    catalog = _pinned(example).catalog
    physical = {m.table for m in catalog.models} | {
        c.name for m in catalog.models for c in m.columns
    }
    exposed = {m.name for m in catalog.metrics} | {
        d.name for m in catalog.metrics for d in m.dimensions
    }
    assert not physical & exposed
    assert not physical & _prose_words(catalog)


def test_the_example_declares_every_kind_of_knowledge(example: Path) -> None:
    knowledge = _pinned(example).catalog.knowledge
    assert [g.term for g in knowledge.glossary] == ["sales", "web sales"]
    assert [c.name for c in knowledge.caveats] == ["returns_still_count"]
    assert [n.phrase for n in knowledge.not_defined] == ["churn"]
    assert [e.name for e in knowledge.examples] == [
        "busiest_web_months_2024",
        "revenue_by_region_2024",
        "revenue_growth_2024",
    ]


def test_every_metric_carries_multi_line_prose(example: Path) -> None:
    for metric in _pinned(example).catalog.metrics:
        assert metric.description.strip(), metric.name
        assert "\n" in metric.description, metric.name


def test_the_default_size_is_quick(tmp_path: Path) -> None:
    started = time.monotonic()
    write_example(tmp_path)
    assert time.monotonic() - started < 5  # well under a second on a laptop; generous for CI
    assert _rows(tmp_path, "orders")[-1][0] == 20_000


def test_fewer_than_one_order_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        write_example(tmp_path, orders=0)


def test_a_range_without_rows_gets_no_anchor(tmp_path: Path) -> None:
    write_example(tmp_path, orders=3)
    catalog = _pinned(tmp_path).catalog
    assert all(m.anchor is None for m in catalog.metrics)
    assert "__" not in (tmp_path / "catalog" / "revenue.md").read_text(encoding="utf-8")
