"""The official answer of a TPC-H query on one engine (see :mod:`tests.workloads.oracle`)."""

from tests.workloads.engines import Cells, Loaded
from tests.workloads.oracle import answer
from tests.workloads.tpch.queries import QUERIES, OfficialQuery
from tests.workloads.tpch.schema import TABLES


def official_answer(query: OfficialQuery | str, on: Loaded) -> Cells:
    """The answer of ``query`` (or the query of that name: ``"Q5"``) on the engine ``on``
    names, as canonical text cells: what sutura's answer to the same question must equal."""
    chosen = QUERIES[query] if isinstance(query, str) else query
    return answer(chosen.text, on, TABLES)
