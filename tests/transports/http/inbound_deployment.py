"""A multi-user deployment of the example: inbound access tokens from a hand-made issuer.

``return_rate`` is restricted to the audience ``finance`` and ``average_order_value`` to
``board``; the group ``finance-team`` maps to ``finance``, ``directors`` to both. A glossary
term (``refunds``) and a worked example lead to ``return_rate``.
"""

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import pytest

from sutura.boundary.example import DATABASE
from tests.postgres import copy_from_duckdb, scratch_database
from tests.transports.http.tokens import ISSUER, RESOURCE, KeyPair, jwks

RESTRICTED: Final = {"return_rate": "finance", "average_order_value": "board"}
MAPPING: Final = "{finance-team: [finance], directors: [board, finance]}"
_REFUNDS: Final = """---
kind: glossary
term: refunds
synonyms: [money back]
means:
  metric: return_rate
---
What share of orders came back.
"""
_REFUNDS_EXAMPLE: Final = """---
kind: example
name: refunds_by_quarter
asked:
  - How many orders came back each quarter?
question:
  metrics: [return_rate]
  grain: quarter
  range: {start: 2024-01-01, end: 2025-01-01}
---
One row per quarter.
"""


def write_multi_user(
    target: Path,
    example: Path,
    pair: KeyPair | None,
    *,
    inbound: str = "",
    issuer: str = ISSUER,
    jwks_url: str | None = None,
    source: str | None = None,
) -> Path:
    """A config dir over ``example``'s data whose tokens ``pair`` signs (its key set in a
    file), or an issuer at ``issuer`` whose key set is at ``jwks_url``; ``source`` (flow YAML)
    replaces the example's DuckDB file as the source ``main``."""
    target.mkdir(parents=True, exist_ok=True)
    catalog = target / "catalog"
    shutil.copytree(example / "catalog", catalog)
    for metric, audience in RESTRICTED.items():
        document = catalog / f"{metric}.md"
        text = document.read_text(encoding="utf-8")
        restricted = f"audience: {{restricted: [{audience}]}}\n"
        document.write_text(text.replace("audience: open\n", restricted), encoding="utf-8")
    (catalog / "glossary_refunds.md").write_text(_REFUNDS, encoding="utf-8")
    (catalog / "example_refunds.md").write_text(_REFUNDS_EXAMPLE, encoding="utf-8")
    if pair is not None:
        (target / "jwks.json").write_text(jwks(pair), encoding="utf-8")
    keys = "    jwks_file: jwks.json\n" if jwks_url is None else f"    jwks_url: {jwks_url}\n"
    database = (example / "data" / "example.duckdb").resolve()
    source = source or f"{{kind: duckdb, path: '{database}'}}"
    (target / "base.yaml").write_text(
        "catalog: {dir: catalog, version: example-1}\n"
        f"sources: {{main: {source}}}\n"
        "security:\n"
        "  identity: multi-user\n"
        f"  audience_mapping: {MAPPING}\n"
        "  inbound:\n"
        f"    issuer: {issuer}\n"
        f"    resource: {RESOURCE}\n" + keys + inbound,
        encoding="utf-8",
    )
    return target


PASSWORD_VAR: Final = "SUTURA_MULTI_USER_TEST_PASSWORD"


@contextmanager
def multi_user_on(
    engine: str, root: Path, example: Path, pair: KeyPair, request: pytest.FixtureRequest
) -> Iterator[tuple[Path, dict[str, str]]]:
    """:func:`write_multi_user` over ``example``'s data on ``engine`` (``duckdb``, or a scratch
    PostgreSQL copy of it): the config directory, and the secrets its environment needs."""
    if engine == "duckdb":
        yield write_multi_user(root / "config", example, pair), {}
        return
    dsn: str = request.getfixturevalue("postgres_dsn")
    with scratch_database(dsn) as scratch:
        copy_from_duckdb(example / DATABASE, scratch, root)
        source = json.dumps(scratch.source_settings(PASSWORD_VAR, pool_size=2))
        config = write_multi_user(root / "config", example, pair, source=source)
        yield config, {PASSWORD_VAR: scratch.reader_password}
