"""The rulebook editor's form (issue 39): the penalty table as a grid, the rules as fields, a
new infraction, a renamed copy that keeps its cases, cases in words that accept the draft's
new result or are deleted, and publishing that shows what changes before it asks."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_testkit import Element, form_items, parse

from sudya.domain.rulebook import loader

SLOW = "gameplay.slow-play"
CELL = f"cell|{SLOW}|professional"


@pytest.fixture(autouse=True)
def _forget_published() -> Iterator[None]:
    yield
    loader.keep_stored(set())  # what this test published is its database's, not the next's


def editor_form(page: str) -> Element:
    return parse(page).one("form", id="editor")


def fields(page: str) -> dict[str, list[str]]:
    """What the browser sends of the editor's form as the page shows it."""
    return form_items(editor_form(page))


def text_of(page: str) -> str:
    return fields(page)["text"][0]


def beside(page: str, name: str) -> str:
    """The message shown beside a field (its `…-error` paragraph)."""
    spot = name.replace("|", "-").replace(".", "-") + "-error"
    found = parse(page).all("p", id=spot)
    return " ".join(p.text() for p in found)


def case_card(page: str, name: str) -> Element:
    cards = [c for c in editor_form(page).all("div", cls="case")
             if name in c.one("h3").text()]
    assert len(cards) == 1, name
    return cards[0]


def send(c: TestClient, url: str, data: dict[str, list[str]], **extra: str) -> str:
    r = c.post(url, data={**data, **{k: [v] for k, v in extra.items()}})
    assert r.status_code in (200, 422), r.text[:500]
    return r.text


@pytest.fixture
def organiser(signed_in: Callable[[str], TestClient]) -> TestClient:
    return signed_in("glavsud")


def test_a_cell_changes_one_line_a_case_fails_in_words_and_accepts_the_new_result(
        organiser: TestClient) -> None:
    page = organiser.get("/rulebooks/editor?from=berserk").text
    before = text_of(page)
    data = fields(page)
    assert data[CELL] == ["warning"] and data[f"was|{CELL}"] == ["warning"]
    data[CELL] = ["game-loss"]
    page = send(organiser, "/rulebooks/editor/apply", data)
    after = text_of(page)
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True)
               if a != b]
    assert changed == [(
        "    penalty: {amateur: caution, professional: warning, highest: warning}",
        "    penalty: {amateur: caution, professional: game-loss, highest: warning}")]
    assert fields(page)[CELL] == ["game-loss"]  # the grid shows the text it wrote
    # the case that had slow play at the professional level fails, in words
    card = case_card(page, "berserk-basics")
    said = card.text()
    assert "не проходит" in said or "✗" in said
    assert "ожидали Предупреждение, получили Поражение в партии" in said, said
    assert "{'kind'" not in said and "rulings[" not in said
    # the change is meant: the case now expects what the draft gives
    accept = card.one("button", name="accept")
    page = send(organiser, "/rulebooks/editor/cases", fields(page),
                accept=accept.attrs["value"])
    assert "✓ berserk-basics" in case_card(page, "berserk-basics").text()
    assert "Проходят: 8 из 8" in html.unescape(page) or "8 из 8" in html.unescape(page)


def test_the_yaml_and_the_form_edit_one_draft(organiser: TestClient) -> None:
    """A change typed in the YAML is kept when the form changes another cell; the form's
    change of a cell wins only where the form was changed."""
    page = organiser.get("/rulebooks/editor?from=berserk").text
    data = fields(page)
    typed = data["text"][0].replace("penalty: {amateur: caution, professional: warning, "
                                    "highest: warning}", "penalty: {amateur: warning, "
                                    "professional: warning, highest: warning}")
    data["text"] = [typed]
    data["rule|stacking|count"] = ["4"]
    page = send(organiser, "/rulebooks/editor/apply", data)
    text = text_of(page)
    assert "penalty: {amateur: warning, professional: warning, highest: warning}" in text
    assert "\n  count: 4\n" in text
    assert fields(page)[f"cell|{SLOW}|amateur"] == ["warning"]


def test_a_problem_shows_beside_its_cell_in_russian(organiser: TestClient) -> None:
    page = organiser.get("/rulebooks/editor?from=berserk").text
    data = fields(page)
    data["text"] = [data["text"][0].replace(
        "{amateur: caution, professional: warning, highest: warning}",
        "{amateur: caution, professional: warnin, highest: warning}")]
    page = send(organiser, "/rulebooks/editor/check", data)
    # a draft that does not load shows no grid: the problem is beside its YAML line
    assert "warnin" in html.unescape(page) and "line 847" not in page
    problems = parse(page).one("section", id="problems").text()
    assert "Замедленный темп игры" in problems and "Профессиональный" in problems
    assert "is not defined" not in problems


def test_a_bad_value_in_a_field_is_refused_beside_it(organiser: TestClient) -> None:
    page = organiser.get("/rulebooks/editor?from=berserk").text
    data = fields(page)
    data["rule|stacking|count"] = ["три"]
    page = send(organiser, "/rulebooks/editor/apply", data)
    assert "целое число" in beside(page, "rule|stacking|count").lower()
    assert "\n  count: 3\n" in text_of(page)  # nothing written


def test_an_infraction_is_added_with_its_source_and_text(organiser: TestClient) -> None:
    page = organiser.get("/rulebooks/editor?from=berserk").text
    data = fields(page)
    data |= {"new_name": ["Телефон за игровым столом"], "new_id": ["club.phone"],
             "new_source": [""], "new_text": ["Игрок не говорит по телефону во время партии."],
             "new_pen|amateur": ["caution"], "new_pen|professional": ["warning"],
             "new_pen|highest": ["game-loss"]}
    refused = send(organiser, "/rulebooks/editor/add", data)
    assert "Укажите, где это сказано" in beside(refused, "new_source")
    assert "club.phone" not in text_of(refused)
    assert fields(refused)["new_name"] == ["Телефон за игровым столом"]  # kept as typed
    data["new_source"] = ["Регламент клуба §3"]
    page = send(organiser, "/rulebooks/editor/add", data)
    book = loader.load_text(text_of(page), "draft")
    added = book.infraction("club.phone")
    assert added is not None and added.source == "Регламент клуба §3"
    assert added.name.ru == "Телефон за игровым столом"
    assert fields(page)["cell|club.phone|highest"] == ["game-loss"]
    again = send(organiser, "/rulebooks/editor/add", fields(page) | {
        "new_name": ["Снова"], "new_id": ["club.phone"], "new_source": ["x"]})
    assert "уже есть" in beside(again, "new_id")


def test_a_renamed_copy_keeps_its_cases_and_they_pass(organiser: TestClient) -> None:
    page = organiser.get("/rulebooks/editor?from=berserk").text
    data = fields(page)
    data["meta|id"] = ["berserk-klub"]
    data["meta|title"] = ["Берсерк — клубный регламент"]
    page = send(organiser, "/rulebooks/editor/cases", data)
    text = text_of(page)
    assert text.startswith("# ") or "id: berserk-klub" in text
    assert "\nid: berserk-klub\n" in text
    sent = fields(page)
    assert all("rulebook: berserk-klub" in s for s in sent["case_scenario"] if s.strip())
    assert "/tmp" not in page and "sudya-draft" not in page
    assert "Проходят: 8 из 8" in html.unescape(page) or "8 из 8" in html.unescape(page)


def test_a_case_is_deleted(organiser: TestClient) -> None:
    page = organiser.get("/rulebooks/editor?from=berserk").text
    names = [n for n in fields(page)["case_name"] if n]
    card = case_card(page, "missed-trigger")
    delete = card.one("button", name="delete")
    page = send(organiser, "/rulebooks/editor/cases", fields(page),
                delete=delete.attrs["value"])
    left = [n for n in fields(page)["case_name"] if n]
    assert left == [n for n in names if n != "missed-trigger"]


def test_publishing_shows_what_changes_then_asks_for_the_day(organiser: TestClient) -> None:
    page = organiser.get("/rulebooks/editor?from=berserk").text
    data = fields(page)
    data[CELL] = ["game-loss"]
    page = send(organiser, "/rulebooks/editor/apply", data)
    card = case_card(page, "berserk-basics")
    page = send(organiser, "/rulebooks/editor/cases", fields(page),
                accept=card.one("button", name="accept").attrs["value"])
    data = fields(page)
    data["summary"] = ["Замедление на профессиональном уровне — поражение в партии"]
    asked = send(organiser, "/rulebooks/editor/publish", data)
    assert "С какого дня" in beside(asked, "in_force_from")
    data["in_force_from"] = ["2027-01-01"]
    preview = send(organiser, "/rulebooks/editor/publish", data)
    shown = parse(preview).one("div", id="publish-preview").text()
    assert "1 января 2027" in shown and "Кубок «Берсерк»" in shown
    assert "останется на редакции" in shown or "сохраняет редакцию" in shown \
        or "редакции 1" in shown, shown
    confirm = parse(preview).one("button", id="confirm-publish")
    assert confirm.attrs["name"] == "confirm"
    r = organiser.post("/rulebooks/editor/publish",
                       data={**fields(preview), "confirm": ["1"]})
    assert r.status_code == 200, r.text[:400]
    assert "Редакция 2 регламента berserk опубликована" in html.unescape(r.text)


def test_a_recorded_ruling_becomes_a_case_of_the_draft(organiser: TestClient) -> None:
    """«сделать проверочным случаем»: the ruling's case joins the draft's cases and passes
    under the rulebook it was recorded with; under a changed cell it fails in words."""
    page = organiser.get("/rulebooks/editor?from=berserk&case=1:e13")
    assert page.status_code == 200, page.text[:300]
    names = [n for n in fields(page.text)["case_name"] if n]
    made = names[-1]
    assert made.endswith("e13") and len(names) == 9
    page_text = send(organiser, "/rulebooks/editor/cases", fields(page.text))
    assert "Проходят: 9 из 9" in html.unescape(page_text)
    refused = organiser.get("/rulebooks/editor?from=berserk&case=1:nope")
    assert refused.status_code == 422


def test_a_lint_error_shows_beside_its_infraction(organiser: TestClient) -> None:
    """A draft that loads but lint refuses: the problem is beside the infraction's row of
    the table, in words, besides the list by line."""
    tiny = (Path(__file__).parents[1] / "rulebooks" / "data" / "tiny.yaml").read_text("utf-8")
    text = tiny.replace("{low: caution, high: warning}", "{low: caution}")
    page = organiser.get("/rulebooks/editor").text
    data = fields(page) | {"text": [text]}
    page = send(organiser, "/rulebooks/editor/apply", data)
    said = beside(page, "row|noise")
    assert "уровне Высокий" in said and "не даёт на нём пенальти" in said, said
    assert fields(page)["cell|noise|low"] == ["caution"]


def test_each_kind_of_a_penalty_given_together_is_a_choice(organiser: TestClient) -> None:
    """The clan championship gives `[fighter-dq, technical-defeat]` for a long elixir: each
    kind is changed on its own; a cell with a formula or a condition stays the YAML's."""
    page = organiser.get("/rulebooks/editor?from=clan-championship").text
    data = fields(page)
    assert data["cell|elixirs.long|*|0"] == ["fighter-dq"]
    assert data["cell|elixirs.long|*|1"] == ["technical-defeat"]
    assert not any(k.startswith("cell|attack.undeclared-on-participant|") for k in data)
    data["cell|elixirs.long|*|1"] = ["warning"]
    page = send(organiser, "/rulebooks/editor/apply", data)
    assert "    penalty: [fighter-dq, warning]\n" in text_of(page)
    assert fields(page)["cell|elixirs.long|*|1"] == ["warning"]


def test_a_renamed_copy_is_published_as_a_rulebook_of_ones_own(organiser: TestClient) -> None:
    page = organiser.get("/rulebooks/editor?from=berserk").text
    data = fields(page)
    assert data["series"] != [""]  # the organiser's berserk series, chosen for them
    data |= {"meta|id": ["berserk-klub"], "summary": ["Клубная копия"],
             "in_force_from": ["2027-01-01"]}
    refused = send(organiser, "/rulebooks/editor/publish", data)
    said = beside(refused, "series")
    assert "berserk-klub" in said and "свой регламент" in said, said
    data = fields(refused) | {"series": [""]}
    preview = send(organiser, "/rulebooks/editor/publish", data)
    shown = parse(preview).one("div", id="publish-preview").text()
    assert "каждой серии регламента berserk-klub" in shown, shown
    r = organiser.post("/rulebooks/editor/publish", data={**fields(preview), "confirm": ["1"]})
    assert "Редакция 1 регламента berserk-klub опубликована" in html.unescape(r.text)
    again = organiser.get("/rulebooks/editor?from=berserk-klub").text
    assert len([n for n in fields(again)["case_name"] if n]) == 8  # its cases kept with it
