"""Imports run one way: root → transports → boundary → core. The core does no I/O, its
packages import only the ones below them, and no transport imports a sibling (but the command
line, which starts the servers)."""

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


COMPOSER = "cli"
"""The transport that starts the others (``sutura serve``, ``sutura mcp``): it alone may import
a sibling, to hand one server what another serves (``/mcp`` to the HTTP app)."""


def _transport_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["sutura", "transports"] or len(parts) < 3:
        return None
    return parts[2]


def _sibling_imports(root: Path) -> list[str]:
    """Each import in ``root`` (the transports' directory) of one transport by another."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if len(parts) < 2 or parts[0] == COMPOSER:
            continue
        theirs = {
            found
            for name in _imports(path)
            if (found := _transport_of(name)) is not None and found != parts[0]
        }
        problems += [f"{path.relative_to(root)}: imports transports.{t}" for t in sorted(theirs)]
    return problems


def test_a_transport_never_imports_a_sibling_but_the_composer() -> None:
    assert _sibling_imports(SRC / "transports") == []


def test_the_sibling_gate_refuses_a_transport_importing_another(tmp_path: Path) -> None:
    root = tmp_path / "transports"
    planted = {
        "http/app.py": "from sutura.transports.mcp.remote import RemoteMcp\n",
        "http/routes.py": "from sutura.transports.http.auth import Guard\n",
        "mcp/starting.py": "import sutura.transports.cli.composing\n",
        "cli/cmd_serve.py": "from sutura.transports.mcp.remote import remote_mcp\n",
    }
    for name, text in planted.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert _sibling_imports(root) == [
        "http/app.py: imports transports.mcp",
        "mcp/starting.py: imports transports.cli",
    ]


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


# Inside the core: packages in a declared order, bottom first. A module imports the core only
# from its own package or a package below it, so no two packages import each other (a loop is
# a missing noun at the bottom, not a convenience). The catalog's sub-packages likewise.
CORE_ORDER = (
    "nouns",
    "text",
    "settings",
    "expression",
    "definitions",
    "question",
    "catalog",
    "dbt",
    "sql",
    "raw",
    "outcome",
    "tool",
    "prompt",
    "json_schemas",
)
CATALOG_ORDER = ("error", "document", "checks", "pinning", "view", "draft", "drift")
ORDERS = {"sutura.core": CORE_ORDER, "sutura.core.catalog": CATALOG_ORDER}


def _unit(package: str, module: str) -> str | None:
    """The member of ``package`` (a sub-package or module) that ``module`` lies in."""
    if not module.startswith(package + "."):
        return None
    return module.removeprefix(package + ".").split(".")[0]


def _core_imports(path: Path) -> set[str]:
    """Every ``sutura.core`` module a file imports, a package's modules spelled in full."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith("sutura.core.")}


def _order_problems(root: Path, package: str, order: tuple[str, ...]) -> list[str]:
    """Each import in ``root`` (the directory of ``package``) against ``order``: a member
    outside the order, or an import of a member above the importer's own."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if len(parts) == 1 and parts[0] == "__init__.py":
            continue
        mine = parts[0].removesuffix(".py")
        if mine not in order:
            problems.append(f"{path.relative_to(root)}: {package}.{mine} is not in the order")
            continue
        above = {
            theirs
            for name in _core_imports(path)
            if (theirs := _unit(package, name)) is not None
            and theirs != mine
            and ((root / theirs).exists() or (root / f"{theirs}.py").exists())
            and (theirs not in order or order.index(theirs) > order.index(mine))
        }
        problems += [
            f"{path.relative_to(root)}: {mine} imports {t} (above it)" for t in sorted(above)
        ]
    return problems


def _loops(root: Path, package: str) -> list[tuple[str, str]]:
    """Pairs of members of ``package`` that reach each other through their imports."""
    edges: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        mine = path.relative_to(root).parts[0].removesuffix(".py")
        for name in _core_imports(path):
            theirs = _unit(package, name)
            if theirs is not None and theirs != mine and theirs != "__init__":
                edges.setdefault(mine, set()).add(theirs)

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    return sorted(
        {(min(a, b), max(a, b)) for a in edges for b in reach(a) if a != b and a in reach(b)}
    )


@pytest.mark.parametrize("package", sorted(ORDERS))
def test_each_core_package_imports_only_the_packages_below_it(package: str) -> None:
    root = SRC.joinpath(*package.split(".")[1:])
    assert _order_problems(root, package, ORDERS[package]) == []


@pytest.mark.parametrize("package", sorted(ORDERS))
def test_no_two_core_packages_import_each_other(package: str) -> None:
    root = SRC.joinpath(*package.split(".")[1:])
    assert _loops(root, package) == []


def test_the_order_lists_every_core_package_and_module() -> None:
    for package, order in ORDERS.items():
        root = SRC.joinpath(*package.split(".")[1:])
        members = {p.name.removesuffix(".py") for p in root.iterdir() if p.name != "__init__.py"}
        members = {m for m in members if m != "__pycache__"}
        assert members == set(order), package


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "core"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_order_gate_refuses_an_upward_import(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "nouns/grain.py": "from sutura.core.sql.compile import compile_question\n",
            "sql/compile.py": "from sutura.core.nouns.grain import Grain\n",
        },
    )
    assert _order_problems(root, "sutura.core", ("nouns", "sql")) == [
        "nouns/grain.py: nouns imports sql (above it)"
    ]


def test_the_loop_gate_refuses_two_packages_importing_each_other(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "catalog/view.py": "from sutura.core import question\n",
            "question/resolve.py": "from sutura.core.tool.reply import Reply\n",
            "tool/reply.py": "from sutura.core.catalog.view import CatalogView\n",
        },
    )
    assert _loops(root, "sutura.core") == [
        ("catalog", "question"),
        ("catalog", "tool"),
        ("question", "tool"),
    ]


def _prefixed_modules(root: Path) -> list[str]:
    """Modules whose name repeats their folder's name or a sibling's as a prefix
    (``catalog/catalog_files.py``, ``build.py`` beside ``build_metric.py``): a folder trying
    to get out."""
    found = []
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir() and p.name != "__pycache__")]:
        names = {p.name.removesuffix(".py") for p in folder.iterdir() if p.name != "__pycache__"}
        names.discard("__init__")
        found += [
            str((folder / name).relative_to(root))
            for name in sorted(names)
            if any(name.startswith(f"{other}_") for other in names | {folder.name})
        ]
    return found


def test_no_core_module_name_carries_its_folders_or_a_siblings_prefix() -> None:
    assert _prefixed_modules(SRC / "core") == []


def test_the_prefix_gate_finds_a_prefix(tmp_path: Path) -> None:
    root = _plant(tmp_path, {"catalog/build.py": "", "catalog/build_metric.py": ""})
    (root / "catalog" / "catalog_view.py").write_text("")
    assert _prefixed_modules(root) == ["catalog/build_metric", "catalog/catalog_view"]
