"""The conformance pack: example questions as data, asked of a running service per engine.

``questions.json`` holds named question documents, each with the outcome it must have (``answer``
or a refusal code), optional limits to run it under, and whether the source is closed first.
Every question goes through the real startup path (settings document, catalog, source, anchors)
and the real :class:`Service`; only the clock is fixed, so ``range.last`` has one meaning.

The example's rows end on 2025-12-31. :data:`PACK_ROWS` adds a few orders in January 2026 that
the generator never writes: a NULL status, a group whose only order is cancelled and unpaid, a
NULL amount, a Sunday, a missing customer, ties, a week without orders, and a day whose only
order has neither an amount nor a customer. No anchor reads them. ``oracles/<question
name>.sql`` is the answer a question must have, written as plain DuckDB SQL over the example's
tables, independently of the compiler; each engine's answer must equal its rows.
"""

import datetime
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Final

import duckdb
import msgspec

from sutura.api import outcome_of
from sutura.boundary.service import Service
from sutura.boundary.sources.skeleton import Source
from sutura.core.nouns.answer import Answer, Outcome, Refused
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.sql.cells import cell_text
from sutura.core.text.render import SOURCE_PREFIX
from sutura.core.tool.capability import Capability
from sutura.core.tool.codec import halves_of
from sutura.core.tool.reply import Answered
from tests.refusals import expect_refusal
from tests.services import call, serving, settings_of, sources_of

PACK_FILE = Path(__file__).with_name("questions.json")
EXTRA_CATALOG = Path(__file__).with_name("catalog")
ORACLES = Path(__file__).with_name("oracles")

Rows = list[list[str | None]]

# order_id, customer_id, ordered_on, amount, order_status, sales_channel, is_paid, was_returned
PACK_ROWS = """
INSERT INTO orders VALUES
    (1000001, 1,    DATE '2026-01-05', 10.00, NULL,        'web',   true,  false),
    (1000002, 2,    DATE '2026-01-05', 20.00, 'placed',    'web',   true,  true),
    (1000003, 3,    DATE '2026-01-06', 30.00, 'cancelled', 'store', false, false),
    (1000004, 4,    DATE '2026-01-07', NULL,  'placed',    'phone', true,  false),
    (1000005, NULL, DATE '2026-01-11', 5.00,  'shipped',   'web',   true,  false),
    (1000006, 5,    DATE '2026-01-12', 5.00,  'shipped',   'web',   true,  false),
    (1000007, 6,    DATE '2026-01-12', 5.00,  'shipped',   'store', true,  false),
    (1000008, NULL, DATE '2026-01-12', 5.00,  'placed',    'web',   true,  false),
    (1000009, 7,    DATE '2026-01-26', 7.00,  NULL,        'store', false, false),
    (1000010, NULL, DATE '2026-01-28', NULL,  'placed',    'phone', true,  false)
"""


# Parcels (one per order, a second line for every third order) and the scans of each parcel at
# hubs, derived from the orders by integer arithmetic alone: instants, decimals of scale 3,
# NULL carriers, hub names that begin alike, and a key of two columns for the scans to join on.
# Balances: one row per order, each buyer's running total (two rows of one day where a buyer
# ordered twice that day, the unknown buyer's rows under a NULL account, a NULL amount leaving
# the total as it was), closed where the order was cancelled.
PACK_TABLES = """
SET TimeZone = 'UTC';
CREATE TABLE parcels AS
SELECT o.order_id, CAST(l.line_no AS INTEGER) AS line_no,
       CAST(CAST(o.ordered_on AS TIMESTAMP) + to_hours((o.order_id * 7 + l.line_no) % 24)
            + to_minutes(o.order_id % 60) AS TIMESTAMPTZ) AS shipped_at,
       CAST(((o.order_id * 37 + l.line_no * 11) % 1200) * 0.01 AS DECIMAL(8, 3)) AS weight_kg,
       CASE (o.order_id + l.line_no) % 4 WHEN 0 THEN 'ups' WHEN 1 THEN 'dhl' WHEN 2 THEN 'dpd'
       END AS carrier
FROM orders AS o, (VALUES (1), (2)) AS l(line_no)
WHERE l.line_no = 1 OR o.order_id % 3 = 0
ORDER BY o.order_id, l.line_no;
CREATE TABLE scans AS
SELECT CAST(row_number() OVER (ORDER BY p.order_id, p.line_no, h.hop) AS INTEGER) AS scan_id,
       p.order_id, p.line_no, p.shipped_at + to_hours(h.hop * 5) AS scanned_at,
       CASE (p.order_id + h.hop) % 3 WHEN 0 THEN 'north-hub' WHEN 1 THEN 'north-east'
            ELSE 'south' END AS hub
FROM parcels AS p, (VALUES (0), (1), (2)) AS h(hop)
WHERE h.hop <= p.order_id % 3
ORDER BY scan_id;
CREATE TABLE balances AS
SELECT customer_id AS account_id, ordered_on AS as_of,
       CAST(sum(amount) OVER (PARTITION BY customer_id ORDER BY ordered_on, order_id)
            AS DECIMAL(14, 2)) AS balance,
       CASE WHEN order_status = 'cancelled' THEN 'closed' ELSE 'open' END AS status
FROM orders
ORDER BY order_id;
"""


class Case(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One example question and what it must come to."""

    name: str
    expect: str
    question: dict[str, object]
    limits: dict[str, int | float] = msgspec.field(default_factory=dict)
    closed: bool = False
    nulls: bool = False


class Pack(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole pack: a fixed ``today`` and the questions."""

    today: datetime.date
    questions: list[Case]


PACK = msgspec.json.decode(PACK_FILE.read_bytes(), type=Pack)


def environ(config_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a deployment of the pack reads: its settings directory, its secrets."""
    return {"SUTURA_CONFIG_DIR": str(config_dir), **(extra or {})}


def tuned(
    service: Service,
    case: Case,
    today: datetime.date,
    sources: Mapping[str, Source] | None = None,
) -> Service:
    """``service`` under the case's limits and the pack's fixed ``today``, on the same sources
    (or on ``sources``)."""
    settings = settings_of(service)
    limits = msgspec.structs.replace(settings.limits, **case.limits)
    return Service(
        settings=msgspec.structs.replace(settings, limits=limits),
        pinned=service.definitions(),
        sources=sources_of(service) if sources is None else sources,
        runner=None,
        offered=frozenset({Capability.ASK_METRIC, Capability.COMPILE_QUESTION}),
        today=lambda: today,
        facts=service.facts,
    )


async def ask_service(service: Service, case: Case, today: datetime.date) -> Outcome:
    """``case``'s outcome from ``service``: the one capability call every surface makes."""
    reply = await call(tuned(service, case, today), Capability.ASK_METRIC, case.question)
    outcome = outcome_of(reply)
    assert isinstance(outcome, Answer | Refused), outcome
    return outcome


async def ask(
    config_dir: Path, case: Case, today: datetime.date, extra: Mapping[str, str] | None = None
) -> Outcome:
    """Open the service configured in ``config_dir`` for ``case`` alone (its sources closed
    first when the case says so) and ask it."""
    async with serving(environ(config_dir, extra)) as service:
        if case.closed:
            for source in sources_of(service).values():
                await source.close()
        return await ask_service(service, case, today)


def add_pack_rows(database: Path) -> None:
    """Add :data:`PACK_ROWS` and :data:`PACK_TABLES` to the example database (before any
    engine copies it)."""
    with duckdb.connect(str(database)) as connection:
        connection.execute(PACK_ROWS)
        connection.execute(PACK_TABLES)


def oracle_rows(database: Path) -> dict[str, Rows]:
    """The rows of every oracle, by question name, read from the example database directly."""
    with duckdb.connect(str(database), read_only=True) as connection:
        connection.execute("SET TimeZone = 'UTC'")
        return {
            oracle.stem: [
                [cell_text(value) for value in row]
                for row in connection.execute(oracle.read_text(encoding="utf-8")).fetchall()
            ]
            for oracle in sorted(ORACLES.glob("*.sql"))
        }


def text_half_without_source(outcome: Outcome) -> list[str]:
    """The lines of the text half, but for the ``read from`` line that names the engine."""
    lines = halves_of(outcome).text.split("\n")
    if isinstance(outcome, Answer):
        assert sum(line.startswith(SOURCE_PREFIX) for line in lines) == 1
    return [line for line in lines if not line.startswith(SOURCE_PREFIX)]


def has_null_cell(outcome: Outcome) -> bool:
    """Whether an answer holds at least one SQL NULL."""
    return isinstance(outcome, Answer) and any(c is None for row in outcome.rows for c in row)


def expect_case(case: Case, outcome: Outcome, oracles: dict[str, Rows]) -> None:
    """``outcome`` is what ``case`` expects: an answer or the refusal, NULLs or none, and
    exactly its oracle's rows when it has one."""
    if case.expect == "answer":
        assert isinstance(outcome, Answer), outcome
    else:
        expect_refusal(outcome, RefusalCode(case.expect))
    assert has_null_cell(outcome) is case.nulls
    expected = oracles.get(case.name)
    if expected is not None:
        assert isinstance(outcome, Answer) and outcome.rows == expected, outcome


def _listed(question: dict[str, object], key: str) -> list[str]:
    values = question.get(key, [])
    assert isinstance(values, list)
    return [str(value) for value in values]


def several_metrics(case: Case) -> bool:
    """Whether ``case`` is answered with several metrics, one column each, and no ``top``
    (which cuts groups) or ``fill`` (which adds the groups of every metric)."""
    question = case.question
    alone = ("top", "compare", "window", "fill")
    return (
        case.expect == "answer"
        and len(_listed(question, "metrics")) > 1
        and not any(key in question for key in alone)
    )


async def expect_groups_of_each_metric_alone(
    ask_case: Callable[[Case], Awaitable[Outcome]], case: Case
) -> None:
    """Asked together, metrics answer exactly the groups (period and dimensions) that some of
    them answer alone, each metric with the value it has alone wherever it has one."""
    together = await ask_case(case)
    assert isinstance(together, Answer), together
    width = ("grain" in case.question) + len(_listed(case.question, "dimensions"))
    rows = {tuple(row[:width]): row for row in together.rows}
    assert len(rows) == len(together.rows)
    groups: set[tuple[str | None, ...]] = set()
    for index, metric in enumerate(_listed(case.question, "metrics")):
        question = {**case.question, "metrics": [metric]}
        alone = await ask_case(msgspec.structs.replace(case, question=question))
        assert isinstance(alone, Answer), alone
        for row in alone.rows:
            group = tuple(row[:width])
            assert group in rows, (metric, group)
            assert rows[group][width + index] == row[width], (metric, group)
            groups.add(group)
    assert set(rows) == groups


_BY_REGION: Final = {
    "metrics": ["revenue"],
    "grain": "year",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
    "dimensions": ["region", "segment"],
}


async def expect_values_asked_back(service: Service) -> None:
    """Every region an answer shows (a CHAR(n) column on PostgreSQL and Spark) is a value that
    may be asked back: filtered on it, the answer is that region's rows, none refused."""
    whole = outcome_of(await call(service, Capability.ASK_METRIC, _BY_REGION))
    assert isinstance(whole, Answer) and len(whole.rows) >= 8, whole
    for region in sorted({row[1] for row in whole.rows if row[1] is not None}):
        assert region in ("east", "north", "south", "west")
        asked = {**_BY_REGION, "filters": [{"op": "eq", "dimension": "region", "value": region}]}
        filtered = outcome_of(await call(service, Capability.ASK_METRIC, asked))
        assert isinstance(filtered, Answer), filtered
        assert filtered.rows == [row for row in whole.rows if row[1] == region]


async def extents_of(service: Service) -> dict[str, tuple[str, str] | None]:
    """Each metric's first and last day of data, as ``describe_catalog`` states them."""
    reply = await call(service, Capability.DESCRIBE_CATALOG, None)
    assert isinstance(reply, Answered), reply
    metrics = reply.halves.structured_object()["metrics"]
    return {
        m["name"]: None if "data" not in m else (m["data"]["first"], m["data"]["last"])
        for m in metrics
    }


async def expect_the_same_extents(first: Service, second: Service) -> None:
    """Both engines state where every metric's data is, and the same days (a derived metric's:
    both referents' together)."""
    on_first, on_second = await extents_of(first), await extents_of(second)
    assert on_first == on_second
    assert all(days is not None for days in on_first.values()), on_first
    assert on_first["revenue"] == ("2023-01-01", "2026-01-28")  # PACK_ROWS reach the 28th
    paid = on_first["active_customers"]
    assert paid is not None
    # revenue ÷ active customers: the days either has rows on
    assert on_first["revenue_per_active_customer"] == ("2023-01-01", max("2026-01-28", paid[1]))
