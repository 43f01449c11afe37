"""Expressions in catalog documents: read one key per node, typed against the models, pinned by
meaning, and every problem named by file, line and key."""

import pytest

from sutura.core.catalog.pinning.digests import pin
from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    CountIfTerm,
    ExpressionTerm,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    FilterPredicate,
    RatioMeasure,
    ZeroDenominator,
)
from sutura.core.expression.nodes import (
    Between,
    Check,
    Coalesce,
    Column,
    Constant,
    ConstantKind,
)
from sutura.core.expression.nodes import (
    Test as ValueTest,
)
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.question.resolve import resolve_question
from sutura.core.settings import LimitsSettings
from sutura.core.sql.compile import compile_question
from tests.core.expression_samples import (
    LATE_LINES,
    MEDIAN_PRICE,
    PROMO_REVENUE,
    expression_catalog,
    expression_errors,
    metric_digest,
)
from tests.core.sample_catalog import TODAY, question

REFORMATTED_PROMO = """\
---
# the same metric: keys in another order, flow and block styles swapped, constants typed
kind: metric
model: lineitem
name: promo_revenue
audience: open
grains: [year, month]
dimensions: [{values: [SHIP, MAIL], column: l_shipmode, name: shipmode}]
time_column: l_shipdate
measure:
  ratio:
    zero_denominator: yields_null
    denominator:
      of:
        multiply:
          - column: l_extendedprice
          - subtract: [{number: "1"}, {column: l_discount}]
      aggregate: sum
    numerator:
      where:
        starts_with:
          - {via: [lineitem_part], column: p_type}
          - {text: PROMO}
      of: {multiply: [{column: l_extendedprice}, {subtract: ["1", {column: l_discount}]}]}
      aggregate: sum
---
Prose never enters the digest.
"""


def test_each_bare_constant_is_typed_by_the_operand_beside_it() -> None:
    late = expression_catalog().metric("late_lines")
    assert late is not None and late.time_via == ("lineitem_order",)
    discount = late.required_filters[0]
    assert discount == FilterPredicate(
        predicate=Between(
            value=Column(name="l_discount"),
            low=Constant(kind=ConstantKind.NUMBER, text="0.05"),
            high=Constant(kind=ConstantKind.NUMBER, text="0.07"),
        )
    )
    priority = late.dimension("priority")
    assert priority is not None
    assert priority.expression == Coalesce(
        of=(
            Column(name="o_orderpriority", via=("lineitem_order",)),
            Constant(kind=ConstantKind.TEXT, text="unknown"),
        )
    )


def test_reformatting_an_expression_or_typing_its_constants_does_not_move_its_digest() -> None:
    before = metric_digest("promo_revenue")
    assert metric_digest("promo_revenue", metrics__promo_revenue=REFORMATTED_PROMO) == before


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("[1, {column: l_discount}]}]}\n      where", "[2, {column: l_discount}]}]}\n      where"),
        ("PROMO]}", "PROMOS]}"),
        (
            "{subtract: [1, {column: l_discount}]}]}\n      where",
            "{column: l_discount}]}\n      where",
        ),
        ("aggregate: sum\n      of: {multiply", "aggregate: avg\n      of: {multiply"),
        (
            "via: lineitem_part}",
            'via: lineitem_part}, ""]}, {starts_with: [{column: p_type, via: lineitem_part}',
        ),
    ],
)
def test_changing_a_constant_an_operand_or_an_aggregate_moves_the_digest(
    old: str, new: str
) -> None:
    assert old in PROMO_REVENUE
    changed = PROMO_REVENUE.replace(old, new, 1)
    if 'starts_with: [{column: p_type, via: lineitem_part}, ""' in changed:
        changed = changed.replace("where: {starts_with: [", "where: {and: [{starts_with: [", 1)
        changed = changed.replace("PROMO]}", "PROMO]}]}", 1)
    assert metric_digest("promo_revenue", metrics__promo_revenue=changed) != metric_digest(
        "promo_revenue"
    )


OLDER = """\
---
kind: metric
name: older
model: lineitem
measure:
  ratio:
    numerator: {count_if: l_rush}
    denominator: {aggregate: sum, column: l_quantity}
    zero_denominator: fails
time_column: l_shipdate
grains: [year]
required_filters:
  - equals: {column: l_comment, value: ok}
  - not_equals: {column: l_shipmode, value: MAIL}
  - is_true: {column: l_rush}
  - is_not_null: {column: l_discount}
dimensions: []
audience: open
---
"""

NEWER = """\
---
kind: metric
name: older
model: lineitem
measure:
  ratio:
    numerator: {aggregate: count, where: {is_true: {column: l_rush}}}
    denominator: {aggregate: sum, of: {column: l_quantity}}
    zero_denominator: fails
time_column: {column: l_shipdate}
grains: [year]
required_filters:
  - equals: [{column: l_comment}, ok]
  - not_equals: [MAIL, {column: l_shipmode}]
  - is_true: {column: l_rush}
  - is_not_null: {column: l_discount}
dimensions: []
audience: open
---
"""


def test_what_the_older_forms_can_write_is_read_as_them_with_their_digest() -> None:
    older = expression_catalog(metrics__older=OLDER).metric("older")
    newer = expression_catalog(metrics__older=NEWER).metric("older")
    assert older is not None and older == newer
    assert older.measure == RatioMeasure(
        numerator=CountIfTerm(column="l_rush"),
        denominator=AggregateTerm(aggregate=Aggregate.SUM, column="l_quantity"),
        zero_denominator=ZeroDenominator.FAILS,
    )
    assert older.required_filters == (
        FilterEquals(column="l_comment", value="ok"),
        FilterNotEquals(column="l_shipmode", value="MAIL"),
        FilterIsTrue(column="l_rush"),
        FilterIsNotNull(column="l_discount"),
    )
    assert metric_digest("older", metrics__older=OLDER) == metric_digest(
        "older", metrics__older=NEWER
    )


def test_a_term_the_older_forms_cannot_write_stays_an_expression_term() -> None:
    rush = "{aggregate: count, where: {is_null: {column: l_rush}}}"
    metric = expression_catalog(metrics__older=OLDER.replace("{count_if: l_rush}", rush)).metric(
        "older"
    )
    assert metric is not None and isinstance(metric.measure, RatioMeasure)
    assert metric.measure.numerator == ExpressionTerm(
        aggregate=Aggregate.COUNT, where=ValueTest(check=Check.IS_NULL, of=Column(name="l_rush"))
    )
    median = "{aggregate: median, column: l_quantity}"
    text = OLDER.replace("{aggregate: sum, column: l_quantity}", median)
    metric = expression_catalog(metrics__older=text).metric("older")
    assert metric is not None and isinstance(metric.measure, RatioMeasure)
    assert metric.measure.denominator == ExpressionTerm(
        aggregate=Aggregate.MEDIAN, of=Column(name="l_quantity")
    )


def test_equals_on_a_typed_number_column_binds_a_number_not_the_older_text() -> None:
    text = OLDER.replace(
        "equals: {column: l_comment, value: ok}", "equals: [{column: l_linenumber}, 3]"
    )
    metric = expression_catalog(metrics__older=text).metric("older")
    assert metric is not None
    assert isinstance(metric.required_filters[0], FilterPredicate)


def _errors(**replaced: str) -> list[str]:
    return expression_errors(**replaced)


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            "{subtract: [1, {column: l_discount}]}]}\n      where",
            "{subtract: [1, {column: l_shipmode}]}]}\n      where",
            "metrics/promo_revenue.md:9: measure.ratio.numerator.of.multiply[1].subtract[1]: "
            "expected a number, but this is text",
        ),
        (
            "{starts_with: [{column: p_type, via: lineitem_part}, PROMO]}",
            "{starts_with: [{column: p_size, via: lineitem_part}, PROMO]}",
            "metrics/promo_revenue.md:10: measure.ratio.numerator.where.starts_with[0]: "
            "expected text, but this is integer",
        ),
        (
            "{starts_with: [{column: p_type, via: lineitem_part}, PROMO]}",
            "{starts_with: [{column: p_type, via: lineitem_orders}, PROMO]}",
            "metrics/promo_revenue.md:10: measure.ratio.numerator.where.starts_with[0].via: "
            "no relationship is called 'lineitem_orders'",
        ),
        (
            "{starts_with: [{column: p_type, via: lineitem_part}, PROMO]}",
            "{starts_with: [{column: p_name, via: lineitem_part}, PROMO]}",
            "metrics/promo_revenue.md:10: measure.ratio.numerator.where.starts_with[0].column: "
            "the model 'part' has no column 'p_name'",
        ),
        (
            "{starts_with: [{column: p_type, via: lineitem_part}, PROMO]}",
            "{less_than: [{column: p_type, via: lineitem_part}, PROMO]}",
            "metrics/promo_revenue.md:10: measure.ratio.numerator.where.less_than[0]: text has "
            "no order every engine agrees on; compare numbers, dates or timestamps",
        ),
        (
            "{starts_with: [{column: p_type, via: lineitem_part}, PROMO]}",
            "{equals: [{column: l_shipdate}, 24]}",
            "metrics/promo_revenue.md:10: measure.ratio.numerator.where.equals[1]: expected a "
            "date written YYYY-MM-DD",
        ),
        (
            "{starts_with: [{column: p_type, via: lineitem_part}, PROMO]}",
            "{equals: [{column: l_shipdate}, {column: l_quantity}]}",
            "metrics/promo_revenue.md:10: measure.ratio.numerator.where.equals[1]: compares date "
            "with decimal(15,2); compare values of one type (numbers with numbers)",
        ),
        (
            "{starts_with: [{column: p_type, via: lineitem_part}, PROMO]}",
            "{equals: [1, 2]}",
            "metrics/promo_revenue.md:10: measure.ratio.numerator.where.equals[0]: compare a "
            "column or a computed value, not only constants",
        ),
        (
            "{starts_with: [{column: p_type, via: lineitem_part}, PROMO]}",
            "{equals: [{column: l_comment}, ok]}",
            "metrics/promo_revenue.md:10: measure.ratio.numerator.where.equals[0].column: the "
            "column 'l_comment' declares no type; declare it in its model to compute with it",
        ),
        (
            "{starts_with: [{column: p_type, via: lineitem_part}, PROMO]}",
            '{starts_with: [{column: p_type, via: lineitem_part}, "PRO\\0MO"]}',
            "metrics/promo_revenue.md:10: measure.ratio.numerator.where.starts_with[1]: a text "
            "constant may not hold the character NUL (U+0000): PostgreSQL cannot compare with it",
        ),
        (
            "aggregate: sum\n      of: {multiply",
            "aggregate: sum\n      of: {year: {column: l_shipdate}}\n      x: {multiply",
            "metrics/promo_revenue.md:10: measure.ratio.numerator.x: unknown key",
        ),
    ],
)
def test_each_problem_in_an_expression_names_the_file_line_and_key(
    old: str, new: str, sentence: str
) -> None:
    assert old in PROMO_REVENUE
    assert sentence in _errors(metrics__promo_revenue=PROMO_REVENUE.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            "expression: {day_of_week: {column: l_shipdate}}\n    type: integer",
            "expression: {hour_of_day: {column: l_shipdate}}\n    type: integer",
            "metrics/late_lines.md:19: dimensions[0].expression.hour_of_day: a date has no hour; "
            "hour_of_day reads a timestamp",
        ),
        (
            "expression: {day_of_week: {column: l_shipdate}}\n    type: integer",
            "expression: {day_of_week: {column: l_quantity}}\n    type: integer",
            "metrics/late_lines.md:19: dimensions[0].expression.day_of_week: expected a date or "
            "a timestamp, but this is decimal(15,2)",
        ),
        (
            "expression: {day_of_week: {column: l_shipdate}}\n    type: integer",
            "expression: {day_of_week: {column: l_shipdate}}\n    type: text",
            "metrics/late_lines.md:20: dimensions[0].type: declared text, but the expression "
            "computes integer",
        ),
        (
            "expression: {day_of_week: {column: l_shipdate}}\n    type: integer",
            "expression: {day_of_week: {column: l_shipdate}}\n    type: integer\n"
            '    values: ["1", "07"]',
            "metrics/late_lines.md:21: dimensions[0].values[1]: '07' is not a value of the "
            "declared type integer written in its one spelling: expected a number written with "
            "digits and at most one decimal point, such as 24 or 0.05",
        ),
        (
            "edges: [10, 25]",
            "edges: [25, 10]",
            "metrics/late_lines.md:23: dimensions[1].expression.buckets.edges[1]: each edge must "
            "be greater than the one before it",
        ),
        (
            "labels: [small, medium, large]",
            "labels: [small, large]",
            "metrics/late_lines.md:23: dimensions[1].expression.buckets.labels: expected 3 "
            "labels for 2 edges: one below the first edge, one between each two, one from the "
            "last edge up",
        ),
        (
            "between: [{column: l_discount}, 0.05, 0.07]",
            "between: [{column: l_discount}, 0.05, 1e3]",
            "metrics/late_lines.md:15: required_filters[0].between[2]: expected a number written "
            "with digits and at most one decimal point, such as 24 or 0.05",
        ),
        (
            "time_column: {column: o_orderdate, via: lineitem_order}",
            "time_column: {column: o_orderpriority, via: lineitem_order}",
            "metrics/late_lines.md:12: time_column.column: a time column is a date or a "
            "timestamp, but this is text",
        ),
        (
            "time_column: {column: o_orderdate, via: lineitem_order}",
            "time_column: {column: o_orderdate, via: lineitem_part}",
            "metrics/late_lines.md:12: time_column.column: the model 'part' has no column "
            "'o_orderdate'",
        ),
    ],
)
def test_each_problem_in_a_filter_dimension_or_time_column_names_its_key(
    old: str, new: str, sentence: str
) -> None:
    assert old in LATE_LINES
    assert sentence in _errors(metrics__late_lines=LATE_LINES.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            'fraction: "0.90"',
            'fraction: "1.5"',
            "metrics/median_price.md:9: measure.simple.fraction: expected a decimal between 0 "
            "and 1, such as 0.9",
        ),
        (
            'fraction: "0.90"',
            "",
            "metrics/median_price.md:6: measure.simple.fraction: missing required key "
            "(percentile needs a fraction, such as 0.9)",
        ),
        (
            "aggregate: percentile",
            "aggregate: median",
            "metrics/median_price.md:9: measure.simple.fraction: only percentile has a fraction",
        ),
        (
            "of: {divide: [{column: l_extendedprice}, {column: l_quantity}]}",
            "of: {column: l_shipmode}",
            "metrics/median_price.md:7: measure.simple.aggregate: percentile applies to numbers, "
            "but of is text",
        ),
    ],
)
def test_each_problem_in_a_percentile_names_its_key(old: str, new: str, sentence: str) -> None:
    assert old in MEDIAN_PRICE
    assert sentence in _errors(metrics__median_price=MEDIAN_PRICE.replace(old, new, 1))


def _nested(depth: int) -> str:
    inner = "{column: l_quantity}"
    for _ in range(depth - 1):
        inner = f"{{negate: {inner}}}"
    return inner


def test_an_expression_deeper_than_the_bound_is_refused_naming_its_key() -> None:
    fine = MEDIAN_PRICE.replace(
        "{divide: [{column: l_extendedprice}, {column: l_quantity}]}", _nested(12)
    )
    assert expression_catalog(metrics__median_price=fine).metric("median_price") is not None
    deep = MEDIAN_PRICE.replace(
        "{divide: [{column: l_extendedprice}, {column: l_quantity}]}", _nested(13)
    )
    assert _errors(metrics__median_price=deep) == [
        "metrics/median_price.md:8: measure.simple.of: the expression nests 13 nodes deep; at "
        "most 12 may"
    ]


def test_an_expression_with_more_nodes_than_the_bound_is_refused_naming_its_key() -> None:
    many = "{add: [" + ", ".join(["{column: l_quantity}"] * 128) + "]}"
    text = MEDIAN_PRICE.replace("{divide: [{column: l_extendedprice}, {column: l_quantity}]}", many)
    assert _errors(metrics__median_price=text) == [
        "metrics/median_price.md:8: measure.simple.of: the expression has 129 nodes; at most "
        "128 may"
    ]


def test_a_relationship_joins_on_every_column_of_a_primary_key_of_several() -> None:
    shipments = """\
---
kind: model
name: shipments
source: main
table: shipments
columns: [{name: s_orderkey, type: BIGINT}, {name: s_linenumber, type: INTEGER}]
---
"""
    partial = """\
---
kind: relationship
name: shipment_line
origin_model: shipments
target_model: lineitem
keys:
  - equal: {origin: s_orderkey, target: l_orderkey}
join_type: many_to_one
---
"""
    assert _errors(models__shipments=shipments, relationships__shipment_line=partial) == [
        "relationships/shipment_line.md:6: keys: no key joins onto 'l_linenumber' of the "
        "primary key of the model 'lineitem'; a many_to_one relationship joins onto every "
        "column of it, so that a join never counts a row twice"
    ]
    whole = partial.replace(
        "join_type", "  - equal: {origin: s_linenumber, target: l_linenumber}\njoin_type"
    )
    catalog = expression_catalog(models__shipments=shipments, relationships__shipment_line=whole)
    assert catalog.relationship("shipment_line") is not None


def test_a_via_chain_that_comes_back_to_a_model_is_refused_inside_an_expression() -> None:
    back = """\
---
kind: relationship
name: order_lines_back
origin_model: orders
target_model: lineitem
keys:
  - equal: {origin: o_orderkey, target: l_orderkey}
join_type: many_to_one
---
"""
    text = LATE_LINES.replace(
        "{column: o_orderpriority, via: lineitem_order}, unknown",
        "{column: l_shipmode, via: [lineitem_order, order_lines_back]}, unknown",
    )
    errors = _errors(metrics__late_lines=text, relationships__order_lines_back=back)
    assert any(
        "dimensions[2].expression.coalesce[0].via[1]: the relationship 'order_lines_back' leads "
        "back to the model 'lineitem'" in e
        for e in errors
    ), errors


HOSTILE_CONSTANTS = [
    ("quotes and a comment", "x'; DROP TABLE lineitem; --", "x'; DROP TABLE lineitem; --"),
    ("bidi override", "\\u202egnp.exe\\u202c", "\u202egnp.exe\u202c"),
    ("ten kilobytes", "y" * 10_240, "y" * 10_240),
]


@pytest.mark.parametrize(("name", "written", "value"), HOSTILE_CONSTANTS, ids=lambda x: str(x)[:20])
def test_a_hostile_constant_written_in_a_document_is_bound_exactly(
    name: str, written: str, value: str
) -> None:
    text = LATE_LINES.replace("[1-URGENT, 2-HIGH]", f'["{written}", 2-HIGH]')
    catalog = expression_catalog(metrics__late_lines=text)
    pinned = pin(catalog, "v", "UTC")
    asked = question(metrics=["late_lines"], grain="year")
    resolved = resolve_question(asked, pinned, LimitsSettings(), TODAY).unwrap()
    benign = pin(expression_catalog(), "v", "UTC")
    plain = resolve_question(asked, benign, LimitsSettings(), TODAY).unwrap()
    for dialect in Dialect:
        compiled = compile_question(resolved, catalog, SourceFacts(dialect=dialect))
        assert value in compiled.params, name
        assert (
            compiled.sql
            == compile_question(plain, benign.catalog, SourceFacts(dialect=dialect)).sql
        )


def test_an_expression_of_lists_twelve_nodes_deep_loads_in_a_dimension() -> None:
    inner = "{column: l_quantity}"
    for _ in range(11):
        inner = f"{{subtract: [{inner}, 1]}}"
    text = LATE_LINES.replace(
        "expression: {day_of_week: {column: l_shipdate}}\n    type: integer",
        f"expression: {inner}\n    type: decimal",
    )
    late = expression_catalog(metrics__late_lines=text).metric("late_lines")
    assert late is not None and late.dimension("weekday") is not None
