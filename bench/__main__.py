"""``python -m bench``: print the performance table."""

import sys

from bench import answer
from bench.table import Figure, render


def main() -> int:
    """Measure every section and print one table."""
    figures: list[Figure] = []
    for section in (answer,):
        print(f"measuring {section.__name__} …", file=sys.stderr, flush=True)
        figures.extend(section.measure())
    print(render(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
