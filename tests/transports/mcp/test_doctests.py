"""The examples in the MCP transport's docstrings hold (the default run collects doctests from
the core only)."""

import doctest
from types import ModuleType

import pytest

from sutura.transports.mcp import schemas, stdio, tools


@pytest.mark.parametrize("module", [schemas, stdio, tools], ids=lambda m: m.__name__)
def test_the_examples_in_the_docstrings_hold(module: ModuleType) -> None:
    failures, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried and not failures
