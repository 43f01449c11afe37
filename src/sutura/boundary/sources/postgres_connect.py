"""Connecting to PostgreSQL: the password, the connection parameters, the startup probe, the pool.

The password comes from an environment variable or a file, never from the settings document.
It is handed to the driver apart from the connection string, so no log line or error built
from the connection string can carry it.

Every pooled connection is configured once: autocommit (each answer opens its own ``BEGIN READ
ONLY`` and always ends in ``ROLLBACK``), ``default_transaction_read_only``, the catalog's time
zone (so date truncation never depends on the server's zone), a bound on idling inside a
transaction, and ``work_mem`` from the source's memory budget (:mod:`.postgres_memory`).
"""

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Final, NamedTuple

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from returns.result import Failure, Result, Success

from sutura.core.settings import PostgresSourceSettings

log = logging.getLogger("sutura.source")

Connection = psycopg.AsyncConnection[TupleRow]
Pool = AsyncConnectionPool[Connection]

CONNECT_TIMEOUT_SECONDS: Final = 10
POOL_CONNECT_SECONDS: Final = 5
"""How long a pooled connection may take to open (startup and authentication included). A
connection begun while the network is silent waits this long after the network is back before
it gives up and the pool tries again, so it bounds how soon questions answer again."""
# A pool gives up retrying a lost server after this long; the next question then tries anew.
_RECONNECT_SECONDS: Final = 5.0
_SSLMODES: Final = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
_SESSION: Final = sql.SQL(
    "SET default_transaction_read_only = on; SET TimeZone = {zone};"
    " SET idle_in_transaction_session_timeout = 60000; SET work_mem = {work_mem}"
)
_NO_SPILL: Final = sql.SQL("SET temp_file_limit = 0")
_ROLE: Final = "SELECT current_user, current_setting('is_superuser')"


def where(settings: PostgresSourceSettings) -> str:
    """``host:port/database``: how operator sentences name the server (never the password)."""
    return f"{settings.host}:{settings.port}/{settings.database}"


def read_password(
    settings: PostgresSourceSettings, base_dir: Path, environ: Mapping[str, str]
) -> Result[str | None, str]:
    """The password from ``password_env`` (looked up in ``environ``, the environment the
    composition root read) or ``password_file``; None when neither is set.

    A file's one trailing line break is not part of the password. A failure is a sentence that
    names the variable or the file, never the password.
    """
    if settings.password_env is not None and settings.password_file is not None:
        return Failure("set password_env or password_file, not both")
    if settings.password_env is not None:
        value = environ.get(settings.password_env)
        if value is None:
            return Failure(f"the environment variable {settings.password_env} is not set")
        return Success(value)
    if settings.password_file is None:
        return Success(None)
    path = Path(settings.password_file)
    path = path if path.is_absolute() else base_dir / path
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        log.error("cannot read the password file %s: %s", path, err)
        return Failure(f"cannot read the password file {path} (details in the log)")
    return Success(text.removesuffix("\n").removesuffix("\r"))


class Target(NamedTuple):
    """Where to connect: the connection string (no secret in it) and the password apart."""

    conninfo: str
    password: str | None


def target_of(
    alias: str, settings: PostgresSourceSettings, password: str | None
) -> Result[Target, str]:
    """The connection parameters, or a sentence naming a bad ``sslmode``."""
    if settings.sslmode not in _SSLMODES:
        return Failure(f"sslmode must be one of {', '.join(_SSLMODES)}")
    conninfo = make_conninfo(
        host=settings.host,
        port=settings.port,
        dbname=settings.database,
        user=settings.user,
        sslmode=settings.sslmode,
        connect_timeout=CONNECT_TIMEOUT_SECONDS,
        application_name=f"sutura {alias}",
    )
    return Success(Target(conninfo, password))


async def probe(alias: str, target: Target) -> str | None:
    """Connect once and look at the role; None, or the driver's complaint (for the log)."""
    try:
        connection = await psycopg.AsyncConnection.connect(
            target.conninfo, autocommit=True, password=target.password
        )
    except psycopg.Error as err:
        return str(err)
    try:
        cursor = await connection.execute(_ROLE)
        row = await cursor.fetchone()
    except psycopg.Error as err:
        return str(err)
    finally:
        await connection.close()
    if row is not None and row[1] == "on":
        log.warning(
            "source %s: the role %s is a superuser; read through a role that may only SELECT the"
            " catalog's tables (docs/sources.md)",
            alias,
            row[0],
        )
    return None


class PoolHealth:
    """Whether the pool's newest connection attempts failed after its last success.

    The pool retries a failed connection in the background with a growing delay; a question
    waiting for a connection meanwhile would wait out its whole deadline. This tells it early
    that the server cannot be reached.
    """

    def __init__(self, time_zone: str, work_mem_kb: int) -> None:
        self.pool: Pool | None = None
        self._session = _SESSION.format(
            zone=sql.Literal(time_zone), work_mem=sql.Literal(f"{work_mem_kb}kB")
        )
        self._errors_at_success = 0

    def _errors(self) -> int:
        return 0 if self.pool is None else self.pool.get_stats().get("connections_errors", 0)

    def unreachable(self) -> bool:
        """Whether a connection attempt failed since the last one that succeeded."""
        return self._errors() > self._errors_at_success

    async def configure(self, connection: Connection) -> None:
        """Configure a new pooled connection and record the success."""
        await connection.set_autocommit(True)
        await connection.execute(self._session)
        await _no_spill(connection)
        self._errors_at_success = self._errors()


async def _no_spill(connection: Connection) -> None:
    """``temp_file_limit = 0``: a statement past ``work_mem`` is refused (resources_exhausted),
    never spilled to temporary files. Only a superuser may set it per session; for another
    role the operator sets it on the role (docs/sources.md), and this is noted once a session."""
    try:
        await connection.execute(_NO_SPILL)
    except psycopg.errors.InsufficientPrivilege:
        log.info("source: temp_file_limit is the role's (set it to 0 on the role to never spill)")


async def open_pool(
    alias: str, settings: PostgresSourceSettings, target: Target, time_zone: str, work_mem_kb: int
) -> Result[tuple[Pool, PoolHealth], str]:
    """A bounded pool with its first connection open, or a sentence naming the server."""
    health = PoolHealth(time_zone, work_mem_kb)
    pool: Pool = AsyncConnectionPool(
        make_conninfo(target.conninfo, connect_timeout=POOL_CONNECT_SECONDS),
        kwargs=None if target.password is None else {"password": target.password},
        min_size=1,
        max_size=settings.pool_size,
        open=False,
        configure=health.configure,
        name=f"sutura {alias}",
        reconnect_timeout=_RECONNECT_SECONDS,
    )
    health.pool = pool
    try:
        await pool.open(wait=True, timeout=CONNECT_TIMEOUT_SECONDS)
    except (PoolTimeout, psycopg.Error) as err:
        log.error("source %s: the connection pool did not open: %s", alias, err)
        await pool.close()
        return Failure(f"cannot open connections to PostgreSQL at {where(settings)}")
    return Success((pool, health))
