"""TPC-H written in sutura's catalog language over the raw tables (``catalog/``, no views), and
the question that asks each official query: sutura's answer, but for its period column, is the
official answer cell for cell.

- **Q5** ``local_supplier_revenue``: a product of a column and a difference, timed by the order
  date through ``lineitem_order``, kept where the customer's nation (two relationships away) is
  the supplier's; by the supplier's nation, filtered on its region, ranked by revenue.
- **Q6** ``forecast_revenue_change``: a product, kept by ``between`` and ``less_than``; and
  again as **Q6 ranges**, ``discount_revenue`` asked with the question's own range filters
  (``quantity`` below 24, ``discount`` between 0.05 and 0.07).
- **Q12** ``high_priority_late_lines`` and ``low_priority_late_lines``: counts whose ``where``
  tests the order's priority (``in``, ``not_in``), kept where one date is before another.
- **Q14** ``promo_revenue_percent``: a ratio of two sums, the numerator over promotional parts
  (``starts_with`` through ``lineitem_part``) and multiplied by 100.00, as the query writes it.
"""

from pathlib import Path
from typing import Final

CATALOG: Final = Path(__file__).with_name("catalog")

_YEAR_1994: Final = {"start": "1994-01-01", "end": "1995-01-01"}

QUESTIONS: Final[dict[str, dict[str, object]]] = {
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


async def sutura_answers(environ: dict[str, str]) -> dict[str, list[list[str | None]]]:
    """sutura's answer to every question, from one service started with ``environ``, each
    without its period column; the test fails on anything but an answer."""
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
            answers[name] = [row[1:] for row in outcome.rows]
    return answers
