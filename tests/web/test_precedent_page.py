"""The precedent flow in the web app (003): a decision of the college becomes, from its ruling
on the dashboard, a draft rule of the next edition in the editor, in force from the next
tournament; the head judge may publish it; a decision on an aggravated ruling makes none."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from sudya.app import rulebook_store
from sudya.app.ledger import Ledger
from sudya.domain.rulebook import loader

WARGAME = 3  # the demo's team-wargame tournament: e11, olga's serious cheating, is pending


@pytest.fixture(autouse=True)
def _forget_published() -> Iterator[None]:
    yield
    loader.keep_stored(set())  # what this test published is its database's, not the next's


def test_a_decision_becomes_the_next_editions_precedent(
        signed_in: Callable[[str], TestClient], ledger: Ledger) -> None:
    ledger.decide(tournament=WARGAME, of="e11", judge="glavsud", choice="min",
                  event_id="college-1")
    head = signed_in("glavsud")
    board = head.get(f"/t/{WARGAME}").text
    assert f'href="/t/{WARGAME}/precedents/college-1"' in board
    assert "прецедент в следующую редакцию" in board

    page = head.get(f"/t/{WARGAME}/precedents/college-1")
    assert page.status_code == 200, page.text
    assert "serious-cheating.precedent-college-1" in page.text  # the draft rule, in the text
    assert 'name="next_tournament" value="1" checked' in page.text
    assert f'name="tournament" value="{WARGAME}"' in page.text
    # the check of the draft as it stands: it loads and lints clean
    form = {"csrf": _csrf(page.text), "text": _textarea(page.text), "from": "team-wargame",
            "tournament": str(WARGAME)}
    checked = head.post("/rulebooks/editor/check", data=form)
    assert checked.status_code == 200
    button = re.search(r'<button[^>]*id="publish"[^>]*>', checked.text)
    assert button is not None and "disabled" not in button.group(0)  # enabled
    # published «со следующего турнира»: this tournament keeps its edition
    published = head.post("/rulebooks/editor/publish", data={
        **form, "next_tournament": "1", "summary": "Прецедент college-1", "confirm": "1"})
    assert published.status_code == 200, published.text
    with ledger.factory() as s:
        newest = rulebook_store.editions(s, "team-wargame")[-1]
    assert (newest.edition, newest.from_next_tournament) == ("2", True)
    assert loader.load("team-wargame", "2").infraction(
        "serious-cheating.precedent-college-1") is not None


def test_no_precedent_from_aggravation_or_from_what_is_not_a_decision(
        signed_in: Callable[[str], TestClient], ledger: Ledger) -> None:
    head = signed_in("glavsud")
    refused = head.get(f"/t/{WARGAME}/precedents/e11")  # a ruling, not a decision
    assert refused.status_code == 422
    assert "e11" in refused.text


def test_only_who_hears_appeals_or_organises_drafts_a_precedent(
        signed_in: Callable[[str], TestClient], ledger: Ledger) -> None:
    ledger.decide(tournament=WARGAME, of="e11", judge="glavsud", choice="min",
                  event_id="college-2")
    floor = signed_in("sudya")  # a floor judge
    assert floor.get(f"/t/{WARGAME}/precedents/college-2").status_code == 403


def _csrf(page: str) -> str:
    return page.split('name="csrf" value="', 1)[1].split('"', 1)[0]


def _textarea(page: str) -> str:
    import html

    body = page.split('id="draft-text"', 1)[1].split(">", 1)[1].split("</textarea>", 1)[0]
    return html.unescape(body)
