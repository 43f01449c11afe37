"""The documents the import writes: the front-matter mark naming where each came from, and
descriptions and labels as prose (untrusted author text, like any other)."""

from collections.abc import Sequence
from typing import Final

from dbt_semantic_interfaces.protocols.metric import Metric
from returns.result import Result

from sutura.core.catalog.draft import DraftDocument
from sutura.core.dbt.context import Context
from sutura.core.text.escape import EscapeError, escape_text, unescape_text

_BLANK: Final = " \t\n"
_MARK_HEAD: Final = "# imported by sutura import dbt from "
_MARK_TAIL: Final = "; a re-import never overwrites your edits"


def mark(file: str) -> str:
    r"""The front-matter comment naming the file an element came from: one line, whatever the
    file's name holds (it is the dbt project's text, escaped: a line break in it cannot end the
    comment and write a key).

    >>> mark("models/orders.yml").removesuffix(" never overwrites your edits")
    '# imported by sutura import dbt from models/orders.yml; a re-import'
    >>> mark("a\nrequired_filters: []")[37:62]
    'a\\nrequired_filters: []; '
    """
    return _MARK_HEAD + escape_text(file) + _MARK_TAIL


def marked_file(line: str) -> Result[str, EscapeError]:
    """The file a :func:`mark` line names, exactly as the dbt project spelled it.

    >>> marked_file(mark("models/a;b\u2028.yml")).unwrap()
    'models/a;b\u2028.yml'
    """
    return unescape_text(line.removeprefix(_MARK_HEAD).removesuffix(_MARK_TAIL))


def prose(description: str | None, label: str | None) -> str:
    r"""A description and a label as catalog prose: the author's text, lines kept, only the
    blank space around it (spaces, tabs, line feeds) trimmed; every other character is kept, to
    be shown escaped like all catalog prose.

    >>> prose("Orders\u202e placed.\u2028", " Orders ")
    'Orders.\n\nOrders\u202e placed.\u2028'
    """
    parts = [
        p.replace("\r\n", "\n").strip(_BLANK) for p in (label, description) if p and p.strip(_BLANK)
    ]
    if label and description and label.strip(_BLANK):
        parts[0] = f"{label.strip(_BLANK)}."
    return "\n\n".join(parts)


def metric_prose(metric: Metric) -> str:
    return prose(metric.description, metric.label) or (
        f"The dbt metric {metric.name} (it has no description)."
    )


def add_document(context: Context, path: str, lines: Sequence[str], body: str) -> None:
    text = "---\n" + "\n".join(lines) + "\n---\n" + _safe_body(body) + "\n"
    context.documents.append(DraftDocument(path=path, text=text))


def _safe_body(body: str) -> str:
    """Prose as a body the catalog reads back exactly, every character kept (a control or an
    invisible one is shown escaped wherever the catalog is read; a line of its own ``---`` is
    prose, the front matter having ended before it), without trailing blank lines. A lone
    surrogate, which no UTF-8 file carries, is kept too: the import refuses the document."""
    return body.rstrip("\n") or "(no description)"
