"""The dbt import, proved against MetricFlow's own answers on a project nobody here wrote.

dbt Labs' jaffle shop semantic-layer project (vendored in ``jaffle_sl``) is built with
dbt-duckdb from data ``jafgen`` generates (``dbt deps`` of its local packages, ``dbt seed``,
``dbt build``, which parses the project as ``dbt parse`` does) in a temporary directory;
``sutura import dbt`` writes its catalog, ``sutura check`` passes, and for every imported
metric — at every grain, by dimensions of its own model and of models one and two
relationships away, with a filter asked with the question (equal to a category, a range on a
number, a range on a day; ``mf query --where``), and the metrics whose filters cross a
relationship — sutura's answer
equals ``mf query --csv``'s on the same DuckDB file, cell for cell: every number exactly as
written (both write a float as its shortest decimal), where sutura's documented rules say
how its value follows from MetricFlow's — an average or a ratio written with six places,
rounded half to even; a derived metric combined exactly from its two metrics' values, which
MetricFlow combines in floating point (checked to be within a unit in the last place).

MetricFlow runs from its own virtual environment (``scripts/metricflow-env``; CI builds it and
names its ``bin`` in ``SUTURA_TEST_METRICFLOW``). Without one the test is skipped with the
reason, except under ``CI=true``, where it fails.
"""

import csv
import io
import json
import math
import operator
import os
import re
import shutil
from collections.abc import Callable
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from pathlib import Path
from typing import Final, NamedTuple

import pytest

from tests.transports.cli.running import run_in_process
from tests.workloads.jaffle_sl import HERE
from tests.workloads.jaffle_sl.building import STEP_SECONDS, Built, build, run

# Building the project and asking MetricFlow (about 2.5 s a question) take minutes, not seconds.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

_QUERY_SECONDS: Final = 120
_GRAINS: Final = ("day", "week", "month", "quarter", "year")
# Dimensions asked of each model's metrics, in turn: the model's own, one relationship away,
# two away (order items → orders → customers and locations), and two at once.
_DIMENSIONS: Final = {
    "orders": (
        ("customer__customer_type",),
        ("location__location_name",),
        ("order_id__is_food_order", "customer__customer_type"),
        ("order_id__is_drink_order",),
        (),
    ),
    "order_item": (
        ("product__product_type",),
        ("customer__customer_type",),
        ("location__location_name",),
        ("order_item__is_food_item", "order_id__is_drink_order"),
        (),
    ),
}
# A shared dimension is named from its own model (docs/import-dbt.md); MetricFlow names one two
# relationships away with both entities walked.
_TWO_AWAY: Final = {
    "customer__customer_type": "order_id__customer__customer_type",
    "customer__first_ordered_at": "order_id__customer__first_ordered_at",
    "location__location_name": "order_id__location__location_name",
}


class Filter(NamedTuple):
    """A question-time filter: sutura's flags, and MetricFlow's ``--where`` with ``{name}``
    where the dimension's name goes (a time dimension's with its grain) and ``{at}`` where a
    day inside the data's span goes."""

    dimension: str
    flags: tuple[str, ...]
    where: str


# Filters asked of each model's metrics, in turn: equal on a categorical dimension, a range on
# a number, a range on a day; a derived metric's on the dimensions both its metrics list.
_FILTERS: Final = {
    "orders": (
        Filter("customer__customer_type", ("--where", "{name}=new"), "{dim} = 'new'"),
        Filter(
            "order_id__order_total_dim",
            ("--where-between", "{name}", "10", "30"),
            "{dim} BETWEEN 10 AND 30",
        ),
        Filter("customer__first_ordered_at", ("--where", "{name}>={at}"), "{time} >= '{at}'"),
    ),
    "order_item": (
        Filter("customer__customer_type", ("--where", "{name}=returning"), "{dim} = 'returning'"),
        Filter("product__product_price", ("--where", "{name}>5"), "{dim} > 5"),
        Filter("order_id__ordered_at", ("--where", "{name}<{at}"), "{time} < '{at}'"),
    ),
    "derived": (
        Filter("order_id__is_food_order", ("--where", "{name}=true"), "{dim} = true"),
        Filter(
            "order_id__order_total_dim",
            ("--where-between", "{name}", "5.5", "20"),
            "{dim} BETWEEN 5.5 AND 20",
        ),
        Filter("order_id__ordered_at", ("--where", "{name}>={at}"), "{time} >= '{at}'"),
    ),
}


class Question(NamedTuple):
    metric: str
    grain: str
    by: tuple[str, ...]
    model: str = "derived"
    filter: Filter | None = None

    def theirs(self, name: str) -> str:
        """A dimension as MetricFlow names it for this question's metric."""
        return _TWO_AWAY.get(name, name) if self.model == "order_item" else name

    def flags(self, at: date) -> list[str]:
        if self.filter is None:
            return []
        given = {"name": self.filter.dimension, "at": at.isoformat()}
        return [flag.format(**given) for flag in self.filter.flags]

    def where(self, at: date) -> str | None:
        """The filter as MetricFlow's ``--where`` writes it: a dimension two relationships
        away is its entity and name with the first entity walked as ``entity_path``."""
        if self.filter is None:
            return None
        *path, entity, element = self.theirs(self.filter.dimension).split("__")
        name = f"'{entity}__{element}'"
        walked = f", entity_path={path!r}" if path else ""
        return self.filter.where.format(
            dim=f"{{{{ Dimension({name}{walked}) }}}}",
            time=f"{{{{ TimeDimension({name}, 'day'{walked}) }}}}",
            at=at.isoformat(),
        )


def _metricflow() -> Path:
    """The ``bin`` of MetricFlow's environment; skips without one, fails under CI."""
    named = os.environ.get("SUTURA_TEST_METRICFLOW")
    reason = (
        "MetricFlow's environment is absent: SUTURA_TEST_METRICFLOW does not name it"
        " (scripts/metricflow-env DIR builds one)"
        if not named
        else f"MetricFlow's environment {named} has no bin/mf"
        if not (Path(named) / "mf").is_file()
        else None
    )
    if reason is None:
        return Path(str(named))
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI requires MetricFlow: {reason}", pytrace=False)
    pytest.skip(f"skipped: {reason}")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The jaffle shop built with dbt-duckdb, and a sutura settings directory reading it."""
    return build(tmp_path_factory.mktemp("jaffle"), _metricflow())


def _imported(built: Built, capsys: pytest.CaptureFixture[str]) -> dict[str, str | None]:
    """Import and check; each imported metric with its model (None for a derived one)."""
    code, out, err = run_in_process(["import", "dbt", str(built.project)], built.config, capsys)
    assert (code, err) == (0, ""), out
    code, out, err = run_in_process(["check"], built.config, capsys)
    assert (code, err) == (0, ""), out
    metrics: dict[str, str | None] = {}
    for path in sorted((built.config / "catalog" / "metrics").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        model = re.search(r"^model: (\w+)$", text, re.MULTILINE)
        metrics[path.stem] = model.group(1) if model else None
    return metrics


def _questions(metrics: dict[str, str | None]) -> list[Question]:
    """Each metric by month alone, then at a grain and by dimensions taken in turn, then
    filtered at another grain by the filters taken in turn."""
    questions: list[Question] = []
    for n, (metric, model) in enumerate(sorted(metrics.items())):
        kind = model or "derived"
        questions.append(Question(metric, "month", (), kind))
        choices = _DIMENSIONS.get(kind, ((),))
        by = ("order_id__is_food_order",) if model is None else choices[n % len(choices)]
        questions.append(Question(metric, _GRAINS[n % len(_GRAINS)], by, kind))
        filters = _FILTERS[kind]
        grain = _GRAINS[(n + 2) % len(_GRAINS)]
        questions.append(Question(metric, grain, by[:1], kind, filters[n % len(filters)]))
    return questions


_MIDNIGHT: Final = re.compile(r"^(\d{4}-\d{2}-\d{2}) 00:00:00$")
_NUMBER: Final = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def _cell(text: str) -> str | Decimal:
    """One cell as both tools mean it: a day (MetricFlow writes its midnight), a boolean in
    one spelling, a number as the decimal it is written as (both write a float as the
    shortest decimal that reads back as it, so equal decimals are equal floats)."""
    day = _MIDNIGHT.match(text)
    if day:
        return day.group(1)
    if text in {"True", "False"}:
        return text.lower()
    if _NUMBER.match(text):
        return Decimal(text)
    return text


def _sutura(
    built: Built, q: Question, capsys: pytest.CaptureFixture[str]
) -> list[tuple[object, ...]]:
    start, end = built.span
    argv = ["query", q.metric, "--grain", q.grain, "--from", str(start), "--to", str(end)]
    argv += [f"--by={d}" for d in q.by] + q.flags(_midst(built)) + ["--format", "csv"]
    code, out, err = run_in_process(argv, built.config, capsys)
    assert (code, err) == (0, ""), (q, out)
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["period", *q.by, q.metric]
    return sorted(tuple(map(_cell, row)) for row in rows[1:])


def _metricflow_answers(
    built: Built, questions: list[tuple[Question, tuple[str, ...]]], out: Path
) -> list[Path]:
    """Each question asked by ``mf query --csv`` (MetricFlow's own command, run for every
    question in one process: ``jaffle_sl/mf_queries.py``), with the metrics it names beside
    the question's own; the CSV file of each."""
    files = [out / f"{n}.csv" for n in range(len(questions))]
    asked = [
        {
            "metrics": [q.metric, *also],
            "group_by": [f"metric_time__{q.grain}", *map(q.theirs, q.by)],
            "where": q.where(_midst(built)),
            "csv": str(f),
        }
        for (q, also), f in zip(questions, files, strict=True)
    ]
    (out / "questions.json").write_text(json.dumps(asked), encoding="utf-8")
    python = built.bin / "python"
    script = Path(__file__).parent / "jaffle_sl" / "mf_queries.py"
    seconds = _QUERY_SECONDS * len(questions)
    run([str(python), str(script), str(out / "questions.json")], built.project, built.env, seconds)
    return files


def _read_metricflow(
    q: Question, file: Path, metrics: tuple[str, ...]
) -> list[list[str | Decimal]]:
    """MetricFlow's rows: period, the question's dimensions, then each metric named."""
    with file.open(encoding="utf-8", newline="") as opened:
        rows = list(csv.reader(opened))
    header = rows[0]
    names = [f"metric_time__{q.grain}", *map(q.theirs, q.by), *metrics]
    # MetricFlow orders its columns its own way and names a time dimension with its grain.
    order = [
        next(i for i, h in enumerate(header) if h == name or h.startswith(f"{name}__"))
        for name in names
    ]
    return [[_cell(row[i]) for i in order] for row in rows[1:]]


_SIX: Final = Decimal("0.000001")


def _midst(built: Built) -> date:
    """A day in the middle of the data's span, which a filter on a day compares with."""
    start, end = built.span
    return start + (end - start) / 2


def _ratio(a: Decimal, b: Decimal) -> Decimal | None:
    return (a / b).quantize(_SIX, ROUND_HALF_EVEN) if b else None


_OPS: Final[dict[str, Callable[[Decimal, Decimal], Decimal | None]]] = {
    "sum": operator.add,
    "difference": operator.sub,
    "product": operator.mul,
    "ratio": _ratio,
}


class Expected(NamedTuple):
    """How sutura's value follows from MetricFlow's: as it is, written with six places (an
    average or a ratio), or combined exactly from the two metrics a derived one names."""

    also: tuple[str, ...]
    settle: Callable[[list[str | Decimal]], object]


def _expected(document: str) -> Expected:
    derived = re.search(r"^  op: (\w+)\n  of: \[(\w+), (\w+)\]$", document, re.MULTILINE)
    if derived is not None:
        op, first, second = derived.groups()

        def combined(row: list[str | Decimal]) -> object:
            a, b, theirs = row[-2], row[-1], row[-3]
            if theirs == "":  # a referent without rows in the group (revenue filled with 0)
                return ""
            assert isinstance(a, Decimal) and isinstance(b, Decimal), row
            exact = _OPS[op](a, b)
            # MetricFlow combines in floating point: within one unit in the last place.
            assert isinstance(theirs, Decimal) and exact is not None
            assert abs(float(theirs) - float(exact)) <= 2 * math.ulp(float(exact)), row
            return exact

        return Expected((first, second), combined)
    if "aggregate: avg" in document or "  ratio:" in document:
        return Expected(
            (),
            lambda row: row[-1].quantize(_SIX, ROUND_HALF_EVEN),  # type: ignore[union-attr]
        )
    return Expected((), lambda row: row[-1])


def test_every_imported_metric_answers_as_metricflow_does(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = _imported(built, capsys)
    assert len(metrics) == 12  # what the report counts (docs/import-dbt.md)
    documents = {
        name: (built.config / "catalog" / "metrics" / f"{name}.md").read_text(encoding="utf-8")
        for name in metrics
    }
    questions = _questions(metrics)
    expected = [_expected(documents[q.metric]) for q in questions]
    asked = [(q, e.also) for q, e in zip(questions, expected, strict=True)]
    files = _metricflow_answers(built, asked, tmp_path)
    mismatched = []
    for question, rule, file in zip(questions, expected, files, strict=True):
        ours = _sutura(built, question, capsys)
        rows = _read_metricflow(question, file, (question.metric, *rule.also))
        width = 1 + len(question.by)
        theirs = sorted(tuple([*row[:width], rule.settle(row)]) for row in rows)
        assert ours, question
        if ours != theirs:
            only_ours = [r for r in ours if r not in theirs][:3]
            only_theirs = [r for r in theirs if r not in ours][:3]
            mismatched.append((question, len(ours), len(theirs), only_ours, only_theirs))
    assert mismatched == []


def _with_semi_additive(built: Built, root: Path) -> Built:
    """A copy of the built project and its DuckDB file with ``jaffle_sl/semi`` added (measures
    with a ``non_additive_dimension``, which the template has none of) and built."""
    return _with_ours(built, root, "semi", ["build", "--select", "order_days"])


def _with_ours(built: Built, root: Path, folder: str, step: list[str]) -> Built:
    """A copy of the built project and its DuckDB file with ``jaffle_sl/<folder>`` added to its
    models, then ``dbt <step>`` run in it."""
    project, database = root / "project", root / "jaffle.duckdb"
    shutil.copytree(built.project, project)
    shutil.copyfile(built.project.parent / "jaffle.duckdb", database)
    profiles = (project / "profiles.yml").read_text(encoding="utf-8")
    (project / "profiles.yml").write_text(
        re.sub(r"path: .*", f"path: {database}", profiles), encoding="utf-8"
    )
    for added in (HERE / folder).iterdir():
        shutil.copyfile(added, project / "models" / added.name)
    env = {**built.env, "DBT_PROFILES_DIR": str(project)}
    run([str(built.bin / "dbt"), *step], project, env, STEP_SECONDS)
    config = root / "shop"
    config.mkdir()
    base = (built.config / "base.yaml").read_text(encoding="utf-8")
    (config / "base.yaml").write_text(
        re.sub(r"path: .*", f"path: {database}", base, count=1), encoding="utf-8"
    )
    return built._replace(project=project, config=config, env=env)


def _float_or_exact(ours: object, theirs: object) -> bool:
    """Equal cells; a sum of floats (DOUBLE) the two tools add in another order may differ in
    its last places, so a number written with a fraction is equal within 1e-12 of it."""
    if ours == theirs:
        return True
    if isinstance(ours, Decimal) and isinstance(theirs, Decimal):
        return abs(ours - theirs) <= abs(theirs) * Decimal("1e-12")
    return False


def test_a_non_additive_measure_answers_as_metricflow_does(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    semi = _with_semi_additive(built, tmp_path / "semi")
    metrics = _imported(semi, capsys)
    for name, rule in (("closing_total", "last"), ("opening_orders", "first")):
        document = (semi.config / "catalog" / "metrics" / f"{name}.md").read_text(encoding="utf-8")
        assert f"semi_additive: {{rule: {rule}, entity: [customer_id" in document
    assert metrics["closing_total"] == "order_days"
    questions = [
        Question("closing_total", "month", (), "order_days"),
        Question("closing_total", "month", ("customer__customer_type",), "order_days"),
        Question("opening_orders", "quarter", ("location__location_name",), "order_days"),
        Question("opening_orders", "week", (), "order_days"),
    ]
    out = tmp_path / "answers"
    out.mkdir()
    files = _metricflow_answers(semi, [(q, ()) for q in questions], out)
    for question, file in zip(questions, files, strict=True):
        ours = _sutura(semi, question, capsys)
        theirs = sorted(tuple(row) for row in _read_metricflow(question, file, (question.metric,)))
        assert [r[:-1] for r in ours] == [r[:-1] for r in theirs], question
        assert all(_float_or_exact(a[-1], b[-1]) for a, b in zip(ours, theirs, strict=True)), (
            question
        )


# Derived metrics of ours over the template's metrics (jaffle_sl/derived): each the exact
# arithmetic of its expr on the leaves MetricFlow answers beside it.
_OURS: Final[dict[str, tuple[tuple[str, str], Callable[[Decimal, Decimal], Decimal]]]] = {
    "order_margin_over_cost": (("order_total", "order_cost"), lambda t, c: (t - c) / c),
    "food_order_pct": (("food_orders", "orders"), lambda f, o: 100 * f / o),
    "order_total_per_cost_k": (("order_total", "order_cost"), lambda t, c: t / c / 1000),
    "gross_margin_pct": (("revenue", "order_cost"), lambda r, c: (r - c) * 100 / r),
}


def _exactly(name: str) -> Callable[[list[str | Decimal]], object]:
    """sutura's value from MetricFlow's row (the metric, then its two leaves): the exact
    arithmetic of the expr, written with six places; MetricFlow's own within a few units in
    the last place of it (it computes in floating point, an op at a time)."""
    _, compute = _OURS[name]

    def settle(row: list[str | Decimal]) -> object:
        theirs, a, b = row[-3], row[-2], row[-1]
        if a == "" or b == "" or b == 0:
            return ""
        assert isinstance(a, Decimal) and isinstance(b, Decimal), row
        with localcontext(prec=80):
            exact = compute(a, b)
        assert isinstance(theirs, Decimal), row
        assert abs(float(theirs) - float(exact)) <= 4 * math.ulp(float(exact)), row
        return exact.quantize(_SIX, ROUND_HALF_EVEN)

    return settle


def test_nested_and_scaled_derived_metrics_answer_as_metricflow_does(
    built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours = _with_ours(built, tmp_path / "derived", "derived", ["parse"])
    metrics = _imported(ours, capsys)
    assert all(metrics[name] is None for name in _OURS)  # each a derived metric
    assert "order_margin_over_cost__part_1" in metrics  # (total - cost), its part
    questions = [
        *(Question(name, "month", ()) for name in _OURS),
        Question("order_margin_over_cost", "quarter", ("order_id__is_food_order",)),
        Question("food_order_pct", "week", ("order_id__is_drink_order",)),
        Question("order_total_per_cost_k", "year", ("customer__customer_type",)),
    ]
    out = tmp_path / "answers"
    out.mkdir()
    asked: list[tuple[Question, tuple[str, ...]]] = [(q, _OURS[q.metric][0]) for q in questions]
    files = _metricflow_answers(ours, asked, out)
    for (question, also), file in zip(asked, files, strict=True):
        rows = _read_metricflow(question, file, (question.metric, *also))
        width = 1 + len(question.by)
        settle = _exactly(question.metric)
        theirs = sorted(tuple([*row[:width], settle(row)]) for row in rows)
        assert theirs, question
        assert _sutura(ours, question, capsys) == theirs, question
