# The part of regex (untyped) that sutura's tests use, checked against regex 2026.11: compiling
# a pattern and matching it.
from regex._main import Match as Match
from regex._main import Pattern as Pattern
from regex._main import compile as compile
