"""The public results keep their exact types: a regression to ``Any`` fails here.

Like returns' own typesafety suite, each row of :data:`REVEALED` is an expression over the
public results and the type mypy reveals for it. The rows become one probe module of
``reveal_type`` calls (the probe's parameters are the inputs, :data:`PROBE`), checked in one
mypy run with the project's configuration and cache, so a warm run takes seconds.

The last rows say why results are never narrowed with ``isinstance``: under
``isinstance(result, Success)``, ``result.unwrap()`` is ``Any`` and mypy stays silent about
everything done with it, while under ``is_successful(result)`` it keeps its type. (Those rows
are text, so the gate in ``test_exhaustiveness.py`` that forbids such narrowing never sees
them as code.) The ``Fold.collect`` rows say why its accumulator is declared with its error
type: a bare ``Success(())`` is ``Result[tuple[()], Any]`` and turns the error type to ``Any``.
"""

import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).parents[2]

PROBE = """\
import datetime
from pathlib import Path

from returns.iterables import Fold
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

import sutura.api
from sutura.boundary import loading
from sutura.boundary.catalog_files import load_catalog
from sutura.boundary.service import Service
from sutura.boundary.sources.skeleton import Source, run_certified
from sutura.core.tool import codec
from sutura.core.definitions.model import Catalog
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.catalog.view.catalog import CatalogView
from sutura.core.nouns.answer import Answer, Outcome
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.nouns.question import Question, QuestionError, decode_question_json
from sutura.core.question.resolve import Resolved, resolve_question
from sutura.core.settings import Settings
from sutura.core.sql.compile import compile_question
from sutura.core.sql.compiled import CompiledQuery
from sutura.boundary.planning import Planner
from sutura.core.text.decode import decode_answer
from sutura.core.text.render import render_answer
from sutura.core.tool import arguments as tool_arguments
from sutura.core.tool.arguments import Arguments
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability


async def probe(
    config: Path,
    environ: dict[str, str],
    question: Question,
    pinned: PinnedDefinitions,
    settings: Settings,
    today: datetime.date,
    resolved: Resolved,
    catalog: Catalog,
    arguments: Arguments,
    outcome: Outcome,
    view: CatalogView,
    answer: Answer,
    source: Source,
    compiled: CompiledQuery,
    service: Service,
    caller: Caller,
    result: Result[Question, QuestionError],
    no_questions: Result[tuple[Question, ...], QuestionError],
) -> None:
"""

_RESULT = "returns.result.Result"
_QUESTION = "sutura.core.nouns.question.Question"
_QUESTION_ERROR = "sutura.core.nouns.question.QuestionError"
_REFUSAL = "sutura.core.nouns.refusal.Refusal"
_OUTCOME = "sutura.core.nouns.answer.Answer | sutura.core.nouns.answer.Refused"
_HALVES = "tuple[str, bytes, fallback=sutura.core.tool.codec.Halves]"
_STRINGS = "list[str]"


class Revealed(NamedTuple):
    """An expression of the probe, the type mypy reveals for it, and the condition it is
    revealed under (``None``: everywhere)."""

    expression: str
    revealed: str
    under: str | None = None

    def label(self) -> str:
        return self.expression if self.under is None else f"{self.under}: {self.expression}"


REVEALED = [
    Revealed("sutura.api.load(config)", f"{_RESULT}[sutura.boundary.loading.Loaded, {_STRINGS}]"),
    Revealed("sutura.api.load(config).unwrap()", "sutura.boundary.loading.Loaded"),
    Revealed("sutura.api.load(config).failure()", _STRINGS),
    Revealed("sutura.api.question(b'{}')", f"{_RESULT}[{_QUESTION}, {_QUESTION_ERROR}]"),
    Revealed("sutura.api.question(b'{}').unwrap()", _QUESTION),
    Revealed("sutura.api.question(b'{}').failure()", _QUESTION_ERROR),
    Revealed("decode_question_json(b'{}')", f"{_RESULT}[{_QUESTION}, {_QUESTION_ERROR}]"),
    Revealed(
        "resolve_question(question, pinned, settings.limits, today)",
        f"{_RESULT}[sutura.core.question.resolve.Resolved, {_REFUSAL} | {_QUESTION_ERROR}]",
    ),
    Revealed(
        "Planner(settings, lambda: today).plan(question, pinned, None)",
        f"{_RESULT}[tuple[sutura.core.question.resolve.Resolved,"
        f" sutura.core.sql.compiled.CompiledQuery], {_REFUSAL} | {_QUESTION_ERROR}]",
    ),
    Revealed(
        "compile_question(resolved, catalog, SourceFacts(dialect=Dialect.DUCKDB))",
        "sutura.core.sql.compiled.CompiledQuery",
    ),
    Revealed(
        "service.plan(question, caller)",
        f"{_RESULT}[tuple[sutura.core.question.resolve.Resolved,"
        f" sutura.core.sql.compiled.CompiledQuery], {_REFUSAL} | {_QUESTION_ERROR}]",
    ),
    Revealed(
        "tool_arguments.decode_catalog_request(arguments)",
        f"{_RESULT}[sutura.core.tool.capability.CatalogRequest, sutura.core.tool.reply.Malformed]",
    ),
    Revealed(
        "tool_arguments.decode_question(arguments)", f"{_RESULT}[{_QUESTION}, {_QUESTION_ERROR}]"
    ),
    Revealed("codec.outcome_halves(outcome)", f"{_RESULT}[{_HALVES}, {_REFUSAL}]"),
    Revealed("codec.outcome_halves(outcome).unwrap().text", "str"),
    Revealed("codec.catalog_halves(view)", f"{_RESULT}[{_HALVES}, {_REFUSAL}]"),
    Revealed(
        "codec.decode_outcome(b'{}')", f"{_RESULT}[{_OUTCOME}, sutura.core.tool.codec.CodecError]"
    ),
    Revealed(
        "await run_certified(source, compiled, deadline_seconds=1.0, max_rows=1)",
        f"{_RESULT}[list[list[str | None]], {_REFUSAL}]",
    ),
    Revealed("loading.load(environ)", f"{_RESULT}[sutura.boundary.loading.Loaded, {_STRINGS}]"),
    Revealed(
        "await service.call(Capability.ASK_METRIC, arguments, caller, 1.0)",
        "sutura.core.tool.reply.Answered | sutura.core.tool.reply.Declined"
        " | sutura.core.tool.reply.Malformed | sutura.core.tool.reply.NotPermitted"
        " | sutura.core.tool.reply.NotOffered | sutura.core.tool.reply.Failed",
    ),
    Revealed(
        "load_catalog(config, 'v1')",
        f"{_RESULT}[sutura.core.definitions.pinned.PinnedDefinitions,"
        " list[sutura.core.catalog.error.CatalogError]]",
    ),
    Revealed("render_answer(answer)", f"{_RESULT}[str, {_REFUSAL}]"),
    Revealed(
        "decode_answer('')",
        f"{_RESULT}[sutura.core.nouns.answer.Answer, sutura.core.text.decode.TextError]",
    ),
    Revealed(
        "result.map(lambda asked: asked.metrics)", f"{_RESULT}[{_STRINGS}, {_QUESTION_ERROR}]"
    ),
    Revealed(
        "result.bind(lambda asked: decode_question_json(b'{}'))",
        f"{_RESULT}[{_QUESTION}, {_QUESTION_ERROR}]",
    ),
    Revealed(
        "result.lash(lambda error: Failure(error.sentence()))", f"{_RESULT}[{_QUESTION}, str]"
    ),
    Revealed(
        "Fold.collect([result, result], no_questions)",
        f"{_RESULT}[tuple[{_QUESTION}, ...], {_QUESTION_ERROR}]",
    ),
    # A bare Success(...) is Result[T, Any]: as Fold.collect's accumulator it makes the error
    # type Any, so the accumulator is declared with its error type (no_questions above).
    Revealed(
        "Fold.collect([result, result], Success(()))", f"{_RESULT}[tuple[{_QUESTION}, ...], Any]"
    ),
    Revealed("result.unwrap()", _QUESTION, under="is_successful(result)"),
    Revealed("result.failure()", _QUESTION_ERROR, under="not is_successful(result)"),
    # Why the rule exists: isinstance narrows to Success[Any], and Any hides every mistake.
    Revealed("result", "returns.result.Success[Any]", under="isinstance(result, Success)"),
    Revealed("result.unwrap()", "Any", under="isinstance(result, Success)"),
]

_NOTE = re.compile(r'^[^:]+:(?P<line>\d+): note: Revealed type is "(?P<type>.*)"$')


class Probed(NamedTuple):
    """What one mypy run over the probe said: the revealed type per row, and any errors."""

    revealed: dict[int, str]
    errors: list[str]


def _probe_source() -> tuple[str, dict[int, int]]:
    """The probe module, and the line of each row's ``reveal_type``."""
    lines = PROBE.splitlines()
    at: dict[int, int] = {}
    for index, row in enumerate(REVEALED):
        if row.under is None:
            lines.append(f"    reveal_type({row.expression})")
        else:
            lines += [f"    if {row.under}:", f"        reveal_type({row.expression})"]
        at[len(lines)] = index
    return "\n".join(lines) + "\n", at


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> Probed:
    source, at = _probe_source()
    probe = tmp_path_factory.mktemp("revealed") / "probe.py"
    probe.write_text(source, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", str(probe)]
    run = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    revealed: dict[int, str] = {}
    errors: list[str] = []
    for line in run.stdout.splitlines():
        note = _NOTE.match(line)
        if note is not None and int(note["line"]) in at:
            revealed[at[int(note["line"])]] = note["type"]
        elif ": error: " in line:
            errors.append(line)
    if run.returncode != 0 and not errors:  # mypy itself failed
        errors.append(run.stderr or run.stdout)
    return Probed(revealed, errors)


def test_the_probe_of_the_public_results_type_checks(probed: Probed) -> None:
    assert probed.errors == []


@pytest.mark.parametrize("index", range(len(REVEALED)), ids=lambda i: REVEALED[i].label())
def test_mypy_reveals_the_exact_type_of_each_public_result(probed: Probed, index: int) -> None:
    assert probed.revealed.get(index) == REVEALED[index].revealed


def test_isinstance_narrowing_makes_an_unwrapped_result_any_where_is_successful_keeps_its_type(
    probed: Probed,
) -> None:
    unwrapped = {
        row.under: probed.revealed.get(index)
        for index, row in enumerate(REVEALED)
        if row.expression == "result.unwrap()"
    }
    assert unwrapped == {"is_successful(result)": _QUESTION, "isinstance(result, Success)": "Any"}
