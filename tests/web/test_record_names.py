"""The record form at a large event (issue 37): players listed by name with the id beside it,
the opponent filled in from the current round's pairings, the judge's note typed after the
preview without losing it, and a repeat's preview citing the rule of repeats and saying when
a ruling it counts is under appeal.

Demo tournament 1 is «Берсерк» (professional); its current round 2 pairs alisa–egor at table 1,
vera–boris at table 2, gleb–dasha at table 3. sudya is a floor judge."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from fastapi.testclient import TestClient
from web_testkit import form_fields, main_of, record_form

from sudya.app.appeals import file_appeal
from sudya.app.ledger import Actor, Ledger
from sudya.app.people import import_pairings, opponent_of
from sudya.app.team_rounds import set_games
from sudya.domain.commands import Game

BERSERK, WARGAME = 1, 3
SignIn = Callable[[str], TestClient]
TARDINESS = "procedure.tardiness"
MISSED_TRIGGER = "gameplay.missed-trigger"  # declares its own opponent detail


def url(player: str, infraction: str = TARDINESS, **more: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"infraction": infraction, "player": player,
                                              **more}.items())
    return f"/t/{BERSERK}/record?{query}"


def options(page: str, select: str) -> list[tuple[str, str]]:
    """(value, text) of each option of a select of the record form, the empty one left out."""
    found = main_of(page).one("select", id=select).all("option")
    return [(o.attrs["value"], o.text()) for o in found if o.attrs["value"]]


def test_the_player_list_names_everyone_with_the_id_beside_it(signed_in: SignIn,
                                                               ledger: Ledger) -> None:
    ledger.add_player(tournament=BERSERK, handle="zz-unnamed")  # no name: shown by the id
    judge = signed_in("sudya")
    page = judge.get(url("boris")).text
    players = options(page, "player")
    labels = dict(players)
    assert labels["boris"] == "Борис Петров · boris"
    assert labels["alisa"] == "Алиса Смирнова · alisa"
    assert labels["zz-unnamed"] == "zz-unnamed"
    assert ("boris", "Борис Петров · boris") in players
    # everyone by name (as «ё» reads «е»), the chosen player selected, the value the id
    names = [text for value, text in players]
    assert names == sorted(names, key=lambda t: t.casefold().replace("ё", "е"))
    chosen = main_of(page).one("select", id="player").all("option", selected="")
    assert [o.attrs["value"] for o in chosen] == ["boris"]
    # a table's players first (the dashboard's table link), the rest by name after them
    page = judge.get(url("vera", table="2")).text
    assert [v for v, _t in options(page, "player")][:2] == ["boris", "vera"]
    # the opponent's list by name too
    assert dict(options(page, "details.opponent"))["egor"] == "Егор Лебедев · egor"


def test_the_opponent_is_filled_in_from_the_current_rounds_pairings(signed_in: SignIn,
                                                                     ledger: Ledger) -> None:
    judge = signed_in("sudya")
    for player, opponent in (("boris", "vera"), ("vera", "boris"), ("alisa", "egor")):
        form = record_form(judge, url(player))
        assert form["details.opponent"] == opponent, player
        assert form["preview_token"]  # previewed at once, with the opponent
    # an infraction's own opponent detail (required when both could control it) too
    assert record_form(judge, url("gleb", MISSED_TRIGGER))["details.opponent"] == "dasha"
    # one not seated in the current round: nothing filled in
    ledger.add_player(tournament=BERSERK, handle="late", name="Поздний Игрок")
    assert record_form(judge, url("late")).get("details.opponent", "") == ""
    # the confirm records the opponent the form showed
    form = record_form(judge, url("dasha"))
    done = judge.post(f"/t/{BERSERK}/record/confirm", data=form, follow_redirects=False)
    assert done.status_code == 303, done.text[:300]
    event = done.headers["location"].split("recorded=")[1]
    with ledger.db.connect() as conn:
        payload = conn.execute(sa.text("SELECT payload FROM event WHERE ext_id = :e AND "
                                       "tournament_id = :t"), {"e": event, "t": BERSERK}
                               ).scalar_one()
    if isinstance(payload, str):
        import json

        payload = json.loads(payload)
    assert payload["details"]["opponent"] == "gleb"


def test_the_opponent_follows_the_newest_round_and_a_teams_matchups(ledger: Ledger) -> None:
    import_pairings(ledger, tournament=BERSERK, round=3,
                    text="table,player_a,player_b\n1,alisa,vera\n2,boris,egor\n")
    with ledger.uow().begin() as s:
        assert opponent_of(s, tournament=BERSERK, player="boris") == "egor"
        assert opponent_of(s, tournament=BERSERK, player="boris", round=2) == "vera"
        assert opponent_of(s, tournament=BERSERK, player="gleb") is None  # not paired in 3
    # a team round (the demo's wargame pairs volki, ivan and petr, with medvedi, olga and
    # nina): the player the captains matched them with, none before the matchups
    with ledger.uow().begin() as s:
        assert opponent_of(s, tournament=WARGAME, player="ivan") is None
    games = [Game(a="ivan", b="nina"), Game(a="petr", b="olga")]
    set_games(ledger, tournament=WARGAME, round=2, table=1, games=games,
              actor=Actor(name="glavsud"))
    with ledger.uow().begin() as s:
        assert opponent_of(s, tournament=WARGAME, player="ivan") == "nina"
        assert opponent_of(s, tournament=WARGAME, player="olga") == "petr"


def test_a_note_typed_after_the_preview_is_recorded_with_it(signed_in: SignIn,
                                                            ledger: Ledger) -> None:
    judge = signed_in("sudya")
    form = record_form(judge, url("egor"))
    note = "Опоздал на 12 минут: искал зал."
    done = judge.post(f"/t/{BERSERK}/record/confirm", data={**form, "note": note},
                      follow_redirects=False)
    assert done.status_code == 303, done.text[:300]
    event = done.headers["location"].split("recorded=")[1]
    with ledger.db.connect() as conn:
        stored = conn.execute(sa.text("SELECT payload FROM event WHERE ext_id = :e AND "
                                      "tournament_id = :t"), {"e": event, "t": BERSERK}
                              ).scalar_one()
    assert note in str(stored)
    # anything else changed after the preview is still refused
    form = record_form(judge, url("egor"))
    page = judge.post(f"/t/{BERSERK}/record/confirm",
                      data={**form, "note": note, "details.opponent": "boris"},
                      follow_redirects=False)
    assert page.status_code == 422
    assert form_fields(main_of(page.text).one("form", cls="record-form"))["note"] == note


def test_a_repeats_preview_cites_the_rule_of_repeats_and_an_appeal_pending(
        signed_in: SignIn, ledger: Ledger) -> None:
    minor = "procedure.minor"
    ledger.record(tournament=BERSERK, infraction=minor, player="gleb", judge="sudya",
                  round=1, event_id="first-minor")
    judge = signed_in("sudya")

    def ruling() -> tuple[str, list[str], str]:
        card = main_of(judge.get(url("gleb", minor)).text).one("section", id="preview")
        source = next(p.text() for p in card.all("p", cls="muted")
                      if p.text().startswith("Источник"))
        return (source, [p.text() for p in card.all("p", cls="under-appeal")],
                card.one("span", cls="cause").text())

    source, appealed, cause = ruling()
    # 002 «Сложение пенальти» governs a repeat (regulations.md §1.3), not the infraction's
    # own section, which the form's heading still shows
    assert cause == "повтор" and "Сложение пенальти" in source and "§" not in source
    assert appealed == []
    file_appeal(ledger, tournament=BERSERK, event="first-minor", appellant="gleb",
                reason="Не было ошибки.")
    assert ruling()[1] == ["Повтор учитывает решение first-minor, а оно обжаловано: главный "
                           "судья ещё не рассмотрел апелляцию."]
    # decided (upheld): nothing pending to say
    ledger.appeal(tournament=BERSERK, of="first-minor", outcome="upheld", judge="glavsud")
    assert ruling()[1] == []
    # a first offence is no repeat: its own source
    card = main_of(judge.get(url("vera", minor)).text).one("section", id="preview")
    assert card.one("span", cls="cause").text() != "повтор"
    assert card.all("p", cls="under-appeal") == []
