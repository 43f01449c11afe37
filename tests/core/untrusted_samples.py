"""Values the untrusted-content tests render: provenance, answers and a small pinned catalog.

The catalog's table and column names (``fact_sales_2024``, ``amt_eur_net`` ...) differ from
its metric and dimension names, so a test can tell when a table or column name leaks.
"""

import datetime
from collections.abc import Sequence

from sutura.core.definitions.knowledge import (
    Caveat,
    GlossaryTerm,
    Knowledge,
    MeansMetric,
    MeansValue,
    NotDefined,
    WorkedExample,
)
from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    Catalog,
    Column,
    Dimension,
    Metric,
    Model,
    SimpleMeasure,
)
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.answer import Answer, ExecutedAs, MetricDigest, Provenance
from sutura.core.nouns.grain import Grain
from sutura.core.nouns.question import FilterEq, Question, Range

DIGEST = "3f2a" * 16
METRIC_DIGEST = "9c1e" * 16
TABLE_AND_COLUMN_NAMES = (
    "fact_sales_2024",
    "amt_eur_net",
    "booked_ts",
    "rgn_cd",
    "chan_cd",
    "tbl_src",
)


def provenance(
    version: str = "v7", source: str = "warehouse", metric: str = "revenue"
) -> Provenance:
    """A provenance with hex digests and one metric read from one source."""
    return Provenance(
        time_zone="UTC",
        definition_version=version,
        definition_digest=DIGEST,
        metric_digests=[MetricDigest(metric=metric, digest=METRIC_DIGEST)],
        executed_as=[ExecutedAs(source=source, posture="shared-service-user")],
    )


def answer(columns: Sequence[str], rows: Sequence[Sequence[str | None]]) -> Answer:
    """An answer with the sample provenance."""
    return Answer(columns=list(columns), rows=[list(row) for row in rows], provenance=provenance())


def pinned(
    metric_description: str = "Revenue net of refunds.",
    dimension_description: str = "Where the customer is billed.",
    values: tuple[str, ...] = ("EU", "US"),
    metric_name: str = "revenue",
    knowledge: Knowledge | None = None,
) -> PinnedDefinitions:
    """One metric with a dimension that lists its values and one that does not."""
    model = Model(
        name="sales",
        source="tbl_src",
        table=("fact_sales_2024",),
        columns=tuple(Column(name=n) for n in ("amt_eur_net", "booked_ts", "rgn_cd", "chan_cd")),
    )
    metric = Metric(
        name=metric_name,
        model="sales",
        measure=SimpleMeasure(term=AggregateTerm(aggregate=Aggregate.SUM, column="amt_eur_net")),
        time_column="booked_ts",
        grains=(Grain.DAY, Grain.MONTH),
        dimensions=(
            Dimension(
                name="region", column="rgn_cd", values=values, description=dimension_description
            ),
            Dimension(name="channel", column="chan_cd"),
        ),
        description=metric_description,
    )
    catalog = Catalog(
        models=(model,), relationships=(), metrics=(metric,), knowledge=knowledge or Knowledge()
    )
    return PinnedDefinitions(
        time_zone="UTC",
        version="v7",
        digest=DIGEST,
        metric_digests={metric_name: METRIC_DIGEST},
        catalog=catalog,
    )


KNOWLEDGE_NAMES = ("takings", "turnover", "EU takings", "late_bookings", "churn", "attrition")
"""Terms, phrases and names of :func:`knowledge`: shown whatever the prose setting."""


def knowledge(body: str = "Written by an author.") -> Knowledge:
    """One document of each knowledge kind about ``revenue``, each body ``<kind>: <body>``."""
    question = Question(
        metrics=["revenue"],
        grain=Grain.MONTH,
        range=Range(start=datetime.date(2024, 1, 1), end=datetime.date(2024, 4, 1)),
        dimensions=["channel"],
        filters=[FilterEq(dimension="region", value="EU")],
    )
    return Knowledge(
        glossary=(
            GlossaryTerm(
                term="EU takings",
                synonyms=(),
                means=MeansValue(metric="revenue", dimension="region", value="EU"),
                description="term: " + body,
            ),
            GlossaryTerm(
                term="takings",
                synonyms=("turnover",),
                means=MeansMetric(metric="revenue"),
                description="term: " + body,
            ),
        ),
        caveats=(Caveat(name="late_bookings", about=("revenue",), description="caveat: " + body),),
        not_defined=(
            NotDefined(phrase="churn", synonyms=("attrition",), description="phrase: " + body),
        ),
        examples=(
            WorkedExample(
                name="eu_revenue_by_channel",
                asked=("How much did EU customers buy per channel, month by month?",),
                question=question,
                description="example: " + body,
            ),
        ),
    )
