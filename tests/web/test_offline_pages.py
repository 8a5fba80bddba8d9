"""Issue 37: the record form kept for offline use lists every infraction with the engine's
ruling on a first offence at the tournament's level (or that it needs the full form), and the
players with their tables; the app's own offline page needs no sign-in."""

from __future__ import annotations

import html
from collections.abc import Callable

from fastapi.testclient import TestClient
from web_testkit import main_of

from sudya.app.offline import first_offences

BERSERK = 1  # the demo's berserk tournament, at the professional level


def test_the_offline_form_lists_first_offences(signed_in: Callable[[str], TestClient]) -> None:
    judge = signed_in("sudya")
    r = judge.get(f"/t/{BERSERK}/record/offline")
    assert r.status_code == 200
    main = main_of(r.text)
    rulings = {o.attrs["value"]: html.unescape(o.attrs.get("data-ruling", ""))
               for o in main.one("select", id="off-infraction").all("option")
               if o.attrs.get("value")}
    # by the engine, at the professional level, with no history (berserk 000 Приложение №2)
    assert rulings["procedure.tardiness"] == "Штрафное очко"
    assert rulings["conduct.major"] == "Поражение в матче + Предупреждение"
    assert rulings["deck.invalid-deck-no-decklist"] == ""  # needs a setting: online only
    players = [o.attrs["value"] for o in main.one("select", id="off-player").all("option")
               if o.attrs.get("value")]
    assert players == ["alisa", "boris", "vera", "gleb", "dasha", "egor"]
    assert 'data-preliminary="предварительно — без учёта истории"' in html.unescape(r.text)


def test_who_may_not_rule_gets_no_offline_form(signed_in: Callable[[str], TestClient]) -> None:
    assert signed_in("igrok").get(f"/t/{BERSERK}/record/offline").status_code == 403


def test_the_offline_page_needs_no_sign_in(client: TestClient) -> None:
    r = client.get("/offline")
    assert r.status_code == 200 and "Нет связи" in r.text


def test_first_offences_follow_the_level() -> None:
    amateur = first_offences("berserk", None, "amateur", {})
    professional = first_offences("berserk", None, "professional", {})
    assert amateur["procedure.critical"] is not None
    assert professional["procedure.critical"] is not None
    assert amateur["procedure.critical"].kinds != professional["procedure.critical"].kinds
    pending = first_offences("team-wargame", None, None, {})["serious-cheating"]
    assert pending is not None and pending.pending  # the judge chooses a range (004)
