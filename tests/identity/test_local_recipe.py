"""docs/security.md's local multi-user trial, run as written: its ``mint.py`` makes a key pair,
a JWKS file and access tokens; its settings section makes the example multi-user; a token for
``finance-team`` sees the restricted metric, another does not, and none is a 401."""

import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import yaml

from tests.transports.http.deployments import assembled, client

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"
SECTION = "## A local trial of multi-user"


def _blocks(language: str) -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.DOTALL)


def _mint(config: Path, *groups: str) -> str:
    done = subprocess.run(
        [sys.executable, "mint.py", *groups],
        cwd=config,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module's one deployment."""
    return "asyncio"


@pytest.fixture(scope="module")
def trial(tmp_path_factory: pytest.TempPathFactory, example_dir: Path) -> Path:
    """The example, made multi-user by the page's settings section, with ``mint.py`` beside."""
    config = tmp_path_factory.mktemp("trial")
    shutil.copytree(example_dir, config, dirs_exist_ok=True)
    (script,) = _blocks("python")
    (config / "mint.py").write_text(script, encoding="utf-8")
    (section,) = _blocks("yaml")[-1:]
    settings = yaml.safe_load((config / "base.yaml").read_text(encoding="utf-8"))
    settings["security"] = yaml.safe_load(section)["security"]
    (config / "base.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    metric = config / "catalog" / "return_rate.md"
    restricted = "audience: {restricted: [finance]}\n"
    text = metric.read_text(encoding="utf-8")
    assert "audience: open\n" in text
    metric.write_text(text.replace("audience: open\n", restricted), encoding="utf-8")
    return config


@pytest.fixture(scope="module")
async def http(trial: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the trial, started the way ``sutura serve`` starts (tokens minted first:
    the key set is read when the service starts)."""
    _mint(trial)
    async with assembled(trial) as started, client(started.app) as http:
        yield http


def _names(response: httpx.Response) -> set[str]:
    assert response.status_code == 200, response.text[:300]
    return {metric["name"] for metric in response.json()["metrics"]}


@pytest.mark.anyio
async def test_the_documented_recipe_mints_tokens_each_caller_sees_its_own_catalog(
    trial: Path, http: httpx.AsyncClient
) -> None:
    finance, anyone = _mint(trial, "finance-team"), _mint(trial)
    assert (trial / "issuer-key.pem").stat().st_mode & 0o777 == 0o600
    seen = _names(await http.get("/v1/catalog", headers={"Authorization": f"Bearer {finance}"}))
    unseen = _names(await http.get("/v1/catalog", headers={"Authorization": f"Bearer {anyone}"}))
    assert "return_rate" in seen and "return_rate" not in unseen
    assert seen - unseen == {"return_rate"}
    assert (await http.get("/v1/catalog")).status_code == 401
