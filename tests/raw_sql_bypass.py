"""The bypass corpus of ``docs/raw-sql.md``, one statement per engine, and what each must end as.

Every item of the corpus (stacked statements, a transaction end before a write, a leading
comment, a writing ``WITH``, ``SELECT … INTO``, ``COPY … TO``, ``EXPORT DATABASE``, ``ATTACH``,
``INSTALL``, ``LOAD``, ``SET``/``RESET``/``PRAGMA``, file reads, a replacement scan, the session
characteristics, ``set_config``, ``pg_read_file``, ``pg_sleep``, a trailing ``--``) plus the
large-object quirk PostgreSQL's ``READ ONLY`` lets through. Each is spelled for both engines;
``{canary}``, ``{written}`` and ``{attached}`` are paths the test fills in (a file holding
:data:`CANARY`, and two paths that must still not exist afterwards).

``duckdb_gated`` and ``postgres_gated`` are the outcome through the whole runner: a raw refusal
code, :data:`ROWS` (it runs, and must still leave nothing behind), or ``deadline_exceeded`` for
the statements that would run for a minute. The tests also run every statement on the engine
alone, with no parser gate, and check that nothing was written, read or changed either way.
"""

from pathlib import Path
from typing import Final, NamedTuple

from sutura.core.nouns.notices import FAILURE_NOTICE
from sutura.core.raw.outcome import RawOutcome, RawRefusal
from sutura.core.text.escape import has_lone_surrogate, is_escaped, unescape_text
from sutura.core.text.untrusted import FAILURE, Case
from sutura.core.tool.codec import raw_halves

CANARY: Final = "sutura-canary-5f1d2c"
"""The content of the file the corpus tries to read; it must never come back."""
ROWS: Final = "rows"
STATEMENT_FAILED: Final = "statement_failed"
NOT_ONE: Final = "not_one_statement"
NOT_READ_ONLY: Final = "not_read_only"
DEADLINE: Final = "deadline_exceeded"

DEADLINE_SECONDS: Final = 0.5
"""The deadline of a runaway: a statement meant to be stopped by it."""
ANSWER_SECONDS: Final = 10.0
"""The deadline of every other statement: ample on a machine whose cores are busy (the first
statement on a fresh DuckDB runner also starts its worker process)."""


def deadline_for(gated: str) -> float:
    """The deadline a corpus item runs under, given the outcome the runner must give it."""
    return DEADLINE_SECONDS if gated == DEADLINE else ANSWER_SECONDS


SECRET_RELATION: Final = "secret_relation"
"""The name a replacement scan would resolve to a Python variable in the calling frame."""
HUGE_CROSS_JOIN: Final = "SELECT count(*) FROM range(100000000000) AS a, range(1000) AS b"


class Bypass(NamedTuple):
    """One corpus item: its statement on each engine and the outcome the runner must give."""

    name: str
    duckdb: str
    postgres: str
    duckdb_gated: str
    postgres_gated: str

    @property
    def long(self) -> bool:
        """Whether it would run far past any deadline."""
        return DEADLINE in (self.duckdb_gated, self.postgres_gated)


def _same(name: str, statement: str, duckdb: str, postgres: str) -> Bypass:
    return Bypass(name, statement, statement, duckdb, postgres)


CORPUS: Final[tuple[Bypass, ...]] = (
    _same("stacked statements", "SELECT 1; DROP TABLE t", NOT_ONE, STATEMENT_FAILED),
    _same("commit then drop", "COMMIT; DROP TABLE t", NOT_ONE, STATEMENT_FAILED),
    _same("end then drop", "END; DROP TABLE t", NOT_ONE, STATEMENT_FAILED),
    _same("rollback then drop", "ROLLBACK; DROP TABLE t", NOT_ONE, STATEMENT_FAILED),
    _same("leading block comment", "/* SELECT */ DROP TABLE t", NOT_READ_ONLY, NOT_READ_ONLY),
    _same("leading line comment", "-- SELECT\nDROP TABLE t", NOT_READ_ONLY, NOT_READ_ONLY),
    _same(
        "a delete inside with",
        "WITH gone AS (DELETE FROM t RETURNING *) SELECT * FROM gone",
        NOT_READ_ONLY,
        NOT_READ_ONLY,
    ),
    _same("select into", "SELECT * INTO t_copy FROM t", STATEMENT_FAILED, NOT_READ_ONLY),
    _same("copy to a file", "COPY t TO '{written}'", NOT_READ_ONLY, NOT_READ_ONLY),
    _same("export database", "EXPORT DATABASE '{written}'", NOT_READ_ONLY, STATEMENT_FAILED),
    _same("attach a file", "ATTACH '{attached}' AS other", NOT_READ_ONLY, STATEMENT_FAILED),
    _same("install an extension", "INSTALL httpfs", NOT_READ_ONLY, STATEMENT_FAILED),
    Bypass("load an extension", "LOAD httpfs", "LOAD 'dblink'", NOT_READ_ONLY, NOT_READ_ONLY),
    Bypass(
        "set a limit away",
        "SET memory_limit = '64GB'",
        "SET statement_timeout = 0",
        NOT_READ_ONLY,
        NOT_READ_ONLY,
    ),
    Bypass("reset", "RESET memory_limit", "RESET ALL", NOT_READ_ONLY, NOT_READ_ONLY),
    _same("pragma", "PRAGMA threads = 64", NOT_READ_ONLY, STATEMENT_FAILED),
    _same(
        "read_csv a file", "SELECT * FROM read_csv('{canary}')", STATEMENT_FAILED, STATEMENT_FAILED
    ),
    _same(
        "read_text the environment",
        "SELECT * FROM read_text('/proc/self/environ')",
        STATEMENT_FAILED,
        STATEMENT_FAILED,
    ),
    _same(
        "read_text a file",
        "SELECT * FROM read_text('{canary}')",
        STATEMENT_FAILED,
        STATEMENT_FAILED,
    ),
    _same("glob the root", "SELECT * FROM glob('/*')", STATEMENT_FAILED, STATEMENT_FAILED),
    _same(
        "a replacement scan of a python variable",
        f"SELECT * FROM {SECRET_RELATION}",
        STATEMENT_FAILED,
        STATEMENT_FAILED,
    ),
    _same(
        "default transaction read only off",
        "SET default_transaction_read_only = off",
        NOT_READ_ONLY,
        NOT_READ_ONLY,
    ),
    _same(
        "session characteristics read write",
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        STATEMENT_FAILED,
        NOT_READ_ONLY,
    ),
    _same(
        "set_config read only off",
        "SELECT set_config('default_transaction_read_only', 'off', false)",
        STATEMENT_FAILED,
        ROWS,
    ),
    _same(
        "set_config transaction read write",
        "SELECT set_config('transaction_read_only', 'off', true)",
        STATEMENT_FAILED,
        STATEMENT_FAILED,
    ),
    _same("pg_read_file", "SELECT pg_read_file('{canary}')", STATEMENT_FAILED, STATEMENT_FAILED),
    Bypass("sleep for a minute", HUGE_CROSS_JOIN, "SELECT pg_sleep(60)", DEADLINE, DEADLINE),
    Bypass(
        "lift the timeout, then sleep",
        HUGE_CROSS_JOIN,
        "SELECT set_config('statement_timeout', '0', false), pg_sleep(60)",
        DEADLINE,
        DEADLINE,
    ),
    _same("a trailing line comment", "SELECT count(*) FROM t --", ROWS, ROWS),
    _same("a row lock", "SELECT * FROM t FOR UPDATE", STATEMENT_FAILED, NOT_READ_ONLY),
    _same("a large object", "SELECT lo_create(0)", STATEMENT_FAILED, ROWS),
    _same(
        "a large object from a server file",
        "SELECT lo_import('{canary}')",
        STATEMENT_FAILED,
        STATEMENT_FAILED,
    ),
)
"""Every bypass item, in the order ``docs/raw-sql.md`` lists them, then PostgreSQL's quirks."""


class Paths(NamedTuple):
    """The files the corpus names: one to read, two that must never come to exist."""

    canary: Path
    written: Path
    attached: Path

    def untouched(self) -> bool:
        """Nothing was written where the corpus tried to write."""
        return not self.written.exists() and not self.attached.exists()


def paths_in(directory: Path) -> Paths:
    """The corpus's paths under ``directory``, the canary file written."""
    paths = Paths(directory / "canary.txt", directory / "written", directory / "attached.db")
    paths.canary.write_text(f"{CANARY}\n", encoding="utf-8")
    return paths


def spelled(statement: str, paths: Paths) -> str:
    """``statement`` with ``paths`` in place of ``{canary}``, ``{written}`` and ``{attached}``."""
    for name, path in paths._asdict().items():
        statement = statement.replace("{" + name + "}", str(path).replace("'", "''"))
    return statement


def doubled(value: str, quote: str) -> str:
    """``value`` inside a quoted SQL identifier or literal, its quote character doubled."""
    return value.replace(quote, quote + quote)


def carried_failure_cases() -> list[Case]:
    """The ``FAILURE`` corpus cases a statement can carry to a database as text (no surrogate)."""
    return [case for case in FAILURE if not has_lone_surrogate(case.value)]


def assert_failure_text_is_quoted(outcome: RawOutcome) -> None:
    """The text half holds the database's words faithfully, each line quoted under one notice.

    P4: nothing of the escape set appears raw, and the text is UTF-8. P5: after the notice and
    the refusal line every line starts with ``> ``. The cap is visible, and unescaping the
    quoted lines gives back exactly the words the structured half carries.
    """
    text = raw_halves(outcome).text
    text.encode("utf-8")
    lines = text.split("\n")
    assert text.splitlines() == lines
    assert not [ch for ch in text if ch not in "\n\\" and is_escaped(ch)]
    assert isinstance(outcome, RawRefusal) and isinstance(outcome.database_text, str)
    assert lines[0] == FAILURE_NOTICE and lines.count(FAILURE_NOTICE) == 1
    assert lines[1].startswith(f"refused ({outcome.code.value}): ")
    quoted = lines[2:]
    assert quoted and all(line.startswith("> ") for line in quoted)
    marker = f"…[+{outcome.database_text_cut} chars]" if outcome.database_text_cut else ""
    assert quoted[-1].endswith(marker)
    quoted[-1] = quoted[-1].removesuffix(marker) if marker else quoted[-1]
    words = [unescape_text(line.removeprefix("> ")).unwrap() for line in quoted]
    assert "\n".join(words) == outcome.database_text
