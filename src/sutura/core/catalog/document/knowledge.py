"""Written knowledge documents to validated values: glossary, caveat, not_defined, example.

Each document is checked on its own here (names, words, one-of forms, repeats, the example's
question decoded by the question's own decoder); what it refers to — metrics, dimensions,
values, and whether the example's question would be answered — is checked across the catalog
in ``check_knowledge``.
"""

from returns.pipeline import is_successful

from sutura.core.catalog.document.build import Checker
from sutura.core.catalog.document.written import (
    WrittenCaveat,
    WrittenExample,
    WrittenGlossary,
    WrittenMeans,
    WrittenNotDefined,
)
from sutura.core.catalog.error import quoted
from sutura.core.definitions.knowledge import (
    Caveat,
    GlossaryTerm,
    Means,
    MeansMetric,
    MeansValue,
    NotDefined,
    WorkedExample,
)
from sutura.core.nouns.question import convert_written_question


def same_words(phrase: str) -> str:
    """How phrases are compared: case folded, runs of spaces as one (never how they are shown).

    >>> same_words("Net  Sales") == same_words("net sales")
    True
    """
    return " ".join(phrase.casefold().split())


def build_glossary(check: Checker, written: WrittenGlossary, body: str) -> GlossaryTerm:
    """A :class:`GlossaryTerm` from its written document."""
    term = check.phrase("term", written.term)
    return GlossaryTerm(
        term=term,
        synonyms=_synonyms(check, term, written.synonyms),
        means=_means(check, written.means),
        description=body,
    )


def build_caveat(check: Checker, written: WrittenCaveat, body: str) -> Caveat:
    """A :class:`Caveat` from its written document; it is about at least one metric."""
    if not written.about:
        check.fail("about", "a caveat is about at least one metric: list {metric: <name>}")
    about = [check.name(f"about[{i}].metric", a.metric) for i, a in enumerate(written.about)]
    check.unique("about[{}].metric", about, "the metric")
    return Caveat(name=check.name("name", written.name), about=tuple(about), description=body)


def build_not_defined(check: Checker, written: WrittenNotDefined, body: str) -> NotDefined:
    """A :class:`NotDefined` from its written document."""
    phrase = check.phrase("phrase", written.phrase)
    return NotDefined(
        phrase=phrase, synonyms=_synonyms(check, phrase, written.synonyms), description=body
    )


def build_example(check: Checker, written: WrittenExample, body: str) -> WorkedExample:
    """A :class:`WorkedExample` from its written document; its question is decoded exactly as
    ``ask_metric`` decodes one (so it has no field for SQL), numbers and booleans as text."""
    name = check.name("name", written.name)
    if not written.asked:
        check.fail("asked", "list at least one way a user might ask this")
    asked = [check.phrase(f"asked[{i}]", text) for i, text in enumerate(written.asked)]
    check.unique("asked[{}]", [same_words(text) for text in asked], "the phrasing")
    question = convert_written_question(written.question)
    if not is_successful(question):
        error = question.failure()
        check.fail("question" + error.field.removeprefix("$"), error.problem)
    return WorkedExample(
        name=name, asked=tuple(asked), question=question.unwrap(), description=body
    )


def _synonyms(check: Checker, phrase: str, written: list[str]) -> tuple[str, ...]:
    seen = {same_words(phrase): "the phrase itself"}
    for i, synonym in enumerate(written):
        key = f"synonyms[{i}]"
        words = same_words(check.phrase(key, synonym))
        if words in seen:
            check.fail(key, f"the synonym {quoted(synonym)} repeats {seen[words]}")
        seen[words] = f"synonyms[{i}]"
    return tuple(written)


def _means(check: Checker, written: WrittenMeans) -> Means:
    metric = check.name("means.metric", written.metric)
    if written.dimension is None and written.value is None:
        return MeansMetric(metric=metric)
    if written.dimension is None:
        check.fail("means.dimension", "missing required key (a value belongs to a dimension)")
    if written.value is None:
        check.fail("means.value", "missing required key (say which value of the dimension)")
    dimension = check.name("means.dimension", written.dimension)
    return MeansValue(metric=metric, dimension=dimension, value=written.value)
