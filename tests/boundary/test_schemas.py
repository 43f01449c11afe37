"""The JSON Schemas: shipped as generated, every example and fixture valid against them, and
the schemas and the decoders accepting and refusing the same generated documents."""

import re
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import msgspec.inspect as mi
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.pipeline import is_successful

from sutura.boundary.schema_files import shipped_text
from sutura.boundary.settings.convert import convert_settings
from sutura.boundary.settings.layers import Layer, merge
from sutura.boundary.settings.schema import layer_key_errors
from sutura.boundary.settings.yaml_file import read_settings_file
from sutura.core.catalog.document.front_matter import read_front_matter
from sutura.core.catalog.document.parse import DocumentKind, parse_document
from sutura.core.json_schemas import WRITTEN, catalog_schema, schema_text, settings_schema
from sutura.core.settings import Settings
from tests.core import catalog_samples

ROOT = Path(__file__).resolve().parents[2]
CATALOG = jsonschema.Draft202012Validator(catalog_schema())
SETTINGS = jsonschema.Draft202012Validator(settings_schema())
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$", re.M)


@pytest.mark.parametrize("name", ["catalog", "settings"])
def test_the_shipped_schemas_are_the_generated_ones(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(msgspec.json.decode(shipped_text(name)))
    assert shipped_text(name) == schema_text(name), (
        "regenerate with: python -m sutura.boundary.schema_files"
    )


def _documents() -> list[tuple[str, str]]:
    """Every catalog document the project ships or tests with: the example's templates, the
    conformance catalog, the sample documents, and the documents docs/ shows whole."""
    found = [
        (str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
        for folder in ("src/sutura/example", "tests/conformance/catalog")
        for path in sorted((ROOT / folder).glob("*.md"))
    ]
    found += [
        (f"catalog_samples.{name}", text)
        for name, text in vars(catalog_samples).items()
        if name.isupper() and isinstance(text, str) and text.startswith("---\nkind: ")
    ]
    for doc in sorted((ROOT / "docs").glob("*.md")):
        blocks = re.findall(r"```(?:markdown|md)\n(---\n.*?)```", doc.read_text("utf-8"), re.S)
        found += [(f"{doc.name}[{i}]", block) for i, block in enumerate(blocks)]
    return found


DOCUMENTS = _documents()


def test_the_fixtures_hold_every_kind() -> None:
    kinds = set()
    for _, text in DOCUMENTS:
        front = read_front_matter("x.md", text)
        if is_successful(front):
            kinds.add(front.unwrap().values.get("kind"))
    assert kinds >= {kind.value for kind in DocumentKind}


@pytest.mark.parametrize(("label", "text"), DOCUMENTS, ids=[label for label, _ in DOCUMENTS])
def test_every_document_the_catalog_reads_is_valid_against_the_schema(
    label: str, text: str
) -> None:
    parsed = parse_document("x.md", text)
    if not is_successful(parsed):  # a docs excerpt with "..." is not a whole document
        assert label.startswith(tuple(f"{d.name}[" for d in (ROOT / "docs").glob("*.md")))
        return
    values = read_front_matter("x.md", text).unwrap().values
    assert [e.message for e in CATALOG.iter_errors(values)] == []


def test_the_written_example_and_its_modelines_are_valid(example_dir: Path) -> None:
    base = (example_dir / "base.yaml").read_text(encoding="utf-8")
    [settings_path] = MODELINE.findall(base)
    assert (example_dir / settings_path).read_text("utf-8") == shipped_text("settings")
    assert [e.message for e in SETTINGS.iter_errors(yaml.safe_load(base))] == []
    documents = sorted((example_dir / "catalog").glob("*.md"))
    assert documents
    for path in documents:
        text = path.read_text(encoding="utf-8")
        front = read_front_matter(path.name, text).unwrap()
        [schema_path] = MODELINE.findall(text.split("\n---\n", 1)[0])
        assert (path.parent / schema_path).read_text("utf-8") == shipped_text("catalog")
        assert [e.message for e in CATALOG.iter_errors(front.values)] == [], path.name


def _settings_files() -> list[tuple[str, str]]:
    """The YAML settings docs/ shows."""
    found = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        blocks = re.findall(r"```yaml\n(.*?)```", doc.read_text("utf-8"), re.S)
        found += [(f"{doc.name}[{i}]", block) for i, block in enumerate(blocks)]
    return found


@pytest.mark.parametrize(("label", "text"), _settings_files())
def test_every_settings_file_in_the_docs_that_loads_is_valid(
    label: str, text: str, tmp_path: Path
) -> None:
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    read = read_settings_file(tmp_path / "s.yaml")
    if not is_successful(read) or read.unwrap() is None:
        return
    values = read.unwrap()
    assert values is not None
    if _decodes_settings(values.values) and "sources" in values.values:
        assert [e.message for e in SETTINGS.iter_errors(values.values)] == []


# --- the schemas and the decoders agree on generated documents -------------------------------

_WORDS = st.text(alphabet="abcdefgh_ ", min_size=0, max_size=6)
_JUNK = st.sampled_from(["zz", "extra", "colour"])


def _plain(depth: int = 0) -> st.SearchStrategy[Any]:
    """Any plain value front matter can hold: text, nothing, lists and mappings of them."""
    leaf = st.one_of(_WORDS, st.none())
    if depth >= 2:
        return leaf
    return st.one_of(
        leaf,
        st.lists(_plain(depth + 1), max_size=2),
        st.dictionaries(_WORDS, _plain(depth + 1), max_size=2),
    )


def _shaped(info: mi.Type, leaf: st.SearchStrategy[Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Mostly a value of ``info``'s shape; one time in twelve anything else (a wrong type)."""
    if depth >= 4:
        return _plain(2)
    fitting = _fitting(info, leaf, depth)
    return st.integers(0, 11).flatmap(lambda n: _plain(1) if n == 0 else fitting)


def _fitting(info: mi.Type, leaf: st.SearchStrategy[Any], depth: int) -> st.SearchStrategy[Any]:
    match info:
        case mi.StructType():
            return _struct(info, leaf, depth)
        case mi.UnionType():
            return st.one_of([_fitting(t, leaf, depth) for t in info.types])
        case mi.ListType():
            return st.lists(_shaped(info.item_type, leaf, depth + 1), max_size=2)
        case mi.DictType():
            return st.dictionaries(_WORDS, _shaped(info.value_type, leaf, depth + 1), max_size=2)
        case mi.NoneType():
            return st.none()
        case _:
            return leaf


def _struct(
    info: mi.StructType, leaf: st.SearchStrategy[Any], depth: int
) -> st.SearchStrategy[Any]:
    """Required keys mostly there, optional keys now and then, an unknown key sometimes."""
    fields = [f for f in info.fields if f.encode_name != info.tag_field]
    required = {f.encode_name: _shaped(f.type, leaf, depth + 1) for f in fields if f.required}
    optional = {f.encode_name: _shaped(f.type, leaf, depth + 1) for f in fields if not f.required}
    tag = {} if info.tag_field is None else {info.tag_field: st.just(info.tag)}
    return st.tuples(
        st.fixed_dictionaries({**tag, **required}, optional=optional),
        st.lists(st.sampled_from(sorted(required) or [""]), max_size=1),  # a key left out
        st.dictionaries(_JUNK, _WORDS, max_size=1),
        st.integers(0, 9),
    ).map(
        lambda p: {
            **{k: v for k, v in p[0].items() if p[3] != 0 or k not in p[1]},
            **(p[2] if p[3] == 1 else {}),
        }
    )


@st.composite
def _catalog_documents(draw: st.DrawFn) -> tuple[DocumentKind, dict[str, Any]]:
    kind = draw(st.sampled_from(list(DocumentKind)))
    values = draw(_fitting(mi.type_info(WRITTEN[kind]), _WORDS, 0))
    return kind, {**values, "kind": kind.value}


# Bounded below the CI profile's thousand: each example validates against every kind's schema.
@settings(max_examples=200)
@given(_catalog_documents())
def test_the_catalog_schema_and_decoder_agree(
    generated: tuple[DocumentKind, dict[str, Any]],
) -> None:
    kind, values = generated
    try:
        msgspec.convert(values, WRITTEN[kind], strict=False)
        decoded = True
    except msgspec.ValidationError:
        decoded = False
    assert CATALOG.is_valid(values) == decoded


def _decodes_settings(values: dict[str, Any]) -> bool:
    layer = Layer(name="generated.yaml", values=values)
    below: dict[str, object] = {"environment": "development"}
    if layer_key_errors(layer, below):
        return False
    return is_successful(convert_settings(merge(below, values), [layer]))


_SETTING_LEAF = st.one_of(
    st.text(alphabet="abcdefgh-", min_size=0, max_size=6),
    st.sampled_from(["duckdb", "postgres", "spark", "quoted", "listed", "shared-service-user"]),
    st.integers(min_value=-2, max_value=70_000),
    st.booleans(),
    st.floats(min_value=-1, max_value=100, allow_nan=False).filter(lambda f: f != int(f)),
)


@settings(max_examples=200)
@given(_fitting(mi.type_info(Settings), _SETTING_LEAF, 0))
def test_the_settings_schema_and_decoder_agree(values: dict[str, Any]) -> None:
    values.pop("environment", None)  # only SUTURA_ENVIRONMENT chooses it
    assert SETTINGS.is_valid(values) == _decodes_settings(values)
