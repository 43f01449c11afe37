"""The commands of ``sutura``: each is ``handler(args, wiring) -> exit code``.

Each command that reads data runs in one event loop, with one service opened and closed there
(:mod:`.calling`). Each verb's help says what it does and shows an example.

A command line that names its command registers that command alone, so it imports nothing the
others need (``sutura mcp`` starts without the render, schema or doctor modules); help, the
version and a mistyped command get every command.
"""

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from returns.pipeline import is_successful

from sutura.boundary.composing import composing
from sutura.core.text.escape import escape_text
from sutura.transports.cli.output import EXIT_OK, EXIT_USAGE, emit, report, unwrap_or_report
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring

if TYPE_CHECKING:  # a command imports the service, compiler and flags it uses when it runs
    from sutura.boundary.loading import Loaded
    from sutura.boundary.service import Service
    from sutura.core.nouns.question import QuestionError
    from sutura.core.tool.arguments import Arguments


def register(verbs: Verbs, command: str | None = None) -> None:
    """Add every command, in the order ``sutura --help`` lists them; or, when the command line
    names ``command``, that one alone (the others' modules are not imported)."""
    for name, add in _REGISTRARS:
        if command is None or name == command:
            add(verbs)


def _register_example(verbs: Verbs) -> None:
    example = verbs.add(
        "example",
        "write the example catalog, data and settings to a directory",
        "Writes a small shop (catalog documents, a DuckDB file, base.yaml) that every other "
        "command can read. Deterministic: the same --orders gives the same rows.",
        "sutura example example && SUTURA_CONFIG_DIR=example sutura check",
    )
    example.add_argument(
        "directory", nargs="?", default="example", help="target directory (default: example)"
    )
    example.add_argument(
        "--orders",
        type=int,
        default=20_000,
        help="orders to generate (default 20000; 1000000 for benchmarks)",
    )
    example.set_defaults(handler=run_example)


def _register_check(verbs: Verbs) -> None:
    check = verbs.add(
        "check",
        "validate settings and catalog, open sources, check models, reproduce every anchor",
        "Loads the settings and the catalog, opens every source, checks every model's table "
        "and columns against its source, and reproduces every anchor: what `query`, `mcp` and "
        "`serve` do before answering anything. Exit 0 when all of it holds.",
        "SUTURA_CONFIG_DIR=example sutura check",
    )
    check.set_defaults(handler=run_check)


def _register_catalog(verbs: Verbs) -> None:
    catalog = verbs.add(
        "catalog",
        "the catalog as an agent reads it (describe_catalog)",
        "Prints what describe_catalog returns (metrics with where their data is, glossary, "
        "caveats, terms not defined, worked questions): the text half, or the structured half "
        "with --json. Honours prompt.catalog_prose. A catalog larger than a page (16 KB of "
        "text), or a search, comes a page at a time. Opens the sources to ask where each "
        "metric's data is (no anchor is reproduced); when they do not open, says so and prints "
        "the catalog without it.",
        "sutura catalog --search 'net sales' --page 2",
    )
    catalog.add_argument(
        "--json", action="store_true", help="print the structured half instead of the text half"
    )
    catalog.add_argument(
        "--search", help="words to find metrics by (name, glossary synonyms, descriptions)"
    )
    catalog.add_argument("--page", type=int, help="the page to print, from 1")
    catalog.set_defaults(handler=run_catalog)


def _register_describe(verbs: Verbs) -> None:
    describe = verbs.add(
        "describe",
        "one metric's full pinned definition, for operators",
        "Prints a metric's whole definition as pinned (model, measure, required filters, "
        "dimensions, anchor, audience) with its digest, and the knowledge about it: the "
        "operator's view, never sent to an agent.",
        "sutura describe revenue",
    )
    describe.add_argument("metric", help="metric name")
    describe.set_defaults(handler=run_describe)


def _register_compile(verbs: Verbs) -> None:
    from sutura.transports.cli.question_args import QUESTION_EXAMPLE, add_question_arguments

    compile_ = verbs.add(
        "compile",
        "print a question's SQL, parameters and plan without touching data",
        "Plans a question exactly as `query` would, and prints the statement, its bound "
        "parameters and the plan: the text half of compile_question, or with --json its "
        "structured half. Nothing is run, no source is opened.",
        QUESTION_EXAMPLE.format(verb="compile"),
    )
    add_question_arguments(compile_)
    compile_.add_argument(
        "--json", action="store_true", help="print the structured half instead of the text half"
    )
    compile_.set_defaults(handler=run_compile)


def _register_query(verbs: Verbs) -> None:
    from sutura.transports.cli.formats import add_format_arguments
    from sutura.transports.cli.question_args import QUESTION_EXAMPLE, add_question_arguments

    query = verbs.add(
        "query",
        "answer a certified question (or refuse it)",
        "Asks one question of the certified metrics (ask_metric) and prints the answer's text "
        "half, or with --json its structured half. Exit 0 answered, 1 refused, 2 malformed.",
        QUESTION_EXAMPLE.format(verb="query"),
    )
    add_question_arguments(query)
    add_format_arguments(query)
    query.set_defaults(handler=run_query)


def _register_prompt(verbs: Verbs) -> None:
    prompt = verbs.add(
        "prompt",
        "print the agent prompt (markdown)",
        "Prints the system prompt an agent gets (also sent as MCP's initialize instructions): "
        "the workflow, every refusal's remedy, the bounds, the catalog's knowledge and metrics, "
        "the operator's instructions last. Touches no data.",
        "sutura prompt > prompt.md",
    )
    prompt.set_defaults(handler=run_prompt)


def _in_module(command: str) -> Callable[[Verbs], None]:
    """The registrar of a command kept in its own module, ``cmd_<command>``: the module is
    imported when the command is registered, so a command line that names one command imports
    that command's module alone."""

    def register_in_module(verbs: Verbs) -> None:
        importlib.import_module(f"sutura.transports.cli.cmd_{command}").register(verbs)

    return register_in_module


_REGISTRARS: Final[tuple[tuple[str, Callable[[Verbs], None]], ...]] = (
    ("example", _register_example),
    ("init", _in_module("init")),
    ("import", _in_module("import")),
    ("check", _register_check),
    ("doctor", _in_module("doctor")),
    ("catalog", _register_catalog),
    ("describe", _register_describe),
    ("compile", _register_compile),
    ("query", _register_query),
    ("values", _in_module("values")),
    ("prompt", _register_prompt),
    ("sql", _in_module("sql")),
    ("render", _in_module("render")),
    ("schema", _in_module("schema")),
    ("serve", _in_module("serve")),
    ("mcp", _in_module("mcp")),
    ("completion", _in_module("completion")),
)
COMMANDS: Final = frozenset(name for name, _ in _REGISTRARS)
"""The name of every command (each registrar adds the command of its name)."""


def run_example(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura example``."""
    from sutura.boundary.example import write_example

    target = Path(args.directory)
    if args.orders < 1:
        return _usage("example: --orders must be at least 1")
    write_example(target, orders=args.orders)
    emit(
        f"wrote the example catalog, data and settings to {target}/\n"
        f"next: SUTURA_CONFIG_DIR={target} sutura check"
    )
    return EXIT_OK


def run_check(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura check``."""
    with composing():  # what the service's modules build lives as long as the command
        from sutura.transports.cli import present
        from sutura.transports.cli.calling import with_service

    async def summary(loaded: "Loaded", service: "Service") -> str:
        return present.check_summary(loaded, service)

    text = with_service(wiring, summary, anchors=True)
    if isinstance(text, int):
        return text
    emit(text)
    return EXIT_OK


WITHOUT_DATA: Final = (
    "catalog: shown without where each metric's data is (no data line): the sources did not open"
)


def run_catalog(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura catalog``: the describe_catalog call, its sources opened (no anchor) so that it
    states where each metric's data is, as an agent reads it; without them if they do not
    open."""
    with composing():  # what the service's modules build lives as long as the command
        from sutura.core.tool.capability import Capability
        from sutura.transports.cli.calling import call_once

    arguments: dict[str, object] = {}
    if args.search is not None:
        arguments["search"] = args.search
    if args.page is not None:
        arguments["page"] = args.page
    return call_once(
        wiring,
        Capability.DESCRIBE_CATALOG,
        arguments,
        as_json=args.json,
        anchors=False,
        without_data=WITHOUT_DATA,
    )


def run_describe(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura describe METRIC``."""
    from sutura.transports.cli import present

    loaded = unwrap_or_report(wiring.load())
    if isinstance(loaded, int):
        return loaded
    described = present.describe_metric(loaded, args.metric)
    if described is None:
        return report(["describe: no metric of that name; `sutura catalog` lists them"])
    emit(described)
    return EXIT_OK


def _asked(args: argparse.Namespace, wiring: Wiring) -> "Arguments | int":
    """The question the flags spell, or the exit code after teaching a grain or refusing the
    flags (a usage error)."""
    from sutura.transports.cli.question_args import UsageError, question_arguments
    from sutura.transports.cli.teaching import unknown_grain

    if (taught := unknown_grain(args, wiring)) is not None:
        return taught
    try:
        return question_arguments(args)
    except UsageError as problem:
        return _usage(str(problem))


def run_compile(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura compile``: the compile_question call, without opening any source."""
    from sutura.core.tool.arguments import decode_question
    from sutura.core.tool.capability import Capability
    from sutura.transports.cli.calling import call_once

    arguments = _asked(args, wiring)
    if isinstance(arguments, int):
        return arguments
    question = decode_question(arguments)
    if not is_successful(question):  # before the settings are read, as a usage error is
        return _malformed(question.failure())
    return call_once(
        wiring, Capability.COMPILE_QUESTION, question.unwrap(), as_json=args.json, data=False
    )


def run_query(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura query``."""
    from sutura.core.tool.capability import Capability
    from sutura.transports.cli.calling import call_once, explain_dimensions
    from sutura.transports.cli.formats import chosen_format

    arguments = _asked(args, wiring)
    if isinstance(arguments, int):
        return arguments
    fmt = chosen_format(args, terminal=sys.stdout.isatty())
    explain = explain_dimensions(arguments)
    return call_once(wiring, Capability.ASK_METRIC, arguments, fmt=fmt, explain=explain)


def run_prompt(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura prompt``."""
    loaded = unwrap_or_report(wiring.load())
    if isinstance(loaded, int):
        return loaded
    emit(loaded.prompt())
    return EXIT_OK


def _malformed(error: "QuestionError") -> int:
    print(f"sutura: {escape_text(error.sentence())}", file=sys.stderr)
    return EXIT_USAGE


def _usage(problem: str) -> int:
    print(f"sutura: {escape_text(problem)}", file=sys.stderr)
    return EXIT_USAGE
