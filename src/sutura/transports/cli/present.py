"""How the command line presents what is not a reply: the check summary and a metric's
definition as pinned."""

import msgspec

from sutura.boundary.loading import Loaded
from sutura.boundary.service import Service
from sutura.core.catalog.view.formula import derived_formula, metric_formula, time_formula
from sutura.core.definitions.knowledge import means_metric
from sutura.core.definitions.model import Catalog, Derived, Metric
from sutura.core.text.escape import escape_text, is_escaped


def check_summary(loaded: Loaded, service: Service) -> str:
    """What ``sutura check`` confirms."""
    pinned = loaded.pinned
    catalog = pinned.catalog
    anchored = sum(1 for m in catalog.metrics if m.anchor is not None)
    sources = ", ".join(
        f"{escape_text(a)} ({dialect})" for a, dialect in sorted(service.source_dialects().items())
    )
    knowledge = catalog.knowledge
    return "\n".join(
        [
            "settings: ok",
            f"catalog: {metrics_counted(catalog)}, {len(catalog.models)} models, "
            f"{len(catalog.relationships)} relationships",
            "knowledge: "
            + ", ".join(
                [
                    _counted(len(knowledge.glossary), "glossary term", "glossary terms"),
                    _counted(len(knowledge.caveats), "caveat", "caveats"),
                    _counted(len(knowledge.not_defined), "term not defined", "terms not defined"),
                    _counted(len(knowledge.examples), "worked question", "worked questions"),
                ]
            ),
            f"definitions: {escape_text(pinned.version)} (digest {pinned.digest})",
            f"time zone: {escape_text(pinned.time_zone)}",
            f"sources: {sources or 'none'}",
            f"models: {len(catalog.models)} checked against their sources",
            f"anchors: {anchored} reproduced",
        ]
    )


def metrics_counted(catalog: Catalog) -> str:
    """How many metrics the catalog holds, derived ones counted too (and said how many)."""
    total = len(catalog.metrics) + len(catalog.derived)
    derived = f" ({len(catalog.derived)} derived)" if catalog.derived else ""
    return f"{_counted(total, 'metric', 'metrics')}{derived}"


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def describe_metric(loaded: Loaded, name: str) -> str | None:
    """One metric's whole pinned definition (operator view) with the caveats about it, the
    glossary terms that mean it and the worked questions that ask it, or None when it does not
    exist.

    JSON escapes every control character already; what JSON leaves raw and the escape set
    holds (an invisible or reordering character) is written as a JSON ``\\u`` escape too, so
    the output stays valid JSON of the same value and a line break reads ``\\n`` once.
    """
    catalog = loaded.pinned.catalog
    metric = catalog.metric(name) or catalog.derived_metric(name)
    if metric is None:
        return None
    knowledge = catalog.knowledge
    document = {
        "definition_version": loaded.pinned.version,
        "metric_digest": loaded.pinned.metric_digests[metric.name],
        "definition": msgspec.to_builtins(metric),
        **_formulas(metric),
        "caveats": msgspec.to_builtins(knowledge.caveats_of(metric.name)),
        "glossary": msgspec.to_builtins(
            [g for g in knowledge.glossary if means_metric(g.means) == metric.name]
        ),
        "examples": msgspec.to_builtins(
            [e for e in knowledge.examples if metric.name in e.question.metrics]
        ),
    }
    text = msgspec.json.format(msgspec.json.encode(document)).decode()
    return "".join(_json_escaped(ch) if not ch.isascii() and is_escaped(ch) else ch for ch in text)


def _formulas(metric: Metric | Derived) -> dict[str, str]:
    """The definition as formulas: the measure and its filters, and the time column."""
    if isinstance(metric, Derived):
        return {"formula": derived_formula(metric)}
    return {"formula": metric_formula(metric), "time": time_formula(metric)}


def _json_escaped(ch: str) -> str:
    """``ch`` as JSON's ``\\uXXXX`` (a surrogate pair beyond the BMP)."""
    units = ch.encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))
