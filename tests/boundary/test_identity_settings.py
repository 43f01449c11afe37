"""``security.identity``: required once a source exists; unsafe combinations name every key."""

from pathlib import Path

import pytest
from returns.pipeline import is_successful

from sutura.boundary.settings_files import load_settings
from sutura.core.settings import Identity

SOURCE = "sources: {main: {kind: duckdb, path: x.duckdb}}\n"


def _keys(tmp_path: Path, text: str, **environ: str) -> list[tuple[str, str]]:
    (tmp_path / "base.yaml").write_text(text, encoding="utf-8")
    result = load_settings({"SUTURA_CONFIG_DIR": str(tmp_path), **environ})
    assert not is_successful(result), result
    return [(e.key, e.problem) for e in result.failure()]


def test_a_source_without_an_identity_stops_the_start(tmp_path: Path) -> None:
    assert _keys(tmp_path, SOURCE) == [
        ("security.identity", "required once a source is configured: single-user or multi-user")
    ]


def test_no_source_needs_no_identity(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("catalog: {dir: c}\n", encoding="utf-8")
    assert load_settings({"SUTURA_CONFIG_DIR": str(tmp_path)}).unwrap().settings.sources == {}


@pytest.mark.parametrize("because", ["", "'   '", None])
def test_single_user_needs_its_reason(tmp_path: Path, because: str | None) -> None:
    reason = "" if because is None else f", single_user_because: {because}"
    text = SOURCE + f"security: {{identity: single-user{reason}}}\n"
    assert _keys(tmp_path, text) == [
        ("security.single_user_because", "required when identity is single-user")
    ]


def test_single_user_with_its_reason_starts(tmp_path: Path) -> None:
    text = SOURCE + "security: {identity: single-user, single_user_because: my laptop}\n"
    (tmp_path / "base.yaml").write_text(text, encoding="utf-8")
    settings = load_settings({"SUTURA_CONFIG_DIR": str(tmp_path)}).unwrap().settings
    assert settings.security.identity is Identity.SINGLE_USER


def test_an_unknown_identity_lists_the_allowed_ones(tmp_path: Path) -> None:
    text = SOURCE + "security: {identity: everyone}\n"
    assert _keys(tmp_path, text) == [
        ("security.identity", "expected one of single-user, multi-user")
    ]


def test_multi_user_names_every_offending_key(tmp_path: Path) -> None:
    text = (
        SOURCE + "security: {identity: multi-user, single_user_because: x,"
        " access_token: 0123456789abcdef0123456789abcdef}\n"
        "tools: {run_sql: {enabled: true, source: main}}\n"
    )
    assert sorted(k for k, _ in _keys(tmp_path, text)) == [
        "security.access_token",
        "security.inbound",
        "security.single_user_because",
        "sources.main.posture",
        "tools.run_sql.enabled",
    ]


def test_production_needs_a_token_of_32_characters(tmp_path: Path) -> None:
    text = SOURCE + "security: {identity: single-user, single_user_because: x,"
    short = _keys(
        tmp_path, text + " access_token: 0123456789abcdef0123}\n", SUTURA_ENVIRONMENT="production"
    )
    assert short == [("security.access_token", "must be at least 32 characters in production")]
    missing = _keys(tmp_path, text + "}\n", SUTURA_ENVIRONMENT="production")
    assert missing == [("security.access_token", "production requires an access token")]


INBOUND = (
    "security:\n  identity: multi-user\n  inbound:\n"
    "    issuer: {issuer}\n    resource: https://sutura.example/\n    jwks_file: jwks.json\n"
)


def test_multi_user_with_inbound_verification_starts(tmp_path: Path) -> None:
    text = SOURCE + INBOUND.format(issuer="https://auth.example")
    (tmp_path / "base.yaml").write_text(text, encoding="utf-8")
    settings = load_settings({"SUTURA_CONFIG_DIR": str(tmp_path)}).unwrap().settings
    assert settings.security.inbound is not None
    assert settings.security.inbound.issuer == "https://auth.example"


def test_a_plain_http_issuer_is_refused_in_production_and_off_loopback(tmp_path: Path) -> None:
    loopback = SOURCE + INBOUND.format(issuer="http://127.0.0.1:9000")
    production = _keys(tmp_path, loopback, SUTURA_ENVIRONMENT="production")
    assert [k for k, _ in production] == ["security.inbound.issuer"]
    remote = SOURCE + INBOUND.format(issuer="http://auth.example")
    assert [k for k, _ in _keys(tmp_path, remote)] == ["security.inbound.issuer"]


def test_an_hmac_or_none_algorithm_cannot_be_configured(tmp_path: Path) -> None:
    text = SOURCE + INBOUND.format(issuer="https://auth.example") + "    algorithms: [HS256]\n"
    [(key, problem)] = _keys(tmp_path, text)
    assert key == "security.inbound.algorithms[0]"
    assert "HS256" not in problem and "RS256" in problem


def test_inbound_under_single_user_is_refused(tmp_path: Path) -> None:
    text = SOURCE + INBOUND.format(issuer="https://auth.example").replace(
        "multi-user", "single-user\n  single_user_because: me"
    )
    assert [k for k, _ in _keys(tmp_path, text)] == ["security.inbound"]
