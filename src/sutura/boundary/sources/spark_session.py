"""Connecting to Spark Connect: the address, the token, the pinned session and the driver's logs.

The token comes from the environment variable named by ``token_env``, never from the settings
document: a ``token=`` inside ``remote`` is refused. It is handed to the channel builder apart
from the address, so no operator sentence or log line built from the address can carry it.

Every session is pinned the same way: the catalog's time zone (truncating a timestamp to its
period never depends on the cluster's zone), ANSI mode (an overflowing sum is an error, never a
NULL), adaptive execution off (an interrupt then stops every job of the statement), and a
short, bounded retry of a lost connection (the client's own default waits for minutes).

The client's loggers write to stderr on their own, JSON lines carrying the statement and the
JVM stack trace; they are silenced unless ``sutura.source`` logs at DEBUG (``--verbose``).
"""

import functools
import logging
import threading
import warnings
from collections.abc import Callable, Mapping
from typing import Final

from pyspark.errors import PySparkException
from pyspark.logger import PySparkLogger
from pyspark.sql.connect.client import DefaultChannelBuilder
from pyspark.sql.connect.client.retries import DefaultPolicy
from pyspark.sql.connect.session import SparkSession
from returns.result import Failure, Result, Success

from sutura.core.settings import SparkSourceSettings

log = logging.getLogger("sutura.source")

TIME_ZONE_KEY: Final = "spark.sql.session.timeZone"
# Adaptive execution is off: it submits a shuffle's map stage from its own thread, and one
# submitted just after an interrupt ended the operation was seen to run on for good, holding the
# executors (a cancelled job tag does not stop a job that comes later). Without it, every job
# of a statement is submitted by the operation's thread, so its interrupt stops them all.
SESSION_CONF: Final = {"spark.sql.ansi.enabled": "true", "spark.sql.adaptive.enabled": "false"}
MINIMUM_VERSION: Final = (3, 5)  # positional parameters bound by spark.sql(sql, args=[...])
_RETRIES: Final = 3
_MAX_BACKOFF_MS: Final = 1000
_USER_AGENT: Final = "sutura"
# Loggers of the client that write on their own; the two query-context loggers are the
# client's own logger class and must be created through it.
_PLAIN_LOGGERS: Final = ("pyspark", "py4j", "grpc")
_CLIENT_LOGGERS: Final = (
    "SQLQueryContextLogger",
    "DataFrameQueryContextLogger",
    "pyspark.sql.connect.logging",
)

Connect = Callable[[], SparkSession]
"""Opens a new, pinned session with the source's address and token."""


def where(settings: SparkSourceSettings) -> str:
    """``sc://host:port`` of the settings: how operator sentences name the server."""
    try:
        return f"sc://{DefaultChannelBuilder(settings.remote).endpoint}"
    except PySparkException:
        return "the configured remote"


def connector(
    settings: SparkSourceSettings, environ: Mapping[str, str], time_zone: str
) -> Result[Connect, str]:
    """How to open sessions, or a sentence naming the bad address or the missing variable."""
    try:
        probe = DefaultChannelBuilder(settings.remote)
    except PySparkException:
        return Failure("remote: not a Spark Connect address (sc://host:port[/;param=value])")
    if probe.getDefault(DefaultChannelBuilder.PARAM_TOKEN, None) is not None:
        return Failure("remote: holds a token; put it in the variable named by token_env")
    token: str | None = None
    if settings.token_env is not None:
        token = environ.get(settings.token_env)
        if not token:
            return Failure(f"token_env: the environment variable {settings.token_env} is not set")
    return Success(functools.partial(_new_session, settings.remote, token, time_zone))


def _new_session(remote: str, token: str | None, time_zone: str) -> SparkSession:
    """A new session on its own channel, pinned to the time zone and ANSI, bounded retries."""
    builder = DefaultChannelBuilder(remote)
    builder.set(DefaultChannelBuilder.PARAM_USER_AGENT, _USER_AGENT)
    if token is not None:
        builder.set(DefaultChannelBuilder.PARAM_TOKEN, token)
    session = SparkSession.builder.channelBuilder(builder).create()
    try:
        session.client.set_retry_policies(
            [DefaultPolicy(max_retries=_RETRIES, max_backoff=_MAX_BACKOFF_MS)]
        )
        for key, value in {**SESSION_CONF, TIME_ZONE_KEY: time_zone}.items():
            session.conf.set(key, value)
    except BaseException:
        session.stop()
        raise
    return session


def version_problem(version: str) -> str | None:
    """Why a server's version cannot serve sutura, or None.

    >>> version_problem("4.0.1") is None, version_problem("3.4.3")
    (True, 'Spark 3.4.3 is older than 3.5, the first to bind parameters')
    """
    try:
        found = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return f"the server reports an unknown Spark version {version!r}"
    if found < MINIMUM_VERSION:
        return f"Spark {version} is older than 3.5, the first to bind parameters"
    return None


class Sessions:
    """The one session of a source; renewed once when the server has forgotten it."""

    def __init__(self, connect: Connect, session: SparkSession) -> None:
        self._connect = connect
        self._session: SparkSession | None = session
        self._lock = threading.Lock()

    def current(self) -> SparkSession | None:
        """The session, or None once closed."""
        with self._lock:
            return self._session

    def renew(self, stale: SparkSession) -> SparkSession | None:
        """A fresh session in place of ``stale`` (runs in a worker thread); None once closed."""
        with self._lock:
            if self._session is stale:
                _stop_quietly(stale)
                self._session = self._connect()
            return self._session

    def close(self) -> None:
        """Stop the session; later calls of :meth:`current` return None."""
        with self._lock:
            session, self._session = self._session, None
        if session is not None:
            _stop_quietly(session)


def _stop_quietly(session: SparkSession) -> None:
    """Release the session on the server and close its channel; a failure is only logged."""
    try:
        session.stop()
    except PySparkException as err:
        log.debug("source: stopping a Spark session failed: %s", err)


class _ClientLogger(PySparkLogger):
    """The client's logger class, except that adding a handler leaves the handler's formatter
    alone: the client's own class rewrites it to JSON, and whoever attaches a handler to a
    logger that does not propagate (pytest does) would find every other record in JSON too."""

    def addHandler(self, handler: logging.Handler) -> None:  # noqa: N802 (logging's name)
        logging.Logger.addHandler(self, handler)


def quiet_driver_logs() -> None:
    """Silence the client's own loggers and retry warnings unless ``sutura.source`` is verbose."""
    verbose = log.isEnabledFor(logging.DEBUG)
    for name in _PLAIN_LOGGERS:
        logging.getLogger(name).disabled = not verbose
    for name in _CLIENT_LOGGERS:
        client_logger = PySparkLogger.getLogger(name)
        client_logger.__class__ = _ClientLogger
        client_logger.disabled = not verbose
    _ignore_retry_warnings()


@functools.cache
def _ignore_retry_warnings() -> None:
    # The client warns on stderr when its retries run out; the error that follows is logged.
    warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]", category=UserWarning)
