"""What a person reads beside a dimension refusal: which dimension, and what the metric allows.

A refusal's own sentence is fixed (an agent reads it, and it never echoes what was asked). A
person at the command line, who sees every metric, also gets the dimension named and what the
metric lists instead: its dimensions, or the values a dimension allows (tab-separated escaped
cells, as the catalog lists them: an empty value, or one holding a comma, is still one value).
The values asked are not repeated. Every name is escaped, so a catalog's name cannot move a
terminal's cursor.
For ``--by regoin`` on the example: ``the metric revenue has no dimension regoin; it lists:
region, channel, segment``.
"""

from collections.abc import Iterable

from sutura.core.definitions.model import Catalog, Dimension
from sutura.core.definitions.tree import leaves
from sutura.core.nouns.question import Question
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.question.filters import given_values
from sutura.core.text.escape import escape_cell, escape_text


def dimension_help(question: Question, catalog: Catalog, code: RefusalCode) -> list[str]:
    """Lines naming the dimension a refusal of ``code`` is about and what each metric asked
    allows instead; none for any other refusal."""
    match code:
        case RefusalCode.DIMENSION_NOT_PERMITTED:
            return _not_permitted(question, catalog)
        case RefusalCode.DIMENSION_VALUE_NOT_ALLOWED:
            return _not_allowed(question, catalog)
        case _:  # every other refusal's sentence says all there is to say
            return []


def _not_permitted(question: Question, catalog: Catalog) -> list[str]:
    asked = [*question.dimensions, *(f.dimension for f in question.filters)]
    lines = []
    for name in question.metrics:
        listed = dimensions_of(catalog, name)
        missing = next((d for d in asked if listed is not None and d not in listed), None)
        if listed is None or missing is None:
            continue
        lines.append(
            f"the metric {escape_text(name)} has no dimension {escape_text(missing)};"
            f" it lists: {_listing(listed) or 'no dimensions'}"
        )
    return lines


def _not_allowed(question: Question, catalog: Catalog) -> list[str]:
    lines = []
    for name in question.metrics:
        listed = dimensions_of(catalog, name) or {}
        for item in question.filters:
            dimension = listed.get(item.dimension)
            if dimension is None or dimension.values is None:
                continue
            if all(v in dimension.values for v in given_values(item)):
                continue
            lines.append(
                f"the metric {escape_text(name)} allows these values of the dimension"
                f" {escape_text(dimension.name)}:"
                + "".join(f"\t{escape_cell(v)}" for v in dimension.values)
            )
    return lines


def dimensions_of(catalog: Catalog, name: str) -> dict[str, Dimension] | None:
    """The dimensions the metric ``name`` lists, by name (a derived metric's as the first
    metric with a measure of its tree defines them); None when there is no such metric."""
    metric = catalog.metric(name)
    if metric is not None:
        return {d.name: d for d in metric.dimensions}
    derived = catalog.derived_metric(name)
    found_leaves = leaves(catalog.metric, catalog.derived_metric, [name])
    if derived is None or not found_leaves:
        return None
    first = found_leaves[0]
    found = {n: first.dimension(n) for n in derived.dimensions}
    return {n: d for n, d in found.items() if d is not None}


def _listing(names: Iterable[str]) -> str:
    return ", ".join(escape_text(n) for n in names)
