"""A server's stderr on a pipe nobody reads (:mod:`sutura.boundary.log_stream`): writing never
waits for the reader, what is kept arrives whole and in order once the reader reads, and
what had to be dropped is counted where it was dropped."""

import os
import threading

from sutura.boundary.log_stream import UnheldStderr, dropped_notice

TIMEOUT = 30


def _read_all(fd: int, into: bytearray) -> None:
    while chunk := os.read(fd, 1 << 16):
        into += chunk


def test_a_full_pipe_never_holds_a_writer_and_every_line_is_kept_or_counted() -> None:
    read_end, write_end = os.pipe()
    stream = UnheldStderr(write_end, kept_bytes=20_000)
    lines = [f"line {i:05d} {'x' * 90}\n" for i in range(3_000)]  # 300 KB: past pipe and bound
    writer = threading.Thread(target=lambda: [stream.write(line) for line in lines], daemon=True)
    writer.start()
    writer.join(TIMEOUT)
    assert not writer.is_alive(), "a write waited for the reader"
    received = bytearray()
    reader = threading.Thread(target=_read_all, args=(read_end, received), daemon=True)
    reader.start()
    assert stream.drain(TIMEOUT)  # the reader made room: what was kept is written
    stream.write("after the reader came back\n")
    assert stream.drain(TIMEOUT)
    os.close(write_end)
    reader.join(TIMEOUT)
    os.close(read_end)
    got = received.decode("utf-8").splitlines(keepends=True)
    assert got.pop() == "after the reader came back\n"
    # Each line the pipe and the bound held, in order; where lines had to be dropped, one
    # line counting them.
    written, dropped = 0, 0
    for line in got:
        if line.startswith("sutura: "):
            count = int(line.split()[1])
            assert line == dropped_notice(count)
            written, dropped = written + count, dropped + count
        else:
            assert line == lines[written]
            written += 1
    assert written == len(lines) and dropped > 0


def test_while_the_reader_reads_every_line_is_written_at_once_in_order() -> None:
    read_end, write_end = os.pipe()
    received = bytearray()
    reader = threading.Thread(target=_read_all, args=(read_end, received), daemon=True)
    reader.start()
    stream = UnheldStderr(write_end)
    lines = [f"line {i}: {'é' * (i % 7)}\n" for i in range(500)] + ["long " + "y" * 10_000 + "\n"]
    for line in lines:
        stream.write(line)
    assert stream.drain(TIMEOUT)
    os.close(write_end)
    reader.join(TIMEOUT)
    os.close(read_end)
    assert received.decode("utf-8") == "".join(lines)


def test_one_dropped_line_is_named_in_the_singular() -> None:
    assert dropped_notice(1) == "sutura: 1 log line was dropped: stderr was not read\n"
    assert dropped_notice(12) == "sutura: 12 log lines were dropped: stderr was not read\n"
