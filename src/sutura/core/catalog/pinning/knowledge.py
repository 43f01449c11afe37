"""The meaning of the catalog's knowledge, as the digest reads it.

A glossary term's words and what it means, a caveat's name and the metrics it is about, a
phrase not defined and its synonyms, an example's name, its phrasings and its question (every
field spelled out, as the question decoder builds it, but for ``compare``, ``window``, ``fill``
and ``top.per`` left at their defaults: a catalog written before they existed keeps its
digest). Bodies are prose: left out, like every description. Lists whose order means nothing
(synonyms, the metrics a caveat is about, the phrasings of an example) are sorted, and so is
each kind.

>>> from sutura.core.definitions.knowledge import Knowledge, NotDefined
>>> knowledge_meaning(Knowledge(not_defined=(
...     NotDefined(phrase="churn", synonyms=("attrition", "Abgang"), description="Prose."),)))
{'glossary': [], 'caveats': [],
 'not_defined': [{'phrase': 'churn', 'synonyms': ['Abgang', 'attrition']}], 'examples': []}
"""

from typing import Any

import msgspec

from sutura.core.definitions.knowledge import (
    Caveat,
    GlossaryTerm,
    Knowledge,
    NotDefined,
    WorkedExample,
)
from sutura.core.nouns.question import Question


def knowledge_meaning(knowledge: Knowledge) -> dict[str, list[dict[str, Any]]]:
    """Every knowledge document's meaning, by kind, without its body."""
    return {
        "glossary": sorted((_glossary(g) for g in knowledge.glossary), key=_by("term")),
        "caveats": sorted((_caveat(c) for c in knowledge.caveats), key=_by("name")),
        "not_defined": sorted((_not_defined(n) for n in knowledge.not_defined), key=_by("phrase")),
        "examples": sorted((_example(e) for e in knowledge.examples), key=_by("name")),
    }


def _by(key: str) -> Any:
    return lambda meaning: meaning[key]


def _glossary(term: GlossaryTerm) -> dict[str, Any]:
    return {
        "term": term.term,
        "synonyms": sorted(term.synonyms),
        "means": msgspec.to_builtins(term.means),
    }


def _caveat(caveat: Caveat) -> dict[str, Any]:
    return {"name": caveat.name, "about": sorted(caveat.about)}


def _not_defined(phrase: NotDefined) -> dict[str, Any]:
    return {"phrase": phrase.phrase, "synonyms": sorted(phrase.synonyms)}


def _example(example: WorkedExample) -> dict[str, Any]:
    return {
        "name": example.name,
        "asked": sorted(example.asked),
        "question": _question(example.question),
    }


_LATER_DEFAULTS: dict[str, object] = {"compare": None, "window": None, "fill": False}


def _question(question: Question) -> dict[str, Any]:
    """The question spelled out, without the fields added later that hold their defaults."""
    plain: dict[str, Any] = msgspec.to_builtins(question)
    kept = {k: v for k, v in plain.items() if k not in _LATER_DEFAULTS or v != _LATER_DEFAULTS[k]}
    top = kept.get("top")
    if isinstance(top, dict) and top.get("per") is None:
        kept["top"] = {k: v for k, v in top.items() if k != "per"}
    return kept
