"""One small catalog deployed on every source kind from one DuckDB file, for tests that ask the
same question of DuckDB, PostgreSQL and Spark through the Python API, as a program does.

The data is written to a DuckDB file; PostgreSQL gets a scratch database copied from it (its
reader role's password in the environment), Spark its tables loaded into the test server's
warehouse (table names are the test's own, so no two tests share one). The settings name the
source and a single-user identity; the catalog is the test's documents, one file each.
"""

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import anyio
import pytest

from sutura import api
from sutura.core.tool.capability import Capability
from tests.postgres import copy_from_duckdb, scratch_database
from tests.spark_server import load_tables
from tests.spark_server import require_server as require_spark

ENGINES: Final = (
    "duckdb",
    pytest.param("postgres", marks=pytest.mark.postgres),
    pytest.param("spark", marks=pytest.mark.spark),
)
"""The source kinds, as a fixture's params (``@pytest.fixture(params=ENGINES)``)."""

ASK_SECONDS: Final = 120.0

Deployed = tuple[Path, dict[str, str]]
"""The settings directory, and the environment it is read in."""

Rows = list[list[str | None]]

Asked = api.Outcome | api.QuestionError | api.Failed
"""What asking gives, as :func:`sutura.api.outcome_of` reads a reply."""


def write_settings(
    root: Path, documents: Mapping[str, str], version: str, source: Mapping[str, object]
) -> Path:
    """``root`` holding ``base.yaml`` (``source`` as ``main``) and a catalog of ``documents``
    (``<name>.md`` each)."""
    catalog = root / "catalog"
    catalog.mkdir(parents=True)
    for name, text in documents.items():
        (catalog / f"{name}.md").write_text(text, encoding="utf-8")
    settings = {
        "catalog": {"dir": "catalog", "version": version},
        "sources": {"main": dict(source)},
        "security": {"identity": "single-user", "single_user_because": "one user runs the tests"},
    }
    (root / "base.yaml").write_text(json.dumps(settings), encoding="utf-8")
    return root


@contextmanager
def deployed_on(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    data: Path,
    documents: Mapping[str, str],
    *,
    version: str,
    password_var: str,
    on_postgres: Callable[[str], None] | None = None,
    postgres_icu_locale: str | None = None,
    postgres_libc_locale: str | None = None,
    engine: str | None = None,
) -> Iterator[Deployed]:
    """``documents`` over the tables of the DuckDB file ``data``, on the engine ``engine``
    names (by default ``request.param``); ``on_postgres`` is given the scratch database's
    admin DSN once the tables are copied (to change a column's type, say);
    ``postgres_icu_locale`` collates the scratch database's text by that ICU locale
    (``en-US``), ``postgres_libc_locale`` by that libc locale (``C.UTF-8``)."""
    config = tmp_path / "config"
    match request.param if engine is None else engine:
        case "duckdb":
            yield (
                write_settings(config, documents, version, {"kind": "duckdb", "path": str(data)}),
                {},
            )
        case "spark":
            remote = require_spark()
            load_tables(data, remote)
            yield (
                write_settings(config, documents, version, {"kind": "spark", "remote": remote}),
                {},
            )
        case "postgres":
            dsn: str = request.getfixturevalue("postgres_dsn")
            with scratch_database(
                dsn, icu_locale=postgres_icu_locale, libc_locale=postgres_libc_locale
            ) as scratch:
                copy_from_duckdb(data, scratch, tmp_path)
                if on_postgres is not None:
                    on_postgres(scratch.admin_dsn)
                source = scratch.source_settings(password_var)
                yield (
                    write_settings(config, documents, version, source),
                    {password_var: scratch.reader_password},
                )
        case other:
            raise ValueError(f"no source kind {other!r}")


async def outcomes(deployed: Deployed, *questions: Mapping[str, object]) -> list[Asked]:
    """Each question's outcome, asked in turn of one service opened over ``deployed``."""
    config, environ = deployed
    found: list[Asked] = []
    with anyio.fail_after(ASK_SECONDS):
        async with api.opened(config, environ=environ, anchors=False) as started:
            for question in questions:
                answered = await api.call(started.unwrap(), Capability.ASK_METRIC, dict(question))
                found.append(api.outcome_of(answered))
    return found


def answer_of(outcome: Asked) -> api.Answer:
    """``outcome``, which must be an answer."""
    assert isinstance(outcome, api.Answer), outcome
    return outcome


async def answer_rows(deployed: Deployed, question: Mapping[str, object]) -> Rows:
    """The rows of the answer to ``question`` (the test fails on a refusal)."""
    (outcome,) = await outcomes(deployed, question)
    return [list(row) for row in answer_of(outcome).rows]
