"""The raw tool's input and sqlglot's second opinion: one read-only query, or a typed refusal."""

import msgspec
import pytest

from sutura.core.raw.check import RawDialect, check_statement
from sutura.core.raw.outcome import RawRefusalCode, raw_status
from sutura.core.raw.request import MAX_STATEMENT_CHARS, RawStatement
from sutura.core.tool.codec import CodecError, convert_statement, decode_statement

DIALECTS: list[RawDialect] = ["duckdb", "postgres"]

ONE_READ = [
    "SELECT 1",
    "select 1;",
    "select 1 ; -- a comment after the only statement",
    "/* a comment first */ SELECT 1",
    "SELECT ';DROP TABLE t' AS text_that_looks_like_a_second_statement",
    "SELECT 1 -- DROP TABLE t",
    "WITH a AS (SELECT 1 AS x) SELECT x FROM a",
    "SELECT 1 UNION ALL SELECT 2 ORDER BY 1 LIMIT 1",
    "(SELECT 1) EXCEPT (SELECT 2)",
    "VALUES (1), (2)",
    "SELECT count(*) FROM t WHERE name LIKE 'a%'",
    "SELECT pg_sleep(60)",
    "SELECT * FROM read_csv('/etc/passwd')",
]
NOT_ONE = [
    "",
    "   ",
    "-- nothing but a comment",
    ";",
    "SELECT 1; SELECT 2",
    "SELECT 1; DROP TABLE t",
    "COMMIT; DROP TABLE t",
    "SELECT 1 -- a comment\n; DROP TABLE t",
]
NOT_A_READ = [
    "DROP TABLE t",
    "/* SELECT */ DROP TABLE t",
    "-- SELECT\nDELETE FROM t",
    "INSERT INTO t VALUES (1)",
    "UPDATE t SET a = 1",
    "WITH gone AS (DELETE FROM t RETURNING *) SELECT * FROM gone",
    "SELECT * INTO t_copy FROM t",
    "SELECT * FROM t FOR UPDATE",
    "COPY t TO '/tmp/x'",
    "ATTACH '/tmp/x.db' AS x",
    "INSTALL httpfs",
    "SET memory_limit = '64GB'",
    "RESET ALL",
    "PRAGMA threads = 64",
    "BEGIN",
    "COMMIT",
    "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
    "EXPLAIN SELECT 1",
    "DESCRIBE t",
    "SHOW TABLES",
    "CALL pragma_version()",
    "CREATE TEMP TABLE x AS SELECT 1",
    "VACUUM",
    "PREPARE p AS SELECT 1",
    "DO $$ BEGIN END $$",
    "SELECT '\ud800'",
    "SELECT " + "(" * 3000 + "1" + ")" * 3000,
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("statement", ONE_READ)
def test_one_read_only_query_is_agreed_to_unchanged(statement: str, dialect: RawDialect) -> None:
    assert check_statement(statement, dialect).unwrap() == statement


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("statement", NOT_ONE)
def test_no_statement_or_several_is_not_one_statement(statement: str, dialect: RawDialect) -> None:
    assert check_statement(statement, dialect).failure().code is RawRefusalCode.NOT_ONE_STATEMENT


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("statement", NOT_A_READ, ids=lambda s: s[:40])
def test_anything_but_a_read_or_what_cannot_be_read_is_not_read_only(
    statement: str, dialect: RawDialect
) -> None:
    assert check_statement(statement, dialect).failure().code is RawRefusalCode.NOT_READ_ONLY


def test_the_statement_body_decodes_and_names_the_field_of_a_malformed_one() -> None:
    assert decode_statement(b'{"statement": "SELECT 1"}').unwrap() == RawStatement(
        statement="SELECT 1"
    )
    assert decode_statement(b'{"statement": 1}').failure() == CodecError(
        path="$.statement", problem="Expected `str`, got `int`"
    )
    assert decode_statement(b'{"statement": "x", "sql": "DROP"}').failure() == CodecError(
        path="$", problem="an unknown field is present"
    )
    too_long = msgspec.json.encode({"statement": "x" * (MAX_STATEMENT_CHARS + 1)})
    assert decode_statement(too_long).failure() == CodecError(
        path="$.statement", problem=f"Expected `str` of length <= {MAX_STATEMENT_CHARS}"
    )


def test_tool_arguments_holding_a_lone_surrogate_are_malformed() -> None:
    assert convert_statement({"statement": "SELECT '\udc00'"}).failure() == CodecError(
        path="$.statement", problem="a lone surrogate is not text"
    )
    assert convert_statement({}).failure().path == "$"


@pytest.mark.parametrize("code", list(RawRefusalCode), ids=str)
def test_every_raw_refusal_has_a_client_or_unavailable_status(code: RawRefusalCode) -> None:
    assert raw_status(code) in {403, 413, 422, 503}
