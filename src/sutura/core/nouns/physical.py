"""``prompt.physical_schema``: whether MCP lists the models behind the metrics (the listing
itself is :mod:`sutura.core.catalog.view.physical`)."""

from enum import StrEnum
from typing import Final, assert_never


class PhysicalSchema(StrEnum):
    """``prompt.physical_schema``: whether MCP lists the models behind the metrics."""

    HIDDEN = "hidden"
    LISTED = "listed"


PHYSICAL_SCHEMA_URI: Final = "sutura://physical-schema"


def physical_schema_listed(setting: PhysicalSchema) -> bool:
    """Whether the operator lists the physical schema.

    >>> physical_schema_listed(PhysicalSchema.HIDDEN), physical_schema_listed(PhysicalSchema.LISTED)
    (False, True)
    """
    match setting:
        case PhysicalSchema.HIDDEN:
            return False
        case PhysicalSchema.LISTED:
            return True
        case _:
            assert_never(setting)
