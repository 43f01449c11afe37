"""A new member of a closed vocabulary is a type error wherever the vocabulary is dispatched.

For each row of :data:`~tests.typing.vocabularies.VOCABULARIES`, the test copies the whole
package to a temporary directory, adds one member to every vocabulary there, runs mypy (the
project's configuration) once over the copy and requires, for each row, an ``assert_never``
error naming its new member at exactly the row's readers. In the core and the boundary
modules this branch owns, no other error may appear: a reader that is not such a match would
show up as one (or, if it is an ``isinstance`` chain, as nothing at all — which the AST gates
below catch instead).

The gates read every module: the prose setting is read only through exhaustive matches; in
the core, no vocabulary of the table is compared against, ``isinstance``-checked or matched
without ``assert_never`` last. Nowhere in the project (the package, its tests, the benchmarks,
the examples) is a ``returns`` result narrowed with ``isinstance``: that narrows to
``Success[Any]`` and mypy stays silent (``test_revealed_types.py`` shows it).
"""

import ast
import collections
import configparser
import logging
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.typing.project import project_modules
from tests.typing.vocabularies import PACKAGE, VOCABULARIES, Vocabulary

ROOT = PACKAGE.parents[1]
log = logging.getLogger(__name__)
# Modules where every reader of a vocabulary must be an exhaustive match (the rest of the
# package is checked by mypy, but not held to the table).
OWNED = ("core/", "boundary/example.py", "boundary/catalog_files.py")
_ERROR = re.compile(r"^sutura/(?P<module>[^:]+):(?P<line>\d+): error: (?P<message>.*)$")


class Copy:
    """One copy of the package, with the project's mypy configuration and a warm cache."""

    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.copytree(PACKAGE, root / "sutura", ignore=shutil.ignore_patterns("__pycache__"))
        # Seeded from the project's own cache where `make check` left one: mypy checks again
        # every module whose source hash differs from the cache's, so the seed saves work and
        # changes no verdict (about 30 s of a cold run over the package).
        if (ROOT / ".mypy_cache").is_dir():
            try:
                shutil.copytree(ROOT / ".mypy_cache", root / "cache")
            except OSError:  # a cache being written meanwhile: what was not copied starts cold
                log.info("exhaustiveness: the project's mypy cache was copied in part")
        config = configparser.ConfigParser()
        config.read(ROOT / "mypy.ini", encoding="utf-8")
        config.remove_option("mypy", "files")
        config.set("mypy", "mypy_path", str(ROOT / "typings"))
        with (root / "mypy.ini").open("w", encoding="utf-8") as handle:
            config.write(handle)

    def mypy(self) -> tuple[int, list[tuple[str, str]]]:
        """mypy's exit status over the copy, and its errors as (module, message)."""
        command = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini"]
        command += ["--cache-dir", str(self.root / "cache"), "-p", "sutura"]
        run = subprocess.run(
            command, cwd=self.root, capture_output=True, text=True, timeout=300, check=False
        )
        errors = [_ERROR.match(line) for line in run.stdout.splitlines()]
        return run.returncode, [(e["module"], e["message"]) for e in errors if e is not None]


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Copy:
    return Copy(tmp_path_factory.mktemp("exhaustiveness"))


def _expected(vocabulary: Vocabulary) -> str:
    return (
        f'Argument 1 to "assert_never" has incompatible type "{vocabulary.member}"; '
        'expected "Never"'
    )


@pytest.fixture(scope="module")
def grown(copy: Copy) -> tuple[int, list[tuple[str, str]]]:
    """mypy over the copy with one more member in *every* vocabulary, restored afterwards.

    One run for the whole table: each new member has its own name in mypy's message, so each
    row finds its own errors among them (two rows never grow a member of the same name)."""
    assert len({v.member for v in VOCABULARIES}) == len(VOCABULARIES), "a member named twice"
    originals: dict[Path, str] = {}
    try:
        for vocabulary in VOCABULARIES:
            path = copy.root / "sutura" / vocabulary.growth.module
            source = path.read_text(encoding="utf-8")
            originals.setdefault(path, source)
            assert source.count(vocabulary.growth.old) == 1, "the vocabulary's definition moved"
            grown_source = source.replace(vocabulary.growth.old, vocabulary.growth.new)
            path.write_text(grown_source, "utf-8")
        return copy.mypy()
    finally:  # restored before any other test reads the copy
        for path, source in originals.items():
            path.write_text(source, encoding="utf-8")


@pytest.mark.parametrize("vocabulary", VOCABULARIES, ids=lambda v: v.behaviour)
def test_a_new_member_fails_mypy_at_each_reader(
    grown: tuple[int, list[tuple[str, str]]], vocabulary: Vocabulary
) -> None:
    status, errors = grown
    expected = _expected(vocabulary)
    failed = collections.Counter(module for module, message in errors if expected in message)
    assert dict(failed) == vocabulary.readers
    assert status == 1


def test_no_reader_in_the_owned_modules_fails_other_than_at_an_exhaustive_match(
    grown: tuple[int, list[tuple[str, str]]],
) -> None:
    _, errors = grown
    expected = [_expected(v) for v in VOCABULARIES]
    owned = [e for e in errors if e[0].startswith(OWNED) and not any(x in e[1] for x in expected)]
    assert owned == [], "a reader that is not an exhaustive match"


def test_the_copy_as_built_passes_mypy(copy: Copy) -> None:
    assert copy.mypy() == (0, [])


PROSE = frozenset({"CatalogProse"})
RESULTS = frozenset({"Success", "Failure"})


def _mentions(node: ast.AST, names: frozenset[str]) -> bool:
    """Whether ``node`` names a member of an enum in ``names``, or a class in ``names``."""
    match node:
        case ast.Attribute(value=ast.Name(id=name)) | ast.MatchClass(cls=ast.Name(id=name)):
            return name in names
        case _:
            return False


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


def _isinstance_of(node: ast.AST, names: frozenset[str]) -> bool:
    """Whether ``node`` is ``isinstance(x, K)`` (or a tuple or union of kinds) with K in names,
    named alone or through its module (``result.Success``)."""
    match node:
        case ast.Call(func=ast.Name(id="isinstance"), args=[_, kinds]):
            return any(_named(n) in names for n in ast.walk(kinds))
        case _:
            return False


def _named(node: ast.AST) -> str | None:
    match node:
        case ast.Name(id=name) | ast.Attribute(attr=name):
            return name
        case _:
            return None


def _is_loose(node: ast.AST, names: frozenset[str]) -> bool:
    """Whether ``node`` reads a vocabulary in ``names`` other than through an exhaustive match."""
    match node:
        case ast.Compare(left=left, comparators=comparators):
            return any(_mentions(n, names) for n in [left, *comparators])
        case ast.Match(cases=cases):
            patterns = [n for case in cases for n in ast.walk(case.pattern)]
            return any(_mentions(n, names) for n in patterns) and not _ends_with_assert_never(node)
        case _:
            return _isinstance_of(node, names)


def _loose_readers(tree: ast.AST, names: frozenset[str] = PROSE) -> list[int]:
    """Line numbers reading a vocabulary in ``names`` other than through an exhaustive match."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.expr | ast.stmt) and _is_loose(node, names)
    ]


def _modules(*prefixes: str) -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name.startswith(prefixes):
            yield name, ast.parse(path.read_text(encoding="utf-8"))


def test_every_reader_of_the_prose_setting_is_an_exhaustive_match() -> None:
    loose = {name: found for name, tree in _modules("") if (found := _loose_readers(tree))}
    assert loose == {}


def test_the_gate_catches_a_comparison_and_an_open_match() -> None:
    compared = ast.parse("if prose == CatalogProse.OMITTED:\n    pass\n")
    opened = ast.parse(
        "match p:\n    case CatalogProse.QUOTED:\n        pass\n    case _:\n        pass\n"
    )
    assert _loose_readers(compared) == [1] and _loose_readers(opened) == [1]


def test_every_vocabulary_is_read_only_through_exhaustive_matches_in_owned_modules() -> None:
    names = frozenset().union(*(v.names for v in VOCABULARIES))
    loose = {
        name: found for name, tree in _modules(*OWNED) if (found := _loose_readers(tree, names))
    }
    assert loose == {}


def _narrowed_results(tree: ast.AST) -> list[int]:
    """Line numbers narrowing a ``returns`` result with ``isinstance``."""
    return [
        n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and _isinstance_of(n, RESULTS)
    ]


def test_no_result_is_narrowed_with_isinstance_anywhere_in_the_project() -> None:
    modules = dict(project_modules())
    assert {"src/sutura/api.py", "tests/conftest.py", "bench/__main__.py"} <= modules.keys()
    narrowed = {name: found for name, tree in modules.items() if (found := _narrowed_results(tree))}
    assert narrowed == {}


def test_the_gate_catches_an_isinstance_chain_over_a_union_member() -> None:
    chain = ast.parse(
        "if isinstance(item, FilterEq):\n    pass\nelif isinstance(r, (int, Success)):\n    pass\n"
    )
    assert _loose_readers(chain, frozenset({"FilterEq"})) == [1]
    assert _loose_readers(chain, RESULTS) == [3]


@pytest.mark.parametrize(
    "narrowing",
    [
        "isinstance(r, Success)",
        "not isinstance(r, Failure)",
        "isinstance(r, Success | Failure)",
        "isinstance(r, (Failure, int))",
        "isinstance(r, result.Success)",
        "[v for v in rs if isinstance(v, Success)]",
    ],
)
def test_the_result_gate_catches_every_spelling_of_isinstance_narrowing(narrowing: str) -> None:
    assert _narrowed_results(ast.parse(f"assert {narrowing}\n")) == [1]


def test_the_result_gate_lets_is_successful_and_other_kinds_pass() -> None:
    fine = "assert is_successful(r) and isinstance(e, SuccessRate) and r == Success(1)\n"
    assert _narrowed_results(ast.parse(fine)) == []
