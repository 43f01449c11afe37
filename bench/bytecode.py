"""sutura's modules byte-compiled before a bench measures, as installing its wheel does.

An editable install run where ``PYTHONDONTWRITEBYTECODE`` is set (as on CI machines) would
otherwise compile every module from source at each start, while the libraries it is compared
with were compiled when they were installed. ``python -m bench`` compiles once; the sections
that spawn ``sutura`` (``bench.mcp``, ``bench.scale``) compile too when run alone.
"""

import compileall
import sys
from pathlib import Path

import sutura


def compiled_package() -> None:
    """Compile the package's bytecode where it is missing or older than its source; say so on
    stderr when it cannot be written (the cold starts then include compiling it)."""
    if not compileall.compile_dir(Path(sutura.__file__).parent, quiet=1):
        print("bench: sutura's bytecode could not be written; its cold starts include compiling"
              " it", file=sys.stderr)  # fmt: skip
