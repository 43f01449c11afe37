"""docs/operations.md is true: it lists every metric ``/metrics`` serves and every field an
audit record can hold, and every setting it names exists."""

import re
from pathlib import Path

import anyio
import msgspec
import msgspec.inspect as mi
import pytest
from prometheus_client.parser import text_string_to_metric_families

from sutura.core.settings import Settings
from sutura.core.tool.audit import AuditRecord
from tests.transports.http.deployments import assembled, client, write_deployment

DOC = (Path(__file__).parents[3] / "docs" / "operations.md").read_text(encoding="utf-8")
SETTINGS = sorted(set(re.findall(r"`((?:server|security|audit|logging|tracing)\.[a-z_.]+)`", DOC)))


def test_every_audit_field_is_documented() -> None:
    fields = [f.encode_name for f in msgspec.structs.fields(AuditRecord)]
    for name in [*fields, "time"]:
        assert re.search(rf"^\| `{name}` \|", DOC, re.M), name


@pytest.mark.anyio
async def test_every_served_metric_is_documented_and_no_other(tmp_path: Path) -> None:
    token = "metrics-token-0123456789"
    with anyio.fail_after(30):
        async with (
            assembled(write_deployment(tmp_path), SUTURA__SECURITY__METRICS_TOKEN=token) as up,
            client(up.app) as http,
        ):
            text = (await http.get("/metrics", headers={"Authorization": f"Bearer {token}"})).text
    served = {family.name for family in text_string_to_metric_families(text)}
    documented = set(re.findall(r"^\| `(sutura_[a-z_]+)` \|", DOC, re.M))
    assert served == {name.removesuffix("_total") for name in documented}


def _child(info: mi.Type, part: str) -> mi.Type | None:
    for option in info.types if isinstance(info, mi.UnionType) else (info,):
        if isinstance(option, mi.StructType):
            found = [f.type for f in option.fields if f.encode_name == part]
            if found:
                return found[0]
    return None


@pytest.mark.parametrize("key", SETTINGS)
def test_every_setting_named_is_a_setting(key: str) -> None:
    node: mi.Type | None = mi.type_info(Settings)
    for part in key.split("."):
        assert node is not None, key
        node = _child(node, part)
    assert node is not None, key
