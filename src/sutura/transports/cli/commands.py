"""The commands of ``sutura``: each is ``handler(args, wiring) -> exit code``."""

import argparse
import sys
from pathlib import Path
from typing import Any

import anyio
from returns.result import Success

from sutura.boundary.answering import Service
from sutura.core.question.model import QuestionError
from sutura.core.text.escape import escape_text
from sutura.transports.cli import cmd_mcp, cmd_render, cmd_serve, cmd_sql, present
from sutura.transports.cli.output import (
    EXIT_OK,
    EXIT_USAGE,
    emit,
    report,
    unwrap_or_report,
)
from sutura.transports.cli.question_args import add_question_arguments, question_from
from sutura.transports.cli.wiring import Wiring


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add every command to ``sub``."""
    example = sub.add_parser(
        "example", help="write the example catalog, data and settings to a directory"
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

    check = sub.add_parser(
        "check", help="validate settings and catalog, open sources, reproduce every anchor"
    )
    check.set_defaults(handler=run_check)

    catalog = sub.add_parser("catalog", help="the catalog as an agent reads it (describe_catalog)")
    catalog.add_argument(
        "--json", action="store_true", help="print the structured half instead of the text half"
    )
    catalog.set_defaults(handler=run_catalog)

    describe = sub.add_parser("describe", help="one metric's full pinned definition, for operators")
    describe.add_argument("metric", help="metric name")
    describe.set_defaults(handler=run_describe)

    compile_ = sub.add_parser(
        "compile", help="print a question's SQL, parameters and plan without touching data"
    )
    add_question_arguments(compile_)
    compile_.set_defaults(handler=run_compile)

    query = sub.add_parser("query", help="answer a certified question (or refuse it)")
    add_question_arguments(query)
    query.add_argument(
        "--json", action="store_true", help="print the structured half instead of the text half"
    )
    query.set_defaults(handler=run_query)

    prompt = sub.add_parser("prompt", help="print the agent prompt (markdown)")
    prompt.set_defaults(handler=run_prompt)
    cmd_sql.register(sub)
    cmd_render.register(sub)
    cmd_serve.register(sub)
    cmd_mcp.register(sub)


def run_example(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura example``."""
    from sutura.boundary.example import write_example

    target = Path(args.directory)
    if args.orders < 1:
        return report(["example: --orders must be at least 1"])
    write_example(target, orders=args.orders)
    emit(
        f"wrote the example catalog, data and settings to {target}/\n"
        f"next: SUTURA_CONFIG_DIR={target} sutura check"
    )
    return EXIT_OK


def run_check(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura check``."""
    service = _start(wiring)
    if isinstance(service, int):
        return service
    emit(present.check_summary(service))
    anyio.run(service.close)
    return EXIT_OK


def run_catalog(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura catalog``."""
    loaded = unwrap_or_report(wiring.load())
    if isinstance(loaded, int):
        return loaded
    emit(present.catalog(loaded, as_json=args.json))
    return EXIT_OK


def run_describe(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura describe METRIC``."""
    loaded = unwrap_or_report(wiring.load())
    if isinstance(loaded, int):
        return loaded
    described = present.describe_metric(loaded, args.metric)
    if described is None:
        return report(["describe: no metric of that name; `sutura catalog` lists them"])
    emit(described)
    return EXIT_OK


def run_compile(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura compile``."""
    question = question_from(args)
    if not isinstance(question, Success):
        return _malformed(question.failure())
    loaded = unwrap_or_report(wiring.load())
    if isinstance(loaded, int):
        return loaded
    service = Service(
        settings=loaded.loaded.settings, pinned=loaded.pinned, sources={}, today=present.today
    )
    planned = service.plan(question.unwrap())
    if not isinstance(planned, Success):
        return present.print_plan_failure(planned.failure())
    emit(present.compiled(planned.unwrap()[1]))
    return EXIT_OK


def run_query(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura query``."""
    question = question_from(args)
    if not isinstance(question, Success):
        return _malformed(question.failure())
    service = _start(wiring)
    if isinstance(service, int):
        return service

    async def ask() -> Any:
        try:
            return await service.ask(question.unwrap())
        finally:
            await service.close()

    outcome = anyio.run(ask)
    if isinstance(outcome, QuestionError):
        return _malformed(outcome)
    return present.print_outcome(outcome, as_json=args.json)


def run_prompt(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura prompt``."""
    loaded = unwrap_or_report(wiring.load())
    if isinstance(loaded, int):
        return loaded
    emit(loaded.prompt())
    return EXIT_OK


def _start(wiring: Wiring) -> Service | int:
    async def go() -> Any:
        return await wiring.start(anchors=True)

    started = anyio.run(go)
    return unwrap_or_report(started)


def _malformed(error: QuestionError) -> int:
    print(f"sutura: {escape_text(error.sentence())}", file=sys.stderr)
    return EXIT_USAGE
