"""Semi-additive measures in the catalog: the rule and entity parsed strictly, checked against
the model and the measure at load, pinned only where declared."""

# ruff: noqa: E501 - the expected sentences read best whole, one table row per line

import pytest
from returns.pipeline import is_successful

from sutura.core.catalog.checks.catalog import check_catalog
from sutura.core.catalog.pinning.digests import pin
from sutura.core.catalog.view.formula import whole_formula
from sutura.core.definitions.model import SemiAdditive, TimeRule
from tests.core.catalog_samples import REVENUE, parse_error, sample_documents


def _semi(semi: str, measure: str = "simple:\n    aggregate: sum\n    column: amount") -> str:
    text = REVENUE.replace("time_column:", f"semi_additive: {semi}\ntime_column:")
    return text.replace("simple:\n    aggregate: sum\n    column: amount", measure)


def _sentences(text: str) -> list[str]:
    result = check_catalog(sample_documents(metrics__revenue=text))
    assert not is_successful(result), "expected the catalog to be refused"
    return [error.sentence() for error in result.failure()]


def test_a_semi_additive_measure_is_parsed_and_pinned_only_where_declared() -> None:
    plain = check_catalog(sample_documents()).unwrap()
    text = _semi("{rule: last, entity: customer_id}")
    catalog = check_catalog(sample_documents(metrics__revenue=text)).unwrap()
    metric = catalog.metric("revenue")
    assert metric is not None
    assert metric.semi_additive == SemiAdditive(rule=TimeRule.LAST, entity=("customer_id",))
    before, after = pin(plain, "v", "UTC"), pin(catalog, "v", "UTC")
    assert after.metric_digests["revenue"] != before.metric_digests["revenue"]
    assert {k: v for k, v in after.metric_digests.items() if k != "revenue"} == {
        k: v for k, v in before.metric_digests.items() if k != "revenue"
    }
    listed = check_catalog(
        sample_documents(metrics__revenue=_semi("{rule: last, entity: [customer_id]}"))
    ).unwrap()
    assert pin(listed, "v", "UTC").metric_digests == after.metric_digests


@pytest.mark.parametrize(
    ("semi", "expected"),
    [
        (
            "{rule: latest, entity: customer_id}",
            "m.md:9: semi_additive.rule: expected one of min, max, first, last",
        ),
        (
            "{rule: last, entity: []}",
            "m.md:9: semi_additive.entity: name at least one column of the metric's model",
        ),
        (
            "{rule: last, entity: [a, a]}",
            "m.md:9: semi_additive.entity[1]: the column 'a' is listed twice",
        ),
        ("{rule: last}", "m.md:9: semi_additive.entity: missing required key"),
        ("{rule: last, entity: x, per: day}", "m.md:9: semi_additive.per: unknown key"),
    ],
)
def test_a_semi_additive_key_is_parsed_strictly(semi: str, expected: str) -> None:
    assert parse_error("m.md", _semi(semi)).sentence().startswith(expected)


@pytest.mark.parametrize(
    ("semi", "measure", "expected"),
    [
        (
            "{rule: last, entity: account_id}",
            "simple:\n    aggregate: sum\n    column: amount",
            "metrics/revenue.md:9: semi_additive.entity[0]: the model 'orders' has no column 'account_id'",
        ),
        (
            "{rule: last, entity: customer_id}",
            "simple:\n    aggregate: avg\n    column: amount",
            "metrics/revenue.md:9: semi_additive.rule: the rule last takes each entity's rows at its last instant of the period and adds them up across entities, so the measure is a sum or count, not avg",
        ),
        (
            "{rule: max, entity: customer_id}",
            "simple:\n    aggregate: count\n    column: amount",
            "metrics/revenue.md:9: semi_additive.rule: the rule max takes each entity's largest value of the period and adds them up across entities, so the measure is a sum, not count",
        ),
        (
            "{rule: first, entity: customer_id}",
            "ratio:\n    numerator: {aggregate: sum, column: amount}\n    denominator: {aggregate: count, column: amount}\n    zero_denominator: fails",
            "metrics/revenue.md:10: semi_additive: a measure taken per entity in each period is one term (a sum or a count), added up across entities; a ratio is not",
        ),
    ],
)
def test_a_semi_additive_measure_is_checked_against_its_model_and_measure(
    semi: str, measure: str, expected: str
) -> None:
    assert _sentences(_semi(semi, measure)) == [expected]


def test_the_formula_of_a_semi_additive_metric_says_what_each_period_takes() -> None:
    text = _semi("{rule: last, entity: customer_id}")
    metric = check_catalog(sample_documents(metrics__revenue=text)).unwrap().metric("revenue")
    assert metric is not None
    assert "; time: ordered_on; each period: the last value per customer_id, added up;" in (
        whole_formula(metric)
    )
