"""``limits.max_dimensions``: a setting from 0 to 16 (default 4), refused by name outside, the
bound every question's dimensions are held to (docs/settings.md)."""

import json
from pathlib import Path

import pytest
from returns.pipeline import is_successful

from sutura.boundary.schema_files import shipped_text
from sutura.boundary.settings_files import load_settings
from sutura.core.nouns.question import decode_question_json


def test_the_default_is_four_and_every_bound_from_zero_to_sixteen_is_taken(
    tmp_path: Path,
) -> None:
    assert load_settings({}).unwrap().settings.limits.max_dimensions == 4
    for bound in (0, 7, 16):
        (tmp_path / "base.yaml").write_text(f"limits:\n  max_dimensions: {bound}\n")
        loaded = load_settings({"SUTURA_CONFIG_DIR": str(tmp_path)}).unwrap()
        assert loaded.settings.limits.max_dimensions == bound


@pytest.mark.parametrize(("written", "problem"), [("17", "<= 16"), ("-1", ">= 0")])
def test_a_bound_outside_is_refused_naming_the_file_line_and_key(
    tmp_path: Path, written: str, problem: str
) -> None:
    (tmp_path / "base.yaml").write_text(f"limits:\n  max_dimensions: {written}\n")
    result = load_settings({"SUTURA_CONFIG_DIR": str(tmp_path)})
    assert not is_successful(result)
    [error] = result.failure()
    sentence = error.sentence()
    assert sentence.startswith(f"{tmp_path / 'base.yaml'}:2: limits.max_dimensions: ")
    assert sentence.endswith(problem)
    variable = {"SUTURA__LIMITS__MAX_DIMENSIONS": written}
    [error] = load_settings(variable).failure()
    assert error.sentence().startswith("SUTURA__LIMITS__MAX_DIMENSIONS: limits.max_dimensions:")


def test_the_settings_schema_states_the_bounds_and_the_default() -> None:
    schema = json.loads(shipped_text("settings"))
    limits = schema["$defs"]["LimitsSettings"]["properties"]["max_dimensions"]
    assert limits == {"type": "integer", "minimum": 0, "maximum": 16, "default": 4}


def test_a_question_of_more_dimensions_than_any_bound_is_malformed_at_decoding() -> None:
    names = [f"d{i}" for i in range(17)]
    text = json.dumps({"metrics": ["m"], "range": {}, "dimensions": names})
    problem = decode_question_json(text).failure()
    assert problem.field == "$.dimensions"
    decoded = decode_question_json(
        json.dumps({"metrics": ["m"], "range": {}, "dimensions": names[:16]})
    )
    assert len(decoded.unwrap().dimensions) == 16


def test_the_prompt_an_agent_is_served_states_the_deployments_bound(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sutura.root import Wiring
    from sutura.transports.cli.main import run_cli

    environ = {"SUTURA_CONFIG_DIR": str(example_dir), "SUTURA__LIMITS__MAX_DIMENSIONS": "7"}
    assert run_cli(["prompt"], Wiring(environ)) == 0
    out, _ = capsys.readouterr()
    assert "\n- A question groups by at most 7 dimensions.\n" in out
