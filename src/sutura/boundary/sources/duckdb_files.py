"""A directory of CSV/Parquet files loaded into DuckDB, one table per file named by its stem.

In CSV an unquoted empty field is NULL and a quoted one (``""``) the empty string, as in
PostgreSQL's CSV format. CSV columns DuckDB would read as DOUBLE are kept exact: when every
value is a plain decimal they become ``DECIMAL(18|38, s)`` with ``s`` the largest scale
written. The certified source and the raw SQL runner load a directory the same way.
"""

from pathlib import Path

import duckdb

_LOADING_VIEW = "__sutura_loading"
_PLAIN_DECIMAL = r"[+-]?[0-9]+(\.[0-9]+)?"


def load_directory(connection: duckdb.DuckDBPyConnection, directory: Path) -> str | None:
    """Load every CSV/Parquet file as a table named by its stem; a problem sentence or None."""
    files = sorted(
        p for p in directory.iterdir() if p.is_file() and p.suffix.lower() in {".csv", ".parquet"}
    )
    if not files:
        return "the directory holds no .csv or .parquet file"
    stems = [p.stem.casefold() for p in files]  # DuckDB table names ignore case
    repeated = sorted({p.stem for p in files if stems.count(p.stem.casefold()) > 1})
    if repeated:
        return f"several files would be the table {repeated[0]!r}; rename one"
    for file in files:
        if file.suffix.lower() == ".parquet":
            statement = f"CREATE TABLE {quote(file.stem)} AS SELECT * FROM read_parquet(?)"
            connection.execute(statement, [str(file)])
        else:
            _load_csv(connection, file)
    return None


def _load_csv(connection: duckdb.DuckDBPyConnection, file: Path) -> None:
    """Load one CSV file, reading would-be DOUBLE columns as exact decimals where they are."""
    sniffed = connection.read_csv(str(file), allow_quoted_nulls=False)
    doubles = [n for n, t in zip(sniffed.columns, sniffed.types, strict=True) if str(t) == "DOUBLE"]
    relation = connection.read_csv(
        str(file), allow_quoted_nulls=False, dtype=dict.fromkeys(doubles, "VARCHAR")
    )
    relation.create_view(_LOADING_VIEW, replace=True)
    projection = [
        _exact_number(connection, name) if name in doubles else quote(name)
        for name in relation.columns
    ]
    connection.execute(
        f"CREATE TABLE {quote(file.stem)} AS SELECT {', '.join(projection)}"
        f" FROM {quote(_LOADING_VIEW)}"
    )
    connection.execute(f"DROP VIEW {quote(_LOADING_VIEW)}")


def _exact_number(connection: duckdb.DuckDBPyConnection, name: str) -> str:
    """The projection of a text column as DECIMAL when every value is a plain decimal."""
    column = quote(name)
    found = connection.execute(
        f"SELECT bool_and(regexp_full_match({column}, ?)),"
        f" max(length(regexp_extract({column}, '\\.([0-9]+)$', 1))),"
        f" max(length(regexp_extract({column}, '^[+-]?([0-9]+)', 1)))"
        f" FROM {quote(_LOADING_VIEW)}",
        [_PLAIN_DECIMAL],
    ).fetchone()
    plain, scale, digits = found if found is not None else (None, None, None)
    if plain and isinstance(scale, int) and isinstance(digits, int) and digits + scale <= 38:
        width = 18 if digits + scale <= 18 else 38
        return f"CAST({column} AS DECIMAL({width}, {scale})) AS {column}"
    return f"CAST({column} AS DOUBLE) AS {column}"


def quote(name: str) -> str:
    """A DuckDB identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'
