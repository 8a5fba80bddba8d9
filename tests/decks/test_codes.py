"""The deck checks, the overspend remedy, card lists and CSV imports speak message codes: every
code they use has an English and a Russian text, the English is today's wording, and the
findings stored before the codes are converted to them (migration 0006)."""

from __future__ import annotations

import ast
import importlib.util
import string
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from babel.messages.pofile import read_po

from sudya.adapters.db import migrate
from sudya.app.imports import ImportRejected
from sudya.domain.decks.cards import CardList, CardListError, parse_card_list
from sudya.domain.decks.decklist import Finding, check, compare, parse
from sudya.domain.decks.squad import REASONS, SquadError, remedy
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import loader
from sudya.i18n import messages

SRC = Path(messages.__file__).resolve().parents[1]
MODULES = [SRC / "domain" / "decks" / "decklist.py", SRC / "domain" / "decks" / "squad.py",
           SRC / "domain" / "decks" / "cards.py",
           SRC / "app" / "decks.py", SRC / "app" / "imports.py",
           SRC / "edges" / "cli" / "decks.py", SRC / "edges" / "web" / "pages_decks.py"]
MIGRATION = SRC / "adapters" / "db" / "migrations" / "versions" / "0006_deck_findings_as_codes.py"
AREAS = ("decklist.", "mismatch.", "squad.", "cards.", "decks.", "import.")
SAMPLE = SRC / "domain" / "decks" / "sample-cards.json"
CARDS = CardList(parse_card_list(SAMPLE.read_text(encoding="utf-8"), "json"))
BOOK = loader.load("berserk")
RULES = BOOK.squad
assert RULES is not None
SQUAD = ["Вайл", "Вайл", "Самаэль", "Аккения", "Аккения", "Шаммар"]


def codes_in(path: Path) -> set[str]:
    """Every string literal of a module that is a message code of these areas (not a part of
    an f-string, not a template's file name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
             for v in node.values}
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in parts and not node.value.endswith(".html")
            and node.value.startswith(AREAS) and messages.is_code(node.value)}


def area_catalogue(lang: str) -> dict[str, str]:
    with (SRC / "i18n" / "locale" / "codes" / f"decks.{lang}.po").open("rb") as f:
        return {str(m.id): str(m.string) for m in read_po(f, locale=lang) if m.id}


def fields(template: str) -> set[str]:
    return {name for _text, name, _spec, _conv in string.Formatter().parse(template) if name}


# ---------------------------------------------------------------------- the catalogues
def test_every_code_the_modules_use_has_an_english_and_a_russian_text() -> None:
    used = set().union(*(codes_in(path) for path in [*MODULES, MIGRATION]))
    used |= set(REASONS.values()) | {"cards.at-line", "cards.at-card"}  # built from parts
    assert len(used) > 40
    for lang in messages.LANGS:
        missing = sorted(code for code in used if not messages.catalogue(lang).get(code))
        assert missing == [], (lang, missing)


def test_the_two_catalogues_have_the_same_codes_and_parameters() -> None:
    en, ru = area_catalogue("en"), area_catalogue("ru")
    assert set(en) == set(ru)
    assert all(code.startswith(AREAS) and messages.is_code(code) for code in en)
    for code in en:
        assert fields(en[code]) == fields(ru[code]), code
        assert "!r" not in ru[code], code  # Russian quotes names «so»
    # nothing in them is left unused
    used = set().union(*(codes_in(path) for path in [*MODULES, MIGRATION]))
    assert set(en) - used - set(REASONS.values()) == {"cards.at-line", "cards.at-card"}


def test_the_area_catalogues_do_not_redefine_the_general_ones() -> None:
    for lang in messages.LANGS:
        with (SRC / "i18n" / "locale" / "codes" / f"{lang}.po").open("rb") as f:
            general = {str(m.id) for m in read_po(f, locale=lang) if m.id}
        assert general & set(area_catalogue(lang)) == set()


# ---------------------------------------------------------------------- findings and draws
CHECKED = [  # (list, format): together they give every finding of the checks
    ("", "constructed"),
    ("3 Гном\nтри Гнома\n2 Самоходд\n3 Шмяк\n", "standard"),
    ("Игрок: А\n4 Вампир\n3 Вайл\nДоп:\n1 Вайл\n11 Богарт\n", "constructed"),
    ("Игрок: А\n3 Шар смерти\n", "standard"),
    ("Игрок: А\n" + "20 Богарт\n" * 4, "constructed"),
]
COMPARED = [("3 Гном\n3 Вампир\nДоп:\n2 Богарт\n", "4 Гном\n1 Шар смерти\nДоп:\n4 Богарт\n"),
            ("3 Гном\n3 Вампир\n", "1 Гном\n")]


def all_findings() -> list[Finding]:
    found = [f for text, fmt in CHECKED for f in check(parse(text), CARDS, BOOK.formats[fmt],
                                                       fmt)]
    return found + [f for listed, deck in COMPARED for f in compare(parse(listed), parse(deck))]


def test_the_findings_of_the_test_lists_cover_every_finding_code() -> None:
    finding_codes = {c for c in codes_in(SRC / "domain" / "decks" / "decklist.py")}
    assert {f.code for f in all_findings()} == finding_codes


@pytest.mark.parametrize("lang", messages.LANGS)
def test_every_finding_and_draw_renders(lang: str) -> None:
    for f in all_findings():
        assert f.text(lang) and "{" not in f.text(lang)
    for draw in remedy(SQUAD, CARDS, RULES, "first", seed=1).draws:
        assert draw.text(lang)


ENGLISH_AND_RUSSIAN = [  # today's English and what the regex translation said in Russian
    ("Игрок: А\n4 Вампир\n", "4 copies of Вампир, at most 3",
     "копий карты «Вампир»: 4, можно не больше 3"),
    ("Игрок: А\n3 Вайл\nДоп:\n1 Вайл\n",
     "4 copies of Вайл in main and additional decks together, at most 3",
     "копий карты «Вайл» в основной и дополнительной колодах вместе: 4, можно не больше 3"),
    ("Игрок: А\n2 Самоходд\n", "'Самоходд' is hard to read: is it 'Самоход'?",
     "«Самоходд» трудно прочитать: это «Самоход»?"),
    ("Игрок: А\n3 Шмяк\n", "'Шмяк' is not a card the judges can identify",
     "судьи не могут определить карту «Шмяк»"),
    ("Игрок: А\nтри Гном\n", "the count of 'Гном' is not written in digits",
     "количество карт «Гном» записано не цифрами"),
    ("Игрок: А\n3 Гном\n", "main deck has 3 cards, fewer than 40",
     "карт в основной колоде: 3, меньше минимума (40)"),
    ("3 Гном\n", "the player's name is not on the list", "в дек-листе нет имени игрока"),
    ("", "no deck list", "дек-листа нет"),
]


@pytest.mark.parametrize(("text", "en", "ru"), ENGLISH_AND_RUSSIAN)
def test_findings_say_what_they_said(text: str, en: str, ru: str) -> None:
    found = check(parse(text), CARDS, BOOK.formats["constructed"], "constructed")
    [finding] = [f for f in found if f.message == en]
    assert finding.text("ru") == ru


def test_compare_and_remedy_say_what_they_said() -> None:
    found = compare(parse("3 Гном\n3 Вампир\n"), parse("3 Гном\n2 Вампир\n1 Шар смерти\n"))
    assert [(f.message, f.text("ru")) for f in found] == [
        ("Вампир: 2 in the deck, 3 on the list", "«Вампир»: в колоде 2, в дек-листе 3"),
        ("Шар смерти ×1 is in the deck but not on the list",
         "«Шар смерти» ×1 есть в колоде, но нет в дек-листе")]
    assert [(d.group, d.reason, d.text("ru")) for d in remedy(
        SQUAD, CARDS, RULES, "first", seed=1,
        drawn=["Аккения", "Аккения", "Вайл", "Шаммар"]).draws][-1] == (
        "Е", "«cannot be taken with …» broken",
        "нарушена особенность «не может быть взят в отряд с…»")


@pytest.mark.parametrize(("names", "seat", "drawn", "en", "ru"), [
    ([*SQUAD, "Вайлл"], "first", None, "squad[6]: unknown card 'Вайлл' (did you mean 'Вайл'?)",
     "squad[6]: неизвестная карта «Вайлл» (может быть, «Вайл»?)"),
    (["Шмяк"], "first", None, "squad[0]: unknown card 'Шмяк'",
     "squad[0]: неизвестная карта «Шмяк»"),
    (SQUAD, "third", None, "seat: unknown seat 'third' (first, second)",
     "seat: неизвестное место «third» (first, second)"),
    (["Вайл", "Самаэль", "Аккения", "Шаммар", "Гном"], "first", ["Гном"],
     "drawn: step 1: the drawn card is not in group А (Вайл, Самаэль, Аккения, Шаммар)",
     "drawn: шаг 1: вытянутой карты нет в группе А (Вайл, Самаэль, Аккения, Шаммар)"),
    (["Гном"], "first", ["Гном"], "drawn: more drawn cards than the remedy needed",
     "drawn: вытянутых карт больше, чем потребовало устранение"),
])
def test_squad_errors_are_codes(names: list[str], seat: str, drawn: list[str] | None,
                                en: str, ru: str) -> None:
    with pytest.raises(SquadError) as info:
        remedy(names, CARDS, RULES, seat, seed=1, drawn=drawn)
    assert messages.is_code(info.value.code) and info.value.field
    assert str(info.value) == en and info.value.render("ru") == ru


def test_card_list_errors_name_each_row_in_both_languages() -> None:
    text = ("name,gold,silver,flyer\nГном,0,2,no\nВайл,6,3,no\nБогарт,0,-1,no\n"
            "Гном,0,1,no\nШар,0,1,maybe\n")
    with pytest.raises(CardListError) as info:
        parse_card_list(text, "csv")
    assert str(info.value) == (
        "4 row(s) rejected; nothing was imported: line 3: a card costs gold or silver "
        "crystals, not both; line 4: silver: a whole number expected, got '-1'; line 5: "
        "'Гном' is listed twice")
    assert info.value.rejected[-1] == "line 6: flyer: yes/no expected, got 'maybe'"
    assert info.value.render("ru").startswith(
        "отклонено строк: 4; ничего не загружено: строка 3: ")
    assert "строка 4: silver: нужно целое число, а не «-1»" in info.value.render("ru")
    with pytest.raises(CardListError) as info:
        parse_card_list('[{"name": "A", "formats": {"s": "restricted=x"}}]', "json")
    assert info.value.rejected == ["card 1: formats.s: a whole number expected, got 'x'"]
    assert "карта 1: formats.s" in info.value.render("ru")


def test_import_refusals_are_codes() -> None:
    problem = ImportRejected([(3, SudyaError("import.score-format", field="score",
                                             score="2:1"))])
    assert str(problem) == "1 row(s) rejected; nothing was imported"
    assert problem.rejected == ["line 3: score: write it like 12-8, got '2:1'"]
    assert problem.lines("ru") == ["строка 3: score: пишите счёт так: 12-8, а не «2:1»"]


# ---------------------------------------------------------------------- migration 0006
def migration() -> Any:
    spec = importlib.util.spec_from_file_location("deck_findings_0006", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def old_form(f: Finding) -> dict[str, Any]:
    """A finding as it was stored before the codes: its English message."""
    return {"infraction": f.infraction, "item": f.item, "rule": f.rule, "message": f.message,
            "line": f.line, "suggestion": f.suggestion}


def test_the_migration_reads_every_old_message_back_as_its_code() -> None:
    m = migration()
    quoted = Finding("deck.careless-decklist", "б", "002 §1.4 б", "decklist.hard-to-read",
                     {"card": "Д'Арк", "suggestion": "Жанна \"Д'Арк\""}, 2, "x")
    for f in [*all_findings(), quoted]:
        assert m.finding(old_form(f)) == asdict(f), f.message
        assert m.prose(asdict(f)) == old_form(f)
    unknown = {"infraction": "x", "item": "а", "rule": "r", "message": "something else"}
    assert m.finding(unknown)["params"] == {"text": "something else"}
    assert messages.render("decklist.as-written", {"text": "something else"}, "ru") == \
        "something else"


def test_the_migration_converts_stored_checks_and_back(tmp_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'old.db'}")  # foreign keys not enforced
    cfg = migrate._config()
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0005")
        old = [old_form(f) for f in all_findings()]
        check_table = sa.table("deck_check", sa.column("id"), sa.column("decklist_id"),
                               sa.column("findings", sa.JSON), sa.column("created_by"))
        with engine.begin() as conn:
            conn.execute(sa.insert(check_table), [
                {"id": 1, "decklist_id": 1, "findings": old, "created_by": "t"},
                {"id": 2, "decklist_id": 1, "findings": [], "created_by": "t"}])
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0006")
        with engine.connect() as conn:
            stored = dict(conn.execute(sa.select(check_table.c.id, check_table.c.findings)
                                       ).tuples().all())
        assert stored == {1: [asdict(f) for f in all_findings()], 2: []}
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0005")
        with engine.connect() as conn:
            back = conn.scalar(sa.select(check_table.c.findings).where(check_table.c.id == 1))
        assert back == old
    finally:
        engine.dispose()
