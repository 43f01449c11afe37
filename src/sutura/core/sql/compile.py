"""Compile a resolved question to one parameterised SQL statement in a source's dialect.

Every value is a bind parameter: range bounds, required-filter values, caller filter values and
``top``'s row count. Identifiers are always quoted. Nothing a caller sent is ever inlined into
the statement text. The statement is built as a sqlglot expression tree and rendered once per
(question, catalog, source facts); a warm question is a cache hit.

Averages and ratios are not divided in SQL, where engines disagree on the type of the result;
the exact parts (sum and count, numerator and denominator) are selected as hidden columns and
:mod:`sutura.core.sql.shape` divides them exactly. ``top`` by such a metric orders by its quotient
as a double in SQL; rows cut by ``LIMIT`` are never shaped, so only returned rows can refuse
with ``denominator_zero``.

A caller's filters follow SQL: ``not_in`` (like ``in`` and ``eq``) never matches a NULL
dimension value, which is why a filtered dimension's relationships are INNER joins. A required
``not_equals`` filter is NULL-safe (``IS DISTINCT FROM``): a NULL is not the excluded value.

A group (period and dimension values) is in the answer only where at least one requested
metric's required filters match a row of it; a period without such a row has no row at all.
``docs/semantics.md`` states these rules for users.
"""

import functools
from typing import assert_never

import msgspec
from sqlglot import exp

from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    Catalog,
    CountIfTerm,
    Dimension,
    ExpressionTerm,
    Metric,
    Model,
    RatioMeasure,
    SimpleMeasure,
)
from sutura.core.nouns.dialect import Dialect, traits_of
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.question.resolve import (
    PERIOD,
    Resolved,
    ResolvedTop,
    Running,
    Trailing,
    adds_up,
    halves,
    lookups,
)
from sutura.core.sql.compiled import (
    CompiledQuery,
    Derivation,
    Output,
    Passthrough,
    Presence,
    Quotient,
    TermIndex,
)
from sutura.core.sql.expression import ExpressionSql, model_sql
from sutura.core.sql.measures import groups_kept, metric_parts, order_key, some_row
from sutura.core.sql.ordering import (
    RANK,
    descending,
    kept_per_period,
    order_by,
    ordered,
    output_of,
)
from sutura.core.sql.parts import (
    Binder,
    Joins,
    base_table,
    join_clause,
    require,
)
from sutura.core.sql.plan import plan_lines
from sutura.core.sql.presence import Counted, counted_column, counted_per_half
from sutura.core.sql.ranked import ranked_statement, ranks
from sutura.core.sql.reading import asked_dimensions, joins_for, periods_of, where_of
from sutura.core.sql.semi import semi_additive_metric, semi_statement

_CACHE_SIZE = 1024


class _ByIdentity:
    """A cache key that compares a catalog by identity (hashing a whole catalog is not cheap).

    The cache entry holds the catalog, so its ``id`` cannot be reused while the entry lives.
    """

    __slots__ = ("catalog",)

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def __hash__(self) -> int:
        return id(self.catalog)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByIdentity) and other.catalog is self.catalog


def compile_question(resolved: Resolved, catalog: Catalog, source: SourceFacts) -> CompiledQuery:
    """Compile ``resolved`` against ``catalog`` into one statement for ``source``.

    The result is cached by (``resolved``, the identity of ``catalog``, ``source``).

    Args:
        resolved: A question already checked by ``resolve_question`` against ``catalog``.
        catalog: The pinned catalog it was resolved against.
        source: The facts of the source the statement is for: its dialect, and the columns
            it holds as ``CHAR(n)`` (learnt at startup), read without their padding wherever
            an expression reads them.

    Returns:
        The compiled statement, its parameters, the answer's columns and the plan.

    Raises:
        LookupError: ``resolved`` names something ``catalog`` does not define (it was
            resolved against another catalog).
    """
    return _compile_cached(resolved, _ByIdentity(catalog), source)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _compile_cached(resolved: Resolved, key: _ByIdentity, source: SourceFacts) -> CompiledQuery:
    """The uncached compilation behind :func:`compile_question`."""
    catalog = key.catalog
    dialect = source.dialect
    metrics = resolved.metrics
    binder = Binder()
    presence: tuple[Presence, ...] = ()
    if resolved.joined:
        tree, outputs, model, joins, shared, presence = _joined(resolved, catalog, source, binder)
    else:
        tree, outputs, model, joins, shared = _grouped(resolved, catalog, source, binder)
    derivation = None
    if resolved.derives:
        metric, derived = lookups(metrics, resolved.derived)
        filled = (adds_up(metric, derived, n, zero_filled) for n in resolved.metric_names)
        derivation = Derivation(
            resolved=resolved,
            zero_filled=tuple(filled),
            presence=presence,
            text_keys=_text_keys(resolved, catalog, source),
        )
    plan = plan_lines(resolved, model, joins.all(), shared=shared)
    if resolved.joined:
        plan = (*plan, _JOINED_PLAN)
    params = binder.values(len(list(tree.find_all(exp.Placeholder))))
    width = len(tree.expressions)
    return CompiledQuery(
        sql=render_statement(tree, dialect),  # last: rendering may change the tree
        params=params,
        columns=answer_columns(resolved),
        plan=plan,
        outputs=outputs,
        selected_width=width,
        source=model.source,
        dialect=dialect,
        derivation=derivation,
    )


def _text_keys(resolved: Resolved, catalog: Catalog, source: SourceFacts) -> tuple[bool, ...]:
    """Per key column of ``resolved`` (period, then dimensions), whether its values are text
    (the rows derived after the statement order a text key by code point, any other by its
    value), as the first half's statement reads them."""
    metrics = halves(resolved.metrics)[0]
    model = metrics[0].model
    dimensions = asked_dimensions(resolved, metrics)
    sql = model_sql(Binder(), lambda _via: "", catalog, model, source)
    return tuple(key != PERIOD and sql.textual(dimensions[key]) for key in resolved.keys)


_JOINED_PLAN = (
    "joined: each metric grouped on its own model, then FULL OUTER JOIN on period and"
    " dimension values (NULL matches NULL)"
)


def _grouped(
    resolved: Resolved,
    catalog: Catalog,
    source: SourceFacts,
    binder: Binder,
    counted: tuple[Counted, ...] = (),
) -> tuple[exp.Select, tuple[Output, ...], Model, Joins, bool]:
    """The grouped statement of metrics of one model and time column; ``counted``: the
    columns counting an asked derived metric's leaves' rows, selected after the metrics' (a
    half of a joined statement, :mod:`sutura.core.sql.presence`)."""
    metrics = resolved.metrics
    semi = semi_additive_metric(metrics)
    if semi is not None:
        return semi_statement(resolved, catalog, source, binder, *semi)
    if ranks(metrics) or _ranks_by_expression(resolved):
        return ranked_statement(resolved, catalog, source, binder)
    model = require(catalog.model(metrics[0].model), metrics[0].model)
    dimensions = asked_dimensions(resolved, metrics)
    joins = joins_for(resolved, dimensions, catalog)
    sql = model_sql(binder, joins.alias, catalog, model.name, source)
    shared = all(set(m.required_filters) == set(metrics[0].required_filters) for m in metrics)
    top = None if resolved.derives else resolved.top
    # Build in textual order (SELECT, WHERE, ORDER BY, LIMIT): creation order is bind order.
    tree, outputs = _select(resolved, metrics, dimensions, joins, shared, sql, counted)
    if top is not None and top.per_period:
        tree = tree.select(_rank(resolved, top, dimensions, joins, shared, sql), copy=False)
    tree = tree.from_(base_table(model), copy=False)
    tree = tree.where(where_of(resolved, metrics[0], dimensions, joins, shared, sql), copy=False)
    for join in joins.all():
        table, on, kind = join_clause(join)
        tree = tree.join(table, on=on, join_type=kind, copy=False)
    periods = periods_of(resolved, joins)
    keys = [
        _group_key(dimensions[name], 1 + len(periods) + i, sql)
        for i, name in enumerate(resolved.dimensions)
    ]
    if periods or keys:
        tree = tree.group_by(*periods, *keys, copy=False)
    kept = None if shared else groups_kept(metrics, sql)
    if kept is None and not resolved.keys:
        kept = some_row()
    if kept is not None:
        tree = tree.having(kept, copy=False)
    if top is not None and top.per_period:
        tree = kept_per_period(tree, top.n, binder)
    else:
        tree = ordered(tree, order_by(resolved, top, metrics, shared, sql, outputs, source.dialect))
        if top is not None:
            tree = tree.limit(binder.bind(top.n), copy=False)
    return tree, outputs, model, joins, shared


def _ranks_by_expression(resolved: Resolved) -> bool:
    """Whether ``top`` ranks within periods by a dimension that is an expression.

    A grouped statement would write the expression again in the rank's ORDER BY, binding its
    constants again; an engine compares two parameters as two values (PostgreSQL then refuses
    the expression as not grouped). The statement that groups ranked rows orders by the
    dimension's column instead.
    """
    top = None if resolved.derives else resolved.top
    if top is None or not top.per_period:
        return False
    asked = [resolved.metrics[0].dimension(name) for name in resolved.dimensions]
    return any(d is not None and d.expression is not None for d in asked)


def _joined(
    resolved: Resolved, catalog: Catalog, source: SourceFacts, binder: Binder
) -> tuple[exp.Select, tuple[Output, ...], Model, Joins, bool, tuple[Presence, ...]]:
    """The leaves of derived metrics on several models (or time columns): each half grouped
    alone, the halves joined on period and dimension values in one statement (bound in
    textual order). A later half joins on the keys the halves before it have. Where an asked
    derived metric's leaves share a half with other metrics, the half counts their rows too
    (:mod:`sutura.core.sql.presence`)."""
    counted = counted_per_half(resolved)
    grouped = [
        _grouped(
            msgspec.structs.replace(
                resolved,
                metrics=half,
                derived=(),
                asked=(),
                compare=None,
                window=None,
                fill=False,
                top=None,
            ),
            catalog,
            source,
            binder,
            counts,
        )
        for half, counts in zip(halves(resolved.metrics), counted, strict=True)
    ]
    if resolved.grain is None:  # no period to join on: a constant of each half instead
        for half_tree, *_ in grouped:
            half_tree.select(exp.Literal.number(1).as_(_ONE, quoted=True, copy=False), copy=False)
    keys = list(resolved.keys)
    width = len(keys)
    sides = [chr(ord("a") + i) for i in range(len(grouped))]
    items: list[exp.Expr] = [
        exp.func("COALESCE", *(exp.column(k, side, quoted=True) for side in sides)).as_(
            k, quoted=True, copy=False
        )
        for k in keys
    ]
    placed: dict[str, Output] = {}
    presence: list[Presence] = []
    shift = 0
    for side, (tree, side_outputs, *_rest), half, counts in zip(
        sides, grouped, halves(resolved.metrics), counted, strict=True
    ):
        parts = [e.alias_or_name for e in tree.expressions[width:] if e.alias_or_name != _ONE]
        items.extend(
            exp.column(p, side, quoted=True).as_(p, quoted=True, copy=False) for p in parts
        )
        for metric, output in zip(half, side_outputs[width:], strict=True):
            placed[metric.name] = _shifted(output, shift)
        presence.extend(
            Presence(metric=c.metric, leaves=c.leaves, index=width + shift + parts.index(c.alias))
            for c in counts
        )
        shift += len(parts)
    outputs: list[Output] = [Passthrough(index=i) for i in range(width)]
    outputs.extend(placed[m.name] for m in resolved.metrics)
    joined_on = keys if resolved.grain is not None else [_ONE, *keys]
    tree = exp.select(*items).from_(_half(grouped[0][0], sides[0]), copy=False)
    for at in range(1, len(grouped)):
        on = exp.and_(
            *(
                (exp.EQ if i == 0 else exp.NullSafeEQ)(
                    this=_coalesced(k, sides[:at]), expression=exp.column(k, sides[at], quoted=True)
                )
                for i, k in enumerate(joined_on)
            ),
            copy=False,
        )
        tree = tree.join(
            _half(grouped[at][0], sides[at]), on=on, join_type="FULL OUTER", copy=False
        )
    order = [exp.Ordered(this=exp.Literal.number(i + 1), nulls_first=False) for i in range(width)]
    tree = ordered(tree, order)
    first = grouped[0]
    return tree, tuple(outputs), first[2], first[3], first[4], tuple(presence)


_ONE = "one"
"""The constant column halves without a grain are joined on beside their dimensions:
PostgreSQL joins FULL OUTER only where one condition is an equality it can hash or merge,
which a NULL-safe comparison is not."""


def _half(tree: exp.Select, side: str) -> exp.Subquery:
    """One grouped half, unordered, as a subquery called ``side``."""
    return exp.Subquery(this=_unordered(tree), alias=exp.TableAlias(this=exp.to_identifier(side)))


def _coalesced(key: str, sides: list[str]) -> exp.Expr:
    """The key of the halves joined so far: the first half's, or the first that has the row."""
    if len(sides) == 1:
        return exp.column(key, sides[0], quoted=True)
    return exp.func("COALESCE", *(exp.column(key, side, quoted=True) for side in sides))


def _unordered(tree: exp.Select) -> exp.Select:
    """``tree`` without its ORDER BY (a joined half is ordered by the statement around it)."""
    tree.set("order", None)
    return tree


def _shifted(output: Output, by: int) -> Output:
    """``output`` reading columns ``by`` places further right."""
    match output:
        case Passthrough(index=index):
            return Passthrough(index=index + by)
        case Quotient():
            return Quotient(
                numerator=_moved(output.numerator, by),
                denominator=None if output.denominator is None else _moved(output.denominator, by),
                zero_denominator=output.zero_denominator,
            )
        case _:
            assert_never(output)


def _moved(at: TermIndex, by: int) -> TermIndex:
    return TermIndex(value=at.value + by, count=None if at.count is None else at.count + by)


def answer_columns(resolved: Resolved) -> tuple[str, ...]:
    """The answer's columns: period (with a grain), dimensions, then each metric with what
    compare and window add after it (``m.prior``, ``m.change``, ``m.relative_change``;
    ``m.running`` or ``m.trailing``)."""
    columns: list[str] = list(resolved.keys)
    for name in resolved.metric_names:
        columns.append(name)
        if resolved.compare is not None:
            columns.extend((f"{name}.prior", f"{name}.change", f"{name}.relative_change"))
        match resolved.window:
            case Running():
                columns.append(f"{name}.running")
            case Trailing():
                columns.append(f"{name}.trailing")
            case None:
                pass
            case _:
                assert_never(resolved.window)
    return tuple(columns)


def zero_filled(metric: Metric) -> bool:
    """Whether a period without rows holds zero for ``metric`` (sums and counts) under fill;
    a semi-additive metric's is NULL (no row is no balance, not a balance of zero)."""
    if metric.semi_additive is not None:
        return False
    match metric.measure:
        case SimpleMeasure(term=CountIfTerm()):
            return True
        case SimpleMeasure(term=AggregateTerm(aggregate=aggregate)):
            return aggregate in _COUNTS_AND_SUMS
        case SimpleMeasure(term=ExpressionTerm(aggregate=aggregate)):
            return aggregate in _COUNTS_AND_SUMS
        case SimpleMeasure() | RatioMeasure():
            return False
        case _:
            assert_never(metric.measure)


_COUNTS_AND_SUMS = (Aggregate.SUM, Aggregate.COUNT, Aggregate.COUNT_DISTINCT)


def _rank(
    resolved: Resolved,
    top: ResolvedTop,
    dimensions: dict[str, Dimension],
    joins: Joins,
    shared: bool,
    sql: ExpressionSql,
) -> exp.Expr:
    """``ROW_NUMBER()`` within the row's period, by ``top``'s metric then the dimensions."""
    index = resolved.metric_names.index(top.by)
    metric = resolved.metrics[index]
    key = order_key(metric, inline=not shared, sql=sql, ordinal=0, average_as_quotient=True)
    if isinstance(key, exp.Literal):
        parts = metric_parts(metric, inline=not shared, sql=sql)
        key = parts.columns[0][1]
    order = exp.Order(
        expressions=[
            exp.Ordered(this=key, desc=descending(top.direction), nulls_first=False),
            *(
                exp.Ordered(this=sql.keyed(dimensions[n]), nulls_first=False)
                for n in resolved.dimensions
            ),
        ]
    )
    window = exp.Window(
        this=exp.RowNumber(),
        partition_by=periods_of(resolved, joins),
        order=order,
    )
    return window.as_(RANK, quoted=True, copy=False)


def _group_key(dimension: Dimension, position: int, sql: ExpressionSql) -> exp.Expr:
    """What a dimension groups by: its column, or its selected position for an expression.

    An expression may bind constants; the same expression written twice would bind them
    twice, and an engine compares two parameters as two values, so it groups by position.
    """
    if dimension.expression is None:
        return sql.value(dimension.value)
    return exp.Literal.number(position)


def _select(
    resolved: Resolved,
    metrics: tuple[Metric, ...],
    dimensions: dict[str, Dimension],
    joins: Joins,
    shared: bool,
    sql: ExpressionSql,
    counted: tuple[Counted, ...] = (),
) -> tuple[exp.Select, tuple[Output, ...]]:
    """The SELECT list (period, dimensions, metric parts, then ``counted``) and the shaping of
    each answer column."""
    items: list[exp.Expr] = [
        p.as_(PERIOD, quoted=True, copy=False) for p in periods_of(resolved, joins)
    ]
    items.extend(
        sql.keyed(dimensions[n]).as_(n, quoted=True, copy=False) for n in resolved.dimensions
    )
    outputs: list[Output] = [Passthrough(index=i) for i in range(len(items))]
    for metric in metrics:
        parts = metric_parts(metric, inline=not shared, sql=sql)
        outputs.append(output_of(parts, start=len(items)))
        items.extend(value.as_(alias, quoted=True, copy=False) for alias, value in parts.columns)
    items.extend(counted_column(c, sql) for c in counted)
    return exp.select(*items), tuple(outputs)


def render_statement(tree: exp.Query, dialect: Dialect) -> str:
    """The statement text; under ``%s`` placeholders (psycopg's) a ``%`` in a name is doubled.

    The tree is built for this statement alone and read no more, so the generator works on it
    rather than on a copy (a deep copy of every node was an eighth of a compilation)."""
    if traits_of(dialect).percent_placeholders:
        # Each node once, even one the tree reaches twice (built without copies).
        found = {id(node): node for node in tree.find_all(exp.Identifier)}
        for identifier in found.values():
            identifier.set("this", identifier.this.replace("%", "%%"))
    return tree.sql(dialect=dialect.value, pretty=True, copy=False)
