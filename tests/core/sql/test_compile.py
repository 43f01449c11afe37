"""Compiling resolved questions to parameterised SQL."""

import datetime
import re

import msgspec
import pytest
import sqlglot

from sutura.core.definitions.model import (
    Catalog,
    Column,
    Dimension,
    FilterEquals,
    FilterIsTrue,
    KeyPair,
    Metric,
    Model,
    Relationship,
)
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.source_facts import ModelColumn, SourceFacts
from sutura.core.sql.compile import compile_question
from sutura.core.sql.compiled import CompiledQuery, Passthrough, Quotient
from tests.core.sample_catalog import CATALOG, CUSTOMERS, ORDERS, REVENUE, resolved

DIALECTS: tuple[Dialect, ...] = (Dialect.DUCKDB, Dialect.POSTGRES, Dialect.SPARK)
MARKER = {"duckdb": "?", "postgres": "%s", "spark": "?"}


def _compiled(dialect: Dialect = Dialect.DUCKDB, **fields: object) -> CompiledQuery:
    return compile_question(resolved(**fields), CATALOG, SourceFacts(dialect=dialect))


def _squash(sql: str) -> str:
    return " ".join(sql.split())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_value_is_a_bind_parameter_and_never_in_the_text(dialect: Dialect) -> None:
    compiled = _compiled(
        dialect,
        dimensions=["region"],
        filters=[{"op": "in", "dimension": "region", "values": ["EU", "US"]}],
        top={"n": 7, "by": "revenue"},
    )
    assert compiled.params == (
        datetime.date(2024, 1, 1),
        datetime.date(2024, 4, 1),
        "complete",
        "EU",
        "US",
        7,
    )
    for text in ("2024", "complete", "'EU'", "'US'", " 7"):
        assert text not in compiled.sql
    assert compiled.sql.count(MARKER[dialect]) == len(compiled.params)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_statement_parses_back_in_its_own_dialect(dialect: Dialect) -> None:
    compiled = _compiled(dialect, metrics=["revenue_per_unit", "paid_share"], grain="quarter")
    text = compiled.sql.replace("%s", "?") if dialect == "postgres" else compiled.sql
    assert isinstance(sqlglot.parse_one(text, read=dialect), sqlglot.exp.Select)


def test_identifiers_are_quoted_and_a_quote_inside_a_name_is_doubled() -> None:
    odd = msgspec.structs.replace(ORDERS, table=('ord"ers',))
    catalog = msgspec.structs.replace(CATALOG, models=(CUSTOMERS, odd))
    sql = compile_question(resolved(), catalog, SourceFacts(dialect=Dialect.DUCKDB)).sql
    assert 'FROM "ord""ers" AS "t0"' in sql
    assert '"t0"."created_at"' in sql and '"t0"."amount"' in sql


def test_a_table_path_is_schema_and_catalog_qualified() -> None:
    qualified = msgspec.structs.replace(ORDERS, table=("lake", "sales", "orders"))
    catalog = msgspec.structs.replace(CATALOG, models=(CUSTOMERS, qualified))
    sql = compile_question(resolved(), catalog, SourceFacts(dialect=Dialect.POSTGRES)).sql
    assert 'FROM "lake"."sales"."orders" AS "t0"' in sql


@pytest.mark.parametrize(
    ("path", "duckdb", "spark"),
    [
        (("main.victim",), '"main.victim"', "`main.victim`"),
        (("..",), '".."', "`..`"),
        (("sales", "a.b"), '"sales"."a.b"', "`sales`.`a.b`"),
        (("a`b.c",), '"a`b.c"', "`a``b.c`"),
    ],
)
def test_a_dot_in_a_table_name_is_part_of_the_one_identifier(
    path: tuple[str, ...], duckdb: str, spark: str
) -> None:
    dotted = msgspec.structs.replace(ORDERS, table=path)
    catalog = msgspec.structs.replace(CATALOG, models=(CUSTOMERS, dotted))
    assert (
        f"FROM {duckdb} AS"
        in compile_question(resolved(), catalog, SourceFacts(dialect=Dialect.DUCKDB)).sql
    )
    assert (
        f"FROM {duckdb} AS"
        in compile_question(resolved(), catalog, SourceFacts(dialect=Dialect.POSTGRES)).sql
    )
    assert (
        f"FROM {spark} AS"
        in compile_question(resolved(), catalog, SourceFacts(dialect=Dialect.SPARK)).sql
    )


def test_a_percent_sign_in_a_name_is_doubled_for_psycopg_only() -> None:
    odd = msgspec.structs.replace(ORDERS, table=("orders%",))
    catalog = msgspec.structs.replace(CATALOG, models=(CUSTOMERS, odd))
    assert (
        '"orders%%"'
        in compile_question(resolved(), catalog, SourceFacts(dialect=Dialect.POSTGRES)).sql
    )
    assert (
        '"orders%"'
        in compile_question(resolved(), catalog, SourceFacts(dialect=Dialect.DUCKDB)).sql
    )


def test_the_period_is_the_grain_truncated_time_column_cast_to_a_date() -> None:
    sql = _compiled(grain="week").sql
    assert """CAST(DATE_TRUNC('week', "t0"."created_at") AS DATE) AS "period\"""" in sql


def test_the_range_is_half_open_on_the_time_column() -> None:
    assert '"t0"."created_at" >= ? AND "t0"."created_at" < ?' in _squash(_compiled().sql)


def test_shared_required_filters_are_applied_once_in_where() -> None:
    compiled = _compiled(metrics=["revenue", "average_order_value"])
    sql = _squash(compiled.sql)
    assert 'WHERE "t0"."created_at" >= ? AND "t0"."created_at" < ? AND "t0"."status" = ?' in sql
    assert "CASE" not in sql
    assert compiled.params.count("complete") == 1


def test_different_required_filters_go_inside_each_metrics_aggregate() -> None:
    compiled = _compiled(metrics=["revenue", "order_count"])
    sql = _squash(compiled.sql)
    assert 'SUM(CASE WHEN "t0"."status" = ? THEN "t0"."amount" END) AS "revenue"' in sql
    assert (
        'COUNT(CASE WHEN "t0"."status" IS DISTINCT FROM ? THEN "t0"."order_id" END)'
        ' AS "order_count"'
    ) in sql
    assert compiled.params[:2] == ("complete", "cancelled")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_not_equals_required_filter_keeps_rows_whose_column_is_null(dialect: Dialect) -> None:
    compiled = _compiled(dialect, metrics=["order_count"])
    quote = "`" if dialect == "spark" else '"'
    column = f"{quote}t0{quote}.{quote}status{quote}"
    assert f"{column} IS DISTINCT FROM {MARKER[dialect]}" in _squash(compiled.sql)
    assert "<>" not in compiled.sql and "!=" not in compiled.sql
    assert compiled.params[-1] == "cancelled"


def test_metrics_whose_filters_differ_keep_only_groups_where_some_metric_counts_a_row() -> None:
    compiled = _compiled(metrics=["revenue", "order_count", "average_order_value"])
    sql = _squash(compiled.sql)
    assert (
        'HAVING COUNT(CASE WHEN "t0"."status" = ? OR "t0"."status" IS DISTINCT FROM ?'
        " THEN 1 END) > 0 ORDER BY 1"
    ) in sql
    # Each distinct set of filters is bound once more, after WHERE's range.
    assert compiled.params[-2:] == ("complete", "cancelled")
    assert sql.count("?") == len(compiled.params)


def test_a_metric_with_several_required_filters_must_match_all_of_them_to_keep_a_group() -> None:
    both = (
        FilterEquals(column="status", value="complete"),
        FilterIsTrue(column="is_paid"),
    )
    strict = msgspec.structs.replace(REVENUE, name="strict_revenue", required_filters=both)
    catalog = msgspec.structs.replace(CATALOG, metrics=(*CATALOG.metrics, strict))
    counted = resolved(metrics=["order_count"])
    question = msgspec.structs.replace(counted, metrics=(strict, *counted.metrics))
    sql = _squash(compile_question(question, catalog, SourceFacts(dialect=Dialect.DUCKDB)).sql)
    assert (
        'WHEN ( "t0"."status" = ? AND "t0"."is_paid" IS TRUE )'
        ' OR "t0"."status" IS DISTINCT FROM ? THEN 1 END ) > 0'
    ) in sql


@pytest.mark.parametrize(
    "metrics",
    [["revenue", "average_order_value"], ["revenue", "units"], ["units", "paid_orders"]],
    ids=["shared_filters", "one_metric_counts_every_row", "no_filters"],
)
def test_no_group_condition_where_every_group_has_a_row_some_metric_counts(
    metrics: list[str],
) -> None:
    compiled = _compiled(metrics=metrics)
    assert "HAVING" not in compiled.sql
    assert not any(line.startswith("groups:") for line in compiled.plan)


@pytest.mark.parametrize("grain", ["day", "week", "month", "quarter", "year"])
def test_each_grain_truncates_the_time_column_to_its_own_unit(grain: str) -> None:
    assert f"DATE_TRUNC('{grain}', " in _compiled(grain=grain).sql


def test_is_true_and_is_not_null_filters_need_no_value() -> None:
    compiled = _compiled(metrics=["paid_revenue", "customers_ordering"])
    sql = _squash(compiled.sql)
    assert 'SUM(CASE WHEN "t0"."is_paid" IS TRUE THEN "t0"."amount" END)' in sql
    assert 'COUNT(DISTINCT CASE WHEN NOT "t0"."customer_id" IS NULL THEN' in sql
    assert len(compiled.params) == 2


@pytest.mark.parametrize(
    ("metric", "fragment"),
    [
        ("paid_orders", 'COUNT(CASE WHEN "t0"."is_paid" THEN 1 END) AS "paid_orders"'),
        ("smallest_order", 'MIN("t0"."amount") AS "smallest_order"'),
        ("largest_order", 'MAX("t0"."amount") AS "largest_order"'),
        ("units", 'SUM("t0"."quantity") AS "units"'),
        ("order_count", 'COUNT("t0"."order_id") AS "order_count"'),
    ],
)
def test_each_aggregate_compiles_to_its_sql_form(metric: str, fragment: str) -> None:
    assert fragment in _squash(_compiled(metrics=[metric]).sql)


def test_count_distinct_compiles_to_count_distinct() -> None:
    sql = _squash(_compiled(metrics=["customers_ordering"]).sql)
    assert 'COUNT(DISTINCT "t0"."customer_id") AS "customers_ordering"' in sql


def test_avg_and_ratios_select_exact_parts_and_divide_nothing_in_sql() -> None:
    compiled = _compiled(metrics=["average_order_value", "revenue_per_unit"])
    sql = _squash(compiled.sql)
    assert 'SUM("t0"."amount") AS "average_order_value.sum"' in sql
    assert 'COUNT("t0"."amount") AS "average_order_value.count"' in sql
    assert 'SUM("t0"."amount") AS "revenue_per_unit.numerator"' in sql
    assert 'SUM("t0"."quantity") AS "revenue_per_unit.denominator"' in sql
    assert "/" not in sql and "AVG" not in sql
    assert compiled.selected_width == 5
    assert all(isinstance(o, Quotient) for o in compiled.outputs[1:])


def test_a_count_if_ratio_numerator_is_counted_with_case() -> None:
    sql = _squash(_compiled(metrics=["paid_share"]).sql)
    assert 'COUNT(CASE WHEN "t0"."is_paid" THEN 1 END) AS "paid_share.numerator"' in sql
    assert 'COUNT("t0"."order_id") AS "paid_share.denominator"' in sql


def test_columns_are_period_then_dimensions_then_metrics_in_the_requested_order() -> None:
    compiled = _compiled(
        metrics=["paid_share", "revenue"], dimensions=["segment", "channel"], grain="year"
    )
    assert compiled.columns == ("period", "segment", "channel", "paid_share", "revenue")
    assert compiled.outputs[:3] == tuple(Passthrough(index=i) for i in range(3))


def test_an_unfiltered_dimension_via_a_relationship_is_a_left_join() -> None:
    sql = _squash(_compiled(dimensions=["region"]).sql)
    assert 'LEFT JOIN "customers" AS "t1" ON "t0"."customer_id" = "t1"."customer_id"' in sql


def test_a_filtered_dimension_via_a_relationship_is_an_inner_join() -> None:
    sql = _squash(_compiled(filters=[{"op": "eq", "dimension": "region", "value": "EU"}]).sql)
    assert 'INNER JOIN "customers" AS "t1"' in sql and "LEFT JOIN" not in sql
    assert '"t1"."region" = ?' in sql


def _region_declared(declared: str | None) -> Catalog:
    """The catalog with ``customers.region`` declared as ``declared`` (None: no type)."""
    columns = tuple(
        Column(name=c.name, type=declared) if c.name == "region" else c for c in CUSTOMERS.columns
    )
    return msgspec.structs.replace(
        CATALOG, models=(msgspec.structs.replace(CUSTOMERS, columns=columns), ORDERS)
    )


@pytest.mark.parametrize("declared", ["VARCHAR", None])
def test_a_column_held_as_char_is_trimmed_in_the_statement_where_the_engine_pads_it(
    declared: str | None,
) -> None:
    # ``region`` is read along ``customer``; its source holds it as CHAR(n), whether the model
    # declares it VARCHAR or declares no type: PostgreSQL and Spark read it without the padding
    # (in the selected value and in a caller's filter alike), DuckDB (which pads nothing) and a
    # statement compiled without the source's facts read it as it is. PostgreSQL selects it
    # under the ``C`` collation (text ordered by code point, as the other engines order it).
    catalog = _region_declared(declared)
    held = frozenset({ModelColumn(model="customers", column="region")})
    asked = resolved(
        dimensions=["region"], filters=[{"op": "eq", "dimension": "region", "value": "EU"}]
    )
    for dialect in DIALECTS:
        facts = SourceFacts(dialect=dialect, fixed_length=held, text=held)
        trimmed = compile_question(asked, catalog, facts)
        unknown = compile_question(asked, catalog, SourceFacts(dialect=dialect))
        read = 'RTRIM("t1"."region")' if dialect != Dialect.DUCKDB else '"t1"."region"'
        collated = ' COLLATE "C"' if dialect == Dialect.POSTGRES else ""
        assert f'{read}{collated} AS "region"' in _squash(trimmed.sql).replace("`", '"'), dialect
        assert f"{read} = {MARKER[dialect]}" in _squash(trimmed.sql).replace("`", '"'), dialect
        assert "RTRIM" not in unknown.sql


@pytest.mark.parametrize("declared", ["VARCHAR", None])
def test_postgres_selects_a_text_dimension_under_the_c_collation_and_nothing_else(
    declared: str | None,
) -> None:
    # PostgreSQL orders text by the database's collation (en_US puts 'a' before 'B'): a text
    # dimension is selected COLLATE "C", so ORDER BY and a rank order it by code point as
    # DuckDB and Spark do. A column declaring no type is text where the source says so.
    catalog = _region_declared(declared)
    text = frozenset({ModelColumn(model="customers", column="region")})
    asked = resolved(dimensions=["region"], top={"n": 2, "by": "revenue"})
    for dialect in DIALECTS:
        sql = _squash(compile_question(asked, catalog, SourceFacts(dialect=dialect, text=text)).sql)
        collated = '"t1"."region" COLLATE "C" AS "region"' in sql
        assert collated == (dialect == Dialect.POSTGRES), (dialect, sql)
        assert "COLLATE" not in sql.replace('"t1"."region" COLLATE "C" AS', ""), sql
    unknown = compile_question(asked, catalog, SourceFacts(dialect=Dialect.POSTGRES)).sql
    assert ("COLLATE" in unknown) == (declared is not None)


def test_a_relationship_used_by_several_dimensions_is_joined_once() -> None:
    sql = _compiled(dimensions=["region", "segment"]).sql
    assert sql.count("JOIN") == 1
    assert '"t1"."region" AS "region"' in sql and '"t1"."segment" AS "segment"' in sql


def _chained_catalog() -> tuple[Model, Relationship, Metric]:
    regions = Model(
        name="regions",
        source="warehouse",
        table=("regions",),
        columns=(Column(name="region"), Column(name="manager")),
    )
    hop = Relationship(
        name="home_region",
        origin_model="customers",
        target_model="regions",
        keys=(KeyPair(origin="region", target="region"),),
    )
    manager = Dimension(name="manager", column="manager", via=("customer", "home_region"))
    metric = msgspec.structs.replace(REVENUE, dimensions=(*REVENUE.dimensions, manager))
    return regions, hop, metric


def test_a_chain_of_relationships_joins_each_hop_once_from_its_parent() -> None:
    regions, hop, metric = _chained_catalog()
    catalog = msgspec.structs.replace(
        CATALOG,
        models=(*CATALOG.models, regions),
        relationships=(*CATALOG.relationships, hop),
        metrics=tuple(metric if m.name == "revenue" else m for m in CATALOG.metrics),
    )
    question = msgspec.structs.replace(
        resolved(), metrics=(metric,), dimensions=("manager", "region")
    )
    sql = _squash(compile_question(question, catalog, SourceFacts(dialect=Dialect.DUCKDB)).sql)
    assert 'LEFT JOIN "customers" AS "t1" ON "t0"."customer_id" = "t1"."customer_id"' in sql
    assert 'LEFT JOIN "regions" AS "t2" ON "t1"."region" = "t2"."region"' in sql
    assert '"t2"."manager" AS "manager", "t1"."region" AS "region"' in sql


def test_filters_bind_each_value_with_in_not_in_and_equals() -> None:
    compiled = _compiled(
        filters=[
            {"op": "not_in", "dimension": "channel", "values": ["store", ""]},
            {"op": "eq", "dimension": "channel", "value": "web"},
        ]
    )
    sql = _squash(compiled.sql)
    assert 'NOT "t0"."channel" IN (?, ?) AND "t0"."channel" = ?' in sql
    assert compiled.params[-3:] == ("store", "", "web")


def test_rows_are_ordered_by_period_and_dimensions_without_a_limit() -> None:
    sql = _squash(_compiled(dimensions=["channel", "status"]).sql)
    assert sql.endswith("ORDER BY 1, 2, 3")


def test_top_by_a_plain_metric_orders_by_its_column_then_limits_with_a_bound_count() -> None:
    compiled = _compiled(Dialect.POSTGRES, dimensions=["channel"], top={"n": 2, "by": "revenue"})
    sql = _squash(compiled.sql)
    assert sql.endswith("ORDER BY 3 DESC NULLS LAST, 1, 2 LIMIT %s")
    assert compiled.params[-1] == 2


def test_top_by_period_ascending_orders_by_the_period_once() -> None:
    sql = _squash(_compiled(top={"n": 1, "by": "period", "direction": "asc"}).sql)
    assert sql.endswith("ORDER BY 1 ASC LIMIT ?")


def test_top_by_a_ratio_orders_by_its_quotient_as_a_double() -> None:
    compiled = _compiled(
        metrics=["revenue", "revenue_per_unit"], top={"n": 1, "by": "revenue_per_unit"}
    )
    sql = _squash(compiled.sql)
    assert (
        'ORDER BY CAST(SUM("t0"."amount") AS DOUBLE) / '
        'NULLIF(CAST(SUM("t0"."quantity") AS DOUBLE), 0) DESC, 1 LIMIT ?'
    ) in sql


def test_top_by_an_average_with_inline_filters_binds_them_again_in_order() -> None:
    compiled = _compiled(
        metrics=["order_count", "average_order_value"],
        top={"n": 4, "by": "average_order_value", "direction": "asc"},
    )
    sql = _squash(compiled.sql)
    assert 'ORDER BY AVG(CASE WHEN "t0"."status" = ? THEN "t0"."amount" END) ASC, 1 LIMIT ?' in sql
    assert compiled.params[-2:] == ("complete", 4)
    assert compiled.sql.count("?") == len(compiled.params)


def test_the_plan_names_model_joins_filters_grain_range_and_ordering() -> None:
    compiled = _compiled(
        metrics=["revenue", "order_count"],
        dimensions=["segment"],
        filters=[{"op": "in", "dimension": "region", "values": ["EU"]}],
        top={"n": 3, "by": "revenue"},
    )
    assert compiled.plan == (
        "metrics: revenue, order_count",
        "model: orders (table orders in source warehouse)",
        "join: customers as t1 via customer (INNER JOIN, filtered)",
        "required filters of revenue (inside its aggregates): status equals a bound value",
        "required filters of order_count (inside its aggregates): "
        "status differs from a bound value (NULL differs)",
        "groups: only those where a row passes some metric's required filters",
        "grain: month (the range is widened to whole periods)",
        "range: created_at from 2024-01-01 (inclusive) to 2024-04-01 (exclusive)",
        "filter: region in 1 bound value(s)",
        "order: revenue desc NULLs last, then period, segment ascending; keep the first 3 rows",
    )
    assert "EU" not in " ".join(compiled.plan)


def test_the_plan_names_a_null_test_without_values_and_keeps_its_join_left() -> None:
    compiled = _compiled(
        dimensions=["segment"],
        filters=[
            {"op": "is_null", "dimension": "region"},
            {"op": "not_in", "dimension": "channel", "values": ["web", "store"]},
        ],
    )
    assert "filter: region is_null" in compiled.plan
    assert "filter: channel not_in 2 bound value(s)" in compiled.plan
    assert "join: customers as t1 via customer (LEFT JOIN)" in compiled.plan
    assert '"t1"."region" IS NULL' in _squash(compiled.sql)


def test_the_source_is_the_metrics_models_alias() -> None:
    assert _compiled().source == "warehouse"


def test_a_warm_question_is_served_from_the_cache() -> None:
    first = _compiled(dimensions=["channel"])
    again = compile_question(
        resolved(dimensions=["channel"]), CATALOG, SourceFacts(dialect=Dialect.DUCKDB)
    )
    assert again is first
    other_dialect = compile_question(
        resolved(dimensions=["channel"]), CATALOG, SourceFacts(dialect=Dialect.POSTGRES)
    )
    assert other_dialect is not first


def test_a_different_catalog_value_is_compiled_afresh() -> None:
    copy = msgspec.structs.replace(CATALOG)
    question = resolved(dimensions=["status"])
    assert compile_question(
        question, copy, SourceFacts(dialect=Dialect.DUCKDB)
    ) is not compile_question(question, CATALOG, SourceFacts(dialect=Dialect.DUCKDB))


def test_a_question_resolved_against_another_catalog_is_a_lookup_error() -> None:
    empty = msgspec.structs.replace(CATALOG, models=())
    with pytest.raises(LookupError):
        compile_question(resolved(), empty, SourceFacts(dialect=Dialect.DUCKDB))


def test_no_percent_sign_appears_outside_the_postgres_placeholders() -> None:
    compiled = _compiled(
        Dialect.POSTGRES, metrics=["order_count", "paid_revenue"], dimensions=["region"]
    )
    assert len(re.findall("%", compiled.sql)) == len(compiled.params) == 4


def test_spark_orders_nulls_last_where_its_default_would_put_them_first() -> None:
    # Spark sorts NULLs first ascending and last descending; DuckDB last in both directions.
    sql = _squash(
        _compiled(Dialect.SPARK, dimensions=["channel"], top={"n": 2, "by": "revenue"}).sql
    )
    assert sql.endswith("ORDER BY 3 DESC, 1 NULLS LAST, 2 NULLS LAST LIMIT ?")
    ascending = _squash(
        _compiled(Dialect.SPARK, top={"n": 1, "by": "period", "direction": "asc"}).sql
    )
    assert ascending.endswith("ORDER BY 1 ASC NULLS LAST LIMIT ?")


def test_spark_top_by_an_average_orders_by_its_exact_sum_over_its_count_as_doubles() -> None:
    compiled = _compiled(
        Dialect.SPARK,
        metrics=["order_count", "average_order_value"],
        top={"n": 4, "by": "average_order_value", "direction": "asc"},
    )
    guarded = "CASE WHEN `t0`.`status` = ? THEN `t0`.`amount` END"
    assert (
        f"ORDER BY CAST(SUM({guarded}) AS DOUBLE) / NULLIF(CAST(COUNT({guarded}) AS DOUBLE), 0)"
        " ASC NULLS LAST, 1 NULLS LAST LIMIT ?"
    ) in _squash(compiled.sql)
    assert "AVG" not in compiled.sql
    assert compiled.params[-3:] == ("complete", "complete", 4)
    assert compiled.sql.count("?") == len(compiled.params)
