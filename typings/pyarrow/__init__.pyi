# The part of pyarrow (untyped) that sutura reads, checked against pyarrow 26: the table a Spark
# statement returns, its column names, and its columns as Python values.
from pyarrow.lib import ChunkedArray as ChunkedArray
from pyarrow.lib import Table as Table
