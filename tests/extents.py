"""Where each metric's data is, as a ``describe_catalog`` body states it: what a test builds an
expected catalog view with (the days are the data's, the instant the service's clock)."""

import datetime
from collections.abc import Mapping
from typing import Any

from sutura.core.nouns.extent import Extent


def extents_in(body: Mapping[str, Any]) -> dict[str, Extent]:
    """The extents a catalog body states, by metric name."""
    found = {}
    for metric in body["metrics"]:
        data = metric.get("data")
        if data is not None:
            found[metric["name"]] = Extent(
                first=datetime.date.fromisoformat(data["first"]),
                last=datetime.date.fromisoformat(data["last"]),
                as_of=data["as_of"],
            )
    return found
