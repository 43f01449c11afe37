"""What every step of the dbt import reads and adds to (:class:`Context`), and the nouns they
pass one another: a carried-over model, a simple metric's term, what a metric carried over
offers those reading it, and each thing not carried over with its reason."""

from collections.abc import Mapping
from typing import NamedTuple

from dbt_semantic_interfaces.protocols.measure import Measure
from dbt_semantic_interfaces.protocols.semantic_model import SemanticModel

from sutura.core.catalog.draft import DraftDocument
from sutura.core.dbt.tree import Tree


class Skipped(NamedTuple):
    """One thing not carried over (or carried over without one of its properties)."""

    file: str
    item: str
    reason: str

    def line(self) -> str:
        """``file: item: reason``, as the command prints it."""
        return f"{self.file}: {self.item}: {self.reason}"


class Rewritten(NamedTuple):
    """A derived metric carried over as more than one document, or with a scale: what was made
    of it."""

    file: str
    metric: str
    made: str

    def line(self) -> str:
        """``file: metric name: what was made``, as the command prints it."""
        return f"{self.file}: metric {self.metric}: {self.made}"


class Model(NamedTuple):
    """A semantic model carried over: its catalog name, file, columns, key and entity."""

    name: str
    file: str
    semantic: SemanticModel
    columns: dict[str, str]
    key: str | None
    entity: str | None


class FilterDimension(NamedTuple):
    """A dimension a filter on one model can read: its MetricFlow name and its tree."""

    name: str
    tree: Tree


class Term(NamedTuple):
    """A simple metric's measure on its model: the term, its filters, its time column."""

    model: str
    term: dict[str, Tree]
    filters: list[Tree]
    time_column: str
    grains: list[str]
    semi: dict[str, Tree] | None = None


class Carried(NamedTuple):
    """What a metric carried over offers a derived metric over it (model: None if derived)."""

    grains: list[str]
    dimensions: list[str]
    model: str | None


class Context:
    """What every step reads and adds to: models, relationships, what was skipped."""

    def __init__(self, source: str, files: Mapping[str, str]) -> None:
        self.source = source
        self.files = files
        self.models: dict[str, Model] = {}
        self.by_semantic: dict[str, str] = {}
        self.primary: dict[str, str] = {}  # entity name -> model name
        self.joins: dict[str, list[tuple[str, str, str]]] = {}  # model -> (entity, rel, target)
        self.skipped: list[Skipped] = []
        self.rewritten: list[Rewritten] = []
        self.documents: list[DraftDocument] = []
        self.taken_models: set[str] = set()
        self.taken_relationships: set[str] = set()
        self.dims: dict[str, list[FilterDimension]] = {}
        self.shared: dict[str, list[str]] = {}  # model -> the shared dimensions it declares
        self.metric_names: frozenset[str] = frozenset()
        self.carried_dims: set[tuple[str, str]] = set()
        self.refused_dims: set[tuple[str, str]] = set()
        self.measures: dict[str, tuple[Model, Measure]] = {}
        self.terms: dict[str, Term] = {}
        self.carried: dict[str, Carried] = {}
        self.used_measures: set[str] = set()

    def file_of(self, kind: str, name: str) -> str:
        return self.files.get(f"{kind}.{name}", "target/semantic_manifest.json")

    def skip(self, file: str, item: str, reason: str) -> None:
        self.skipped.append(Skipped(file=file, item=item, reason=reason))
