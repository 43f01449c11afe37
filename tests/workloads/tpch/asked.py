"""TPC-H written in sutura's catalog language over the raw tables (``catalog/``, no views), and
the question that asks each official query: sutura's answer, but for its period column, is the
official answer cell for cell, every output column (in the order :data:`OFFICIAL_COLUMNS`
names where sutura's differs: dimensions come before metrics).

- **Q1** eight metrics of ``lineitem`` (sums, averages, a count) by return flag and line
  status, asked without a grain over exactly the days to 1998-09-02 (the query's
  ``l_shipdate <= date '1998-12-01' - interval '90' day``) from the specification's first day.
- **Q3** ``unshipped_order_revenue``: the order-date cut is the question's exact range, the
  ship-date cut the metric's own required filter (a typed date constant), the segment a
  filter; by order, order date and ship priority, the ten largest.
- **Q5** ``local_supplier_revenue``: a product of a column and a difference, timed by the order
  date through ``lineitem_order``, kept where the customer's nation (two relationships away) is
  the supplier's; by the supplier's nation, filtered on its region, ranked by revenue.
- **Q6** ``forecast_revenue_change``: a product, kept by ``between`` and ``less_than``; and
  again as **Q6 ranges**, ``discount_revenue`` asked with the question's own range filters
  (``quantity`` below 24, ``discount`` between 0.05 and 0.07).
- **Q10** ``returned_line_revenue``: by seven dimensions of the customer (so under
  ``limits.max_dimensions: 7``: :data:`LIMITS`), a quarter asked exactly, the twenty largest.
- **Q12** ``high_priority_late_lines`` and ``low_priority_late_lines``: counts whose ``where``
  tests the order's priority (``in``, ``not_in``), kept where one date is before another.
- **Q14** ``promo_revenue_percent``: a ratio of two sums, the numerator over promotional parts
  (``starts_with`` through ``lineitem_part``) and multiplied by 100.00, as the query writes it.
"""

from pathlib import Path
from typing import Final

CATALOG: Final = Path(__file__).with_name("catalog")

LIMITS: Final = {"max_dimensions": 7}
"""The limits the questions are asked under: Q10 groups by seven dimensions."""

_YEAR_1994: Final = {"start": "1994-01-01", "end": "1995-01-01"}

QUESTIONS: Final[dict[str, dict[str, object]]] = {
    "Q1": {
        "metrics": [
            "shipped_quantity",
            "shipped_base_price",
            "shipped_discounted_price",
            "shipped_charge",
            "average_shipped_quantity",
            "average_shipped_price",
            "average_shipped_discount",
            "shipped_lines",
        ],
        "range": {"start": "1992-01-01", "end": "1998-09-03"},
        "dimensions": ["return_flag", "line_status"],
    },
    "Q3": {
        "metrics": ["unshipped_order_revenue"],
        "range": {"start": "1992-01-01", "end": "1995-03-15"},
        "dimensions": ["order_key", "order_date", "ship_priority"],
        "filters": [{"op": "eq", "dimension": "market_segment", "value": "BUILDING"}],
        "top": {"n": 10, "by": "unshipped_order_revenue", "direction": "desc"},
    },
    "Q5": {
        "metrics": ["local_supplier_revenue"],
        "grain": "year",
        "range": _YEAR_1994,
        "dimensions": ["supplier_nation"],
        "filters": [{"op": "eq", "dimension": "supplier_region", "value": "ASIA"}],
        "top": {"n": 25, "by": "local_supplier_revenue", "direction": "desc"},
    },
    "Q6": {"metrics": ["forecast_revenue_change"], "grain": "year", "range": _YEAR_1994},
    "Q6 ranges": {
        "metrics": ["discount_revenue"],
        "grain": "year",
        "range": _YEAR_1994,
        "filters": [
            {"op": "between", "dimension": "discount", "low": "0.05", "high": "0.07"},
            {"op": "lt", "dimension": "quantity", "value": 24},
        ],
    },
    "Q10": {
        "metrics": ["returned_line_revenue"],
        "range": {"start": "1993-10-01", "end": "1994-01-01"},
        "dimensions": [
            "customer_key",
            "customer_name",
            "account_balance",
            "customer_nation",
            "customer_address",
            "customer_phone",
            "customer_comment",
        ],
        "top": {"n": 20, "by": "returned_line_revenue", "direction": "desc"},
    },
    "Q12": {
        "metrics": ["high_priority_late_lines", "low_priority_late_lines"],
        "grain": "year",
        "range": _YEAR_1994,
        "dimensions": ["ship_mode"],
        "filters": [{"op": "in", "dimension": "ship_mode", "values": ["MAIL", "SHIP"]}],
    },
    "Q14": {
        "metrics": ["promo_revenue_percent"],
        "grain": "month",
        "range": {"start": "1995-09-01", "end": "1995-10-01"},
    },
}
"""The question that asks each official query, as its JSON fields (``"Q6 ranges"``: Q6 again,
its conditions the question's filters)."""


def official_name(name: str) -> str:
    """The official query a question of :data:`QUESTIONS` asks (``"Q6 ranges"``: ``"Q6"``).

    >>> official_name("Q6 ranges"), official_name("Q12")
    ('Q6', 'Q12')
    """
    return name.split(" ", 1)[0]


OFFICIAL_COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "Q3": ("l_orderkey", "o_orderdate", "o_shippriority", "revenue"),
    "Q10": (
        "c_custkey",
        "c_name",
        "c_acctbal",
        "n_name",
        "c_address",
        "c_phone",
        "c_comment",
        "revenue",
    ),
}
"""The official query's output columns in the order of sutura's answer, where they differ:
each is every column of the query, once."""


def in_answer_order(
    name: str, columns: tuple[str, ...], rows: list[list[str | None]]
) -> list[list[str | None]]:
    """The official answer's ``rows`` (with ``columns``) with its columns in the order of
    sutura's answer to ``name``; every column kept."""
    order = OFFICIAL_COLUMNS.get(name, columns)
    assert sorted(order) == sorted(columns), (name, columns)
    at = [columns.index(column) for column in order]
    return [[row[i] for i in at] for row in rows]


async def sutura_answers(environ: dict[str, str]) -> dict[str, list[list[str | None]]]:
    """sutura's answer to every question, from one service started with ``environ``, each
    without its period column (a question without a grain has none); the test fails on
    anything but an answer."""
    from sutura.api import outcome_of, question
    from sutura.core.nouns.answer import Answer
    from sutura.core.tool.capability import Capability
    from tests.services import call, serving

    answers: dict[str, list[list[str | None]]] = {}
    async with serving(environ) as service:
        for name, fields in QUESTIONS.items():
            reply = await call(service, Capability.ASK_METRIC, question(fields).unwrap())
            outcome = outcome_of(reply)
            assert isinstance(outcome, Answer), (name, outcome)
            timed = "grain" in fields
            assert (outcome.columns[0] == "period") is timed, (name, outcome.columns)
            answers[name] = [list(row[1:] if timed else row) for row in outcome.rows]
    return answers
