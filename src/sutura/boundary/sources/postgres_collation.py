"""Which of a table's text columns PostgreSQL orders by code point as they are.

A text dimension is selected under ``COLLATE "C"`` on PostgreSQL, so it orders by code point
whatever the database's collation (``core/sql/expression.py``). An index on a column serves an
order only in the column's own collation, so a column that orders so already is selected as it
is: one whose collation orders as ``"C"`` does. That is ``"C"`` and ``"POSIX"`` (``strcmp``:
byte order, which in UTF-8 is code point order), libc's ``C.UTF-8`` (glibc 2.35 and later,
Debian's, musl's: code point order, and only in a UTF-8 database), and the builtin
provider's ``C``, ``C.UTF-8`` and ``PG_UNICODE_FAST`` (PostgreSQL 17 and 18; the predefined
"ucs_basic" is the builtin ``C`` there, libc's ``C`` before). Any ICU collation is linguistic.
A column of the default collation orders by the database's (``datlocprovider``,
``datcollate``, ``datlocale``).

The description names each column's table and attribute number (``ftable``, ``ftablecol``), so
the catalog is asked about exactly the columns the probe read, however the table was named.
"""

import logging
from collections.abc import Sequence
from typing import Final

import psycopg
from psycopg.pq.abc import PGresult

from sutura.boundary.sources.postgres_connect import Connection

log = logging.getLogger("sutura.source")

_COLLATIONS: Final = (
    "SELECT a.attnum,"
    " CASE WHEN c.collprovider = 'd'"
    " THEN coalesce(to_jsonb(d) ->> 'datlocprovider', 'c') ELSE c.collprovider::text END,"
    " CASE WHEN c.collprovider = 'd' THEN d.datcollate::text ELSE c.collcollate::text END,"
    " CASE WHEN c.collprovider = 'd' THEN to_jsonb(d) ->> 'datlocale'"
    " ELSE to_jsonb(c) ->> 'colllocale' END"
    " FROM pg_catalog.pg_attribute a"
    " JOIN pg_catalog.pg_collation c ON c.oid = a.attcollation"
    " JOIN pg_catalog.pg_database d ON d.datname = pg_catalog.current_database()"
    " WHERE a.attrelid = %s AND a.attnum = ANY(%s)"
)
"""Per asked attribute of one relation, the provider, libc locale and builtin locale its
collation orders by (the database's where it is the default); none for a non-text one."""

_TEXT_TYPES: Final = frozenset({19, 25, 1042, 1043})
"""The type OIDs of ``name``, ``text``, ``bpchar`` and ``varchar`` (a domain is described as its
base type): only these are asked about; any other column keeps its ``COLLATE``."""

_LIBC_CODE_POINT: Final = frozenset({"c", "posix", "c.utf8"})
_BUILTIN_CODE_POINT: Final = frozenset({"c", "c.utf8", "pg_unicode_fast"})


def orders_by_code_point(provider: str, collate: str | None, locale: str | None) -> bool:
    """Whether a collation of ``provider`` (``c`` libc, ``b`` builtin, ``i`` ICU) with the libc
    locale ``collate`` or the builtin ``locale`` orders text as ``"C"`` does (by code point).

    >>> orders_by_code_point("c", "C.UTF-8", None), orders_by_code_point("c", "C.utf8", None)
    (True, True)
    >>> orders_by_code_point("c", "POSIX", None), orders_by_code_point("b", None, "C.UTF-8")
    (True, True)
    >>> orders_by_code_point("c", "en_US.UTF-8", None), orders_by_code_point("i", "C", "en-US")
    (False, False)
    """
    match provider:
        case "c":
            return _spelled(collate) in _LIBC_CODE_POINT
        case "b":
            return _spelled(locale) in _BUILTIN_CODE_POINT
        case _:
            return False


def _spelled(locale: str | None) -> str:
    """A locale name as compared: ``C.UTF-8``, ``C.utf8`` and ``c.UTF8`` are one."""
    return "" if locale is None else locale.strip().casefold().replace("-", "")


async def code_point_columns(
    connection: Connection, result: PGresult, names: Sequence[str]
) -> frozenset[str]:
    """Of the columns ``result`` describes (named ``names``), the text ones read from one
    relation whose collation orders by code point; asked on ``connection``, in its transaction
    (nothing is asked where no text column is read from a relation). A server that cannot
    answer (a catalog unlike PostgreSQL's) is logged and taken to have none: every text
    dimension is then collated, as without startup."""
    relations: dict[int, dict[int, str]] = {}
    for index, name in enumerate(names):
        relation = result.ftable(index)
        if relation and result.ftype(index) in _TEXT_TYPES:
            relations.setdefault(relation, {})[result.ftablecol(index)] = name
    found: set[str] = set()
    try:
        for relation, columns in relations.items():
            cursor = await connection.execute(_COLLATIONS, (relation, list(columns)))
            for attnum, provider, collate, locale in await cursor.fetchall():
                if orders_by_code_point(str(provider), collate, locale):
                    found.add(columns[int(attnum)])
    except psycopg.Error as error:
        log.warning("source: the columns' collations could not be read: %s", error)
        return frozenset()
    return frozenset(found)
