"""The docs are true: every setting, refusal code and command is documented."""

import datetime
import json
import re
from pathlib import Path

import msgspec.inspect as mi
import pytest

from sutura.core.nouns.question import convert_question
from sutura.core.nouns.refusal import DETAILS, RefusalCode, status_of
from sutura.core.question.resolve import resolve_question
from sutura.core.settings import LimitsSettings, Settings
from sutura.transports.cli.main import build_parser
from tests.core.sample_catalog import PINNED

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _setting_keys(info: mi.Type, prefix: str) -> list[str]:
    if isinstance(info, mi.DictType):
        return _setting_keys(info.value_type, f"{prefix}.<alias>")
    if isinstance(info, mi.UnionType):
        structs = [t for t in info.types if isinstance(t, mi.StructType)]
        keys = [f"{prefix}.kind"] if any(s.tag_field for s in structs) else []
        return keys + sorted({k for s in structs for k in _setting_keys(s, prefix)})
    if not isinstance(info, mi.StructType):
        return [prefix]
    return [k for f in info.fields for k in _setting_keys(f.type, f"{prefix}.{f.name}".lstrip("."))]


SETTING_KEYS = [k for k in _setting_keys(mi.type_info(Settings), "") if k != "environment"]


@pytest.mark.parametrize("key", SETTING_KEYS)
def test_every_setting_is_documented(key: str) -> None:
    assert f"`{key}`" in (DOCS / "settings.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("code", list(RefusalCode), ids=str)
def test_every_refusal_code_is_documented_with_its_status_and_detail(code: RefusalCode) -> None:
    row = f"| `{code.value}` | {status_of(code)} | {DETAILS[code]} |"
    assert row in (DOCS / "refusals.md").read_text(encoding="utf-8")


def _commands() -> list[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert isinstance(sub.choices, dict)
    return sorted(sub.choices)


@pytest.mark.parametrize("command", _commands())
def test_every_command_is_documented(command: str) -> None:
    assert re.search(rf"^\| `{command}\b", (DOCS / "cli.md").read_text(encoding="utf-8"), re.M)


_LAST_EXAMPLE = re.compile(r"^\| `(\{.*\})` \| (\w+) \| (\S+) \| (\S+) \|$", re.M)


def test_the_range_last_examples_of_the_semantics_are_what_a_question_resolves_to() -> None:
    text = (DOCS / "semantics.md").read_text(encoding="utf-8")
    asked = re.search(r"Examples, asked on (\d{4}-\d\d-\d\d)", text)
    assert asked is not None
    today = datetime.date.fromisoformat(asked.group(1))
    examples = _LAST_EXAMPLE.findall(text)
    assert len(examples) >= 5
    for last, grain, start, end in examples:
        question = convert_question(
            {"metrics": ["revenue"], "grain": grain, "range": {"last": json.loads(last)}}
        ).unwrap()
        found = resolve_question(question, PINNED, LimitsSettings(), today).unwrap()
        assert (found.start.isoformat(), found.end.isoformat()) == (start, end), last


def test_the_semantics_are_linked_from_the_readme_and_the_architecture() -> None:
    for page in (DOCS.parent / "README.md", DOCS / "architecture.md", DOCS / "catalog.md"):
        assert "semantics.md" in page.read_text(encoding="utf-8"), page.name
