"""The closed vocabulary of what a caller may do: each capability, its scope, its input.

Every surface is derived from this vocabulary: the MCP tool list, the HTTP routes, the CLI
verbs that call, and the audit record. A surface cannot offer something that is not a
capability, and a new capability is a type error at every ``match`` that derives a surface
from it (each ends in ``assert_never``).

``list_values`` (the distinct values of one dimension, to filter by) has its own scope,
``sutura:values.read``, which a reader is granted beside ``sutura:catalog.read``.

Two capabilities are not offered to agents by default: ``run_sql`` (ungoverned rows) is
offered nowhere until the operator turns it on, and ``compile_question`` (the SQL a question
compiles to) is offered to the command line, the console and the HTTP API, but listed as an
MCP tool only when the operator says so: an agent sees no SQL by default.

>>> scope_of(Capability.RUN_SQL).value, scope_of(Capability.COMPILE_QUESTION).value
('sutura:sql.run', 'sutura:metrics.compile')
>>> [c.value for c in Capability]
['describe_catalog', 'ask_metric', 'run_sql', 'compile_question', 'list_values']
"""

from enum import StrEnum
from typing import Annotated, Any, Final, assert_never

import msgspec

from sutura.core.catalog.view.catalog import CatalogBody
from sutura.core.nouns.answer import Outcome, Refused
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.question import Question
from sutura.core.nouns.values import Values, ValuesRequest
from sutura.core.raw.outcome import RawOutcome
from sutura.core.raw.request import RawStatement
from sutura.core.sql.shown import ShownStatement


class Capability(StrEnum):
    """Everything a caller can ask sutura to do, named as the reference names its tools."""

    DESCRIBE_CATALOG = "describe_catalog"
    ASK_METRIC = "ask_metric"
    RUN_SQL = "run_sql"
    COMPILE_QUESTION = "compile_question"
    LIST_VALUES = "list_values"


class Scope(StrEnum):
    """The scope a caller must hold to use a capability (fixed literals, one per capability)."""

    CATALOG_READ = "sutura:catalog.read"
    METRICS_ASK = "sutura:metrics.ask"
    SQL_RUN = "sutura:sql.run"
    METRICS_COMPILE = "sutura:metrics.compile"
    VALUES_READ = "sutura:values.read"


SEARCH_CHARACTERS: Final = 200
"""The longest search ``describe_catalog`` takes."""


class CatalogRequest(Frozen, frozen=True, omit_defaults=True):
    """``describe_catalog``'s input: optionally words to search for, and a page (from 1).

    With neither, the whole catalog when it fits one page, else its first page.
    """

    search: Annotated[str, msgspec.Meta(max_length=SEARCH_CHARACTERS)] | None = None
    page: Annotated[int, msgspec.Meta(ge=1)] = 1


Request = CatalogRequest | Question | RawStatement | ValuesRequest
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
        case Capability.COMPILE_QUESTION:
            return Scope.METRICS_COMPILE
        case Capability.LIST_VALUES:
            return Scope.VALUES_READ
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
        case Capability.ASK_METRIC | Capability.COMPILE_QUESTION:
            return Question
        case Capability.RUN_SQL:
            return RawStatement
        case Capability.LIST_VALUES:
            return ValuesRequest
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
        case Capability.COMPILE_QUESTION:
            return ShownStatement
        case Capability.LIST_VALUES:
            return Values | Refused
        case _:
            assert_never(capability)


def offered_by(run_sql_enabled: bool) -> frozenset[Capability]:
    """The capabilities a deployment offers: every one, but ``run_sql`` only when enabled.

    >>> sorted(c.value for c in offered_by(False))
    ['ask_metric', 'compile_question', 'describe_catalog', 'list_values']
    """
    return frozenset(c for c in Capability if run_sql_enabled or not _off_by_default(c))


def listed_to_agents(
    offered: frozenset[Capability], compile_question_enabled: bool
) -> frozenset[Capability]:
    """The offered capabilities MCP lists as tools: ``compile_question`` only when the operator
    lists it (``tools.compile_question.enabled``).

    >>> sorted(c.value for c in listed_to_agents(offered_by(False), False))
    ['ask_metric', 'describe_catalog', 'list_values']
    """
    return frozenset(c for c in offered if compile_question_enabled or not _shows_sql(c))


def _off_by_default(capability: Capability) -> bool:
    """Whether the operator must turn ``capability`` on (the ungoverned raw SQL tool)."""
    match capability:
        case (
            Capability.DESCRIBE_CATALOG
            | Capability.ASK_METRIC
            | Capability.COMPILE_QUESTION
            | Capability.LIST_VALUES
        ):
            return False
        case Capability.RUN_SQL:
            return True
        case _:
            assert_never(capability)


def _shows_sql(capability: Capability) -> bool:
    """Whether ``capability`` shows a question's SQL (what an agent is not shown by default)."""
    match capability:
        case (
            Capability.DESCRIBE_CATALOG
            | Capability.ASK_METRIC
            | Capability.RUN_SQL
            | Capability.LIST_VALUES
        ):
            return False
        case Capability.COMPILE_QUESTION:
            return True
        case _:
            assert_never(capability)
