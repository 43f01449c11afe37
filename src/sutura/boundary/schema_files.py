"""The JSON Schemas the package ships (``sutura/schemas/*.schema.json``), and their copies
beside a deployment's files, where the modelines ``init`` and ``example`` write point.

Regenerate the shipped files after changing a ``Written*`` type or the settings::

    python -m sutura.boundary.schema_files
"""

import os
from importlib import resources
from pathlib import Path
from typing import Final

from sutura.core.json_schemas import (
    CATALOG_FILE,
    SCHEMA_NAMES,
    SETTINGS_FILE,
    modeline,
    schema_text,
)

PACKAGE_DIR: Final = "schemas"
COPY_DIR: Final = Path("schemas")
FILES: Final = {"catalog": CATALOG_FILE, "settings": SETTINGS_FILE}


def shipped_text(name: str) -> str:
    """The schema ``name`` as shipped in the package."""
    return resources.files("sutura").joinpath(PACKAGE_DIR, FILES[name]).read_text("utf-8")


def write_schema_copies(config_dir: Path, *, replace: bool = True) -> dict[str, Path]:
    """Copy every shipped schema to ``<config_dir>/schemas/``; an existing copy is replaced
    only when ``replace`` (``init`` never overwrites a file)."""
    target = config_dir / COPY_DIR
    target.mkdir(parents=True, exist_ok=True)
    written = {}
    for name in SCHEMA_NAMES:
        path = target / FILES[name]
        if replace or not path.exists():
            path.write_bytes(shipped_text(name).encode("utf-8"))
        written[name] = path
    return written


def modeline_for(schema: Path, document_dir: Path) -> str:
    """The modeline of a file in ``document_dir`` pointing at ``schema`` by a relative path."""
    return modeline(Path(os.path.relpath(schema, document_dir)).as_posix())


def _regenerate() -> None:
    here = Path(__file__).resolve().parent.parent / PACKAGE_DIR
    for name in SCHEMA_NAMES:
        (here / FILES[name]).write_bytes(schema_text(name).encode("utf-8"))


if __name__ == "__main__":
    _regenerate()
