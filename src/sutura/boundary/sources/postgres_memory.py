"""PostgreSQL memory: each session's ``work_mem`` from the source's memory budget, and the check
at startup that a session can sort a modest result where the server refuses to spill.

sutura's sessions never spill a sort or a hash to temporary files when the role says
``temp_file_limit = 0`` (docs/sources.md): a statement past ``work_mem`` is refused
(``resources_exhausted``). PostgreSQL's own default, 4 MB, cannot sort the rows of a yearly
question over a few hundred thousand rows, so every session sutura opens sets ``work_mem`` to
``sources.<alias>.memory_budget`` divided by twice ``pool_size``: room for one hash (which
PostgreSQL gives ``hash_mem_multiplier`` × ``work_mem``, 2 × by default) or two sorts at once in
every pooled session. 512MB over 4 connections is 64MB each.

Where spilling is bounded (``temp_file_limit`` is not ``-1``), opening the source then sorts
:data:`PROBE_ROWS` generated rows in a session as it is configured, and a refusal there stops
startup with a sentence naming both settings: ``sutura check`` and ``sutura doctor`` say so
before any question is refused.
"""

import logging
import re
from typing import Final

import psycopg
from psycopg import sql
from returns.result import Failure, Result, Success

from sutura.boundary.sources.postgres_connect import Pool
from sutura.core.nouns.setting_keys import key_path
from sutura.core.settings import PostgresSourceSettings

log = logging.getLogger("sutura.source")

SMALLEST_WORK_MEM_KB: Final = 64
"""PostgreSQL's smallest ``work_mem``."""
PROBE_ROWS: Final = 100_000
"""A modest result: what a session must sort in memory (about 8 MB at PostgreSQL 15)."""

_SIZE: Final = re.compile(r"([1-9][0-9]*)(kB|MB|GB|TB)")
_KB: Final = {"kB": 1, "MB": 1024, "GB": 1024**2, "TB": 1024**3}
_SETTINGS: Final = "SELECT current_setting('work_mem'), current_setting('temp_file_limit')"
_PROBE: Final = sql.SQL(
    "SELECT count(*) FROM (SELECT DATE '2024-01-01' + g % 366 AS d, 'c' || g % 100 AS c"
    " FROM generate_series(1, {rows}) AS g ORDER BY 1, 2 OFFSET 0) AS s"
).format(rows=sql.Literal(PROBE_ROWS))
_PROBE_SECONDS: Final = 10


def work_mem_kb(alias: str, settings: PostgresSourceSettings) -> Result[int, str]:
    """Each pooled session's ``work_mem`` in kB, or a sentence naming the setting.

    >>> work_mem_kb("main", PostgresSourceSettings()).unwrap()
    65536
    >>> print(work_mem_kb("main", PostgresSourceSettings(memory_budget="256kB")).failure())
    sources.main.memory_budget: 256kB leaves each of 4 connections less than PostgreSQL's \
smallest work_mem (64kB); give at least 512kB
    """
    budget = settings.memory_budget
    key = key_path("sources", alias, "memory_budget")
    found = _SIZE.fullmatch(budget)
    if found is None:
        return Failure(f"{key}: expected a size such as 512MB")
    share = int(found[1]) * _KB[found[2]] // (2 * settings.pool_size)
    if share < SMALLEST_WORK_MEM_KB:
        least = 2 * settings.pool_size * SMALLEST_WORK_MEM_KB
        return Failure(
            f"{key}: {budget} leaves each of {settings.pool_size}"
            f" connections less than PostgreSQL's smallest work_mem"
            f" ({SMALLEST_WORK_MEM_KB}kB); give at least {least}kB"
        )
    return Success(share)


async def memory_problem(alias: str, pool: Pool) -> str | None:
    """Why a session of ``pool`` cannot sort a modest result, or None.

    Only where the server refuses to spill past a bound: with ``temp_file_limit = -1`` a large
    sort is slow, never refused. A probe that fails for any other reason is logged, not held
    against the source (the questions will say what is wrong).
    """
    async with pool.connection() as connection:
        cursor = await connection.execute(_SETTINGS)
        row = await cursor.fetchone()
        if row is None or row[1] == "-1":
            return None
        work_mem, temp_file_limit = row
        try:
            async with connection.transaction():
                await connection.execute(
                    sql.SQL("SET LOCAL statement_timeout = {}").format(
                        sql.Literal(f"{_PROBE_SECONDS}s")
                    )
                )
                await connection.execute(_PROBE)
        except psycopg.Error as error:
            if not (error.sqlstate or "").startswith("53"):
                log.warning("source %s: the memory check did not run: %s", alias, error)
                return None
            log.error("source %s: the memory check was refused: %s", alias, error)
            return (
                f"source {alias}: a session cannot sort {PROBE_ROWS:,} rows in memory"
                f" (work_mem {work_mem}, temp_file_limit {temp_file_limit}), so ordinary"
                f" questions would be refused resources_exhausted; raise"
                f" {key_path('sources', alias, 'memory_budget')}, or the role's temp_file_limit"
                " (docs/sources.md)"
            )
    return None
