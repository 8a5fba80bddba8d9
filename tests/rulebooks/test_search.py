"""Finding an infraction by what a judge types (sudya.domain.rulebook.search): the words typed are
matched by their stems (snowballstemmer, Russian and English), case-insensitive, ё = е — the
names checked are the bundled berserk rulebook's own."""

from __future__ import annotations

import pytest

from sudya.domain.rulebook import loader
from sudya.domain.rulebook.search import find, fold, stem, word_matches


@pytest.mark.parametrize(("typed", "name"), [
    ("опоздал", "Опоздания"), ("ОПОЗДАЛ", "Опоздания"), ("опоздание", "Опоздания"),
    ("медленно", "Замедленный темп игры"), ("медленная игра", "Замедленный темп игры"),
    ("мошенничал подкуп", "Мошенничество — подкуп"),
    ("затягивал", "Мошенничество — затягивание партии"),
    ("неспортивно", "Неспортивное поведение — незначительное"),
    ("мечёные", "Меченые карты — незначительно"), ("slow", "Замедленный темп игры"),
    ("tardy", "Опоздания"), ("procedure.tardiness", "Опоздания"),
])
def test_infractions_are_found_by_the_stems_of_the_words_typed(typed: str, name: str) -> None:
    book = loader.load("berserk")
    assert name in [i.name.ru for i in find(book, typed)]


def test_a_search_names_only_what_every_word_names() -> None:
    book = loader.load("berserk")
    assert [i.name.ru for i in find(book, "опоздал")] == ["Опоздания"]
    assert [i.name.ru for i in find(book, "медленно")] == ["Замедленный темп игры"]
    assert find(book, "опоздал подкуп") == []
    assert find(book, "") == list(book.infractions)


def test_words_are_folded_and_stemmed() -> None:
    assert fold("Ёжик ЁЛКА") == "ежик елка"
    assert stem("опоздал") == "опозда" and stem("опоздания") == "опоздан"
    assert stem("tardiness") == stem("tardy")
    assert word_matches("медленно", "замедленный")
    assert not word_matches("медленно", "мошенничество")
