"""A wall time the catalog's time zone skips or repeats means one instant on DuckDB, PostgreSQL
and Spark, through the Python API (docs/semantics.md "Wall times and zone transitions").

Over a ``TIMESTAMPTZ`` column, a timestamp constant (a caller's filter value, a catalog's
``{timestamp: …}``) is a wall time read in ``catalog.time_zone``. One the zone repeats (New York,
2024-11-03 01:30) is its earlier instant; one the zone skips (New York, 2024-03-10 02:30) is
shifted forward by the gap (03:30 EDT), as Python's ``zoneinfo`` (``fold=0``) and java.time
read them. A range's day starts at the first instant of that day, also where the zone skips
midnight (Santiago 2024-09-08, Havana 2024-03-10) or repeats it (Havana 2024-11-03), so a
range holds exactly the rows its days bucket.

Each row's units are a power of two, so a sum names the rows it counted; what an answer must
hold is computed here from ``zoneinfo``.
"""

import datetime
import zoneinfo
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import anyio
import duckdb
import pytest

from sutura import api
from sutura.core.catalog.view.catalog import CatalogBody, CatalogData
from sutura.core.tool.capability import Capability
from tests.engines import ASK_SECONDS, ENGINES, Asked, Deployed, deployed_on, outcomes

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_ZONE_TRANSITIONS_TEST_PASSWORD"
ZONE_VAR: Final = "SUTURA__CATALOG__TIME_ZONE"
UTC: Final = datetime.UTC
# Instants (UTC) on either side of each transition; row i holds 2**i units.
INSTANTS: Final = (
    # New York springs forward at 07:00 UTC on 2024-03-10 (02:00 EST -> 03:00 EDT).
    "2024-03-10 06:30",
    "2024-03-10 07:00",
    "2024-03-10 07:30",
    # New York falls back at 06:00 UTC on 2024-11-03 (02:00 EDT -> 01:00 EST).
    "2024-11-03 05:30",
    "2024-11-03 06:00",
    "2024-11-03 06:30",
    # Santiago skips midnight at 04:00 UTC on 2024-09-08 (00:00 -04 -> 01:00 -03).
    "2024-09-08 03:30",
    "2024-09-08 04:00",
    # Havana repeats midnight from 05:00 UTC on 2024-11-03 (01:00 CDT -> 00:00 CST).
    "2024-11-03 03:30",
    "2024-11-03 04:30",
    # Havana skips midnight at 05:00 UTC on 2024-03-10 (00:00 CST -> 01:00 CDT).
    "2024-03-10 04:30",
    "2024-03-10 05:00",
)
ROWS: Final = "CREATE TABLE zone_events (happened_at TIMESTAMPTZ, local_at TIMESTAMP, units BIGINT)"
MODEL: Final = """---
kind: model
name: zone_events
source: main
table: zone_events
columns:
  - {name: happened_at, type: TIMESTAMPTZ}
  - {name: local_at, type: TIMESTAMP_NTZ}
  - {name: units, type: BIGINT}
---
"""
METRIC: Final = """---
kind: metric
name: units
model: zone_events
measure:
  simple: {aggregate: sum, column: units}
time_column: happened_at
grains: [day]
dimensions:
  - {name: moment, column: happened_at}
  - {name: wall, column: local_at}
  - name: moment_or_gap
    expression: {coalesce: [{column: happened_at}, {timestamp: "2024-03-10 02:30"}]}
    type: timestamp
  - name: counted_moment
    expression:
      case:
        - {when: {greater_than: [{column: units}, 0]}, then: {column: happened_at}}
        - {else: {timestamp: "2024-03-10 02:30"}}
    type: timestamp
audience: open
---
"""
GAP: Final = "2024-03-10 02:30"
FOLD: Final = "2024-11-03 01:30"
# Metrics whose expressions compare the zoned column with a constant New York skips or repeats.
CONSTANTS: Final = {
    f"since_{name}": f"""---
kind: metric
name: since_{name}
model: zone_events
measure:
  simple:
    aggregate: sum
    of: {{column: units}}
    where: {{at_least: [{{column: happened_at}}, {{timestamp: "{wall}"}}]}}
time_column: happened_at
grains: [day]
dimensions: []
audience: open
---
"""
    for name, wall in (("gap", GAP), ("fold", FOLD))
}
# Counted before Havana's midnight of 2024-11-03, which it repeats: the earlier, 04:00 UTC.
BEFORE_MIDNIGHT: Final = """---
kind: metric
name: before_midnight
model: zone_events
measure:
  simple: {aggregate: sum, column: units}
required_filters:
  - {less_than: [{column: happened_at}, {timestamp: "2024-11-03 00:00"}]}
time_column: happened_at
grains: [day]
dimensions: []
audience: open
---
"""
# Metrics whose required filter is an older form, {equals: {column, value}}, on the zoned
# column: its value is a wall time too, read by the same rule.
OLDER: Final = {
    f"{form}_{name}": f"""---
kind: metric
name: {form}_{name}
model: zone_events
measure:
  simple: {{aggregate: sum, column: units}}
required_filters:
  - {form}: {{column: happened_at, value: "{wall}"}}
time_column: happened_at
grains: [day]
dimensions: []
audience: open
---
"""
    for form in ("equals", "not_equals")
    for name, wall in (("gap", GAP), ("fold", FOLD))
}
DOCUMENTS: Final = {
    "zone_events": MODEL,
    "units": METRIC,
    "before_midnight": BEFORE_MIDNIGHT,
    **CONSTANTS,
    **OLDER,
}
WHOLE_YEAR: Final = {"start": "2024-01-01", "end": "2025-01-01"}


def _instant(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text).replace(tzinfo=UTC)


def _wall(text: str, zone: str) -> datetime.datetime:
    """The instant a wall time means in ``zone``: the earlier of two (``fold=0``), or shifted
    forward by the gap where the zone skips it."""
    local = datetime.datetime.fromisoformat(text).replace(tzinfo=zoneinfo.ZoneInfo(zone))
    return local.astimezone(UTC)


def _units(keep: "Iterator[bool] | list[bool]") -> str:
    return str(sum(2**i for i, kept in enumerate(keep) if kept))


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "zones.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute("SET TimeZone = 'UTC'")
        connection.execute(ROWS)
        for i, instant in enumerate(INSTANTS):
            connection.execute(
                "INSERT INTO zone_events VALUES (?::TIMESTAMPTZ, ?::TIMESTAMP, ?)",
                [f"{instant}+00", instant, 2**i],
            )
    with deployed_on(
        request, tmp_path, data, DOCUMENTS, version="zones-1", password_var=PASSWORD_VAR
    ) as found:
        yield found


def _in(deployed: Deployed, zone: str) -> Deployed:
    config, environ = deployed
    return config, {**environ, ZONE_VAR: zone}


def _rows(outcome: Asked) -> list[list[str | None]]:
    assert isinstance(outcome, api.Answer), outcome
    return [list(row) for row in outcome.rows]


def _filtered(op: str, wall: str) -> dict[str, object]:
    return {
        "metrics": ["units"],
        "range": WHOLE_YEAR,
        "filters": [{"dimension": "moment", "op": op, "value": wall}],
    }


async def test_a_wall_time_new_york_skips_or_repeats_is_one_instant_on_every_engine(
    deployed: Deployed,
) -> None:
    zone = "America/New_York"
    asked = [_filtered(op, wall) for wall in (GAP, FOLD) for op in ("eq", "ge", "lt")]
    constants = {"metrics": list(CONSTANTS), "range": WHOLE_YEAR}
    answered = await outcomes(_in(deployed, zone), *asked, constants)
    instants = [_instant(text) for text in INSTANTS]
    expected: list[list[list[str | None]]] = []
    for wall in (GAP, FOLD):
        at = _wall(wall, zone)
        expected.append([[_units([i == at for i in instants])]])
        expected.append([[_units([i >= at for i in instants])]])
        expected.append([[_units([i < at for i in instants])]])
    since: list[str | None] = [_units([i >= _wall(w, zone) for i in instants]) for w in (GAP, FOLD)]
    expected.append([since])
    assert [_rows(outcome) for outcome in answered] == expected


def _days(zone: str, start: str, end: str) -> list[list[str | None]]:
    """Each day of ``[start, end)`` that holds a row, with its units, as ``zoneinfo`` buckets
    the rows in ``zone``."""
    first, last = datetime.date.fromisoformat(start), datetime.date.fromisoformat(end)
    days: dict[str, int] = {}
    for i, text in enumerate(INSTANTS):
        day = _instant(text).astimezone(zoneinfo.ZoneInfo(zone)).date()
        if first <= day < last:
            days[day.isoformat()] = days.get(day.isoformat(), 0) + 2**i
    return [[day, str(units)] for day, units in sorted(days.items())]


RANGES: Final = (
    ("America/Santiago", "2024-09-07", "2024-09-08"),
    ("America/Santiago", "2024-09-08", "2024-09-09"),
    ("America/Havana", "2024-11-02", "2024-11-03"),
    ("America/Havana", "2024-11-03", "2024-11-04"),
    ("America/Havana", "2024-03-09", "2024-03-10"),
    ("America/Havana", "2024-03-10", "2024-03-11"),
    ("America/New_York", "2024-03-10", "2024-03-11"),
    ("America/New_York", "2024-11-03", "2024-11-04"),
)


@pytest.mark.parametrize(("zone", "start", "end"), RANGES)
async def test_a_day_the_zone_skips_or_repeats_midnight_of_starts_at_its_first_instant(
    deployed: Deployed, zone: str, start: str, end: str
) -> None:
    question = {"metrics": ["units"], "grain": "day", "range": {"start": start, "end": end}}
    (answered,) = await outcomes(_in(deployed, zone), question)
    assert _rows(answered) == _days(zone, start, end)


async def test_a_wall_time_compared_with_a_column_without_a_zone_stays_a_wall_time(
    deployed: Deployed,
) -> None:
    # ``local_at`` holds each instant's UTC wall time, without a zone: a filter compares wall
    # times as they are written, in whichever zone the catalog is read.
    walls = [datetime.datetime.fromisoformat(text) for text in INSTANTS]
    asked = [
        {
            "metrics": ["units"],
            "range": WHOLE_YEAR,
            "filters": [{"dimension": "wall", "op": op, "value": wall}],
        }
        for wall in (GAP, FOLD, "2024-11-03 05:30")
        for op in ("eq", "ge")
    ]
    answered = await outcomes(_in(deployed, "America/New_York"), *asked)
    expected: list[list[list[str | None]]] = []
    for text in (GAP, FOLD, "2024-11-03 05:30"):
        at = datetime.datetime.fromisoformat(text)
        expected.append([[_units([w == at for w in walls])]] if at in walls else [])
        expected.append([[_units([w >= at for w in walls])]])
    assert [_rows(outcome) for outcome in answered] == expected


async def test_a_catalog_constant_the_zone_repeats_bounds_the_data_a_metric_states(
    deployed: Deployed,
) -> None:
    # Where a metric's data is (its first and last day) is found by a statement of its own,
    # which reads the constant of its required filter by the same rule as a question.
    zone = "America/Havana"
    config, environ = _in(deployed, zone)
    before = _wall("2024-11-03 00:00", zone)
    days = [
        _instant(text).astimezone(zoneinfo.ZoneInfo(zone)).date().isoformat()
        for text in INSTANTS
        if _instant(text) < before
    ]
    question = {"metrics": ["before_midnight"], "range": WHOLE_YEAR}
    with anyio.fail_after(ASK_SECONDS):
        async with api.opened(config, environ=environ, anchors=False) as started:
            service = started.unwrap()
            reply = await api.call(service, Capability.DESCRIBE_CATALOG, None)
            answered = api.outcome_of(await api.call(service, Capability.ASK_METRIC, question))
    assert isinstance(reply, api.Answered) and isinstance(reply.value, CatalogBody), reply
    (stated,) = [m.data for m in reply.value.metrics if m.name == "before_midnight"]
    assert isinstance(stated, CatalogData), stated
    assert (stated.first, stated.last) == (min(days), max(days))
    assert stated.last == "2024-11-02"
    units = _units([_instant(text) < before for text in INSTANTS])
    assert _rows(answered) == [[units]]


@pytest.mark.parametrize("dimension", ["moment_or_gap", "counted_moment"])
async def test_a_wall_time_compared_with_an_instant_chosen_by_an_expression_is_one_instant(
    deployed: Deployed, dimension: str
) -> None:
    # Every row has a time and units: each dimension is the row's instant, chosen beside a
    # timestamp constant, which is an instant too.
    zone = "America/New_York"
    asked = [
        {
            "metrics": ["units"],
            "range": WHOLE_YEAR,
            "filters": [{"dimension": dimension, "op": op, "value": FOLD}],
        }
        for op in ("eq", "ge")
    ]
    answered = await outcomes(_in(deployed, zone), *asked)
    instants = [_instant(text) for text in INSTANTS]
    at = _wall(FOLD, zone)
    assert [_rows(outcome) for outcome in answered] == [
        [[_units([i == at for i in instants])]],
        [[_units([i >= at for i in instants])]],
    ]


async def test_an_older_equals_on_an_instant_reads_its_wall_time_by_the_same_rule(
    deployed: Deployed,
) -> None:
    # {equals: {column, value}} binds its value as text, which PostgreSQL and DuckDB would read
    # as the later of the two instants New York repeats: on a zoned column, it is the one
    # instant a typed constant is.
    zone = "America/New_York"
    asked = [{"metrics": [name], "range": WHOLE_YEAR} for name in OLDER]
    answered = await outcomes(_in(deployed, zone), *asked)
    instants = [_instant(text) for text in INSTANTS]
    expected: list[list[list[str | None]]] = []
    for equal in (True, False):
        for wall in (GAP, FOLD):
            at = _wall(wall, zone)
            expected.append([[_units([(i == at) == equal for i in instants])]])
    assert [_rows(outcome) for outcome in answered] == expected
