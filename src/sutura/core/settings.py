"""Settings: the shape of every layer, with the built-in defaults. Loading is in the boundary."""

import re
import urllib.parse
from enum import StrEnum
from typing import Annotated, assert_never

import msgspec

from sutura.core.nouns.formulas import Formulas
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.physical import PhysicalSchema
from sutura.core.nouns.prose import CatalogProse
from sutura.core.nouns.setting_keys import key_path


class Environment(StrEnum):
    """``SUTURA_ENVIRONMENT``."""

    DEVELOPMENT = "development"
    TEST = "test"
    PRODUCTION = "production"


class Posture(StrEnum):
    """``sources.<alias>.posture``: whose identity reads a source's data (named in provenance).

    ``impersonation-at-source`` (the caller's identity) comes with caller identity, later.
    """

    SHARED_SERVICE_USER = "shared-service-user"


class Identity(StrEnum):
    """``security.identity``: whether this deployment tells its callers apart.

    ``single-user`` serves one person (or one agent acting for them) and must say why
    (``security.single_user_because``); ``multi-user`` verifies an identity per call.
    """

    SINGLE_USER = "single-user"
    MULTI_USER = "multi-user"


class InboundMode(StrEnum):
    """``security.inbound.mode``: where the access token arrives.

    ``direct``: in ``Authorization: Bearer``. ``behind-gateway``: an API gateway in front
    forwards the caller's token in ``security.inbound.forwarded_header`` (``Authorization``
    then carries the gateway's own credential and is not read); it is verified the same way.
    """

    DIRECT = "direct"
    BEHIND_GATEWAY = "behind-gateway"


class SigningAlgorithm(StrEnum):
    """``security.inbound.algorithms``: the asymmetric JWS algorithms a token may be signed with.

    ``none`` and every HMAC algorithm are not in the vocabulary: a key this deployment can
    read must never be one that signs.
    """

    RS256 = "RS256"
    RS384 = "RS384"
    RS512 = "RS512"
    PS256 = "PS256"
    PS384 = "PS384"
    PS512 = "PS512"
    ES256 = "ES256"
    ES384 = "ES384"
    ES512 = "ES512"
    EDDSA = "EdDSA"


class InboundSettings(Frozen, frozen=True):
    """``security.inbound``: the JWT access tokens (RFC 9068) a multi-user deployment verifies."""

    issuer: str
    resource: str
    jwks_url: str | None = None
    jwks_file: str | None = None
    mode: InboundMode = InboundMode.DIRECT
    forwarded_header: str = "x-forwarded-authorization"
    algorithms: list[SigningAlgorithm] = msgspec.field(
        default_factory=lambda: [SigningAlgorithm.RS256]
    )
    leeway_seconds: Annotated[int, msgspec.Meta(ge=0, le=300)] = 30
    max_token_bytes: Annotated[int, msgspec.Meta(ge=1024, le=65536)] = 8192
    jwks_max_age_seconds: Annotated[int, msgspec.Meta(ge=1, le=86400)] = 60
    jwks_refetch_seconds: Annotated[int, msgspec.Meta(ge=1, le=3600)] = 30
    groups_claim: str = "groups"
    authorization_servers: list[str] | None = None


class McpHttpSettings(Frozen, frozen=True):
    """``server.mcp``: MCP over streamable HTTP at ``/mcp`` on ``sutura serve``."""

    enabled: bool = True


class RateLimitSettings(Frozen, frozen=True):
    """``server.rate_limit``: requests per caller (off unless ``per_minute`` is set)."""

    per_minute: Annotated[int, msgspec.Meta(ge=1)] | None = None
    burst: Annotated[int, msgspec.Meta(ge=1)] = 20


class ServerSettings(Frozen, frozen=True):
    """``server``: the HTTP listener."""

    host: str = "127.0.0.1"
    port: Annotated[int, msgspec.Meta(ge=0, le=65535)] = 8765
    request_timeout_seconds: Annotated[float, msgspec.Meta(gt=0)] = 30.0
    max_body_bytes: Annotated[int, msgspec.Meta(ge=256)] = 65536
    max_concurrent_queries: Annotated[int, msgspec.Meta(ge=1)] = 8
    header_timeout_seconds: Annotated[float, msgspec.Meta(gt=0)] = 10.0
    max_connections: Annotated[int, msgspec.Meta(ge=1)] = 256
    allowed_hosts: tuple[Annotated[str, msgspec.Meta(min_length=1)], ...] | None = None
    console: bool | None = None
    """The web console at ``/``: ``None`` serves it in development only."""
    mcp: McpHttpSettings = msgspec.field(default_factory=McpHttpSettings)
    rate_limit: RateLimitSettings = msgspec.field(default_factory=RateLimitSettings)


class SecuritySettings(Frozen, frozen=True):
    """``security``: who the callers are, the bearer token for ``/v1/*`` and ``/mcp``, and the
    one for ``/metrics``."""

    access_token: str | None = None
    identity: Identity | None = None
    single_user_because: str | None = None
    inbound: InboundSettings | None = None
    audience_mapping: dict[str, list[str]] = msgspec.field(default_factory=dict)
    metrics_token: str | None = None


class CatalogSettings(Frozen, frozen=True):
    """``catalog``: where the documents are and the operator's version label."""

    dir: str = "catalog"
    version: str = "unversioned"
    time_zone: str = "UTC"
    cache: bool = True
    """Keep what reading each document's YAML gave, by its exact text, so that a catalog read
    again reads the YAML of changed documents only (:mod:`sutura.boundary.front_matter_cache`)."""
    cache_dir: str | None = None
    """Where that cache is kept; by default ``$XDG_CACHE_HOME/sutura``, else
    ``~/.cache/sutura``."""


class CacheSettings(Frozen, frozen=True):
    """``sources.<alias>.cache``: the answer cache of one source (off unless enabled).

    A DuckDB source's data cannot change while the service runs (a file is opened read-only, a
    directory is loaded into memory at startup), so its answers may be kept for the process's
    lifetime; every other source needs ``max_age_seconds``. ``max_bytes`` bounds the memory the
    source's cached replies hold (both halves); the least recently used go first.
    """

    enabled: bool = False
    max_age_seconds: Annotated[float, msgspec.Meta(gt=0)] | None = None
    max_bytes: Annotated[int, msgspec.Meta(ge=1024)] = 64 * 1024 * 1024


class DuckDBSourceSettings(Frozen, tag="duckdb", tag_field="kind", frozen=True):
    """A DuckDB database file, or a directory of CSV/Parquet files exposed as tables."""

    path: str
    posture: Posture = Posture.SHARED_SERVICE_USER
    cache: CacheSettings = msgspec.field(default_factory=CacheSettings)
    threads: Annotated[int, msgspec.Meta(ge=1)] | None = None
    max_concurrent_statements: Annotated[int, msgspec.Meta(ge=1, le=64)] | None = None
    """At most this many statements run at once; more wait their turn in arrival order.
    ``None``: as many as the engine has threads (``threads``, else the CPUs the process may
    use)."""


class PostgresSourceSettings(Frozen, tag="postgres", tag_field="kind", frozen=True):
    """A PostgreSQL server. The password comes from an environment variable or a file only."""

    host: str = "127.0.0.1"
    port: Annotated[int, msgspec.Meta(ge=1, le=65535)] = 5432
    database: str = "postgres"
    user: str = "postgres"
    password_env: str | None = None
    password_file: str | None = None
    sslmode: str = "prefer"
    pool_size: Annotated[int, msgspec.Meta(ge=1, le=64)] = 4
    memory_budget: str = "512MB"
    """What the pool's sessions may use for sorts and hashes together: each sets ``work_mem``
    to it over twice ``pool_size`` (``boundary/sources/postgres_memory.py``)."""
    posture: Posture = Posture.SHARED_SERVICE_USER
    cache: CacheSettings = msgspec.field(default_factory=CacheSettings)


class SparkSourceSettings(Frozen, tag="spark", tag_field="kind", frozen=True):
    """A Spark cluster reached through Spark Connect (needs ``pip install 'sutura[spark]'``)."""

    remote: str = "sc://127.0.0.1:15002"
    token_env: str | None = None
    posture: Posture = Posture.SHARED_SERVICE_USER
    cache: CacheSettings = msgspec.field(default_factory=CacheSettings)


SourceSettings = DuckDBSourceSettings | PostgresSourceSettings | SparkSourceSettings


class PromptSettings(Frozen, frozen=True):
    """``prompt``: whether catalog prose is carried, the operator's own instructions, whether
    MCP lists the physical schema (off by default), and whether agents read each metric's
    formula (off by default: a formula names columns)."""

    catalog_prose: CatalogProse = CatalogProse.QUOTED
    instructions_file: str | None = None
    physical_schema: PhysicalSchema = PhysicalSchema.HIDDEN
    formulas: Formulas = Formulas.HIDDEN


class RunSqlSettings(Frozen, frozen=True):
    """``tools.run_sql``: the ungoverned raw SQL tool, off by default."""

    enabled: bool = False
    source: str | None = None


class CompileQuestionSettings(Frozen, frozen=True):
    """``tools.compile_question``: whether MCP lists ``compile_question`` to agents (off by
    default: an agent sees no SQL unless the operator says so)."""

    enabled: bool = False


class ToolsSettings(Frozen, frozen=True):
    """``tools``."""

    run_sql: RunSqlSettings = msgspec.field(default_factory=RunSqlSettings)
    compile_question: CompileQuestionSettings = msgspec.field(
        default_factory=CompileQuestionSettings
    )


class LimitsSettings(Frozen, frozen=True):
    """``limits``: every bound produces a typed refusal, never a truncated answer."""

    max_rows: Annotated[int, msgspec.Meta(ge=1, le=10_000_000)] = 10_000
    max_dimensions: Annotated[int, msgspec.Meta(ge=0, le=16)] = 4
    max_range_days: Annotated[int, msgspec.Meta(ge=1)] = 3653
    deadline_seconds: Annotated[float, msgspec.Meta(gt=0)] = 30.0
    memory_limit: str = "2GB"


class AuditSettings(Frozen, frozen=True):
    """``audit``: where the audit records go besides the ``sutura.audit`` log."""

    path: str | None = None


class TracingSettings(Frozen, frozen=True):
    """``tracing``: OpenTelemetry spans per call and stage (needs the ``otel`` extra)."""

    enabled: bool = False


class LoggingSettings(Frozen, frozen=True):
    """``logging``: how a server's log lines are written on stderr."""

    json: bool = False


class Settings(Frozen, frozen=True):
    """Every setting, after all layers are applied."""

    environment: Environment = Environment.DEVELOPMENT
    server: ServerSettings = msgspec.field(default_factory=ServerSettings)
    security: SecuritySettings = msgspec.field(default_factory=SecuritySettings)
    catalog: CatalogSettings = msgspec.field(default_factory=CatalogSettings)
    sources: dict[str, SourceSettings] = msgspec.field(default_factory=dict)
    prompt: PromptSettings = msgspec.field(default_factory=PromptSettings)
    tools: ToolsSettings = msgspec.field(default_factory=ToolsSettings)
    limits: LimitsSettings = msgspec.field(default_factory=LimitsSettings)
    audit: AuditSettings = msgspec.field(default_factory=AuditSettings)
    logging: LoggingSettings = msgspec.field(default_factory=LoggingSettings)
    tracing: TracingSettings = msgspec.field(default_factory=TracingSettings)


MIN_TOKEN_CHARS = 16
MIN_PRODUCTION_TOKEN_CHARS = 32


def console_served(settings: Settings) -> bool:
    """Whether ``sutura serve`` serves the web console at ``/`` (``server.console``; unset, only
    in development).

    >>> console_served(Settings()), console_served(Settings(environment=Environment.PRODUCTION))
    (True, False)
    """
    if settings.server.console is not None:
        return settings.server.console
    return settings.environment is Environment.DEVELOPMENT


def unsafe_combinations(settings: Settings) -> list[tuple[str, str]]:
    """Every (key, problem) of a combination that must stop startup.

    >>> unsafe_combinations(Settings(environment=Environment.PRODUCTION))
    [('security.access_token', 'production requires an access token')]
    """
    problems = _token_problems(settings) + identity_problems(settings)
    metrics_token = settings.security.metrics_token
    if metrics_token is not None and len(metrics_token) < MIN_TOKEN_CHARS:
        problems.append(
            ("security.metrics_token", f"must be at least {MIN_TOKEN_CHARS} characters")
        )
    if metrics_token is not None and metrics_token == settings.security.access_token:
        problems.append(("security.metrics_token", "must differ from security.access_token"))
    run_sql = settings.tools.run_sql
    if run_sql.enabled and run_sql.source is None:
        problems.append(("tools.run_sql.source", "required when tools.run_sql.enabled is true"))
    if run_sql.source is not None and run_sql.source not in settings.sources:
        problems.append(("tools.run_sql.source", "names no configured source"))
    for alias, source in sorted(settings.sources.items()):
        if (problem := posture_problem(source.posture)) is not None:
            problems.append((key_path("sources", alias, "posture"), problem))
        if (problem := cache_problem(source)) is not None:
            problems.append((key_path("sources", alias, "cache", "max_age_seconds"), problem))
    return problems


def _token_problems(settings: Settings) -> list[tuple[str, str]]:
    token = settings.security.access_token
    production = settings.environment is Environment.PRODUCTION
    if production and not token and _static_token_is_the_door(settings.security.identity):
        return [("security.access_token", "production requires an access token")]
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        return [("security.access_token", f"must be at least {MIN_TOKEN_CHARS} characters")]
    if production and token is not None and len(token) < MIN_PRODUCTION_TOKEN_CHARS:
        return [
            (
                "security.access_token",
                f"must be at least {MIN_PRODUCTION_TOKEN_CHARS} characters in production",
            )
        ]
    return []


def _static_token_is_the_door(identity: "Identity | None") -> bool:
    """Whether HTTP callers get in with ``security.access_token`` (not a verified identity)."""
    match identity:
        case None | Identity.SINGLE_USER:
            return True
        case Identity.MULTI_USER:
            return False
        case _:
            assert_never(identity)


def identity_problems(settings: Settings) -> list[tuple[str, str]]:
    """Every (key, problem) of ``security.identity`` and what it must come with.

    >>> from sutura.core.settings import DuckDBSourceSettings as DuckDB
    >>> identity_problems(Settings(sources={"main": DuckDB(path="x.duckdb")}))
    [('security.identity', 'required once a source is configured: single-user or multi-user')]
    """
    security = settings.security
    match security.identity:
        case None:
            if settings.sources:
                return [("security.identity", _REQUIRED)]
            return []
        case Identity.SINGLE_USER:
            problems: list[tuple[str, str]] = []
            if not (security.single_user_because or "").strip():
                problems.append(
                    ("security.single_user_because", "required when identity is single-user")
                )
            if security.inbound is not None:
                problems.append(("security.inbound", "only with identity multi-user"))
            if security.audience_mapping:
                problems.append(("security.audience_mapping", "only with identity multi-user"))
            return problems
        case Identity.MULTI_USER:
            return _multi_user_problems(settings)
        case _:
            assert_never(security.identity)


_REQUIRED = "required once a source is configured: single-user or multi-user"


def _multi_user_problems(settings: Settings) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    security = settings.security
    if security.single_user_because is not None:
        problems.append(("security.single_user_because", "only with identity single-user"))
    if security.access_token is not None:
        problems.append(
            ("security.access_token", "a static token cannot tell callers apart under multi-user")
        )
    if security.inbound is None:
        problems.append(("security.inbound", "multi-user requires inbound token verification"))
    else:
        problems += inbound_problems(security.inbound, settings.environment)
    run_sql = settings.tools.run_sql
    source = settings.sources.get(run_sql.source) if run_sql.source is not None else None
    if (
        run_sql.enabled
        and run_sql.source is not None
        and source is not None
        and not tells_callers_apart(source.posture)
    ):
        problems.append(
            (
                "tools.run_sql.enabled",
                "under multi-user, the raw tool's source must tell callers apart",
            )
        )
        problems.append(
            (
                key_path("sources", run_sql.source, "posture"),
                "reads every caller's data as one identity",
            )
        )
    return problems


def inbound_problems(inbound: InboundSettings, environment: Environment) -> list[tuple[str, str]]:
    """Every (key, problem) of ``security.inbound`` on its own.

    >>> inbound_problems(InboundSettings(issuer="https://as", resource="https://rs"),
    ...     Environment.PRODUCTION)
    [('security.inbound.jwks_url', 'exactly one of jwks_url and jwks_file is required')]
    """
    problems: list[tuple[str, str]] = []
    if (inbound.jwks_url is None) == (inbound.jwks_file is None):
        problems.append(
            ("security.inbound.jwks_url", "exactly one of jwks_url and jwks_file is required")
        )
    urls = [("issuer", inbound.issuer), ("resource", inbound.resource)]
    urls += [("jwks_url", inbound.jwks_url)] if inbound.jwks_url is not None else []
    urls += [
        (f"authorization_servers.{i}", u) for i, u in enumerate(inbound.authorization_servers or [])
    ]
    for key, url in urls:
        if (problem := url_problem(url, environment)) is not None:
            problems.append((f"security.inbound.{key}", problem))
    if not inbound.algorithms:
        problems.append(("security.inbound.algorithms", "name at least one algorithm"))
    if not inbound.groups_claim:
        problems.append(("security.inbound.groups_claim", "must not be empty"))
    if (
        not _HEADER_NAME.fullmatch(inbound.forwarded_header)
        or inbound.forwarded_header.lower() == "authorization"
    ):
        problems.append(
            ("security.inbound.forwarded_header", "a header name other than Authorization")
        )
    return problems


_HEADER_NAME = re.compile(r"[A-Za-z0-9-]{1,64}")


def url_problem(url: str, environment: Environment) -> str | None:
    """Why ``url`` may not name an issuer, a resource or a key set, or None when it may.

    HTTPS always; plain HTTP only to a loopback host and never in production.

    >>> url_problem("https://auth.example.com/", Environment.PRODUCTION) is None
    True
    >>> url_problem("http://127.0.0.1:9000", Environment.DEVELOPMENT) is None
    True
    >>> url_problem("http://auth.example.com", Environment.DEVELOPMENT)
    'must be an https URL (http only to a loopback host, outside production)'
    """
    parts = urllib.parse.urlsplit(url)
    if not parts.hostname or parts.username or parts.password or parts.fragment:
        return "must be an absolute URL with a host, no user and no fragment"
    if parts.scheme == "https":
        return None
    loopback = parts.hostname in {"localhost", "127.0.0.1", "::1"}
    if parts.scheme == "http" and loopback and environment is not Environment.PRODUCTION:
        return None
    return "must be an https URL (http only to a loopback host, outside production)"


def tells_callers_apart(posture: Posture) -> bool:
    """Whether a source read under ``posture`` reads each caller's data as that caller.

    >>> tells_callers_apart(Posture.SHARED_SERVICE_USER)
    False
    """
    match posture:
        case Posture.SHARED_SERVICE_USER:
            return False
        case _:
            assert_never(posture)


def posture_problem(posture: Posture) -> str | None:
    """Why a source read under ``posture`` cannot be opened at startup, or None when it can.

    Every source is opened once, at startup, with the deployment's own credential; a posture
    that reads as someone else must say here how its source opens.

    >>> posture_problem(Posture.SHARED_SERVICE_USER) is None
    True
    """
    match posture:
        case Posture.SHARED_SERVICE_USER:
            return None
        case _:
            assert_never(posture)


def cache_problem(source: "SourceSettings") -> str | None:
    """Why a source's answer cache cannot be enabled as configured, or None when it can.

    >>> cache_problem(PostgresSourceSettings(cache=CacheSettings(enabled=True)))
    'required when the cache is enabled on a source whose data can change'
    >>> cache_problem(DuckDBSourceSettings(path="x.duckdb", cache=CacheSettings(enabled=True)))
    """
    if not source.cache.enabled or source.cache.max_age_seconds is not None:
        return None
    match source:
        case DuckDBSourceSettings():
            return None
        case PostgresSourceSettings() | SparkSourceSettings():
            return "required when the cache is enabled on a source whose data can change"
        case _:
            assert_never(source)
