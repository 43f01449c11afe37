"""Every tree of Python code the project holds, read as syntax trees by the AST gates."""

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).parents[2]
# The package, its tests, the benchmarks and the documented examples.
PROJECT = ("src", "tests", "bench", "docs/examples")


def project_modules() -> Iterator[tuple[str, ast.Module]]:
    """(path from the root, syntax tree) of every module of :data:`PROJECT`."""
    for tree in PROJECT:
        for path in sorted((ROOT / tree).rglob("*.py")):
            if "node_modules" in path.parts:  # the external MCP clients' npm packages
                continue
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))
