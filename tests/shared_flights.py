"""A flights catalog of 10 metrics sharing 7 dimensions, written both ways, with its data.

The way a new user writes it without shared dimensions pastes every dimension into every
metric (a 105-value origin list and a 110-value destination list ten times over); the shared
way declares each once, on the model it belongs to (five on ``flights``, two on ``carriers``,
reached along ``flight_carrier``), and the metrics list none. The two catalogs mean the same:
same digests, same answers.
"""

import datetime
import json
from pathlib import Path
from typing import Final

import duckdb


def _codes(first: str, count: int) -> list[str]:
    """``count`` airport-like codes: ``first``, then two letters."""
    return [first + chr(65 + i // 26) + chr(65 + i % 26) for i in range(count)]


CARRIERS: Final = [chr(65 + i) + chr(90 - i) for i in range(16)]
ORIGINS: Final = _codes("O", 105)
DESTINATIONS: Final = _codes("D", 110)
ALLIANCES: Final = ["oneworld", "skyteam", "star"]
TOKEN: Final = "shared-flights-token-0123456789abcdef"

_FLIGHTS_MODEL = """\
---
kind: model
name: flights
source: main
table: flights
primary_key: flight_id
columns:
  - {{name: flight_id, type: INTEGER}}
  - {{name: flown_on, type: DATE}}
  - {{name: carrier, type: VARCHAR}}
  - {{name: origin, type: VARCHAR}}
  - {{name: dest, type: VARCHAR}}
  - {{name: distance, type: INTEGER}}
  - {{name: dep_delay, type: INTEGER}}
  - {{name: arr_delay, type: INTEGER}}
  - {{name: is_cancelled, type: BOOLEAN}}
{dimensions}---
One row per scheduled flight.
"""

_CARRIERS_MODEL = """\
---
kind: model
name: carriers
source: main
table: carriers
primary_key: code
columns:
  - {{name: code, type: VARCHAR}}
  - {{name: carrier_name, type: VARCHAR}}
  - {{name: alliance, type: VARCHAR}}
{dimensions}---
One row per airline.
"""

_RELATIONSHIP = """\
---
kind: relationship
name: flight_carrier
origin_model: flights
target_model: carriers
keys:
  - equal: {origin: carrier, target: code}
join_type: many_to_one
---
"""


def _flow(values: list[str]) -> str:
    return "[" + ", ".join(values) + "]"


# (name, what it reads, from which model, its description)
_FLIGHT_DIMENSIONS: Final = [
    ("carrier", f"column: carrier\n    values: {_flow(CARRIERS)}", "The airline's code."),
    ("origin", f"column: origin\n    values: {_flow(ORIGINS)}", "The airport flown from."),
    ("dest", f"column: dest\n    values: {_flow(DESTINATIONS)}", "The airport flown to."),
    (
        "distance_band",
        "expression: {buckets: {of: {column: distance}, edges: [500, 1500], "
        "labels: [short, medium, long]}}\n    type: text\n    values: [long, medium, short]",
        "Short, medium or long haul.",
    ),
    (
        "weekday",
        "expression: {day_of_week: {column: flown_on}}\n    type: integer",
        "The day of the week, 1 Monday to 7 Sunday.",
    ),
]
_CARRIER_DIMENSIONS: Final = [
    ("alliance", f"column: alliance\n    values: {_flow(ALLIANCES)}", "The airline's alliance."),
    ("carrier_name", "column: carrier_name", "The airline's name (group by only)."),
]

# (name, measure, prose)
_METRICS: Final = [
    ("flight_count", "simple: {aggregate: count, column: flight_id}", "Flights scheduled."),
    ("cancelled_flights", "simple: {count_if: is_cancelled}", "Flights cancelled."),
    ("total_distance", "simple: {aggregate: sum, column: distance}", "Miles scheduled."),
    ("mean_distance", "simple: {aggregate: avg, column: distance}", "Miles per flight."),
    ("mean_departure_delay", "simple: {aggregate: avg, column: dep_delay}", "Minutes late."),
    ("mean_arrival_delay", "simple: {aggregate: avg, column: arr_delay}", "Minutes late in."),
    ("worst_departure_delay", "simple: {aggregate: max, column: dep_delay}", "The worst delay."),
    ("carriers_flying", "simple: {aggregate: count_distinct, column: carrier}", "Airlines."),
    (
        "late_arrivals",
        "simple: {aggregate: count, where: {greater_than: [{column: arr_delay}, 15]}}",
        "Flights arriving over 15 minutes late.",
    ),
    (
        "cancellation_rate",
        "ratio:\n    numerator: {count_if: is_cancelled}\n"
        "    denominator: {aggregate: count, column: flight_id}\n"
        "    zero_denominator: yields_null",
        "Cancelled flights as a share of those scheduled.",
    ),
]


def _declared(dimensions: list[tuple[str, str, str]], via: str | None = None) -> str:
    """Dimensions as a ``dimensions:`` list (``via``: reached along that relationship)."""
    items = []
    for name, reads, description in dimensions:
        if via is not None and reads.startswith("column:"):
            column, *rest = reads.split("\n", 1)
            reads = "\n".join([column, f"    via: {via}", *rest])
        items.append(f"  - name: {name}\n    {reads}\n    description: {description}\n")
    return "dimensions:\n" + "".join(items)


def _metric(name: str, measure: str, prose: str, dimensions: str) -> str:
    return (
        f"---\nkind: metric\nname: {name}\nmodel: flights\nmeasure:\n  {measure}\n"
        f"time_column: flown_on\ngrains: [day, month, year]\n{dimensions}audience: open\n---\n"
        f"{prose}\n"
    )


def catalog_texts(*, shared: bool) -> dict[str, str]:
    """The catalog's documents by file name: dimensions per metric, or shared by the models."""
    if shared:
        models = {
            "flights.md": _FLIGHTS_MODEL.format(dimensions=_declared(_FLIGHT_DIMENSIONS)),
            "carriers.md": _CARRIERS_MODEL.format(dimensions=_declared(_CARRIER_DIMENSIONS)),
        }
        every = ""
    else:
        models = {
            "flights.md": _FLIGHTS_MODEL.format(dimensions=""),
            "carriers.md": _CARRIERS_MODEL.format(dimensions=""),
        }
        every = _declared(_FLIGHT_DIMENSIONS) + _declared(
            _CARRIER_DIMENSIONS, via="flight_carrier"
        ).removeprefix("dimensions:\n")
    metrics = {f"{n}.md": _metric(n, m, p, every) for n, m, p in _METRICS}
    return {**models, "flight_carrier.md": _RELATIONSHIP, **metrics}


def write_data(path: Path) -> None:
    """The flights of 2024 and their carriers, generated by integer arithmetic alone."""
    with duckdb.connect(str(path)) as connection:
        connection.execute(
            "CREATE TABLE carriers (code VARCHAR, carrier_name VARCHAR, alliance VARCHAR)"
        )
        connection.executemany(
            "INSERT INTO carriers VALUES (?, ?, ?)",
            [(c, f"Airline {c}", ALLIANCES[i % 3]) for i, c in enumerate(CARRIERS)],
        )
        connection.execute(
            "CREATE TABLE flights (flight_id INTEGER, flown_on DATE, carrier VARCHAR,"
            " origin VARCHAR, dest VARCHAR, distance INTEGER, dep_delay INTEGER,"
            " arr_delay INTEGER, is_cancelled BOOLEAN)"
        )
        rows = [
            (
                i,
                datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 366),
                CARRIERS[i % 16],
                ORIGINS[i % 105],
                DESTINATIONS[(i * 7) % 110],
                (i * 37) % 2500 + 100,
                (i * 13) % 90 - 10,
                (i * 17) % 100 - 20,
                i % 23 == 0,
            )
            for i in range(4000)
        ]
        connection.executemany("INSERT INTO flights VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)


def write_deployment(root: Path, *, shared: bool) -> Path:
    """A config dir: the catalog (``shared`` or per metric), the data and ``base.yaml``."""
    catalog = root / "catalog"
    catalog.mkdir(parents=True)
    for name, text in catalog_texts(shared=shared).items():
        (catalog / name).write_text(text, encoding="utf-8")
    write_data(root / "flights.duckdb")
    settings = {
        "catalog": {"dir": "catalog", "version": "flights-1"},
        "sources": {"main": {"kind": "duckdb", "path": "flights.duckdb"}},
        "security": {
            "identity": "single-user",
            "single_user_because": "one user runs the tests",
            "access_token": TOKEN,
        },
    }
    (root / "base.yaml").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    return root
