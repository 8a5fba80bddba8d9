"""Issue 37: «стол, имя или фамилия» at the top of every tournament page a judge opens; it
opens the dashboard's search with what was typed. The dashboard has its own search, first;
a player (who sees no one else) gets none."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from web_testkit import main_of

BERSERK = 1
PAGES = ["pending", "results", "record", "appeals", "incidents", "match",
         "people/boris"]


def test_every_tournament_page_of_a_judge_has_the_search(
        signed_in: Callable[[str], TestClient]) -> None:
    judge = signed_in("sudya")
    for page in PAGES:
        main = main_of(judge.get(f"/t/{BERSERK}/{page}").text)
        bar = main.one("form", cls="find-bar")
        assert bar.attrs["action"] == f"/t/{BERSERK}#players", page
        assert bar.one("input", id="find-q").attrs["name"] == "q"
    dashboard = main_of(judge.get(f"/t/{BERSERK}").text)
    assert dashboard.all("form", cls="find-bar") == []  # its own search instead
    found = main_of(judge.get(f"/t/{BERSERK}?q=Петров").text)
    assert [li.attrs["data-player"] for li in found.one("ul", cls="people-list").all("li")] \
        == ["boris"]


def test_a_player_gets_no_search(signed_in: Callable[[str], TestClient]) -> None:
    player = signed_in("igrok")
    assert "find-bar" not in player.get(f"/t/{BERSERK}/appeals").text
