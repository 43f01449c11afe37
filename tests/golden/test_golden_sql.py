"""Per-dialect compiled SQL is golden-tested: any drift fails until reviewed and rewritten.

Each case is stored as ``<case>.<dialect>.sql``: a header with the question and the bound
parameters (one per line, typed), then the statement exactly as compiled. Run pytest with
``--update-golden`` to rewrite the files after a deliberate change, and review the diff.
"""

import datetime
import decimal
import json
from pathlib import Path

import msgspec
import pytest

from sutura.core.catalog.pinning.digests import pin
from sutura.core.definitions.model import (
    Derived,
    DerivedOp,
    SemiAdditive,
    TimeRule,
    ZeroDenominator,
)
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.grain import Grain
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.question.resolve import Resolved, resolve_question
from sutura.core.settings import LimitsSettings
from sutura.core.sql.compile import compile_question
from sutura.core.sql.compiled import CompiledQuery
from tests.core.expression_samples import expression_catalog
from tests.core.sample_catalog import CATALOG, PINNED, TODAY, question, resolved

HERE = Path(__file__).parent
DIALECTS: tuple[Dialect, ...] = (Dialect.DUCKDB, Dialect.POSTGRES, Dialect.SPARK)

CASES: dict[str, dict[str, object]] = {
    "revenue_by_month": {},
    "revenue_and_order_count_inline_filters": {"metrics": ["revenue", "order_count"]},
    "average_order_value_by_region_and_segment": {
        "metrics": ["revenue", "average_order_value"],
        "dimensions": ["region", "segment"],
    },
    "revenue_filtered_to_one_region": {
        "grain": "quarter",
        "dimensions": ["channel"],
        "filters": [{"op": "eq", "dimension": "region", "value": "EU"}],
    },
    "order_count_excluding_channels": {
        "metrics": ["order_count"],
        "dimensions": ["channel"],
        "filters": [{"op": "not_in", "dimension": "channel", "values": ["store", ""]}],
    },
    "distinct_customers_and_paid_orders": {
        "metrics": ["customers_ordering", "paid_orders"],
        "grain": "week",
        "range": {"start": "2024-01-03", "end": "2024-02-01"},
    },
    "paid_revenue_smallest_and_largest_by_status": {
        "metrics": ["paid_revenue", "smallest_order", "largest_order"],
        "grain": "year",
        "dimensions": ["status"],
    },
    "revenue_per_unit_top_region": {
        "metrics": ["revenue_per_unit", "revenue"],
        "grain": "quarter",
        "dimensions": ["region"],
        "filters": [{"op": "in", "dimension": "region", "values": ["EU", "US"]}],
        "top": {"n": 1, "by": "revenue_per_unit"},
    },
    "ratios_first_periods": {
        "metrics": ["paid_share", "items_per_paid_order"],
        "dimensions": ["channel"],
        "top": {"n": 5, "by": "period", "direction": "asc"},
    },
    "units_last_three_months_top_channels": {
        "metrics": ["units", "order_count"],
        "range": {"last": {"count": 3, "unit": "month", "include_current": True}},
        "dimensions": ["channel"],
        "top": {"n": 2, "by": "order_count", "direction": "desc"},
    },
    "average_order_value_top_days": {
        "metrics": ["order_count", "average_order_value"],
        "grain": "day",
        "top": {"n": 3, "by": "average_order_value"},
    },
    "revenue_against_the_previous_year_by_channel": {
        "metrics": ["revenue", "average_order_value"],
        "dimensions": ["channel"],
        "compare": {"to": "previous_year"},
        "top": {"n": 2, "by": "revenue"},
    },
    "order_count_trailing_three_months_filled": {
        "metrics": ["order_count", "paid_orders"],
        "window": {"trailing": 3},
        "fill": True,
    },
    "top_two_regions_by_revenue_per_unit_per_quarter": {
        "metrics": ["revenue_per_unit", "units"],
        "grain": "quarter",
        "dimensions": ["region"],
        "top": {"n": 2, "by": "revenue_per_unit", "per": "period"},
    },
    "revenue_and_paid_orders_by_channel_without_a_grain": {
        "metrics": ["revenue", "paid_orders"],
        "grain": None,
        "range": {"start": "2024-01-15", "end": "2024-03-10"},
        "dimensions": ["channel"],
        "top": {"n": 2, "by": "paid_orders"},
    },
    "order_count_without_a_grain_or_dimension": {
        "metrics": ["order_count"],
        "grain": None,
        "range": {"start": "2024-01-15", "end": "2024-03-10"},
    },
    "top_channel_by_paid_orders_per_month_inline_filters": {
        "metrics": ["revenue", "paid_orders"],
        "dimensions": ["channel"],
        "top": {"n": 1, "by": "paid_orders", "direction": "asc", "per": "period"},
    },
}


# Derived metrics, compiled against the sample catalog with two of them added: the statement
# fetches both referents (their filters inline where they differ), nothing else.
DERIVED = (
    Derived(
        name="revenue_per_order",
        op=DerivedOp.RATIO,
        of=("revenue", "order_count"),
        grains=(Grain.MONTH,),
        dimensions=("channel",),
        zero_denominator=ZeroDenominator.YIELDS_NULL,
    ),
    Derived(
        name="revenue_and_paid_orders",
        op=DerivedOp.SUM,
        of=("revenue", "paid_orders"),
        grains=(Grain.MONTH,),
        dimensions=("channel",),
    ),
)
# Metrics on metrics over three halves: orders by their own day, customers by theirs, and
# orders by their customer's signup day; each half grouped alone, joined on period and region.
BY_SIGNUP_DAY = msgspec.structs.replace(
    next(m for m in CATALOG.metrics if m.name == "order_count"),
    name="orders_by_signup_day",
    time_column="signed_up_on",
    time_via=("customer",),
)
NESTED = (
    Derived(
        name="orders_per_signup",
        op=DerivedOp.RATIO,
        of=("order_count", "signups"),
        grains=(Grain.MONTH,),
        dimensions=("region",),
        zero_denominator=ZeroDenominator.YIELDS_NULL,
    ),
    Derived(
        name="orders_per_signup_percent",
        op=DerivedOp.RATIO,
        of=("orders_per_signup", "orders_by_signup_day"),
        grains=(Grain.MONTH,),
        dimensions=("region",),
        zero_denominator=ZeroDenominator.FAILS,
        scale="100",
    ),
)
# Semi-additive: each customer's last orders of the period (a window over period and
# customer), and each customer's largest order (a grouped subquery), added up across them.
CLOSING = msgspec.structs.replace(
    next(m for m in CATALOG.metrics if m.name == "revenue"),
    name="closing_revenue",
    semi_additive=SemiAdditive(rule=TimeRule.LAST, entity=("customer_id",)),
)
PEAK = msgspec.structs.replace(
    CLOSING,
    name="peak_revenue",
    semi_additive=SemiAdditive(rule=TimeRule.MAX, entity=("customer_id",)),
)
DERIVED_PINNED = msgspec.structs.replace(
    PINNED,
    catalog=msgspec.structs.replace(
        CATALOG,
        metrics=tuple(
            sorted((*CATALOG.metrics, BY_SIGNUP_DAY, CLOSING, PEAK), key=lambda m: m.name)
        ),
        derived=(*DERIVED, *NESTED),
    ),
)
DERIVED_CASES: dict[str, dict[str, object]] = {
    "derived_revenue_per_order_by_channel": {
        "metrics": ["revenue_per_order"],
        "dimensions": ["channel"],
    },
    "derived_revenue_per_order_by_channel_without_a_grain": {
        "metrics": ["revenue_per_order"],
        "grain": None,
        "range": {"start": "2024-01-15", "end": "2024-03-10"},
        "dimensions": ["channel"],
    },
    "derived_running_revenue_and_paid_orders_top_channel_per_month": {
        "metrics": ["revenue_and_paid_orders"],
        "dimensions": ["channel"],
        "window": {"running": True},
        "top": {"n": 1, "by": "revenue_and_paid_orders", "per": "period"},
    },
    "semi_closing_revenue_by_region_filtered": {
        "metrics": ["closing_revenue"],
        "dimensions": ["region"],
        "filters": [{"op": "in", "dimension": "region", "values": ["EU", "US"]}],
    },
    "semi_peak_revenue_beside_revenue_by_channel": {
        "metrics": ["peak_revenue", "revenue"],
        "dimensions": ["channel"],
    },
    "nested_percent_beside_revenue_over_three_halves_by_region": {
        "metrics": ["orders_per_signup_percent", "revenue"],
        "dimensions": ["region"],
    },
}
CASES.update(DERIVED_CASES)

# Expressions, compiled against the line items of tests/core/expression_samples.py: columns and
# time reached along relationships, arithmetic, predicates, date parts, buckets, coalesce, a
# percentile over ranked rows, every constant bound.
EXPRESSION_PINNED = pin(expression_catalog(), "v", "UTC")
EXPRESSION_CASES: dict[str, dict[str, object]] = {
    "expression_promo_revenue_by_month_and_shipmode": {
        "metrics": ["promo_revenue"],
        "dimensions": ["shipmode"],
        "filters": [{"op": "in", "dimension": "shipmode", "values": ["MAIL", "SHIP"]}],
    },
    "expression_late_lines_by_year_weekday_size_and_priority": {
        "metrics": ["late_lines"],
        "grain": "year",
        "dimensions": ["weekday", "size", "priority"],
        "top": {"n": 5, "by": "late_lines"},
    },
    "expression_top_size_of_each_year_ranked_by_its_column": {
        "metrics": ["late_lines"],
        "grain": "year",
        "dimensions": ["size"],
        "top": {"n": 1, "by": "late_lines", "per": "period"},
    },
    "expression_percentile_of_a_quotient_by_year": {
        "metrics": ["median_price"],
        "grain": "year",
    },
    # Q6's shape: ranges on decimals and dates, every bound a typed parameter.
    "ranges_q6_quantity_below_and_discount_between": {
        "metrics": ["line_revenue"],
        "grain": "year",
        "filters": [
            {"op": "lt", "dimension": "quantity", "value": 24},
            {"op": "between", "dimension": "discount", "low": "0.05", "high": "0.07"},
            {"op": "ge", "dimension": "shipped", "value": "1994-01-01"},
        ],
    },
    "ranges_instants_truths_and_nulls_along_a_relationship": {
        "metrics": ["line_revenue"],
        "grain": "year",
        "dimensions": ["priority"],
        "filters": [
            {"op": "le", "dimension": "loaded", "value": "1995-06-30 12:00"},
            {"op": "eq", "dimension": "rush", "value": True},
            {"op": "is_null", "dimension": "priority"},
            {"op": "is_not_null", "dimension": "comment"},
        ],
    },
    "expression_percentile_of_a_quotient_without_a_grain": {
        "metrics": ["median_price"],
        "grain": None,
        "range": {"start": "2024-01-15", "end": "2024-03-10"},
    },
}
CASES.update(EXPRESSION_CASES)

# Integer arithmetic, computed in DECIMAL(38, 0) on every engine (each PostgreSQL step cast
# back to it), an operand computed wide already kept as it is, constants bound in reading order.
WIDE_INTEGERS = """\
---
kind: metric
name: line_keys
model: lineitem
measure:
  simple:
    aggregate: sum
    of: {add: [{multiply: [{column: l_linenumber}, 1000]}, {negate: {column: l_partkey}}]}
time_column: l_shipdate
grains: [year]
dimensions:
  - name: next_line
    expression: {add: [{column: l_linenumber}, 1]}
    type: integer
audience: open
---
"""
WIDE_PINNED = pin(expression_catalog(metrics__line_keys=WIDE_INTEGERS), "v", "UTC")
WIDE_CASES: dict[str, dict[str, object]] = {
    "expression_integer_arithmetic_computed_wide": {
        "metrics": ["line_keys"],
        "grain": "year",
        "dimensions": ["next_line"],
    },
}
CASES.update(WIDE_CASES)


def _resolved(case: str) -> Resolved:
    if case in EXPRESSION_CASES:
        asked = question(**EXPRESSION_CASES[case])
        return resolve_question(asked, EXPRESSION_PINNED, LimitsSettings(), TODAY).unwrap()
    if case in WIDE_CASES:
        asked = question(**WIDE_CASES[case])
        return resolve_question(asked, WIDE_PINNED, LimitsSettings(), TODAY).unwrap()
    if case in DERIVED_CASES:
        asked = question(**DERIVED_CASES[case])
        return resolve_question(asked, DERIVED_PINNED, LimitsSettings(), TODAY).unwrap()
    return resolved(**CASES[case])


def _param(value: object) -> str:
    if isinstance(value, datetime.date):
        return f"date {value.isoformat()}"
    if isinstance(value, decimal.Decimal):
        return f"Decimal {value}"
    return f"{type(value).__name__} {json.dumps(value)}"


def _golden_text(case: str, dialect: Dialect, compiled: CompiledQuery) -> str:
    header = [
        f"-- {case} ({dialect})",
        f"-- question: {json.dumps(CASES[case], sort_keys=True)}",
        "-- params:",
        *(f"--   {i}: {_param(v)}" for i, v in enumerate(compiled.params, start=1)),
    ]
    return "\n".join([*header, compiled.sql, ""])


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_sql_matches_its_golden_file(
    case: str, dialect: Dialect, update_golden: bool
) -> None:
    catalog = DERIVED_PINNED.catalog if case in DERIVED_CASES else CATALOG
    if case in EXPRESSION_CASES:
        catalog = EXPRESSION_PINNED.catalog
    if case in WIDE_CASES:
        catalog = WIDE_PINNED.catalog
    compiled = compile_question(_resolved(case), catalog, SourceFacts(dialect=dialect))
    text = _golden_text(case, dialect, compiled)
    path = HERE / f"{case}.{dialect}.sql"
    if update_golden:
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path.name} is missing; run pytest --update-golden and review it"
    assert path.read_text(encoding="utf-8") == text, f"{path.name} drifted from the compiler"


def test_every_golden_file_belongs_to_a_case() -> None:
    expected = {f"{case}.{dialect}.sql" for case in CASES for dialect in DIALECTS}
    assert {p.name for p in HERE.glob("*.sql")} <= expected
