"""Two ways to read one front matter give one result: libyaml's composer in C (taken when the
front matter can hold no anchor, alias, tag or deep nesting) and the checked event path (every
other front matter, and every refusal). Values, the line of every key path, and each refusal's
file, line, key and sentence are the same whichever reads it."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sutura.core.catalog.document import front_matter
from sutura.core.catalog.document.front_matter import FrontMatter, read_front_matter
from sutura.core.catalog.error import CatalogError

LABEL = "metrics/revenue.md"
ROOT = Path(__file__).parents[4]


@contextmanager
def _event_path_only() -> Iterator[None]:
    """Every front matter read by the checked event path, as where PyYAML has no libyaml."""
    composer = front_matter._PlainComposer
    front_matter._PlainComposer = None
    try:
        yield
    finally:
        front_matter._PlainComposer = composer


def _read(text: str) -> tuple[str, FrontMatter | CatalogError]:
    read = read_front_matter(LABEL, text)
    return (
        ("read", read.unwrap())
        if read.map(lambda _: True).value_or(False)
        else (
            "refused",
            read.failure(),
        )
    )


def _both(text: str) -> None:
    fast = _read(text)
    with _event_path_only():
        checked = _read(text)
    assert fast == checked


_YAMLISH = st.sampled_from(
    ["\n", " ", "  ", ":", ": ", "- ", "[", "]", "{", "}", ",", "&a", "*a", "!", "<<", "#",
     "'", '"', "...", "---", "%YAML 1.1", "kind", "metric", "x", "null", "~", "\\ud800", "\\",
     "\ud800", "\x00", "\x85", "\u202e", "\t"]
)  # fmt: skip


@given(st.lists(st.one_of(_YAMLISH, st.text(max_size=3)), max_size=40).map("".join))
@settings(max_examples=500, deadline=None)
def test_any_front_matter_reads_alike_both_ways(front: str) -> None:
    _both(f"---\n{front}\n---\nbody")


_PLAIN = st.recursive(
    st.none() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(st.dictionaries(st.text(max_size=6), _PLAIN))
@settings(max_examples=300, deadline=None)
def test_any_yaml_mapping_reads_alike_both_ways(values: dict[str, object]) -> None:
    for style in (False, True, None):
        _both(f"---\n{yaml.safe_dump(values, allow_unicode=True, default_flow_style=style)}---\n")


def _nested(depth: int) -> str:
    return "kind: " + "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "front",
    [
        pytest.param("name: a\nname: b\nkind: " + "[" * 40 + "]" * 40, id="duplicate-then-deep"),
        pytest.param(_nested(31), id="depth-32"),
        pytest.param(_nested(32), id="depth-33"),
        pytest.param("a:\n" + "".join("  " * i + "- \n" for i in range(40)), id="deep-block"),
        pytest.param("<<: {a: 1}", id="merge-key"),
        pytest.param("'<<': x\nv: <<", id="quoted-merge-and-merge-value"),
        pytest.param('a: "\\ud800"\nb: [1, 2]', id="escaped-surrogate"),
        pytest.param("a: 1\n--- b", id="second-document"),
        pytest.param("description: R&D, 5* rated!\nname: x", id="markers-in-text"),
        pytest.param("a: ~\nb: null\nc:\nd: ''\ne: 'null'", id="nulls"),
        pytest.param("[a, b]", id="not-a-mapping"),
        pytest.param("", id="empty"),
        pytest.param("a: " + "x" * 2000, id="long-line"),
    ],
)
def test_front_matters_near_each_boundary_read_alike_both_ways(front: str) -> None:
    _both(f"---\n{front}\n---\nbody")


def test_every_catalog_document_in_the_repository_reads_alike_both_ways() -> None:
    documents = [
        text
        for path in sorted([*(ROOT / "src").rglob("*.md"), *(ROOT / "tests").rglob("*.md")])
        if (text := path.read_text(encoding="utf-8")).startswith("---\n")
    ]
    assert len(documents) > 20
    for text in documents:
        _both(text)


def test_a_refusal_read_in_c_is_named_where_the_event_path_would_name_it() -> None:
    deep = "---\nname: a\nname: b\nkind: " + "[" * 40 + "]" * 40 + "\n---\n"
    problem = "the front matter nests deeper than 32 levels"
    assert _read(deep) == ("refused", CatalogError(file=LABEL, line=4, key="", problem=problem))


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML was built without libyaml")
def test_a_plain_front_matter_is_composed_in_c() -> None:
    node = front_matter._composed_in_c("kind: metric\ngrains: [day, 2024-01-01]")
    assert isinstance(node, yaml.MappingNode)
    assert [(k.value, k.start_mark.line) for k, _ in node.value] == [("kind", 0), ("grains", 1)]
