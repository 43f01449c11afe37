"""The output file appears whole or not at all."""

import os
import stat
from pathlib import Path

import pytest

from sutura.transports.batch.atomic import atomic_file


def test_a_completed_block_leaves_exactly_the_written_bytes_and_no_temporary_file(
    tmp_path: Path,
) -> None:
    target = tmp_path / "out.txt"
    with atomic_file(target) as out:
        out.write(b"first\n")
        assert not target.exists()
        out.write(b"second\n")
    assert target.read_bytes() == b"first\nsecond\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_a_failed_block_leaves_no_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with pytest.raises(OSError, match="disk gone"), atomic_file(target) as out:
        out.write(b"partial\n")
        raise OSError("disk gone")
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_block_keeps_the_file_that_was_there(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"before\n")
    target.chmod(0o640)
    with pytest.raises(KeyboardInterrupt), atomic_file(target) as out:
        out.write(b"partial\n")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"before\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"before\n")
    target.chmod(0o640)
    with atomic_file(target) as out:
        out.write(b"after\n")
    assert target.read_bytes() == b"after\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_new_file_gets_the_permissions_of_a_plain_open(tmp_path: Path) -> None:
    umask = os.umask(0o027)
    try:
        with atomic_file(tmp_path / "new.txt") as out:
            out.write(b"x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
