"""Every row of the contract on the command line: ``run_cli``, in this process, with the
environment a user would export, on DuckDB and on PostgreSQL. Each command opens, uses and
closes its own service in one event loop, as ``sutura`` does."""

import json

import anyio
import pytest

from sutura.core.tool.reply import Reply
from sutura.root import Wiring
from sutura.transports.cli.calling import print_reply
from sutura.transports.cli.main import run_cli
from tests.contract.deployment import Deployment
from tests.contract.expect import check_nothing_leaked, check_structured, check_text_half
from tests.contract.rows import ROWS
from tests.contract.table import (
    Body,
    Row,
    Stream,
    Surface,
    cli_argv,
    row_id,
    without_scope,
)
from tests.services import serving


def _environ(deployment: Deployment, row: Row) -> dict[str, str]:
    if row.run_sql:
        return deployment.environ
    return deployment.with_settings(TOOLS__RUN_SQL__ENABLED="false")


def _mapped(deployment: Deployment, row: Row) -> int:
    """The service's real reply, through the command line's own mapping (``print_reply``)."""

    async def reply() -> Reply:
        async with serving(deployment.environ) as service:
            with anyio.fail_after(30):
                return await service.call(row.capability, row.arguments, without_scope(), 30.0)

    return print_reply(anyio.run(reply), as_json=False)


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_every_row_comes_out_of_the_command_line_as_the_table_says(
    deployment: Deployment, row: Row, capsys: pytest.CaptureFixture[str]
) -> None:
    if Surface.CLI in row.unsendable:
        code = _mapped(deployment, row)
    else:
        code = run_cli(cli_argv(row), Wiring(_environ(deployment, row)))
    out, err = capsys.readouterr()
    assert code == row.cli.exit, (out, err)
    match row.cli.stream:
        case Stream.STDOUT:
            told = [line for line in err.split("\n") if line]
            assert bool(told) is row.cli.explained, err
            assert all(line.startswith("sutura: the metric units ") for line in told), err
            check_text_half(row, out)
        case Stream.STDERR:
            assert out == ""
            assert err.startswith(f"sutura: {row.sentence}"), err
    check_nothing_leaked(out, err)


def _first_of_each_body() -> list[Row]:
    """One row per shape of structured half the command line prints (its mapping does not
    depend on the code: the other surfaces check every row's structured half)."""
    found: dict[Body, Row] = {}
    for row in ROWS:
        if row.cli.stream is Stream.STDOUT and not row.unsendable:
            found.setdefault(row.http.body, row)
    return list(found.values())


STRUCTURED = _first_of_each_body()


@pytest.mark.parametrize("row", STRUCTURED, ids=row_id)
def test_with_json_the_command_line_prints_the_structured_half(
    deployment: Deployment, row: Row, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli([*cli_argv(row), "--json"], Wiring(_environ(deployment, row)))
    out, err = capsys.readouterr()
    assert (code, err) == (row.cli.exit, "")
    check_structured(row, json.loads(out))
