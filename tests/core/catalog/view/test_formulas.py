"""A metric's formula on the text surfaces: shown only when the operator says so, escaped like
every name (the hostile corpus walked through a constant), and never a constant in SQL text."""

import json

import msgspec
import pytest

from sutura.core.catalog.pinning.digests import pin
from sutura.core.catalog.view.catalog import CatalogView
from sutura.core.definitions.model import FilterPredicate, Metric
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.expression.nodes import Column, Compare, Comparison, Constant, ConstantKind
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.formulas import Formulas
from sutura.core.nouns.prose import CatalogProse
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.prompt import render_prompt
from sutura.core.question.resolve import resolve_question
from sutura.core.settings import LimitsSettings
from sutura.core.sql.compile import compile_question
from sutura.core.sql.compiled import CompiledQuery
from sutura.core.text.escape import has_lone_surrogate, is_escaped
from sutura.core.text.untrusted import CELLS, Case
from sutura.core.tool.capability import Capability
from sutura.core.tool.codec import encode
from tests.core.expression_samples import expression_catalog
from tests.core.sample_catalog import TODAY, question

# NUL is refused when a catalog is loaded (PostgreSQL cannot compare with it), and a lone
# surrogate when its document is read (no UTF-8 text holds one); the rest reach the surfaces.
HOSTILE = [
    case for case in CELLS if "\x00" not in case.value and not has_lone_surrogate(case.value)
]


def _with_constant(value: str) -> tuple[Metric, PinnedDefinitions]:
    """The promo metric of the samples, kept where the ship mode equals ``value``."""
    catalog = expression_catalog()
    metric = catalog.metric("promo_revenue")
    assert metric is not None
    rule = FilterPredicate(
        predicate=Compare(
            op=Comparison.EQUALS,
            left=Column(name="l_returnflag"),
            right=Constant(kind=ConstantKind.TEXT, text=value),
        )
    )
    hostile = msgspec.structs.replace(metric, required_filters=(rule,))
    others = tuple(m for m in catalog.metrics if m.name != "promo_revenue")
    metrics = tuple(sorted((*others, hostile), key=lambda m: m.name))
    changed = msgspec.structs.replace(catalog, metrics=metrics)
    return hostile, pin(changed, "v1", "UTC")


def test_formulas_are_hidden_unless_the_operator_shows_them() -> None:
    _, pinned = _with_constant("R")
    hidden = CatalogView.of(pinned, CatalogProse.QUOTED)
    assert not any(line.startswith("formula:") for line in hidden.lines())
    assert all(isinstance(m.formula, msgspec.UnsetType) for m in hidden.body.metrics)
    shown = CatalogView.of(pinned, CatalogProse.QUOTED, formulas=Formulas.SHOWN)
    lines = [line for line in shown.lines() if line.startswith("formula:")]
    assert len(lines) == len(shown.body.metrics)
    assert (
        "formula: (sum(l_extendedprice * (1 - l_discount)) where lineitem_part.p_type starts with"
        " 'PROMO') / (sum(l_extendedprice * (1 - l_discount))) (NULL where the denominator is"
        " zero) where (l_returnflag = 'R'); time: l_shipdate; shipmode: l_shipmode"
    ) in lines


@pytest.mark.parametrize("case", HOSTILE, ids=lambda case: case.name)
def test_a_hostile_constant_is_escaped_in_the_formula_and_never_forges_a_line(case: Case) -> None:
    _, pinned = _with_constant(case.value)
    hidden = CatalogView.of(pinned, CatalogProse.QUOTED)
    shown = CatalogView.of(pinned, CatalogProse.QUOTED, formulas=Formulas.SHOWN)
    rendered = shown.text().unwrap()
    assert len(rendered.split("\n")) == len(hidden.text().unwrap().split("\n")) + len(
        shown.body.metrics
    )
    formulas_lines = [line for line in rendered.split("\n") if line.startswith("formula: ")]
    assert len(formulas_lines) == len(shown.body.metrics)
    assert not [ch for line in formulas_lines for ch in line if is_escaped(ch) and ch != "\\"]
    rendered.encode("utf-8")
    body = json.loads(encode(shown.body).unwrap())
    formulas = [m["formula"] for m in body["metrics"] if m["name"] == "promo_revenue"]
    assert case.value[:80].replace("'", "''") in formulas[0]


@pytest.mark.parametrize("case", HOSTILE, ids=lambda case: case.name)
@pytest.mark.parametrize("dialect", list(Dialect))
def test_a_hostile_constant_is_bound_and_never_in_the_sql_text(
    case: Case, dialect: Dialect
) -> None:
    def compiled(value: str) -> CompiledQuery:
        _, pinned = _with_constant(value)
        asked = question(metrics=["promo_revenue"], grain="month")
        resolved = resolve_question(asked, pinned, LimitsSettings(), TODAY).unwrap()
        return compile_question(resolved, pinned.catalog, SourceFacts(dialect=dialect))

    hostile = compiled(case.value)
    assert case.value in hostile.params
    assert hostile.sql == compiled("R").sql  # the text does not depend on the constant


def test_the_prompt_carries_the_formula_when_shown_and_never_otherwise() -> None:
    _, pinned = _with_constant("R")
    for formulas, expected in ((Formulas.HIDDEN, False), (Formulas.SHOWN, True)):
        prompt = render_prompt(
            pinned,
            prose=CatalogProse.QUOTED,
            limits=LimitsSettings(),
            tools=frozenset({Capability.DESCRIBE_CATALOG, Capability.ASK_METRIC}),
            operator_instructions=None,
            formulas=formulas,
        )
        assert ("formula: (sum(l_extendedprice" in prompt) is expected
