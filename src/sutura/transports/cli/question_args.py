"""Question flags of ``sutura query`` and ``sutura compile``, turned into a question document."""

import argparse
import sys
from pathlib import Path

import msgspec
from returns.result import Failure, Result, Success

from sutura.core.question.model import (
    Question,
    QuestionError,
    convert_question,
    decode_question_json,
)


def add_question_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags that build a question, or ``--question`` carrying one as JSON."""
    parser.add_argument("metrics", nargs="*", metavar="METRIC", help="metric names to ask about")
    parser.add_argument(
        "--question",
        metavar="JSON",
        help="the whole question as JSON, @FILE to read a file, - for stdin",
    )
    parser.add_argument("--grain", help="day, week, month, quarter or year")
    parser.add_argument("--from", dest="start", metavar="DATE", help="first day (ISO), inclusive")
    parser.add_argument("--to", dest="end", metavar="DATE", help="last bound (ISO), exclusive")
    parser.add_argument(
        "--last", nargs=2, metavar=("COUNT", "UNIT"), help="the last COUNT whole UNITs"
    )
    parser.add_argument(
        "--include-current", action="store_true", help="with --last: include the current unit"
    )
    parser.add_argument(
        "--by", action="append", default=[], metavar="DIMENSION", help="group by a dimension"
    )
    parser.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="DIM=VALUE",
        help="keep rows where DIM is VALUE",
    )
    parser.add_argument(
        "--where-not",
        action="append",
        default=[],
        metavar="DIM=VALUE",
        help="drop rows where DIM is VALUE",
    )
    parser.add_argument("--top", type=int, metavar="N", help="keep the first N rows by --top-by")
    parser.add_argument(
        "--top-by", default="period", metavar="METRIC", help="metric (or period) that orders --top"
    )
    parser.add_argument("--top-direction", choices=("asc", "desc"), default="desc")


def question_from(args: argparse.Namespace) -> Result[Question, QuestionError]:
    """The question the arguments describe."""
    if args.question is not None:
        return _read_json(args.question).bind(decode_question_json)
    return convert_question(_document(args))


def _read_json(spec: str) -> Result[bytes, QuestionError]:
    try:
        if spec == "-":
            return Success(sys.stdin.buffer.read())
        if spec.startswith("@"):
            return Success(Path(spec[1:]).read_bytes())
    except OSError:
        return Failure(QuestionError(field="--question", problem="the file cannot be read"))
    return Success(spec.encode("utf-8", "surrogatepass"))


def _document(args: argparse.Namespace) -> dict[str, object]:
    document: dict[str, object] = {"metrics": list(args.metrics)}
    if args.grain is not None:
        document["grain"] = args.grain
    if args.last is not None:
        count, unit = args.last
        document["range"] = {
            "last": {
                "count": _int_or_text(count),
                "unit": unit,
                "include_current": args.include_current,
            }
        }
    elif args.start is not None or args.end is not None:
        document["range"] = {"start": args.start, "end": args.end}
    if args.by:
        document["dimensions"] = list(args.by)
    filters = _filters(args.where, "in") + _filters(args.where_not, "not_in")
    if filters:
        document["filters"] = filters
    if args.top is not None:
        document["top"] = {"n": args.top, "by": args.top_by, "direction": args.top_direction}
    return document


def _filters(pairs: list[str], op: str) -> list[dict[str, object]]:
    grouped: dict[str, list[str]] = {}
    for pair in pairs:
        dimension, _, value = pair.partition("=")
        grouped.setdefault(dimension, []).append(value)
    return [{"op": op, "dimension": d, "values": v} for d, v in grouped.items()]


def _int_or_text(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def question_json(question: Question) -> str:
    """The question as compact JSON (what ``--question`` accepts)."""
    return msgspec.json.encode(question).decode()
