"""Catalog files: the sorted walk, its refusals, and every error as file:line: key: problem."""

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from returns.pipeline import is_successful

from sutura.boundary import catalog_files
from sutura.boundary.catalog_files import MAX_FILE_BYTES, load_catalog, walk_catalog
from sutura.core.definitions.pinned import PinnedDefinitions
from tests.core.catalog_samples import ORDERS, REVENUE, SAMPLE


def _write(root: Path, texts: dict[str, str]) -> Path:
    for label, text in texts.items():
        path = root / label
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root


def _catalog_dir(tmp_path: Path, **extra: str) -> Path:
    texts = dict(SAMPLE)
    texts.update({name.replace("__", "/") + ".md": text for name, text in extra.items()})
    return _write(tmp_path / "catalog", texts)


def _loaded(directory: Path) -> PinnedDefinitions:
    result = load_catalog(directory, "v1")
    assert is_successful(result), [e.sentence() for e in result.failure()]
    return result.unwrap()


def _sentences(directory: Path) -> list[str]:
    result = load_catalog(directory, "v1")
    assert not is_successful(result), "expected the catalog to be refused"
    return [error.sentence() for error in result.failure()]


def test_a_catalog_directory_is_walked_sorted_and_pinned(tmp_path: Path) -> None:
    directory = _catalog_dir(tmp_path)
    pinned = _loaded(directory)
    assert pinned.version == "v1"
    assert [m.name for m in pinned.catalog.metrics] == ["paid_share", "revenue"]
    assert [label for label, _ in walk_catalog(directory).unwrap()] == sorted(SAMPLE)


def test_labels_are_posix_paths_relative_to_the_catalog_directory(tmp_path: Path) -> None:
    directory = _catalog_dir(tmp_path, deep__er__still__x=REVENUE.replace("revenue", "other"))
    labels = [label for label, _ in walk_catalog(directory).unwrap()]
    assert "deep/er/still/x.md" in labels


def test_other_files_and_hidden_entries_are_skipped(tmp_path: Path) -> None:
    directory = _catalog_dir(tmp_path)
    _write(directory, {"notes.txt": "not a document", ".hidden.md": "junk", ".git/x.md": "junk"})
    assert _loaded(directory).digest == _loaded(_catalog_dir(tmp_path / "clean")).digest


def test_a_missing_directory_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert _sentences(missing) == [f".: the catalog directory '{missing}' does not exist"]


def test_an_empty_catalog_is_refused(tmp_path: Path) -> None:
    directory = tmp_path / "catalog"
    directory.mkdir()
    _write(directory, {"README.txt": "no documents here"})
    assert _sentences(directory) == [".: the catalog has no documents"]


def test_a_symlink_leading_out_of_the_directory_is_refused(tmp_path: Path) -> None:
    directory = _catalog_dir(tmp_path)
    outside = _write(tmp_path / "outside", {"secret.md": ORDERS})
    (directory / "models" / "linked.md").symlink_to(outside / "secret.md")
    (directory / "escape").symlink_to(outside, target_is_directory=True)
    assert _sentences(directory) == [
        "escape: a symbolic link that leads out of the catalog directory",
        "models/linked.md: a symbolic link that leads out of the catalog directory",
    ]


def test_a_symlink_to_a_file_inside_is_read_and_one_to_a_directory_inside_is_not_followed(
    tmp_path: Path,
) -> None:
    directory = _catalog_dir(tmp_path)
    (directory / "metrics" / "again").symlink_to(directory / "metrics", target_is_directory=True)
    (directory / "loop").symlink_to(directory, target_is_directory=True)
    assert len(walk_catalog(directory).unwrap()) == len(SAMPLE)
    (directory / "alias.md").symlink_to(directory / "metrics" / "revenue.md")
    assert _sentences(directory) == [
        "metrics/revenue.md:3: name: another metric is already called 'revenue', "
        "in 'alias.md' line 3"
    ]


def test_a_dangling_symlink_is_refused(tmp_path: Path) -> None:
    directory = _catalog_dir(tmp_path)
    (directory / "gone.md").symlink_to(tmp_path / "does-not-exist.md")
    assert _sentences(directory) == ["gone.md: a symbolic link whose target cannot be reached"]


def test_an_oversize_file_is_refused(tmp_path: Path) -> None:
    big = REVENUE + "x" * MAX_FILE_BYTES
    directory = _catalog_dir(tmp_path, metrics__revenue=big)
    assert _sentences(directory) == [
        f"metrics/revenue.md: the file is larger than {MAX_FILE_BYTES} bytes"
    ]


def test_a_file_of_exactly_the_cap_is_read(tmp_path: Path) -> None:
    text = REVENUE + "x" * (MAX_FILE_BYTES - len(REVENUE.encode("utf-8")))
    _loaded(_catalog_dir(tmp_path, metrics__revenue=text))


def test_a_file_that_is_not_utf8_is_refused_naming_the_line(tmp_path: Path) -> None:
    directory = _catalog_dir(tmp_path)
    data = REVENUE.encode("utf-8").replace(b"in euros", b"in \xff euros")
    (directory / "metrics" / "revenue.md").write_bytes(data)
    assert _sentences(directory) == ["metrics/revenue.md:25: the file is not valid UTF-8"]


def test_more_documents_than_the_cap_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalog_files, "MAX_DOCUMENTS", 3)
    assert _sentences(_catalog_dir(tmp_path)) == [".: the catalog holds more than 3 documents"]


def test_an_unreadable_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = _catalog_dir(tmp_path)
    unreadable = directory / "metrics" / "revenue.md"
    unreadable.chmod(0)  # enough for an ordinary user; root reads it anyway, so the open refuses
    opened = os.open

    def refuse(path: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(path, str | Path) and Path(path) == unreadable:
            raise PermissionError(errno.EACCES, "Permission denied")
        return opened(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    assert _sentences(directory) == ["metrics/revenue.md: cannot be read (Permission denied)"]


def test_a_file_that_is_not_regular_is_refused(tmp_path: Path) -> None:
    directory = _catalog_dir(tmp_path)
    os.mkfifo(directory / "pipe.md")
    assert _sentences(directory) == ["pipe.md: not a regular file"]


def test_each_file_reports_its_first_problem_and_every_file_is_reported(tmp_path: Path) -> None:
    directory = _catalog_dir(
        tmp_path,
        metrics__revenue=REVENUE.replace("aggregate: sum", "aggregate: total"),
        models__orders=ORDERS.replace("kind: model", "kind: modle"),
    )
    assert _sentences(directory) == [
        "metrics/revenue.md:7: measure.simple.aggregate: "
        "expected one of sum, count, count_distinct, min, max, avg, median, percentile",
        "models/orders.md:2: kind: expected one of model, relationship, metric, glossary, caveat,"
        " not_defined, example",
    ]


def test_checks_across_documents_run_once_every_file_parses(tmp_path: Path) -> None:
    directory = _catalog_dir(
        tmp_path, metrics__revenue=REVENUE.replace("model: orders", "model: x")
    )
    assert _sentences(directory) == ["metrics/revenue.md:4: model: no model is called 'x'"]


def test_a_hostile_file_name_is_escaped_in_the_sentence(tmp_path: Path) -> None:
    directory = _catalog_dir(tmp_path)
    (directory / "bad\x1b[2J.md").write_bytes(b"no front matter")
    sentences = _sentences(directory)
    assert sentences == [
        "bad\\u001b[2J.md:1: the first line must be exactly --- (the start of the front matter)"
    ]
