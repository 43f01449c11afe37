"""An output file that appears whole or not at all.

It is written to a temporary file in the target's directory and renamed over the target once
everything is on disk; on any failure (an exception, an interrupt) the temporary file is
removed and a file already at the target is left as it was.
"""

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Final

_BUFFER_BYTES: Final = 1 << 20


@contextlib.contextmanager
def atomic_file(target: Path) -> Iterator[BinaryIO]:
    """A binary stream whose bytes become ``target`` only if the block completes."""
    handle, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".partial", dir=target.parent
    )
    try:
        with os.fdopen(handle, "wb", buffering=_BUFFER_BYTES) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, _mode_for(target))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _mode_for(target: Path) -> int:
    """The target's own permissions when it exists, else what a plain ``open`` would give."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask
