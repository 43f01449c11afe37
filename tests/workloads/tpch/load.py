"""Generated TPC-H files into DuckDB, the first copy the other engines are loaded from."""

from pathlib import Path

from tests.workloads.engines import OnDuckDB
from tests.workloads.loading import build_duckdb
from tests.workloads.tpch.schema import SCHEMA, TABLES


def build(database: Path, files: Path) -> OnDuckDB:
    """A DuckDB file with the eight tables in :data:`SCHEMA`, from ``<files>/<table>.parquet``."""
    selects = {
        t.name: f"SELECT {', '.join(c.name for c in t.columns)}"
        f" FROM read_parquet('{files / f'{t.name}.parquet'}')"
        for t in TABLES
    }
    return build_duckdb(database, SCHEMA, TABLES, selects)
