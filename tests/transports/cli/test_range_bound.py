"""``limits.max_range_days`` bounds every day a question reads: its range, with a comparison's
prior range or the periods a trailing window reaches back to."""

from pathlib import Path

import pytest

from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.text.render import render_refusal
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli

# 2015-01-01 to 2025-01-01 is 3,653 days: the default limit exactly.
TEN_YEARS = ["query", "revenue", "--grain", "year", "--from", "2015-01-01", "--to", "2025-01-01"]
TOO_LONG = render_refusal(refusal(RefusalCode.TIME_RANGE_TOO_LONG)) + "\n"


@pytest.mark.parametrize(
    ("more", "refused"),
    [
        ([], False),
        (["--compare", "previous_year"], True),  # reads 2014 too: 4,018 days
        (["--compare", "previous_period"], True),  # the year before, at grain year
        (["--trailing", "2"], True),
        (["--running"], False),  # a running total reads the range alone
    ],
)
def test_the_range_bound_counts_every_day_the_statement_reads(
    more: list[str], refused: bool, example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli([*TEN_YEARS, *more, "--text"], Wiring({"SUTURA_CONFIG_DIR": str(example_dir)}))
    out, err = capsys.readouterr()
    assert err == ""
    if refused:
        assert (code, out) == (1, TOO_LONG)
    else:
        assert code == 0 and out.startswith("period\trevenue")


def test_a_shorter_range_with_its_prior_range_is_answered(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*TEN_YEARS, "--compare", "previous_year", "--text"]
    argv[argv.index("2015-01-01")] = "2016-01-01"
    code = run_cli(argv, Wiring({"SUTURA_CONFIG_DIR": str(example_dir)}))
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith("period\trevenue\trevenue.prior")
