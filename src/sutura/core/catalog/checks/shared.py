"""Shared dimensions: each model's checked once, and each metric's resolved to what it reads.

A model declares a dimension once (``dimensions:`` on the model, read from it). A metric uses
the shared dimensions of its own model and of every model its ``many_to_one`` relationships
reach: all of them when it writes no ``dimensions``, or those its list names. Each comes into
the metric re-rooted along the path of relationships from the metric's model (a column's ``via``
and every column of an expression start with that path), marked with the model that declares
it, so everything downstream (questions, statements, digests) reads it as a dimension of the
metric's own. A name is declared once among what a metric reaches: the same name on a model
and on the metric, or on two reached models the metric uses, is refused naming both places.
"""

from collections.abc import Iterator, Mapping

import msgspec
from returns.pipeline import is_successful

from sutura.core.catalog.checks.expressions import column_types, settle_dimension
from sutura.core.catalog.checks.paths import step_key, walk
from sutura.core.catalog.document.dimension import SharedName, SharedUses
from sutura.core.catalog.document.front_matter import nearest_line
from sutura.core.catalog.document.parse import Document
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.model import Dimension, Metric, Model, Relationship
from sutura.core.expression.nodes import expression_columns
from sutura.core.expression.reroot import Path, rerooted

Found = Mapping[str, tuple[Document, Model]]
_PATHS_KEPT = 2  # one path is a model's; a second is enough to say there are several


def settle_models(
    models: Found, relationships: Mapping[str, Relationship], metric_names: frozenset[str]
) -> tuple[dict[str, tuple[Document, Model]], list[CatalogError]]:
    """Every model with its shared dimensions checked (each chain walks from the model, the
    column is on the model it reaches, no metric has the name) and settled (expressions typed
    against the model's columns), and every problem found."""
    plain = {name: model for name, (_, model) in models.items()}
    settled: dict[str, tuple[Document, Model]] = {}
    errors: list[CatalogError] = []
    for name, (doc, model) in models.items():
        columns = column_types(plain, relationships, model.name)
        dimensions = []
        for i, dimension in enumerate(model.dimensions):
            key = f"dimensions[{i}]"
            if dimension.name in metric_names:
                errors.append(
                    doc.error(f"{key}.name", "a dimension may not share its name with a metric")
                )
            errors.extend(_column_errors(plain, relationships, doc, model, key, dimension))
            done, problems = settle_dimension(doc, key, dimension, columns)
            dimensions.append(done)
            errors.extend(problems)
        settled[name] = (doc, msgspec.structs.replace(model, dimensions=tuple(dimensions)))
    return settled, errors


def _column_errors(
    models: Mapping[str, Model],
    relationships: Mapping[str, Relationship],
    doc: Document,
    model: Model,
    key: str,
    dimension: Dimension,
) -> Iterator[CatalogError]:
    if dimension.column is None:
        return  # an expression's columns are checked when it is settled
    walked = walk(relationships, model.name, dimension.via)
    if not is_successful(walked):
        step, problem = walked.failure()
        yield doc.error(step_key(key, dimension.via, step), problem)
        return
    target = models.get(walked.unwrap())
    if target is not None and not target.has_column(dimension.column):
        problem = f"the model {quoted(target.name)} has no column {quoted(dimension.column)}"
        yield doc.error(f"{key}.column", problem)


def reached_paths(relationships: Mapping[str, Relationship], start: str) -> dict[str, list[Path]]:
    """The models reached from ``start`` along relationships (``start`` itself by the empty
    path), nearest first, each with its paths (at most two are kept: a second says the model
    is reached in more than one way). A path visits each model once."""
    return _reached(_outgoing(relationships), start)


def _outgoing(relationships: Mapping[str, Relationship]) -> dict[str, list[Relationship]]:
    """Each model's relationships, by name."""
    outgoing: dict[str, list[Relationship]] = {}
    for relationship in sorted(relationships.values(), key=lambda r: r.name):
        outgoing.setdefault(relationship.origin_model, []).append(relationship)
    return outgoing


def _reached(outgoing: dict[str, list[Relationship]], start: str) -> dict[str, list[Path]]:
    paths: dict[str, list[Path]] = {start: [()]}
    frontier: list[tuple[str, Path, frozenset[str]]] = [(start, (), frozenset({start}))]
    while frontier:
        following: list[tuple[str, Path, frozenset[str]]] = []
        for model, path, visited in frontier:
            for relationship in outgoing.get(model, []):
                target = relationship.target_model
                known = paths.setdefault(target, [])
                if target in visited or len(known) >= _PATHS_KEPT:
                    continue
                known.append((*path, relationship.name))
                following.append((target, (*path, relationship.name), visited | {target}))
        frontier = following
    return {model: found for model, found in paths.items() if found}


class _Offer(msgspec.Struct, frozen=True):
    """A shared dimension a metric reaches: its model, its place there and its paths."""

    model: str
    index: int
    dimension: Dimension
    paths: list[Path]


def _offers(models: Found, paths: dict[str, list[Path]]) -> dict[str, list[_Offer]]:
    """Each shared dimension name a metric reaches, with every model that declares it."""
    offers: dict[str, list[_Offer]] = {}
    for model_name, found in paths.items():
        model = models.get(model_name)
        for i, dimension in enumerate(() if model is None else model[1].dimensions):
            offer = _Offer(model=model_name, index=i, dimension=dimension, paths=found)
            offers.setdefault(dimension.name, []).append(offer)
    return offers


def _place(models: Found, offer: _Offer) -> str:
    """Where a shared dimension is declared: its file, line and key."""
    doc = models[offer.model][0]
    key = f"dimensions[{offer.index}].name"
    return f"{quoted(doc.file)} line {nearest_line(doc.lines, key)}, {key}"


def _chain(path: Path) -> str:
    return ", ".join(quoted(name) for name in path) if path else "the model itself"


class Reach:
    """What each model reaches along the relationships, and the shared dimensions it is
    offered there: found once per model, however many metrics it holds (each metric's own
    search was most of checking a catalog of 2,000 metrics). Both are only read once found."""

    def __init__(self, models: Found, relationships: Mapping[str, Relationship]) -> None:
        self.models = models
        self.relationships = relationships
        self._outgoing = _outgoing(relationships)
        self._found: dict[str, tuple[dict[str, list[Path]], dict[str, list[_Offer]]]] = {}

    def of(self, start: str) -> tuple[dict[str, list[Path]], dict[str, list[_Offer]]]:
        """The models ``start`` reaches with their paths (:func:`reached_paths`), and each
        shared dimension name offered there with every model that declares it."""
        found = self._found.get(start)
        if found is None:
            paths = _reached(self._outgoing, start)
            found = self._found[start] = (paths, _offers(self.models, paths))
        return found


def resolve_dimensions(
    reach: Reach, doc: Document, metric: Metric
) -> tuple[Metric, list[CatalogError]]:
    """``metric`` with the shared dimensions it uses in its list's places (all it reaches, in
    the order reached, when it lists none), and every problem found in using them."""
    uses = doc.uses
    if uses is None or metric.model not in reach.models:
        return metric, []  # the metric's own checks name a missing model
    paths, offers = reach.of(metric.model)
    resolver = _Resolver(reach.models, reach.relationships, doc, metric, offers)
    resolver.reached = frozenset(paths)
    return resolver.resolved(uses)


class _Resolver:
    """Resolves one metric's shared dimensions, collecting problems."""

    def __init__(
        self,
        models: Found,
        relationships: Mapping[str, Relationship],
        doc: Document,
        metric: Metric,
        offers: dict[str, list[_Offer]],
    ) -> None:
        self.models = models
        self.relationships = relationships
        self.doc = doc
        self.metric = metric
        self.offers = offers
        self.errors: list[CatalogError] = []
        self.reached: frozenset[str] = frozenset()

    def resolved(self, uses: SharedUses) -> tuple[Metric, list[CatalogError]]:
        named = {use.index: use for use in uses.named}
        size = len(named) + len(self.metric.dimensions)
        own = iter(self.metric.dimensions)
        dimensions: list[Dimension] = []
        seen: set[str] = set()
        for index in range(size):
            use = named.get(index)
            if use is None:
                dimension = next(own)
                self._own(f"dimensions[{index}]", dimension)
                dimensions.append(dimension)
                continue
            if use.name in seen:
                problem = f"the dimension {quoted(use.name)} is listed twice"
                self.errors.append(self.doc.error(f"dimensions[{index}]", problem))
                continue
            seen.add(use.name)
            dimensions.extend(self._named(f"dimensions[{index}]", use))
        if uses.every:
            for name in self.offers:
                dimensions.extend(self._every(name))
        resolved = msgspec.structs.replace(self.metric, dimensions=tuple(dimensions))
        return resolved, self.errors

    def _own(self, key: str, dimension: Dimension) -> None:
        """A dimension the metric declares may not take a name a model it reaches declares."""
        for offer in self.offers.get(dimension.name, []):
            problem = (
                f"the model {quoted(offer.model)} declares the dimension "
                f"{quoted(dimension.name)} for every metric that reaches it "
                f"(in {_place(self.models, offer)}); a name is declared once: list it by name, "
                "or give this one another name"
            )
            self.errors.append(self.doc.error(f"{key}.name", problem))

    def _named(self, key: str, use: SharedName) -> Iterator[Dimension]:
        offers = self.offers.get(use.name, [])
        if use.model is not None:
            if use.model not in self.models:
                self._fail(key, f"no model is called {quoted(use.model)}")
                return
            if not any(o.model == use.model for o in offers):
                self._fail(key, self._not_reached(use))
                return
            offers = [o for o in offers if o.model == use.model]
        if not offers:
            self._fail(key, self._not_offered(use.name))
            return
        if len(offers) > 1:
            self._fail(key, self._ambiguous(use.name, offers))
            return
        yield from self._taken(key, offers[0])

    def _every(self, name: str) -> Iterator[Dimension]:
        offers = self.offers[name]
        if len(offers) > 1:
            self._fail("dimensions", self._ambiguous(name, offers))
            return
        yield from self._taken("dimensions", offers[0])

    def _taken(self, key: str, offer: _Offer) -> Iterator[Dimension]:
        """The shared dimension re-rooted along the one path that reaches its model."""
        if len(offer.paths) > 1:
            first, second = offer.paths[0], offer.paths[1]
            self._fail(
                key,
                f"the model {quoted(offer.model)}, which declares the dimension "
                f"{quoted(offer.dimension.name)} (in {_place(self.models, offer)}), is reached "
                f"along two paths ({_chain(first)}; and {_chain(second)}), so which of its rows "
                "the dimension reads is not one; declare the dimension on this metric with the "
                "via chain it means",
            )
            return
        path = offer.paths[0]
        dimension = offer.dimension
        expression = dimension.expression
        shared = msgspec.structs.replace(
            dimension,
            via=(*path, *dimension.via) if dimension.column is not None else (),
            expression=None if expression is None else rerooted(expression, path),
            shared_from=offer.model,
        )
        for chain in _chains(shared):
            walked = walk(self.relationships, self.metric.model, chain)
            if not is_successful(walked):
                self._fail(
                    key,
                    f"the dimension {quoted(dimension.name)} of the model {quoted(offer.model)} "
                    f"(in {_place(self.models, offer)}), read from the model "
                    f"{quoted(self.metric.model)}: {walked.failure()[1]}",
                )
                return
        yield shared

    def _not_reached(self, use: SharedName) -> str:
        model = quoted(use.model or "")
        if use.model in self.reached:
            return f"the model {model} declares no dimension {quoted(use.name)}"
        return (
            f"the model {model} is not the metric's model {quoted(self.metric.model)} "
            "nor reached from it along relationships"
        )

    def _not_offered(self, name: str) -> str:
        return (
            f"no dimension {quoted(name)} is declared by the model {quoted(self.metric.model)} "
            "or by a model it reaches along relationships; declare it on a model, or write it "
            "here in full ({name, column} or {name, expression, type})"
        )

    def _ambiguous(self, name: str, offers: list[_Offer]) -> str:
        first, second = offers[0], offers[1]
        return (
            f"the dimension {quoted(name)} is declared by two models this metric reaches: "
            f"{quoted(first.model)} (in {_place(self.models, first)}) and {quoted(second.model)} "
            f"(in {_place(self.models, second)}); list the one this metric uses as "
            f"{first.model}.{name} or {second.model}.{name}"
        )

    def _fail(self, key: str, problem: str) -> None:
        self.errors.append(self.doc.error(key, problem))


def _chains(dimension: Dimension) -> Iterator[Path]:
    """Every chain a dimension reads along from the metric's model."""
    if dimension.expression is None:
        yield dimension.via
        return
    for column in expression_columns(dimension.expression):
        yield column.via
