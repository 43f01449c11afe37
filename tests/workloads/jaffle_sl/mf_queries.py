"""Many ``mf query --csv`` commands in one MetricFlow process (run by MetricFlow's Python).

``python mf_queries.py QUESTIONS.json [REPEAT]`` in a dbt project directory: each item of
the JSON list is ``{"metrics": [...], "group_by": [...], "where": TEXT?, "csv": PATH}``; each
of them is asked by MetricFlow's own ``query`` command (dbt-metricflow's click command, the one
``mf query`` runs) with ``--where TEXT`` when given and ``--csv PATH``, so every file is what
``mf query --csv`` writes. One process sets MetricFlow up once (reading the dbt project and
its manifest), where ``mf`` does it for every question: about 2.5 s each on an idle machine.
With ``REPEAT`` (``make bench``), each question is asked once more to warm up and then
``REPEAT`` times, and the median seconds of each are printed as a JSON list. Imported only by
that interpreter, never by the tests.
"""

import contextlib
import json
import statistics
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    """Ask every question of the file ``argv[0]``; 0 when all were answered."""
    from dbt_metricflow.cli.cli_configuration import (  # type: ignore[import-not-found]
        CLIConfiguration,
    )
    from dbt_metricflow.cli.main import query  # type: ignore[import-not-found]

    config = CLIConfiguration()
    questions = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    repeat = int(argv[1]) if len(argv) > 1 else 0
    medians = []
    for question in questions:
        args = ["--metrics", ",".join(question["metrics"]), "--csv", question["csv"], "--quiet"]
        if question["group_by"]:
            args += ["--group-by", ",".join(question["group_by"])]
        if question.get("where"):
            args += ["--where", question["where"]]
        times = []
        for _ in range(1 + repeat):
            started = time.perf_counter()
            query.main(args=args, obj=config, standalone_mode=False)
            times.append(time.perf_counter() - started)
        if not Path(question["csv"]).is_file():
            # ``--quiet`` hides why; asked once more without it, MetricFlow's own account of
            # the question lands on stderr, which the failure shows. Still a failure.
            print(f"no answer to {question}; asked again without --quiet:", file=sys.stderr)
            with contextlib.redirect_stdout(sys.stderr):
                loud = [arg for arg in args if arg != "--quiet"]
                query.main(args=loud, obj=config, standalone_mode=False)
            return 1
        medians.append(statistics.median(times[1:]) if repeat else times[0])
    if repeat:
        print(json.dumps(medians))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
