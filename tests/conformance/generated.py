"""Questions drawn at random from the whole question language over the conformance catalog,
and the outcome a service gives one: what the differential tests ask every engine."""

import datetime

import msgspec
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from sutura.api import outcome_of
from sutura.boundary.service import Service
from sutura.core.nouns.answer import Answer
from sutura.core.tool.capability import Capability
from tests.conformance.pack import PACK, Case, text_half_without_source, tuned
from tests.services import call

ORDERS_METRICS = (
    "active_customers", "amount_mix", "average_order_value", "cancelled_orders",
    "closing_spend", "lowest_spend", "opening_orders", "peak_spend", "first_order_day",
    "largest_order", "last_order_day", "mean_order_amount", "mean_third", "net_amount",
    "order_count", "orders_per_return", "orders_per_return_strict", "picky_orders",
    "return_rate", "returned_revenue", "revenue", "revenue_per_return", "smallest_order",
)  # fmt: skip
PARCEL_METRICS = ("heavy_share", "median_weight", "weight_p90")
"""Metrics of the parcels, timed by their own instant (they may be asked together)."""
DERIVED = (
    "cancellation_rate", "closing_spend_share", "kilos_per_placed_order", "net_revenue",
    "net_revenue_per_signup", "orders_per_signup", "placed_orders", "revenue_per_active_customer",
    "revenue_per_active_customer_strict",
)  # fmt: skip
METRICS = (
    *ORDERS_METRICS, *PARCEL_METRICS, *DERIVED, "hub_scans", "parcel_weight", "signups",
    "status_total", "account_balance", "open_accounts",
)  # fmt: skip
"""Every metric of the conformance catalog (a test holds this to the catalog)."""
ADDITIVE = (
    "order_count", "returned_revenue", "revenue", "net_revenue", "signups", "amount_mix",
    "cancelled_orders", "placed_orders",
    "net_amount", "picky_orders", "hub_scans", "parcel_weight",
)  # fmt: skip
"""The metrics a window may add up."""
DIMENSIONS = {
    "region": ("north", "south", "east", "west", "nowhere"),
    "channel": ("web", "store", "phone", "fax"),
    "segment": ("consumer", "business", "government"),
}
EXPRESSION_DIMENSIONS = {
    "carrier": ("dhl", "dpd", "ups", "fedex"),
    "carrier_or_none": ("dhl", "dpd", "none", "ups", "fedex"),
    "weight_band": ("heavy", "light", "medium", "huge"),
    "ship_weekday": ("1", "2", "3", "4", "5", "6", "7", "8"),
    "ship_hour": ("0",),
    "ship_day": ("2024-01-01",),
    "hub": ("north-east", "north-hub", "south", "west"),
    "scan_hour": ("0",),
    "size": ("small",),
    "status_group": ("open",),
    "month_of_year": ("1",),
    "order_year": ("2024",),
    "order_quarter": ("2024-01-01",),
    "order_month": ("2024-01-01",),
    "day_of_month": ("1",),
    "iso_week": ("1",),
    "weight": ("0.5", "2.250", "7", "11.99"),
    "shipped_at": ("2024-03-01 12:00", "2025-06-30"),
    "signup_or_never": ("1900-01-01", "2023-06-01"),
    "status": ("open", "closed", "frozen"),
}
"""The dimensions of the metrics written in the expression vocabulary and of the balances
(where a dimension lists no values, one or a few of its type), drawn when such a metric is."""
ALL_DIMENSIONS = {**DIMENSIONS, **EXPRESSION_DIMENSIONS}
GRAINS = ("day", "week", "month", "quarter", "year")
FILTER_OPS = ("eq", "in", "not_in", "lt", "le", "gt", "ge", "between", "is_null", "is_not_null")
# The example's rows span 2023 to 2025; the pack adds a few in January 2026.
DAYS = st.dates(datetime.date(2022, 11, 1), datetime.date(2026, 3, 1))


@st.composite
def _range(draw: st.DrawFn, grain: str) -> dict[str, object]:
    """``last`` some units, or a start and an end anywhere around the data."""
    if draw(st.booleans()):
        unit = draw(st.sampled_from(GRAINS))
        last: dict[str, object] = {"count": draw(st.integers(1, 4)), "unit": unit}
        if draw(st.booleans()):
            last["include_current"] = draw(st.booleans())
        return {"last": last}
    start = draw(DAYS)
    # A day grain over a long range has more rows than the limit: a refusal both must give.
    longest = 40 if grain == "day" else 800
    end = start + datetime.timedelta(days=draw(st.integers(1, longest)))
    return {"start": start.isoformat(), "end": end.isoformat()}


@st.composite
def _filter(draw: st.DrawFn, pool: dict[str, tuple[str, ...]]) -> dict[str, object]:
    """A filter of any operator, on values the dimension allows or not (a range on text: the
    same problem from every engine)."""
    dimension = draw(st.sampled_from(sorted(pool)))
    values = st.sampled_from(pool[dimension])
    op = draw(st.sampled_from(FILTER_OPS))
    match op:
        case "eq" | "lt" | "le" | "gt" | "ge":
            return {"op": op, "dimension": dimension, "value": draw(values)}
        case "between":
            return {"op": op, "dimension": dimension, "low": draw(values), "high": draw(values)}
        case "is_null" | "is_not_null":
            return {"op": op, "dimension": dimension}
        case _:
            chosen = draw(st.lists(values, min_size=1, max_size=3, unique=True))
            return {"op": op, "dimension": dimension, "values": chosen}


@st.composite
def _metrics(draw: st.DrawFn) -> list[str]:
    """Mostly metrics that may be asked together (a derived metric alone, or metrics of the
    orders model); sometimes any, which the catalog may refuse."""
    match draw(st.integers(0, 11)):
        case 0:
            return draw(st.lists(st.sampled_from(METRICS), min_size=1, max_size=3, unique=True))
        case 1 | 2:
            return [draw(st.sampled_from((*DERIVED, "signups")))]
        case 9:  # derived metrics beside others
            derived = draw(st.sampled_from(DERIVED))
            others = (*DERIVED, *ORDERS_METRICS)
            beside = st.lists(st.sampled_from(others), min_size=1, max_size=2, unique=True)
            return list(dict.fromkeys([derived, *draw(beside)]))
        case 10:
            return draw(
                st.lists(st.sampled_from(PARCEL_METRICS), min_size=1, max_size=2, unique=True)
            )
        case 11:
            alone = ("hub_scans", "parcel_weight", "account_balance", "open_accounts")
            return [draw(st.sampled_from(alone))]
        case _:
            return draw(
                st.lists(st.sampled_from(ORDERS_METRICS), min_size=1, max_size=3, unique=True)
            )


@st.composite
def questions(draw: st.DrawFn) -> dict[str, object]:
    """One question of the whole language, mostly one the catalog can answer."""
    metrics = draw(_metrics())
    grain = draw(st.sampled_from((*GRAINS, None)))  # None: exactly the range, no period
    question: dict[str, object] = {"metrics": metrics}
    if grain is not None:
        question["grain"] = grain
    question["range"] = draw(_range(grain or "none"))
    pool = _pool(metrics)
    dimensions = draw(st.lists(st.sampled_from(sorted(pool)), max_size=2, unique=True))
    if dimensions:
        question["dimensions"] = dimensions
    filters = draw(st.lists(_filter(pool), max_size=2))
    if filters:
        question["filters"] = filters
    # Without a grain, what needs a period is malformed alike everywhere: asked now and then.
    periodless = grain is None and draw(st.integers(0, 7)) > 0
    if not periodless:
        question.update(draw(_over_periods(all(m in ADDITIVE for m in metrics))))
    if draw(st.integers(0, 2)) == 0:
        question["top"] = draw(_top(metrics, per=not periodless and draw(st.booleans())))
    return question


@st.composite
def _over_periods(draw: st.DrawFn, additive: bool) -> dict[str, object]:
    """``compare``, ``window`` (mostly over what adds up) or neither, and ``fill`` or not."""
    found: dict[str, object] = {}
    match draw(st.integers(0, 5)):
        case 0 | 1:
            found["compare"] = {"to": draw(st.sampled_from(("previous_period", "previous_year")))}
        case 2 if additive or draw(st.integers(0, 3)) == 0:
            found["window"] = {"running": True}
        case 3 if additive or draw(st.integers(0, 3)) == 0:
            found["window"] = {"trailing": draw(st.integers(2, 4))}
        case _:
            pass
    if draw(st.integers(0, 3)) == 0:
        found["fill"] = True
    return found


@st.composite
def _top(draw: st.DrawFn, metrics: list[str], *, per: bool) -> dict[str, object]:
    """``top`` by a metric (or the period, where there may be one), of each period or all."""
    top: dict[str, object] = {
        "n": draw(st.integers(1, 4)),
        "by": draw(st.sampled_from(metrics if per else ["period", *metrics])),
    }
    if draw(st.booleans()):
        top["direction"] = draw(st.sampled_from(("asc", "desc")))
    if per:
        top["per"] = "period"
    return top


def _pool(metrics: list[str]) -> dict[str, tuple[str, ...]]:
    """The dimensions a question over ``metrics`` draws on: the orders' three, and the
    expression metrics' own when one is asked."""
    expression = {"amount_mix", "mean_third", "net_amount", "picky_orders", "hub_scans"}
    expression |= {"parcel_weight", *PARCEL_METRICS, "account_balance", "open_accounts"}
    return ALL_DIMENSIONS if expression & set(metrics) else DIMENSIONS


async def asked(service: Service, question: dict[str, object]) -> object:
    """The outcome of ``question``: an answer, a refusal, or what was wrong with it."""
    case = Case(name="generated", expect="any", question=question)
    reply = await call(tuned(service, case, PACK.today), Capability.ASK_METRIC, question)
    return outcome_of(reply)


def drawn(examples: int) -> settings:
    """Hypothesis's settings for a test asking ``examples`` generated questions of real engines
    (no per-question deadline: an engine's time is bounded by the test's own)."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


async def expect_one_outcome(
    first: Service, second: Service, question: dict[str, object]
) -> object:
    """``question`` asked of two engines has one outcome: answers with the same text half (but
    for the line naming the engine), or the same refusal, or the same problem with the
    question. The first engine's outcome, for the test's statistics."""
    on_first = await asked(first, question)
    on_second = await asked(second, question)
    shown = msgspec.json.encode(question).decode()
    if isinstance(on_first, Answer) and isinstance(on_second, Answer):
        assert text_half_without_source(on_second) == text_half_without_source(on_first), shown
    else:
        assert on_second == on_first, shown
    return on_first
