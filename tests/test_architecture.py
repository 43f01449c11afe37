"""Imports run one way: root → transports → boundary → core. The core does no I/O."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "sutura"
LAYERS = ("core", "boundary", "transports")
CORE_FORBIDDEN = {
    "anyio",
    "duckdb",
    "psycopg",
    "psycopg_pool",
    "mcp",
    "litestar",
    "uvicorn",
    "os",
    "socket",
    "subprocess",
    "pathlib",
    "logging",
}


def _modules(layer: str) -> list[Path]:
    return sorted((SRC / layer).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names.add(node.module)
    return names


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "sutura" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else parts[1].removesuffix(".py")


@pytest.mark.parametrize("path", _modules("core"), ids=lambda p: p.name)
def test_the_core_imports_no_effect_library_and_no_outer_layer(path: Path) -> None:
    imports = _imports(path)
    assert not {name.split(".")[0] for name in imports} & CORE_FORBIDDEN
    assert not {_layer_of(name) for name in imports} & {"boundary", "transports", "root"}
    calls = [
        n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)
    ]
    assert not [
        c for c in calls if isinstance(c.func, ast.Name) and c.func.id in {"open", "print", "input"}
    ]


@pytest.mark.parametrize("path", _modules("boundary"), ids=lambda p: p.name)
def test_the_boundary_never_imports_a_transport_or_the_root(path: Path) -> None:
    assert not {_layer_of(name) for name in _imports(path)} & {"transports", "root"}


@pytest.mark.parametrize("path", _modules("transports"), ids=lambda p: p.name)
def test_a_transport_never_imports_the_root(path: Path) -> None:
    assert "root" not in {_layer_of(name) for name in _imports(path)}


def test_every_layer_has_modules() -> None:
    assert all(_modules(layer) for layer in LAYERS)


COMPOSITION_ROOTS = {"root.py", "api.py"}
"""The only modules that may read the process environment: what every other module reads
of it (settings, secrets) is handed to it from here."""


def _reads_the_environment(path: Path) -> list[int]:
    """Lines reading ``os.environ``/``os.getenv``/``os.environb`` (however ``os`` is imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in {"environ", "environb", "getenv", "putenv"}
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    ]
    lines += [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module == "os"
        and {alias.name for alias in node.names} & {"environ", "environb", "getenv"}
    ]
    return lines


def test_only_the_composition_roots_read_the_process_environment() -> None:
    readers = {
        str(path.relative_to(SRC)): lines
        for path in sorted(SRC.rglob("*.py"))
        if path.name not in COMPOSITION_ROOTS or path.parent != SRC
        if (lines := _reads_the_environment(path))
    }
    assert readers == {}


def test_the_environment_gate_catches_every_spelling(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import os\nos.environ.get('A')\nos.getenv('B')\nfrom os import environ\n")
    assert sorted(set(_reads_the_environment(module))) == [2, 3, 4]


def test_the_python_api_reads_the_environment_only_when_none_is_given() -> None:
    source = (SRC / "api.py").read_text(encoding="utf-8")
    assert source.count("os.environ") == 1
    assert "os.environ if environ is None else environ" in source


def _local_clock_reads(path: Path) -> list[int]:
    """Lines asking the host for a local date or time: ``date.today()``, ``datetime.now()``
    without a zone, ``datetime.today()``, ``time.localtime()``."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name = node.func.attr
        if name == "today" or name == "localtime" or (name == "now" and not node.args):
            lines.append(node.lineno)
    return lines


def test_no_module_reads_the_hosts_local_date_or_time() -> None:
    """``range.last`` counts back from today in UTC (``startup.utc_today``), everywhere."""
    readers = {
        str(path.relative_to(SRC)): lines
        for path in sorted(SRC.rglob("*.py"))
        if (lines := _local_clock_reads(path))
    }
    assert readers == {}


def test_the_clock_gate_catches_a_local_date(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import datetime\ndatetime.date.today()\ndatetime.datetime.now()\n"
        "datetime.datetime.now(datetime.UTC)\n"
    )
    assert _local_clock_reads(module) == [2, 3]
