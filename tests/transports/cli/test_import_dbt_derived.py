"""``sutura import dbt`` of derived metrics that nest or carry a constant factor, through the
command line: the jaffle shop's manifest with derived metrics added (``(a - b) / b``,
``100 * a / b``, ``a / b / 1000``, a derived metric over a derived one), over a few orders
in DuckDB. The report says what was made of each, the catalog passes ``sutura check``, and
each answer is the exact arithmetic of ``expr`` on its inputs' answers (a ratio written with
six places, half to even); what cannot be exact is named with its reason."""

import copy
import csv
import io
import json
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

import duckdb
import pytest

from tests.transports.cli.running import run_in_process as _run
from tests.workloads.jaffle_sl import MANIFEST, RELATIONS

SECURITY: Final = "security:\n  identity: single-user\n  single_user_because: one analyst imports\n"
ORDERS: Final = [
    # order_id, order_total, ordered_at, is_food_order, order_cost
    ("o1", 20.0, "2024-01-05 10:00:00", True, 8.0),
    ("o2", 35.5, "2024-01-20 12:00:00", False, 12.25),
    ("o3", 12.0, "2024-01-31 23:00:00", True, 7.0),
    ("o4", 50.0, "2024-02-02 09:00:00", False, 30.0),
    ("o5", 18.25, "2024-02-14 18:00:00", True, 6.5),
    ("o6", 10.0, "2024-03-03 08:00:00", False, 0.0),  # a zero cost: a ratio over it is NULL
]
ITEMS: Final = [("i1", "o1", 9.5), ("i2", "o2", 14.0), ("i3", "o4", 22.0), ("i4", "o5", 7.25)]
AT: Final = {order: at for order, _, at, _, _ in ORDERS}
# name → (expr, {name in expr: input metric})
DERIVED: Final = {
    "margin_over_cost": ("(total - cost) / cost", {"total": "order_total", "cost": "order_cost"}),
    "food_order_pct": ("100 * food_orders / orders", {}),
    "total_per_cost_k": ("order_total / order_cost / 1000", {}),
    # Named to sort before its input order_gross_profit (revenue - order_cost), a derived one.
    "a_profit_margin_pct": ("order_gross_profit * 100 / revenue", {}),
    "food_minus_large_pct": ("100 * food_orders / orders - 100 * large_order / orders", {}),
    "non_food_doubled": ("2 * (orders - food_orders)", {}),
    # Not carried over, each with its reason.
    "food_over_food": ("food_orders / food_orders", {}),
    "orders_plus_one": ("orders + 1", {}),
    "abs_margin": ("abs(order_total - order_cost)", {}),
    "total_per_cost_thirds": ("order_total / order_cost / 3", {}),
    "twice_orders": ("2 * orders", {}),
}
_SIX: Final = Decimal("0.000001")


def _metric(name: str, expr: str, inputs: dict[str, str]) -> dict[str, Any]:
    """A derived metric as ``dbt parse`` writes it, its inputs aliased where ``inputs`` says."""
    raw = json.loads(MANIFEST.read_text(encoding="utf-8"))
    template: dict[str, Any] = copy.deepcopy(
        next(m for m in raw["metrics"] if m["name"] == "order_gross_profit")
    )
    used = {v: k for k, v in inputs.items()}
    names = [w for w in expr.replace("(", " ").replace(")", " ").split() if w.isidentifier()]
    metrics = sorted({inputs.get(w, w) for w in names} - {"abs"})
    template["name"], template["label"], template["description"] = name, None, None
    params = template["type_params"]
    params["expr"], params["input_measures"] = expr, []
    params["metrics"] = [{**params["metrics"][0], "name": m, "alias": used.get(m)} for m in metrics]
    return template


def _project(tmp_path: Path) -> Path:
    raw = json.loads(MANIFEST.read_text(encoding="utf-8"))
    raw["metrics"] += [_metric(name, *given) for name, given in DERIVED.items()]
    project = tmp_path / "jaffle"
    (project / "target").mkdir(parents=True)
    (project / "target" / "semantic_manifest.json").write_text(json.dumps(raw), encoding="utf-8")
    return project


def _shop(tmp_path: Path) -> Path:
    config = tmp_path / "shop"
    config.mkdir()
    with duckdb.connect(str(config / "jaffle.duckdb")) as connection:
        for relation, spec in RELATIONS.items():
            connection.execute(f"CREATE TABLE {relation} ({spec})")
        for order, total, at, food, cost in ORDERS:
            connection.execute(
                "INSERT INTO orders VALUES (?, 'l1', 'c1', ?, 0, ?, ?, false, ?)",
                [order, total, at, food, cost],
            )
        for item, order, price in ITEMS:
            connection.execute(
                "INSERT INTO order_items VALUES (?, ?, 'p1', ?, 0, 1, 0, ?)",
                [item, order, price, AT[order]],
            )
    (config / "base.yaml").write_text(
        "sources:\n  jaffle:\n    kind: duckdb\n    path: jaffle.duckdb\n" + SECURITY,
        encoding="utf-8",
    )
    return config


def _answers(
    config: Path, metrics: list[str], capsys: pytest.CaptureFixture[str]
) -> dict[str, dict[str, Fraction | None]]:
    """Each month of 2024's first quarter: each metric's value (None for an empty cell)."""
    argv = ["query", *metrics, "--grain", "month", "--from", "2024-01-01", "--to", "2024-04-01"]
    code, out, err = _run([*argv, "--format", "csv"], config, capsys)
    assert (code, err) == (0, ""), out
    rows = list(csv.DictReader(io.StringIO(out)))
    return {
        row["period"]: {m: Fraction(Decimal(row[m])) if row[m] else None for m in metrics}
        for row in rows
    }


def _six(value: Fraction | None) -> Fraction | None:
    """An exact value as sutura writes a ratio: six places, half to even."""
    if value is None:
        return None
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return Fraction(exact.quantize(_SIX, ROUND_HALF_EVEN))


def _ratio(a: Fraction | None, b: Fraction | None) -> Fraction | None:
    """A quotient; NULL where either is NULL or the second is zero (yields_null)."""
    return None if a is None or not b else a / b


def _minus(a: Fraction | None, b: Fraction | None) -> Fraction | None:
    return None if a is None or b is None else a - b


def _times(k: int, a: Fraction | None) -> Fraction | None:
    return None if a is None else k * a


@pytest.fixture
def imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str, str]:
    """The shop with the project imported and checked; the import's output and report."""
    config = _shop(tmp_path)
    code, out, err = _run(["import", "dbt", str(_project(tmp_path))], config, capsys)
    assert (code, err) == (0, ""), out
    code, checked, err = _run(["check"], config, capsys)
    assert (code, err) == (0, ""), checked
    report = (config / "catalog" / "import-dbt-report.txt").read_text(encoding="utf-8")
    return config, out, report


def test_nested_and_scaled_derived_metrics_are_written_as_their_parts_and_checked(
    imported: tuple[Path, str, str],
) -> None:
    config, out, report = imported
    made = "target/semantic_manifest.json: metric"
    for line in (
        f"{made} margin_over_cost: its expr '(total - cost) / cost': margin_over_cost = ratio"
        " of margin_over_cost__part_1 and order_cost; margin_over_cost__part_1 = difference of"
        " order_total and order_cost",
        f"{made} food_order_pct: its expr '100 * food_orders / orders': food_order_pct ="
        " ratio of food_orders and orders, times 100",
        f"{made} total_per_cost_k: its expr 'order_total / order_cost / 1000':"
        " total_per_cost_k = ratio of order_total and order_cost, times 0.001",
        f"{made} non_food_doubled: its expr '2 * (orders - food_orders)': non_food_doubled ="
        " difference of orders and food_orders, times 2",
        f"{made} food_minus_large_pct: its expr '100 * food_orders / orders - 100 * large_order"
        " / orders': food_minus_large_pct = difference of food_minus_large_pct__part_1 and"
        " food_minus_large_pct__part_2, times 100; food_minus_large_pct__part_1 = ratio of"
        " food_orders and orders; food_minus_large_pct__part_2 = ratio of large_order and orders",
    ):
        assert f"  {line}\n" in report and line in out
    assert "derived metrics written as their parts or with a scale: 6\n" in report
    part = (config / "catalog" / "metrics" / "margin_over_cost__part_1.md").read_text("utf-8")
    assert "  op: difference\n  of: [order_total, order_cost]\n" in part
    assert "A part of the metric margin_over_cost" in part
    pct = (config / "catalog" / "metrics" / "food_order_pct.md").read_text("utf-8")
    assert '  zero_denominator: yields_null\n  scale: "100"\n' in pct
    # Parts are not metrics of the project: the counts are the project's own.
    assert "metrics: 18 of 29\n" in report


def test_what_cannot_be_exact_is_named_with_its_reason(imported: tuple[Path, str, str]) -> None:
    _config, _out, report = imported
    reasons = {
        "food_over_food": "its expr 'food_orders / food_orders' takes the ratio of food_orders"
        " with itself; a derived metric combines two different metrics",
        "orders_plus_one": "its expr 'orders + 1' adds or subtracts a constant (1); a derived"
        " metric's scale multiplies, nothing adds",
        "abs_margin": "its expr 'abs(order_total - order_cost)' computes"
        " 'ABS(order_total - order_cost)', which is not + - * / of its input metrics and"
        " constant factors",
        "total_per_cost_thirds": "its expr 'order_total / order_cost / 3' divides by 3, and"
        " 1 / 3 is no exact decimal (a derived metric's scale is one)",
        "twice_orders": "its expr '2 * orders' multiplies its one input orders by 2; a derived"
        " metric combines two metrics, and its scale multiplies what it combines",
        "twice_orders_fill_nulls_with_0": "its input orders_fill_nulls_with_zero is not"
        " carried over as a metric (its line says why)",
    }
    for name, reason in reasons.items():
        assert f"  target/semantic_manifest.json: metric {name}: {reason}\n" in report


def test_each_answer_is_the_exact_arithmetic_of_its_expr_on_its_inputs_answers(
    imported: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    config, _out, _report = imported
    ordered = _answers(
        config,
        ["margin_over_cost", "food_order_pct", "total_per_cost_k", "food_minus_large_pct"],
        capsys,
    )
    ordered_inputs = _answers(
        config, ["order_total", "order_cost", "food_orders", "orders", "large_order"], capsys
    )
    assert sorted(ordered) == ["2024-01-01", "2024-02-01", "2024-03-01"]
    for period, given in ordered_inputs.items():
        total, cost = given["order_total"], given["order_cost"]
        food, count, large = given["food_orders"], given["orders"], given["large_order"]
        expected = {
            "margin_over_cost": _six(_ratio(_minus(total, cost), cost)),
            "food_order_pct": _six(_times(100, _ratio(food, count))),
            "total_per_cost_k": _six(_ratio(total, cost * 1000 if cost is not None else None)),
            "food_minus_large_pct": _six(
                _times(100, _minus(_ratio(food, count), _ratio(large, count)))
            ),
        }
        assert ordered[period] == expected, period
    # March's cost is zero: the ratios over it are NULL there, as MetricFlow's are.
    assert ordered["2024-03-01"]["margin_over_cost"] is None
    doubled = _answers(config, ["non_food_doubled"], capsys)
    assert {p: v["non_food_doubled"] for p, v in doubled.items()} == {
        p: _times(2, _minus(v["orders"], v["food_orders"])) for p, v in ordered_inputs.items()
    }


def test_a_derived_metric_over_a_derived_one_answers_from_its_leaves(
    imported: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    config, _out, _report = imported
    margin = _answers(config, ["a_profit_margin_pct"], capsys)
    # Plain metrics of two models are asked one at a time.
    revenues = _answers(config, ["revenue"], capsys)
    costs = _answers(config, ["order_cost"], capsys)
    assert sorted(margin) == sorted(costs)
    for period, values in margin.items():
        revenue = revenues.get(period, {}).get("revenue")
        cost = costs[period]["order_cost"]
        exact = _times(100, _ratio(_minus(revenue, cost), revenue))
        assert values["a_profit_margin_pct"] == _six(exact), period
    assert margin["2024-03-01"]["a_profit_margin_pct"] is None  # no revenue in March
