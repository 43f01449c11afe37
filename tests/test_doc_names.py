"""Docs are code: every name a doc in ``docs/`` (or the README) or a docstring in the package
gives to a module, a function, a class or a setting exists.

What counts as naming one, and how it is found:

- a dotted ``sutura.x.y`` name: importable (a module, then attributes), or a name the code
  itself spells as a string (a logger, a span, a context variable);
- a ``path/to/module.py``: a file of the repository (from its root, the doc's own folder, or
  any folder of the package, as docs abbreviate ``transports/cli/…`` to ``cli/…``);
- in a docstring, a Sphinx role (``:func:``, ``:class:``, ``:mod:``, ``:meth:``, ``:data:``,
  ``:attr:``, ``:exc:``), resolved as Sphinx would (relative to the module, its classes, or
  absolute);
- a ``name()`` in backticks, of a code-like name (``snake_case``): defined somewhere in the
  package, its tests or its benchmarks;
- in a docstring, a code-like name in double backticks (``snake_case``): a name the code uses
  (an identifier, a module, an attribute, a word of a string it holds) or a setting's segment;
- a setting in backticks (``tools.run_sql.enabled``, a section such as ``security.inbound``,
  or its variable ``SUTURA__TOOLS__RUN_SQL__ENABLED``): a key of :class:`Settings`.

Doctest lines are left to the doctests. A name that is not ours (PostgreSQL's ``work_mem``,
DuckDB's ``duckdb_constraints()``) is listed in :data:`NOT_OURS`.
"""

import ast
import builtins
import importlib
import inspect
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Final, NamedTuple

import msgspec.inspect as mi
import pytest

from sutura.core.settings import Settings

ROOT: Final = Path(__file__).resolve().parents[1]
SRC: Final = ROOT / "src" / "sutura"
NOT_OURS: Final = frozenset(
    {
        "work_mem",
        "duckdb_constraints",
        "duckdb_memory",
        "prometheus_client",
        "catalog.schema.table",
        "spark.sql.session.timeZone",
        "information_schema.tables",
        "document.write",
        "global_temp",
        "hash_mem_multiplier",
    }
)
"""Other systems' names that docs and docstrings rightly use: PostgreSQL's setting, DuckDB's
table function, a library, Spark's three-part table name and session setting, the SQL
catalog, the browser's DOM, Spark's database of global temporary views, PostgreSQL's hash
memory setting."""
WRONG_ON_PURPOSE: Final = frozenset({"A__B", "SECTION__KEY", "SERVER__PORT__X", "SERVER____PORT"})
"""Variables the settings docs spell as placeholders, or as examples of what is refused."""
_FILES: Final = re.compile(r"\.(?:png|md|json|ya?ml|py|txt|html|css|js|svg|sql|csv|duckdb)$")
_HOSTS: Final = frozenset({"org", "com", "net", "io", "test", "dev"})

_DOTTED: Final = re.compile(r"(?<![\w/@.\-])sutura(?:\.[A-Za-z_]\w*)+(?![\w/])")
_PATH: Final = re.compile(r"(?<![\w/.\-])((?:[A-Za-z_][\w\-]*/)+[A-Za-z_]\w*\.py)\b")
_ROLE: Final = re.compile(r":(?:mod|func|class|meth|data|attr|exc|obj):`~?([^`<>]+)`")
_CALL: Final = re.compile(r"`{1,2}((?:\w+\.)*([a-z][a-z0-9]*_[a-z0-9_]*))\(\)`{1,2}")
_BARE: Final = re.compile(r"``([a-z][a-z0-9]*_[a-z0-9_]*)``")
_SETTING: Final = re.compile(r"`{1,2}([a-z][a-z_]*(?:\.[a-z<>][a-z0-9_<>]*)+)`{1,2}")
_SHORT: Final = re.compile(r"`{1,2}([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)(?:\([^`]*\))?`{1,2}")
_VARIABLE: Final = re.compile(r"\bSUTURA__([A-Z0-9_]+?)(?![A-Z0-9_])")


class Text(NamedTuple):
    """A doc or a docstring, where it is, and the module it belongs to (a docstring's)."""

    where: str
    text: str
    module: str | None
    folder: Path


def _docstrings(tree: ast.Module) -> Iterator[tuple[int, str, ast.AST]]:
    nodes = [tree, *(n for n in ast.walk(tree) if n is not tree)]
    for node in nodes:
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "lineno", 1), doc, node


def _without_doctests(text: str) -> str:
    """The text, without doctest examples and their output."""
    kept, in_example = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith((">>>", "...")):
            in_example = True
            continue
        if in_example and stripped:
            continue  # an example's expected output
        in_example = False
        kept.append(line)
    return "\n".join(kept)


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def texts() -> tuple[Text, ...]:
    """Every doc, and every docstring of the package."""
    found = [
        Text(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"), None, p.parent)
        for p in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    ]
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, doc, _node in _docstrings(tree):
            where = f"{path.relative_to(ROOT)}:{line}"
            found.append(Text(where, _without_doctests(doc), _module_name(path), path.parent))
    return tuple(found)


def _sources() -> Iterator[Path]:
    yield from SRC.rglob("*.py")


@cache
def _spelled() -> frozenset[str]:
    """Every string the package's code holds (not its docstrings)."""
    strings: set[str] = set()
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for _, _, n in _docstrings(tree)}  # type: ignore[attr-defined]
        strings |= {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            if id(node) not in docs
        }
    return frozenset(strings)


@cache
def _defined() -> frozenset[str]:
    """Every function, class and method defined in the package, its tests and benchmarks."""
    names: set[str] = set()
    for folder in (SRC, ROOT / "tests", ROOT / "bench"):
        for path in folder.rglob("*.py"):
            if "node_modules" in path.parts:  # what npm installs for the tests is not ours
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names |= {
                node.name
                for node in ast.walk(tree)
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            }
    return frozenset(names)


@cache
def _used() -> frozenset[str]:
    """Every name the package's code uses: identifiers, attributes, arguments, modules, and
    the words of the strings it holds."""
    names: set[str] = {path.stem for path in _sources()}
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            match node:
                case ast.Name(id=name) | ast.Attribute(attr=name) | ast.arg(arg=name):
                    names.add(name)
                case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name):
                    names.add(name)
                case ast.ClassDef(name=name) | ast.keyword(arg=str() as name):
                    names.add(name)
                case ast.alias(name=name, asname=alias):
                    names.update(name.split("."))
                    names.add(alias or "")
                case ast.ImportFrom(module=str() as module):
                    names.update(module.split("."))
                case _:
                    pass
    for string in _spelled():
        names.update(re.findall(r"[a-z][a-z0-9_]*", string))
    return frozenset(names)


def _resolves(dotted: str) -> bool:
    """Whether ``dotted`` is a module, or an attribute reached from one."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        try:
            for part in parts[end:]:
                found = getattr(found, part)
        except AttributeError:
            return False
        return True
    return False


def _dotted_exists(name: str) -> bool:
    rest = name.removeprefix("sutura.")
    return _resolves(name) or name in _spelled() or ("." not in rest and rest in _spelled())


def _role_resolves(target: str, module: str) -> bool:
    """Whether a Sphinx role's target exists, as Sphinx would look it up from ``module``."""
    target = target.strip().removesuffix("()")
    if target.startswith("."):
        rest = target.lstrip(".")
        package = module.rsplit(".", len(target) - len(rest))[0]
        return _resolves(f"{package}.{rest}") or _resolves(f"{module}.{rest}")
    if target.startswith("sutura."):
        return _dotted_exists(target)
    found = importlib.import_module(module)
    scopes = [found, *(v for v in vars(found).values() if inspect.isclass(v)), builtins]
    for scope in scopes:
        try:
            value: object = scope
            for part in target.split("."):
                value = getattr(value, part)
        except AttributeError:
            continue
        return True
    return _resolves(target)  # the standard library's


@cache
def _setting_paths() -> frozenset[str]:
    """Every settings key and every section above one (``sources.<alias>`` for any alias)."""

    def keys(info: mi.Type, prefix: str) -> list[str]:
        if isinstance(info, mi.DictType):
            return [prefix, *keys(info.value_type, f"{prefix}.<alias>")]
        if isinstance(info, mi.UnionType):
            structs = [t for t in info.types if isinstance(t, mi.StructType)]
            tagged = [f"{prefix}.kind"] if any(s.tag_field for s in structs) else []
            return [prefix, *tagged, *(k for s in structs for k in keys(s, prefix))]
        if not isinstance(info, mi.StructType):
            return [prefix]
        return [prefix] + [
            k for f in info.fields for k in keys(f.type, f"{prefix}.{f.name}".lstrip("."))
        ]

    return frozenset(k for k in keys(mi.type_info(Settings), "") if k)


def _sections() -> frozenset[str]:
    return frozenset(path.split(".")[0] for path in _setting_paths())


def _is_setting(name: str) -> bool:
    """Whether ``name`` (a settings key, a section, or ``sources.<alias>.…``) exists."""
    parts = name.split(".")
    if parts[0] == "sources" and len(parts) > 1:
        parts[1] = "<alias>"
    return ".".join(parts) in _setting_paths()


def _unknown_modules(text: Text) -> Iterator[str]:
    for match in _DOTTED.finditer(text.text):
        name = match.group(0)
        if name.rsplit(".", 1)[-1] not in _HOSTS and not _dotted_exists(name):
            yield f"no {name}"
    for match in _PATH.finditer(text.text):
        path = match.group(1)
        folders = [ROOT, text.folder, SRC, *(p for p in SRC.rglob("*") if p.is_dir())]
        if not any((folder / path).is_file() for folder in folders):
            yield f"no file {path}"


def _unknown_functions(text: Text) -> Iterator[str]:
    for match in _CALL.finditer(text.text):
        if match.group(2) not in _defined() | NOT_OURS:
            yield f"no function {match.group(1)}()"
    if text.module is None:
        return
    for match in _ROLE.finditer(text.text):
        if not _role_resolves(match.group(1), text.module):
            yield f"no {match.group(1)}"
    for match in _BARE.finditer(text.text):
        name = match.group(1)
        known = name in _used() or name in NOT_OURS
        if not known and not any(name in path.split(".") for path in _setting_paths()):
            yield f"no {name}"


@cache
def _ours() -> dict[str, list[object]]:
    """Every module of the package by its last name, and every class and function it defines
    by its name (a module whose optional library is absent is left out)."""
    found: dict[str, list[object]] = {}
    for path in sorted(_sources()):
        try:
            module = importlib.import_module(_module_name(path))
        except ImportError:
            continue
        found.setdefault(_module_name(path).rsplit(".", 1)[-1], []).append(module)
        for name, value in vars(module).items():
            if (inspect.isclass(value) or inspect.isfunction(value)) and getattr(
                value, "__module__", ""
            ).startswith("sutura"):
                found.setdefault(name, []).append(value)
    return found


def _reaches(start: object, attributes: list[str]) -> bool:
    try:
        for attribute in attributes:
            start = getattr(start, attribute)
    except AttributeError:
        return False
    return True


def _unknown_short_names(text: Text) -> Iterator[str]:
    """``module.name`` or ``Class.name`` in backticks, by the module's or the class's own
    name, naming one of our functions or classes: the module or class must have it; and a
    code-like head (``snake_case``) must be a name of ours."""
    for match in _SHORT.finditer(text.text):
        head, rest = match.group(1), match.group(2).lstrip(".").split(".")
        name = f"{head}.{'.'.join(rest)}"
        skipped = head == "sutura" or head in _sections() or name in NOT_OURS
        if skipped or _FILES.search(name) or not set(rest) & _defined():
            continue
        candidates = _ours().get(head, [])
        code_like = "_" in head and head.islower()
        if not any(_reaches(c, rest) for c in candidates) and (candidates or code_like):
            yield f"no {name}"


def _unknown_settings(text: Text) -> Iterator[str]:
    for match in _SETTING.finditer(text.text):
        name = match.group(1)
        if name.split(".")[0] not in _sections() or _FILES.search(name) or name in NOT_OURS:
            continue
        if not _is_setting(name):
            yield f"no setting {name}"
    for match in _VARIABLE.finditer(text.text):
        variable = match.group(1)
        key = variable.lower().replace("__", ".")
        if variable not in WRONG_ON_PURPOSE and not _is_setting(key):
            yield f"no setting SUTURA__{variable}"


def unknown_names(text: Text) -> list[str]:
    """What ``text`` names that does not exist, one line each."""
    found = [
        *_unknown_modules(text),
        *_unknown_short_names(text),
        *_unknown_functions(text),
        *_unknown_settings(text),
    ]
    return [f"{text.where}: {problem}" for problem in found]


def test_every_name_a_doc_or_a_docstring_gives_exists() -> None:
    problems = [problem for text in texts() for problem in unknown_names(text)]
    assert problems == []


@pytest.mark.parametrize(
    ("planted", "found"),
    [
        ("Done by :func:`plan_question`.", "no plan_question"),
        ("See ``catalog_parse``.", "no catalog_parse"),
        ("The ``decode_arguments()`` step.", "no function decode_arguments()"),
        ("In sutura.core.sql.planning.plan_question.", "no sutura.core.sql.planning.plan_question"),
        ("See `transports/cli/composing.py`.", "no file transports/cli/composing.py"),
        ("Set `tools.run_sql.enable`.", "no setting tools.run_sql.enable"),
        ("Set SUTURA__TOOLS__RUN_SQL__ENABLE.", "no setting SUTURA__TOOLS__RUN_SQL__ENABLE"),
    ],
)
def test_a_wrong_name_is_found(planted: str, found: str) -> None:
    text = Text("planted", planted, "sutura.boundary.service", SRC / "boundary")
    assert unknown_names(text) == [f"planted: {found}"]


def test_the_names_that_exist_are_not_found() -> None:
    right = (
        "Done by :func:`sutura.boundary.planning.Planner`, :meth:`Service.call`, "
        ":mod:`.planning`, ``plan_question``... no: ``compile_resolved``, ``utc_today()``, "
        "`boundary/composing.py`, `tools.compile_question.enabled`, `security.inbound`, "
        "`sources.main.kind`, SUTURA__LIMITS__MAX_ROWS and the ``sutura.audit`` log."
    )
    text = Text(
        "right", right.replace("``plan_question``... no: ", ""), "sutura.boundary.service", SRC
    )
    assert unknown_names(text) == []
