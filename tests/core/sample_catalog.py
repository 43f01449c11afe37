"""A small catalog built directly in Python, and the rows of its two tables.

Models ``orders`` and ``customers`` with a many-to-one relationship ``customer``; metrics cover
every term (sum with a required filter, count, count_distinct, count_if, min, max, avg) and
both ratio behaviours at zero; dimensions with and without allowed values, one reached via the
relationship. The rows exercise NULL versus the empty string, a missing customer (a LEFT join
gives NULL), a zero denominator, exact decimals and rows just outside the usual range.
"""

import datetime
from decimal import Decimal

from returns.result import Result

from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    Catalog,
    Column,
    CountIfTerm,
    Dimension,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    KeyPair,
    Metric,
    Model,
    RatioMeasure,
    Relationship,
    RequiredFilter,
    SimpleMeasure,
    Term,
    ZeroDenominator,
)
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.grain import Grain
from sutura.core.nouns.question import Question, convert_question
from sutura.core.question.resolve import Problem, Resolved, resolve_question
from sutura.core.settings import LimitsSettings

SOURCE = "warehouse"
ALL_GRAINS = tuple(Grain)

ORDERS_COLUMNS: tuple[tuple[str, str], ...] = (
    ("order_id", "INTEGER"),
    ("customer_id", "INTEGER"),
    ("created_at", "DATE"),
    ("status", "VARCHAR"),
    ("channel", "VARCHAR"),
    ("amount", "DECIMAL(10,2)"),
    ("quantity", "INTEGER"),
    ("is_paid", "BOOLEAN"),
    ("ship_region", "VARCHAR"),
)
CUSTOMERS_COLUMNS: tuple[tuple[str, str], ...] = (
    ("customer_id", "INTEGER"),
    ("region", "VARCHAR"),
    ("segment", "VARCHAR"),
    ("signed_up_on", "DATE"),
)

_D = datetime.date
ORDERS_ROWS: tuple[tuple[object, ...], ...] = (
    (1, 1, _D(2024, 1, 5), "complete", "web", Decimal("10.50"), 1, True, "EU"),
    (2, 1, _D(2024, 1, 20), "complete", "store", Decimal("20.00"), 2, True, "EU"),
    (3, 2, _D(2024, 1, 21), "cancelled", "web", Decimal("5.25"), 1, False, "US"),
    (4, 3, _D(2024, 2, 3), "complete", "web", Decimal("100.10"), 4, True, "US"),
    (5, None, _D(2024, 2, 14), "complete", "", Decimal("7.00"), 0, False, None),
    (6, 4, _D(2024, 2, 29), "pending", None, Decimal("12.00"), 3, None, "APAC"),
    (7, 2, _D(2024, 3, 1), "complete", "store", Decimal("0.10"), 1, True, "US"),
    (8, 3, _D(2024, 3, 31), "complete", "web", Decimal("33.33"), 3, True, "US"),
    (9, 1, _D(2023, 12, 31), "complete", "web", Decimal("1000.00"), 1, True, "EU"),
    (10, 2, _D(2024, 4, 1), "complete", "web", Decimal("2000.00"), 1, True, "US"),
)
CUSTOMERS_ROWS: tuple[tuple[object, ...], ...] = (
    (1, "EU", "enterprise", _D(2023, 6, 1)),
    (2, "US", "smb", _D(2023, 7, 15)),
    (3, "US", "enterprise", _D(2024, 1, 10)),
    (4, None, "", _D(2024, 2, 1)),
)


def _model(name: str, columns: tuple[tuple[str, str], ...], key: str) -> Model:
    return Model(
        name=name,
        source=SOURCE,
        table=name,
        columns=tuple(Column(name=c, type=t) for c, t in columns),
        primary_key=key,
    )


ORDERS = _model("orders", ORDERS_COLUMNS, "order_id")
CUSTOMERS = _model("customers", CUSTOMERS_COLUMNS, "customer_id")
CUSTOMER = Relationship(
    name="customer",
    origin_model="orders",
    target_model="customers",
    keys=(KeyPair(origin="customer_id", target="customer_id"),),
)

CHANNEL = Dimension(name="channel", column="channel", values=("web", "store", ""))
STATUS = Dimension(name="status", column="status")
REGION = Dimension(name="region", column="region", via=("customer",), values=("EU", "US", "APAC"))
SEGMENT = Dimension(name="segment", column="segment", via=("customer",))
ORDER_DIMENSIONS = (CHANNEL, STATUS, REGION, SEGMENT)

COMPLETE: tuple[RequiredFilter, ...] = (FilterEquals(column="status", value="complete"),)


def _metric(
    name: str,
    measure: SimpleMeasure | RatioMeasure,
    *,
    required: tuple[RequiredFilter, ...] = (),
    grains: tuple[Grain, ...] = ALL_GRAINS,
    dimensions: tuple[Dimension, ...] = ORDER_DIMENSIONS,
) -> Metric:
    return Metric(
        name=name,
        model="orders",
        measure=measure,
        time_column="created_at",
        grains=grains,
        dimensions=dimensions,
        required_filters=required,
    )


def _of(aggregate: Aggregate, column: str) -> AggregateTerm:
    return AggregateTerm(aggregate=aggregate, column=column)


def _simple(term: Term) -> SimpleMeasure:
    return SimpleMeasure(term=term)


def _ratio(top: Term, bottom: Term, zero: ZeroDenominator) -> RatioMeasure:
    return RatioMeasure(numerator=top, denominator=bottom, zero_denominator=zero)


REVENUE = _metric("revenue", _simple(_of(Aggregate.SUM, "amount")), required=COMPLETE)
AVERAGE_ORDER_VALUE = _metric(
    "average_order_value", _simple(_of(Aggregate.AVG, "amount")), required=COMPLETE
)
ORDER_COUNT = _metric(
    "order_count",
    _simple(_of(Aggregate.COUNT, "order_id")),
    required=(FilterNotEquals(column="status", value="cancelled"),),
)
CUSTOMERS_ORDERING = _metric(
    "customers_ordering",
    _simple(_of(Aggregate.COUNT_DISTINCT, "customer_id")),
    required=(FilterIsNotNull(column="customer_id"),),
)
PAID_ORDERS = _metric("paid_orders", _simple(CountIfTerm(column="is_paid")))
PAID_REVENUE = _metric(
    "paid_revenue",
    _simple(_of(Aggregate.SUM, "amount")),
    required=(FilterIsTrue(column="is_paid"),),
)
SMALLEST_ORDER = _metric("smallest_order", _simple(_of(Aggregate.MIN, "amount")))
LARGEST_ORDER = _metric("largest_order", _simple(_of(Aggregate.MAX, "amount")))
UNITS = _metric("units", _simple(_of(Aggregate.SUM, "quantity")))
PAID_SHARE = _metric(
    "paid_share",
    _ratio(
        CountIfTerm(column="is_paid"), _of(Aggregate.COUNT, "order_id"), ZeroDenominator.YIELDS_NULL
    ),
)
ITEMS_PER_PAID_ORDER = _metric(
    "items_per_paid_order",
    _ratio(
        _of(Aggregate.SUM, "quantity"), CountIfTerm(column="is_paid"), ZeroDenominator.YIELDS_NULL
    ),
)
REVENUE_PER_UNIT = _metric(
    "revenue_per_unit",
    _ratio(_of(Aggregate.SUM, "amount"), _of(Aggregate.SUM, "quantity"), ZeroDenominator.FAILS),
    required=COMPLETE,
    grains=(Grain.MONTH, Grain.QUARTER),
)
SHIPPED_ORDERS = _metric(
    "shipped_orders",
    _simple(_of(Aggregate.COUNT, "order_id")),
    dimensions=(Dimension(name="region", column="ship_region", values=("EU", "US", "APAC")),),
)
SIGNUPS = Metric(
    name="signups",
    model="customers",
    measure=_simple(_of(Aggregate.COUNT, "customer_id")),
    time_column="signed_up_on",
    grains=ALL_GRAINS,
    dimensions=(Dimension(name="region", column="region", values=("EU", "US", "APAC")),),
)

CATALOG = Catalog(
    models=(CUSTOMERS, ORDERS),
    relationships=(CUSTOMER,),
    metrics=tuple(
        sorted(
            (
                REVENUE,
                AVERAGE_ORDER_VALUE,
                ORDER_COUNT,
                CUSTOMERS_ORDERING,
                PAID_ORDERS,
                PAID_REVENUE,
                SMALLEST_ORDER,
                LARGEST_ORDER,
                UNITS,
                PAID_SHARE,
                ITEMS_PER_PAID_ORDER,
                REVENUE_PER_UNIT,
                SHIPPED_ORDERS,
                SIGNUPS,
            ),
            key=lambda m: m.name,
        )
    ),
)

PINNED = PinnedDefinitions(
    time_zone="UTC",
    version="test",
    digest="0" * 64,
    metric_digests={m.name: f"{i:064x}" for i, m in enumerate(CATALOG.metrics)},
    catalog=CATALOG,
)

TODAY = datetime.date(2024, 5, 17)
"""The date ``range.last`` is resolved against in tests."""

FIRST_QUARTER: dict[str, object] = {"start": "2024-01-01", "end": "2024-04-01"}


def question(**fields: object) -> Question:
    """A question about ``revenue`` by month over the first quarter of 2024, with overrides."""
    arguments: dict[str, object] = {
        "metrics": ["revenue"],
        "grain": "month",
        "range": FIRST_QUARTER,
    }
    arguments.update(fields)
    return convert_question(arguments).unwrap()


def resolve(**fields: object) -> Result[Resolved, Problem]:
    """Resolve :func:`question` ``(**fields)`` against the sample catalog, default limits."""
    return resolve_with(LimitsSettings(), **fields)


def resolve_with(limits: LimitsSettings, **fields: object) -> Result[Resolved, Problem]:
    """Resolve :func:`question` ``(**fields)`` against the sample catalog under ``limits``."""
    return resolve_question(question(**fields), PINNED, limits, TODAY)


def resolved(**fields: object) -> Resolved:
    """A question that must resolve."""
    return resolve(**fields).unwrap()
