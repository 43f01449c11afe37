"""The answer cache's own rules: what its key tells apart, LRU by the bytes of replies, age
on the injected clock; and the settings that enable it."""

import datetime
from pathlib import Path

import pytest
from returns.pipeline import is_successful

from sutura.boundary.answer_cache import SourceCache, cache_key
from sutura.boundary.settings_files import load_settings
from sutura.core.nouns.answer import Answer, ExecutedAs, Provenance
from sutura.core.nouns.question import Question, convert_question
from sutura.core.settings import CacheSettings
from sutura.core.tool.caller import EveryAudience
from sutura.core.tool.capability import Capability
from sutura.core.tool.codec import Halves
from sutura.core.tool.reply import Answered

NOW = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
DAY = NOW.date()
QUESTION = {
    "metrics": ["revenue"],
    "grain": "year",
    "range": {"last": {"count": 2, "unit": "year"}},
}


def _question(**changes: object) -> Question:
    return convert_question({**QUESTION, **changes}).unwrap()


def _reply(size: int) -> Answered:
    """An answer whose two halves take ``size`` bytes."""
    provenance = Provenance(
        definition_version="v",
        definition_digest="d",
        metric_digests=[],
        time_zone="UTC",
        executed_as=[ExecutedAs(source="main", posture="p")],
    )
    answer = Answer(columns=["m"], rows=[], provenance=provenance)
    halves = Halves(text="t" * (size - 10), structured=b"s" * 10)
    return Answered(capability=Capability.ASK_METRIC, halves=halves, value=answer)


def test_the_key_tells_apart_digest_question_view_and_day_and_nothing_else() -> None:
    question = _question()
    key = cache_key("d1", question, EveryAudience.EVERY, DAY)
    same = convert_question(dict(reversed(list(QUESTION.items())))).unwrap()
    assert cache_key("d1", same, EveryAudience.EVERY, DAY) == key  # canonical: key order
    others = [
        cache_key("d2", question, EveryAudience.EVERY, DAY),
        cache_key("d1", _question(grain="quarter"), EveryAudience.EVERY, DAY),
        cache_key("d1", question, frozenset(), DAY),
        cache_key("d1", question, frozenset({"finance"}), DAY),
        cache_key("d1", question, EveryAudience.EVERY, DAY + datetime.timedelta(days=1)),
    ]
    assert len({key, *others}) == 1 + len(others)


def test_a_changed_digest_misses() -> None:
    cache = SourceCache(CacheSettings(enabled=True))
    question = _question()
    cache.put(cache_key("d1", question, EveryAudience.EVERY, DAY), _reply(2000), NOW)
    assert cache.get(cache_key("d2", question, EveryAudience.EVERY, DAY), NOW) is None
    assert cache.get(cache_key("d1", question, EveryAudience.EVERY, DAY), NOW) is not None
    assert cache.counts()[:2] == (1, 1)


def test_the_least_recently_used_go_first_to_keep_the_bytes_bound() -> None:
    cache = SourceCache(CacheSettings(enabled=True, max_bytes=5000))
    keys = [
        cache_key("d", _question(grain=g), EveryAudience.EVERY, DAY)
        for g in ("day", "week", "month")
    ]
    cache.put(keys[0], _reply(2000), NOW)
    cache.put(keys[1], _reply(2000), NOW)
    assert cache.get(keys[0], NOW) is not None  # now the most recently used
    cache.put(keys[2], _reply(2000), NOW)  # 6000 > 5000: the least recently used goes
    assert cache.get(keys[1], NOW) is None
    assert cache.get(keys[0], NOW) is not None and cache.get(keys[2], NOW) is not None
    counts = cache.counts()
    assert (counts.evictions, counts.entries, counts.bytes) == (1, 2, 4000)
    cache.put(keys[1], _reply(5001), NOW)  # larger than the bound: never kept, nothing evicted
    assert cache.get(keys[1], NOW) is None and cache.counts().entries == 2


def test_an_entry_lives_max_age_seconds_from_when_it_was_computed() -> None:
    cache = SourceCache(CacheSettings(enabled=True, max_age_seconds=10))
    key = cache_key("d", _question(), EveryAudience.EVERY, DAY)
    cache.put(key, _reply(2000), NOW)
    assert cache.get(key, NOW + datetime.timedelta(seconds=10)) is not None
    assert cache.get(key, NOW + datetime.timedelta(seconds=10.001)) is None
    assert cache.counts().bytes == 0


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        (
            "{kind: postgres, cache: {enabled: true}}",
            "sources.main.cache.max_age_seconds",
        ),
        ("{kind: spark, cache: {enabled: true}}", "sources.main.cache.max_age_seconds"),
        ("{kind: duckdb, path: x.duckdb, cache: {enabled: true, max_bytes: 10}}", "max_bytes"),
        ("{kind: duckdb, path: x.duckdb, cache: {enabled: true, max_age_seconds: 0}}", "max_age"),
        ("{kind: duckdb, path: x.duckdb, cache: {enabled: yes, ttl: 5}}", "ttl"),
    ],
)
def test_a_cache_setting_that_cannot_hold_is_refused_naming_its_key(
    tmp_path: Path, source: str, problem: str
) -> None:
    settings = (
        "security: {identity: single-user, single_user_because: tests}\n"
        f"sources:\n  main: {source}\n"
    )
    (tmp_path / "base.yaml").write_text(settings, encoding="utf-8")
    loaded = load_settings({"SUTURA_CONFIG_DIR": str(tmp_path)})
    assert not is_successful(loaded)
    assert any(problem in error.sentence() for error in loaded.failure())


def test_a_duckdb_cache_needs_no_max_age_and_postgres_one_with_it_loads(tmp_path: Path) -> None:
    settings = (
        "security: {identity: single-user, single_user_because: tests}\n"
        "sources:\n  main: {kind: duckdb, path: x.duckdb, cache: {enabled: true}}\n"
        "  pg: {kind: postgres, cache: {enabled: true, max_age_seconds: 30}}\n"
    )
    (tmp_path / "base.yaml").write_text(settings, encoding="utf-8")
    loaded = load_settings({"SUTURA_CONFIG_DIR": str(tmp_path)})
    assert is_successful(loaded), loaded.failure()
    assert loaded.unwrap().settings.sources["main"].cache.max_age_seconds is None
