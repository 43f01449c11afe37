"""Where a metric's data is: the first and last day its rows fall on, as a source said when."""

import datetime

from sutura.core.nouns.frozen import Frozen


class Extent(Frozen, frozen=True):
    """The first and the last day (in the catalog's time zone) of the rows a metric counts,
    as its source reported them at ``as_of`` (an ISO 8601 instant, UTC)."""

    first: datetime.date
    last: datetime.date
    as_of: str

    def joined(self, other: "Extent") -> "Extent":
        """The days of both (a derived metric has rows where either referent has).

        >>> a = Extent(first=datetime.date(2024, 1, 1), last=datetime.date(2024, 6, 30), as_of="t1")
        >>> b = Extent(first=datetime.date(2023, 5, 1), last=datetime.date(2024, 3, 1), as_of="t0")
        >>> a.joined(b)
        Extent(first=datetime.date(2023, 5, 1), last=datetime.date(2024, 6, 30), as_of='t0')
        """
        return Extent(
            first=min(self.first, other.first),
            last=max(self.last, other.last),
            as_of=min(self.as_of, other.as_of),
        )
