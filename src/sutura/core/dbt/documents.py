"""The documents the import writes: the front-matter mark naming where each came from, and
descriptions and labels as prose (untrusted author text, like any other)."""

from collections.abc import Sequence
from typing import Final

from dbt_semantic_interfaces.protocols.metric import Metric

from sutura.core.catalog.draft import DraftDocument
from sutura.core.dbt.context import Context

MARK: Final = "# imported by sutura import dbt from {file}; a re-import never overwrites your edits"


def prose(description: str | None, label: str | None) -> str:
    """A description and a label as catalog prose: the author's text, lines kept."""
    parts = [p.replace("\r\n", "\n").strip() for p in (label, description) if p and p.strip()]
    if label and description and label.strip():
        parts[0] = f"{label.strip()}."
    return "\n\n".join(parts)


def metric_prose(metric: Metric) -> str:
    return prose(metric.description, metric.label) or (
        f"The dbt metric {metric.name} (it has no description)."
    )


def add_document(context: Context, path: str, lines: Sequence[str], body: str) -> None:
    text = "---\n" + "\n".join(lines) + "\n---\n" + _safe_body(body) + "\n"
    context.documents.append(DraftDocument(path=path, text=text))


def _safe_body(body: str) -> str:
    """Prose as a body the catalog reads back exactly: no carriage return, no line of its own
    ``---`` issue (the front matter has ended before it), no trailing blank lines."""
    cleaned = "".join(ch if ch in "\n\t" or ch.isprintable() else " " for ch in body)
    return cleaned.rstrip("\n") or "(no description)"
