"""A metric's written ``semi_additive`` key to a :class:`SemiAdditive`: its rule and entity.

Only the document is checked here (the rule's vocabulary, the entity's names); whether the
entity's columns exist and the measure can be taken per entity is checked with the whole
catalog (:mod:`sutura.core.catalog.checks.semi`).
"""

from sutura.core.catalog.document.build import Checker
from sutura.core.catalog.document.written import WrittenSemiAdditive
from sutura.core.definitions.model import SemiAdditive, TimeRule


def build_semi_additive(check: Checker, written: WrittenSemiAdditive | None) -> SemiAdditive | None:
    """The rule and entity of a measure that does not add up over time, if declared."""
    if written is None:
        return None
    rule = check.choice("semi_additive.rule", written.rule, TimeRule)
    names = [written.entity] if isinstance(written.entity, str) else written.entity
    if not names:
        check.fail("semi_additive.entity", "name at least one column of the metric's model")
    key = "semi_additive.entity" if isinstance(written.entity, str) else "semi_additive.entity[{}]"
    columns = [check.identifier(key.format(i), name) for i, name in enumerate(names)]
    check.unique("semi_additive.entity[{}]", columns, "the column")
    return SemiAdditive(rule=rule, entity=tuple(columns))
