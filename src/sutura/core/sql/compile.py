"""Compile a resolved question to one parameterised SQL statement in a source's dialect.

Every value is a bind parameter: range bounds, required-filter values, caller filter values and
``top``'s row count. Identifiers are always quoted. Nothing a caller sent is ever inlined into
the statement text. The statement is built as a sqlglot expression tree and rendered once per
(question, catalog, dialect); a warm question is a cache hit.

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
    Metric,
    Model,
    RatioMeasure,
    SimpleMeasure,
)
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.question import Direction
from sutura.core.nouns.refusal import Refusal
from sutura.core.question.resolve import (
    PERIOD,
    FilterOp,
    Resolved,
    ResolvedTop,
    Running,
    Trailing,
    dimension_everywhere,
)
from sutura.core.sql.compiled import (
    CompiledQuery,
    Derivation,
    Output,
    Passthrough,
    Quotient,
    TermIndex,
    selected_at,
)
from sutura.core.sql.measures import Parts, TermAt, groups_kept, metric_parts, order_key
from sutura.core.sql.parts import (
    Binder,
    Joins,
    base_table,
    column,
    join_clause,
    period_start,
    require,
)
from sutura.core.sql.plan import plan_lines

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


def compile_question(resolved: Resolved, catalog: Catalog, dialect: Dialect) -> CompiledQuery:
    """Compile ``resolved`` against ``catalog`` into one statement in ``dialect``.

    The result is cached by (``resolved``, the identity of ``catalog``, ``dialect``).

    Args:
        resolved: A question already checked by ``resolve_question`` against ``catalog``.
        catalog: The pinned catalog it was resolved against.
        dialect: The dialect of the source the statement is for.

    Returns:
        The compiled statement, its parameters, the answer's columns and the plan.

    Raises:
        LookupError: ``resolved`` names something ``catalog`` does not define (it was
            resolved against another catalog).
    """
    return _compile_cached(resolved, _ByIdentity(catalog), dialect)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _compile_cached(resolved: Resolved, key: _ByIdentity, dialect: Dialect) -> CompiledQuery:
    """The uncached compilation behind :func:`compile_question`."""
    catalog = key.catalog
    metrics = resolved.metrics
    binder = Binder()
    if resolved.joined:
        tree, outputs, model, joins, shared = _joined(resolved, catalog, dialect, binder)
    else:
        tree, outputs, model, joins, shared = _grouped(resolved, catalog, dialect, binder)
    derivation = None
    if resolved.derives:
        derivation = Derivation(
            resolved=resolved, zero_filled=tuple(zero_filled(m) for m in metrics)
        )
    plan = plan_lines(resolved, model, joins.all(), shared=shared)
    if resolved.joined:
        plan = (*plan, _JOINED_PLAN)
    params = binder.values(len(list(tree.find_all(exp.Placeholder))))
    width = len(tree.expressions)
    return CompiledQuery(
        sql=_render(tree, dialect),  # last: rendering may change the tree
        params=params,
        columns=answer_columns(resolved),
        plan=plan,
        outputs=outputs,
        selected_width=width,
        source=model.source,
        dialect=dialect,
        derivation=derivation,
    )


_JOINED_PLAN = (
    "joined: each metric grouped on its own model, then FULL OUTER JOIN on period and"
    " dimension values (NULL matches NULL)"
)


def _grouped(
    resolved: Resolved, catalog: Catalog, dialect: Dialect, binder: Binder
) -> tuple[exp.Select, tuple[Output, ...], Model, Joins, bool]:
    """The grouped statement of metrics of one model and time column."""
    metrics = resolved.metrics
    model = require(catalog.model(metrics[0].model), metrics[0].model)
    dimensions = _dimensions(resolved, metrics)
    joins = _joins(resolved, dimensions, catalog)
    shared = all(set(m.required_filters) == set(metrics[0].required_filters) for m in metrics)
    top = None if resolved.derives else resolved.top
    # Build in textual order (SELECT, WHERE, ORDER BY, LIMIT): creation order is bind order.
    tree, outputs = _select(resolved, metrics, dimensions, joins, shared, binder)
    if top is not None and top.per_period:
        tree = tree.select(_rank(resolved, top, dimensions, joins, shared, binder), copy=False)
    tree = tree.from_(base_table(model), copy=False)
    tree = tree.where(_where(resolved, metrics[0], dimensions, joins, shared, binder), copy=False)
    for join in joins.all():
        table, on, kind = join_clause(join)
        tree = tree.join(table, on=on, join_type=kind, copy=False)
    period = period_start(resolved.grain, metrics[0].time_column)
    keys = [joins.column(dimensions[name]) for name in resolved.dimensions]
    tree = tree.group_by(period, *keys, copy=False)
    kept = None if shared else groups_kept(metrics, binder)
    if kept is not None:
        tree = tree.having(kept, copy=False)
    if top is not None and top.per_period:
        tree = _kept_per_period(tree, top.n, binder)
    else:
        order = _order(resolved, top, metrics, shared, binder, outputs, dialect)
        tree = tree.order_by(*order, copy=False)
        if top is not None:
            tree = tree.limit(binder.bind(top.n), copy=False)
    return tree, outputs, model, joins, shared


def _joined(
    resolved: Resolved, catalog: Catalog, dialect: Dialect, binder: Binder
) -> tuple[exp.Select, tuple[Output, ...], Model, Joins, bool]:
    """A derived metric over two models (or time columns): each referent grouped alone, the
    two joined on period and dimension values in one statement (bound in textual order)."""
    alone = [
        msgspec.structs.replace(
            resolved, metrics=(m,), derived=None, compare=None, window=None, fill=False, top=None
        )
        for m in resolved.metrics
    ]
    first = _grouped(alone[0], catalog, dialect, binder)
    second = _grouped(alone[1], catalog, dialect, binder)
    width = 1 + len(resolved.dimensions)
    keys = [PERIOD, *resolved.dimensions]
    sides = ("a", "b")
    items: list[exp.Expr] = [
        exp.func("COALESCE", exp.column(k, "a", quoted=True), exp.column(k, "b", quoted=True)).as_(
            k, quoted=True
        )
        for k in keys
    ]
    outputs: list[Output] = [Passthrough(index=i) for i in range(width)]
    shift = 0
    for side, (tree, side_outputs, *_rest) in zip(sides, (first, second), strict=True):
        parts = [e.alias_or_name for e in tree.expressions[width:]]
        items.extend(exp.column(p, side, quoted=True).as_(p, quoted=True) for p in parts)
        outputs.append(_shifted(side_outputs[width], shift))
        shift += len(parts)
    on = exp.and_(
        exp.EQ(
            this=exp.column(PERIOD, "a", quoted=True),
            expression=exp.column(PERIOD, "b", quoted=True),
        ),
        *(
            exp.NullSafeEQ(
                this=exp.column(d, "a", quoted=True), expression=exp.column(d, "b", quoted=True)
            )
            for d in resolved.dimensions
        ),
    )
    tree = (
        exp.select(*items)
        .from_(
            exp.Subquery(
                this=_unordered(first[0]),
                alias=exp.TableAlias(this=exp.to_identifier("a")),
            ),
            copy=False,
        )
        .join(
            exp.Subquery(
                this=_unordered(second[0]), alias=exp.TableAlias(this=exp.to_identifier("b"))
            ),
            on=on,
            join_type="FULL OUTER",
            copy=False,
        )
        .order_by(
            *(exp.Ordered(this=exp.Literal.number(i + 1), nulls_first=False) for i in range(width)),
            copy=False,
        )
    )
    return tree, tuple(outputs), first[2], first[3], first[4]


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


RANK = "top.rank"
"""The hidden column numbering a row within its period under ``top.per``."""


def answer_columns(resolved: Resolved) -> tuple[str, ...]:
    """The answer's columns: period, dimensions, then each metric with what compare and
    window add after it (``m.prior``, ``m.change``, ``m.relative_change``; ``m.running`` or
    ``m.trailing``)."""
    columns: list[str] = [PERIOD, *resolved.dimensions]
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
    """Whether a period without rows holds zero for ``metric`` (sums and counts) under fill."""
    match metric.measure:
        case SimpleMeasure(term=CountIfTerm()):
            return True
        case SimpleMeasure(term=AggregateTerm(aggregate=aggregate)):
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
    binder: Binder,
) -> exp.Expr:
    """``ROW_NUMBER()`` within the row's period, by ``top``'s metric then the dimensions."""
    index = resolved.metric_names.index(top.by)
    metric = resolved.metrics[index]
    key = order_key(metric, inline=not shared, binder=binder, ordinal=0, average_as_quotient=True)
    if isinstance(key, exp.Literal):
        parts = metric_parts(metric, inline=not shared, binder=binder)
        key = parts.columns[0][1]
    order = exp.Order(
        expressions=[
            exp.Ordered(this=key, desc=descending(top.direction), nulls_first=False),
            *(
                exp.Ordered(this=joins.column(dimensions[n]), nulls_first=False)
                for n in resolved.dimensions
            ),
        ]
    )
    window = exp.Window(
        this=exp.RowNumber(),
        partition_by=[period_start(resolved.grain, resolved.metrics[0].time_column)],
        order=order,
    )
    return window.as_(RANK, quoted=True)


def _kept_per_period(tree: exp.Select, n: int, binder: Binder) -> exp.Select:
    """The rows of ``tree`` ranked at most ``n`` in their period, by period then rank."""
    rank = exp.column(RANK, table="ranked", quoted=True)
    return (
        exp.select(exp.Star())
        .from_(tree.subquery(exp.to_identifier("ranked", quoted=True), copy=False), copy=False)
        .where(exp.LTE(this=rank, expression=binder.bind(n)), copy=False)
        .order_by(
            exp.Ordered(this=exp.Literal.number(1), nulls_first=False),
            exp.Ordered(this=rank.copy(), nulls_first=False),
            copy=False,
        )
    )


def _dimensions(resolved: Resolved, metrics: tuple[Metric, ...]) -> dict[str, Dimension]:
    """Every dimension grouped by or filtered on, as all requested metrics define it."""
    found: dict[str, Dimension] = {}
    for name in (*resolved.dimensions, *(f.dimension for f in resolved.filters)):
        defined = dimension_everywhere(metrics, name)
        if isinstance(defined, Refusal):
            raise LookupError(f"the dimension {name!r} was not resolved against this catalog")
        found[name] = defined[0]
    return found


def _joins(resolved: Resolved, dimensions: dict[str, Dimension], catalog: Catalog) -> Joins:
    """The joins the dimensions need: LEFT, or INNER along a filtered dimension's path."""
    joins = Joins(catalog)
    filtered = {f.dimension for f in resolved.filters}
    for name, dimension in dimensions.items():
        joins.add(dimension.via, inner=name in filtered)
    return joins


def _select(
    resolved: Resolved,
    metrics: tuple[Metric, ...],
    dimensions: dict[str, Dimension],
    joins: Joins,
    shared: bool,
    binder: Binder,
) -> tuple[exp.Select, tuple[Output, ...]]:
    """The SELECT list (period, dimensions, metric parts) and the shaping of each column."""
    items: list[exp.Expr] = [
        period_start(resolved.grain, metrics[0].time_column).as_(PERIOD, quoted=True)
    ]
    items.extend(joins.column(dimensions[n]).as_(n, quoted=True) for n in resolved.dimensions)
    outputs: list[Output] = [Passthrough(index=i) for i in range(len(items))]
    for metric in metrics:
        parts = metric_parts(metric, inline=not shared, binder=binder)
        outputs.append(_output(parts, start=len(items)))
        items.extend(value.as_(alias, quoted=True) for alias, value in parts.columns)
    return exp.select(*items), tuple(outputs)


def _output(parts: Parts, start: int) -> Output:
    """How the answer column of one metric is computed from its selected columns at ``start``."""
    if parts.quotient is None:
        return Passthrough(index=start)
    numerator, denominator, zero = parts.quotient
    return Quotient(
        numerator=_term_index(numerator, start),
        denominator=None if denominator is None else _term_index(denominator, start),
        zero_denominator=zero,
    )


def _term_index(at: TermAt, start: int) -> TermIndex:
    value, count = at
    return TermIndex(value=start + value, count=None if count is None else start + count)


def _where(
    resolved: Resolved,
    metric: Metric,
    dimensions: dict[str, Dimension],
    joins: Joins,
    shared: bool,
    binder: Binder,
) -> exp.Expr:
    """The half-open range, the shared required filters, then the caller's filters."""
    time = column(metric.time_column)
    ranges: list[list[exp.Expr]] = [
        [time >= binder.bind(start), time < binder.bind(end)] for start, end in resolved.read_ranges
    ]
    conditions: list[exp.Expr] = (
        ranges[0]
        if len(ranges) == 1
        else [exp.or_(*(exp.paren(exp.and_(*r), copy=False) for r in ranges))]
    )
    if shared and metric.required_filters:
        conditions.append(binder.required(metric.required_filters))
    for item in resolved.filters:
        target = joins.column(dimensions[item.dimension])
        values = [binder.bind(v) for v in item.values]
        match item.op:
            case FilterOp.EQ:
                conditions.append(target.eq(values[0]))
            case FilterOp.IN:
                conditions.append(target.isin(*values))
            case FilterOp.NOT_IN:
                conditions.append(exp.not_(target.isin(*values)))
            case _:
                assert_never(item.op)
    return exp.and_(*conditions)


def _order(
    resolved: Resolved,
    top: ResolvedTop | None,
    metrics: tuple[Metric, ...],
    shared: bool,
    binder: Binder,
    outputs: tuple[Output, ...],
    dialect: Dialect,
) -> list[exp.Ordered]:
    """``top``'s key first (if any), then period and dimensions ascending; NULLs always last.

    Period and dimensions identify a group, so the order is total: rows that tie on ``top``'s
    key are ordered by period, then dimensions, and ``LIMIT`` cuts a tie the same way on every
    engine. sqlglot writes ``NULLS LAST`` wherever the dialect's default differs (Spark sorts NULLs
    first ascending), so every dialect orders NULLs the same way.
    """
    rest = [
        exp.Ordered(this=exp.Literal.number(i + 1), nulls_first=False)
        for i in range(1 + len(resolved.dimensions))
    ]
    if top is None:
        return rest
    desc = descending(top.direction)
    if top.by == PERIOD:
        return [exp.Ordered(this=exp.Literal.number(1), desc=desc, nulls_first=False), *rest[1:]]
    index = resolved.metric_names.index(top.by)
    selected = selected_at(outputs[1 + len(resolved.dimensions) + index])
    ordinal = 0 if selected is None else selected + 1
    key = order_key(
        metrics[index],
        inline=not shared,
        binder=binder,
        ordinal=ordinal,
        average_as_quotient=_averages_as_quotients(dialect),
    )
    return [exp.Ordered(this=key, desc=desc, nulls_first=False), *rest]


def descending(direction: Direction) -> bool:
    """Whether ``direction`` ranks the largest first."""
    match direction:
        case Direction.DESC:
            return True
        case Direction.ASC:
            return False
        case _:
            assert_never(direction)


def _averages_as_quotients(dialect: Dialect) -> bool:
    """Whether ``top`` ranks an average by its exact quotient (Spark's ``avg`` of a decimal is
    rounded to a fixed scale, so two close averages could tie or swap)."""
    match dialect:
        case Dialect.SPARK:
            return True
        case Dialect.DUCKDB | Dialect.POSTGRES:
            return False
        case _:
            assert_never(dialect)


def _render(tree: exp.Select, dialect: Dialect) -> str:
    """The statement text; for postgres (psycopg's ``%s`` style) a ``%`` in a name is doubled.

    The tree is built for this statement alone and read no more, so the generator works on it
    rather than on a copy (a deep copy of every node was an eighth of a compilation)."""
    match dialect:
        case Dialect.POSTGRES:
            for identifier in tree.find_all(exp.Identifier):
                identifier.set("this", identifier.this.replace("%", "%%"))
        case Dialect.DUCKDB | Dialect.SPARK:
            pass
        case _:
            assert_never(dialect)
    return tree.sql(dialect=dialect.value, pretty=True, copy=False)
