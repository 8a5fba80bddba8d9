"""The judge's record flow (issue 14): a preview bound to what it previewed, the infraction found
by the stems of the words typed (the tournament's most used first), the round prefilled, the
ruling read back in words after confirming with an undo for a short time, and the judge's
incident note kept with the ruling and shown to the staff.

Demo tournament 1 is «Берсерк» (professional): sudya is a floor judge, glavsud the head judge,
igrok the player alisa. A person with a display name is added where a test needs one."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from web_testkit import csrf_of, form_fields, main_of, record_form

from sudya.app.clock import start_round
from sudya.app.demo import PASSWORD
from sudya.app.ledger import Actor, Ledger
from sudya.app.people import import_pairings
from sudya.app.recording import undo, undoable
from sudya.app.settings import Settings
from sudya.domain import commands
from sudya.domain.rulebook import loader
from sudya.edges.web import preview_token
from sudya.edges.web.app import create_app

BERSERK = 1
API = "/api/v1"
SignIn = Callable[[str], TestClient]
TARDINESS = "procedure.tardiness"


def form_url(player: str, infraction: str = TARDINESS, **more: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"infraction": infraction, "player": player,
                                              **more}.items())
    return f"/t/{BERSERK}/record?{query}"


def events(ledger: Ledger, kind: str = "infraction") -> list[dict[str, Any]]:
    """The stored events of a kind in the Berserk tournament, oldest first."""
    with ledger.db.connect() as conn:
        rows = conn.execute(sa.text("SELECT ext_id, payload, created_by FROM event "
                                    "WHERE tournament_id = :t AND kind = :k ORDER BY seq"),
                            {"t": BERSERK, "k": kind}).all()
    out = []
    for ext, payload, by in rows:
        if isinstance(payload, str):
            import json

            payload = json.loads(payload)
        out.append({"event": ext, "payload": payload, "by": by})
    return out


def rulings_of(ledger: Ledger, event: str) -> list[dict[str, Any]]:
    with ledger.db.connect() as conn:
        rows = conn.execute(sa.text("SELECT subject, cause, revokes FROM ruling "
                                    "WHERE tournament_id = :t AND event_ext_id = :e"),
                            {"t": BERSERK, "e": event}).all()
    return [{"subject": s, "cause": c, "revokes": r} for s, c, r in rows]


# ---------------------------------------------------------------------- 1. bound preview
@pytest.mark.postgresql
def test_a_confirm_with_another_player_than_previewed_is_refused(signed_in: SignIn,
                                                                  ledger: Ledger) -> None:
    judge = signed_in("sudya")
    form = record_form(judge, form_url("gleb"))  # the form opens with gleb's ruling previewed
    assert form["player"] == "gleb" and form["preview_token"] and form["key"]
    before = events(ledger)
    changed = {**form, "player": "egor"}  # the select changed after the preview
    for headers in ({}, {"HX-Request": "true"}):
        page = judge.post(f"/t/{BERSERK}/record/confirm", data=changed, headers=headers,
                          follow_redirects=False)
        assert page.status_code == 422, page.text[:300]
        main = main_of(page.text) if not headers else None
        text = (main.text() if main else page.text)
        assert "форма изменилась после предпросмотра: ничего не записано" in text
        assert 'id="preview"' not in page.text  # no old ruling to confirm again
        assert '<option value="egor" selected>' in page.text  # the form as it was filled
    assert events(ledger) == before
    # the fields previewed are recorded, for gleb
    page = judge.post(f"/t/{BERSERK}/record/confirm", data=form, follow_redirects=False)
    assert page.status_code == 303
    [new] = events(ledger)[len(before):]
    assert new["payload"]["player"] == "gleb"


def test_a_confirm_without_a_preview_or_with_any_field_changed_is_refused(
        signed_in: SignIn, ledger: Ledger) -> None:
    judge = signed_in("sudya")
    form = record_form(judge, form_url("dasha"))
    before = events(ledger)
    variants = [
        {k: v for k, v in form.items() if k != "preview_token"},  # never previewed
        {**form, "preview_token": "p1." + "0" * 64},
        {**form, "round": str(int(form["round"]) + 1)},
        {**form, "details.between_games": "true"},
        {**form, "infraction": "gameplay.slow-play"},
    ]
    for data in variants:
        page = judge.post(f"/t/{BERSERK}/record/confirm", data=data, follow_redirects=False)
        assert page.status_code == 422, (data, page.text[:300])
    assert events(ledger) == before
    # but not the note: the judge's account is typed with the ruling on the screen, and
    # changes nothing of it (test_record_names.py)
    # a preview made by another judge is not this judge's (the token names the user)
    head = signed_in("glavsud")
    theirs = {**record_form(head, form_url("dasha")), "csrf": form["csrf"]}
    page = judge.post(f"/t/{BERSERK}/record/confirm", data=theirs, follow_redirects=False)
    assert page.status_code == 422
    assert events(ledger) == before


def test_the_preview_post_gives_a_token_bound_to_its_fields(signed_in: SignIn,
                                                            ledger: Ledger) -> None:
    judge = signed_in("sudya")
    csrf = csrf_of(judge, form_url("vera"))
    data = {"csrf": csrf, "infraction": TARDINESS, "player": "vera", "round": "2",
            "note": "опоздал на 12 минут"}
    page = judge.post(f"/t/{BERSERK}/record/preview", data=data, headers={"HX-Request": "true"})
    assert page.status_code == 200
    form = form_fields(main_of(f"<main>{page.text}</main>").one("form", cls="record-form"))
    assert form["player"] == "vera" and form["round"] == "2"
    assert form["note"] == "опоздал на 12 минут"
    cmd = commands.decode("infraction", {"infraction": TARDINESS, "player": "vera",
                                         "round": 2, "judge": "sudya", "details": {},
                                         "note": "опоздал на 12 минут"})
    assert form["preview_token"] == preview_token.token("test-secret", BERSERK, "sudya", cmd)
    done = judge.post(f"/t/{BERSERK}/record/confirm", data=form, follow_redirects=False)
    assert done.status_code == 303


def test_the_token_is_the_commands_hash_for_one_user_and_tournament() -> None:
    cmd = commands.decode("infraction", {"infraction": TARDINESS, "player": "gleb"})
    other = commands.decode("infraction", {"infraction": TARDINESS, "player": "egor"})
    token = preview_token.token("s", 1, "sudya", cmd)
    assert preview_token.same("s", 1, "sudya", cmd, token)
    # the same command decoded from other raw input (defaults written out) is the same
    again = commands.decode("infraction", {"infraction": TARDINESS, "player": "gleb",
                                           "details": {}, "choice": None, "note": ""})
    assert preview_token.same("s", 1, "sudya", again, token)
    for secret, tid, user, c in (("t", 1, "sudya", cmd), ("s", 2, "sudya", cmd),
                                 ("s", 1, "glavsud", cmd), ("s", 1, "sudya", other)):
        assert not preview_token.same(secret, tid, user, c, token)
    assert not preview_token.same("s", 1, "sudya", cmd, None)
    assert not preview_token.same("s", 1, "sudya", cmd, "x" * 500)


@pytest.mark.postgresql
def test_the_api_binds_a_record_to_its_preview_when_asked(client: TestClient,
                                                          ledger: Ledger) -> None:
    token = client.post(f"{API}/login", json={"username": "sudya", "password": "sudya-demo"}
                        ).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    body = {"infraction": TARDINESS, "player": "gleb", "round": 2, "note": "на 10 минут"}
    preview = client.post(f"{API}/tournaments/{BERSERK}/infractions",
                          json={**body, "preview": True}, headers=auth)
    assert preview.status_code == 200, preview.text
    bound = preview.json()["preview_token"]
    assert bound.startswith("p1.")
    before = events(ledger)
    wrong = client.post(f"{API}/tournaments/{BERSERK}/infractions",
                        json={**body, "player": "egor", "preview_token": bound}, headers=auth)
    assert wrong.status_code == 422
    [item] = wrong.json()["detail"]
    assert item["type"] == "preview.changed" and item["loc"] == ["body", "preview_token"]
    assert events(ledger) == before
    done = client.post(f"{API}/tournaments/{BERSERK}/infractions",
                       json={**body, "preview_token": bound}, headers=auth)
    assert done.status_code == 200, done.text
    assert "preview_token" not in done.json()
    [new] = events(ledger)[len(before):]
    assert new["payload"]["note"] == "на 10 минут" and new["payload"]["player"] == "gleb"
    # the token stays optional
    free = client.post(f"{API}/tournaments/{BERSERK}/infractions",
                       json={**body, "player": "egor"}, headers=auth)
    assert free.status_code == 200


# ---------------------------------------------------------------------- 2. finding, prefilling
def test_the_search_page_finds_by_stems_the_most_used_first(signed_in: SignIn,
                                                            ledger: Ledger) -> None:
    judge = signed_in("sudya")
    page = judge.get(f"/t/{BERSERK}/record?q=опоздал", headers={"HX-Request": "true"})
    assert page.status_code == 200
    assert "Опоздания" in page.text and "Замедленный темп" not in page.text
    page = judge.get(f"/t/{BERSERK}/record?q=медленно")
    links = [a.text() for a in main_of(page.text).one("ul", cls="infractions").all("a")]
    assert links == ["Замедленный темп игры"]

    def order() -> list[str]:
        page = judge.get(f"/t/{BERSERK}/record?player=alisa")
        return [a.attrs["href"].split("infraction=")[1].split("&")[0]
                for a in main_of(page.text).one("ul", cls="infractions").all("a")]

    assert order()[:3] != ["conduct.minor"] * 3
    for player in ("alisa", "boris", "vera"):
        ledger.record(tournament=BERSERK, infraction="conduct.minor", player=player,
                      judge="sudya")
    ledger.record(tournament=BERSERK, infraction="procedure.minor", player="vera",
                  judge="sudya")
    ledger.record(tournament=BERSERK, infraction="procedure.minor", player="gleb",
                  judge="sudya")
    first = order()
    assert first[:2] == ["conduct.minor", "procedure.minor"]
    assert len(first) == len(loader.load("berserk").infractions)  # all still listed


def test_the_round_is_prefilled_from_the_pairings_the_round_clock_or_the_last_ruling(
        signed_in: SignIn, ledger: Ledger) -> None:
    judge = signed_in("sudya")
    # the demo's rulings are of round 1, its latest pairings of round 2: the tables in play
    assert record_form(judge, form_url("gleb"))["round"] == "2"
    ledger.record(tournament=BERSERK, infraction="procedure.minor", player="vera",
                  judge="sudya", round=3)
    assert record_form(judge, form_url("gleb"))["round"] == "3"
    start_round(ledger, tournament=BERSERK, round=4, minutes=50)
    assert record_form(judge, form_url("gleb"))["round"] == "4"
    import_pairings(ledger, tournament=BERSERK, round=5,
                    text="table,player_a,player_b\n9,gleb,egor\n")
    assert record_form(judge, form_url("gleb"))["round"] == "5"
    options = main_of(judge.get(form_url("gleb", table="9")).text).one(
        "select", id="player").all("option")
    assert [o.attrs["value"] for o in options[1:3]] == ["gleb", "egor"]  # paired at table 9


def test_a_table_and_a_player_from_a_link_prefill_the_form(signed_in: SignIn) -> None:
    judge = signed_in("sudya")
    page = judge.get(f"/t/{BERSERK}/record?table=2&player=vera")
    main = main_of(page.text)
    link = main.one("ul", cls="infractions").all("a")[0].attrs["href"]
    assert "player=vera" in link and "table=2" in link
    form = record_form(judge, form_url("vera", table="2"))
    assert form["table"] == "2" and form["player"] == "vera" and form["preview_token"]
    page = judge.get(form_url("vera", table="2"))
    assert "Стол 2" in main_of(page.text).text()
    # the table's players in the current round (the demo's round 2 pairs boris and vera at
    # table 2) come first in the list
    options = main_of(page.text).one("select", id="player").all("option")
    assert [o.attrs["value"] for o in options[1:3]] == ["boris", "vera"]
    assert judge.get(f"/t/{BERSERK}/record?table=x&player=vera").status_code == 200


# ---------------------------------------------------------------------- 3. confirmation, undo
@pytest.fixture
def boris(ledger: Ledger) -> str:
    """A player with a display name, warned twice already: the next minor procedural error
    is a repeat, a game loss with a warning."""
    ledger.add_player(tournament=BERSERK, handle="bpetrov", name="Борис Петров")
    for _ in range(2):
        ledger.record(tournament=BERSERK, infraction="procedure.minor", player="bpetrov",
                      judge="glavsud", round=1)
    return "bpetrov"


@pytest.mark.postgresql
def test_the_confirmation_reads_the_ruling_with_the_persons_name(
        signed_in: SignIn, ledger: Ledger, boris: str) -> None:
    judge = signed_in("sudya")
    form = record_form(judge, form_url(boris, "procedure.minor"))
    done = judge.post(f"/t/{BERSERK}/record/confirm", data=form, follow_redirects=False)
    assert done.status_code == 303
    dashboard = judge.get(done.headers["location"])
    status = main_of(dashboard.text).one(cls="recorded")
    assert status.attrs["role"] == "status"
    assert "Борис Петров — Поражение в партии + Предупреждение (повтор)" in status.text()
    assert "Записано" in status.text()
    assert "Записано: e" not in status.text()


def test_undo_records_a_correction_and_deletes_nothing(signed_in: SignIn,
                                                       ledger: Ledger) -> None:
    judge = signed_in("sudya")
    form = record_form(judge, form_url("dasha"))
    done = judge.post(f"/t/{BERSERK}/record/confirm", data=form, follow_redirects=False)
    event = done.headers["location"].split("recorded=")[1]
    dashboard = main_of(judge.get(done.headers["location"]).text)
    undo_form = dashboard.one("form", cls="undo")
    fields = form_fields(undo_form)
    assert fields["event"] == event
    assert 0 < int(undo_form.attrs["data-left"]) <= 120
    assert "Отменить" in undo_form.text()
    # only its judge is offered the undo
    head = signed_in("glavsud")
    assert main_of(head.get(done.headers["location"]).text).all("form", cls="undo") == []
    refused = head.post(f"/t/{BERSERK}/record/undo",
                        data={**fields, "csrf": csrf_of(head, f"/t/{BERSERK}")},
                        follow_redirects=False)
    assert refused.status_code == 422
    assert "может только судья, который его записал" in main_of(refused.text).text()

    corrections = len(events(ledger, "correction"))
    for _ in range(2):  # a double tap corrects once
        undone = judge.post(f"/t/{BERSERK}/record/undo", data=fields, follow_redirects=False)
        assert undone.status_code == 303
        assert undone.headers["location"] == f"/t/{BERSERK}?undone={event}"
    [correction] = events(ledger, "correction")[corrections:]
    assert correction["payload"]["of"] == event and correction["by"] == "sudya"
    assert correction["payload"]["reason"] == "отменено судьёй сразу после записи"
    # append-only: the ruling stays, a new one revokes it
    assert [r["cause"] for r in rulings_of(ledger, event)] == ["table"]
    assert [(r["cause"], r["revokes"]) for r in rulings_of(ledger, correction["event"])] == [
        ("correction", event)]
    page = main_of(judge.get(undone.headers["location"]).text)
    notice = page.one(cls="recorded")
    assert "Отменено" in notice.text() and " — Штрафное очко (по таблице)" in notice.text()
    assert notice.all("form", cls="undo") == []
    assert main_of(judge.get(f"/t/{BERSERK}?recorded={event}").text).all(
        "form", cls="undo") == []  # nothing left to undo


def test_undo_is_offered_for_a_short_time_only(ledger: Ledger) -> None:
    recorded = ledger.execute(BERSERK, commands.decode("infraction", {
        "infraction": TARDINESS, "player": "egor", "judge": "sudya"}),
        actor=Actor(name="sudya"))
    later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=121)
    with ledger.factory() as s:
        offer = undoable(s, tournament=BERSERK, event=recorded.event, user="sudya", within=120)
        assert offer is not None and 110 <= offer.seconds <= 120
        assert undoable(s, tournament=BERSERK, event=recorded.event, user="sudya",
                        within=120, now=later) is None
        assert undoable(s, tournament=BERSERK, event=recorded.event, user="glavsud",
                        within=120) is None
    from sudya.app.ledger import LedgerError

    with pytest.raises(LedgerError) as refused:
        undo(ledger, tournament=BERSERK, event=recorded.event, judge="sudya", within=120,
             reason="", actor=Actor(name="sudya"), now=later)
    assert refused.value.code == "undo.too-late"
    with pytest.raises(LedgerError) as unknown:
        undo(ledger, tournament=BERSERK, event="e9999", judge="sudya", within=120,
             reason="", actor=Actor(name="sudya"))
    assert unknown.value.code == "undo.unknown"


def test_the_undo_window_is_a_setting(database_url: str) -> None:
    # the window is the application's (Sudya.undo_seconds), set once from the settings: the
    # undo offered on the page and the core's refusal of a late one both keep it
    app = create_app(Settings(database_url=database_url, secret="test-secret",
                              undo_seconds=0))
    judge = TestClient(app)
    judge.__enter__()
    try:
        _undo_too_late(judge)
    finally:
        judge.__exit__(None, None, None)
        app.state.ledger.db.dispose()


def _undo_too_late(judge: TestClient) -> None:
    signed = judge.post("/login", data={"username": "sudya", "password": PASSWORD,
                                        "next": "/tournaments",
                                        "csrf": csrf_of(judge, "/login")},
                        follow_redirects=False)
    assert signed.status_code == 303, signed.text
    form = record_form(judge, form_url("egor"))
    done = judge.post(f"/t/{BERSERK}/record/confirm", data=form, follow_redirects=False)
    event = done.headers["location"].split("recorded=")[1]
    assert main_of(judge.get(done.headers["location"]).text).all("form", cls="undo") == []
    late = judge.post(f"/t/{BERSERK}/record/undo",
                      data={"csrf": form["csrf"], "event": event}, follow_redirects=False)
    assert late.status_code == 422 and "время отмены" in late.text


# ---------------------------------------------------------------------- 4. incident notes
NOTE = "Игрок пришёл к столу на 12 минут позже.\nСоперник подтвердил."


@pytest.mark.postgresql
def test_the_incident_note_is_stored_with_the_ruling_and_shown_to_the_staff(
        signed_in: SignIn, ledger: Ledger) -> None:
    judge = signed_in("sudya")
    form = record_form(judge, form_url("alisa"))
    csrf = form["csrf"]
    preview = judge.post(f"/t/{BERSERK}/record/preview", data={**form, "note": NOTE})
    form = form_fields(main_of(preview.text).one("form", cls="record-form"))
    assert form["note"] == NOTE
    done = judge.post(f"/t/{BERSERK}/record/confirm", data=form, follow_redirects=False)
    assert done.status_code == 303, done.text[:300]
    event = done.headers["location"].split("recorded=")[1]
    stored = next(e for e in events(ledger) if e["event"] == event)
    assert stored["payload"]["note"] == NOTE
    # read back through the one decoder, a part of the typed command
    cmd = commands.decode("infraction", stored["payload"])
    assert isinstance(cmd, commands.RecordInfraction) and cmd.note == NOTE

    head = signed_in("glavsud")
    dashboard = main_of(head.get(f"/t/{BERSERK}").text)
    latest = next(li for li in dashboard.all("li", cls="ruling") if event in li.text())
    shown = latest.one("p", cls="incident").text()
    assert shown == f"Запись об инциденте: {' '.join(NOTE.split())}"
    person = main_of(head.get(f"/t/{BERSERK}/people/alisa").text)
    row = next(tr for tr in person.all("tr") if event in tr.text())
    assert "Соперник подтвердил." in row.one("p", cls="incident").text()
    # the player reads her record without the judges' notes
    player = signed_in("igrok")
    assert "Соперник подтвердил" not in player.get(f"/t/{BERSERK}/people/alisa").text
    assert "Соперник подтвердил" not in player.get(f"/t/{BERSERK}").text
    assert csrf


def test_an_incident_note_is_at_most_2000_characters(signed_in: SignIn,
                                                     ledger: Ledger) -> None:
    judge = signed_in("sudya")
    form = record_form(judge, form_url("boris"))
    before = events(ledger)
    for step in ("preview", "confirm"):
        page = judge.post(f"/t/{BERSERK}/record/{step}", data={**form, "note": "ы" * 2001})
        assert page.status_code == 422
        assert 'id="note-error"' in page.text and "2000" in page.text
    assert events(ledger) == before
    ok = judge.post(f"/t/{BERSERK}/record/preview", data={**form, "note": "ы" * 2000})
    assert ok.status_code == 200
    with pytest.raises(commands.CommandError):
        commands.decode("infraction", {"infraction": TARDINESS, "player": "boris",
                                       "note": "ы" * 2001})
    with pytest.raises(commands.CommandError):
        commands.decode("infraction", {"infraction": TARDINESS, "player": "boris",
                                       "note": "a\x00b"})


def test_a_command_without_a_note_is_stored_as_before() -> None:
    cmd = commands.decode("infraction", {"infraction": TARDINESS, "player": "boris"})
    assert "note" not in cmd.payload()
