"""``list_values`` on a 1M-row dimension, beside the raw ``SELECT DISTINCT`` it stands for.

One table of 1,000,000 rows whose ``label`` takes 100,000 distinct values (``label-000000`` …),
served by DuckDB and, when a server answers, PostgreSQL (a scratch database, dropped
afterwards) and Spark (``SUTURA_TEST_SPARK``). On each engine, warm, the answer cache off:

- the first page (100 values) through :class:`~sutura.boundary.service.Service` (the one call
  every surface makes: compile, run, page, both halves), beside the raw ``SELECT DISTINCT label
  … ORDER BY label LIMIT 101`` run bare on the engine's own connection;
- a search (``ABEL-0999``: 100 values match), beside the raw statement with ``LOWER(…) LIKE``
  (the same on every engine).

The bound: a page is cut at the call's deadline (``limits.deadline_seconds``, 30 s here), so
its time is bounded whatever the engine (the goal column states the bound). An engine
that is absent is named ``not measured: <reason>`` (its section: ``values_postgres``,
``values_spark``). ``python -m bench.values`` prints the DuckDB section alone.
"""

import json
import os
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Final

import anyio
import duckdb

from bench.serving import serving
from bench.table import Figure, median_seconds, render, short
from sutura.boundary.service import Service
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Answered

ROWS: Final = 1_000_000
DISTINCT: Final = 100_000
REPEAT: Final = 9
TABLE: Final = "value_bench"
FIRST_PAGE: Final = {"metric": "value_rows", "dimension": "label", "page_size": 100}
SEARCH: Final = {**FIRST_PAGE, "search": "ABEL-0999"}
GOAL: Final = "≤ 30 s"
"""The bound: a page past the call's deadline is refused (``deadline_exceeded``), never waited
for."""

_CATALOG: Final = {
    "value_bench.md": f"---\nkind: model\nname: value_bench\nsource: main\ntable: {TABLE}\n"
    "columns: [day, label, n]\n---\n",
    "value_rows.md": "---\nkind: metric\nname: value_rows\nmodel: value_bench\nmeasure:\n"
    "  simple:\n    aggregate: sum\n    column: n\ntime_column: day\ngrains: [day]\n"
    "dimensions:\n  - name: label\n    column: label\naudience: open\n---\n",
}
RAW_FIRST: Final = f"SELECT DISTINCT label FROM {TABLE} ORDER BY label LIMIT 101"
RAW_SEARCH: Final = (
    f"SELECT DISTINCT label FROM {TABLE} WHERE LOWER(label) LIKE '%abel-0999%'"
    " ORDER BY label LIMIT 101"
)


def rows() -> int:
    """The table's rows (a smoke run: 10,000)."""
    return 10_000 if short() else ROWS


def data_file() -> Path:
    """The DuckDB file holding the table, written once per machine under the temp directory."""
    target = Path(tempfile.gettempdir()) / f"sutura-bench-values-{rows()}.duckdb"
    if not target.exists():
        partial = target.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        with duckdb.connect(str(partial)) as connection:
            connection.execute(
                f"CREATE TABLE {TABLE} AS SELECT DATE '2024-01-01' + (i % 365)::INTEGER AS day,"
                f" 'label-' || lpad(((i * 7919) % {DISTINCT})::VARCHAR, 6, '0') AS label,"
                f" (i % 10)::INTEGER AS n FROM range({rows()}) AS t(i)"
            )
        partial.rename(target)
    return target


def settings_dir(work: Path, source: dict[str, object]) -> Path:
    """A settings directory whose one source ``main`` is ``source`` (its cache off)."""
    catalog = work / "catalog"
    catalog.mkdir(parents=True, exist_ok=True)
    for name, text in _CATALOG.items():
        (catalog / name).write_text(text, encoding="utf-8")
    document = {
        "catalog": {"dir": str(catalog), "version": "bench-values"},
        "sources": {"main": source},
        "security": {"identity": "single-user", "single_user_because": "a benchmark"},
        "limits": {"deadline_seconds": 30},
    }
    (work / "base.yaml").write_text(json.dumps(document), encoding="utf-8")
    return work


async def lookup_ms(
    config: Path, secrets: dict[str, str] | None = None
) -> tuple[float, float, int, int]:
    """The first page's and the search's median milliseconds through ``Service.call``, and
    how many values each returned."""
    async with serving(config, secrets) as service:
        first = await _timed_page(service, FIRST_PAGE)
        searched = await _timed_page(service, SEARCH)
    return first[0], searched[0], first[1], searched[1]


async def _timed_page(service: Service, arguments: dict[str, object]) -> tuple[float, int]:
    caller = Caller.local(request_id=uuid.uuid4().hex, surface="bench")
    reply = await service.call(Capability.LIST_VALUES, arguments, caller)
    assert isinstance(reply, Answered), reply
    count = len(reply.halves.structured_object()["values"])
    times = []
    for _ in range(3 if short() else REPEAT):
        began = time.perf_counter()
        await service.call(Capability.LIST_VALUES, arguments, caller)
        times.append(time.perf_counter() - began)
    times.sort()
    return 1000 * times[len(times) // 2], count


def figures(
    engine: str, ours: tuple[float, float, int, int], raw: Callable[[str], object]
) -> list[Figure]:
    """The two figures of one engine, each beside its raw statement run bare."""
    repeat = 3 if short() else REPEAT
    raw_first = 1000 * median_seconds(lambda: raw(RAW_FIRST), repeat)
    raw_search = 1000 * median_seconds(lambda: raw(RAW_SEARCH), repeat)
    size = f"{rows() // 1000}k rows, {DISTINCT // 1000 if not short() else '≤10'}k values"
    return [
        Figure(
            area="values",
            measure=f"{engine}: first page (100), {size}",
            ours=ours[0],
            reference=raw_first,
            unit="ms",
            goal=GOAL,
            reference_name="raw SELECT DISTINCT … LIMIT 101",
        ),
        Figure(
            area="values",
            measure=f"{engine}: search ({ours[3]} match), {size}",
            ours=ours[1],
            reference=raw_search,
            unit="ms",
            goal=GOAL,
            reference_name="raw SELECT DISTINCT … LOWER LIKE",
        ),
    ]


def measure() -> list[Figure]:
    """DuckDB: ``list_values`` beside the raw statement, on the 1M-row table."""
    data = data_file()
    with tempfile.TemporaryDirectory() as work:
        config = settings_dir(Path(work), {"kind": "duckdb", "path": str(data)})
        ours = anyio.run(lookup_ms, config)
    with duckdb.connect(str(data), read_only=True) as connection:
        return figures("DuckDB", ours, lambda sql: connection.execute(sql).fetchall())


if __name__ == "__main__":
    os.environ.setdefault("SUTURA_BENCH", "values")
    print(render(measure()))
