"""The contract's deployments (one per engine, for the whole session), the engine each test
module runs on, the seams, and one event loop per module so that a module's surfaces are
opened once and shared by every row."""

from collections.abc import Iterator

import pytest

from tests.contract.deployment import Deployment, duckdb_deployment, postgres_deployment
from tests.contract.seams import seams

ENGINES = [
    pytest.param("duckdb", id="duckdb"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(scope="session")
def contract_duckdb(tmp_path_factory: pytest.TempPathFactory) -> Deployment:
    """The contract deployment on DuckDB."""
    return duckdb_deployment(tmp_path_factory.mktemp("contract-duckdb"))


@pytest.fixture(scope="session")
def contract_postgres(
    tmp_path_factory: pytest.TempPathFactory, postgres_dsn: str
) -> Iterator[Deployment]:
    """The contract deployment on a scratch PostgreSQL database."""
    with postgres_deployment(tmp_path_factory.mktemp("contract-postgres"), postgres_dsn) as made:
        yield made


@pytest.fixture(scope="module", params=ENGINES)
def deployment(request: pytest.FixtureRequest) -> Deployment:
    """The deployment of the engine this module's tests run on (each module runs on both)."""
    found: Deployment = request.getfixturevalue(f"contract_{request.param}")
    return found


@pytest.fixture(scope="module", autouse=True)
def seamed() -> Iterator[None]:
    """The seams, for the contract's deployments only (see :mod:`tests.contract.seams`)."""
    with seams():
        yield
