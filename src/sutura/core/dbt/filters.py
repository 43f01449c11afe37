"""A MetricFlow ``filter`` (Jinja around SQL) read as a predicate of the vocabulary.

A filter names what it compares with ``{{ Dimension('entity__name') }}``,
``{{ TimeDimension('entity__name', 'day') }}`` or ``{{ Entity('name') }}``. Each call is
rendered (in Jinja's sandbox: a template is author text and runs nothing else) as a
placeholder identifier, the SQL around them is parsed with sqlglot, and each placeholder is
resolved to what the dimension reads. Any other Jinja — a ``Metric(...)`` filter, a macro, a
loop, a grain other than the dimension's own — is refused with the reason.

>>> from returns.result import Success
>>> dims = lambda name: Success({"column": name.split("__")[-1]})
>>> where("{{ Dimension('order_id__is_food_order') }} = true", dims).unwrap()
{'equals': [{'column': 'is_food_order'}, {'boolean': 'true'}]}
>>> where("{{ Metric('revenue', group_by=['customer']) }} > 10", dims).failure()
"the filter uses Metric('revenue'); a filter on a metric's value has no counterpart in sutura"
"""

from collections.abc import Callable
from typing import Final

from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import SandboxedEnvironment
from returns.result import Failure, Result

from sutura.core.catalog.error import quoted
from sutura.core.dbt.sql_expr import predicate
from sutura.core.dbt.tree import Tree

ResolveDimension = Callable[[str], Result[Tree, str]]
"""What a dimension (``entity__name``, an entity's name) reads, or why it cannot be read."""

_PLACEHOLDER: Final = "sutura_reference_"


class _RefusedError(Exception):
    pass


class _Reference:
    """One ``Dimension(...)`` call, as the placeholder it renders to."""

    def __init__(self, placeholder: str) -> None:
        self.placeholder = placeholder

    def __str__(self) -> str:
        return self.placeholder

    def grain(self, grain: str) -> "_Reference":
        raise _RefusedError(f"asks a dimension at the grain {quoted(grain)}; only its own is read")

    def descending(self, _: bool) -> "_Reference":
        return self

    def date_part(self, part: str) -> "_Reference":
        raise _RefusedError(f"asks the date part {quoted(part)} of a dimension")


class _Calls:
    """The calls a filter may make, each rendered as a placeholder and remembered."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def reference(self, name: str) -> _Reference:
        placeholder = f"{_PLACEHOLDER}{len(self.names)}"
        self.names[placeholder] = name
        return _Reference(placeholder)

    def dimension(self, name: str, entity_path: object = None) -> _Reference:
        return self.reference(_walked(name, entity_path))

    def time_dimension(
        self,
        name: str,
        time_granularity_name: object = None,
        entity_path: object = None,
        *args: object,
        **kwargs: object,
    ) -> _Reference:
        if time_granularity_name not in {None, "day"} or args or kwargs:
            raise _RefusedError(
                f"asks the time dimension {quoted(name)} at another grain than its day"
            )
        return self.reference(_walked(name, entity_path))

    def metric(self, name: str, *args: object, **kwargs: object) -> _Reference:
        raise _RefusedError(
            f"uses Metric({quoted(name)}); a filter on a metric's value has no counterpart"
            " in sutura"
        )


def _walked(name: str, entity_path: object) -> str:
    """A dimension's name with the entities MetricFlow's ``entity_path`` walks first: the
    dimension customer__customer_type with the entity path [order_id] is the name
    order_id__customer__customer_type."""
    if entity_path is None:
        return name
    if not isinstance(entity_path, list | tuple) or not all(
        isinstance(step, str) for step in entity_path
    ):
        raise _RefusedError(f"names an entity path for {quoted(name)} that is not a list of names")
    return "__".join([*entity_path, name])


def where(template: str, resolve: ResolveDimension) -> Result[Tree, str]:
    """The predicate the filter ``template`` states."""
    calls = _Calls()
    environment = SandboxedEnvironment(autoescape=False, undefined=StrictUndefined)
    globals_ = {
        "Dimension": calls.dimension,
        "TimeDimension": calls.time_dimension,
        "Entity": calls.dimension,
        "Metric": calls.metric,
    }
    try:
        sql = environment.from_string(template).render(globals_)
    except _RefusedError as refused:
        return Failure(f"the filter {refused}")
    except (TemplateError, TypeError) as error:
        return Failure(f"the filter's Jinja is not a dimension comparison ({type(error).__name__})")

    def column(name: str) -> Result[Tree, str]:
        if name not in calls.names:
            return Failure(
                f"reads {quoted(name)} outside any Dimension(...); a filter names what it reads"
            )
        return resolve(calls.names[name])

    return predicate(sql, column)
