"""Finding an infraction by what a judge types: words matched by their stems.

A judge types «опоздал» and means «Опоздания», types «медленно» and means «Замедленный темп
игры». Every word typed must match a word of the infraction's Russian or English name or of its
id, case-insensitive and with ё read as е. A typed word matches a name's word when the typed
word's stem (the Snowball stemmer of its alphabet: Russian for Cyrillic, English otherwise)
occurs in the name's word («медлен» in «замедленный»), when the name word's stem begins the
typed word, or when the two stems differ only in their last letter («мошеннича» for
«мошенничество», stem «мошенничеств»).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable

import snowballstemmer

from sudya.domain.rulebook.schema import Infraction, Rulebook

WORD = re.compile(r"[0-9a-zа-я]+")
CYRILLIC = re.compile(r"[а-я]")


def fold(text: str) -> str:
    """Lower case, ё as е: how words are compared."""
    return text.lower().replace("ё", "е")


def words(text: str) -> list[str]:
    """The words of a text, folded (punctuation and dots of ids split them)."""
    return WORD.findall(fold(text))


@functools.cache
def _stemmer(language: str) -> snowballstemmer.BaseStemmer:
    return snowballstemmer.stemmer(language)


@functools.lru_cache(maxsize=20_000)
def stem(word: str) -> str:
    """A folded word's stem, by the stemmer of its alphabet."""
    language = "russian" if CYRILLIC.search(word) else "english"
    return str(_stemmer(language).stemWord(word))


def word_matches(typed: str, name_word: str) -> bool:
    """Whether a typed word (folded) names the word of a name (folded)."""
    if typed in name_word:
        return True
    typed_stem, name_stem = stem(typed), stem(name_word)
    if typed_stem in name_word:
        return True
    if len(name_stem) >= 3 and typed.startswith(name_stem):
        return True
    common = len(os.path.commonprefix([typed_stem, name_stem]))
    return common >= 4 and common >= len(typed_stem) - 1


def _name_words(inf: Infraction) -> list[str]:
    return [*words(inf.name.ru), *words(inf.name.en), *words(inf.id)]


def matches(inf: Infraction, query: str) -> bool:
    """Whether every word of the query names a word of the infraction's names or id."""
    typed = words(query)
    if not typed:
        return fold(query).strip() in fold(inf.id)  # no letters or digits at all
    names = _name_words(inf)
    return all(any(word_matches(t, n) for n in names) for t in typed)


def find(book: Rulebook, query: str, infractions: Iterable[Infraction] | None = None
         ) -> list[Infraction]:
    """The infractions the query names, in the order given (the rulebook's by default);
    an empty query names them all."""
    pool = list(book.infractions if infractions is None else infractions)
    if not fold(query).strip():
        return pool
    return [inf for inf in pool if matches(inf, query)]

