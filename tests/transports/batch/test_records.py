"""Reading records: JSON Lines numbered by line, JSON documents by position, a byte cap."""

import io
import tracemalloc

import pytest

from sutura.transports.batch.problems import RecordError, RecordProblem
from sutura.transports.batch.records import Counted, RawRecord, read_records

CAP = 1024


def _read(data: bytes, cap: int = CAP) -> list[RawRecord | RecordError]:
    return list(read_records(io.BytesIO(data), cap))


def _numbers(data: bytes, cap: int = CAP) -> list[tuple[int, str]]:
    return [
        (r.number, "ok" if isinstance(r, RawRecord) else r.problem.value) for r in _read(data, cap)
    ]


def test_empty_input_has_no_records() -> None:
    assert _read(b"") == []
    assert _read(b"\n \n\t\n") == []


def test_json_lines_are_numbered_by_line_and_blank_lines_are_not_records() -> None:
    data = b'{"a": 1}\n\n{"b": 2}\r\n   \n{"c": 3}'
    assert _read(data) == [
        RawRecord(1, b'{"a": 1}\n'),
        RawRecord(3, b'{"b": 2}\r\n'),
        RawRecord(5, b'{"c": 3}'),
    ]


def test_a_line_over_the_cap_is_one_too_long_record_and_reading_goes_on() -> None:
    data = b'{"a": 1}\n"' + b"x" * (CAP * 5) + b'"\n{"c": 3}\n'
    assert _numbers(data) == [(1, "ok"), (2, "too_long"), (3, "ok")]


def test_a_line_of_exactly_the_cap_is_read_whole() -> None:
    line = b'"' + b"x" * (CAP - 2) + b'"'
    assert _read(line + b"\n" + line) == [RawRecord(1, line + b"\n"), RawRecord(2, line)]
    assert _numbers(line + b"x") == [(1, "too_long")]


def test_a_json_array_is_one_record_per_element() -> None:
    data = b'\n  [{"a": 1},\n {"b": [2, 3]}, 4]\n'
    assert _read(data) == [
        RawRecord(1, b'{"a": 1}'),
        RawRecord(2, b'{"b": [2, 3]}'),
        RawRecord(3, b"4"),
    ]


def test_an_empty_json_array_has_no_records() -> None:
    assert _read(b"[]\n") == []


def test_a_json_array_over_the_cap_is_one_too_long_record() -> None:
    data = b"[" + b"1, " * CAP + b"1]"
    [error] = _read(data)
    assert isinstance(error, RecordError)
    assert (error.number, error.problem) == (1, RecordProblem.TOO_LONG)
    assert "JSON Lines" in error.detail


def test_a_broken_json_array_is_one_record_for_the_decoder_to_refuse() -> None:
    assert _read(b'[{"a": 1},\n') == [RawRecord(1, b'[{"a": 1},\n')]


def test_a_pretty_printed_document_is_one_record() -> None:
    data = b'{\n "outcome": "refusal",\n "reason": {}\n}\n'
    assert _read(data) == [RawRecord(1, data)]


def test_a_json_lines_file_with_a_broken_first_line_loses_only_that_line() -> None:
    data = b'{"a": \n{"b": 2}\n{"c": 3}\n'
    assert _read(data) == [
        RawRecord(1, b'{"a": \n'),
        RawRecord(2, b'{"b": 2}\n'),
        RawRecord(3, b'{"c": 3}\n'),
    ]


def test_a_broken_first_line_over_the_cap_is_read_again_as_json_lines() -> None:
    data = b'{"a": "' + b"x" * CAP + b'\n{"b": 2}\n' + b'{"c": 3}\n' * CAP
    numbers = _numbers(data)
    assert numbers[:3] == [(1, "too_long"), (2, "ok"), (3, "ok")]
    assert len(numbers) == CAP + 2


def test_counted_input_counts_every_byte_read() -> None:
    data = b'{"a": 1}\n' * 100
    counted = Counted(io.BytesIO(data))
    assert len(list(read_records(counted, CAP))) == 100
    assert counted.consumed == len(data)


@pytest.mark.parametrize("line_megabytes", [8, 64])
def test_skipping_an_over_long_line_holds_only_bounded_memory(line_megabytes: int) -> None:
    data = io.BytesIO(b'"' + b"x" * (line_megabytes << 20) + b'"\n{"b": 2}\n')
    tracemalloc.start()
    try:
        numbers = [r.number for r in read_records(data, CAP)]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert numbers == [1, 2]
    assert peak < 512 * 1024
