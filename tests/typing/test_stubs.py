"""The stubs in ``typings/`` type the untyped library surface sutura uses, and tell the truth.

mypy reads ``typings/`` before the installed packages, so a module stubbed there types the same
whether or not its library (the Spark extra's pyspark, grpc and pyarrow) is installed. A module
of a stubbed library that is *not* stubbed would be read from the installed package when there
is one and be missing when there is not: every import of a stubbed library must name a stub.
mypy's stubtest compares each stub with the installed library's runtime signatures (names,
parameters, defaults); what sutura does not use is left out of the stubs on purpose.
"""

import ast
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.typing.project import ROOT, project_modules

TYPINGS = ROOT / "typings"
STUBBED = tuple(sorted(path.name for path in TYPINGS.iterdir() if path.is_dir()))


def _stub_of(module: str) -> Path | None:
    """The stub file of a dotted module name under ``typings/``, if there is one."""
    base = TYPINGS.joinpath(*module.split("."))
    for path in (base.with_suffix(".pyi"), base / "__init__.pyi"):
        if path.is_file():
            return path
    return None


def _defines(stub: Path, name: str) -> bool:
    """Whether a stub module defines or re-exports ``name`` at its top level."""
    return name in _top_level_names(ast.parse(stub.read_text(encoding="utf-8")))


def _top_level_names(module: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in module.body:
        match node:
            case ast.ClassDef(name=found) | ast.FunctionDef(name=found):
                names.add(found)
            case ast.ImportFrom(names=aliases) | ast.Import(names=aliases):
                names.update(alias.asname or alias.name for alias in aliases)
            case ast.AnnAssign(target=ast.Name(id=found)):
                names.add(found)
            case ast.Assign(targets=targets):
                names.update(target.id for target in targets if isinstance(target, ast.Name))
            case _:
                pass
    return names


def _imports(tree: ast.AST) -> Iterator[tuple[int, str, str | None]]:
    """(line, module, name) of each import: ``name`` is None for ``import module``."""
    for node in ast.walk(tree):
        match node:
            case ast.Import(names=aliases):
                yield from ((node.lineno, alias.name, None) for alias in aliases)
            case ast.ImportFrom(module=str(module), level=0, names=aliases):
                yield from ((node.lineno, module, alias.name) for alias in aliases)
            case _:
                pass


def _unstubbed(module: str, name: str | None) -> bool:
    """Whether importing ``name`` from ``module`` (or ``module`` itself) misses the stubs."""
    stub = _stub_of(module)
    if stub is None:
        return True
    return name is not None and not _defines(stub, name) and _stub_of(f"{module}.{name}") is None


def _misses(tree: ast.AST) -> list[str]:
    return [
        f"{line}: {module}" + ("" if name is None else f" import {name}")
        for line, module, name in _imports(tree)
        if module.partition(".")[0] in STUBBED and _unstubbed(module, name)
    ]


def test_every_import_of_a_stubbed_library_names_a_stub() -> None:
    assert {"pyspark", "grpc", "pyarrow"} <= set(STUBBED)
    missed = {name: found for name, tree in project_modules() if (found := _misses(tree))}
    assert missed == {}


def test_the_stub_gate_catches_an_unstubbed_module_and_an_unstubbed_name() -> None:
    tree = ast.parse(
        "from pyspark.sql.connect.session import SparkSession\n"
        "import pyspark.sql.functions\n"
        "from pyspark.errors import AnalysisException\n"
        "from pyspark.sql import types\n"
    )
    assert _misses(tree) == [
        "2: pyspark.sql.functions",
        "3: pyspark.errors import AnalysisException",
    ]


def test_the_stubs_agree_with_the_installed_libraries() -> None:
    installed = [name for name in STUBBED if importlib.util.find_spec(name) is not None]
    missing = sorted(set(STUBBED) - set(installed))
    if missing and os.environ.get("CI") == "true":
        pytest.fail(f"CI checks every stub against its library; not installed: {missing}")
    command = [sys.executable, "-m", "mypy.stubtest", "--ignore-missing-stub"]
    command += ["--mypy-config-file", "mypy.ini", *installed]
    run = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    if missing:
        pytest.skip(f"not installed, not compared: {missing} (pip install 'sutura[spark]')")
