"""Expression trees as a catalog document writes them, and the YAML flow text of one.

A tree is the written spelling of the typed expression vocabulary (``docs/catalog.md``): a
mapping with one key naming the node's kind, a list of operands, or a scalar. The importer
builds these trees from what it parsed (never from SQL text) and writes them as YAML flow
collections, every scalar quoted where a reader could take it for anything but the text.

>>> flow({"at_least": [{"column": "order_total"}, {"number": "20"}]})
'{at_least: [{column: order_total}, {number: "20"}]}'
>>> flow({"equals": [{"column": "customer_type", "via": ["orders_customer"]}, {"text": "new"}]})
'{equals: [{column: customer_type, via: [orders_customer]}, {text: new}]}'
"""

from typing import TypeAlias

from sutura.core.catalog.draft import scalar

Tree: TypeAlias = "str | list[Tree] | dict[str, Tree]"
"""A node (one-key mapping), a list of nodes, or a scalar, as a document spells it."""


def flow(tree: Tree) -> str:
    """``tree`` as one line of YAML flow style that reads back as the same tree."""
    match tree:
        case str():
            return scalar(tree)
        case list():
            return "[" + ", ".join(flow(item) for item in tree) + "]"
        case dict():
            return "{" + ", ".join(f"{scalar(k)}: {flow(v)}" for k, v in tree.items()) + "}"


def with_via(tree: Tree, via: tuple[str, ...]) -> Tree:
    """``tree`` with every column in it read along the relationships ``via`` first.

    >>> with_via({"date_of": {"column": "at"}}, ("a_b",))
    {'date_of': {'column': 'at', 'via': ['a_b']}}
    """
    if not via:
        return tree
    match tree:
        case str():
            return tree
        case list():
            return [with_via(item, via) for item in tree]
        case dict() if "column" in tree and isinstance(tree["column"], str):
            had = tree.get("via", [])
            before = list(had) if isinstance(had, list) else [had]
            return {**tree, "via": [*via, *before]}
        case dict():
            return {key: with_via(value, via) for key, value in tree.items()}
