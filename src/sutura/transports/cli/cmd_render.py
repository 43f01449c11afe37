"""``sutura render INPUT``: structured outcomes into text halves or validated JSON, streaming.

Rendered records go to stdout (or atomically to ``--out``); each invalid record is one line on
stderr, ``sutura: render: record <n>: <problem>: <detail>``; the summary line comes last.
Exit codes: 0 every record rendered, 1 any record invalid (or the run failed), 2 usage.
"""

import argparse
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from sutura.boundary.cpus import available_cpus
from sutura.core.text.escape import escape_text
from sutura.transports.batch.atomic import atomic_file
from sutura.transports.batch.convert import Target
from sutura.transports.batch.problems import RecordError
from sutura.transports.batch.progress import progress_bar
from sutura.transports.batch.records import DEFAULT_MAX_RECORD_BYTES
from sutura.transports.batch.stream import Summary, render_stream
from sutura.transports.batch.workers import WorkerLostError
from sutura.transports.cli.output import EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring

_PREFIX = "sutura: render: "
_READ_BUFFER = 1 << 20


def register(verbs: Verbs) -> None:
    """Add ``render``."""
    render = verbs.add(
        "render",
        "render structured outcomes (JSON or JSON Lines) into text halves or validated JSON",
        "Streams a file of structured answers and refusals, one text half per record framed "
        "by a '\\. record <n>' line, or canonical JSON Lines with --to json. Exit 0 every "
        "record rendered, 1 any record invalid, 2 usage (docs/batch.md).",
        "sutura query revenue --grain year --last 2 year --json | sutura render -",
    )
    render.add_argument("input", metavar="INPUT", help="a JSON or JSON Lines file, or - for stdin")
    render.add_argument(
        "--to",
        choices=[target.value for target in Target],
        default=Target.TEXT.value,
        help="text halves (default), or validated canonical JSON Lines",
    )
    render.add_argument("--out", metavar="FILE", help="write here, whole or not at all")
    render.add_argument(
        "--max-record-bytes",
        type=int,
        default=DEFAULT_MAX_RECORD_BYTES,
        metavar="N",
        help=f"cap on one line or one JSON document (default {DEFAULT_MAX_RECORD_BYTES})",
    )
    render.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for a large input (default: the processors available, here "
        f"{available_cpus()}; 1 renders in this process alone); the output is the same",
    )
    render.set_defaults(handler=run_render)


def run_render(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura render``."""
    if args.max_record_bytes < 1:
        return _usage("--max-record-bytes must be at least 1")
    if args.jobs is not None and args.jobs < 1:
        return _usage("--jobs must be at least 1")
    out = Path(args.out) if args.out else None
    if out is not None and (out.is_dir() or not out.parent.is_dir()):
        return _usage("--out must name a file in an existing directory")
    try:
        source = sys.stdin.buffer if args.input == "-" else _open(args.input)
    except OSError as err:
        return _usage(f"cannot read INPUT: {err.strerror or 'unreadable'}")
    try:
        summary = _render(source, out, args)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"{_PREFIX}the output was closed before the end", file=sys.stderr)
        return EXIT_REFUSED
    except WorkerLostError as lost:
        print(
            f"{_PREFIX}{lost}; the output is incomplete (--jobs 1 renders in one process)",
            file=sys.stderr,
        )
        return EXIT_REFUSED
    finally:
        if args.input != "-":
            source.close()
    print(f"{_PREFIX}{summary.sentence()}", file=sys.stderr, flush=True)
    return EXIT_OK if summary.invalid == 0 else EXIT_REFUSED


def _render(source: BinaryIO, out: Path | None, args: argparse.Namespace) -> Summary:
    show = sys.stderr.isatty() and (out is not None or not sys.stdout.isatty())
    with _sink(out) as sink, progress_bar(sys.stderr, _size_of(source), show=show) as advance:
        return render_stream(
            source,
            sink,
            target=Target(args.to),
            max_record_bytes=args.max_record_bytes,
            on_invalid=_report,
            on_progress=advance,
            jobs=available_cpus() if args.jobs is None else args.jobs,
        )


def _report(error: RecordError) -> None:
    # One write of the whole line: an interrupt between the text and its newline would run
    # the next line (``sutura: interrupted``) into this one.
    sys.stderr.write(f"{_PREFIX}{escape_text(error.sentence())}\n")


@contextmanager
def _sink(out: Path | None) -> Iterator[BinaryIO]:
    if out is not None:
        with atomic_file(out) as written:
            yield written
        return
    stdout = sys.stdout.buffer
    yield stdout
    stdout.flush()


def _open(path: str) -> BinaryIO:
    return open(path, "rb", buffering=_READ_BUFFER)


def _size_of(source: BinaryIO) -> int | None:
    """The input's size when it is a regular file (the bar's total), else unknown."""
    try:
        status = os.fstat(source.fileno())
    except (OSError, ValueError):
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def _usage(problem: str) -> int:
    print(f"{_PREFIX}{problem}", file=sys.stderr)
    return EXIT_USAGE
