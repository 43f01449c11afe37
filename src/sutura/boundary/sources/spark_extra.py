"""The Spark source needs an optional dependency group; without it, startup says which one.

The default install stays lean: the Spark Connect client (pyspark with grpc, pyarrow and pandas)
is installed only with ``pip install 'sutura[spark]'``. This module imports nothing of it until a
``kind: spark`` source is opened.
"""

import logging
from typing import Final

from returns.result import Failure, Result

from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.skeleton import Source
from sutura.core.settings import SparkSourceSettings

log = logging.getLogger("sutura.source")

INSTALL: Final = "pip install 'sutura[spark]'"


async def open_spark_if_installed(
    alias: str, settings: SparkSourceSettings, context: SourceContext
) -> Result[Source, str]:
    """Open the Spark source, or refuse naming the extra to install when the client is absent."""
    try:
        from sutura.boundary.sources.spark import open_spark
    except ImportError as err:
        log.debug("source %s: the Spark Connect client cannot be imported: %r", alias, err)
        missing = str(getattr(err, "name", None) or "").partition(".")[0]
        detail = f" (no module {missing})" if missing else ""
        return Failure(
            f"source {alias}: kind spark needs the Spark Connect client{detail};"
            f" install it with {INSTALL}"
        )
    return await open_spark(alias, settings, context)
