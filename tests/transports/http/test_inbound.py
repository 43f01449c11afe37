"""Inbound access tokens over HTTP: every bad token is the same 401; scopes decide the call."""

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Scope
from sutura.transports.http.serve import Started
from sutura.transports.http.wire import FAILURE_DETAILS, FailureCode
from tests.transports.http.deployments import assembled, client
from tests.transports.http.inbound_deployment import write_multi_user
from tests.transports.http.tokens import (
    ISSUER,
    KeyPair,
    claims,
    hmac_with,
    mint,
    unsigned,
    with_payload,
)
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION as QUESTION

pytestmark = pytest.mark.anyio

ISSUER_KEY = KeyPair("k1")
ATTACKER_KEY = KeyPair("k1")  # the issuer's key id, someone else's key
METADATA = "https://sutura.test/.well-known/oauth-protected-resource"
SAME_ID = {"X-Request-Id": "compared-request"}


@pytest.fixture(scope="module")
async def started(
    tmp_path_factory: pytest.TempPathFactory, example_dir: Path
) -> AsyncIterator[Started]:
    """The multi-user deployment, started the way ``sutura serve`` starts."""
    config = write_multi_user(tmp_path_factory.mktemp("inbound"), example_dir, ISSUER_KEY)
    async with assembled(config) as started:
        yield started


@pytest.fixture(scope="module")
async def http(started: Started) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the multi-user deployment."""
    async with client(started.app) as http:
        yield http


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _good(**changes: Any) -> str:
    return mint(ISSUER_KEY, claims(**changes))


BAD_TOKENS: dict[str, Callable[[], dict[str, str]]] = {
    "no token": dict,
    "expired": lambda: _bearer(_good(exp=int(claims()["iat"]) - 3600)),
    "not yet valid": lambda: _bearer(_good(nbf=int(claims()["iat"]) + 3600)),
    "wrong issuer": lambda: _bearer(_good(iss="https://elsewhere.test")),
    "wrong audience": lambda: _bearer(_good(aud="https://other-resource.test/")),
    "no audience": lambda: _bearer(_good(aud=None)),
    "alg none": lambda: _bearer(unsigned(claims())),
    "HS256 keyed with the public key": lambda: _bearer(
        hmac_with(ISSUER_KEY.public_pem(), claims(), "k1")
    ),
    "unknown kid": lambda: _bearer(mint(KeyPair("k9"), claims())),
    "someone else's key under the issuer's kid": lambda: _bearer(mint(ATTACKER_KEY, claims())),
    "jku pointing elsewhere": lambda: _bearer(
        mint(ATTACKER_KEY, claims(), jku="https://attacker.test/jwks.json")
    ),
    "x5u pointing elsewhere": lambda: _bearer(
        mint(ATTACKER_KEY, claims(), x5u="https://attacker.test/cert.pem")
    ),
    "jku on the issuer's own key": lambda: _bearer(
        mint(ISSUER_KEY, claims(), jku="https://attacker.test/jwks.json")
    ),
    "wrong typ": lambda: _bearer(mint(ISSUER_KEY, claims(), typ="JWT")),
    "no typ": lambda: _bearer(mint(ISSUER_KEY, claims(), typ=None)),
    "extra scopes it does not hold": lambda: _bearer(
        with_payload(
            _good(scope="sutura:catalog.read"),
            claims(scope="sutura:catalog.read sutura:metrics.ask sutura:sql.run"),
        )
    ),
    "huge token": lambda: _bearer(_good(padding="x" * 100_000)),
    "not a JWT": lambda: _bearer("not.a.jwt"),
    "basic scheme": lambda: {"Authorization": f"Basic {_good()}"},
    "no subject": lambda: _bearer(_good(sub=None)),
}


async def _refused(
    http: httpx.AsyncClient, method: str, path: str, headers: dict[str, str] | None = None
) -> httpx.Response:
    body = QUESTION if method == "POST" else None
    return await http.request(method, path, json=body, headers=headers)


@pytest.mark.parametrize("case", list(BAD_TOKENS))
@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/catalog"), ("POST", "/v1/query")])
async def test_every_bad_token_is_the_same_401(
    http: httpx.AsyncClient, case: str, method: str, path: str
) -> None:
    # One request id for both: every response carries its own (X-Request-Id).
    response = await _refused(http, method, path, headers={**SAME_ID, **BAD_TOKENS[case]()})
    baseline = await _refused(http, method, path, headers=SAME_ID)
    assert response.status_code == 401
    assert response.content == baseline.content
    assert response.json() == {
        "code": "unauthorized",
        "status": 401,
        "detail": FAILURE_DETAILS[FailureCode.UNAUTHORIZED],
    }
    assert response.headers["www-authenticate"] == f'Bearer resource_metadata="{METADATA}"'
    assert response.headers.multi_items() == baseline.headers.multi_items()


async def test_a_good_token_in_the_query_string_is_refused(http: httpx.AsyncClient) -> None:
    response = await http.get("/v1/catalog", params={"access_token": _good()})
    assert response.status_code == 401
    header_too = await http.get(
        "/v1/catalog", params={"access_token": _good()}, headers=_bearer(_good())
    )
    assert header_too.status_code == 401


async def test_a_good_token_is_answered(http: httpx.AsyncClient) -> None:
    catalog = await http.get("/v1/catalog", headers=_bearer(_good()))
    assert catalog.status_code == 200
    answered = await http.post("/v1/query", json=QUESTION, headers=_bearer(_good()))
    assert answered.status_code == 200, answered.text
    assert answered.json()["outcome"] == "answer"


async def test_a_token_within_the_leeway_is_answered(http: httpx.AsyncClient) -> None:
    now = int(claims()["iat"])
    late = _bearer(_good(exp=now - 10))
    early = _bearer(_good(nbf=now + 10))
    assert (await http.get("/v1/catalog", headers=late)).status_code == 200
    assert (await http.get("/v1/catalog", headers=early)).status_code == 200


async def test_a_caller_without_sql_run_gets_403_naming_it(http: httpx.AsyncClient) -> None:
    token = _good(scope="sutura:catalog.read sutura:metrics.ask")
    response = await http.post(
        "/v1/sql/run", json={"statement": "SELECT 1"}, headers=_bearer(token)
    )
    assert response.status_code == 403
    assert response.json()["code"] == "insufficient_scope"
    assert "sutura:sql.run" in response.json()["detail"]
    challenge = 'Bearer error="insufficient_scope", scope="sutura:sql.run"'
    assert response.headers["www-authenticate"] == challenge


@pytest.mark.parametrize(
    ("scope", "path", "named"),
    [
        ("sutura:metrics.ask", "/v1/catalog", "sutura:catalog.read"),
        ("openid profile sutura:admin", "/v1/catalog", "sutura:catalog.read"),
        ("", "/v1/query", "sutura:metrics.ask"),
        ("sutura:catalog.read", "/v1/query", "sutura:metrics.ask"),
    ],
)
async def test_a_capability_outside_the_tokens_scopes_is_403_naming_it(
    http: httpx.AsyncClient, scope: str, path: str, named: str
) -> None:
    token = _bearer(_good(scope=scope))
    response = await (
        http.get(path, headers=token)
        if path == "/v1/catalog"
        else http.post(path, json=QUESTION, headers=token)
    )
    assert response.status_code == 403
    assert response.json()["code"] == "insufficient_scope"
    assert named in response.json()["detail"]


async def test_scopes_may_come_as_a_list(http: httpx.AsyncClient) -> None:
    token = _good(scope=None, scp=["sutura:catalog.read"])
    assert (await http.get("/v1/catalog", headers=_bearer(token))).status_code == 200


async def test_the_protected_resource_metadata_names_the_issuer(http: httpx.AsyncClient) -> None:
    response = await http.get("/.well-known/oauth-protected-resource")
    assert response.status_code == 200
    assert response.json() == {
        "resource": "https://sutura.test/",
        "authorization_servers": [ISSUER],
        "scopes_supported": [
            "sutura:catalog.read",
            "sutura:metrics.ask",
            "sutura:sql.run",
            "sutura:metrics.compile",
            "sutura:values.read",
        ],
        "bearer_methods_supported": ["header"],
        "resource_name": "sutura",
    }


async def test_health_needs_no_token(http: httpx.AsyncClient) -> None:
    assert (await http.get("/health")).status_code == 200


async def test_behind_a_gateway_the_forwarded_token_is_verified_the_same_way(
    tmp_path: Path, example_dir: Path
) -> None:
    gateway = "    mode: behind-gateway\n    forwarded_header: X-Forwarded-Access-Token\n"
    config = write_multi_user(tmp_path / "gw", example_dir, ISSUER_KEY, inbound=gateway)
    async with assembled(config) as started, client(started.app) as gw:
        forwarded = {"X-Forwarded-Access-Token": f"Bearer {_good()}", **_bearer("gateway-own")}
        assert (await gw.get("/v1/catalog", headers=forwarded)).status_code == 200
        direct = await gw.get("/v1/catalog", headers=_bearer(_good()))
        assert direct.status_code == 401
        expired = {"X-Forwarded-Access-Token": f"Bearer {_good(exp=1)}"}
        assert (await gw.get("/v1/catalog", headers=expired)).status_code == 401


def _names(catalog: httpx.Response) -> list[str]:
    assert catalog.status_code == 200, catalog.text
    return [m["name"] for m in catalog.json()["metrics"]]


EVERYONE = ["active_customers", "order_count", "revenue"]


@pytest.mark.parametrize(
    ("groups", "seen"),
    [
        (None, EVERYONE),
        ([], EVERYONE),
        (["staff", "unmapped"], EVERYONE),
        (["finance-team"], sorted([*EVERYONE, "return_rate"])),
        ("finance-team", sorted([*EVERYONE, "return_rate"])),
        (["directors"], sorted([*EVERYONE, "return_rate", "average_order_value"])),
    ],
)
async def test_two_callers_with_different_audiences_see_different_catalogs(
    http: httpx.AsyncClient, groups: object, seen: list[str]
) -> None:
    catalog = await http.get("/v1/catalog", headers=_bearer(_good(groups=groups)))
    assert sorted(_names(catalog)) == seen
    # The digest stays the whole catalog's, whoever reads it.
    directors = await http.get("/v1/catalog", headers=_bearer(_good(groups=["directors"])))
    digest = catalog.json()["provenance"]["definition_digest"]
    assert digest == directors.json()["provenance"]["definition_digest"]


def _asking(metric: str) -> dict[str, Any]:
    return {**QUESTION, "metrics": [metric]}


@pytest.mark.parametrize("hidden", ["return_rate", "average_order_value"])
async def test_a_hidden_metric_answers_byte_identical_to_a_missing_one(
    http: httpx.AsyncClient, hidden: str
) -> None:
    plain = {**SAME_ID, **_bearer(_good(groups=["staff"]))}
    refused = await http.post("/v1/query", json=_asking(hidden), headers=plain)
    missing = await http.post("/v1/query", json=_asking("no_such_metric"), headers=plain)
    assert refused.status_code == missing.status_code == 404
    assert refused.content == missing.content
    assert refused.headers.multi_items() == missing.headers.multi_items()
    assert refused.json()["reason"]["code"] == "metric_unknown"
    allowed = await http.post(
        "/v1/query", json=_asking(hidden), headers=_bearer(_good(groups=["directors"]))
    )
    assert allowed.status_code == 200, allowed.text


async def test_knowledge_follows_the_metrics_it_leads_to(http: httpx.AsyncClient) -> None:
    def caveats(catalog: httpx.Response) -> list[str]:
        metrics = catalog.json()["metrics"]
        return sorted({c["name"] for m in metrics for c in m.get("caveats", [])})

    finance = await http.get("/v1/catalog", headers=_bearer(_good(groups=["finance-team"])))
    directors = await http.get("/v1/catalog", headers=_bearer(_good(groups=["directors"])))
    # returns_still_count is about revenue and average_order_value: shown only with both.
    assert "returns_still_count" not in caveats(finance)
    assert "returns_still_count" not in finance.text
    assert "returns_still_count" in caveats(directors)


@pytest.mark.parametrize(("groups", "shown"), [(["staff"], False), (["finance-team"], True)])
async def test_a_term_or_example_leading_to_a_hidden_metric_is_not_shown(
    http: httpx.AsyncClient, groups: list[str], shown: bool
) -> None:
    catalog = await http.get("/v1/catalog", headers=_bearer(_good(groups=groups)))
    body = catalog.json()
    terms = [t["term"] for t in body.get("glossary", [])]
    examples = [e["name"] for e in body.get("examples", [])]
    assert ("refunds" in terms) is shown
    assert ("refunds_by_quarter" in examples) is shown
    # (the example's revenue prose names return_rate: an author's prose is shown as written)


def test_the_prompt_served_to_a_caller_is_their_view(started: Started) -> None:
    def prompt(audiences: frozenset[str]) -> str:
        caller = Caller(subject="s", scopes=frozenset(Scope), audiences=audiences, request_id="r")
        return started.service.prompt_for(caller)

    staff, finance = prompt(frozenset()), prompt(frozenset({"finance"}))
    assert "metric: return_rate" not in staff and "metric: return_rate" in finance
    assert "means: return_rate" not in staff and "means: return_rate" in finance
    assert "metric: average_order_value" not in finance
    assert "returns_still_count" not in finance
    assert started.service.definitions().digest in staff
    assert prompt(frozenset({"finance"})) is finance  # derived once per set of audiences


@pytest.mark.parametrize("path", ["/console/compile", "/console/agent/ask_metric"])
async def test_the_console_helpers_hide_what_the_caller_cannot_see(
    http: httpx.AsyncClient, path: str
) -> None:
    plain = {**SAME_ID, **_bearer(_good(groups=["staff"]))}
    hidden = await http.post(path, json=_asking("return_rate"), headers=plain)
    missing = await http.post(path, json=_asking("no_such_metric"), headers=plain)
    assert hidden.status_code == missing.status_code
    assert hidden.content == missing.content
    assert "metric_unknown" in hidden.text
    shown = await http.post(
        path, json=_asking("return_rate"), headers=_bearer(_good(groups=["directors"]))
    )
    assert "metric_unknown" not in shown.text
