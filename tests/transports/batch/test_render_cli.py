"""``sutura render`` driven the way a user runs it: a subprocess, files, pipes and a terminal."""

import json
import os
import pty
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sutura.core.nouns.answer import Outcome
from sutura.core.text.decode import decode_outcome as decode_text
from sutura.core.text.untrusted import CELLS
from sutura.core.tool.codec import halves_of
from sutura.transports.batch.framing import split_records
from tests.core.untrusted_samples import answer
from tests.transports.batch.samples import (
    INTERRUPTIBLE_SUTURA,
    SUTURA,
    jsonl,
    loose_json,
    outcomes,
    refused,
    render_cli,
    rendered,
)

pytestmark = pytest.mark.slow


def _corpus_lines() -> tuple[bytes, list[tuple[int, Outcome]], list[int]]:
    """One answer per corpus case; surrogate cases as the JSON escapes a producer would write."""
    data, good, surrogates = b"", list[tuple[int, Outcome]](), list[int]()
    for number, case in enumerate(CELLS, start=1):
        item = answer([case.value, "n"], [[case.value, None], ["", case.value]])
        if "surrogate" in case.name:
            escaped = json.dumps(case.value).encode()
            data += halves_of(answer(["?"], [["?"]])).structured.replace(b'"?"', escaped) + b"\n"
            surrogates.append(number)
        else:
            data += halves_of(item).structured + b"\n"
            good.append((number, item))
    return data, good, surrogates


def test_the_untrusted_corpus_renders_byte_exact_and_surrogates_are_typed_errors() -> None:
    data, good, surrogates = _corpus_lines()
    done = render_cli("-", data=data)
    expected = b"".join(rendered([item], first=number) for number, item in good)
    assert done.stdout == expected
    assert done.returncode == 1
    framed = split_records(done.stdout.decode()).unwrap()
    assert [(f.number, decode_text(f.text).unwrap()) for f in framed] == good
    errors = done.stderr.decode().splitlines()
    assert errors[:-1] == [
        f"sutura: render: record {n}: not_representable: a string escapes a lone surrogate, "
        "which strict UTF-8 cannot carry"
        for n in surrogates
    ]
    assert errors[-1] == f"sutura: render: {len(CELLS)} records: {len(good)} rendered, 3 invalid"


def test_the_untrusted_corpus_re_encodes_byte_exact_as_json_lines() -> None:
    data, good, _ = _corpus_lines()
    done = render_cli("--to", "json", "-", data=data)
    assert done.stdout == jsonl([item for _, item in good])


def test_all_rendered_exits_zero_with_the_summary_on_stderr_only(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(jsonl(outcomes()))
    done = render_cli(str(source))
    assert done.returncode == 0
    assert done.stdout == rendered(outcomes())
    count = len(outcomes())
    assert done.stderr == f"sutura: render: {count} records: {count} rendered, 0 invalid\n".encode()


def test_invalid_records_are_numbered_on_stderr_and_exit_one() -> None:
    data = jsonl([refused()]) + b"{}\n\n" + b"\xc3\x28\n" + b'"' + b"x" * 2000 + b'"\n'
    done = render_cli("--max-record-bytes", "1000", "-", data=data)
    assert done.returncode == 1
    assert done.stdout == rendered([refused()])
    assert "\ufffd" not in done.stdout.decode()
    assert done.stderr.decode().splitlines() == [
        "sutura: render: record 2: not_an_outcome: malformed structured value: $: "
        "Object missing required field `outcome`",
        "sutura: render: record 4: not_utf8: byte 1 is not part of a UTF-8 character",
        "sutura: render: record 5: too_long: a line longer than 1000 bytes",
        "sutura: render: 4 records: 1 rendered, 3 invalid",
    ]


def test_empty_input_renders_nothing_and_exits_zero() -> None:
    done = render_cli("-", data=b"")
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr == b"sutura: render: 0 records: 0 rendered, 0 invalid\n"


def test_a_json_array_renders_each_element_as_a_numbered_record() -> None:
    items = outcomes()[:3]
    data = b"[\n" + b",\n".join(loose_json(item) for item in items) + b"\n]\n"
    done = render_cli("-", data=data)
    assert (done.returncode, done.stdout) == (0, rendered(items))


def test_a_pretty_printed_outcome_renders_as_canonical_json() -> None:
    item = outcomes()[0]
    done = render_cli("--to", "json", "-", data=loose_json(item))
    assert (done.returncode, done.stdout) == (0, halves_of(item).structured + b"\n")


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["missing.jsonl"], "cannot read INPUT: No such file or directory"),
        (["."], "cannot read INPUT: Is a directory"),
        (["--max-record-bytes", "0", "-"], "--max-record-bytes must be at least 1"),
        (["--out", "no/such/dir/out.txt", "-"], "--out must name a file in an existing directory"),
        (["--out", ".", "-"], "--out must name a file in an existing directory"),
    ],
)
def test_a_usage_problem_exits_two_and_writes_nothing(
    args: list[str], problem: str, tmp_path: Path
) -> None:
    done = render_cli(*args, data=jsonl([refused()]), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == f"sutura: render: {problem}\n"
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_target_is_a_usage_error() -> None:
    done = render_cli("--to", "csv", "-", data=b"")
    assert done.returncode == 2
    assert b"invalid choice" in done.stderr


def test_out_writes_the_file_whole_even_when_some_records_are_invalid(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    done = render_cli("--out", str(target), "-", data=jsonl([refused()]) + b"nope\n")
    assert (done.returncode, done.stdout) == (1, b"")
    assert target.read_bytes() == rendered([refused()])
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def _wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_an_interrupted_run_leaves_no_partial_file_and_keeps_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"old\n")
    process = subprocess.Popen(
        [*INTERRUPTIBLE_SUTURA, "render", "--out", str(target), "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    process.stdin.write(jsonl([refused()] * 50_000))
    process.stdin.flush()
    _wait_for(lambda: len(list(tmp_path.iterdir())) == 2)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 1
    assert b"interrupted" in stderr
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_no_progress_bar_is_drawn_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(jsonl([refused()] * 5000))
    done = render_cli(str(source), "--out", str(tmp_path / "out.txt"))
    assert done.stderr == b"sutura: render: 5000 records: 5000 rendered, 0 invalid\n"


def test_a_progress_bar_is_drawn_on_a_terminal_and_erased_before_the_summary(
    tmp_path: Path,
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(jsonl([refused()] * 5000))
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [*SUTURA, "render", str(source), "--out", str(tmp_path / "out.txt")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"},
    )
    os.close(terminal)
    screen = _read_all(controller)
    assert process.wait(timeout=60) == 0
    assert "rendering" in screen
    assert screen.rstrip().endswith("sutura: render: 5000 records: 5000 rendered, 0 invalid")


def _read_all(controller: int) -> str:
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed: every writer has exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    return b"".join(chunks).decode(errors="strict")
