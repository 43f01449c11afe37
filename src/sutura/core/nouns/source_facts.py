"""What a statement is compiled against besides the catalog: the facts of the source it runs
on, the dialect it speaks, the columns it holds as fixed-length text, and the time zone its
sessions run in.

A catalog declares a column's type as its author wrote it; the source may hold it otherwise. A
column PostgreSQL or Spark holds as ``CHAR(n)`` comes back blank-padded to ``n`` whatever the
catalog declares (a warehouse loaded from TPC-H's DDL holds ``VARCHAR``-declared names so), so
the compiler reads it without the padding (``RTRIM``), whether or not the catalog declares its
type (``core/sql/expression.py``). Which columns those are is learnt when startup describes each
model's table; a statement compiled without opening any
source (``sutura compile``) knows the dialect alone.

The zone is ``catalog.time_zone`` as the boundary reads it (a ``tzinfo``: the core reads no zone
database), so a wall time compared with an instant is resolved by one rule on every engine
(:func:`sutura.core.sql.reads.instant_of`); without it, the engine reads such a wall time.

>>> name, comment = (ModelColumn(model="nation", column=c) for c in ("n_name", "n_comment"))
>>> facts = SourceFacts(dialect=Dialect.POSTGRES, fixed_length=frozenset({name}))
>>> name in facts.fixed_length, comment in facts.fixed_length
(True, False)
"""

import datetime

from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.frozen import Frozen


class ModelColumn(Frozen, frozen=True):
    """A column of a model, by the names the catalog gives them."""

    model: str
    column: str


class SourceFacts(Frozen, frozen=True):
    """The source a statement is compiled for: its dialect, the models' columns it holds as
    ``CHAR(n)``, and those it holds as text of any kind (``text``: a dimension over one is
    ordered by code point, whether or not the catalog declares its type); both learnt at
    startup, none when no source was opened; the text columns it orders by code point as
    they are (``code_point``: PostgreSQL, a column whose collation orders as ``"C"`` does, so
    a dimension over one is selected without ``COLLATE "C"`` and an index on it serves the
    order; learnt at startup, none otherwise: every text dimension is collated); and the zone
    its sessions run in (``catalog.time_zone``; None where the boundary gave none)."""

    dialect: Dialect
    fixed_length: frozenset[ModelColumn] = frozenset()
    text: frozenset[ModelColumn] = frozenset()
    code_point: frozenset[ModelColumn] = frozenset()
    zone: datetime.tzinfo | None = None
