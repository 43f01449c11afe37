"""Rows come in one order on every engine (docs/semantics.md, "Order and `top`"): text
dimensions by code point, numbers and decimals by value, dates by date, NULLs last, ties of
``top`` cut by that order; so do a grouped statement's rows, rows ranked per period, rows
derived in Python (a derived metric over two models, ``compare``) and ``list_values`` pages.

PostgreSQL orders text by its collation; its scratch database here is created once with a
linguistic one (ICU ``en-US``: ``'a'`` before ``'B'``, ``'_x'`` before ``'10'``), which sutura
must not follow, and once with libc's ``C.UTF-8``, which orders by code point already (so a
column collated by it is selected as it is, and an index on it serves the order; so is the
column ``note``, collated ``"C"`` in both). A dimension's values sort by their type's value,
never by their text (``'10'`` after ``'9'`` as numbers, ``'-1'`` first).
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import anyio
import duckdb
import psycopg
import pytest

from sutura import api
from sutura.core.tool.capability import Capability
from tests.engines import ASK_SECONDS, ENGINES, Deployed, Rows, answer_of, deployed_on, outcomes

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_VALUE_ORDER_TEST_PASSWORD"

# id, day, label, size, price, shipped
_SALES: Final = (
    (1, "2024-01-03", "'a'", "10", "9.50", "'2024-03-01'"),
    (2, "2024-01-04", "'B'", "9", "10.25", "'2023-12-31'"),
    (3, "2024-01-05", "'b'", "-1", "-0.50", "'2024-01-15'"),
    (4, "2024-01-06", "'_x'", "100", "0.75", "NULL"),
    (5, "2024-01-07", "'Z'", "NULL", "100.00", "'2024-10-02'"),
    (6, "2024-01-08", "'é'", "2", "NULL", "'2024-03-01'"),
    (7, "2024-02-03", "'10'", "10", "9.50", "'2023-12-31'"),
    (8, "2024-02-04", "'9'", "9", "2.00", "'2024-01-15'"),
    (9, "2024-02-05", "'a-c'", "-1", "10.25", "NULL"),
    (10, "2024-02-06", "'ab'", "100", "-0.50", "'2024-10-02'"),
    (11, "2024-02-07", "NULL", "NULL", "0.75", "'2024-03-01'"),
)
DATA: Final = (
    "CREATE TABLE vord_sales (id INTEGER, day DATE, label VARCHAR, size INTEGER,"
    " price DECIMAL(10,2), shipped DATE, amount DECIMAL(10,2), note VARCHAR)",
    "INSERT INTO vord_sales VALUES "
    + ", ".join(
        f"({i}, DATE '{day}', {label}, {size}, {price}, CAST({shipped} AS DATE), 1.00, {label})"
        for i, day, label, size, price, shipped in _SALES
    ),
    "CREATE TABLE vord_visits (id INTEGER, day DATE, label VARCHAR, size INTEGER,"
    " visitors INTEGER)",
    "INSERT INTO vord_visits VALUES (1, DATE '2024-01-02', 'Ab', 3, 1),"
    " (2, DATE '2024-01-02', 'a', 10, 2), (3, DATE '2024-02-02', '_x', -5, 4)",
)

_COLUMNS: Final = (
    "  - {name: id, type: INTEGER}\n  - {name: day, type: DATE}\n"
    "  - {name: label, type: VARCHAR}\n  - {name: size, type: INTEGER}\n"
)


def _model(name: str, columns: str) -> str:
    return (
        f"---\nkind: model\nname: {name}\nsource: main\ntable: vord_{name}\nprimary_key: id\n"
        f"columns:\n{_COLUMNS}{columns}---\n"
    )


def _metric(name: str, model: str, measure: str, dimensions: str) -> str:
    return (
        f"---\nkind: metric\nname: {name}\nmodel: {model}\nmeasure:\n  simple: {measure}\n"
        f"time_column: day\ngrains: [month]\ndimensions:\n{dimensions}audience: open\n---\n"
    )


_SHARED: Final = "  - {name: label, column: label}\n  - {name: size, column: size}\n"

DOCUMENTS: Final = {
    "sales": _model(
        "sales",
        "  - {name: price, type: 'DECIMAL(10,2)'}\n  - {name: shipped, type: DATE}\n"
        "  - {name: amount, type: 'DECIMAL(10,2)'}\n  - {name: note}\n",
    ),
    "visits": _model("visits", "  - {name: visitors, type: INTEGER}\n"),
    "revenue": _metric(
        "revenue",
        "sales",
        "{aggregate: sum, column: amount}",
        _SHARED + "  - {name: price, column: price}\n  - {name: shipped, column: shipped}\n"
        "  - {name: note, column: note}\n"
        "  - {name: tag, type: text, expression:"
        " {buckets: {of: {column: size}, edges: [5, 50], labels: [b_low, Mid, a_high]}}}\n",
    ),
    "closing": _metric(
        "closing",
        "sales",
        "{aggregate: sum, column: amount}\nsemi_additive: {rule: last, entity: id}",
        _SHARED,
    ),
    "visitors": _metric("visitors", "visits", "{aggregate: sum, column: visitors}", _SHARED),
    "traffic": (
        "---\nkind: metric\nname: traffic\nderived: {op: sum, of: [revenue, visitors]}\n"
        "grains: [month]\ndimensions: [label, size]\naudience: open\n---\n"
    ),
}

LABELS: Final = ["10", "9", "B", "Z", "_x", "a", "a-c", "ab", "b", "é", None]
"""Every label by code point, NULL last (en-US would start ``_x, 10, 9, a``)."""


C_UTF8: Final = "postgres-c.utf8"
"""PostgreSQL, its database collated by libc's ``C.UTF-8`` (the other, by ICU's ``en-US``)."""


@pytest.fixture(params=[*ENGINES, pytest.param(C_UTF8, marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest) -> str:
    """Each engine, PostgreSQL twice: its database collated ``en-US``, then ``C.UTF-8``."""
    return str(request.param)


def _note_collated_c(admin_dsn: str) -> None:
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute('ALTER TABLE vord_sales ALTER COLUMN note TYPE VARCHAR COLLATE "C"')


@pytest.fixture
def deployed(request: pytest.FixtureRequest, tmp_path: Path, engine: str) -> Iterator[Deployed]:
    """The settings directory on each engine (PostgreSQL's database collated ``en-US`` or
    ``C.UTF-8``, its column ``note`` ``"C"``)."""
    data = tmp_path / "order.duckdb"
    with duckdb.connect(str(data)) as connection:
        for statement in DATA:
            connection.execute(statement)
    with deployed_on(
        request,
        tmp_path,
        data,
        DOCUMENTS,
        version="order-1",
        password_var=PASSWORD_VAR,
        on_postgres=_note_collated_c,
        postgres_icu_locale=None if engine == C_UTF8 else "en-US",
        postgres_libc_locale="C.UTF-8" if engine == C_UTF8 else None,
        engine="postgres" if engine == C_UTF8 else engine,
    ) as found:
        yield found


def _ask(metrics: list[str], *dimensions: str, **rest: object) -> dict[str, object]:
    return {
        "metrics": metrics,
        "dimensions": list(dimensions),
        "range": {"start": "2024-01-01", "end": "2024-03-01"},
        **rest,
    }


async def _rows(deployed: Deployed, *questions: dict[str, object]) -> list[Rows]:
    return [[list(row) for row in answer_of(o).rows] for o in await outcomes(deployed, *questions)]


async def test_grouped_rows_order_by_each_type_s_value(deployed: Deployed) -> None:
    by_label, by_size, by_price, by_shipped, by_tag, by_note = await _rows(
        deployed,
        _ask(["revenue"], "label"),
        _ask(["revenue"], "size"),
        _ask(["revenue"], "price"),
        _ask(["revenue"], "shipped"),
        _ask(["revenue"], "tag"),
        _ask(["revenue"], "note"),
    )
    assert [row[0] for row in by_label] == LABELS
    assert [row[0] for row in by_note] == LABELS  # a column declared without a type
    # An expression's text, grouped by position: en-US would start a_high, b_low, Mid.
    assert by_tag == [["Mid", "4.00"], ["a_high", "2.00"], ["b_low", "3.00"], [None, "2.00"]]
    assert by_size == [
        ["-1", "2.00"],
        ["2", "1.00"],
        ["9", "2.00"],
        ["10", "2.00"],
        ["100", "2.00"],
        [None, "2.00"],
    ]
    assert [row[0] for row in by_price] == [
        "-0.50",
        "0.75",
        "2.00",
        "9.50",
        "10.25",
        "100.00",
        None,
    ]
    assert [row[0] for row in by_shipped] == [
        "2023-12-31",
        "2024-01-15",
        "2024-03-01",
        "2024-10-02",
        None,
    ]


async def test_top_cuts_a_tie_by_code_point_and_value(deployed: Deployed) -> None:
    top = {"n": 3, "by": "revenue"}
    by_label, by_size, per_month, by_two, tag_per_month = await _rows(
        deployed,
        _ask(["revenue"], "label", top=top),
        _ask(["revenue"], "size", top={"n": 2, "by": "revenue"}),
        _ask(["revenue"], "label", grain="month", top={**top, "per": "period"}),
        _ask(["revenue"], "size", "label", top={"n": 4, "by": "revenue"}),
        # An expression ranked per period: the statement that ranks rows first.
        _ask(["revenue"], "tag", grain="month", top={"n": 1, "by": "revenue", "per": "period"}),
    )
    assert by_label == [["10", "1.00"], ["9", "1.00"], ["B", "1.00"]]
    assert by_size == [["-1", "2.00"], ["9", "2.00"]]
    assert per_month == [
        ["2024-01-01", "B", "1.00"],
        ["2024-01-01", "Z", "1.00"],
        ["2024-01-01", "_x", "1.00"],
        ["2024-02-01", "10", "1.00"],
        ["2024-02-01", "9", "1.00"],
        ["2024-02-01", "a-c", "1.00"],
    ]
    # January's Mid and b_low tie at 2.00: Mid first by code point.
    assert tag_per_month == [["2024-01-01", "Mid", "2.00"], ["2024-02-01", "Mid", "2.00"]]
    assert by_two == [
        ["-1", "a-c", "1.00"],
        ["-1", "b", "1.00"],
        ["2", "é", "1.00"],
        ["9", "9", "1.00"],
    ]


async def test_rows_derived_after_the_statement_order_alike(deployed: Deployed) -> None:
    by_label, by_size, compared, top_derived, closing, closing_top = await _rows(
        deployed,
        _ask(["traffic"], "label"),
        _ask(["traffic"], "size"),
        _ask(["revenue"], "size", grain="month", compare={"to": "previous_period"}),
        _ask(["traffic"], "size", top={"n": 3, "by": "traffic", "direction": "asc"}),
        _ask(["closing"], "label"),
        _ask(["closing"], "size", top={"n": 2, "by": "closing"}),
    )
    assert [row[0] for row in closing] == LABELS
    assert closing_top == [["-1", "2.00"], ["9", "2.00"]]
    assert [row[0] for row in by_label] == [
        "10",
        "9",
        "Ab",
        "B",
        "Z",
        "_x",
        "a",
        "a-c",
        "ab",
        "b",
        "é",
        None,
    ]
    assert [row[0] for row in by_size] == ["-5", "-1", "2", "3", "9", "10", "100", None]
    assert [row[:2] for row in compared] == [
        ["2024-01-01", "-1"],
        ["2024-01-01", "2"],
        ["2024-01-01", "9"],
        ["2024-01-01", "10"],
        ["2024-01-01", "100"],
        ["2024-01-01", None],
        ["2024-02-01", "-1"],
        ["2024-02-01", "9"],
        ["2024-02-01", "10"],
        ["2024-02-01", "100"],
        ["2024-02-01", None],
    ]
    # traffic is NULL where a model has no row of the size; NULLs rank last.
    assert [row[0] for row in top_derived] == ["10", "-5", "-1"]


async def test_values_pages_order_by_code_point_and_value(deployed: Deployed) -> None:
    config, environ = deployed
    with anyio.fail_after(ASK_SECONDS):
        async with api.opened(config, environ=environ, anchors=False) as started:
            service = started.unwrap()
            found: dict[str, list[str | None]] = {}
            for dimension in ("label", "size", "price"):
                offset: int | None = 0
                found[dimension] = []
                while offset is not None:
                    request = api.ValuesRequest(
                        metric="revenue", dimension=dimension, page_size=4, offset=offset
                    )
                    page = api.values_of(await api.call(service, Capability.LIST_VALUES, request))
                    assert isinstance(page, api.Values), page
                    found[dimension].extend(page.values)
                    offset = page.next_offset
    assert found["label"] == LABELS
    assert found["size"] == ["-1", "2", "9", "10", "100", None]
    assert found["price"] == ["-0.50", "0.75", "2.00", "9.50", "10.25", "100.00", None]


async def test_a_column_ordered_by_code_point_is_selected_as_it_is(
    deployed: Deployed, engine: str
) -> None:
    """The statement a started service runs (``compile_question`` shows it) names the ``C``
    collation on PostgreSQL only where the column would not order by code point without it:
    the ``en-US`` database's ``label``, and an expression's text on either database."""
    config, environ = deployed
    shown: dict[str, str] = {}
    with anyio.fail_after(ASK_SECONDS):
        async with api.opened(config, environ=environ, anchors=False) as started:
            service = started.unwrap()
            for dimension in ("label", "note", "tag"):
                reply = await api.call(
                    service, Capability.COMPILE_QUESTION, _ask(["revenue"], dimension)
                )
                assert isinstance(reply, api.Answered), reply
                shown[dimension] = reply.halves.structured_object()["sql"]
    collated = {name: 'COLLATE "C"' in statement for name, statement in shown.items()}
    on_postgres = engine in {"postgres", C_UTF8}
    assert collated == {"label": engine == "postgres", "note": False, "tag": on_postgres}
