"""Outcomes and inputs the batch tests render: answers, refusals and JSON Lines of them."""

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from sutura.core.nouns.answer import Outcome, Refused
from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.tool.codec import halves_of
from sutura.transports.batch.framing import frame
from tests.core.untrusted_samples import answer

SUTURA = [sys.executable, "-c", "import sys; from sutura.root import main; sys.exit(main())"]

INTERRUPTIBLE_SUTURA = [
    sys.executable,
    "-c",
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler);"
    " from sutura.root import main; sys.exit(main())",
]
"""``sutura`` as from a terminal, where Ctrl-C interrupts: a test run started in the background
has SIGINT ignored, and a child inherits that."""


def refused(code: RefusalCode = RefusalCode.METRIC_UNKNOWN) -> Refused:
    """A refusal with its fixed detail."""
    return Refused(reason=refusal(code))


def outcomes() -> list[Outcome]:
    """A small mixed run: answers of several shapes and one refusal per code."""
    answers: list[Outcome] = [
        answer(["period", "revenue"], [["2024-01-01", "1200.50"], ["2024-02-01", None]]),
        answer(["period", "region", "revenue"], []),
        answer(["m"], [[""], ["\\N"], ["a\tb"]]),
    ]
    return answers + [refused(code) for code in RefusalCode]


def jsonl(items: Sequence[Outcome]) -> bytes:
    """Each outcome's structured half, one a line."""
    return b"".join(halves_of(item).structured + b"\n" for item in items)


def rendered(items: Sequence[Outcome], first: int = 1) -> bytes:
    """What ``sutura render`` writes for ``items`` numbered from ``first``."""
    return b"".join(frame(first + i, halves_of(item).text) for i, item in enumerate(items))


def loose_json(item: Outcome) -> bytes:
    """The structured half re-spelled: spaces, ASCII escapes, keys in reverse order."""
    value = json.loads(halves_of(item).structured)
    return json.dumps(_reversed(value), indent=1, ensure_ascii=True).encode()


def _reversed(value: object) -> object:
    if isinstance(value, dict):
        return {key: _reversed(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed(item) for item in value]
    return value


def render_cli(
    *args: str, data: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``sutura render ARGS`` in a subprocess, ``data`` on stdin, stdout and stderr captured."""
    return subprocess.run(
        [*SUTURA, "render", *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def process_state(pid: int) -> str | None:
    """Process ``pid``'s state letter from ``/proc/<pid>/stat`` (``R``, ``S``, ``Z``, ...), or
    None once it is gone (Linux)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return None
