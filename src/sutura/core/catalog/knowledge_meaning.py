"""The meaning of the catalog's knowledge, as the digest reads it.

A glossary term's words and what it means, a caveat's name and the metrics it is about, a
phrase not defined and its synonyms, an example's name, its phrasings and its question (every
field spelled out, as the question decoder builds it). Bodies are prose: left out, like every
description. Lists whose order means nothing (synonyms, the metrics a caveat is about, the
phrasings of an example) are sorted, and so is each kind.

>>> from sutura.core.catalog.knowledge import Knowledge, NotDefined
>>> knowledge_meaning(Knowledge(not_defined=(
...     NotDefined(phrase="churn", synonyms=("attrition", "Abgang"), description="Prose."),)))
{'glossary': [], 'caveats': [],
 'not_defined': [{'phrase': 'churn', 'synonyms': ['Abgang', 'attrition']}], 'examples': []}
"""

from typing import Any

import msgspec

from sutura.core.catalog.knowledge import Caveat, GlossaryTerm, Knowledge, NotDefined, WorkedExample


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
        "question": msgspec.to_builtins(example.question),
    }
