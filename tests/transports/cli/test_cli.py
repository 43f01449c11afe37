"""The command line, driven the way the console script runs it."""

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from sutura.boundary.example import DATABASE
from sutura.root import Wiring
from sutura.transports.cli.commands import WITHOUT_DATA
from sutura.transports.cli.main import run_cli

QUARTERLY = ["revenue", "--grain", "quarter", "--from", "2024-01-01", "--to", "2025-01-01"]


def _run(
    argv: list[str], config: Path, capsys: pytest.CaptureFixture[str], **env: str
) -> tuple[int, str, str]:
    environ = {"SUTURA_CONFIG_DIR": str(config), **env}
    code = run_cli(argv, Wiring(environ))
    out, err = capsys.readouterr()
    return code, out, err


def test_query_prints_the_text_half_with_version_and_digest(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["query", *QUARTERLY, "--by", "region"], example_dir, capsys)
    assert code == 0
    lines = out.rstrip("\n").split("\n")
    assert lines[0] == "period\tregion\trevenue"
    assert len(lines[1:17]) == 16 and all(line.count("\t") == 2 for line in lines[1:17])
    assert lines[17] == "\\. rows: 16"
    assert lines[18].startswith("definitions: example-1 (digest ")
    assert lines[-2] == "read from main as: shared-service-user"
    assert lines[-1] == "computed at: 2024-06-01T12:00:00.000Z"  # the tests' pinned clock


def test_query_json_prints_the_structured_half(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["query", *QUARTERLY, "--json"], example_dir, capsys)
    body = json.loads(out)
    assert code == 0
    assert body["outcome"] == "answer"
    assert body["columns"] == ["period", "revenue"]
    assert body["provenance"]["definition_version"] == "example-1"
    assert [d["metric"] for d in body["provenance"]["metric_digests"]] == ["revenue"]


def test_a_refusal_prints_its_code_and_exits_one(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(
        [
            "query",
            "revenue",
            "--grain",
            "quarter",
            "--from",
            "2024-01-01",
            "--to",
            "2025-01-01",
            "--by",
            "nonexistent",
        ],
        example_dir,
        capsys,
    )
    assert code == 1
    assert out.startswith("refused (dimension_not_permitted): ")
    assert "nonexistent" not in out


def test_a_malformed_question_names_the_field_not_the_value(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(
        [
            "query",
            "revenue",
            "--grain",
            "fortnight\x1b[2J",
            "--from",
            "2024-01-01",
            "--to",
            "2025-01-01",
        ],
        example_dir,
        capsys,
    )
    assert code == 2
    assert out == ""
    assert "$.grain" in err and "fortnight" not in err and "\x1b" not in err


def test_a_question_can_arrive_as_json(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = {
        "metrics": ["order_count"],
        "grain": "year",
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
    }
    code, out, _ = _run(["query", "--question", json.dumps(question)], example_dir, capsys)
    assert code == 0 and out.startswith("period\torder_count\n2024-01-01\t")


def test_compile_prints_statement_parameters_and_plan(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["compile", *QUARTERLY, "--where", "channel=web"], example_dir, capsys)
    assert code == 0
    assert "SELECT" in out and "parameters:" in out and "plan:" in out
    assert "'web'" in out.split("parameters:")[1]
    assert "'web'" not in out.split("parameters:")[0]


def test_check_reproduces_the_anchors(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["check"], example_dir, capsys)
    assert code == 0
    assert "anchors: 2 reproduced" in out


def test_an_anchor_mismatch_stops_startup_naming_metric_expected_and_found(
    example_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "cfg"
    (config / "catalog").mkdir(parents=True)
    for document in (example_dir / "catalog").iterdir():
        text = document.read_text(encoding="utf-8")
        if document.name.startswith("revenue"):
            text = text.replace("\n  value: ", "\n  value: 1", 1)
        (config / "catalog" / document.name).write_text(text, encoding="utf-8")
    database = (example_dir / "data" / "example.duckdb").resolve()
    (config / "base.yaml").write_text(
        "catalog: {dir: catalog, version: t}\n"
        f"sources: {{main: {{kind: duckdb, path: '{database}'}}}}\n"
        "security: {identity: single-user, single_user_because: one user runs the tests}\n"
    )
    code, out, err = _run(["query", *QUARTERLY], config, capsys)
    assert code == 1 and out == ""
    assert "anchor mismatch: metric revenue: expected 1" in err and ", found " in err


def test_a_broken_catalog_names_file_line_and_key(
    example_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "catalog").mkdir()
    (tmp_path / "catalog" / "m.md").write_text(
        "---\nkind: model\nname: m\nsource: main\ntable: t\ncolumns: [a]\nextra: 1\n---\n"
    )
    (tmp_path / "base.yaml").write_text(
        "sources: {main: {kind: duckdb, path: x.duckdb}}\n"
        "security: {identity: single-user, single_user_because: one user runs the tests}\n"
    )
    code, _, err = _run(["catalog"], tmp_path, capsys)
    assert code == 1
    assert "m.md:7: extra: " in err


def test_a_catalog_whose_model_has_no_table_is_shown_without_data_lines_saying_only_why(
    example_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = tmp_path / "example"
    shutil.copytree(example_dir, config)
    orders = config / "catalog" / "orders.md"
    orders.write_text(orders.read_text().replace("table: orders\n", "table: no_orders\n"))
    with caplog.at_level(logging.DEBUG, logger="sutura.service"):
        code, out, err = _run(["catalog"], config, capsys)
    assert code == 0
    assert "revenue" in out and "\ndata: " not in out
    assert err.splitlines()[1:] == [
        "sutura: orders.md:5: table: the source 'main' has no table 'no_orders' this role may"
        " read (details in the log)",
        f"sutura: {WITHOUT_DATA}",
    ]
    # Where each metric's data is: never asked of sources whose checks failed.
    assert [r.getMessage() for r in caplog.records if r.name == "sutura.service"] == []


def test_a_metric_whose_rows_are_none_has_no_data_line_and_the_others_keep_theirs(
    example_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "example"
    shutil.copytree(example_dir, config)
    with duckdb.connect(str(config / DATABASE)) as data:  # active_customers counts paid orders
        data.execute("UPDATE orders SET is_paid = false")
    code, out, _ = _run(["catalog", "--json"], config, capsys)
    assert code == 0
    stated = {metric["name"]: metric.get("data") for metric in json.loads(out)["metrics"]}
    assert stated.pop("active_customers") is None
    assert stated and all(data is not None for data in stated.values())


def test_catalog_honours_the_prose_setting(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, quoted, _ = _run(["catalog", "--json"], example_dir, capsys)
    _, omitted, _ = _run(
        ["catalog", "--json"], example_dir, capsys, SUTURA__PROMPT__CATALOG_PROSE="omitted"
    )
    assert json.loads(quoted)["catalog_prose"] == "quoted"
    assert "description" in json.loads(quoted)["metrics"][0]
    assert json.loads(omitted)["catalog_prose"] == "omitted"
    assert all("description" not in m for m in json.loads(omitted)["metrics"])


def test_describe_shows_the_pinned_definition(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["describe", "revenue"], example_dir, capsys)
    assert code == 0
    described = json.loads(out)
    assert described["definition"]["name"] == "revenue"
    assert described["formula"] == "sum(amount) where order_status != 'cancelled'"
    assert described["time"] == "ordered_on"


def test_an_unknown_command_is_a_usage_error(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(["frobnicate"], example_dir, capsys)
    assert code == 2 and "invalid choice" in err


def test_an_internal_error_prints_a_fixed_sentence_and_no_traceback(
    example_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sutura.transports.cli import present

    def explode(*_: object, **__: object) -> str:
        raise RuntimeError("canary-internal")

    monkeypatch.setattr(present, "check_summary", explode)
    code, out, err = _run(["check"], example_dir, capsys)
    assert code == 1
    assert "canary-internal" not in out + err and "Traceback" not in err
    assert "internal error" in err


def test_the_console_script_answers_from_a_fresh_example(tmp_path: Path) -> None:
    env = {**os.environ, "SUTURA_CONFIG_DIR": str(tmp_path)}
    script = [sys.executable, "-c", "import sys; from sutura.root import main; sys.exit(main())"]
    made = subprocess.run(
        [*script, "example", str(tmp_path), "--orders", "500"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    asked = subprocess.run(
        [*script, "query", *QUARTERLY], env=env, capture_output=True, text=True, timeout=60
    )
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith("period\trevenue\n2024-01-01\t")


def test_the_catalog_shows_each_metrics_formula_only_when_the_operator_says_so(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, hidden, _ = _run(["catalog"], example_dir, capsys)
    assert "formula:" not in hidden
    _, shown, _ = _run(["catalog"], example_dir, capsys, SUTURA__PROMPT__FORMULAS="shown")
    formula = next(line for line in shown.split("\n") if line.startswith("formula: sum(amount)"))
    assert formula == (
        "formula: sum(amount) where order_status != 'cancelled'; time: ordered_on; "
        "channel: sales_channel; region: order_customer.sales_region; "
        "segment: order_customer.customer_segment"
    )
    _, structured, _ = _run(
        ["catalog", "--json"], example_dir, capsys, SUTURA__PROMPT__FORMULAS="shown"
    )
    revenue = next(m for m in json.loads(structured)["metrics"] if m["name"] == "revenue")
    assert revenue["formula"] == formula.removeprefix("formula: ")
