"""The front-matter cache, as an operator meets it: a catalog read again gives exactly what a
first read gives, reads the YAML of changed documents only, refuses what it refused, and no
state of the cache directory (missing, corrupt, written by another reader, unwritable, off)
changes what is read. Through ``load(environ)`` and ``sutura catalog``/``sutura check``.
"""

import os
import stat
from pathlib import Path
from typing import NamedTuple

import pytest
from returns.pipeline import is_successful

from sutura.boundary import front_matter_cache
from sutura.boundary.loading import Loaded, load
from sutura.core.catalog.document import front_matter
from tests.clock import unclocked
from tests.edited_example import edited_example
from tests.transports.cli.test_cli_engines import sutura


def _environ(config: Path, cache: Path, **more: str) -> dict[str, str]:
    return {"SUTURA_CONFIG_DIR": str(config), "XDG_CACHE_HOME": str(cache), **more}


def _loaded(environ: dict[str, str]) -> Loaded:
    result = load(environ)
    assert is_successful(result), result.failure()
    return result.unwrap()


def _files(cache: Path) -> list[Path]:
    folder = cache / "sutura" / "front-matter"
    return sorted(folder.glob("*.json")) if folder.exists() else []


class _Reads:
    """How many front matters had their YAML read, counted at the C composer."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        composed = front_matter._composed_in_c

        def counted(front: str) -> object:
            self.count += 1
            return composed(front)

        monkeypatch.setattr(front_matter, "_composed_in_c", counted)


def _documents(config: Path) -> int:
    return len(list((config / "catalog").glob("*.md")))


class _Deployment(NamedTuple):
    """The example's settings and catalog, and an environment keeping its cache in ``cache``."""

    config: Path
    environ: dict[str, str]
    cache: Path


@pytest.fixture
def deployment(example_dir: Path, tmp_path: Path) -> _Deployment:
    config = edited_example(example_dir, tmp_path / "config")
    return _Deployment(config, _environ(config, tmp_path / "cache"), tmp_path / "cache")


def test_a_catalog_read_again_reads_no_yaml_and_gives_the_same_definitions(
    deployment: _Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, environ, cache = deployment
    reads = _Reads(monkeypatch)
    first = _loaded(environ)
    assert reads.count == _documents(config)
    assert len(_files(cache)) == 1
    second = _loaded(environ)
    assert reads.count == _documents(config)  # not one more
    assert second.pinned == first.pinned
    assert second.catalog.documents == first.catalog.documents
    off = _loaded({**environ, "SUTURA__CATALOG__CACHE": "false"})
    assert off.pinned == first.pinned


def test_an_edited_document_is_read_anew_and_the_others_are_not(
    deployment: _Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, environ, _ = deployment
    before = _loaded(environ)
    revenue = config / "catalog" / "revenue.md"
    revenue.write_text(
        revenue.read_text(encoding="utf-8").replace("aggregate: sum", "aggregate: max"),
        encoding="utf-8",
    )
    reads = _Reads(monkeypatch)
    edited = _loaded(environ)
    assert reads.count == 1
    uncached = _loaded({**environ, "SUTURA__CATALOG__CACHE": "false"})
    assert edited.pinned == uncached.pinned
    assert edited.pinned.metric_digests["revenue"] != before.pinned.metric_digests["revenue"]
    unchanged = set(before.pinned.metric_digests) - {"revenue"}
    assert {m: edited.pinned.metric_digests[m] for m in unchanged} == {
        m: before.pinned.metric_digests[m] for m in unchanged
    }


def test_a_refused_document_is_refused_again_naming_its_line(
    example_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(name: str, text: str) -> str:
        return text.replace("aggregate: sum", "aggregate: [sum") if name == "revenue.md" else text

    config = edited_example(example_dir, tmp_path / "config", broken)
    environ = _environ(config, tmp_path / "cache")
    reads = _Reads(monkeypatch)
    first = load(environ)
    cold = reads.count
    second = load(environ)
    assert not is_successful(first) and not is_successful(second)
    assert second.failure() == first.failure()
    assert any(p.startswith("revenue.md:") for p in second.failure())
    # The refused one alone is read again (twice, as at first: the checked path names it).
    assert reads.count - cold == cold - (_documents(config) - 1)


@pytest.mark.parametrize(
    "written",
    [b"", b"not json", b'{"reader": "another reader", "fronts": {}}', b"\xff\xfe" * 100],
    ids=["empty", "garbage", "another-reader", "not-utf8"],
)
def test_a_cache_file_that_cannot_be_used_is_read_as_empty_and_written_anew(
    deployment: _Deployment, monkeypatch: pytest.MonkeyPatch, written: bytes
) -> None:
    config, environ, cache = deployment
    expected = _loaded(environ)
    [path] = _files(cache)
    path.write_bytes(written)
    reads = _Reads(monkeypatch)
    again = _loaded(environ)
    assert reads.count == _documents(config)
    assert again.pinned == expected.pinned
    assert path.read_bytes() != written
    _loaded(environ)
    assert reads.count == _documents(config)  # what was written anew is used


def test_another_reader_is_never_trusted(
    deployment: _Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file stamped by another reader (another sutura, PyYAML, or an edited front-matter
    module) holds values that reader gave: they are not used, even for the same text."""
    config, environ, _ = deployment
    expected = _loaded(environ)
    monkeypatch.setattr(front_matter_cache, "_reader", lambda: "another reader")
    reads = _Reads(monkeypatch)
    assert _loaded(environ).pinned == expected.pinned
    assert reads.count == _documents(config)


def test_a_cache_file_others_may_write_is_not_read(
    deployment: _Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, environ, cache = deployment
    expected = _loaded(environ)
    [path] = _files(cache)
    path.chmod(0o666)
    reads = _Reads(monkeypatch)
    assert _loaded(environ).pinned == expected.pinned
    assert reads.count == _documents(config)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # written anew, the user's alone


def test_an_unwritable_cache_directory_changes_nothing(example_dir: Path, tmp_path: Path) -> None:
    config = edited_example(example_dir, tmp_path / "config")
    expected = _loaded({"SUTURA_CONFIG_DIR": str(config)})
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would be", encoding="utf-8")
    environ = _environ(config, blocked)
    assert _loaded(environ).pinned == expected.pinned
    assert _loaded(environ).pinned == expected.pinned
    assert blocked.read_text(encoding="utf-8").startswith("a file")


def test_the_cache_is_owner_only_and_off_writes_nothing(example_dir: Path, tmp_path: Path) -> None:
    config = edited_example(example_dir, tmp_path / "config")
    _loaded(_environ(config, tmp_path / "off", SUTURA__CATALOG__CACHE="false"))
    assert not (tmp_path / "off").exists()
    _loaded(_environ(config, tmp_path / "cache"))
    [path] = _files(tmp_path / "cache")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert not [p for p in path.parent.iterdir() if p.suffix == ".tmp"]


def test_cache_dir_names_where_it_is_kept(example_dir: Path, tmp_path: Path) -> None:
    config = edited_example(example_dir, tmp_path / "config")
    environ = {"SUTURA_CONFIG_DIR": str(config), "SUTURA__CATALOG__CACHE_DIR": "kept"}
    _loaded(environ)  # relative to the settings directory, as every path in the settings
    assert len(list((config / "kept" / "front-matter").glob("*.json"))) == 1


def test_at_most_so_many_catalogs_are_kept(
    example_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(front_matter_cache, "KEEP_CATALOGS", 2)
    cache = tmp_path / "cache"
    configs = [edited_example(example_dir, tmp_path / f"config{i}") for i in range(4)]
    for index, config in enumerate(configs):
        _loaded(_environ(config, cache))
        os.utime(_newest(cache), (index, index))  # read in this order
    assert len(_files(cache)) == 2
    reads = _Reads(monkeypatch)
    _loaded(_environ(configs[-1], cache))
    assert reads.count == 0  # the last read is kept
    _loaded(_environ(configs[0], cache))
    assert reads.count == _documents(configs[0])  # the first was let go


def _newest(cache: Path) -> Path:
    return max(_files(cache), key=lambda p: p.stat().st_mtime_ns)


def test_sutura_catalog_and_check_print_the_same_with_and_without_it(
    example_dir: Path, tmp_path: Path
) -> None:
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    for command in (["catalog"], ["catalog", "--json"], ["check"]):
        off = sutura(example_dir, *command, SUTURA__CATALOG__CACHE="false")
        cold = sutura(example_dir, *command, **cache)
        warm = sutura(example_dir, *command, **cache)
        assert off.code == 0, off.err
        for ran in (cold, warm):
            assert ran._replace(out=unclocked(ran.out)) == off._replace(out=unclocked(off.out))
    assert len(_files(tmp_path / "cache")) == 1
