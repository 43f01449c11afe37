"""A new ``CatalogProse`` spelling is a type error wherever the setting is read.

The proof runs mypy on two copies of the real ``core/catalog/prose.py`` (which holds every reader of
the setting): unchanged, it passes; with one more member, each reader's ``assert_never``
fails. A second test reads every module of the package and fails on a reader that is not such
a match: a comparison against a member, or a match over it without ``assert_never`` last.
``Posture`` (whose identity reads a source) is held to the same gate.
"""

import ast
import subprocess
import sys
from pathlib import Path

import sutura
from sutura.core.catalog import prose

PACKAGE = Path(sutura.__file__).parent
GROWN = 'OMITTED = "omitted"\n    SUMMARIZED = "summarized"'
EXPECTED = (
    'Argument 1 to "assert_never" has incompatible type "Literal[CatalogProse.SUMMARIZED]"; '
    'expected "Never"'
)


def test_a_new_catalog_prose_member_fails_mypy_at_every_reader(tmp_path: Path) -> None:
    source = Path(prose.__file__).read_text(encoding="utf-8")
    assert source.count('OMITTED = "omitted"') == 1
    (tmp_path / "prose_as_built.py").write_text(source, encoding="utf-8")
    (tmp_path / "prose_grown.py").write_text(source.replace('OMITTED = "omitted"', GROWN))
    command = [sys.executable, "-m", "mypy", "--strict", "--config-file=", "--no-incremental"]
    command += ["--cache-dir", str(tmp_path / "cache"), "prose_as_built.py", "prose_grown.py"]
    run = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    readers = source.count("assert_never(setting)")
    assert readers >= 2
    assert [e for e in errors if e.startswith("prose_grown.py") and EXPECTED in e] == [
        e for e in errors
    ]
    assert len(errors) == readers, run.stdout
    assert run.returncode == 1


CLOSED_VOCABULARIES = frozenset({"CatalogProse", "Posture"})


def _is_closed_member(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in CLOSED_VOCABULARIES
    )


def _ends_with_assert_never(match: ast.Match) -> bool:
    last = match.cases[-1]
    body = last.body[0] if len(last.body) == 1 else None
    call = body.value if isinstance(body, ast.Expr) else None
    return (
        isinstance(last.pattern, ast.MatchAs)
        and last.pattern.pattern is None
        and isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "assert_never"
    )


def _loose_readers(tree: ast.AST) -> list[int]:
    """Line numbers reading the setting other than through an exhaustive match."""
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(map(_is_closed_member, [node.left, *node.comparators])):
                lines.append(node.lineno)
        elif isinstance(node, ast.Match):
            patterns = [n for case in node.cases for n in ast.walk(case.pattern)]
            if any(map(_is_closed_member, patterns)) and not _ends_with_assert_never(node):
                lines.append(node.lineno)
    return lines


def test_every_reader_of_the_prose_setting_or_a_posture_is_an_exhaustive_match() -> None:
    loose = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if (found := _loose_readers(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert loose == {}


def test_the_gate_catches_a_comparison_and_an_open_match() -> None:
    compared = ast.parse("if prose == CatalogProse.OMITTED:\n    pass\n")
    opened = ast.parse(
        "match p:\n    case CatalogProse.QUOTED:\n        pass\n    case _:\n        pass\n"
    )
    assert _loose_readers(compared) == [1] and _loose_readers(opened) == [1]
    posture = ast.parse("if p is Posture.SHARED_SERVICE_USER:\n    pass\n")
    assert _loose_readers(posture) == [1]
