"""Refusals and errors a person can act on at the command line: a dimension refusal names the
dimension and what the metric lists (the text half keeps its fixed sentence), and a problem
loading settings without ``SUTURA_CONFIG_DIR`` says it is unset and where settings were looked
for."""

import shutil
from pathlib import Path

import pytest

from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.text.render import render_refusal
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli

QUARTERS = ["--grain", "quarter", "--from", "2024-01-01", "--to", "2025-01-01"]


def _run(
    argv: list[str], environ: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    code = run_cli(argv, Wiring(environ))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_dimension_not_listed_is_named_with_the_dimensions_the_metric_lists(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = {"SUTURA_CONFIG_DIR": str(example_dir)}
    code, out, err = _run(
        ["query", "revenue", "order_count", *QUARTERS, "--by", "regoin"], environ, capsys
    )
    assert code == 1
    # stdout is the text half an agent reads, its sentence fixed.
    assert out == render_refusal(refusal(RefusalCode.DIMENSION_NOT_PERMITTED)) + "\n"
    assert err.split("\n") == [
        "sutura: the metric revenue has no dimension regoin; it lists: channel, region, segment",
        "sutura: the metric order_count has no dimension regoin;"
        " it lists: channel, region, segment",
        "",
    ]


def test_a_value_not_allowed_names_the_dimension_and_its_values_but_not_the_value(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = {"SUTURA_CONFIG_DIR": str(example_dir)}
    argv = ["query", "revenue", *QUARTERS, "--where", "channel=phonez", "--where", "channel=web"]
    code, out, err = _run(argv, environ, capsys)
    assert code == 1
    assert out == render_refusal(refusal(RefusalCode.DIMENSION_VALUE_NOT_ALLOWED)) + "\n"
    assert err == (
        "sutura: the metric revenue allows these values of the dimension channel:"
        "\tphone\tstore\tweb\n"
    )
    assert "phonez" not in out + err


def test_the_values_a_dimension_allows_are_listed_as_cells_each_told_apart(
    example_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An allowed value that is empty, spells ``\\N``, holds ``, `` or a tab is still one
    value, shown as the catalog shows it (tab-separated escaped cells)."""
    config = tmp_path / "example"
    shutil.copytree(example_dir, config)
    orders = config / "catalog" / "orders.md"
    hostile = '["", "\\\\N", "phone, store", "a\\tb", "web\\u2028", phone, store, web]'
    text = orders.read_text(encoding="utf-8")
    assert "values: [phone, store, web]" in text
    orders.write_text(text.replace("values: [phone, store, web]", f"values: {hostile}"))
    code, out, err = _run(
        ["query", "revenue", *QUARTERS, "--where", "channel=phonez"],
        {"SUTURA_CONFIG_DIR": str(config)},
        capsys,
    )
    assert code == 1, err
    assert out == render_refusal(refusal(RefusalCode.DIMENSION_VALUE_NOT_ALLOWED)) + "\n"
    assert err == (
        "sutura: the metric revenue allows these values of the dimension channel:"
        "\t\\e\t\\\\N\tphone, store\ta\\tb\tweb\\u2028\tphone\tstore\tweb\n"
    )


def test_other_refusals_say_nothing_more(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = {"SUTURA_CONFIG_DIR": str(example_dir)}
    code, out, err = _run(["query", "revenue", *QUARTERS, "--by", "segment"], environ, capsys)
    assert code == 0 and err == ""
    code, out, err = _run(["query", "nothing", *QUARTERS], environ, capsys)
    assert code == 1 and err == ""
    assert out == render_refusal(refusal(RefusalCode.METRIC_UNKNOWN)) + "\n"


@pytest.mark.parametrize("command", [["check"], ["query", "revenue", *QUARTERS], ["init"]])
def test_an_error_without_a_config_dir_says_it_is_unset_and_where_settings_were_read(
    command: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(command, {}, capsys)
    assert code == 1 and out == ""
    lines = err.split("\n")
    assert lines[0] == (
        "sutura: SUTURA_CONFIG_DIR is unset, so no settings file was read (base.yaml is looked"
        " for in the directory it names): the built-in defaults and SUTURA__ variables apply,"
        f" and relative paths start at {tmp_path}"
    )
    assert len(lines) > 2  # the problem itself follows


def test_an_error_with_a_config_dir_says_nothing_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(["check"], {"SUTURA_CONFIG_DIR": str(tmp_path)}, capsys)
    assert code == 1
    assert "SUTURA_CONFIG_DIR" not in err
