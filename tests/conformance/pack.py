"""The conformance pack: example questions as data, asked of a running service per engine.

``questions.json`` holds named question documents, each with the outcome it must have (``answer``
or a refusal code), optional limits to run it under, and whether the source is closed first.
Every question goes through the real startup path (settings document, catalog, source, anchors)
and the real :class:`Service`; only the clock is fixed, so ``range.last`` has one meaning.

The example's rows end on 2025-12-31. :data:`PACK_ROWS` adds a few orders in January 2026 that
the generator never writes: a NULL status, a group whose only order is cancelled and unpaid, a
NULL amount, a Sunday, a missing customer, ties, and a week without orders. No anchor reads
them. ``oracles/<question name>.sql`` is the answer a question must have, written as plain
DuckDB SQL over the example's tables, independently of the compiler; each engine's answer must
equal its rows.
"""

import datetime
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

import duckdb
import msgspec

from sutura.api import outcome_of
from sutura.boundary.service import Service
from sutura.core.nouns.answer import Answer, Outcome, Refused
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.sql.cells import cell_text
from sutura.core.text.render import SOURCE_PREFIX
from sutura.core.tool.capability import Capability
from sutura.core.tool.codec import halves_of
from tests.refusals import expect_refusal
from tests.services import call, serving

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
    (1000009, 7,    DATE '2026-01-26', 7.00,  NULL,        'store', false, false)
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


def tuned(service: Service, case: Case, today: datetime.date) -> Service:
    """``service`` under the case's limits and the pack's fixed ``today``, on the same sources."""
    settings = service.settings
    limits = msgspec.structs.replace(settings.limits, **case.limits)
    return Service(
        settings=msgspec.structs.replace(settings, limits=limits),
        pinned=service.pinned,
        sources=service.sources,
        runner=None,
        offered=frozenset({Capability.ASK_METRIC}),
        today=lambda: today,
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
            for source in service.sources.values():
                await source.close()
        return await ask_service(service, case, today)


def add_pack_rows(database: Path) -> None:
    """Add :data:`PACK_ROWS` to the example database (before any engine copies it)."""
    with duckdb.connect(str(database)) as connection:
        connection.execute(PACK_ROWS)


def oracle_rows(database: Path) -> dict[str, Rows]:
    """The rows of every oracle, by question name, read from the example database directly."""
    with duckdb.connect(str(database), read_only=True) as connection:
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
    width = 1 + len(_listed(case.question, "dimensions"))
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
