"""Expressions, predicates and required filters as SQL, the same meaning on every dialect.

Every constant is a bind parameter (a timestamp is bound as its text and cast by the engine, in
the catalog's time zone; compared with an instant, a ``timestamp with time zone`` column, it is
bound as the instant it means there, by one rule: ``reads.instant_of``); every column is one
quoted identifier on the alias of the model its ``via`` chain reaches. A predicate is compiled
for a place where NULL and false mean the same (``WHERE``, ``CASE WHEN``); where they would
not, under ``not``, ``not_equals`` and ``not_in``, the compiled SQL first makes NULL false, so
a predicate is never unknown (``docs/catalog.md``). The older required filters compile exactly
as they always did.

Where engines differ, the SQL says what to do: a quotient is computed by integer division on
each engine (truncated toward zero, so no engine's rounding enters), a value a node chooses
between decimals of different scales is cast to its one type (PostgreSQL would otherwise keep
each value's own scale), a date part is cast to an integer, and integer arithmetic is
computed in ``DECIMAL(38, 0)`` (the whole number, never a column's own width run past it).
"""

import datetime
from collections.abc import Callable
from typing import Final, assert_never

from returns.pipeline import is_successful
from sqlglot import exp

from sutura.core.definitions.model import (
    Catalog,
    Dimension,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    FilterPredicate,
    RequiredFilter,
)
from sutura.core.expression.arithmetic import QUOTIENT_SCALE, product_type
from sutura.core.expression.check import check_expression
from sutura.core.expression.constants import bound_value
from sutura.core.expression.nodes import (
    Arithmetic,
    ArithmeticOp,
    Between,
    Buckets,
    Case,
    Check,
    Coalesce,
    Column,
    Compare,
    Comparison,
    Connective,
    Constant,
    ConstantKind,
    DatePart,
    Expr,
    Junction,
    Member,
    Membership,
    Negate,
    Not,
    Part,
    Predicate,
    StartsWith,
    Test,
)
from sutura.core.expression.problem import ColumnTypes
from sutura.core.expression.types import INTEGER_PRECISION, MAX_PRECISION, SqlType, traits
from sutura.core.nouns.dialect import Dialect, traits_of
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.sql.arithmetic import (
    NARROW_DECIMAL,
    cast_decimal,
    integer,
    number,
    paren,
    quotient_sql,
    wide_step,
    widened,
)
from sutura.core.sql.parts import Binder, column, sql_type
from sutura.core.sql.reads import (
    Zoned,
    catalog_code_point,
    catalog_held,
    catalog_text,
    catalog_types,
    catalog_zoned,
    instant_of,
)

_EXTRACTED: Final = {
    Part.YEAR: "YEAR",
    Part.MONTH_OF_YEAR: "MONTH",
    Part.ISO_WEEK: "WEEK",
    Part.DAY_OF_MONTH: "DAY",
    Part.HOUR_OF_DAY: "HOUR",
}


class ExpressionSql:
    """Builds the SQL of expressions, predicates and required filters for one statement.

    Args:
        binder: where every constant is bound, in the order the SQL is built.
        alias: the table alias of the model a ``via`` chain reaches (``t0`` for none).
        dialect: the statement's dialect.
        types: the declared type of a column node (the catalog's models).
        held: whether a column node reads a column the source holds as ``CHAR(n)``.
        text: whether a column node reads a column the source holds as text (learnt at
            startup; a column declaring its type is known by it without).
        zoned: the session's zone and the column nodes that read instants, where the zone is
            known (a timestamp compared with such a column is bound as the instant it means).
        code_point: whether a column node reads a text column the source orders by code point
            as it is (learnt at startup; without it, none is known to).
    """

    def __init__(
        self,
        binder: Binder,
        alias: Callable[[tuple[str, ...]], str],
        dialect: Dialect,
        types: ColumnTypes,
        held: Callable[[Column], bool],
        text: Callable[[Column], bool] | None = None,
        *,
        zoned: Zoned | None = None,
        code_point: Callable[[Column], bool] | None = None,
    ) -> None:
        self.binder = binder
        self._code_point = code_point
        self._zoned = zoned
        self._alias = alias
        self._dialect = dialect
        self._types = types
        self._held = held
        self._text = text

    @property
    def dialect(self) -> Dialect:
        """The statement's dialect."""
        return self._dialect

    def bind(self, value: object) -> exp.Placeholder:
        """A placeholder bound to ``value``."""
        return self.binder.bind(value)

    def required(self, filters: tuple[RequiredFilter, ...]) -> exp.Expr:
        """The conjunction of a metric's required filters."""
        return exp.and_(*(self._required_one(f) for f in filters), copy=False)

    def _required_one(self, item: RequiredFilter) -> exp.Expr:
        match item:
            case FilterEquals():
                return column(item.column).eq(self._older_value(item))
            case FilterNotEquals():
                # NULL is not the excluded value, so a row whose column is NULL is kept.
                value = self._older_value(item)
                return exp.NullSafeNEQ(this=column(item.column), expression=value)
            case FilterIsTrue():
                return exp.Is(this=column(item.column), expression=exp.true())
            case FilterIsNotNull():
                return exp.not_(exp.Is(this=column(item.column), expression=exp.null()))
            case FilterPredicate():
                return self.condition(item.predicate)
            case _:
                assert_never(item)

    def _older_value(self, item: FilterEquals | FilterNotEquals) -> exp.Expr:
        """An older form's value, bound as text for the engine to read as its column's type;
        beside an instant (a column declared ``TIMESTAMPTZ``, where the zone is known) it is a
        wall time (``sutura check`` holds it to one), bound as the instant it means by the one
        rule a timestamp constant is (:func:`instant_of`), not as the engine reads it."""
        read = Column(name=item.column)
        if self._zoned is None or not self._zoned.reads_instant(read):
            return self.bind(item.value)
        wall = Constant(kind=ConstantKind.TIMESTAMP, text=item.value)
        return self.constant(wall, beside_instant=True)

    def column_type(self, read: Column) -> SqlType | None:
        """The declared type of a column (None: declared without one)."""
        found = self._types(read)
        if not is_successful(found):
            raise LookupError("a column was not checked against this catalog")
        return found.unwrap()

    def keyed(self, dimension: Dimension) -> exp.Expr:
        """A dimension's value as a statement selects and orders it: text under the ``C``
        collation where the dialect orders text by the database's collation
        (``collated_text``), so it orders by code point as on every other engine; any other
        value, text elsewhere, and a column the source orders by code point already (its own
        collation, which an index on it is built in, so the index serves the order), as it is
        (equality is the same under every collation). An expression's text is collated even
        over such columns: its collation is not proven to be theirs."""
        value = self.value(dimension.value)
        if not traits_of(self._dialect).collated_text or not self.textual(dimension):
            return value
        if dimension.expression is None and self._code_point is not None:
            read = Column(name=dimension.column or "", via=dimension.via)
            if self._code_point(read):
                return value
        return exp.Collate(this=value, expression=exp.to_identifier("C", quoted=True))

    def textual(self, dimension: Dimension) -> bool:
        """Whether ``dimension``'s values are text: by its type, its column's declared type,
        or else the type its source holds the column as (unknown without a source: not)."""
        if dimension.type is not None:
            return traits(dimension.type).text
        if dimension.expression is not None:  # declares its type; settled, it has one
            return traits(self.type_of(dimension.expression).family).text
        read = Column(name=dimension.column or "", via=dimension.via)
        declared = self.column_type(read)
        if declared is not None:
            return traits(declared.family).text
        return self._text is not None and self._text(read)

    def type_of(self, expr: Expr) -> SqlType:
        """The type of a settled expression (the catalog checked it when it was loaded)."""
        typed = check_expression(expr, self._types)
        if not is_successful(typed):
            raise LookupError("an expression was not checked against this catalog")
        return typed.unwrap().type

    def summed(self, value: exp.Expr, of: Expr) -> exp.Expr:
        """What ``SUM`` adds up for ``value``, the SQL of ``of`` (or of a column holding it).

        An engine whose ``SUM`` of an integer is a 64-bit integer (Spark's ``BIGINT``, an error
        past 2^63) adds it up as a ``DECIMAL(38, 0)``, as DuckDB (``HUGEINT``) and PostgreSQL
        (``NUMERIC``) do without a cast; integer arithmetic is computed so already, and a
        column declaring no type is summed as it is.
        """
        if not traits_of(self._dialect).narrow_integer_sums or _computed_wide(of):
            return value
        typed = check_expression(of, self._types)
        if not is_successful(typed) or not traits(typed.unwrap().type.family).integer:
            return value
        return widened(value)

    def value(self, expr: Expr) -> exp.Expr:
        """``expr`` as a SQL value."""
        match expr:
            case Column():
                return self._column(expr)
            case Constant():
                return self.constant(expr)
            case Arithmetic():
                return self._arithmetic(expr)
            case Negate():
                return exp.Neg(this=paren(self._operand(expr.of, self._whole(expr))))
            case Coalesce():
                values = self.alike(*expr.of, chosen=True)
                chosen = exp.Coalesce(this=values[0], expressions=values[1:])
                return self._as_own_type(chosen, expr)
            case Case():
                return self._case(expr)
            case DatePart():
                return self._part(expr)
            case Buckets():
                return self._buckets(expr)
            case _:
                assert_never(expr)

    def _column(self, read: Column) -> exp.Expr:
        """A column; fixed-length text without the blanks PostgreSQL and Spark pad it with
        (DuckDB keeps none), so its values are one text on every engine. A column that declares
        no type but is held as ``CHAR(n)`` is read without them too (and stays untyped)."""
        value = column(read.name, self._alias(read.via))
        kind = self._types(read).value_or(None)
        if trimmed(kind, self._held(read), self._dialect):
            return exp.Anonymous(this="RTRIM", expressions=[value])
        return value

    def constant(self, constant: Constant, beside_instant: bool = False) -> exp.Expr:
        """A bound constant; a timestamp is cast from its bound text, or, ``beside_instant``
        (compared with an instant) where the zone is known, from the instant it means."""
        match constant.kind:
            case ConstantKind.TIMESTAMP:
                if beside_instant and self._zoned is not None:
                    wall = datetime.datetime.fromisoformat(constant.text)
                    instant = self.bind(instant_of(wall, self._zoned.zone))
                    return exp.Cast(this=instant, to=sql_type("TIMESTAMPTZ"))
                bound = self.bind(bound_value(constant))
                return exp.Cast(this=bound, to=sql_type("TIMESTAMP"))
            case (
                ConstantKind.NUMBER
                | ConstantKind.TEXT
                | ConstantKind.DATE
                | ConstantKind.BOOLEAN
                | ConstantKind.INFERRED
            ):
                return self.bind(bound_value(constant))
            case _:
                assert_never(constant.kind)

    def reads_instant(self, expr: Expr) -> bool:
        """Whether ``expr`` is an instant where the zone is known: a column read as one, or
        what ``coalesce`` or ``case`` chooses between one and others (the engine reads them
        all as instants, a timestamp constant among them too)."""
        match expr:
            case Column():
                return self._zoned is not None and self._zoned.reads_instant(expr)
            case Coalesce():
                return any(self.reads_instant(value) for value in expr.of)
            case Case():
                chosen = (*(branch.then for branch in expr.branches), expr.otherwise)
                return any(self.reads_instant(value) for value in chosen)
            case Constant() | Arithmetic() | Negate() | DatePart() | Buckets():
                return False
            case _:
                assert_never(expr)

    def day_start(self, day: datetime.date, time: Column) -> exp.Expr:
        """The first moment of ``day`` as a range bound on the time column ``time``: the day
        itself, or, on an instant, its midnight's instant in the session's zone (where the
        zone skips midnight, the first instant after the gap; where it repeats it, the
        earlier), so a range holds exactly the rows its days bucket."""
        if not self.reads_instant(time) or self._zoned is None:
            return self.bind(day)
        midnight = datetime.datetime.combine(day, datetime.time())
        instant = self.bind(instant_of(midnight, self._zoned.zone))
        return exp.Cast(this=instant, to=sql_type("TIMESTAMPTZ"))

    def _arithmetic(self, expr: Arithmetic) -> exp.Expr:
        """``a + b …``, ``a - b …`` or ``a * b …``, one step at a time, left to right.

        Spark widens a product one digit more than the catalog's rules (``p1 + p2 + 1``), so a
        further factor could take it past 38 digits, where Spark silently rounds the scale
        (``allowPrecisionLoss``): on Spark each decimal product is kept in the type the catalog
        gives it (which holds every product of its factors), so the next step multiplies what
        every engine holds.

        DuckDB multiplies two decimals of at most 18 digits (or one and an ``INTEGER``) in 64
        bits and raises an error past 18 digits, where the others answer: there, where the
        catalog's type of a product passes 18 digits, its left factor is first read as a
        ``DECIMAL(38, its scale)``, and the product is cast back to the catalog's type (a
        later step is wide already).
        """
        if _divides(expr.op):
            return self._quotient(expr)
        whole = self._whole(expr)
        result = paren(self._operand(expr.operands[0], whole))
        kind = self.type_of(expr.operands[0])
        wide = False  # the left factor is a product computed wide already
        for operand in expr.operands[1:]:
            right = paren(self._operand(operand, whole))
            step: exp.Expr
            match expr.op:
                case ArithmeticOp.ADD:
                    step = exp.Add(this=result, expression=right)
                case ArithmeticOp.SUBTRACT:
                    step = exp.Sub(this=result, expression=right)
                case ArithmeticOp.MULTIPLY:
                    left, kind, wide = self._factor(result, kind, operand, wide=wide, whole=whole)
                    step = exp.Mul(this=left, expression=right)
                case ArithmeticOp.DIVIDE:
                    raise AssertionError("a quotient is built by _quotient")
                case _:
                    assert_never(expr.op)
            if whole:
                result = wide_step(self._dialect, step)
            elif isinstance(step, exp.Mul):
                result = self._kept(exp.Paren(this=step), kind, wide)
            else:
                result = exp.Paren(this=step)
        return result

    def _whole(self, expr: Expr) -> bool:
        """Whether ``expr`` computes a whole number (an integer), so that it is computed in
        :data:`~sutura.core.sql.arithmetic.WIDE_INTEGER`, never its operands' own type."""
        return traits(self.type_of(expr).family).integer

    def _operand(self, operand: Expr, whole: bool) -> exp.Expr:
        """An operand of ``add``, ``subtract``, ``multiply`` or ``negate``: as it is, or, where
        the result is a whole number, widened (an operand computed wide already is kept)."""
        value = self.value(operand)
        if not whole or _computed_wide(operand):
            return value
        return widened(value)

    def _factor(
        self, left: exp.Expr, kind: SqlType, operand: Expr, *, wide: bool, whole: bool
    ) -> tuple[exp.Expr, SqlType, bool]:
        """The left factor of a product by ``operand`` (``left``, of the catalog's type
        ``kind``, a product computed ``wide`` already or not), the product's type, and whether
        it is computed wide."""
        product = product_type(kind, self.type_of(operand))
        if isinstance(product, str):
            raise LookupError("an expression was not checked against this catalog")
        widens = not whole and self._widens(product)
        if widens and not wide:
            left = cast_decimal(left, MAX_PRECISION, kind.scale or 0)
        return left, product, widens

    def _widens(self, product: SqlType) -> bool:
        """Whether a decimal product of the catalog's type ``product`` is computed with its left
        factor widened: on an engine that multiplies narrow decimals in 64 bits, past them."""
        if not traits_of(self._dialect).narrow_decimal_products or product.scale is None:
            return False
        return (
            traits(product.family).exact and (product.precision or MAX_PRECISION) > NARROW_DECIMAL
        )

    def _kept(self, computed: exp.Expr, kind: SqlType, wide: bool) -> exp.Expr:
        """A decimal product cast to ``kind`` (the catalog's type of it) on Spark, and where it
        was computed ``wide`` (``DECIMAL(38, its scale)``) in a type narrower than that."""
        exact = traits(kind.family)
        rounds = traits_of(self._dialect).rounded_wide_decimals
        if kind.scale is None or not exact.exact:
            return computed
        precision = kind.precision or MAX_PRECISION
        if not (rounds or (wide and precision < MAX_PRECISION)):
            return computed
        return cast_decimal(computed, precision, kind.scale)

    def _quotient(self, expr: Arithmetic) -> exp.Expr:
        """``a / b``: NULL where ``b`` is zero; a float, or a decimal cut toward zero."""
        left, right = expr.operands
        kinds = traits(self.type_of(left).family), traits(self.type_of(right).family)
        if not (kinds[0].exact and kinds[1].exact):
            return exp.Div(
                this=paren(self.value(left)),
                expression=exp.Nullif(this=self.value(right), expression=number("0")),
            )
        result = self.type_of(expr)
        scale = QUOTIENT_SCALE if result.scale is None else result.scale
        scales = self.type_of(left).scale or 0, self.type_of(right).scale or 0
        precision = result.precision or MAX_PRECISION
        return quotient_sql(
            self._dialect,
            lambda: self.value(left),
            lambda: self.value(right),
            (precision, scale),
            scales,
        )

    def _as_own_type(self, value: exp.Expr, expr: Expr) -> exp.Expr:
        """``value`` cast to ``expr``'s decimal type, so every engine shows one scale."""
        kind = self.type_of(expr)
        if kind.scale is None or not traits(kind.family).exact:
            return value
        return cast_decimal(value, kind.precision or MAX_PRECISION, kind.scale)

    def _case(self, expr: Case) -> exp.Expr:
        case = exp.Case()
        wide = self._wide_scale(*(b.then for b in expr.branches), expr.otherwise, chosen=True)
        instant = self.reads_instant(expr)
        for branch in expr.branches:  # built in reading order: the condition, then its value
            when = self.condition(branch.when)
            then = self._alike_value(branch.then, instant)
            case = case.when(when, self._widened(then, wide), copy=False)
        otherwise = self._alike_value(expr.otherwise, instant)
        case = case.else_(self._widened(otherwise, wide), copy=False)
        return self._as_own_type(case, expr)

    def alike(self, *values: Expr, chosen: bool = False) -> list[exp.Expr]:
        """``values`` as SQL, built in order, to be compared (or, when ``chosen``, chosen
        between by ``coalesce``) in one type.

        Spark compares or chooses between two decimals in their wider type, and where that
        needs more than 38 digits (``DECIMAL(38,2)`` beside ``DECIMAL(3,3)``) it cuts the
        scale, rounding one side (``0.01 <= 0.005`` holds there); DuckDB does so choosing
        between them. There each value is cast to ``DECIMAL(38, the larger scale)``: exact, or
        a value too large for it overflows (an error), never a rounded comparison.
        """
        wide = self._wide_scale(*values, chosen=chosen)
        instant = any(self.reads_instant(value) for value in values)
        return [self._widened(self._alike_value(value, instant), wide) for value in values]

    def _alike_value(self, value: Expr, beside_instant: bool) -> exp.Expr:
        """``value`` as SQL; a constant compared with an instant as one."""
        match value:
            case Constant():
                return self.constant(value, beside_instant)
            case Column() | Arithmetic() | Negate() | Coalesce() | Case() | DatePart() | Buckets():
                return self.value(value)
            case _:
                assert_never(value)

    def _wide_scale(self, *values: Expr, chosen: bool) -> int | None:
        """The larger scale of ``values`` where the engine would cut it, else None."""
        engine = traits_of(self._dialect)
        if not (engine.rounded_wide_decimals or (chosen and engine.rounded_chosen_decimals)):
            return None
        typed = [check_expression(value, self._types) for value in values]
        if not all(is_successful(kind) for kind in typed):
            return None  # a column declaring no type: not a number the catalog computes with
        kinds = [kind.unwrap().type for kind in typed]
        if not all(traits(kind.family).exact for kind in kinds):
            return None
        if all(kind.scale is None for kind in kinds):
            return None  # integers only
        digits = [_digits(kind) for kind in kinds]
        whole = max(precision - scale for precision, scale in digits)
        scale = max(scale for _, scale in digits)
        return scale if whole + scale > MAX_PRECISION else None

    @staticmethod
    def _widened(value: exp.Expr, scale: int | None) -> exp.Expr:
        return value if scale is None else cast_decimal(value, MAX_PRECISION, scale)

    def _part(self, expr: DatePart) -> exp.Expr:
        of = self.value(expr.of)
        part = expr.part
        match part:
            case Part.QUARTER | Part.MONTH:
                unit = exp.Literal.string(part.value)
                truncated = exp.Anonymous(this="DATE_TRUNC", expressions=[unit, of])
                return exp.Cast(this=truncated, to=sql_type("DATE"))
            case Part.DATE_OF:
                return exp.Cast(this=of, to=sql_type("DATE"))
            case Part.DAY_OF_WEEK:
                return integer(
                    exp.Extract(this=exp.var(_iso_weekday(self._dialect)), expression=of)
                )
            case (
                Part.YEAR
                | Part.MONTH_OF_YEAR
                | Part.ISO_WEEK
                | Part.DAY_OF_MONTH
                | Part.HOUR_OF_DAY
            ):
                return integer(exp.Extract(this=exp.var(_EXTRACTED[part]), expression=of))
            case _:
                assert_never(part)

    def _buckets(self, expr: Buckets) -> exp.Expr:
        """``CASE WHEN x < e1 THEN l0 … WHEN x >= en THEN ln END``: NULL stays NULL."""
        case = exp.Case()
        for edge, label in zip(expr.edges, expr.labels, strict=False):
            below = exp.LT(**_sides(self.alike(expr.of, edge)))
            case = case.when(below, self.bind(label), copy=False)
        last = exp.GTE(**_sides(self.alike(expr.of, expr.edges[-1])))
        return case.when(last, self.bind(expr.labels[-1]), copy=False)

    def condition(self, predicate: Predicate) -> exp.Expr:
        """``predicate`` where NULL and false mean the same (WHERE, CASE WHEN)."""
        match predicate:
            case Compare():
                return self._compare(predicate)
            case Between():
                value, low, high = self.alike(predicate.value, predicate.low, predicate.high)
                return exp.Between(this=value, low=low, high=high)
            case Member():
                value, *candidates = self.alike(predicate.value, *predicate.candidates)
                listed = value.isin(*candidates)
                return _negated(listed) if _excludes(predicate.op) else listed
            case Test():
                return self._test(predicate)
            case StartsWith():
                return self._starts_with(predicate)
            case Junction():
                parts = [exp.Paren(this=self.condition(p)) for p in predicate.of]
                match predicate.op:
                    case Connective.AND:
                        return exp.and_(*parts, copy=False)
                    case Connective.OR:
                        return exp.or_(*parts, copy=False)
                    case _:
                        assert_never(predicate.op)
            case Not():
                return _negated(self.condition(predicate.of))
            case _:
                assert_never(predicate)

    def _starts_with(self, predicate: StartsWith) -> exp.Expr:
        """``STARTS_WITH(value, prefix)``; a constant prefix without LIKE's own characters is
        ``value LIKE <prefix>%`` (bound), the same test, which engines run faster (DuckDB
        reads it as a prefix scan). The pattern is built here, never written by an author."""
        value = self.value(predicate.value)
        prefix = predicate.prefix
        plain = _plain_prefix(prefix)
        if plain is None:
            return exp.StartsWith(this=value, expression=self.value(prefix))
        return exp.Like(this=value, expression=self.bind(plain + "%"))

    def _compare(self, predicate: Compare) -> exp.Expr:
        left, right = self.alike(predicate.left, predicate.right)
        match predicate.op:
            case Comparison.EQUALS:
                return exp.EQ(this=left, expression=right)
            case Comparison.NOT_EQUALS:
                return _negated(exp.EQ(this=left, expression=right))
            case Comparison.LESS_THAN:
                return exp.LT(this=left, expression=right)
            case Comparison.AT_MOST:
                return exp.LTE(this=left, expression=right)
            case Comparison.GREATER_THAN:
                return exp.GT(this=left, expression=right)
            case Comparison.AT_LEAST:
                return exp.GTE(this=left, expression=right)
            case _:
                assert_never(predicate.op)

    def _test(self, predicate: Test) -> exp.Expr:
        of = self.value(predicate.of)
        match predicate.check:
            case Check.IS_NULL:
                return exp.Is(this=of, expression=exp.null())
            case Check.IS_NOT_NULL:
                return exp.not_(exp.Is(this=of, expression=exp.null()))
            case Check.IS_TRUE:
                return exp.Is(this=of, expression=exp.true())
            case _:
                assert_never(predicate.check)


def _sides(values: list[exp.Expr]) -> dict[str, exp.Expr]:
    """The two sides of a comparison, as sqlglot names them."""
    left, right = values
    return {"this": left, "expression": right}


def _digits(kind: SqlType) -> tuple[int, int]:
    """(precision, scale) of an exact number; an integer counts as INTEGER_PRECISION digits."""
    if kind.scale is None:
        return INTEGER_PRECISION, 0
    return kind.precision or MAX_PRECISION, kind.scale


def _plain_prefix(prefix: Expr) -> str | None:
    """A text constant holding none of ``%``, ``_`` and ``\\``, or None."""
    match prefix:
        case Constant():
            text = prefix.text
            return None if any(ch in text for ch in "%_\\") else text
        case Column() | Arithmetic() | Negate() | Coalesce() | Case() | DatePart() | Buckets():
            return None
        case _:
            assert_never(prefix)


def trimmed(kind: SqlType | None, held: bool, dialect: Dialect) -> bool:
    """Whether a column of type ``kind`` (None: it declares none), ``held`` as ``CHAR(n)`` by
    its source or not, is read without its padding (``RTRIM``) in ``dialect``: fixed-length
    text, on an engine that pads it. A column declaring a type is fixed-length text as its type
    says (held text is marked so); one declaring none, as its source holds it.

    >>> trimmed(None, True, Dialect.POSTGRES), trimmed(None, True, Dialect.DUCKDB)
    (True, False)
    >>> trimmed(None, False, Dialect.SPARK)
    False
    """
    fixed = held if kind is None else kind.padded
    return fixed and _pads(dialect)


def _pads(dialect: Dialect) -> bool:
    """Whether the engine pads fixed-length text with blanks (DuckDB stores none)."""
    match dialect:
        case Dialect.POSTGRES | Dialect.SPARK:
            return True
        case Dialect.DUCKDB:
            return False
        case _:
            assert_never(dialect)


def _computed_wide(expr: Expr) -> bool:
    """Whether ``expr`` is integer arithmetic, computed wide already (``divide`` is not:
    its result is a decimal)."""
    match expr:
        case Arithmetic():
            return not _divides(expr.op)
        case Negate():
            return True
        case Column() | Constant() | Coalesce() | Case() | DatePart() | Buckets():
            return False
        case _:
            assert_never(expr)


def _divides(op: ArithmeticOp) -> bool:
    match op:
        case ArithmeticOp.DIVIDE:
            return True
        case ArithmeticOp.ADD | ArithmeticOp.SUBTRACT | ArithmeticOp.MULTIPLY:
            return False
        case _:
            assert_never(op)


def _excludes(op: Membership) -> bool:
    match op:
        case Membership.NOT_IN:
            return True
        case Membership.IN:
            return False
        case _:
            assert_never(op)


def _negated(condition: exp.Expr) -> exp.Expr:
    """``NOT COALESCE(condition, FALSE)``: true exactly where ``condition`` is not true."""
    return exp.not_(exp.Coalesce(this=exp.Paren(this=condition), expressions=[exp.false()]))


def _iso_weekday(dialect: Dialect) -> str:
    """The EXTRACT field of the ISO day of the week (1 Monday … 7 Sunday)."""
    match dialect:
        case Dialect.DUCKDB | Dialect.POSTGRES:
            return "ISODOW"
        case Dialect.SPARK:
            return "DAYOFWEEK_ISO"
        case _:
            assert_never(dialect)


def model_sql(
    binder: Binder,
    alias: Callable[[tuple[str, ...]], str],
    catalog: Catalog,
    model: str,
    source: SourceFacts,
) -> ExpressionSql:
    """The expressions of a statement reading the model ``model`` of ``catalog`` on ``source``:
    its columns' types, which it holds as ``CHAR(n)``, as text, in code point order, and where
    it reads instants, each as the source's facts say."""
    return ExpressionSql(
        binder,
        alias,
        source.dialect,
        catalog_types(catalog, model, source),
        catalog_held(catalog, model, source),
        catalog_text(catalog, model, source),
        zoned=catalog_zoned(catalog, model, source),
        code_point=catalog_code_point(catalog, model, source),
    )
