"""One catalog document: front matter and body to a validated definition or knowledge document.

The first problem found is returned as a :class:`CatalogError` naming the file, the line and
the key path. Checks across documents (a metric's columns exist on its model, ``via`` chains
resolve, names are unique, knowledge refers to what exists) are in
:mod:`sutura.core.catalog.checks`.

>>> text = "---\\nkind: metric\\nname: revenue\\n---\\n"
>>> parse_document("metrics/revenue.md", text).failure().sentence()
'metrics/revenue.md:1: model: missing required key'
>>> text = "---\\nkind: model\\nname: sales\\nsource: main\\ntable: orders\\ncolumns: [id]\\n---\\n"
>>> parse_document("models/sales.md", text).unwrap().definition.table
('orders',)
"""

from collections.abc import Mapping
from enum import StrEnum
from typing import assert_never

from returns.result import Failure, Result, Success

from sutura.core.catalog.document.build import Checker, build_model, build_relationship
from sutura.core.catalog.document.derived import build_derived
from sutura.core.catalog.document.dimension import SharedUses, model_dimensions
from sutura.core.catalog.document.front_matter import (
    DocumentError,
    FrontMatter,
    KnownFronts,
    PlainValue,
    nearest_line,
    read_front_matter,
)
from sutura.core.catalog.document.knowledge import (
    build_caveat,
    build_example,
    build_glossary,
    build_not_defined,
)
from sutura.core.catalog.document.metric import build_metric
from sutura.core.catalog.document.written import (
    WrittenCaveat,
    WrittenDerivedMetric,
    WrittenExample,
    WrittenGlossary,
    WrittenMetric,
    WrittenModel,
    WrittenNotDefined,
    WrittenRelationship,
)
from sutura.core.catalog.error import CatalogError
from sutura.core.definitions.knowledge import Caveat, GlossaryTerm, NotDefined, WorkedExample
from sutura.core.definitions.model import Derived, Metric, Model, Relationship
from sutura.core.nouns.frozen import Frozen

Definition = Model | Relationship | Metric | GlossaryTerm | Caveat | NotDefined | WorkedExample
"""What a document defines; a derived metric (``Derived``) is a metric document too."""


class DocumentKind(StrEnum):
    """What ``kind:`` a document declares; each kind has its own schema."""

    MODEL = "model"
    RELATIONSHIP = "relationship"
    METRIC = "metric"
    GLOSSARY = "glossary"
    CAVEAT = "caveat"
    NOT_DEFINED = "not_defined"
    EXAMPLE = "example"


class Document(Frozen, frozen=True):
    """One parsed document: its file, its definition and the line of every key path in it."""

    file: str
    definition: Definition | Derived
    lines: Mapping[str, int]
    uses: SharedUses | None = None
    """For a metric with a measure: the shared dimensions it uses (resolved with the catalog)."""

    def error(self, key: str, problem: str) -> CatalogError:
        """A :class:`CatalogError` at ``key`` (or its nearest enclosing key) of this document."""
        line = nearest_line(self.lines, key)
        return CatalogError(file=self.file, line=line, key=key, problem=problem)


def parse_document(
    file_label: str, text: str, known: KnownFronts | None = None
) -> Result[Document, CatalogError]:
    """Parse one catalog document.

    Args:
        file_label: the file's path relative to the catalog directory (POSIX), for errors.
        text: the whole file, already decoded.
        known: front matters read before (:class:`KnownFronts`), or None.

    Returns:
        The document, or the first problem in it.
    """
    return read_front_matter(file_label, text, known).bind(
        lambda front: _document(file_label, front)
    )


def _document(file_label: str, front: FrontMatter) -> Result[Document, CatalogError]:
    check = Checker(file_label, front.lines)
    try:
        definition = _definition(check, front)
    except DocumentError as refused:
        return Failure(refused.error)
    uses: SharedUses | None = None
    if isinstance(definition, tuple):
        definition, uses = definition
    return Success(Document(file=file_label, definition=definition, lines=front.lines, uses=uses))


def _definition(
    check: Checker, front: FrontMatter
) -> Definition | Derived | tuple[Metric, SharedUses]:
    kind = _kind(check, front.values.get("kind"))
    match kind:
        case DocumentKind.MODEL:
            written_model = check.convert(front.values, WrittenModel)
            dimensions = model_dimensions(check, written_model.dimensions)
            return build_model(check, written_model, front.body, dimensions)
        case DocumentKind.RELATIONSHIP:
            written = check.convert(front.values, WrittenRelationship)
            return build_relationship(check, written, front.body)
        case DocumentKind.METRIC:
            if "derived" in front.values:
                written_derived = check.convert(front.values, WrittenDerivedMetric)
                return build_derived(check, written_derived, front.body)
            return build_metric(check, check.convert(front.values, WrittenMetric), front.body)
        case DocumentKind.GLOSSARY:
            return build_glossary(check, check.convert(front.values, WrittenGlossary), front.body)
        case DocumentKind.CAVEAT:
            return build_caveat(check, check.convert(front.values, WrittenCaveat), front.body)
        case DocumentKind.NOT_DEFINED:
            written_phrase = check.convert(front.values, WrittenNotDefined)
            return build_not_defined(check, written_phrase, front.body)
        case DocumentKind.EXAMPLE:
            return build_example(check, check.convert(front.values, WrittenExample), front.body)
        case _:
            assert_never(kind)


def _kind(check: Checker, kind: PlainValue) -> DocumentKind:
    expected = "expected one of " + ", ".join(DocumentKind)
    if kind is None:
        check.fail("kind", f"missing required key; {expected}")
    if not isinstance(kind, str) or kind not in set(DocumentKind):
        check.fail("kind", expected)
    return DocumentKind(kind)
