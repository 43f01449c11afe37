"""Ten metrics sharing seven dimensions (two of 100+ values): declared once on the models, the
catalog an agent reads is at most 40 % of the bytes the same dimensions pasted into every
metric give, on every surface that carries it — and every answer is the same either way."""

import json
import re
from pathlib import Path
from typing import Final

import httpx
import msgspec
import pytest

from tests.shared_flights import TOKEN, write_deployment
from tests.transports.cli.running import run_in_process
from tests.transports.http.deployments import assembled, client
from tests.transports.mcp.inprocess import connected, structured_of, text_of, wiring

pytestmark = pytest.mark.anyio

SHARE: Final = 0.40
QUESTION: Final = [
    "query",
    "flight_count",
    "cancellation_rate",
    "--grain",
    "year",
    "--from",
    "2024-01-01",
    "--to",
    "2025-01-01",
    "--by",
    "alliance",
    "--by",
    "distance_band",
    "--where",
    "dest=DAH",
]


@pytest.fixture(scope="module")
def deployments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The catalog both ways, each over the same data."""
    return {
        way: write_deployment(tmp_path_factory.mktemp(f"flights-{way}"), shared=way == "shared")
        for way in ("per_metric", "shared")
    }


def _cli(config: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> bytes:
    code, out, err = run_in_process(list(argv), config, capsys)
    assert code == 0, err
    return out.encode("utf-8")


def _within_share(sizes: dict[str, int]) -> None:
    assert sizes["shared"] <= SHARE * sizes["per_metric"], sizes


@pytest.mark.parametrize("argv", [("catalog",), ("catalog", "--json")], ids=["text", "json"])
def test_the_command_line_s_catalog_shrinks_to_at_most_40_percent(
    deployments: dict[str, Path], capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    printed = {way: _cli(config, capsys, *argv) for way, config in deployments.items()}
    assert b"page" not in printed["per_metric"]  # the whole catalog, not a page of it
    _within_share({way: len(out) for way, out in printed.items()})


def _metrics_section(prompt: bytes) -> bytes:
    """The prompt's catalog: from its metrics heading to the next heading."""
    start = prompt.index(b"\n## Metrics\n")
    end = prompt.find(b"\n## ", start + 1)
    return prompt[start : end if end > 0 else len(prompt)]


def test_the_prompt_carries_the_catalog_in_at_most_40_percent_of_the_bytes(
    deployments: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    prompts = {way: _cli(config, capsys, "prompt") for way, config in deployments.items()}
    sections = {way: _metrics_section(prompt) for way, prompt in prompts.items()}
    assert all(b"metric: late_arrivals\n" in section for section in sections.values())
    assert len(re.findall(rb"\ndimension: dest( \(\w+\))?\n", sections["shared"])) == 1
    # The prompt's own sections (workflow, refusals, bounds) are the same either way.
    _within_share({way: len(section) for way, section in sections.items()})


async def test_describe_catalog_over_mcp_shrinks_in_both_halves(
    deployments: dict[str, Path],
) -> None:
    texts: dict[str, int] = {}
    structured: dict[str, int] = {}
    for way, config in deployments.items():
        async with connected(wiring(config)) as session:
            result = await session.call_tool("describe_catalog", {})
        assert not result.is_error
        texts[way] = len(text_of(result).encode("utf-8"))
        structured[way] = len(msgspec.json.encode(structured_of(result)))
    _within_share(texts)
    _within_share(structured)


async def _http_catalog(config: Path) -> httpx.Response:
    async with assembled(config) as started, client(started.app) as http:
        return await http.get("/v1/catalog", headers={"Authorization": f"Bearer {TOKEN}"})


async def test_get_v1_catalog_shrinks_to_at_most_40_percent(
    deployments: dict[str, Path],
) -> None:
    bodies = {way: await _http_catalog(config) for way, config in deployments.items()}
    assert all(response.status_code == 200 for response in bodies.values())
    _within_share({way: len(response.content) for way, response in bodies.items()})
    shared = bodies["shared"].json()
    names = ["carrier", "origin", "dest", "distance_band", "weekday", "alliance", "carrier_name"]
    assert sorted(d["name"] for d in shared["dimensions"]) == sorted(names)
    assert all(m["dimensions"] == [] for m in shared["metrics"])
    assert all(m["shared"] == names for m in shared["metrics"])
    assert '"flights"' not in bodies["shared"].text  # no model is named to an agent
    assert '"carriers"' not in bodies["shared"].text


def test_the_answers_and_the_digests_are_the_same_either_way(
    deployments: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    answers = {way: _cli(config, capsys, *QUESTION) for way, config in deployments.items()}
    assert answers["shared"] == answers["per_metric"]
    assert answers["shared"].count(b"\n") > 3  # rows, trailer, provenance
    described = {
        way: json.loads(_cli(config, capsys, "describe", "cancellation_rate"))
        for way, config in deployments.items()
    }
    assert described["shared"]["metric_digest"] == described["per_metric"]["metric_digest"]
