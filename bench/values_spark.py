"""``list_values`` on Spark: the 1M-row table of :mod:`bench.values` loaded into the Spark
Connect server ``SUTURA_TEST_SPARK`` names, beside the raw ``SELECT DISTINCT`` run bare on a
session of the same server. Without the client or a server named, the section is not
measured, and says why (a benchmark starts no Spark server of its own).
"""

import importlib.util
import os
import tempfile
from pathlib import Path

import anyio

from bench.table import Figure, NotMeasuredError, render
from bench.values import data_file, figures, lookup_ms, settings_dir


def measure() -> list[Figure]:
    """Spark: ``list_values`` beside the raw statement; not measured without a server."""
    if importlib.util.find_spec("pyspark") is None:
        raise NotMeasuredError("the Spark Connect client is not installed (sutura[spark])")
    remote = os.environ.get("SUTURA_TEST_SPARK", "")
    if not remote.startswith("sc://"):
        raise NotMeasuredError("no Spark Connect server named (SUTURA_TEST_SPARK=sc://host:port)")
    from tests.spark_server import load_tables, session

    data = data_file()
    load_tables(data, remote)
    with tempfile.TemporaryDirectory() as work:
        config = settings_dir(Path(work), {"kind": "spark", "remote": remote})
        ours = anyio.run(lookup_ms, config)
    spark = session(remote)
    return figures("Spark", ours, lambda sql: spark.sql(sql).toArrow())


if __name__ == "__main__":
    print(render(measure()))
