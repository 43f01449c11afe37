"""The closed vocabulary of what a caller may do: each capability, its scope, its input.

Every surface is derived from this vocabulary: the MCP tool list, the HTTP routes, the CLI
verbs that call, and the audit record. A surface cannot offer something that is not a
capability, and a new capability is a type error at every ``match`` that derives a surface
from it (each ends in ``assert_never``).

>>> scope_of(Capability.RUN_SQL).value
'sutura:sql.run'
>>> [c.value for c in Capability]
['describe_catalog', 'ask_metric', 'run_sql']
"""

from enum import StrEnum
from typing import Annotated, Any, Final, assert_never

import msgspec

from sutura.core.catalog.view.catalog import CatalogBody
from sutura.core.nouns.answer import Outcome
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.question import Question
from sutura.core.raw.outcome import RawOutcome
from sutura.core.raw.request import RawStatement


class Capability(StrEnum):
    """Everything a caller can ask sutura to do, named as the reference names its tools."""

    DESCRIBE_CATALOG = "describe_catalog"
    ASK_METRIC = "ask_metric"
    RUN_SQL = "run_sql"


class Scope(StrEnum):
    """The scope a caller must hold to use a capability (fixed literals, one per capability)."""

    CATALOG_READ = "sutura:catalog.read"
    METRICS_ASK = "sutura:metrics.ask"
    SQL_RUN = "sutura:sql.run"


SEARCH_CHARACTERS: Final = 200
"""The longest search ``describe_catalog`` takes."""


class CatalogRequest(Frozen, frozen=True, omit_defaults=True):
    """``describe_catalog``'s input: optionally words to search for, and a page (from 1).

    With neither, the whole catalog when it fits one page, else its first page.
    """

    search: Annotated[str, msgspec.Meta(max_length=SEARCH_CHARACTERS)] | None = None
    page: Annotated[int, msgspec.Meta(ge=1)] = 1


Request = CatalogRequest | Question | RawStatement
"""The decoded input of some capability."""


def scope_of(capability: Capability) -> Scope:
    """The scope that permits ``capability``."""
    match capability:
        case Capability.DESCRIBE_CATALOG:
            return Scope.CATALOG_READ
        case Capability.ASK_METRIC:
            return Scope.METRICS_ASK
        case Capability.RUN_SQL:
            return Scope.SQL_RUN
        case _:
            assert_never(capability)


def input_type(capability: Capability) -> type[Any]:
    """The Struct a capability's arguments decode to.

    >>> input_type(Capability.ASK_METRIC).__name__
    'Question'
    """
    match capability:
        case Capability.DESCRIBE_CATALOG:
            return CatalogRequest
        case Capability.ASK_METRIC:
            return Question
        case Capability.RUN_SQL:
            return RawStatement
        case _:
            assert_never(capability)


def output_type(capability: Capability) -> Any:
    """The type (a Struct, or a union of tagged Structs) of a capability's structured half.

    >>> output_type(Capability.DESCRIBE_CATALOG).__name__
    'CatalogBody'
    """
    match capability:
        case Capability.DESCRIBE_CATALOG:
            return CatalogBody
        case Capability.ASK_METRIC:
            return Outcome
        case Capability.RUN_SQL:
            return RawOutcome
        case _:
            assert_never(capability)


def offered_by(run_sql_enabled: bool) -> frozenset[Capability]:
    """The capabilities a deployment offers: every one, but ``run_sql`` only when enabled.

    >>> sorted(c.value for c in offered_by(False))
    ['ask_metric', 'describe_catalog']
    """
    return frozenset(c for c in Capability if run_sql_enabled or not _off_by_default(c))


def _off_by_default(capability: Capability) -> bool:
    """Whether the operator must turn ``capability`` on (the ungoverned raw SQL tool)."""
    match capability:
        case Capability.DESCRIBE_CATALOG | Capability.ASK_METRIC:
            return False
        case Capability.RUN_SQL:
            return True
        case _:
            assert_never(capability)
