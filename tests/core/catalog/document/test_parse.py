"""One document: front matter, raw scalars, schemas per kind, and errors at file:line: key."""

# ruff: noqa: E501 - the expected sentences read best whole, one table row per line

import datetime
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.pipeline import is_successful

from sutura.core.catalog.document.parse import parse_document
from sutura.core.definitions.audience import OPEN
from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    Column,
    CountIfTerm,
    FilterNotEquals,
    Metric,
    Model,
    RatioMeasure,
    Relationship,
    SimpleMeasure,
    ZeroDenominator,
)
from sutura.core.nouns.grain import Grain
from tests.core.catalog_samples import (
    CUSTOMERS,
    ORDER_CUSTOMER,
    ORDERS,
    PAID_SHARE,
    REVENUE,
    parse_error,
    parsed,
)

LABEL = "metrics/revenue.md"


def _sentence(text: str, label: str = LABEL) -> str:
    return parse_error(label, text).sentence()


def test_a_model_keeps_bare_and_detailed_columns_and_its_prose() -> None:
    model = parsed("models/orders.md", ORDERS).definition
    assert isinstance(model, Model)
    assert model.table == ("shop_orders",)
    assert model.columns[0] == Column(name="order_id")
    assert model.columns[3] == Column(
        name="amount", type="DECIMAL(12,2)", description="Charged, in euros."
    )
    assert model.primary_key == "order_id"
    assert model.description == "One row per order."


def test_a_relationship_parses_its_keys() -> None:
    relationship = parsed("r.md", ORDER_CUSTOMER).definition
    assert isinstance(relationship, Relationship)
    assert relationship.keys[0].origin == "customer_id"
    assert relationship.description == ""


def test_a_metric_parses_measure_filters_dimensions_and_anchor() -> None:
    metric = parsed(LABEL, REVENUE).definition
    assert isinstance(metric, Metric)
    assert metric.measure == SimpleMeasure(
        term=AggregateTerm(aggregate=Aggregate.SUM, column="amount")
    )
    assert metric.grains == (Grain.DAY, Grain.MONTH, Grain.YEAR)
    assert metric.required_filters == (FilterNotEquals(column="order_status", value="cancelled"),)
    assert metric.dimensions[0].via == ("order_customer",)
    assert metric.dimensions[0].values == ("north", "south")
    assert metric.dimensions[1].values is None
    assert metric.anchor is not None
    assert metric.anchor.start == datetime.date(2024, 1, 1)
    assert metric.anchor.value == "1234.50"
    assert metric.audience == OPEN


def test_a_ratio_metric_parses_both_terms() -> None:
    metric = parsed("m.md", PAID_SHARE).definition
    assert isinstance(metric, Metric)
    assert metric.measure == RatioMeasure(
        numerator=CountIfTerm(column="is_paid"),
        denominator=AggregateTerm(aggregate=Aggregate.COUNT, column="order_id"),
        zero_denominator=ZeroDenominator.YIELDS_NULL,
    )


@pytest.mark.parametrize("written", ["yes", "1.50", "2024-01-01", "0x1F", "'null'", "1e3"])
def test_every_scalar_stays_the_text_the_author_wrote(written: str) -> None:
    text = REVENUE.replace("values: [north, south]", f"values: [north, {written}]")
    metric = parsed(LABEL, text).definition
    assert isinstance(metric, Metric)
    assert metric.dimensions[0].values == ("north", written.strip("'"))


@pytest.mark.parametrize("written", ["~", "null", ""])
def test_a_plain_null_is_absent(written: str) -> None:
    model = parsed("m.md", ORDERS.replace("primary_key: order_id", f"primary_key: {written}"))
    assert isinstance(model.definition, Model)
    assert model.definition.primary_key is None


def test_the_body_is_kept_exactly_but_for_the_fence_newline_and_final_newlines() -> None:
    body = "  indented\n\n\ttab and trailing spaces   \n> quote\r\nend"
    text = CUSTOMERS.replace("One row per buyer.\n", body + "\n\n\n")
    model = parsed("m.md", text).definition
    assert model.description == body


def test_a_document_without_a_body_has_an_empty_description() -> None:
    assert (
        parsed("m.md", CUSTOMERS.replace("---\nOne row per buyer.\n", "---")).definition.description
        == ""
    )


def test_the_line_map_holds_every_key_path() -> None:
    lines = parsed(LABEL, REVENUE).lines
    assert lines["measure.simple.aggregate"] == 7
    assert lines["dimensions[1].column"] == 19
    assert lines["grains[2]"] == 10


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        (
            "kind: metric\n",
            "metrics/revenue.md:1: the first line must be exactly --- (the start of the front matter)",
        ),
        (
            "---\r\nkind: metric\r\n---\r\n",
            "metrics/revenue.md:1: lines must end with \\n alone; this file ends them with \\r\\n",
        ),
        (
            "\ufeff---\nkind: metric\n---\n",
            "metrics/revenue.md:1: the file starts with a byte order mark; save it as UTF-8 without one",
        ),
        (
            "---\nkind: metric\n",
            "metrics/revenue.md:1: the front matter is not closed by a line that is exactly ---",
        ),
        (
            "",
            "metrics/revenue.md:1: the first line must be exactly --- (the start of the front matter)",
        ),
    ],
)
def test_a_missing_or_unclosed_front_matter_is_refused(text: str, sentence: str) -> None:
    assert _sentence(text) == sentence


def test_broken_yaml_names_the_line() -> None:
    text = REVENUE.replace("grains: [day, month, year]", "grains: [day, month")
    assert _sentence(text).startswith("metrics/revenue.md:11: the front matter is not valid YAML")


def test_a_duplicate_key_names_the_second_line() -> None:
    text = REVENUE.replace("    column: amount\n", "    column: amount\n    column: amount\n")
    assert _sentence(text) == (
        "metrics/revenue.md:9: measure.simple.column: the key 'column' appears twice"
    )


@pytest.mark.parametrize(
    ("replacement", "sentence"),
    [
        (
            "model: &m orders",
            "metrics/revenue.md:4: YAML anchors are not allowed; write each value out",
        ),
        ("model: !!str orders", "metrics/revenue.md:4: YAML tags are not allowed"),
        (
            "model: orders\nalias: *m",
            "metrics/revenue.md:5: YAML aliases are not allowed; write the value out",
        ),
        ("<<: {model: orders}", "metrics/revenue.md:4: keys must be plain names (no merge keys)"),
        ("? [model]\n: orders", "metrics/revenue.md:4: keys must be plain names (no merge keys)"),
    ],
)
def test_anchors_aliases_tags_merge_and_complex_keys_are_refused(
    replacement: str, sentence: str
) -> None:
    assert _sentence(REVENUE.replace("model: orders", replacement)) == sentence


def test_deep_nesting_is_refused_before_it_is_composed() -> None:
    text = "---\nkind: " + "[" * 40 + "]" * 40 + "\n---\n"
    assert _sentence(text) == "metrics/revenue.md:2: the front matter nests deeper than 32 levels"


@pytest.mark.parametrize(
    ("front", "sentence"),
    [
        ("", "metrics/revenue.md:1: the front matter must be a mapping of keys to values"),
        ("- kind\n", "metrics/revenue.md:1: the front matter must be a mapping of keys to values"),
    ],
)
def test_the_front_matter_must_be_a_mapping(front: str, sentence: str) -> None:
    assert _sentence(f"---\n{front}---\n") == sentence


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            "    column: amount\n",
            "    column: amount\n    colour: red\n",
            "metrics/revenue.md:9: measure.simple.colour: unknown key",
        ),
        ("grains:", "colour: red\ngrains:", "metrics/revenue.md:10: colour: unknown key"),
        (
            "    values: [north, south]",
            "    values: [north, south]\n    hidden: true",
            "metrics/revenue.md:18: dimensions[0].hidden: unknown key",
        ),
        (
            "{column: order_status, value: cancelled}",
            "{column: order_status, value: cancelled, or: x}",
            "metrics/revenue.md:12: required_filters[0].not_equals.or: unknown key",
        ),
        (
            "  value: 1234.50",
            "  value: 1234.50\n  tolerance: 1",
            "metrics/revenue.md:23: anchor.tolerance: unknown key",
        ),
    ],
)
def test_an_unknown_key_is_refused_at_every_depth(old: str, new: str, sentence: str) -> None:
    assert _sentence(REVENUE.replace(old, new)) == sentence


def test_an_unknown_key_is_escaped_in_the_sentence() -> None:
    sentence = _sentence(REVENUE.replace("grains:", '"evil\\e[2J\\u202e": 1\ngrains:'))
    assert sentence == "metrics/revenue.md:10: evil\\u001b[2J\\u202e: unknown key"
    assert sentence.isprintable()


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            "time_column: ordered_on\n",
            "",
            "metrics/revenue.md:1: time_column: missing required key",
        ),
        (
            "    column: sales_region\n",
            "",
            "metrics/revenue.md:14: dimensions[0].column: missing required key",
        ),
        (
            "grains: [day, month, year]",
            "grains: day",
            "metrics/revenue.md:10: grains: expected a list, got text",
        ),
        (
            "name: revenue",
            "name: [revenue]",
            "metrics/revenue.md:3: name: expected text, got a list",
        ),
        (
            "    via: order_customer",
            "    via: {a: b}",
            "metrics/revenue.md:16: dimensions[0].via: expected text or a list or nothing, got a mapping",
        ),
    ],
)
def test_a_missing_key_or_wrong_shape_names_the_key(old: str, new: str, sentence: str) -> None:
    assert _sentence(REVENUE.replace(old, new)) == sentence


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            "aggregate: sum",
            "aggregate: total",
            "metrics/revenue.md:7: measure.simple.aggregate: expected one of sum, count, count_distinct, min, max, avg, median, percentile",
        ),
        (
            "[day, month, year]",
            "[day, fortnight]",
            "metrics/revenue.md:10: grains[1]: expected one of day, week, month, quarter, year",
        ),
        (
            "kind: metric",
            "kind: dashboard",
            "metrics/revenue.md:2: kind: expected one of model, relationship, metric, glossary, "
            "caveat, not_defined, example",
        ),
        (
            "kind: metric",
            "kind: glossary",
            "metrics/revenue.md:3: name: unknown key",
        ),
        (
            "kind: metric\n",
            "",
            "metrics/revenue.md:1: kind: missing required key; expected one of model, relationship, "
            "metric, glossary, caveat, not_defined, example",
        ),
        (
            "name: revenue",
            "name: net revenue",
            "metrics/revenue.md:3: name: 'net revenue' is not a valid name: a letter or _, then up to 63 letters, digits or _",
        ),
        (
            "name: revenue",
            "name: 9lives",
            "metrics/revenue.md:3: name: '9lives' is not a valid name: a letter or _, then up to 63 letters, digits or _",
        ),
        (
            "  - name: channel",
            "  - name: period",
            "metrics/revenue.md:18: dimensions[1].name: a dimension may not be called period (the answer's period column)",
        ),
        (
            "time_column: ordered_on",
            'time_column: "a\\tb"',
            "metrics/revenue.md:9: time_column: expected a non-empty name without control or invisible characters",
        ),
        (
            "time_column: ordered_on",
            'time_column: ""',
            "metrics/revenue.md:9: time_column: expected a non-empty name without control or invisible characters",
        ),
        (
            "start: 2024-01-01",
            "start: 2024-02-30",
            "metrics/revenue.md:21: anchor.range.start: expected a date written YYYY-MM-DD",
        ),
        (
            "start: 2024-01-01",
            "start: 20240101",
            "metrics/revenue.md:21: anchor.range.start: expected a date written YYYY-MM-DD",
        ),
        (
            "audience: open",
            "audience: analysts",
            "metrics/revenue.md:23: audience: expected open, or {restricted: [audience ids]}",
        ),
        (
            "values: [north, south]",
            "values: []",
            "metrics/revenue.md:17: dimensions[0].values: list at least one value, or omit values for a group-by-only dimension",
        ),
        (
            "values: [north, south]",
            "values: [north, north]",
            "metrics/revenue.md:17: dimensions[0].values[1]: the value 'north' is listed twice",
        ),
        (
            "via: order_customer",
            "via: []",
            "metrics/revenue.md:16: dimensions[0].via: an empty via; omit it for a column of the metric's own model",
        ),
        (
            "via: order_customer",
            "via: [a, a]",
            "metrics/revenue.md:16: dimensions[0].via[1]: the relationship 'a' is listed twice",
        ),
    ],
)
def test_a_value_outside_the_vocabulary_names_its_key(old: str, new: str, sentence: str) -> None:
    assert _sentence(REVENUE.replace(old, new)) == sentence


@pytest.mark.parametrize(
    ("measure", "sentence"),
    [
        (
            "measure: {}",
            "metrics/revenue.md:5: measure: expected exactly one of simple, ratio; found none",
        ),
        (
            "measure:\n  simple: {count_if: is_paid}\n  ratio: {numerator: {count_if: a}, denominator: {count_if: b}, zero_denominator: fails}",
            "metrics/revenue.md:5: measure: expected exactly one of simple, ratio; found simple and ratio",
        ),
        (
            "measure:\n  simple: {}",
            "metrics/revenue.md:6: measure.simple: expected exactly one of aggregate, count_if; found none",
        ),
        (
            "measure:\n  simple: {aggregate: sum, column: amount, count_if: is_paid}",
            "metrics/revenue.md:6: measure.simple: expected exactly one of aggregate, count_if; found aggregate and count_if",
        ),
        (
            "measure:\n  simple: {column: amount}",
            "metrics/revenue.md:6: measure.simple.aggregate: missing required key (a term with column needs aggregate)",
        ),
        (
            "measure:\n  simple: {aggregate: sum}",
            "metrics/revenue.md:6: measure.simple.of: missing required key (sum needs of, or the older column)",
        ),
        (
            "measure:\n  ratio: {numerator: {count_if: a}, denominator: {count_if: b}, zero_denominator: zero}",
            "metrics/revenue.md:6: measure.ratio.zero_denominator: expected one of yields_null, fails",
        ),
    ],
)
def test_each_one_of_with_zero_or_two_forms_is_refused_at_its_key(
    measure: str, sentence: str
) -> None:
    original = "measure:\n  simple:\n    aggregate: sum\n    column: amount"
    assert _sentence(REVENUE.replace(original, measure)) == sentence


def test_a_required_filter_with_two_forms_is_refused() -> None:
    text = REVENUE.replace(
        "  - not_equals: {column: order_status, value: cancelled}",
        "  - not_equals: {column: order_status, value: cancelled}\n    is_true: {column: is_paid}",
    )
    assert _sentence(text) == (
        "metrics/revenue.md:12: required_filters[0]: expected exactly one of equals, not_equals, "
        "less_than, at_most, greater_than, at_least, between, in, not_in, is_null, is_not_null, "
        "is_true, starts_with, and, or, not; found not_equals and is_true"
    )


def test_a_join_that_could_duplicate_rows_is_refused() -> None:
    text = ORDER_CUSTOMER.replace("many_to_one", "many_to_many")
    assert _sentence(text, "r.md") == (
        "r.md:8: join_type: expected many_to_one: a join that could duplicate rows is refused"
    )


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            "columns: [customer_id, sales_region, customer_segment]",
            "columns: []",
            "m.md:6: columns: a model needs at least one column",
        ),
        (
            "columns: [customer_id, sales_region, customer_segment]",
            "columns: [a, b, a]",
            "m.md:6: columns[2]: the column 'a' is listed twice",
        ),
        (
            "table: shop_customers",
            'table: "shop\\x00"',
            "m.md:5: table: expected a non-empty name without control or invisible characters",
        ),
        (
            "primary_key: customer_id",
            "primary_key: id",
            "m.md:7: primary_key: the primary key must be one of the model's columns",
        ),
    ],
)
def test_a_model_with_bad_columns_or_table_is_refused(old: str, new: str, sentence: str) -> None:
    assert _sentence(CUSTOMERS.replace(old, new), "m.md") == sentence


def test_a_hostile_name_is_quoted_and_escaped_in_the_problem() -> None:
    error = parse_error(LABEL, REVENUE.replace("name: revenue", 'name: "rev\\e]52;c;x\\a"'))
    assert error.problem.startswith("'rev\\u001b]52;c;x\\u0007' is not a valid name")
    assert error.sentence().isprintable()


def _documented_examples() -> list[str]:
    docs = Path(__file__).resolve().parents[4] / "docs" / "catalog.md"
    blocks = re.findall(r"```markdown\n(.*?)```", docs.read_text(encoding="utf-8"), re.DOTALL)
    return [block for block in blocks if "\n...\n" not in block]


@pytest.mark.parametrize("text", _documented_examples(), ids=lambda t: t.split("\n")[2])
def test_every_example_in_the_catalog_docs_parses(text: str) -> None:
    parsed("docs.md", text)


def test_the_catalog_docs_show_one_example_of_each_kind() -> None:
    kinds = sorted(type(parsed("docs.md", t).definition).__name__ for t in _documented_examples())
    assert kinds == [
        "Caveat",
        "Derived",
        "GlossaryTerm",
        "Metric",
        "Metric",  # the one written in the expression vocabulary
        "Model",
        "Model",  # the one declaring shared dimensions
        "NotDefined",
        "Relationship",
        "WorkedExample",
    ]


_YAMLISH = st.sampled_from(
    [
        "\n",
        " ",
        ":",
        "- ",
        "[",
        "]",
        "{",
        "}",
        ",",
        "&a",
        "*a",
        "!",
        "<<",
        "#",
        "'",
        '"',
        "---",
        "kind",
        "metric",
        "model",
        "\x00",
        "\ud800",
        "\x85",
        "\u2028",
        "\u202e",
        "\x1b",
        "\t",
    ]
)


@given(st.lists(st.one_of(_YAMLISH, st.text(max_size=3)), max_size=40).map("".join))
@settings(max_examples=300, deadline=None)
def test_any_front_matter_gives_a_document_or_a_printable_error_never_an_exception(
    front: str,
) -> None:
    result = parse_document(LABEL, f"---\n{front}\n---\nbody")
    if not is_successful(result):
        error = result.failure()
        assert error.sentence().isprintable()
        assert 1 <= error.line <= front.count("\n") + 3


_PLAIN = st.recursive(
    st.none() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(
    st.dictionaries(st.sampled_from(["kind", "name", "model", "measure", "grains", "x"]), _PLAIN)
)
@settings(max_examples=300, deadline=None)
def test_any_yaml_mapping_gives_a_document_or_an_error_never_an_exception(
    values: dict[str, object],
) -> None:
    front = yaml.safe_dump(values, allow_unicode=True)
    result = parse_document(LABEL, f"---\n{front}---\n")
    if not is_successful(result):
        assert result.failure().sentence().isprintable()


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        (
            "---\nkind: metric\nname: a\x00b\n---\n",
            "metrics/revenue.md:3: the front matter holds a character YAML does not allow",
        ),
        (
            "---\nkind: metric\nname: a\x85b\n---\n",
            "metrics/revenue.md:3: the front matter breaks a line with a character other than \\n",
        ),
        (
            "---\nkind: metric\u2028name: x\n---\n",
            "metrics/revenue.md:2: the front matter breaks a line with a character other than \\n",
        ),
        (
            "---\nkind: metric\r\n---\n",
            "metrics/revenue.md:2: the front matter breaks a line with a character other than \\n",
        ),
    ],
)
def test_characters_that_would_shift_line_numbers_or_that_yaml_refuses_are_named_by_line(
    text: str, sentence: str
) -> None:
    assert _sentence(text) == sentence


@pytest.mark.parametrize(
    ("written", "path"),
    [
        ("shop_orders", ("shop_orders",)),
        ('"main.victim"', ("main.victim",)),
        ('".."', ("..",)),
        ("[sales, shop_orders]", ("sales", "shop_orders")),
        ('[lake, sales, "a.b"]', ("lake", "sales", "a.b")),
    ],
)
def test_a_table_is_one_name_or_a_path_and_a_dot_is_part_of_a_name(
    written: str, path: tuple[str, ...]
) -> None:
    model = parsed("models/orders.md", ORDERS.replace("table: shop_orders", f"table: {written}"))
    assert isinstance(model.definition, Model)
    assert model.definition.table == path


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        (
            "[]",
            "table: expected a table's name, or a list of [schema, table] or [catalog, schema, table]",
        ),
        (
            "[a, b, c, d]",
            "table: expected a table's name, or a list of [schema, table] or [catalog, schema, table]",
        ),
        (
            '[sales, ""]',
            "table[1]: expected a non-empty name without control or invisible characters",
        ),
        ("{schema: sales}", "table: expected text or a list, got a mapping"),
    ],
)
def test_a_table_path_that_is_not_one_is_named_at_its_key(written: str, problem: str) -> None:
    text = ORDERS.replace("table: shop_orders", f"table: {written}")
    assert _sentence(text, "models/orders.md") == f"models/orders.md:5: {problem}"
