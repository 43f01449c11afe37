"""sutura: certified answers from governed metric definitions."""

__version__ = "0.1.0"
