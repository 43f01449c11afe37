"""One example catalog and dataset, served by DuckDB and by PostgreSQL (a customer's region and
segment there as CHAR(n)), for the whole session."""

import json
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import NamedTuple

import psycopg
import pytest

from sutura.boundary.example import CATALOG, DATABASE, write_example
from sutura.boundary.service import Service
from sutura.core.sql.cells import cell_text
from tests.conformance.pack import (
    EXTRA_CATALOG,
    ORACLES,
    Rows,
    add_pack_rows,
    environ,
    oracle_rows,
)
from tests.postgres import copy_from_duckdb, scratch_database
from tests.services import serving

PASSWORD_VAR = "SUTURA_CONFORMANCE_PASSWORD"
# A customer's region and segment as CHAR(n), which PostgreSQL pads with blanks (TPC-H's DDL
# writes its names so): every answer must still equal DuckDB's, which has no such type.
FIXED_LENGTH = (
    "ALTER TABLE customers ALTER COLUMN sales_region TYPE char(8),"
    " ALTER COLUMN customer_segment TYPE char(12)",
)
ORDERS = 20_000


class Engines(NamedTuple):
    """The settings directory of each engine (both serve the same catalog and rows), and the
    rows each oracle reads from them, by question name."""

    duckdb: Path
    postgres: Path
    postgres_environ: dict[str, str]
    """What the PostgreSQL deployment reads besides its settings: its reader's password."""
    oracles: dict[str, Rows]
    postgres_oracles: dict[str, Rows]
    """The rows of each portable oracle (:data:`PORTABLE`), computed by PostgreSQL itself."""


PORTABLE = "semi_"
"""The oracles written in SQL both engines run alike (their names begin so)."""


def _postgres_oracles(admin_dsn: str) -> dict[str, Rows]:
    """Each portable oracle run on the PostgreSQL copy, its cells in sutura's canonical text."""
    found: dict[str, Rows] = {}
    with psycopg.connect(admin_dsn, autocommit=True) as connection:
        connection.execute("SET TIME ZONE 'UTC'")
        for oracle in sorted(ORACLES.glob(f"{PORTABLE}*.sql")):
            rows = connection.execute(oracle.read_text(encoding="utf-8")).fetchall()
            found[oracle.stem] = [[cell_text(value) for value in row] for row in rows]
    return found


def _settings(directory: Path, catalog: Path, source: dict[str, object]) -> Path:
    """Write ``base.yaml`` (JSON is YAML) naming the catalog and the one source ``main``."""
    directory.mkdir()
    document = {
        "catalog": {"dir": str(catalog), "version": "example-1"},
        "sources": {"main": source},
        "security": {"identity": "single-user", "single_user_because": "one user runs the tests"},
    }
    (directory / "base.yaml").write_text(json.dumps(document, indent=2), encoding="utf-8")
    return directory


@pytest.fixture(scope="session")
def engines(tmp_path_factory: pytest.TempPathFactory, postgres_dsn: str) -> Iterator[Engines]:
    """The example and the pack's extra metrics, in DuckDB and in a scratch PostgreSQL."""
    root = tmp_path_factory.mktemp("conformance")
    write_example(root / "example", orders=ORDERS)
    catalog = root / "example" / CATALOG
    for document in sorted(EXTRA_CATALOG.glob("*.md")):
        shutil.copy(document, catalog / document.name)
    database = root / "example" / DATABASE
    add_pack_rows(database)
    oracles = oracle_rows(database)
    with scratch_database(postgres_dsn) as scratch:
        copy_from_duckdb(database, scratch, root)
        with psycopg.connect(scratch.admin_dsn, autocommit=True) as admin:
            for statement in FIXED_LENGTH:
                admin.execute(statement)
        postgres = scratch.source_settings(PASSWORD_VAR, pool_size=2)
        yield Engines(
            duckdb=_settings(root / "duckdb", catalog, {"kind": "duckdb", "path": str(database)}),
            postgres=_settings(root / "postgres", catalog, postgres),
            postgres_environ={PASSWORD_VAR: scratch.reader_password},
            oracles=oracles,
            postgres_oracles=_postgres_oracles(scratch.admin_dsn),
        )


class Served(NamedTuple):
    """Each engine's service, opened once for the module (questions never change them)."""

    duckdb: Service
    postgres: Service


@pytest.fixture(scope="module")
async def served(engines: Engines) -> AsyncIterator[Served]:
    """Both engines' services, through the real startup path, shared by the questions."""
    async with (
        serving(environ(engines.duckdb)) as on_duckdb,
        serving(environ(engines.postgres, engines.postgres_environ)) as on_postgres,
    ):
        yield Served(duckdb=on_duckdb, postgres=on_postgres)
