"""A whole input to an output: order kept, every record counted, memory flat as input grows."""

import io
import tracemalloc

from sutura.core.tool.codec import halves_of
from sutura.transports.batch.convert import Target
from sutura.transports.batch.problems import RecordError, RecordProblem
from sutura.transports.batch.stream import Summary, render_stream
from tests.core.untrusted_samples import answer
from tests.transports.batch.samples import jsonl, outcomes, refused, rendered


class _Discard:
    """A sink that keeps only the byte count."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, data: bytes, /) -> int:
        self.size += len(data)
        return len(data)


def test_every_record_is_rendered_or_reported_in_input_order() -> None:
    good = outcomes()
    data = jsonl(good[:2]) + b"oops\n" + jsonl(good[2:3]) + b"\xff\n"
    sink, errors = io.BytesIO(), list[RecordError]()
    summary = render_stream(io.BytesIO(data), sink, on_invalid=errors.append)
    assert summary == Summary(records=5, rendered=3, invalid=2)
    assert sink.getvalue() == rendered(good[:2]) + rendered(good[2:3], first=4)
    assert [(e.number, e.problem) for e in errors] == [
        (3, RecordProblem.NOT_JSON),
        (5, RecordProblem.NOT_UTF8),
    ]


def test_the_json_target_writes_canonical_json_lines() -> None:
    good = outcomes()
    sink = io.BytesIO()
    summary = render_stream(io.BytesIO(jsonl(good)), sink, target=Target.JSON)
    assert summary.invalid == 0
    assert sink.getvalue() == jsonl(good)


def test_empty_input_renders_nothing_and_counts_nothing() -> None:
    sink = io.BytesIO()
    assert render_stream(io.BytesIO(b""), sink) == Summary(records=0, rendered=0, invalid=0)
    assert sink.getvalue() == b""


def test_progress_is_reported_in_bytes_read_and_records_ending_with_the_whole_input() -> None:
    data = jsonl([refused()] * 1000)
    calls: list[tuple[int, int]] = []
    render_stream(io.BytesIO(data), _Discard(), on_progress=lambda b, r: calls.append((b, r)))
    assert calls[-1] == (len(data), 1000)
    assert [r for _, r in calls[:-1]] == [256, 512, 768]


def test_an_over_long_record_is_reported_with_the_cap() -> None:
    errors: list[RecordError] = []
    data = b'"' + b"x" * 500 + b'"\n' + jsonl([refused()])
    summary = render_stream(
        io.BytesIO(data), _Discard(), max_record_bytes=300, on_invalid=errors.append
    )
    assert summary == Summary(records=2, rendered=1, invalid=1)
    assert errors[0].sentence() == "record 1: too_long: a line longer than 300 bytes"


def _peak_bytes(records: int) -> int:
    rows = [[f"2024-01-{day:02d}", "east" * 50, f"{day * 1000}.25"] for day in range(1, 29)]
    data = io.BytesIO(jsonl([answer(["period", "region", "revenue"], rows)]) * records)
    sink = _Discard()
    tracemalloc.start()
    try:
        render_stream(data, sink)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sink.size > 3 << 20  # several flushes of the 1 MiB write batch
    return peak


def test_peak_memory_stays_flat_as_the_input_grows() -> None:
    small, large = _peak_bytes(800), _peak_bytes(2_400)
    assert large < small * 1.1
    assert large < 4 << 20


def test_the_text_of_each_record_is_the_codecs_text_half() -> None:
    item = answer(["m"], [["\u202eevil"]])
    sink = io.BytesIO()
    render_stream(io.BytesIO(jsonl([item])), sink)
    assert sink.getvalue() == b"\\. record 1\n" + halves_of(item).text.encode() + b"\n"
