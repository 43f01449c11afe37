"""The same question answered by MetricFlow and by sutura, on the jaffle shop sutura imported.

dbt Labs' jaffle shop (``tests/workloads/jaffle_sl``) is built with dbt-duckdb and imported
(``sutura import dbt``); then one question — order totals per month by customer type, a join
from orders to customers — is asked of each, warm:

- MetricFlow in its own process (its ``query`` command, the one ``mf query`` runs, after a
  first call), beside sutura in-process (``ask_metric`` on an open service);
- ``mf query`` as a person runs it (a process per question, reading the project each time),
  beside ``ask_metric`` over MCP stdio on a running ``sutura mcp``.

MetricFlow runs from its own environment (``SUTURA_TEST_METRICFLOW``, which
``scripts/metricflow-env`` builds); without one the section is not measured, with the reason.
"""

import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import anyio
from tests.workloads.jaffle_sl.building import Built, build, run

from bench.mcp import HANDSHAKE, SUTURA, _line, _spawned, _until
from bench.serving import ask, serving
from bench.table import Figure, NotMeasuredError, short
from sutura.core.nouns.question import decode_question_json

MF_QUERIES = str(Path(__file__).parents[1] / "tests" / "workloads" / "jaffle_sl" / "mf_queries.py")
METRIC = "order_total"
BY = "customer__customer_type"


def _metricflow() -> Path:
    named = os.environ.get("SUTURA_TEST_METRICFLOW")
    if not named or not (Path(named) / "mf").is_file():
        raise NotMeasuredError(
            "MetricFlow's environment is absent (SUTURA_TEST_METRICFLOW;"
            " scripts/metricflow-env DIR builds one)"
        )
    return Path(named)


def _question(built: Built) -> str:
    start, end = built.span
    return json.dumps(
        {
            "metrics": [METRIC],
            "grain": "month",
            "range": {"start": str(start), "end": str(end)},
            "dimensions": [BY],
        }
    )


def _metricflow_warm(built: Built, work: Path, repeat: int) -> float:
    questions = [{"metrics": [METRIC], "group_by": ["metric_time__month", BY], "csv": ""}]
    questions[0]["csv"] = str(work / "mf.csv")
    (work / "q.json").write_text(json.dumps(questions), encoding="utf-8")
    argv = [str(built.bin / "python"), MF_QUERIES, str(work / "q.json"), str(repeat)]
    out = run(argv, built.project, built.env, 600)
    medians: list[float] = json.loads(out.strip().splitlines()[-1])
    return medians[0]


def _metricflow_command(built: Built, work: Path, repeat: int) -> float:
    argv = [str(built.bin / "mf"), "query", "--metrics", METRIC, "--group-by"]
    argv += [f"metric_time__month,{BY}", "--csv", str(work / "cli.csv"), "--quiet"]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(
            argv, cwd=built.project, env=built.env, check=True, timeout=300, capture_output=True
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _sutura_warm(built: Built, repeat: int) -> float:
    question = decode_question_json(_question(built)).unwrap()

    async def measured() -> float:
        async with serving(built.config) as service:
            loop_times = []
            await ask(service, question)
            for _ in range(repeat):
                started = time.perf_counter()
                await ask(service, question)
                loop_times.append(time.perf_counter() - started)
            return statistics.median(loop_times)

    return anyio.run(measured)


def _sutura_mcp(built: Built, repeat: int) -> float:
    arguments = json.loads(_question(built))
    times = []
    with _spawned([str(SUTURA), "mcp"], built.config) as process:
        stdin, stdout = process.stdin, process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(HANDSHAKE)
        stdin.flush()
        _until(stdout, 1)
        for request_id in range(2, 3 + repeat):
            params = {"name": "ask_metric", "arguments": arguments}
            message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
            started = time.perf_counter()
            stdin.write(_line(message))
            stdin.flush()
            assert "result" in _until(stdout, request_id)
            if request_id > 2:  # the first call warms up
                times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure() -> list[Figure]:
    """MetricFlow and sutura on one question of the imported jaffle shop, side by side."""
    metricflow = _metricflow()
    repeat = 3 if short() else 20
    with tempfile.TemporaryDirectory(prefix="sutura-bench-dbt-") as directory:
        work = Path(directory)
        built = build(work / "jaffle", metricflow)
        environ = {**os.environ, "SUTURA_CONFIG_DIR": str(built.config)}
        for step in (["import", "dbt", str(built.project)], ["check"]):
            subprocess.run(
                [str(SUTURA), *step], env=environ, check=True, timeout=300, capture_output=True
            )
        mf_warm = _metricflow_warm(built, work, repeat)
        ours_warm = _sutura_warm(built, repeat)
        mf_command = _metricflow_command(built, work, 3 if short() else 5)
        ours_mcp = _sutura_mcp(built, repeat)
    name = "jaffle, order_total by month × type"
    return [
        Figure(
            "dbt",
            f"{name}, warm",
            ours_warm * 1e3,
            mf_warm * 1e3,
            "ms",
            "≤ 1×",
            "MetricFlow's query, warm in its process",
        ),
        Figure(
            "dbt",
            f"{name}, MCP stdio, warm",
            ours_mcp * 1e3,
            mf_command * 1e3,
            "ms",
            "≤ 1×",
            "mf query --csv, a process per question",
        ),
    ]
