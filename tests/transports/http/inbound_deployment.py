"""A multi-user deployment of the example: inbound access tokens from a hand-made issuer.

``return_rate`` is restricted to the audience ``finance`` and ``average_order_value`` to
``board``; the group ``finance-team`` maps to ``finance``.
"""

import shutil
from pathlib import Path
from typing import Final

from tests.transports.http.tokens import ISSUER, RESOURCE, KeyPair, jwks

RESTRICTED: Final = {"return_rate": "finance", "average_order_value": "board"}
MAPPING: Final = "{finance-team: [finance], directors: [board, finance]}"


def write_multi_user(target: Path, example: Path, pair: KeyPair, *, inbound: str = "") -> Path:
    """A config dir over ``example``'s data whose tokens ``pair`` signs."""
    target.mkdir(parents=True, exist_ok=True)
    catalog = target / "catalog"
    shutil.copytree(example / "catalog", catalog)
    for metric, audience in RESTRICTED.items():
        document = catalog / f"{metric}.md"
        text = document.read_text(encoding="utf-8")
        restricted = f"audience: {{restricted: [{audience}]}}\n"
        document.write_text(text.replace("audience: open\n", restricted), encoding="utf-8")
    (target / "jwks.json").write_text(jwks(pair), encoding="utf-8")
    database = (example / "data" / "example.duckdb").resolve()
    (target / "base.yaml").write_text(
        "catalog: {dir: catalog, version: example-1}\n"
        f"sources: {{main: {{kind: duckdb, path: '{database}'}}}}\n"
        "security:\n"
        "  identity: multi-user\n"
        f"  audience_mapping: {MAPPING}\n"
        "  inbound:\n"
        f"    issuer: {ISSUER}\n"
        f"    resource: {RESOURCE}\n"
        "    jwks_file: jwks.json\n" + inbound,
        encoding="utf-8",
    )
    return target
