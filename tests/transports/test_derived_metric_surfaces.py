"""A derived metric through what a user touches: asked and described (both halves) through the
Python API, described by the CLI, with its own digest in the answer's provenance."""

import decimal
import json
import shutil
from pathlib import Path

import anyio
import pytest

from sutura import api
from sutura.boundary.example import CATALOG, DATABASE, write_example
from sutura.core.tool.reply import Answered
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.conformance.pack import EXTRA_CATALOG, add_pack_rows

QUARTERS = {"grain": "quarter", "range": {"start": "2024-01-01", "end": "2025-01-01"}}


@pytest.fixture(scope="module")
def derived_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example with the conformance pack's metrics, derived ones among them (and the
    pack's rows and tables, which some of them read)."""
    target = tmp_path_factory.mktemp("derived")
    write_example(target, orders=1500)
    add_pack_rows(target / DATABASE)
    for document in EXTRA_CATALOG.glob("*.md"):
        shutil.copy(document, target / CATALOG / document.name)
    return target


def test_a_derived_metric_is_answered_alone_and_beside_others_with_its_own_digest(
    derived_dir: Path,
) -> None:
    asked = [
        api.question({"metrics": ["net_revenue"], **QUARTERS}).unwrap(),
        api.question({"metrics": ["revenue"], **QUARTERS}).unwrap(),
        api.question({"metrics": ["returned_revenue"], **QUARTERS}).unwrap(),
        api.question({"metrics": ["net_revenue", "revenue"], **QUARTERS}).unwrap(),
    ]
    net, revenue, returned, mixed = api.ask(asked, derived_dir).unwrap()
    assert isinstance(net, api.Answer) and net.columns == ["period", "net_revenue"]
    assert isinstance(revenue, api.Answer) and isinstance(returned, api.Answer)
    gross = {row[0]: row[1] or "0" for row in revenue.rows}
    back = {row[0]: row[1] for row in returned.rows}
    assert len(net.rows) == 4
    for period, value in net.rows:
        assert period is not None and value is not None
        expected = decimal.Decimal(gross[period]) - decimal.Decimal(back.get(period) or "0")
        assert decimal.Decimal(value) == expected  # exact, at the referents' scale
    assert [d.metric for d in net.provenance.metric_digests] == ["net_revenue"]
    loaded = api.load(derived_dir, environ={}).unwrap()
    assert net.provenance.metric_digests[0].digest == loaded.pinned.metric_digests["net_revenue"]
    # Beside another metric, each column is the value it has alone.
    assert isinstance(mixed, api.Answer) and mixed.columns == ["period", "net_revenue", "revenue"]
    assert [row[:2] for row in mixed.rows] == net.rows
    assert [[row[0], row[2]] for row in mixed.rows] == revenue.rows


@pytest.mark.anyio
async def test_describe_catalog_lists_a_derived_metric_in_both_halves(derived_dir: Path) -> None:
    with anyio.fail_after(30):
        async with api.opened(derived_dir, anchors=False) as started:
            service = started.unwrap()
            reply = await api.call(service, api.Capability.DESCRIBE_CATALOG, None)
    assert isinstance(reply, Answered), reply
    halves = reply.halves
    metrics = {m["name"]: m for m in halves.structured_object()["metrics"]}
    ratio = metrics["revenue_per_active_customer"]
    assert ratio["grains"] == ["day", "week", "month", "quarter", "year"]
    assert [d["name"] for d in ratio["dimensions"]] == ["region", "channel"]
    assert ratio["dimensions"][1]["allowed_values"] == ["phone", "store", "web"]
    assert [m["name"] for m in halves.structured_object()["metrics"]] == sorted(metrics)
    digests = {d["metric"] for d in halves.structured_object()["provenance"]["metric_digests"]}
    assert {"net_revenue", "revenue_per_active_customer"} <= digests
    lines = halves.text.split("\n")
    at = lines.index("metric: revenue_per_active_customer")
    # Its data: both referents' days together (revenue's and active customers' alike here).
    revenue = metrics["revenue"]["data"]
    assert ratio["data"] == {**revenue, "as_of": ratio["data"]["as_of"]}
    assert lines[at + 1 : at + 4] == [
        "grains: day, week, month, quarter, year",
        f"data: from {revenue['first']} to {revenue['last']} (as of {ratio['data']['as_of']})",
        "> Revenue per paying customer; NULL where nobody paid.",
    ]


def test_the_cli_describes_a_derived_metric(
    derived_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["describe", "net_revenue"], Wiring({"SUTURA_CONFIG_DIR": str(derived_dir)}))
    out, _ = capsys.readouterr()
    assert code == 0
    document = json.loads(out)
    assert document["definition"]["op"] == "difference"
    assert document["definition"]["of"] == ["revenue", "returned_revenue"]
    assert len(document["metric_digest"]) == 64


def test_check_and_doctor_count_derived_metrics_among_the_metrics(
    derived_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded = api.load(derived_dir, environ={}).unwrap()
    catalog = loaded.pinned.catalog
    total, derived = len(catalog.metrics) + len(catalog.derived), len(catalog.derived)
    models, relationships = len(catalog.models), len(catalog.relationships)
    assert derived >= 1
    environ = Wiring({"SUTURA_CONFIG_DIR": str(derived_dir)})
    assert run_cli(["check"], environ) == 0
    checked, _ = capsys.readouterr()
    counted = f"catalog: {total} metrics ({derived} derived), {models} models, "
    assert f"{counted}{relationships} relationships" in checked
    assert run_cli(["doctor"], environ) == 0
    doctored, _ = capsys.readouterr()
    assert f"catalog: ok — {total} metrics ({derived} derived), {models} models (" in doctored
