"""The closed vocabularies whose new member must be a type error, and where each is dispatched.

One :class:`Vocabulary` per closed enum or union whose new member would change behaviour: how
to grow it by one member (an edit to its defining module), how mypy names that member, and its
*readers* — each module that dispatches on it with a ``match`` ending in ``case _:
assert_never(...)``, with how many such matches it holds.

To add a vocabulary (``Capability``, ``Reply``, ...), append one row built by
:func:`enum_row` or :func:`union_row` and list its readers; the tests in
``test_exhaustiveness.py`` pick it up.
"""

import sys
import typing
from enum import Enum
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import sutura
from sutura.core.catalog.document import parse
from sutura.core.catalog.document.parse import DocumentKind
from sutura.core.definitions import audience, knowledge
from sutura.core.definitions import model as catalog_model
from sutura.core.definitions.model import Aggregate, DerivedOp, TimeRule, ZeroDenominator
from sutura.core.expression import nodes as expression_nodes
from sutura.core.expression.nodes import (
    ArithmeticOp,
    Check,
    Comparison,
    Connective,
    ConstantKind,
    Membership,
    Part,
)
from sutura.core.expression.types import Family
from sutura.core.nouns import answer
from sutura.core.nouns import question as question_model
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.formulas import Formulas
from sutura.core.nouns.grain import Grain
from sutura.core.nouns.physical import PhysicalSchema
from sutura.core.nouns.prose import CatalogProse
from sutura.core.nouns.question import CompareTo, Direction
from sutura.core.outcome.fault import Fault
from sutura.core.question import resolve
from sutura.core.question.filters import FilterOp
from sutura.core.settings import Identity, InboundMode, Posture
from sutura.core.sql import compiled as sql_compiled
from sutura.core.tool import carriage as tool_carriage
from sutura.core.tool import codec
from sutura.core.tool import reply as tool_reply
from sutura.core.tool.capability import Capability
from sutura.transports.cli.formats import OutputFormat

PACKAGE = Path(sutura.__file__).parent


class Growth(NamedTuple):
    """One edit to a defining module (a path under the package) that adds a member."""

    module: str
    old: str
    new: str


class Vocabulary(NamedTuple):
    """A closed vocabulary, how to grow it, and where a new member must fail mypy."""

    behaviour: str
    """What a new member does, as a sentence: the test's id."""
    growth: Growth
    member: str
    """How mypy writes the new member's type in its ``assert_never`` error."""
    names: frozenset[str]
    """The enum's name, or the union's member classes: what a loose reader would mention."""
    readers: dict[str, int]
    """Module (a path under the package) → how many matches on the vocabulary it holds."""


def _module_path(module: ModuleType) -> str:
    assert module.__file__ is not None
    return Path(module.__file__).relative_to(PACKAGE).as_posix()


def enum_row(behaviour: str, enum: type[Enum], name: str, readers: dict[str, int]) -> Vocabulary:
    """A row for a string enum, grown by a member ``name`` after its last one."""
    last = list(enum)[-1]
    old = f'    {last.name} = "{last.value}"\n'
    growth = Growth(
        _module_path(sys.modules[enum.__module__]), old, f'{old}    {name} = "{name.lower()}"\n'
    )
    member = f"Literal[{enum.__name__}.{name}]"
    return Vocabulary(behaviour, growth, member, frozenset({enum.__name__}), readers)


def union_row(
    behaviour: str,
    module: ModuleType,
    alias: str,
    member: str,
    fields: str,
    readers: dict[str, int],
) -> Vocabulary:
    """A row for a union alias of frozen Structs, grown by a Struct ``member`` with ``fields``.

    ``fields`` are the attributes every member has (readers outside the matches use them),
    one ``name: type`` per line.
    """
    members = typing.get_args(getattr(module, alias))
    old = f"{alias} = {' | '.join(m.__name__ for m in members)}\n"
    body = "".join(f"    {field.strip()}\n" for field in fields.split("\n"))
    new = f"class {member}(Frozen, frozen=True):\n{body}\n\n{old[:-1]} | {member}\n"
    if len(old) > 100:  # written one member a line, as the formatter writes a long union
        lines = "".join(f"    {'| ' if i else ''}{m.__name__}\n" for i, m in enumerate(members))
        old = f"{alias} = (\n{lines})\n"
        new = f"class {member}(Frozen, frozen=True):\n{body}\n\n{old[:-2]}    | {member}\n)\n"
    names = frozenset(m.__name__ for m in members)
    return Vocabulary(behaviour, Growth(_module_path(module), old, new), member, names, readers)


VOCABULARIES: tuple[Vocabulary, ...] = (
    enum_row(
        "a_new_catalog_prose_member_fails_mypy_at_every_reader",
        CatalogProse,
        "SUMMARIZED",
        {"core/nouns/prose.py": 2},
    ),
    union_row(
        "a_new_filter_member_fails_mypy_where_filters_are_compiled",
        question_model,
        "Filter",
        "FilterLike",
        "dimension: str\nvalue: str",
        {"core/question/filters.py": 1},
    ),
    enum_row(
        "a_new_dialect_fails_mypy_wherever_sql_or_types_differ_by_engine",
        Dialect,
        "TRINO",
        {
            "core/nouns/dialect.py": 1,
            "boundary/sources/introspect.py": 2,
            "core/sql/arithmetic.py": 2,
            "core/sql/expression.py": 2,
            "core/sql/values.py": 1,
        },
    ),
    enum_row(
        "a_new_filter_operator_fails_mypy_where_the_where_clause_is_built",
        FilterOp,
        "LIKE",
        {"core/sql/reading.py": 2, "core/question/filters.py": 3},
    ),
    enum_row(
        "a_new_sort_direction_fails_mypy_where_top_orders_rows",
        Direction,
        "RANDOM",
        {"core/sql/ordering.py": 1},
    ),
    enum_row(
        "a_new_grain_fails_mypy_where_periods_are_computed_and_truncated",
        Grain,
        "FORTNIGHT",
        {"core/question/periods.py": 3, "core/sql/parts.py": 1, "core/question/resolve.py": 1},
    ),
    enum_row(
        "a_new_aggregate_fails_mypy_where_terms_are_built_checked_and_become_sql",
        Aggregate,
        "MODE",
        {
            "core/catalog/checks/expressions.py": 2,
            "core/catalog/document/term.py": 3,
            "core/sql/measures.py": 1,
            "core/sql/ranked.py": 1,
            "core/sql/semi.py": 1,
        },
    ),
    enum_row(
        "a_new_semi_additive_rule_fails_mypy_where_rows_are_chosen_checked_and_planned",
        TimeRule,
        "MEDIAN",
        {"core/catalog/checks/semi.py": 1, "core/sql/plan.py": 1, "core/sql/semi.py": 2},
    ),
    enum_row(
        "a_new_zero_denominator_rule_fails_mypy_where_quotients_are_shaped",
        ZeroDenominator,
        "YIELDS_ZERO",
        {"core/catalog/view/formula.py": 1, "core/sql/combine.py": 1},
    ),
    enum_row(
        "a_new_derived_op_fails_mypy_where_derived_values_are_computed",
        DerivedOp,
        "QUOTIENT",
        {
            "core/catalog/document/derived.py": 1,
            "core/catalog/view/formula.py": 1,
            "core/dbt/derived.py": 1,
            "core/question/resolve.py": 1,
            "core/sql/combine.py": 1,
        },
    ),
    union_row(
        "a_new_term_fails_mypy_where_terms_are_checked_and_compiled",
        catalog_model,
        "Term",
        "WeightedTerm",
        "column: str",
        {
            "core/catalog/checks/catalog.py": 1,
            "core/catalog/checks/expressions.py": 1,
            "core/catalog/checks/paths.py": 1,
            "core/catalog/view/formula.py": 1,
            "core/sql/measures.py": 3,
            "core/sql/ranked.py": 4,
            "core/catalog/checks/semi.py": 1,
            "core/sql/semi.py": 2,
        },
    ),
    union_row(
        "a_new_measure_fails_mypy_where_measures_are_checked_and_compiled",
        catalog_model,
        "Measure",
        "WeightedMeasure",
        "term: Term",
        {
            "core/catalog/checks/catalog.py": 1,
            "core/catalog/checks/expressions.py": 1,
            "core/catalog/checks/paths.py": 1,
            "core/catalog/view/formula.py": 1,
            "core/question/resolve.py": 1,
            "core/sql/compile.py": 1,
            "core/sql/measures.py": 2,
            "core/sql/ranked.py": 2,
            "core/catalog/checks/semi.py": 1,
            "core/sql/semi.py": 1,
        },
    ),
    union_row(
        "a_new_required_filter_fails_mypy_where_filters_are_checked_compiled_and_planned",
        catalog_model,
        "RequiredFilter",
        "FilterIsFalse",
        "column: str",
        {
            "core/catalog/checks/catalog.py": 1,
            "core/catalog/checks/expressions.py": 1,
            "core/catalog/checks/paths.py": 1,
            "core/catalog/view/formula.py": 1,
            "core/sql/expression.py": 1,
            "core/sql/plan.py": 1,
            "core/sql/reads.py": 1,
        },
    ),
    union_row(
        "a_new_expression_node_fails_mypy_where_expressions_are_typed_shown_and_compiled",
        expression_nodes,
        "Expr",
        "Modulo",
        "of: Expr",
        {
            "core/catalog/checks/older.py": 1,
            "core/catalog/document/term.py": 1,
            "core/expression/formula.py": 1,
            "core/expression/infer.py": 2,
            "core/expression/nodes.py": 2,
            "core/expression/reroot.py": 1,
            "core/sql/expression.py": 5,
            "core/sql/reads.py": 1,
        },
    ),
    union_row(
        "a_new_predicate_node_fails_mypy_where_predicates_are_typed_shown_and_compiled",
        expression_nodes,
        "Predicate",
        "Matches",
        "of: Expr",
        {
            "core/catalog/checks/older.py": 1,
            "core/catalog/document/term.py": 1,
            "core/expression/formula.py": 2,
            "core/expression/infer.py": 1,
            "core/expression/nodes.py": 1,
            "core/expression/reroot.py": 1,
            "core/sql/expression.py": 1,
            "core/sql/reads.py": 1,
        },
    ),
    enum_row(
        "a_new_constant_kind_fails_mypy_where_constants_are_checked_bound_and_shown",
        ConstantKind,
        "INTERVAL",
        {
            "core/catalog/checks/older.py": 1,
            "core/expression/constants.py": 3,
            "core/expression/formula.py": 1,
            "core/expression/infer.py": 2,
            "core/sql/expression.py": 1,
            "core/question/filters.py": 2,
        },
    ),
    enum_row(
        "a_new_arithmetic_operator_fails_mypy_where_it_is_typed_shown_and_compiled",
        ArithmeticOp,
        "MODULO",
        {
            "core/catalog/document/expression.py": 1,
            "core/expression/formula.py": 1,
            "core/expression/infer.py": 1,
            "core/sql/expression.py": 2,
        },
    ),
    enum_row(
        "a_new_date_part_fails_mypy_where_it_is_typed_and_compiled",
        Part,
        "MINUTE_OF_HOUR",
        {"core/expression/infer.py": 1, "core/sql/expression.py": 1},
    ),
    enum_row(
        "a_new_comparison_fails_mypy_where_it_is_typed_shown_and_compiled",
        Comparison,
        "LIKE",
        {
            "core/catalog/checks/older.py": 1,
            "core/expression/formula.py": 1,
            "core/expression/infer.py": 1,
            "core/sql/expression.py": 1,
            "core/sql/reads.py": 1,
        },
    ),
    enum_row(
        "a_new_membership_fails_mypy_where_it_is_shown_and_compiled",
        Membership,
        "ANY_OF",
        {"core/expression/formula.py": 1, "core/sql/expression.py": 1, "core/sql/reads.py": 1},
    ),
    enum_row(
        "a_new_value_test_fails_mypy_where_it_is_typed_shown_and_compiled",
        Check,
        "IS_FALSE",
        {
            "core/catalog/document/term.py": 2,
            "core/expression/formula.py": 1,
            "core/expression/infer.py": 1,
            "core/sql/expression.py": 1,
            "core/sql/reads.py": 1,
        },
    ),
    enum_row(
        "a_new_connective_fails_mypy_where_predicates_are_joined",
        Connective,
        "XOR",
        {"core/sql/expression.py": 1, "core/sql/reads.py": 1},
    ),
    enum_row(
        "a_new_value_family_fails_mypy_where_what_it_allows_is_decided",
        Family,
        "INTERVAL",
        {
            "core/catalog/checks/older.py": 1,
            "core/expression/constants.py": 1,
            "core/expression/types.py": 1,
        },
    ),
    enum_row(
        "a_new_formulas_setting_fails_mypy_where_the_view_decides_what_it_shows",
        Formulas,
        "SUMMARIZED_FORMULAS",
        {"core/nouns/formulas.py": 1},
    ),
    enum_row(
        "a_new_document_kind_fails_mypy_where_documents_are_parsed",
        DocumentKind,
        "DASHBOARD",
        {"core/catalog/document/parse.py": 1},
    ),
    union_row(
        "a_new_knowledge_kind_fails_mypy_where_knowledge_is_checked_and_collected",
        knowledge,
        "KnowledgeDocument",
        "Dashboard",
        "name: str",
        {"core/catalog/checks/knowledge.py": 2},
    ),
    union_row(
        "a_new_glossary_meaning_fails_mypy_where_it_is_resolved_checked_and_shown",
        knowledge,
        "Means",
        "MeansRange",
        "metric: str",
        {
            "core/definitions/knowledge.py": 1,
            "core/catalog/checks/knowledge.py": 1,
            "core/catalog/view/knowledge.py": 1,
        },
    ),
    union_row(
        "a_new_audience_fails_mypy_where_callers_are_admitted_and_audiences_pinned",
        audience,
        "Audience",
        "Internal",
        "note: str",
        {"core/definitions/audience.py": 2, "core/catalog/checks/derived.py": 2},
    ),
    union_row(
        "a_new_definition_fails_mypy_where_the_catalog_indexes_documents",
        parse,
        "Definition",
        "Glossary",
        "name: str",
        {"boundary/catalog_files.py": 1, "core/catalog/checks/catalog.py": 1},
    ),
    union_row(
        "a_new_outcome_fails_mypy_where_both_halves_are_rendered",
        answer,
        "Outcome",
        "Deferred",
        "note: str",
        {_module_path(codec): 1},
    ),
    union_row(
        "a_new_answer_column_kind_fails_mypy_where_rows_are_shaped_and_ordered",
        sql_compiled,
        "Output",
        "Constant",
        "index: int",
        {
            "core/sql/compiled.py": 1,
            "core/sql/compile.py": 1,
            "core/sql/shape.py": 1,
            "core/sql/derive.py": 1,
        },
    ),
    enum_row(
        "a_new_comparison_fails_mypy_where_the_prior_period_is_found",
        CompareTo,
        "PREVIOUS_WEEK",
        {"core/question/resolve.py": 1},
    ),
    union_row(
        "a_new_window_fails_mypy_where_it_is_read_named_planned_and_computed",
        resolve,
        "ResolvedWindow",
        "Centered",
        "periods: int",
        {
            "core/question/resolve.py": 1,
            "core/sql/compile.py": 1,
            "core/sql/plan.py": 1,
            "core/sql/derive.py": 1,
        },
    ),
    enum_row(
        "a_new_capability_fails_mypy_wherever_a_surface_is_derived_from_the_vocabulary",
        Capability,
        "EXPLAIN",
        {
            "core/tool/capability.py": 5,
            "core/tool/reply.py": 2,
            "core/prompt.py": 1,
            "boundary/service.py": 1,
            "transports/mcp/tools.py": 2,
            "transports/mcp/server.py": 1,
            "transports/mcp/starting.py": 1,
            "transports/http/routes.py": 1,
            "transports/http/wire.py": 1,
        },
    ),
    union_row(
        "a_new_reply_fails_mypy_wherever_a_transport_maps_a_reply_to_its_envelope",
        tool_reply,
        "Reply",
        "Postponed",
        "capability: Capability",
        {
            "core/tool/reply.py": 1,
            "core/tool/carriage.py": 1,
            "transports/http/replies.py": 1,
            "transports/cli/calling.py": 1,
            "api.py": 2,
        },
    ),
    union_row(
        "a_new_mcp_channel_fails_mypy_wherever_a_reply_is_carried_over_mcp",
        tool_carriage,
        "Carriage",
        "Notification",
        "text: str",
        {
            "transports/mcp/server.py": 1,
            "transports/http/console/wire.py": 1,
        },
    ),
    enum_row(
        "a_new_physical_schema_setting_fails_mypy_where_the_listing_is_offered",
        PhysicalSchema,
        "SUMMARIZED",
        {"core/nouns/physical.py": 1},
    ),
    enum_row(
        "a_new_fault_fails_mypy_where_faults_become_refusals",
        Fault,
        "THROTTLED",
        {"core/outcome/fault.py": 2},
    ),
    enum_row(
        "a_new_posture_fails_mypy_where_a_source_decides_whose_identity_reads_it",
        Posture,
        "IMPERSONATION_AT_SOURCE",
        {"core/settings.py": 2},
    ),
    enum_row(
        "a_new_identity_fails_mypy_where_the_settings_decide_what_it_needs",
        Identity,
        "GUESTS",
        {"core/settings.py": 2},
    ),
    enum_row(
        "a_new_inbound_mode_fails_mypy_where_http_reads_the_token",
        InboundMode,
        "COOKIE",
        {"transports/http/auth.py": 1},
    ),
    enum_row(
        "a_new_output_format_fails_mypy_where_the_command_line_prints_rows",
        OutputFormat,
        "XML",
        {"transports/cli/formats.py": 1},
    ),
)
