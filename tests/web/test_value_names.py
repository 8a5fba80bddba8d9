"""Erratum E11 on the record form: an enum input's values read in words («соклановец
участника», not «clan-mate»); the rulebook names them (`value_names`), and a name for a value
the input does not have is refused when the rulebook loads."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Detail


def test_enum_values_read_in_words(signed_in: Callable[[str], TestClient]) -> None:
    master = signed_in("master")
    page = master.get("/t/2/record?infraction=interference").text
    assert "соклановец участника" in page and "посторонний" in page
    assert ">clan-mate<" not in page and ">unrelated<" not in page
    assert 'value="clan-mate"' in page  # the value sent stays the rulebook's id


def test_every_bundled_enum_value_is_named_or_already_words() -> None:
    for rid in ("berserk", "clan-championship", "team-wargame"):
        book = loader.load(rid)
        for inf in book.infractions:
            for name, d in {**book.common_details, **inf.details}.items():
                for v in d.values:
                    assert v in d.value_names or not v.isascii(), (rid, inf.id, name, v)


def test_a_name_for_an_unknown_value_is_refused() -> None:
    with pytest.raises(ValidationError, match="value_names: ghost not among the values"):
        Detail.model_validate({"type": "enum", "values": ["a"],
                               "value_names": {"ghost": {"ru": "призрак", "en": "ghost"}}})
    assert Detail.model_validate({"type": "enum", "values": ["a"]}).value_text("a") == "a"
