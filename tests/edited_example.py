"""A deployment made from the example catalog, edited the way an operator would edit it."""

from collections.abc import Callable
from pathlib import Path

Edit = Callable[[str, str], str]
"""(file name, text) -> the text to write."""

BASE = (
    "catalog: {dir: catalog, version: t}\n"
    "security: {identity: single-user, single_user_because: one user runs the tests}\n"
    "sources:\n  main: {kind: duckdb, path: main.duckdb}\n"
)
"""Ends with the ``sources`` mapping, so a test may append a source to it."""


def edited_example(
    example_dir: Path, config: Path, edit: Edit | None = None, base: str = BASE
) -> Path:
    """``config`` holding ``base.yaml`` and the example catalog, each document through ``edit``."""
    (config / "catalog").mkdir(parents=True)
    for document in sorted((example_dir / "catalog").iterdir()):
        text = document.read_text(encoding="utf-8")
        written = edit(document.name, text) if edit else text
        (config / "catalog" / document.name).write_text(written, encoding="utf-8")
    (config / "base.yaml").write_text(base, encoding="utf-8")
    return config


def customers_on_crm(name: str, text: str) -> str:
    """The example with its ``customers`` model moved to the source ``crm``."""
    return text.replace("source: main", "source: crm") if name == "customers.md" else text
