"""``python -m bench``: print the performance table."""

import sys

from bench import answer, batch, render
from bench.table import Figure
from bench.table import render as render_table


def main() -> int:
    """Measure every section and print one table."""
    figures: list[Figure] = []
    for section in (answer, render, batch):
        print(f"measuring {section.__name__} …", file=sys.stderr, flush=True)
        figures.extend(section.measure())
    print(render_table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
