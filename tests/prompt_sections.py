"""The prompt's section headings in the reference's order, for every test that pins it."""

from typing import Final

KNOWLEDGE_SECTIONS: Final = [
    "## Workflow",
    "## A refusal is an answer",
    "## Terms not defined here",
    "## Bounds",
    "## What a question has no field for",
    "## Operations",
    "## Knowledge in this catalog",
    "## Glossary",
    "## Metrics",
    "## Worked questions",
    "## Reading an answer, and its provenance",
]
"""A catalog with knowledge and no operator instructions: knowledge between the usual sections."""

OPERATOR_SECTION: Final = "## Operator instructions"
"""Always last, when the operator wrote instructions."""
