"""The compiled rulebook cache (loader.load_known): a text that loaded once is not parsed again
by the next process, loads to the same rulebook, and never hides an error's line."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from sudya.app import snapshots
from sudya.domain.errors import RulebookError
from sudya.domain.rulebook import loader

DATA = Path(__file__).parent / "data"
BUNDLED_IDS = ("berserk", "clan-championship", "team-wargame")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SUDYA_RULEBOOK_CACHE", str(folder))
    return folder


def _no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def parse(*_args: object) -> None:
        raise AssertionError("parsed although cached")

    monkeypatch.setattr(loader, "parse_yaml", parse)


@pytest.mark.parametrize("rid", BUNDLED_IDS)
def test_a_cached_rulebook_is_the_rulebook_its_text_gives(
        rid: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = loader.edition_files(rid)["1"]
    text = path.read_text("utf-8")
    fresh = loader.load_known(text, str(path))
    assert len(list(cache.glob("*.json"))) == 1
    assert cache.stat().st_mode & 0o077 == 0  # made private
    _no_parse(monkeypatch)
    cached = loader.load_known(text, str(path))
    assert cached is not fresh
    assert cached.model_dump() == fresh.model_dump()
    # a snapshot finds the rulebook's objects by their places: the same in both
    assert ([type(o) for o in snapshots._objects(cached)]
            == [type(o) for o in snapshots._objects(fresh)])


def test_an_edited_text_is_parsed_for_real_and_its_error_names_the_line(cache: Path) -> None:
    text = (DATA / "tiny.yaml").read_text("utf-8")
    loader.load_known(text, "tiny.yaml")
    lines = text.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("sanctions:"))
    edited = "".join([*lines[:at], "nonsense: 1\n", *lines[at:]])
    with pytest.raises(RulebookError, match=rf"^tiny\.yaml:{at + 1}: "):
        loader.load_known(edited, "tiny.yaml")
    assert len(list(cache.glob("*.json"))) == 1  # nothing kept of a text that failed


@pytest.mark.parametrize("entry", [
    "not JSON at all {",
    json.dumps({"key": "another text's", "data": {}}),
    None,  # the right key, but a tree the schema refuses (written below)
])
def test_an_entry_that_is_not_this_texts_valid_tree_is_parsed_for_real(
        cache: Path, entry: str | None) -> None:
    text = (DATA / "tiny.yaml").read_text("utf-8")
    expected = loader.load_known(text, "tiny.yaml").model_dump()
    (written,) = cache.glob("*.json")
    key = written.stem
    written.write_text(entry if entry is not None
                       else json.dumps({"key": key, "data": {"id": 5}}), "utf-8")
    assert loader.load_known(text, "tiny.yaml").model_dump() == expected
    assert json.loads(written.read_text("utf-8"))["key"] == key  # and written anew


def test_a_folder_others_may_write_to_is_not_used(
        cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache.mkdir()
    cache.chmod(0o777)
    assert loader.cache_dir() is None
    loader.load_known((DATA / "tiny.yaml").read_text("utf-8"), "tiny.yaml")
    assert list(cache.iterdir()) == []
    monkeypatch.setenv("SUDYA_RULEBOOK_CACHE", "off")
    assert loader.cache_dir() is None


def test_dates_and_keys_that_look_like_tags_survive_the_cache() -> None:
    tree: dict[str, Any] = {"$date": "2026-01-01", "on": dt.date(2026, 3, 1),
                            "items": [{"$map": [1, 2]}, {"plain": None}], "n": 1.5}
    encoded = json.dumps(loader._encode(tree))
    assert json.loads(encoded, object_hook=loader._decode) == tree


def test_a_value_json_cannot_hold_as_it_is_is_not_cached() -> None:
    with pytest.raises(TypeError):
        loader._encode({"at": dt.datetime(2026, 1, 1, 10)})  # ruamel's timestamps
