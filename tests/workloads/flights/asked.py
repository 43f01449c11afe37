"""The questions a new user asks of the flight data, answered without touching its schema: the
catalog (``catalog/``) computes what the tables do not hold, and each answer equals a
hand-written statement on the same engine, cell for cell.

- the share of flights that left more than 15 minutes late (a ratio of two counts, each with
  its own ``where``);
- cancelled flights: those without a departure time (``is_null``);
- flights by weekday and by hour of day (date parts of an instant, in the catalog's time zone,
  New York);
- the median departure delay (interpolated exactly: a delay in whole minutes has a median of
  scale 1);
- the weather in the hour a flight was to leave, joined on the airport and the hour (a
  relationship of two key columns): delays when it rained, and by visibility.

Every answer here is of 2013 (grain ``year``); its period column is left out of the comparison.
"""

from pathlib import Path
from typing import Final

import anyio

from sutura.core.nouns.dialect import Dialect
from tests.workloads.engines import Loaded, deployment, dialect_of
from tests.workloads.flights.schema import TABLES
from tests.workloads.oracle import answer

CATALOG: Final = Path(__file__).with_name("catalog")
TIME_ZONE: Final = "America/New_York"
_YEAR: Final = {"start": "2013-01-01", "end": "2014-01-01"}
_WEATHER: Final = (
    "from flights as f left join weather as w on f.origin = w.origin and f.time_hour = w.time_hour"
)


class Asked:
    """One question and the statement that answers it, written once or per dialect."""

    def __init__(self, fields: dict[str, object], *texts: str | dict[Dialect, str]) -> None:
        self.fields = {"grain": "year", "range": _YEAR, **fields}
        self._text = texts[0]

    def oracle(self, dialect: Dialect) -> str:
        """The hand-written statement for ``dialect``."""
        text = self._text
        return text if isinstance(text, str) else text[dialect]


_WEEKDAY: Final = {
    Dialect.DUCKDB: "isodow(make_date(year, month, day))",
    Dialect.POSTGRES: "CAST(extract(isodow FROM make_date(year, month, day)) AS INTEGER)",
    Dialect.SPARK: "(dayofweek(make_date(year, month, day)) + 5) % 7 + 1",
}
_MEDIAN: Final = {
    Dialect.DUCKDB: "quantile_cont(dep_delay, 0.5)",
    Dialect.POSTGRES: "percentile_cont(0.5) WITHIN GROUP (ORDER BY dep_delay)",
    Dialect.SPARK: "percentile(dep_delay, 0.5)",
}

QUESTIONS: Final = {
    "delayed_share_by_carrier": Asked(
        {"metrics": ["delayed_share"], "dimensions": ["carrier"]},
        "select carrier, sum(case when dep_delay > 15 then 1 else 0 end) / count(dep_delay)"
        " as delayed_share from flights group by carrier order by carrier",
    ),
    "cancelled_flights_by_origin": Asked(
        {"metrics": ["cancelled_flights", "departures"], "dimensions": ["origin"]},
        "select origin, sum(case when dep_time is null then 1 else 0 end), count(*)"
        " from flights group by origin order by origin",
    ),
    "departures_by_weekday": Asked(
        {"metrics": ["departures"], "dimensions": ["weekday"]},
        {
            dialect: f"select {weekday} as weekday, count(*) from flights group by 1 order by 1"
            for dialect, weekday in _WEEKDAY.items()
        },
    ),
    "departures_by_hour_of_day": Asked(
        {"metrics": ["departures"], "dimensions": ["hour_of_day"]},
        "select hour, count(*) from flights group by hour order by hour",
    ),
    "median_departure_delay_by_origin": Asked(
        {"metrics": ["median_departure_delay"], "dimensions": ["origin"]},
        {
            dialect: f"select origin, {median} from flights group by origin order by origin"
            for dialect, median in _MEDIAN.items()
        },
    ),
    "mean_departure_delay_when_it_rained": Asked(
        {"metrics": ["mean_departure_delay"], "dimensions": ["weather"]},
        "select case when w.precip > 0 then 'rain' else 'dry' end as weather,"
        f" avg(f.dep_delay) as mean {_WEATHER} group by 1 order by 1",
    ),
    "mean_departure_delay_by_visibility": Asked(
        {"metrics": ["mean_departure_delay"], "dimensions": ["visibility"]},
        "select case when w.visib < 2 then 'poor' when w.visib < 5 then 'fair'"
        " when w.visib >= 5 then 'clear' end as visibility,"
        f" avg(f.dep_delay) as mean {_WEATHER} group by 1 order by 1 nulls last",
    ),
    "delayed_share_in_the_rain_from_jfk": Asked(
        {
            "metrics": ["delayed_share"],
            "dimensions": ["weather"],
            "filters": [{"op": "eq", "dimension": "origin", "value": "JFK"}],
        },
        "select case when w.precip > 0 then 'rain' else 'dry' end as weather,"
        " sum(case when f.dep_delay > 15 then 1 else 0 end) / count(f.dep_delay) as share"
        f" {_WEATHER} where f.origin = 'JFK' group by 1 order by 1",
    ),
}
"""Each question, by name, with the statement that answers it."""


async def sutura_answers(environ: dict[str, str]) -> dict[str, list[list[str | None]]]:
    """sutura's answer to every question, from one service started with ``environ``, each
    without its period column; the test fails on anything but an answer."""
    from sutura.api import outcome_of, question
    from sutura.core.nouns.answer import Answer
    from sutura.core.tool.capability import Capability
    from tests.services import call, serving

    answers: dict[str, list[list[str | None]]] = {}
    async with serving(environ) as service:
        for name, asked in QUESTIONS.items():
            reply = await call(service, Capability.ASK_METRIC, question(asked.fields).unwrap())
            outcome = outcome_of(reply)
            assert isinstance(outcome, Answer), (name, outcome)
            assert {row[0] for row in outcome.rows} == {"2013-01-01"}, name
            answers[name] = [list(row[1:]) for row in outcome.rows]
    return answers


async def expect_hand_written_answers(on: Loaded, settings: Path) -> None:
    """Every question's answer from sutura over ``on`` equals its statement's there."""
    environ = deployment(settings, CATALOG, on, time_zone=TIME_ZONE)
    with anyio.fail_after(240):
        answers = await sutura_answers(environ)
    for name, asked in QUESTIONS.items():
        expected = answer(asked.oracle(dialect_of(on)), on, TABLES)
        assert expected.rows, name
        assert answers[name] == expected.rows, name
