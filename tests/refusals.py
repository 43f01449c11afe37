"""Recording which refusal codes the suite provokes: a code no test provokes fails the run."""

from sutura.core.nouns.answer import Refused
from sutura.core.nouns.refusal import Refusal, RefusalCode

PROVOKED: set[RefusalCode] = set()


def expect_refusal(value: object, code: RefusalCode) -> Refusal:
    """Assert ``value`` is (or wraps) a refusal with ``code``; record the code as provoked."""
    refusal = _refusal_in(value)
    assert refusal is not None, f"expected a refusal {code.value}, got {value!r}"
    assert refusal.code is code, f"expected {code.value}, got {refusal.code.value}"
    PROVOKED.add(code)
    return refusal


def _refusal_in(value: object) -> Refusal | None:
    if isinstance(value, Refusal):
        return value
    if isinstance(value, Refused):
        return value.reason
    failure = getattr(value, "failure", None)
    if callable(failure):
        try:
            inner = failure()
        except Exception:
            return None
        return _refusal_in(inner)
    return None
